#pragma once
// The training loop: the run's optimizer (AdamW or SGD, over the parameters train.frozen does not
// name) on cross-entropy at the last position or at every position, on the batch the task's data
// (task_data.h) gives for each step.
// Deterministic on CPU: the same config, seed, build and thread setup give bitwise-identical
// weights, and a resumed run equals an uninterrupted one (the data for step s depends only on
// (seed, s); weights and optimizer state are restored from the resume point).
//
// The schedule (schedule.h) says when to step, evaluate and save; the step engine (step_engine.h)
// takes the steps; the trainer keeps the books: resume, checkpoints, the metrics log.
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/transformer.h"
#include "train/bookkeeping.h"
#include "train/evaluate.h"
#include "train/options.h"
#include "train/run_config.h"
#include "train/task_data.h"
#include "util/folder_lock.h"

namespace torch::optim {
class Optimizer;
}

namespace cc::train {

class StepEngine;

class Trainer {
 public:
  Trainer(RunConfig cfg, TrainOptions opts);
  ~Trainer();

  int64_t run();  // returns the step it stopped at
  // The weights after the last step taken (an engine with its own buffers publishes them first).
  const model::Transformer& model() const;
  const RunConfig& config() const { return cfg_; }
  int64_t start_step() const { return start_step_; }
  const std::vector<SetResult>& last_eval() const { return last_eval_; }

  // One optimisation step on the batch of `step`; returns the loss (a 0-dim tensor).
  torch::Tensor train_step(int64_t step);

 private:
  void resume_from(const std::string& dir);
  void save(int64_t step, bool with_optimizer);
  void log_eval(int64_t step, const std::vector<NamedBatch>& sets, double train_loss);

  RunConfig cfg_;
  TrainOptions opts_;
  std::unique_ptr<FolderLock> out_lock_;  // one trainer per run folder: a second one waits, then resumes
  std::unique_ptr<TaskData> data_;        // the run's batches and evaluation sets
  nlohmann::json runtime_;                // versions and git commit of the code that trains, taken once at start
  std::unique_ptr<model::Transformer> model_;
  std::unique_ptr<torch::optim::Optimizer> opt_;
  std::unique_ptr<StepEngine> engine_;
  int64_t start_step_ = 0;
  TrainClock clock_;
  std::vector<SetResult> last_eval_;
  std::unique_ptr<MetricsLog> metrics_;
};

}  // namespace cc::train
