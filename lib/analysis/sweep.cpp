// Kinds over a sweep (§4, Figure 3). Each sees one seed's series: the accuracy counts of every
// evaluation set at each axis value, at the final step (or at step 0 for the negative control).
//   sweep_threshold  the smallest axis value from which a set's accuracy stays >= level at every
//                    larger grid value (the paper's "f ≳ 0.25"); +infinity when the largest fails
//   sweep_accuracy   a set's accuracy at the worst (or best) grid value in [from, to], with the
//                    whole curve in its details (Figure 3)
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>

#include "analysis/common.h"
#include "analysis/kinds.h"
#include "train/task_data.h"

namespace cc::analysis {
namespace {

const SetCount& counts_at(const SweepSeriesPoint& p, const std::string& set, const SweepSeries& s) {
  auto it = p.sets.find(set);
  if (it == p.sets.end() || it->second.n == 0)
    throw Error("sweep '" + s.sweep + "', seed " + std::to_string(s.seed) + ", " + s.axis + " = " +
                std::to_string(p.x) + ": no '" + set + "' counts at step " + std::to_string(p.step));
  return it->second;
}

nlohmann::json curve(const SweepSeries& s, const std::string& set) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : s.points) {
    const SetCount& c = counts_at(p, set, s);
    out.push_back({{"x", p.x}, {"step", p.step}, {"n", c.n}, {"correct", c.correct}, {"accuracy", c.accuracy()}});
  }
  return out;
}

// Final accuracy along the axis, one line per seed, the level and the paper's value marked.
// threshold kind: the level as a horizontal line, the paper's threshold as a vertical one;
// accuracy kind: the paper's accuracy bar as a horizontal line.
nlohmann::json curve_figure(const SweepSeries& s, const std::string& set, double level, const char* mark) {
  nlohmann::json x = nlohmann::json::array(), y = nlohmann::json::array();
  for (const auto& p : s.points) {
    x.push_back(p.x);
    y.push_back(counts_at(p, set, s).accuracy());
  }
  char lv[32];
  std::snprintf(lv, sizeof lv, "%.3g", level);
  return {
      {"id", "sweep_curve"},
      {"type", "lines"},
      {"merge_seeds", true},
      {"title", set + " at step " + std::to_string(s.points.empty() ? 0 : s.points.front().step) + " vs " + s.axis},
      {"xlabel", s.axis},
      {"ylabel", "accuracy (" + set + ")"},
      {"yrange", {0, 1.02}},
      {"mark_reported", mark},
      {"hlines", std::isnan(level) ? nlohmann::json::array()
                                   : nlohmann::json::array({{{"at", level}, {"label", std::string("level ") + lv}}})},
      {"series", nlohmann::json::array({{{"name", set}, {"x", x}, {"y", y}}})}};
}

void require_points(const SweepSeries& s) {
  if (s.points.empty())
    throw Error("sweep '" + s.sweep + "' has no collected point for seed " + std::to_string(s.seed));
}

nlohmann::json parse_threshold(ObjectReader r) {
  nlohmann::json p;
  p["set"] = read_set(r);
  const double level = r.number("level");
  if (!(level > 0 && level <= 1) && !r.describing()) r.fail("level", "must be in (0, 1]");
  p["level"] = level;
  r.finish();
  return p;
}

Measurement measure_threshold(const SweepMeasureInput& in) {
  const SweepSeries& s = in.series;
  require_points(s);
  const std::string set = in.params["set"];
  const double level = in.params["level"];
  // Walk down from the largest grid value while the accuracy holds the level.
  double threshold = std::numeric_limits<double>::infinity();
  for (auto it = s.points.rbegin(); it != s.points.rend(); ++it) {
    if (counts_at(*it, set, s).accuracy() < level) break;
    threshold = it->x;
  }
  Measurement m;
  m.value = threshold;
  m.n = static_cast<int64_t>(s.points.size());
  m.details = {{"set", set},
               {"figures", nlohmann::json::array({curve_figure(s, set, level, "vline")})},
               {"level", level},
               {"axis", s.axis},
               {"reached", std::isfinite(threshold)},
               {"threshold", std::isfinite(threshold) ? nlohmann::json(threshold) : nlohmann::json("none in the grid")},
               {"curve", curve(s, set)}};
  return m;
}

nlohmann::json parse_accuracy(ObjectReader r) {
  nlohmann::json p;
  p["set"] = read_set(r);
  const double lo = r.number("from", -std::numeric_limits<double>::max());
  const double hi = r.number("to", std::numeric_limits<double>::max());
  if (lo > hi) r.fail("to", "must be >= from");
  p["from"] = lo;
  p["to"] = hi;
  p["pick"] = r.one_of("pick", {"worst", "best"}, "worst");
  r.finish();
  return p;
}

Measurement measure_accuracy(const SweepMeasureInput& in) {
  const SweepSeries& s = in.series;
  require_points(s);
  const std::string set = in.params["set"];
  const double lo = in.params["from"], hi = in.params["to"];
  const bool worst = in.params["pick"] == "worst";
  const SweepSeriesPoint* chosen = nullptr;
  for (const auto& p : s.points) {
    if (p.x < lo || p.x > hi) continue;
    const double acc = counts_at(p, set, s).accuracy();
    if (!chosen || (worst ? acc < counts_at(*chosen, set, s).accuracy() : acc > counts_at(*chosen, set, s).accuracy()))
      chosen = &p;
  }
  if (!chosen)
    throw Error("sweep '" + s.sweep + "': no grid value of " + s.axis + " lies in [" + std::to_string(lo) + ", " +
                std::to_string(hi) + "]");
  const SetCount& c = counts_at(*chosen, set, s);
  Measurement m;
  m.n = c.n;
  m.successes = c.correct;
  m.value = c.accuracy();
  m.details = {{"set", set},
               {"axis", s.axis},
               {"pick", in.params["pick"]},
               {"at", chosen->x},
               {"curve", curve(s, set)},
               {"figures", nlohmann::json::array({curve_figure(s, set, std::nan(""), "hline")})}};
  return m;
}

}  // namespace

void register_sweep(Registry& r) {
  MeasurementKind threshold("sweep_threshold", Statistic::Scalar, measure_threshold,
                            "smallest grid value of the sweep's axis from which the accuracy on `set` stays >= `level` "
                            "at every larger grid value (infinity if the largest grid value fails)");
  threshold.parse_params = parse_threshold;
  threshold.params_doc = "set: evaluation set\nlevel: accuracy to hold";
  r.add(std::move(threshold));
  MeasurementKind accuracy(
      "sweep_accuracy", Statistic::Proportion, measure_accuracy,
      "accuracy on `set` at the worst (or best) grid value in [from, to]; the whole curve in details");
  accuracy.parse_params = parse_accuracy;
  accuracy.params_doc =
      "set: evaluation set\nfrom, to: the grid values considered (default all)\n"
      "pick: worst | best (default worst)";
  r.add(std::move(accuracy));
}

}  // namespace cc::analysis
