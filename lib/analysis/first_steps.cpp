// kinds `first_step_ratio` and `first_step_order`: when quantities of a run's metrics log first reach a
// level, read off its records up to the subject checkpoint (any number a record holds, named by its
// path: `acc.in_context`, `loss.global`, a family's `memory_recall.W_O2`). What is learned before what:
// the ratio of two first steps, or whether several are reached in a given order.
#include <cmath>
#include <optional>
#include <sstream>

#include "analysis/kinds.h"

namespace cc::analysis {
namespace {

// A metric's value in one record, or none when the record lacks it.
std::optional<double> metric_at(const nlohmann::json& record, const std::string& path) {
  const nlohmann::json* at = &record;
  std::stringstream parts(path);
  for (std::string key; std::getline(parts, key, '.');) {
    if (!at->is_object() || !at->contains(key)) return std::nullopt;
    at = &(*at)[key];
  }
  if (!at->is_number()) return std::nullopt;
  return at->get<double>();
}

// What "reached" means for one metric: at_least / at_most a level, within `within_of_last` of its
// value in the last record (the subject's step), or `share_of_change`: at least that share of its change
// from the first record to the last made (0.9: 90 % of a loss's drop done).
struct Condition {
  std::string metric, how;
  double level = 0;
};

Condition read_condition(ObjectReader r) {
  Condition c;
  c.metric = r.string("metric");
  int given = 0;
  for (const char* how : {"at_least", "at_most", "within_of_last", "share_of_change"}) {
    if (r.describing()) r.number(how, 0.0);  // described as optional: exactly one of the three is given
    if (r.has(how)) {
      c.how = how;
      c.level = r.number(how);
      ++given;
    }
  }
  if (given != 1 && !r.describing())
    r.fail("metric", "give exactly one of at_least, at_most, within_of_last, share_of_change");
  if (c.how == "within_of_last" && !(c.level >= 0)) r.fail("within_of_last", "must be >= 0");
  if (c.how == "share_of_change" && !(c.level > 0 && c.level <= 1)) r.fail("share_of_change", "must be in (0, 1]");
  r.finish();
  return c;
}

nlohmann::json condition_json(const Condition& c) { return {{"metric", c.metric}, {c.how, c.level}}; }

Condition condition_of(const nlohmann::json& j) {
  Condition c;
  c.metric = j["metric"];
  for (const char* how : {"at_least", "at_most", "within_of_last", "share_of_change"})
    if (j.contains(how)) {
      c.how = how;
      c.level = j[how];
    }
  return c;
}

// The first logged step at which `c` holds; none when it never does. cc::Error when no record has the metric.
std::optional<int64_t> first_step(const std::vector<nlohmann::json>& log, const Condition& c,
                                  const std::string& where) {
  std::optional<double> first, last;
  for (const auto& rec : log)
    if (auto v = metric_at(rec, c.metric)) {
      if (!first) first = v;
      last = v;
    }
  if (!last) throw Error(where + ": the run's metrics log has no '" + c.metric + "'");
  // The share of the whole change made by value v (a metric that never moved has made all of it).
  auto share = [&](double v) { return *last == *first ? 1.0 : (v - *first) / (*last - *first); };
  for (const auto& rec : log) {
    const auto v = metric_at(rec, c.metric);
    if (!v) continue;
    const bool holds = c.how == "at_least"          ? *v >= c.level
                       : c.how == "at_most"         ? *v <= c.level
                       : c.how == "share_of_change" ? share(*v) >= c.level
                                                    : std::abs(*v - *last) <= c.level;
    if (holds) return rec.value("step", int64_t{0});
  }
  return std::nullopt;
}

// A figure of `metrics` along the log (one line each), as the report draws it.
nlohmann::json metrics_figure(const std::vector<nlohmann::json>& log, const std::vector<std::string>& metrics,
                              const std::string& id) {
  nlohmann::json series = nlohmann::json::array();
  for (const auto& name : metrics) {
    nlohmann::json x = nlohmann::json::array(), y = nlohmann::json::array();
    for (const auto& rec : log)
      if (const auto v = metric_at(rec, name)) {
        x.push_back(rec.value("step", int64_t{0}));
        y.push_back(*v);
      }
    series.push_back({{"name", name}, {"x", x}, {"y", y}});
  }
  return nlohmann::json::array({{{"id", id},
                                 {"type", "lines"},
                                 {"title", "the metrics along training"},
                                 {"xlabel", "step"},
                                 {"ylabel", "value"},
                                 {"series", series}}});
}

const std::vector<nlohmann::json>& history_of(const MeasureInput& in, const std::string& kind) {
  if (in.history->metrics.size() < 2)
    throw NotComputable(kind + ": the run's history ends at step " + std::to_string(in.checkpoint.step) +
                        ": nothing has been learned, no first step to compare");
  return in.history->metrics;
}

nlohmann::json parse_ratio(ObjectReader r) {
  nlohmann::json p;
  p["numerator"] = condition_json(read_condition(r.object("numerator")));
  p["denominator"] = condition_json(read_condition(r.object("denominator")));
  r.finish();
  return p;
}

Measurement measure_ratio(const MeasureInput& in) {
  const auto& log = history_of(in, "first_step_ratio");
  const Condition num = condition_of(in.params["numerator"]), den = condition_of(in.params["denominator"]);
  const auto a = first_step(log, num, in.checkpoint.path), b = first_step(log, den, in.checkpoint.path);
  Measurement m;
  m.n = static_cast<int64_t>(log.size());
  // Never reached: the later event did not happen (0), or the earlier one did not (no ratio, 0).
  m.value = (a && b && *b > 0) ? static_cast<double>(*a) / static_cast<double>(*b) : (a && b ? INFINITY : 0.0);
  m.details["numerator_step"] = a ? nlohmann::json(*a) : nlohmann::json("never");
  m.details["denominator_step"] = b ? nlohmann::json(*b) : nlohmann::json("never");
  m.details["unthresholded"] = {{num.metric + " first step", m.details["numerator_step"]},
                                {den.metric + " first step", m.details["denominator_step"]}};
  m.details["figures"] = metrics_figure(log, {num.metric, den.metric}, "first_step_ratio");
  return m;
}

nlohmann::json parse_order(ObjectReader r) {
  nlohmann::json p;
  const auto metrics = r.strings("metrics");
  if (metrics.size() < 2 && !r.describing())
    r.fail("metrics", "name at least two metrics, in the order they should be reached");
  p["metrics"] = metrics;
  p["at_least"] = r.number("at_least");
  r.finish();
  return p;
}

// The share of consecutive pairs (a, b) of `metrics` with a reached strictly before b (each pair
// whose metrics are both reached, in that order): 1 when the whole order holds.
Measurement measure_order(const MeasureInput& in) {
  const auto& log = history_of(in, "first_step_order");
  const auto names = in.params["metrics"].get<std::vector<std::string>>();
  std::vector<std::optional<int64_t>> steps;
  nlohmann::json shown = nlohmann::json::object();
  for (const auto& name : names) {
    steps.push_back(first_step(log, {name, "at_least", in.params["at_least"].get<double>()}, in.checkpoint.path));
    shown[name] = steps.back() ? nlohmann::json(*steps.back()) : nlohmann::json("never");
  }
  int ordered = 0;
  for (size_t i = 0; i + 1 < steps.size(); ++i) ordered += steps[i] && steps[i + 1] && *steps[i] < *steps[i + 1];
  Measurement m;
  m.n = static_cast<int64_t>(names.size() - 1);
  m.successes = ordered;
  m.value = static_cast<double>(ordered) / static_cast<double>(m.n);
  m.details["first_steps"] = shown;
  m.details["unthresholded"] = shown;
  m.details["figures"] = metrics_figure(log, names, "first_step_order");
  return m;
}

}  // namespace

void register_first_steps(Registry& r) {
  MeasurementKind ratio("first_step_ratio", Statistic::Scalar, measure_ratio,
                        "the first logged step at which `numerator` holds over the first at which `denominator` "
                        "does (0 when either never holds; inf when the denominator holds at step 0)");
  ratio.parse_params = parse_ratio;
  ratio.params_doc =
      "numerator, denominator: {metric: a number of the metrics log by its path (acc.SET, loss.SET, a family's "
      "own), and one of at_least: x | at_most: x | within_of_last: x (within x of its value at the subject) | "
      "share_of_change: x (x of its change from the first record to the subject's made)}";
  ratio.needs_history = true;
  r.add(std::move(ratio));
  MeasurementKind order("first_step_order", Statistic::Scalar, measure_order,
                        "the share of consecutive metrics in `metrics` that first reach `at_least` strictly after "
                        "the one before them (1: the whole order holds)");
  order.parse_params = parse_order;
  order.params_doc =
      "metrics: two or more numbers of the metrics log by their paths, in the order they should be reached\n"
      "at_least: the level each must reach";
  order.needs_history = true;
  r.add(std::move(order));
}

}  // namespace cc::analysis
