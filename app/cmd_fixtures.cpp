// Every action works on one paper's fixtures: DIR (--dir, or verify's and manifest's argument) and its
// runs file (--runs), each found from the other (catalogue/paper_layout.h); verify with neither checks
// every paper's.
// claimcheck fixtures verify [DIR] [--runs FILE]
//   every file in DIR/MANIFEST.sha256 has its sha256 and nothing unlisted is there, every run.json
//   agrees with its folder, and every run, variant and sweep runs.yaml commits is present.
// claimcheck fixtures manifest [DIR]
//   rewrites DIR/MANIFEST.sha256 from the files present (after packing or collecting fixtures).
// claimcheck fixtures pack SRC --out DST --steps 0,30000 [--recreate CMD]
//   copies a finished run's checkpoints at those steps, its metrics log (and final_eval.json) into
//   DST and writes DST/run.json (sweep/fixture_pack.h), then rewrites the fixtures' manifest.
// claimcheck fixtures pack --sweep NAME --cache CACHE [--steps S,...]
//   every finished point of a sweep not packed yet, into DIR/NAME/HASH/seedK (grid) or
//   DIR/NAME/VARIANT/seedK (variants).
// claimcheck fixtures restore NAME --cache CACHE
//   puts a grid sweep's packed points back into the cache, each file checked against its run.json.
// claimcheck fixtures recreate RUN --seed K [--until STEP] [--out DIR [--resume]]
//   reruns the command recorded in DIR/RUN/seedK/run.json (the paper's runs file as its --config),
//   with the thread setup recorded in its sidecars, into a fresh directory (or --out), and compares
//   every committed checkpoint it reaches with the retrained one (max |Δw|; 0 = bitwise identical).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "catalogue/run_store.h"
#include "sweep/fixture_pack.h"
#include "catalogue/runs.h"
#include "cli.h"
#include "train/checkpoint.h"
#include "train/options.h"
#include "train/run_config.h"
#include "train/runtime.h"
#include "util/error.h"
#include "util/file_io.h"
#include "util/fixture_manifest.h"
#include "util/platform.h"
#include "util/json_input.h"
#include "catalogue/paper_layout.h"

