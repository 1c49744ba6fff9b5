#include "train/metrics_log.h"

#include <cstdio>
#include <fstream>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json_number.h"

namespace cc::train {

MetricsLog::MetricsLog(std::string path, int64_t keep_before) : path_(std::move(path)) {
  if (keep_before < 0) return;
  std::vector<nlohmann::json> kept;
  if (std::ifstream(path_)) {
    for (auto& rec : read(path_))
      if (rec.value("step", int64_t{0}) < keep_before) kept.push_back(std::move(rec));
  }
  std::string text;
  for (const auto& rec : kept) text += rec.dump() + "\n";
  write_file_atomic(path_, text);
}

void MetricsLog::append(const nlohmann::json& record) {
  std::ofstream os(path_, std::ios::app);
  if (!os) throw Error(path_ + ": cannot append to metrics log");
  os << record.dump() << '\n';
}

std::vector<nlohmann::json> MetricsLog::read(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open metrics log");
  std::vector<nlohmann::json> out;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    nlohmann::json rec;
    try {
      rec = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw Error(SourcePos{path, lineno, 0}, std::string("metrics record is not valid JSON: ") + e.what());
    }
    // Every reader orders and selects records by step: checked once here, an integer in range.
    if (!rec.is_object() || !rec.contains("step")) throw Error(SourcePos{path, lineno, 0}, "metrics record has no 'step'");
    json_int64(rec["step"], SourcePos{path, lineno, 0}.str() + ": step");
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace cc::train
