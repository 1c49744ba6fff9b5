#include "sweep/point_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "train/checkpoint.h"
#include "train/evaluate.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_io.h"
#include "util/json_input.h"

namespace cc::sweep {
namespace fs = std::filesystem;
namespace {

const char* kLock = ".lock";

}  // namespace

PointLock::PointLock(const std::string& dir) {
  fs::create_directories(dir);
  const std::string path = dir + "/" + kLock;
  fd_ = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(path + ": cannot open the point's lock file: " + std::strerror(errno));
  held_ = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
}

PointLock::~PointLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

bool lock_is_held_elsewhere(const std::string& dir) {
  if (!fs::exists(dir + "/" + kLock)) return false;
  PointLock probe(dir);
  return !probe.held();
}

nlohmann::json read_json(const std::string& path) {
  nlohmann::json j = parse_json(read_regular_file(path, kMaxJsonBytes, "JSON file"), path, false);
  if (j.is_discarded()) throw Error(path + ": not valid JSON");
  return j;
}

bool final_eval_done(const std::string& dir, int64_t steps) {
  const std::string path = dir + "/" + kFinalEval;
  if (!fs::exists(path)) return false;
  return read_json(path).value("step", int64_t{-1}) == steps;
}

void write_final_eval(const std::string& dir, const catalogue::SweepSpec& s, const catalogue::SweepPoint& p) {
  const int64_t steps = p.config.train.steps;
  const train::Checkpoint ck = train::load_checkpoint(train::checkpoint_path(dir, steps));
  const auto sets = train::make_task_data(p.config)->eval_sets(s.final_eval_size, s.final_eval_seed);
  nlohmann::json out = {{"step", steps}, {"size", s.final_eval_size}, {"eval_seed", s.final_eval_seed}};
  out["sets"] = nlohmann::json::object();
  for (const auto& r : train::evaluate(*ck.model, sets, ck.config.train.loss_precision))
    out["sets"][r.name] = {{"n", r.n}, {"correct", r.correct}, {"loss", r.loss}};
  write_file_atomic(dir + "/" + kFinalEval, out.dump(1) + "\n");
}

}  // namespace cc::sweep