namespace cc::app {
namespace fs = std::filesystem;
namespace {

int verify(const std::string& dir, const std::string& runs_file) {
  if (!fs::is_directory(dir)) throw Error(dir + ": no fixtures directory there");
  const catalogue::Runs runs = catalogue::Runs::load(runs_file);
  catalogue::StoreOptions so;
  so.fixtures_dir = dir;
  const catalogue::RunStore store(runs, so);
  FileDigests digests;  // each file hashed once for both checks
  const ManifestCheck manifest = check_manifest(dir, &digests);
  const ManifestCheck runs_json = check_fixture_tree(dir, &digests);
  std::vector<std::string> problems = manifest.problems;
  problems.insert(problems.end(), runs_json.problems.begin(), runs_json.problems.end());
  for (const auto& m : store.missing_fixtures()) problems.push_back(m);
  for (const auto& p : problems) std::cout << "BAD  " << p << "\n";
  std::cout << manifest.files << " file(s) in " << kManifestName << ", " << runs_json.runs
            << " run.json file(s) listing " << runs_json.files << ", every fixture " << runs_file
            << " commits: " << problems.size() << " problem(s)\n";
  return problems.empty() ? kExitOk : kExitFailure;
}

// Splits a command recorded by join_command: words separated by spaces, '...' quoting.
std::vector<std::string> split_command(const std::string& cmd) {
  std::vector<std::string> words;
  std::string cur;
  bool quoted = false, any = false;
  for (char c : cmd) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (c == ' ' && !quoted) {
      if (any) words.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += c;
      any = true;
    }
  }
  if (quoted) throw Error("unbalanced quote in recorded command: " + cmd);
  if (any) words.push_back(cur);
  return words;
}

// The fixture folder is what was committed before anything in it is trusted: its files against the
// tree's MANIFEST.sha256 (where the tree has one) and against its own run.json.
void check_committed(const std::string& dir, const std::string& fixture) {
  if (auto guard = FixtureGuard::if_committed(dir)) guard->require_dir(fixture);
  const ManifestCheck own = check_fixture_run(fixture);
  if (!own.problems.empty()) throw Error(own.problems.front());
}

// The arguments of the recorded `claimcheck train` command, which may only name the run: --config,
// --run (this run), --seed (this seed), --device and --out, each as "--flag VALUE" or "--flag=VALUE" (the latter
// split here, so that --config and --out are rewritten whichever way they were written). Anything else
// (--steps, --batch, --stop-after, ...) would recreate another run than the committed one.
std::vector<std::string> recorded_train_args(const std::string& manifest, const std::vector<std::string>& words,
                                             const std::string& run, uint64_t seed) {
  std::vector<std::string> args;
  for (size_t i = 2; i < words.size(); ++i) {
    const auto eq = words[i].find('=');
    if (words[i].rfind("--", 0) == 0 && eq != std::string::npos) {
      args.push_back(words[i].substr(0, eq));
      args.push_back(words[i].substr(eq + 1));
    } else {
      args.push_back(words[i]);
    }
  }
  std::map<std::string, std::string> named;
  for (size_t i = 0; i < args.size(); i += 2) {
    const std::string& flag = args[i];
    if (flag != "--config" && flag != "--run" && flag != "--seed" && flag != "--out" && flag != "--device")
      throw Error(manifest + ": the recreate command has '" + flag +
                  "'; it may name only --config, --run, --seed, --device and --out (anything else trains another run)");
    if (i + 1 >= args.size()) throw Error(manifest + ": the recreate command's " + flag + " has no value");
    if (!named.emplace(flag, args[i + 1]).second)
      throw Error(manifest + ": the recreate command gives " + flag + " twice");
  }
  if (named["--run"] != run || named["--seed"] != std::to_string(seed))
    throw Error(manifest + ": the recreate command trains run '" + named["--run"] + "' seed " + named["--seed"] +
                ", not the folder's run '" + run + "' seed " + std::to_string(seed));
  if (named["--config"].empty() || named["--out"].empty())
    throw Error(manifest + ": the recreate command lacks --config or --out");
  return args;
}

// The value after FLAG in a recorded command's flag/value pairs, or `otherwise`.
std::string flag_value(const std::vector<std::string>& args, const std::string& flag, const std::string& otherwise) {
  for (size_t i = 0; i + 1 < args.size(); i += 2)
    if (args[i] == flag) return args[i + 1];
  return otherwise;
}

// The `claimcheck train` command the fixture's run.json records, as flag/value pairs.
std::vector<std::string> recorded_command(const fs::path& manifest, const std::string& run, uint64_t seed) {
  const nlohmann::json meta =
      fs::exists(manifest)
          ? parse_json(read_regular_file(manifest.string(), kMaxJsonBytes, "run.json"), manifest.string(), false)
          : nlohmann::json();
  if (!fs::exists(manifest) || meta.is_discarded() || !meta.contains("recreate") || !meta["recreate"].is_string())
    throw Error(manifest.string() + ": missing, unreadable, or without a \"recreate\" command");
  std::vector<std::string> words = split_command(meta["recreate"].get<std::string>());
  if (words.size() < 2 || words[0] != "claimcheck" || words[1] != "train")
    throw Error(manifest.string() +
                ": the recreate command is not 'claimcheck train ...': " + meta["recreate"].get<std::string>());
  return recorded_train_args(manifest.string(), words, run, seed);
}

// Never the recorded --out (that may hold the original run, or an earlier recreate): a fresh
// directory, or the one given, which must be empty unless --resume continues it.
std::string recreate_out(const std::string& out, const std::string& run, uint64_t seed, bool resume) {
  if (out.empty()) {
    fs::create_directories("runs/recreate");
    std::string tmpl = "runs/recreate/" + run + "-seed" + std::to_string(seed) + "-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw Error("cannot create a directory under runs/recreate");
    return tmpl;
  }
  if (!train::list_checkpoints(out).empty() && !resume)
    throw Error(
        out +
        ": already holds checkpoints (an earlier recreate?); pass --resume to continue it, or choose another --out");
  return out;
}

// The recorded command pointed at `out` and at the paper's runs file now. The command records the runs
// file where it was when the run was trained (the same runs: R3 and `fixtures verify` check every
// committed config hash against it).
void point_command_at(std::vector<std::string>& args, const std::string& out, const std::string& runs_file) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--out") args[i + 1] = out;
    if (args[i] == "--config" && args[i + 1] != runs_file) {
      std::cout << "runs file: " << runs_file << " (recorded as " << args[i + 1] << ")\n";
      args[i + 1] = runs_file;
    }
  }
}

// The first checkpoint's sidecar: the kernels and threads the fixture was trained with.
nlohmann::json first_sidecar(const fs::path& fixture) {
  const auto first = train::list_checkpoints(fixture.string());
  if (first.empty()) throw Error(fixture.string() + ": no checkpoints");
  const std::string path = train::sidecar_path(train::checkpoint_path(fixture.string(), first.front()));
  nlohmann::json side = parse_json(read_regular_file(path, kMaxJsonBytes, "sidecar"), path, false);
  if (side.is_discarded()) throw Error(fixture.string() + ": the first checkpoint's sidecar is unreadable");
  return side;
}

