#include "train/metrics_log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_io.h"
#include "util/json_number.h"
#include "util/json_input.h"

namespace cc::train {

MetricsLog::MetricsLog(std::string path, int64_t keep_before) : path_(std::move(path)) {
  if (keep_before < 0) return;
  std::vector<nlohmann::json> kept;
  if (std::filesystem::exists(path_)) {
    // A process killed mid-append leaves its last record without a newline: that one is re-logged.
    std::string text = read_regular_file(path_, kMaxJsonBytes, "metrics log");
    const size_t last_newline = text.rfind('\n');
    text.resize(last_newline == std::string::npos ? 0 : last_newline + 1);
    for (auto& rec : parse(text, path_))
      if (rec.value("step", int64_t{0}) < keep_before) kept.push_back(std::move(rec));
    for (const auto& rec : kept) kept_steps_.push_back(rec["step"].get<int64_t>());
  }
  std::string text;
  for (const auto& rec : kept) text += rec.dump() + "\n";
  write_file_atomic(path_, text);
}

bool MetricsLog::has(int64_t step) const {
  return std::find(kept_steps_.begin(), kept_steps_.end(), step) != kept_steps_.end();
}

void MetricsLog::append(const nlohmann::json& record) {
  std::ofstream os(path_, std::ios::app);
  if (!os) throw WriteError(path_ + ": cannot append to metrics log");
  os << record.dump() << '\n';
  // A record cut short by a full disk has no newline: MetricsLog::read refuses such a log.
  if (!os.flush()) throw WriteError(path_ + ": cannot append to metrics log (disk full?)");
}

namespace {

// A record a verdict may rest on: step a non-negative integer; acc in [0, 1], n non-negative integers
// and losses finite and non-negative, per evaluation set; wall_s and train_loss finite and non-negative.
// A null (NaN written out) or a string where a number belongs is refused, not read as zero.
void check_record(const nlohmann::json& rec, const SourcePos& at) {
  if (!rec.is_object() || !rec.contains("step")) throw Error(at, "metrics record has no 'step'");
  if (json_int64(rec["step"], at.str() + ": step") < 0) throw Error(at, "metrics record has a negative step");
  auto number_in = [&](const nlohmann::json& v, const std::string& what, double lo, double hi) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
      throw Error(at, what + " is " + v.dump() + "; expected a number in [" + std::to_string(lo) + ", " +
                          (std::isinf(hi) ? std::string("inf") : std::to_string(hi)) + "]");
  };
  for (const char* key : {"wall_s", "train_loss"})
    if (rec.contains(key)) number_in(rec[key], key, 0, INFINITY);
  for (const char* group : {"acc", "loss", "n"}) {
    if (!rec.contains(group)) continue;
    if (!rec[group].is_object()) throw Error(at, std::string("'") + group + "' is not an object of evaluation sets");
    for (const auto& [set, v] : rec[group].items()) {
      const std::string what = std::string(group) + "." + set;
      if (std::string(group) == "acc")
        number_in(v, what, 0, 1);
      else if (std::string(group) == "loss")
        number_in(v, what, 0, INFINITY);
      else if (!v.is_number_integer() || v.get<int64_t>() < 0)
        throw Error(at, what + " is " + v.dump() + "; expected a count");
    }
  }
}

}  // namespace

std::vector<nlohmann::json> MetricsLog::read(const std::string& path) {
  return parse(read_regular_file(path, kMaxJsonBytes, "metrics log"), path);
}

std::vector<nlohmann::json> MetricsLog::parse(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  std::vector<nlohmann::json> out;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const SourcePos at{path, lineno, 1};
    if (line.empty()) continue;
    nlohmann::json rec;
    try {
      rec = parse_json(line, at.str() + ": metrics record");
    } catch (const nlohmann::json::exception& e) {
      throw Error(at, std::string("metrics record is not valid JSON: ") + e.what());
    }
    // Every reader orders and selects records by step: checked once here, strictly ascending.
    check_record(rec, at);
    if (!out.empty() && rec["step"].get<int64_t>() <= out.back()["step"].get<int64_t>())
      throw Error(at, "step " + rec["step"].dump() + " after step " + out.back()["step"].dump() +
                          (rec["step"] == out.back()["step"] ? " (a duplicate)" : " (out of order)"));
    out.push_back(std::move(rec));
  }
  // Every record is written with its newline: a last line without one was cut off mid-write.
  if (!text.empty() && text.back() != '\n')
    throw Error(SourcePos{path, lineno, 1}, "the last record has no newline (truncated?)");
  return out;
}

}  // namespace cc::train
