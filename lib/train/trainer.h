#pragma once
// The training loop (§3): AdamW on cross-entropy at '=', batches drawn on the fly from S_T.
// Deterministic on CPU: the same config, seed, build and thread setup give bitwise-identical
// weights, and a resumed run equals an uninterrupted one (the data for step s depends only on
// (seed, s); weights and AdamW moments are restored from the resume point).
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/transformer.h"
#include "train/evaluate.h"
#include "train/run_config.h"

namespace torch::optim {
class AdamW;
}

namespace cc::train {

class MetricsLog;

struct TrainOptions {
  std::string out_dir;  // "" = keep nothing on disk (tests, in-process runs)
  torch::Device device = torch::kCPU;
  bool resume = true;  // continue from the latest resume point in out_dir
  bool progress = true;
  bool log_metrics = true;  // evaluate every eval_every steps into metrics.jsonl
  int64_t stop_after = -1;  // stop at this step (< steps): an "interrupted" run
  std::string command;      // the command line that recreates the run (sidecars)
};

class Trainer {
 public:
  Trainer(RunConfig cfg, TrainOptions opts);
  ~Trainer();

  int64_t run();  // returns the step it stopped at
  const model::Transformer& model() const { return *model_; }
  const RunConfig& config() const { return cfg_; }
  int64_t start_step() const { return start_step_; }
  const std::vector<SetResult>& last_eval() const { return last_eval_; }

  // One optimisation step on the batch of `step`; returns the loss (a 0-dim tensor).
  torch::Tensor train_step(int64_t step);
  // Engine "blas": train_step updates flat buffers; this copies the weights and AdamW moments into
  // model() and the optimizer. run() does it whenever they are read; call it after train_step.
  void sync_model();

 private:
  struct BlasState;  // engine "blas": flat weights, gradients and AdamW moments (trainer.cpp)
  void resume_from(const std::string& dir);
  void init_blas();
  void save(int64_t step, bool with_optimizer);
  void log_eval(int64_t step, const std::vector<task::EvalSet>& sets, double train_loss);
  nlohmann::json sidecar_extra(int64_t step) const;

  RunConfig cfg_;
  TrainOptions opts_;
  task::Sampler sampler_;
  nlohmann::json runtime_;  // versions and git commit of the code that trains, taken once at start
  std::unique_ptr<model::Transformer> model_;
  std::unique_ptr<torch::optim::AdamW> opt_;
  int64_t start_step_ = 0;
  double wall_before_ = 0.0;  // training seconds spent before a resume
  double wall_start_ = 0.0;
  std::vector<SetResult> last_eval_;
  std::unique_ptr<MetricsLog> metrics_;
  std::unique_ptr<BlasState> blas_;
};

}  // namespace cc::train
