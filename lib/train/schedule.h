#pragma once
// The one training loop. Trainer (one run) and EnsembleTrainer (K runs stacked) differ in how a
// step is taken, evaluated and saved; when each of those happens is decided here, once: an
// evaluation every eval_every steps and at the end, a checkpoint at every step the config keeps,
// a resume point every resume_every steps and at the end (the previous one dropped).
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "train/run_config.h"
#include "train/options.h"

namespace cc::train {

struct ScheduleHooks {
  std::function<torch::Tensor(int64_t step)> train_step;  // the members' losses at this step, [K]
  // Evaluates and logs; mean_loss[k] is member k's mean training loss since the last evaluation
  // (-1 before the first step).
  std::function<void(int64_t step, const std::vector<double>& mean_loss)> log_eval;
  std::function<void(int64_t step, bool resume_point)> save;
  std::function<void(int64_t step)> drop_resume_point;  // an older resume point, no longer needed
};

// Runs steps [start, end) and returns the step it stopped at: the config's steps, or
// opts.stop_after when that is earlier.
int64_t run_schedule(const TrainConfig& tc, const TrainOptions& opts, int64_t start, int64_t members,
                     const ScheduleHooks& hooks);

}  // namespace cc::train