// The kernels the fixture was trained with: OpenBLAS's summation order depends on them (util/platform.h).
// pin_platform re-executes this command with them when they are not this process's already. False when
// they cannot be had and no --tolerance allows another kernel (the recreate is then skipped).
bool pin_recorded_kernels(const fs::path& fixture, const nlohmann::json& side, double tolerance) {
  const nlohmann::json runtime = side.value("runtime", nlohmann::json::object());
  const NumericPlatform recorded{recorded_blas_kernel(runtime), runtime.value("aten_cpu_capability", "avx2")};
  if (recorded.blas_kernel.empty()) throw Error(fixture.string() + ": the sidecar does not record the BLAS kernel");
  std::string why;
  if (pin_platform(recorded, why)) {
    std::cout << "kernels as recorded in the fixture's sidecar: OpenBLAS " << blas_kernel() << ", ATen "
              << train::aten_cpu_capability() << "\n";
    return true;
  }
  if (tolerance == 0) {
    std::cout << "cannot reproduce " << fixture.string() << " bitwise here: it was trained on OpenBLAS kernel "
              << recorded.blas_kernel << " and ATen " << recorded.aten_capability << ", and " << why
              << ". Pass --tolerance to compare with another kernel anyway.\n";
    return false;
  }
  std::cout << "note: " << why << "; comparing within --tolerance " << tolerance << "\n"
            << "kernels: this process runs OpenBLAS " << blas_kernel() << ", ATen " << train::aten_cpu_capability()
            << "; the fixture was trained on OpenBLAS " << recorded.blas_kernel << ", ATen " << recorded.aten_capability
            << "\n";
  return true;
}

// Every committed checkpoint (up to --until) against the recreated one's weights.
int compare_with_fixture(const fs::path& fixture, const std::string& out, int64_t until, double tolerance) {
  int compared = 0, differ = 0;
  for (int64_t step : train::list_checkpoints(fixture.string())) {
    const std::string mine = train::checkpoint_path(out, step);
    if (!fs::exists(mine)) {
      if (until >= 0 && step > until) continue;  // past --until
      std::cout << "  step " << step << ": committed, and the recreated run has no checkpoint there (DIFFERS)\n";
      ++differ;
      continue;
    }
    const auto a = train::load_checkpoint(train::checkpoint_path(fixture.string(), step));
    const auto b = train::load_checkpoint(mine);
    const double d = model::max_abs_diff(*a.model, *b.model);
    ++compared;
    if (d > tolerance) ++differ;
    std::cout << "  step " << step << ": max |dw| = " << d
              << (d == 0           ? " (bitwise identical)"
                  : d <= tolerance ? " (within tolerance)"
                                   : " (DIFFERS)")
              << "\n";
  }
  if (compared == 0) throw Error("no committed checkpoint of " + fixture.string() + " was reached; raise --until");
  std::cout << compared << " checkpoint(s) compared, " << differ << " differ by more than " << tolerance << "\n";
  return differ ? kExitFailure : kExitOk;
}

int recreate(const std::string& dir, const std::string& runs_file, const std::string& run, uint64_t seed, int64_t until,
             std::string out, double tolerance, bool resume) {
  const fs::path fixture = fs::path(dir) / run / ("seed" + std::to_string(seed));
  check_committed(dir, fixture.string());
  std::vector<std::string> args = recorded_command(fixture / "run.json", run, seed);
  out = recreate_out(out, run, seed, resume);
  point_command_at(args, out, runs_file);
  const nlohmann::json side = first_sidecar(fixture);
  if (!pin_recorded_kernels(fixture, side, tolerance)) return kExitSkip;
  // The thread setup it was trained with: BLAS summation order depends on it too.
  const train::ThreadSetup threads = train::recorded_threads(side, train::default_threads());
  std::cout << "thread setup as recorded in the fixture's sidecar: " << threads.torch_threads << " libtorch + "
            << threads.blas_threads << " BLAS thread(s)\n";
  if (until >= 0) {
    args.push_back("--stop-after");
    args.push_back(std::to_string(until));
  }
  // The recorded command, as `train` would run it (its sidecars record it), through the library.
  std::cout << "recreating " << fixture.string() << " into " << out << ":\n  " << join_command("train", args) << "\n";
  train::RunConfig cfg = catalogue::load_run_config(runs_file, run);
  cfg.seed = seed;
  train::TrainOptions opts;
  opts.out_dir = out;
  opts.device = train::parse_device(flag_value(args, "--device", "cpu"));
  opts.command = join_command("train", args);
  if (until >= 0) opts.stop_after = until;
  train::apply_threads(threads);
  const int rc = train_run(cfg, opts);
  if (rc != kExitOk) return rc;
  return compare_with_fixture(fixture, out, until, tolerance);
}

