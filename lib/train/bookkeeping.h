#pragma once
// What a trainer writes beside its steps, written once for one run (Trainer) and for K stacked runs
// (EnsembleTrainer): the training clock, the metrics log's records and what a checkpoint's sidecar
// says beyond the config.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "train/evaluate.h"
#include "train/metrics_log.h"
#include "train/options.h"
#include "train/run_config.h"

namespace cc::train {

// Seconds of training of a run: those spent before its resume point (the sidecar's train_wall_s)
// plus this process's since start().
class TrainClock {
 public:
  void resumed_after(double seconds) { before_ = seconds; }
  void start();
  double elapsed() const;

 private:
  double before_ = 0.0, start_ = 0.0;
};

// A metrics.jsonl record (metrics_log.h); train_loss < 0 (no step yet) is left out. `extra`: the
// family's extra metrics (family_metrics below), merged in.
nlohmann::json metrics_record(int64_t step, double wall_s, double train_loss, const std::vector<SetResult>& results,
                              const nlohmann::json& extra);

// The run's family's metrics of `model` beyond the engine's (TaskFamily::extra_metrics); {} when none.
nlohmann::json family_metrics(const RunConfig& cfg, const model::Transformer& model);

// The sidecar's fields beyond the config: the command that recreates the run, the code and machine
// that trained it (runtime_info()), the device and the training time so far.
nlohmann::json sidecar_extra(const TrainOptions& opts, const nlohmann::json& runtime, double wall_s);

// The metrics log of a run in DIR started at step 0 or resumed at START > 0. A resumed log keeps its
// record at START (logged_before_resume) and drops the later ones, which are logged again.
std::unique_ptr<MetricsLog> open_metrics_log(const std::string& dir, int64_t start);
inline bool logged_before_resume(const MetricsLog& log, int64_t step, int64_t start) {
  return step == start && start > 0 && log.has(step);
}

}  // namespace cc::train
