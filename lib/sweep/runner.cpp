#include "sweep/runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "catalogue/layout.h"
#include "sweep/point_files.h"
#include "train/checkpoint.h"
#include "train/metrics_log.h"
#include "train/runtime.h"
#include "train/trainer.h"
#include "util/file_io.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json_number.h"
#include "util/sha256.h"

namespace cc::sweep {
namespace fs = std::filesystem;

std::string PointState::describe() const {
  std::string s = kind == Done      ? "done"
                  : kind == Partial ? "partial at step " + std::to_string(step)
                  : kind == Running ? "running (from step " + std::to_string(step) + ")"
                                    : "missing";
  return s;
}

std::string point_dir(const SweepOptions& o, const catalogue::SweepSpec& s, const catalogue::SweepPoint& p) {
  return catalogue::cache_folder(o.cache_dir, s.name, p.config_hash, p.seed);
}

PointState point_state(const SweepOptions& o, const catalogue::SweepSpec& s, const catalogue::SweepPoint& p) {
  PointState st;
  st.dir = point_dir(o, s, p);
  if (final_eval_done(st.dir, p.config.train.steps)) {
    st.kind = PointState::Done;
    st.step = p.config.train.steps;
    return st;
  }
  st.step = train::find_resume_point(st.dir, p.config, true);  // throws if the folder holds another config
  st.kind = lock_is_held_elsewhere(st.dir) ? PointState::Running
            : st.step > 0                  ? PointState::Partial
                                           : PointState::Missing;
  return st;
}

ShardLeft left_behind(const SweepOptions& o, const catalogue::SweepSpec& s,
                      const std::vector<const catalogue::SweepPoint*>& todo) {
  ShardLeft left;
  for (const auto* p : todo) {
    const PointState st = point_state(o, s, *p);
    if (st.kind == PointState::Running)
      left.busy.push_back(p->index);
    else if (st.kind != PointState::Done && o.stop_after < 0)
      left.unfinished.push_back(std::to_string(p->index) + " (" + st.describe() + ")");
  }
  return left;
}

std::string point_command(const SweepOptions& o, const catalogue::SweepSpec& s, const catalogue::SweepPoint& p) {
  return "claimcheck sweep run " + s.name + " --point " + std::to_string(p.index) + " --config " + o.runs_path +
         " --cache " + o.cache_dir;
}

PointOutcome run_point(const SweepOptions& o, const catalogue::SweepSpec& s, const catalogue::SweepPoint& p) {
  const std::string dir = point_dir(o, s, p);
  PointLock lock(dir);
  if (!lock.held()) return PointOutcome::Busy;
  if (final_eval_done(dir, p.config.train.steps)) return PointOutcome::AlreadyDone;
  train::apply_threads(train::ThreadSetup{1, 1});
  train::TrainOptions t;
  t.out_dir = dir;
  t.device = o.device;
  t.progress = false;
  t.stop_after = o.stop_after;
  t.command = point_command(o, s, p);
  train::Trainer trainer(p.config, t);
  const int64_t step = trainer.run();
  if (step < p.config.train.steps) return PointOutcome::Stopped;
  write_final_eval(dir, s, p);
  return PointOutcome::Trained;
}

int run_parallel(const SweepOptions& o, const catalogue::SweepSpec& s,
                 const std::vector<const catalogue::SweepPoint*>& points, int jobs,
                 const std::function<std::vector<std::string>(const catalogue::SweepPoint&)>& child_args,
                 const std::function<void(const std::string&)>& report) {
  if (jobs < 1) throw Error("--jobs must be >= 1");
  std::map<pid_t, const catalogue::SweepPoint*> running;
  size_t next = 0;
  int failed = 0;
  auto start_one = [&](const catalogue::SweepPoint& p) {
    const std::string dir = point_dir(o, s, p);
    fs::create_directories(dir);
    std::vector<std::string> args = {"claimcheck"};
    for (auto& a : child_args(p)) args.push_back(std::move(a));
    const std::string log = dir + "/log.txt";
    const pid_t pid = ::fork();
    if (pid < 0) throw Error(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {  // the child: output to the point's log, then become `claimcheck sweep run --point K`
      const int fd = ::open(log.c_str(), O_CREAT | O_WRONLY | O_APPEND, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::close(fd);
      }
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv("/proc/self/exe", argv.data());
      _exit(127);
    }
    running[pid] = &p;
    report("point " + std::to_string(p.index) + " (" + p.label() + "): started, pid " + std::to_string(pid) + ", log " +
           log);
  };
  while (next < points.size() || !running.empty()) {
    while (next < points.size() && static_cast<int>(running.size()) < jobs) start_one(*points[next++]);
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("waitpid failed: ") + std::strerror(errno));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const catalogue::SweepPoint& p = *it->second;
    running.erase(it);
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == kExitBusy) {
      report("point " + std::to_string(p.index) + " (" + p.label() +
             "): locked by another process, which is training it");
      continue;
    }
    if (!ok) ++failed;
    const std::string how = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                              : "signal " + std::to_string(WTERMSIG(status));
    report("point " + std::to_string(p.index) + " (" + p.label() + "): " +
           (ok ? point_state(o, s, p).describe() : "FAILED (" + how + "), see " + point_dir(o, s, p) + "/log.txt"));
  }
  return failed;
}