// "0,30000" -> {0, 30000}: steps, each >= 0, none twice.
std::vector<int64_t> parse_steps(const std::string& text) {
  return parse_integer_list("--steps", text, "step", int64_t{1} << 40, 100000, "0,30000");
}

// After packing into the fixtures tree: its manifest lists the new files (review its diff).
void update_manifest(const std::string& dir, const std::string& packed_into) {
  const fs::path root = fs::weakly_canonical(dir), dst = fs::weakly_canonical(packed_into);
  const auto rel = dst.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") {
    std::cout << packed_into << " is outside " << dir << ": its " << kManifestName << " is left as it is\n";
    return;
  }
  const size_t n = write_manifest(dir);
  std::cout << dir << "/" << kManifestName << ": " << n << " file(s) listed (review its diff before committing)\n";
}

// --dir and --runs (where NEED_RUNS), each derived from the other where one is missing
// (catalogue/paper_layout.h); a usage error when neither is given and the checkout has more than one paper.
void resolve_paper(std::string& dir, std::string& runs_file, bool need_runs) {
  if (dir.empty() && runs_file.empty()) {
    const auto papers = catalogue::paper_folders();
    if (papers.size() != 1)
      throw po::error("name the paper: --runs papers/NAME/runs.yaml (or --dir, its fixtures directory)");
    runs_file = (papers.front() / "runs.yaml").string();
  }
  if (dir.empty()) dir = catalogue::fixtures_beside(runs_file).string();
  if (runs_file.empty() && need_runs) {
    const auto found = catalogue::runs_beside(dir);
    if (!found) throw Error(dir + ": no paper of this checkout has these fixtures; pass --runs FILE");
    runs_file = found->string();
  }
}

// `fixtures verify` with neither a directory nor --runs: every paper's fixtures.
int verify_every_paper() {
  const auto papers = catalogue::paper_folders();
  if (papers.empty()) throw po::error("no paper here (papers/NAME with runs.yaml and claims/): pass DIR and --runs");
  int worst = kExitOk;
  for (const auto& paper : papers) {
    const std::string runs_file = (paper / "runs.yaml").string();
    const std::string dir = catalogue::fixtures_beside(runs_file).string();
    std::cout << "== " << dir << " (" << runs_file << ")\n";
    worst = std::max(worst, verify(dir, runs_file));
  }
  return worst;
}

// `pack --sweep NAME --cache C` (every finished point into the fixtures) or `restore NAME --cache C`.
int pack_or_restore_sweep(const std::string& action, const std::string& target, const std::string& dir,
                          const std::string& runs_file, const po::variables_map& vm) {
  const std::string name = action == "restore" ? target : vm["sweep"].as<std::string>();
  if (name.empty()) throw po::error(action + " needs the sweep's name");
  if (action == "pack" && !target.empty()) throw po::error("pack --sweep takes no run folder");
  if (!vm.count("cache")) throw po::error(action + " of a sweep needs --cache (where its points were trained)");
  sweep::SweepOptions o;
  o.cache_dir = vm["cache"].as<std::string>();
  o.runs_path = runs_file;
  const catalogue::Runs runs = catalogue::Runs::load(o.runs_path);
  const catalogue::SweepSpec* s = runs.find_sweep(name);
  if (!s) throw po::error("no sweep '" + name + "' in " + o.runs_path);
  if (action == "restore") {
    const size_t n = sweep::restore_sweep(o, *s, dir);
    std::cout << "restored " << n << " point(s) of " << name << " into " << o.cache_dir << "\n";
    return kExitOk;
  }
  const size_t n = sweep::pack_sweep(
      o, *s, dir, vm.count("steps") ? parse_steps(vm["steps"].as<std::string>()) : std::vector<int64_t>{});
  std::cout << "packed " << n << " point(s) of " << name << " into " << dir << "/" << name << "\n";
  if (n > 0) update_manifest(dir, dir + "/" + name);
  return kExitOk;
}

