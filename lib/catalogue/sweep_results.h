#pragma once
// A collected sweep: fixtures/sweeps/NAME/summary.jsonl, one JSON object a point, in plan order:
//   {"index": 3, "axes": {"task.pair_fraction": 0.25}, "seed": 0, "config_hash": "…",
//    "final": {"step": 30000, "eval_seed": 20260531, "sets": {"test_0": {"n": 10000, "correct": 9981, "loss": 0.01},
//    …}}, "metrics": [{"step": 0, "acc": {…}, "n": {…}, "train_loss": …}, …]}   (the log at a coarse cadence)
// No wall times: the same points give the same bytes, whichever machine or scheduler trained them.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/sweep_series.h"

namespace cc::catalogue {

struct PointResult {
  size_t index = 0;
  nlohmann::json axes;
  uint64_t seed = 0;
  std::string config_hash;
  int64_t final_step = 0;
  uint64_t final_eval_seed = 0;
  std::map<std::string, analysis::SetCount> final_sets;
  std::map<std::string, double> final_loss;
  std::vector<nlohmann::json> metrics;  // {step, acc, n[, train_loss]}

  nlohmann::json to_json() const;
  static PointResult from_json(const nlohmann::json& j);  // throws cc::Error (what is missing)
};

std::string summary_path(const std::string& dir);  // DIR/summary.jsonl
// Where a paper's fixtures keep a collected sweep: FIXTURES/sweeps/NAME (the folder; its summary is
// summary_path of it).
std::string sweep_fixtures_dir(const std::string& fixtures_dir, const std::string& sweep);
std::string manifest_path(const std::string& dir);  // DIR/manifest.json

// Reads a summary; every problem names FILE:LINE.
std::vector<PointResult> read_summary(const std::string& path);
std::string summary_text(const std::vector<PointResult>& points);  // the file's exact bytes

enum class Stage { Final, Init };  // the point's last step, or step 0 (from the metrics log)

// One seed's series along `axis` at `stage`; throws cc::Error when a point lacks the stage.
analysis::SweepSeries series_for_seed(const std::string& sweep, const std::vector<PointResult>& points,
                                      const std::string& axis, uint64_t seed, Stage stage);

}  // namespace cc::catalogue