std::vector<catalogue::PointResult> gather(const SweepOptions& o, const catalogue::SweepSpec& s,
                                           int64_t metrics_every) {
  std::vector<catalogue::PointResult> out;
  std::string not_done;
  for (const auto& p : s.points) {
    const PointState st = point_state(o, s, p);
    if (st.kind != PointState::Done) {
      not_done += "\n  point " + std::to_string(p.index) + " (" + p.label() + "): " + st.describe();
      continue;
    }
    catalogue::PointResult r;
    r.index = p.index;
    r.axes = p.axes;
    r.seed = p.seed;
    r.config_hash = p.config_hash;
    const nlohmann::json fin = read_json(st.dir + "/" + kFinalEval);
    const std::string fin_path = st.dir + "/" + kFinalEval;
    r.final_step = json_int64(fin.at("step"), fin_path + ": step");
    r.final_eval_seed = json_uint64(fin.at("eval_seed"), fin_path + ": eval_seed");
    for (const auto& [name, c] : fin.at("sets").items()) {
      r.final_sets[name] = {json_int64(c.at("n"), fin_path + ": n"),
                            json_int64(c.at("correct"), fin_path + ": correct")};
      r.final_loss[name] = c.at("loss").get<double>();
    }
    for (const auto& rec : train::MetricsLog::read(train::metrics_path(st.dir))) {
      const int64_t step = rec.at("step").get<int64_t>();  // MetricsLog::read checked it
      if (step % metrics_every != 0 && step != r.final_step) continue;
      nlohmann::json m = {{"step", step}, {"acc", rec.at("acc")}, {"n", rec.at("n")}};
      if (rec.contains("train_loss")) m["train_loss"] = rec["train_loss"];
      r.metrics.push_back(std::move(m));
    }
    out.push_back(std::move(r));
  }
  if (!not_done.empty())
    throw Error("sweep '" + s.name + "': not every point is done (train them with `claimcheck sweep run " + s.name +
                "`):" + not_done);
  return out;
}

size_t collect(const SweepOptions& o, const catalogue::SweepSpec& s, const std::string& out_dir,
               int64_t metrics_every) {
  const auto results = gather(o, s, metrics_every);
  fs::create_directories(out_dir);
  const std::string summary = catalogue::summary_text(results);
  nlohmann::json manifest = {{"format", "claimcheck-sweep/1"},
                             {"sweep", s.definition()},
                             {"runs_file", o.runs_path},
                             {"metrics_every", metrics_every},
                             {"summary_sha256", sha256_hex(summary)},
                             {"run_all", "claimcheck sweep run " + s.name + " --config " + o.runs_path},
                             {"points", nlohmann::json::array()}};
  for (const auto& p : s.points) {
    const std::string dir = point_dir(o, s, p);
    nlohmann::json files = nlohmann::json::object();
    for (const std::string f : {std::string(kFinalEval), std::string(train::kMetricsFileName),
                                fs::path(train::checkpoint_path(dir, 0)).filename().string(),
                                fs::path(train::checkpoint_path(dir, p.config.train.steps)).filename().string()})
      files[f] = sha256_file(dir + "/" + f);
    nlohmann::json axes = nlohmann::json::object();
    for (const auto& kv : p.axes.items()) axes[kv.key()] = kv.value();
    manifest["points"].push_back(
        {{"index", p.index},
         {"axes", axes},
         {"seed", p.seed},
         {"config_hash", p.config_hash},
         {"label", p.label()},
         {"dir", fs::path(dir).parent_path().filename().string() + "/seed" + std::to_string(p.seed)},
         {"command",
          "claimcheck sweep run " + s.name + " --point " + std::to_string(p.index) + " --config " + o.runs_path},
         {"sha256", files}});
  }
  write_file_atomic(catalogue::summary_path(out_dir), summary);
  write_file_atomic(catalogue::manifest_path(out_dir), manifest.dump(1) + "\n");
  return results.size();
}

}  // namespace cc::sweep
