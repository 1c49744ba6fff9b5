#pragma once
// How a training process runs a config: where it writes, on which device, and when it stops. The
// config (run_config.h) decides the weights; these options decide only what is kept and shown.
#include <torch/types.h>

#include <cstdint>
#include <string>

namespace cc::train {

struct TrainOptions {
  std::string out_dir;  // "" = keep nothing on disk (tests, in-process runs)
  torch::Device device = torch::kCPU;
  bool resume = true;  // continue from the latest resume point in out_dir
  bool progress = true;
  bool log_metrics = true;  // evaluate every eval_every steps into metrics.jsonl
  int64_t stop_after = -1;  // stop at this step (< steps): an "interrupted" run
  std::string command;      // the command line that recreates the run (sidecars)

  // A run that keeps and shows nothing: no files, no progress, no metrics log (benchmarks,
  // tests, the reproducibility kinds' in-process runs).
  static TrainOptions silent() {
    TrainOptions o;
    o.progress = false;
    o.log_metrics = false;
    return o;
  }
};

}  // namespace cc::train
