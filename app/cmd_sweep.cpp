// claimcheck sweep plan|run|collect NAME --config RUNS: the sweeps of a paper's runs file.
//   plan NAME                     the points, one a line: index, axis values, seed, config hash, state
//   run NAME [--shard I/N | --point K] [--jobs J]
//                                 trains the points (J processes, one thread each), skipping done
//                                 points, resuming partial ones, leaving locked ones to their owner
//   run NAME --ensemble K [--device cuda]
//                                 trains up to K points at once in this process as one stacked model
//   collect NAME [--out DIR]      FIXTURES/sweeps/NAME/{summary.jsonl, manifest.json}, FIXTURES the paper's

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "catalogue/paper_layout.h"
#include "catalogue/runs.h"
#include "catalogue/sweep_results.h"
#include "cli.h"
#include "util/fixture_manifest.h"
#include "sweep/ensemble.h"
#include "sweep/runner.h"
#include "train/runtime.h"
#include "util/error.h"

namespace cc::app {

constexpr int kMaxSweepJobs = 256;
namespace {

const char* outcome_text(sweep::PointOutcome o) {
  switch (o) {
    case sweep::PointOutcome::Trained:
      return "trained";
    case sweep::PointOutcome::Stopped:
      return "stopped (--stop-after)";
    case sweep::PointOutcome::AlreadyDone:
      return "already done";
    case sweep::PointOutcome::Busy:
      break;
  }
  return "locked by another process, left to it";
}

// "I/N" with 0 <= I < N.
std::pair<size_t, size_t> parse_shard(const std::string& text) {
  const size_t slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument(text);
    size_t a = 0, b = 0;
    const long long i = std::stoll(text.substr(0, slash), &a);
    const long long n = std::stoll(text.substr(slash + 1), &b);
    if (a != slash || b != text.size() - slash - 1 || n < 1 || i < 0 || i >= n) throw std::invalid_argument(text);
    return {static_cast<size_t>(i), static_cast<size_t>(n)};
  } catch (const std::exception&) {
    throw po::error("--shard '" + text + "': expected I/N with 0 <= I < N, e.g. 0/4");
  }
}

std::string axes_text(const nlohmann::json& axes) {
  std::string s;
  for (const auto& kv : axes.items()) {
    const auto& v = kv.value();
    s += (s.empty() ? "" : " ") + kv.key() + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return s;
}

// sweep's flags, as given.
struct SweepFlags {
  std::string verb, name, config, cache = "cache", shard, out, device = "cpu";
  int jobs = 0;
  int64_t metrics_every = 1000, ensemble = 0;
};

void add_sweep_options(po::options_description& desc, SweepFlags& f) {
  // One option a line, as boost::program_options reads best; clang-format 14 would join them.
  // clang-format off
  desc.add_options()
      ("verb", po::value(&f.verb)->required(), "plan | run | collect")
      ("name", po::value(&f.name), "the sweep (omit with plan: list the sweeps)")
      ("config", po::value(&f.config)->required(), "the paper's runs file with the sweeps (papers/NAME/runs.yaml)")
      ("cache", po::value(&f.cache), "run cache the points train into (default cache)")
      ("shard", po::value(&f.shard),
       "run: only points with index % N == I, e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT")
      ("point", po::value<size_t>(), "run: only this point, in this process")
      ("jobs", po::value(&f.jobs), "run: processes at once (default: one per usable core)")
      ("ensemble", po::value(&f.ensemble),
       "run: train up to K points at once in this process as one stacked model (the GPU path; libtorch "
       "engine, no warmup or clipping; equal to separate runs up to summation order)")
      ("stop-after", po::value<int64_t>(), "run: stop every point at this step (resume by running again)")
      ("device", po::value(&f.device), "run: cpu | cuda | cuda:N")
      ("out", po::value(&f.out),
       "collect: output directory (default FIXTURES/sweeps/NAME, FIXTURES the paper's fixtures directory, whose "
       "MANIFEST.sha256 is rewritten)")
      ("metrics-every", po::value(&f.metrics_every), "collect: keep the metrics log every this many steps (default 1000)");
  // clang-format on
}

void check_flags(const SweepFlags& f, const po::variables_map& vm) {
  if (f.verb != "plan" && f.verb != "run" && f.verb != "collect")
    throw po::error("unknown sweep verb '" + f.verb + "' (plan, run or collect)");
  if (vm.count("shard") && vm.count("point")) throw po::error("--shard and --point exclude each other");
  // Each job is a process with its own libtorch (~150 MB): more than a few per core only thrashes.
  if (vm.count("jobs") && (f.jobs < 1 || f.jobs > kMaxSweepJobs))
    throw po::error("--jobs must be in [1, " + std::to_string(kMaxSweepJobs) + "]");
  if (vm.count("ensemble") && f.ensemble < 1) throw po::error("--ensemble must be >= 1");
  if (vm.count("ensemble") && (vm.count("point") || vm.count("jobs")))
    throw po::error("--ensemble trains in this process: it excludes --point and --jobs");
  if (f.metrics_every < 1) throw po::error("--metrics-every must be >= 1");
}

// `sweep plan` without a name: every sweep of the runs file.
int list_sweeps(const SweepFlags& f, const catalogue::Runs& runs) {
  if (f.verb != "plan") throw po::error("name the sweep to " + f.verb);
  for (const auto& s : runs.sweeps())
    std::cout << s.name << ": " << s.points.size() << " points over " << s.base << " (claimcheck sweep plan " << s.name
              << ")\n";
  if (runs.sweeps().empty()) std::cout << f.config << " defines no sweeps\n";
  return kExitOk;
}

int plan(const SweepFlags& f, const sweep::SweepOptions& o, const catalogue::SweepSpec& s) {
  size_t done = 0;
  for (const auto& p : s.points) {
    const auto st = sweep::point_state(o, s, p);
    done += st.kind == sweep::PointState::Done;
    std::cout << p.index << "\t" << axes_text(p.axes) << "\tseed=" << p.seed << "\t" << p.config_hash << "\t"
              << st.describe() << "\n";
  }
  std::cout << "# " << done << " of " << s.points.size() << " points done; cache " << f.cache << "\n";
  return kExitOk;
}

int collect(SweepFlags f, const sweep::SweepOptions& o, const catalogue::SweepSpec& s) {
  const bool into_fixtures = f.out.empty();
  const std::string fixtures = catalogue::fixtures_beside(f.config).string();
  if (into_fixtures) f.out = catalogue::sweep_fixtures_dir(fixtures, f.name);
  const size_t n = sweep::collect(o, s, f.out, f.metrics_every);
  std::cout << "collected " << n << " points of sweep '" << f.name << "' -> " << f.out
            << "/summary.jsonl, manifest.json\n";
  if (into_fixtures)  // committed results are listed in fixtures/MANIFEST.sha256 (util/fixture_manifest.h)
    std::cout << fixtures << "/" << kManifestName << ": " << write_manifest(fixtures)
              << " file(s) listed (review its diff)\n";
  return kExitOk;
}

// `sweep run --point K`: one point, in this process.
int run_one_point(const sweep::SweepOptions& o, const catalogue::SweepSpec& s, size_t k) {
  if (k >= s.points.size())
    throw po::error("--point " + std::to_string(k) + ": sweep '" + s.name + "' has points 0.." +
                    std::to_string(s.points.size() - 1));
  const auto& p = s.points[k];
  switch (sweep::run_point(o, s, p)) {
    case sweep::PointOutcome::Busy:
      std::cout << "point " << k << " (" << p.label() << "): locked by another process, left to it\n";
      return sweep::kExitBusy;
    case sweep::PointOutcome::AlreadyDone:
      std::cout << "point " << k << " (" << p.label() << "): already done\n";
      break;
    case sweep::PointOutcome::Stopped:
      std::cout << "point " << k << " (" << p.label() << "): stopped at step " << o.stop_after << " (--stop-after)\n";
      break;
    case sweep::PointOutcome::Trained:
      std::cout << "point " << k << " (" << p.label() << "): trained -> " << sweep::point_dir(o, s, p) << "\n";
      break;
  }
  return kExitOk;
}

// `--ensemble K`: the points left, K at a time as one stacked model, in this process.
void run_stacked(const SweepFlags& f, const po::variables_map& vm, const sweep::SweepOptions& o,
                 const catalogue::SweepSpec& s, const std::vector<const catalogue::SweepPoint*>& todo,
                 const std::string& progress) {
  const auto groups = sweep::ensemble_groups(o, s, todo, f.ensemble);
  std::cout << progress << groups.size() << " stacked model(s) of up to " << f.ensemble << " on " << f.device
            << "; cache " << f.cache << std::endl;
  std::string command = "claimcheck sweep run " + f.name + " --ensemble " + std::to_string(f.ensemble) + " --config " +
                        f.config + " --cache " + f.cache + " --device " + f.device;
  if (vm.count("shard")) command += " --shard " + f.shard;
  for (const auto& group : groups) {
    const auto outcome = sweep::run_ensemble(o, s, group, command);
    for (size_t i = 0; i < group.size(); ++i) {
      const auto& p = *group[i];
      std::cout << "point " << p.index << " (" << p.label() << "): " << outcome_text(outcome[i]) << " (stacked with "
                << group.size() - 1 << " other(s))" << std::endl;
    }
  }
}

// The points left, each in a child process (`sweep run --point K`), --jobs at once; the number failed.
int run_in_children(const SweepFlags& f, const po::variables_map& vm, const sweep::SweepOptions& o,
                    const catalogue::SweepSpec& s, const std::vector<const catalogue::SweepPoint*>& todo,
                    const std::string& progress) {
  const int jobs = f.jobs == 0 ? usable_cores() : f.jobs;
  std::cout << progress << jobs << " at once, 1 thread each; cache " << f.cache << std::endl;
  auto child_args = [&](const catalogue::SweepPoint& p) {
    std::vector<std::string> a = {"sweep",    "run",    f.name,    "--point", std::to_string(p.index),
                                  "--config", f.config, "--cache", f.cache,   "--device",
                                  f.device};
    if (vm.count("stop-after")) a.insert(a.end(), {"--stop-after", std::to_string(o.stop_after)});
    return a;
  };
  return sweep::run_parallel(o, s, todo, jobs, child_args,
                             [](const std::string& line) { std::cout << line << std::endl; });
}

// Exit 0 only when every point of this shard is done (or stopped where --stop-after asked): a
// dependent collect job must not start on an unfinished sweep. A point another process holds (a
// second worker, an array task) is busy; one left partial by a process that died while this one
// waited on it is unfinished, and this command resumes it when rerun.
int left_behind_status(const sweep::SweepOptions& o, const catalogue::SweepSpec& s,
                       const std::vector<const catalogue::SweepPoint*>& todo) {
  const auto left = sweep::left_behind(o, s, todo);
  std::string elsewhere, unfinished;
  for (size_t i : left.busy) elsewhere += " " + std::to_string(i);
  for (const auto& u : left.unfinished) unfinished += " " + u;
  if (!elsewhere.empty()) {
    std::cerr << "claimcheck sweep run: point(s)" << elsewhere
              << " are being trained by another process; rerun this command (or `sweep plan`) once they finish\n";
    return sweep::kExitBusy;
  }
  if (!unfinished.empty()) {
    std::cerr << "claimcheck sweep run: point(s)" << unfinished
              << " are not done: the process that held them stopped first; rerun this command to resume them\n";
    return kExitFailure;
  }
  return kExitOk;
}

// `sweep run`: one point, or every point of this shard not done yet.
int run(const SweepFlags& f, const po::variables_map& vm, const sweep::SweepOptions& o, const catalogue::SweepSpec& s) {
  if (vm.count("point")) return run_one_point(o, s, vm["point"].as<size_t>());
  std::vector<const catalogue::SweepPoint*> todo;
  size_t skipped = 0;
  const auto [shard_i, shard_n] = vm.count("shard") ? parse_shard(f.shard) : std::pair<size_t, size_t>{0, 1};
  for (const auto* p : s.shard(shard_i, shard_n)) {
    if (sweep::point_state(o, s, *p).kind == sweep::PointState::Done)
      ++skipped;
    else
      todo.push_back(p);
  }
  const std::string progress = "sweep " + f.name + " shard " + std::to_string(shard_i) + "/" + std::to_string(shard_n) +
                               ": " + std::to_string(todo.size()) + " to train, " + std::to_string(skipped) + " done; ";
  if (vm.count("ensemble")) {
    run_stacked(f, vm, o, s, todo, progress);
  } else if (const int failed = run_in_children(f, vm, o, s, todo, progress); failed > 0) {
    std::cerr << "claimcheck sweep run: " << failed << " point(s) failed; rerun the same command to resume them\n";
    return kExitFailure;
  }
  return left_behind_status(o, s, todo);
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  po::options_description desc("sweep options");
  SweepFlags f;
  add_sweep_options(desc, f);
  po::positional_options_description pos;
  pos.add("verb", 1).add("name", 1);
  po::variables_map vm;
  if (!parse("sweep", "plan|run|collect NAME [options]", desc, pos, args, vm)) return kExitOk;
  check_flags(f, vm);
  const catalogue::Runs runs = catalogue::Runs::load(f.config);
  if (f.name.empty()) return list_sweeps(f, runs);
  const catalogue::SweepSpec* s = runs.find_sweep(f.name);
  if (!s) {
    std::string known;
    for (const auto& x : runs.sweeps()) known += (known.empty() ? "" : ", ") + x.name;
    throw Error(f.config + ": no sweep named '" + f.name + "' (defined: " + (known.empty() ? "none" : known) + ")");
  }
  sweep::SweepOptions o;
  o.cache_dir = f.cache;
  o.runs_path = f.config;
  o.device = train::parse_device(f.device);
  if (vm.count("stop-after")) o.stop_after = vm["stop-after"].as<int64_t>();
  if (f.verb == "plan") return plan(f, o, *s);
  if (f.verb == "collect") return collect(f, o, *s);
  return run(f, vm, o, *s);
}

}  // namespace cc::app
