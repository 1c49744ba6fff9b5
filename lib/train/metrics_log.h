#pragma once
// metrics.jsonl: one JSON object per evaluation,
//   {"step": 100, "wall_s": 3.2, "train_loss": 2.1, "acc": {"test_0": 0.41, ...}, "loss": {...}, "n": {...}}
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cc::train {

// The log's file name in a run's folder, and its path there.
constexpr const char* kMetricsFileName = "metrics.jsonl";
inline std::string metrics_path(const std::string& run_dir) { return run_dir + "/" + kMetricsFileName; }
// The log of the run a checkpoint file (RUN_DIR/stepNNNNNN.safetensors) belongs to: the one beside it.
inline std::string metrics_path_beside(const std::string& checkpoint_path) {
  const auto slash = checkpoint_path.find_last_of('/');
  return metrics_path(slash == std::string::npos ? "." : checkpoint_path.substr(0, slash));
}

class MetricsLog {
 public:
  // Appends to PATH. With keep_before >= 0 it first drops every record at or after that step
  // (a resumed run re-logs them; 0 starts a fresh log), rewriting the file atomically.
  MetricsLog(std::string path, int64_t keep_before);
  void append(const nlohmann::json& record);
  // Whether a kept record has this step. A run resumed at step s keeps the record logged at s before
  // the interruption: same weights, so the same evaluation, and it alone has the training loss of the
  // steps before s (a resumed process has not seen them).
  bool has(int64_t step) const;
  // Every record checked (cc::Error with FILE:LINE on a bad one): strictly ascending steps, accuracies in
  // [0, 1], counts and losses non-negative, no null; a last line without its newline is refused.
  static std::vector<nlohmann::json> read(const std::string& path);

 private:
  static std::vector<nlohmann::json> parse(const std::string& text, const std::string& path);
  std::string path_;
  std::vector<int64_t> kept_steps_;
};

}  // namespace cc::train