// `pack SRC --out DST --steps S,...`: one run's checkpoints into the fixtures, and the manifest.
int pack_one_run(const std::string& target, const std::string& out, const std::string& dir,
                 const po::variables_map& vm) {
  if (target.empty() || out.empty() || !vm.count("steps"))
    throw po::error("pack needs a run folder, --out and --steps (or --sweep NAME --cache CACHE)");
  sweep::PackRequest r{target, out, parse_steps(vm["steps"].as<std::string>()),
                       vm.count("recreate") ? vm["recreate"].as<std::string>() : ""};
  const size_t n = sweep::pack_run(r);
  std::cout << "packed " << n << " file(s) into " << out << "\n";
  update_manifest(dir, out);
  return kExitOk;
}

}  // namespace

int cmd_fixtures(const std::vector<std::string>& args) {
  po::options_description desc("fixtures options");
  std::string action, target, dir, out, runs_file;
  int64_t until = -1;
  double tolerance = 0.0;
  // One option a line, as boost::program_options reads best; clang-format 14 would join them.
  // clang-format off
  desc.add_options()
      ("action", po::value(&action)->required(), "verify | manifest | recreate | pack | restore")
      ("target", po::value(&target),
       "verify: the fixtures directory (default: every paper's); recreate: the run name; pack: the run folder; restore: the "
       "sweep")
      ("steps", po::value<std::string>(), "pack: the checkpoints to keep, e.g. 0,30000 (--sweep: of a variant point; "
       "default its final step)")
      ("recreate", po::value<std::string>(), "pack: the command that retrains the run, recorded in run.json")
      ("sweep", po::value<std::string>(), "pack: every finished point of this sweep, from --cache")
      ("cache", po::value<std::string>(), "pack --sweep, restore: the run cache the points live in")
      ("seed", po::value<std::string>(), "recreate: the seed")
      ("until", po::value(&until), "recreate: stop at this step (default: the whole run)")
      ("out", po::value(&out),
       "recreate: output directory (default: a fresh runs/recreate/RUN-seedK-XXXXXX); pack: the fixture folder")
      ("resume", "recreate: continue the checkpoints already in --out")
      ("tolerance", po::value(&tolerance), "recreate: largest |dw| accepted (default 0: bitwise)")
      ("dir", po::value(&dir), "the fixtures directory (default: the one of the --runs file's paper)")
      ("runs", po::value(&runs_file),
       "the runs file that says what is committed and defines the runs and sweeps (default: the one of the "
       "fixtures directory's paper)");
  // clang-format on
  po::positional_options_description pos;
  pos.add("action", 1).add("target", 1);
  po::variables_map vm;
  if (!parse("fixtures",
             "verify [DIR] | manifest [DIR] | recreate RUN --seed K [--until STEP] [--out DIR [--resume]] | pack SRC "
             "--out DST --steps S,... | pack --sweep NAME --cache CACHE | restore NAME --cache CACHE",
             desc, pos, args, vm))
    return kExitOk;
  if ((action == "verify" || action == "manifest") && !target.empty()) dir = target;
  if (action == "verify" && dir.empty() && runs_file.empty()) return verify_every_paper();
  const bool packs_a_run = action == "pack" && !vm.count("sweep");
  resolve_paper(dir, runs_file, action != "manifest" && !packs_a_run);
  if (action == "restore" || (action == "pack" && vm.count("sweep")))
    return pack_or_restore_sweep(action, target, dir, runs_file, vm);
  if (action == "pack") return pack_one_run(target, out, dir, vm);
  if (action == "verify") return verify(dir, runs_file);
  if (action == "manifest") {
    if (!fs::is_directory(dir)) throw po::error("manifest: " + dir + " is not a directory (the fixtures to list)");
    const size_t n = write_manifest(dir);
    std::cout << dir << "/" << kManifestName << ": " << n << " file(s) listed (review its diff before committing)\n";
    return kExitOk;
  }
  if (action == "recreate") {
    if (target.empty()) throw po::error("recreate needs the run name, e.g. fixtures recreate default --seed 0");
    if (!vm.count("seed")) throw po::error("recreate needs --seed");
    if (vm.count("resume") && out.empty()) throw po::error("--resume needs --out (the directory to continue)");
    // -1 is "the whole run" inside; a negative --until would read as it and retrain everything.
    if (vm.count("until") && until < 0) throw po::error("--until " + std::to_string(until) + ": must be a step >= 0");
    // NaN compares false with everything: every difference would pass as "not more than NaN".
    if (!std::isfinite(tolerance) || tolerance < 0) throw po::error("--tolerance must be a finite number >= 0");
    return recreate(dir, runs_file, target, parse_seed(vm["seed"].as<std::string>(), "--seed"), until, out, tolerance,
                    vm.count("resume") > 0);
  }
  throw po::error("unknown fixtures action '" + action + "' (verify | manifest | recreate | pack | restore)");
}

}  // namespace cc::app
