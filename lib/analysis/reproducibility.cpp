// Reproducibility claims (claims/repro): the measurement is a training, not an analysis.
//   train_twice_max_abs_diff  R1: the checkpoint's config and seed, trained `steps` steps twice
//                             in this process; max |w1 - w2| (0 = bitwise identical)
//   retrain_max_abs_diff      R2: the checkpoint's config and seed retrained from scratch to the
//                             checkpoint's step; max |w - w_committed|
//   fixture_integrity         R3: files of the checkpoint's fixture run whose sha256 differs
//                             from its run.json (or that are missing)
// Retraining uses the thread setup recorded in the checkpoint's sidecar: "the same platform"
// includes it, since a BLAS with another thread count may sum in another order.
#include <torch/torch.h>

#include <chrono>
#include <filesystem>

#include "analysis/kinds.h"
#include "train/runtime.h"
#include "train/trainer.h"
#include "util/fixture_manifest.h"

namespace cc::analysis {
namespace {

// Sets the thread counts recorded in the sidecar for the lifetime of the guard.
class RecordedThreads {
 public:
  explicit RecordedThreads(const nlohmann::json& sidecar) : before_(train::default_threads()) {
    used_ = train::recorded_threads(sidecar, before_);
    train::apply_threads(used_);
  }
  ~RecordedThreads() { train::apply_threads(before_); }
  nlohmann::json describe() const { return {{"torch_threads", used_.torch_threads}, {"blas_threads", used_.blas_threads}}; }

 private:
  train::ThreadSetup before_, used_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Trains cfg from scratch to `steps` in memory (no files, no metrics) and returns the trainer.
std::unique_ptr<train::Trainer> train_in_memory(train::RunConfig cfg, int64_t steps) {
  cfg.train.steps = steps;
  train::TrainOptions opts;
  opts.progress = false;
  opts.log_metrics = false;
  auto trainer = std::make_unique<train::Trainer>(cfg, opts);
  trainer->run();
  return trainer;
}

nlohmann::json steps_param(ObjectReader r) {
  const int64_t steps = r.integer_in("steps", 500, 1, 1000000);
  r.finish();
  return {{"steps", steps}};
}

nlohmann::json no_params(ObjectReader r) {
  r.finish();
  return nlohmann::json::object();
}

// R1 is about this process: it runs with the process's own thread setup.
Measurement train_twice(const MeasureInput& in) {
  const int64_t steps = in.params.at("steps").get<int64_t>();
  const auto t0 = std::chrono::steady_clock::now();
  auto first = train_in_memory(in.checkpoint.config, steps);
  auto second = train_in_memory(in.checkpoint.config, steps);
  Measurement out;
  out.value = model::max_abs_diff(first->model(), second->model());
  out.n = 1;
  out.details = {{"steps", steps}, {"seed", in.checkpoint.config.seed},
                 {"threads", {{"torch_threads", torch::get_num_threads()}}}, {"seconds", seconds_since(t0)}};
  return out;
}

Measurement retrain(const MeasureInput& in) {
  const RecordedThreads threads(in.checkpoint.sidecar);
  const auto t0 = std::chrono::steady_clock::now();
  auto trainer = train_in_memory(in.checkpoint.config, in.checkpoint.step);
  Measurement out;
  out.value = model::max_abs_diff(trainer->model(), *in.checkpoint.model);
  out.n = 1;
  out.details = {{"steps", in.checkpoint.step}, {"seed", in.checkpoint.config.seed}, {"threads", threads.describe()},
                 {"compared_with", in.checkpoint.path}, {"seconds", seconds_since(t0)}};
  return out;
}

Measurement integrity(const MeasureInput& in) {
  const std::string dir = std::filesystem::path(in.checkpoint.path).parent_path().string();
  const ManifestCheck check = check_fixture_run(dir);
  Measurement out;
  out.value = static_cast<double>(check.problems.size());
  out.n = check.files;
  out.details = {{"run_dir", dir}, {"files", check.files}, {"problems", check.problems}};
  return out;
}

}  // namespace

void register_reproducibility(Registry& r) {
  r.add({"train_twice_max_abs_diff",
         "max |w1 - w2| after training the checkpoint's config and seed for `steps` steps twice in one process",
         Statistic::Scalar, steps_param, train_twice, "steps (default 500)"});
  r.add({"retrain_max_abs_diff",
         "max |w - w_ckpt| after retraining the checkpoint's config and seed from scratch to its step",
         Statistic::Scalar, no_params, retrain, "(none)"});
  r.add({"fixture_integrity", "files of the checkpoint's fixture run that are missing or differ from run.json's sha256",
         Statistic::Scalar, no_params, integrity, "(none)"});
}

}  // namespace cc::analysis
