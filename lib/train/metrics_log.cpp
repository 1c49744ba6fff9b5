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

// The range of a metric by its name, as every task family writes them: accuracies and recall rates
// (a group "acc" or "memory_recall", a key "*_accuracy") in [0, 1]; losses, norms and times (a group
// "loss", a key "*_loss", "sum_squared_weights", "wall_s") non-negative; any other number finite.
struct Range {
  double lo, hi;
};
constexpr Range kProportion{0, 1}, kNonNegative{0, INFINITY}, kAnyFinite{-INFINITY, INFINITY};

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

Range range_of_key(const std::string& key) {
  if (ends_with(key, "accuracy")) return kProportion;
  if (ends_with(key, "loss") || key == "wall_s" || key == "sum_squared_weights") return kNonNegative;
  return kAnyFinite;
}

Range range_of_group(const std::string& group) {
  if (group == "acc" || group == "memory_recall") return kProportion;
  if (group == "loss") return kNonNegative;
  return kAnyFinite;
}

// A record a verdict may rest on: step a non-negative integer, "n" counts non-negative integers, every
// other number in its range (range_of_key, range_of_group). A null (NaN written out) or a string where
// a number belongs is refused, not read as zero.
void check_record(const nlohmann::json& rec, const SourcePos& at) {
  if (!rec.is_object() || !rec.contains("step")) throw Error(at, "metrics record has no 'step'");
  if (json_int64(rec["step"], at.str() + ": step") < 0) throw Error(at, "metrics record has a negative step");
  auto number_in = [&](const nlohmann::json& v, const std::string& what, Range r) {
    if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= r.lo && v.get<double>() <= r.hi) return;
    const std::string want = std::isinf(r.lo)   ? "a finite number"
                             : std::isinf(r.hi) ? "a finite number >= 0"
                                                : "a number in [0, 1]";
    throw Error(at, what + " is " + v.dump() + "; expected " + want);
  };
  for (const auto& [key, v] : rec.items()) {
    if (key == "step") continue;
    if (!v.is_object()) {
      if (v.is_number() || v.is_null()) number_in(v, key, range_of_key(key));
      continue;
    }
    for (const auto& [set, x] : v.items()) {
      const std::string what = key + "." + set;
      if (key != "n")
        number_in(x, what, range_of_group(key));
      else if (!x.is_number_integer() || x.get<int64_t>() < 0)
        throw Error(at, what + " is " + x.dump() + "; expected a count");
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
  int64_t dom_bytes = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const SourcePos at{path, lineno, 1};
    if (line.empty()) continue;
    nlohmann::json rec;
    try {
      rec = parse_json(line, at.str() + ": metrics record", true, &dom_bytes);  // the log's records together
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
