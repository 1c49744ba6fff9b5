// training_curve: the run's metrics log (train/test accuracy, Σ w², every eval_every steps) read up to
// the subject checkpoint (Nanda et al. 2023, §5.2):
//   memorisation_ratio  first step with test accuracy >= `level`, over the first with train accuracy
//                       >= `level`; 0 when test accuracy never reaches it (no grokking)
//   weight_norm_ratio   Σ w² at the subject step over its maximum so far
//   norm_peak_timing    the step at which Σ w² peaks over the step at which test accuracy first reaches
//                       `level` (the subject's step when it never does): when the norm starts to fall
// A log that ends at step 0 (the untrained model) has no curve: analysis::NotComputable, not a constant.
#include <algorithm>

#include "analysis/phases.h"
#include "papers/nanda_grokking/module/kinds.h"
#include "util/error.h"

namespace cc::nanda_grokking {
namespace {

nlohmann::json parse(ObjectReader r, const char* mode) {
  nlohmann::json p;
  p["mode"] = mode;
  if (std::string(mode) != "weight_norm") {
    p["level"] = r.number("level", std::string(mode) == "memorisation" ? 0.99 : 0.5);
    if (!(p["level"].get<double>() > 0 && p["level"].get<double>() <= 1)) r.fail("level", "must be in (0, 1]");
  }
  r.finish();
  return p;
}

// The largest sum of squared weights in the log, and its (first) step.
std::pair<double, int64_t> norm_peak(const std::vector<nlohmann::json>& log) {
  double peak = 0;
  int64_t peak_step = 0;
  for (const auto& rec : log)
    if (rec["sum_squared_weights"].get<double>() > peak) {
      peak = rec["sum_squared_weights"].get<double>();
      peak_step = rec["step"].get<int64_t>();
    }
  return {peak, peak_step};
}

analysis::Measurement measure(const analysis::MeasureInput& in) {
  task_of(in.checkpoint);  // this paper's run
  const auto log =
      metrics_log(*in.history, in.params["mode"] == "memorisation"
                                   ? std::vector<std::string>{"/step", "/acc/train", "/acc/test"}
                                   : std::vector<std::string>{"/step", "/acc/test", "/sum_squared_weights"});
  analysis::Measurement m;
  m.n = static_cast<int64_t>(log.size());
  if (log.empty()) throw Error(in.checkpoint.path + ": the metrics log has no record up to this step");
  require_training(*in.history, in.checkpoint);
  if (in.params["mode"] == "memorisation") {
    const double level = in.params["level"].get<double>();
    // The one definition of "reaches" the papers share (analysis/phases.h).
    const int64_t train_step = analysis::first_reaching(log, "train", level).value_or(-1);
    const int64_t test_step = analysis::first_reaching(log, "test", level).value_or(-1);
    m.details["first_step_train_at_level"] = train_step;
    m.details["first_step_test_at_level"] = test_step;
    m.value = (train_step <= 0 || test_step < 0) ? 0.0 : static_cast<double>(test_step) / train_step;
  } else if (in.params["mode"] == "norm_peak") {
    const int64_t peak_step = norm_peak(log).second;
    const int64_t drop = drop_step(*in.history, in.params["level"].get<double>());
    const int64_t until = drop < 0 ? log.back()["step"].get<int64_t>() : drop;
    if (until <= 0) throw analysis::NotComputable("test accuracy is at the level at step 0: no time before the drop");
    m.details["peak_step"] = peak_step;
    m.details["drop_step"] = drop;
    m.details["unthresholded"] = {{"step of the largest sum of squared weights", peak_step},
                                  {"first step with test accuracy >= level (-1: never)", drop}};
    m.value = static_cast<double>(peak_step) / static_cast<double>(until);
  } else {
    const auto [peak, peak_step] = norm_peak(log);
    m.details["peak"] = peak;
    m.details["peak_step"] = peak_step;
    const double last = log.back()["sum_squared_weights"].get<double>();
    m.details["last"] = last;
    m.value = last / peak;
  }
  return m;
}

}  // namespace

void register_training_curve(analysis::Registry& r) {
  for (const auto& [name, mode, what] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"memorisation_ratio", "memorisation",
            "first step with test accuracy >= level over the first with train accuracy >= level (metrics log)"},
           {"weight_norm_ratio", "weight_norm", "sum of squared weights now over its maximum so far (metrics log)"},
           {"norm_peak_timing", "norm_peak",
            "step of the largest sum of squared weights over the first step with test accuracy >= level (metrics "
            "log; the last step when never)"}}) {
    analysis::MeasurementKind k(name, analysis::Statistic::Scalar, measure, what);
    const std::string m = mode;
    k.parse_params = [m](ObjectReader rd) { return parse(rd, m.c_str()); };
    k.params_doc = mode == "memorisation" ? "level: the accuracy both must reach (0.99)"
                   : mode == "norm_peak"  ? "level: the test accuracy that marks the drop (0.5)"
                                          : "(none)";
    k.needs_history = true;
    r.add(std::move(k));
  }
}

}  // namespace cc::nanda_grokking
