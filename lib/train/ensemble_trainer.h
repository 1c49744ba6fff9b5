#pragma once
// Trains K runs at once as one stacked model (model/ensemble.h): K seeds of one config, or K
// points of a sweep that differ in their task (f, r, ...) but share the architecture and the
// training schedule. Each member writes exactly what a separate Trainer would write to its own
// directory (checkpoints, sidecars, resume points, metrics.jsonl), so a member can be resumed,
// evaluated or packed as a fixture like any single run; its weights equal a separate run's up to
// summation order (tests: 1e-5).
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/ensemble.h"
#include "util/folder_lock.h"
#include "train/bookkeeping.h"
#include "train/evaluate.h"
#include "train/options.h"
#include "train/run_config.h"
#include "train/task_data.h"

namespace torch::optim {
class AdamW;
}

namespace cc::train {

class MetricsLog;

class EnsembleTrainer {
 public:
  // out_dirs[k] is member k's directory ("" for all: in memory). opts.out_dir is ignored.
  EnsembleTrainer(std::vector<RunConfig> members, std::vector<std::string> out_dirs, TrainOptions opts);
  ~EnsembleTrainer();

  int64_t run();  // returns the step it stopped at
  int64_t members() const { return static_cast<int64_t>(cfgs_.size()); }
  int64_t start_step() const { return start_step_; }
  // A copy of member k as a single model.
  std::unique_ptr<model::Transformer> member(int64_t k) const;
  const std::vector<std::vector<SetResult>>& last_eval() const { return last_eval_; }

  // One optimisation step of every member on its own batch of `step`; returns losses [K].
  torch::Tensor train_step(int64_t step);

 private:
  void save(int64_t step, bool with_optimizer);
  void log_eval(int64_t step, const std::vector<double>& train_loss);

  std::vector<RunConfig> cfgs_;
  std::vector<std::string> dirs_;
  std::vector<std::unique_ptr<FolderLock>> locks_;  // one per member folder, taken in member order
  TrainOptions opts_;
  std::vector<std::unique_ptr<TaskData>> data_;  // member k's batches and evaluation sets
  std::vector<std::vector<NamedBatch>> eval_sets_;
  nlohmann::json runtime_;
  std::unique_ptr<model::Ensemble> ensemble_;
  std::unique_ptr<torch::optim::AdamW> opt_;
  int64_t start_step_ = 0;
  TrainClock clock_;
  std::vector<std::vector<SetResult>> last_eval_;
  std::vector<std::unique_ptr<MetricsLog>> metrics_;
};

}  // namespace cc::train
