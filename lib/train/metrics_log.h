#pragma once
// metrics.jsonl: one JSON object per evaluation,
//   {"step": 100, "wall_s": 3.2, "train_loss": 2.1, "acc": {"test_0": 0.41, ...}, "loss": {...}, "n": {...}}
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cc::train {

class MetricsLog {
 public:
  // Appends to PATH. With keep_before >= 0 it first drops every record at or after that step
  // (a resumed run re-logs them; 0 starts a fresh log), rewriting the file atomically.
  MetricsLog(std::string path, int64_t keep_before);
  void append(const nlohmann::json& record);
  static std::vector<nlohmann::json> read(const std::string& path);  // throws cc::Error on a bad line

 private:
  std::string path_;
};

}  // namespace cc::train
