// progress_order: the circuit forms before the test loss drops (Nanda et al. 2023, §5.2; assumptions.md, 9).
// The drop is the first logged step at which test accuracy reaches `level`. At the last checkpoint on
// the `every`-step grid before it (the subject's step when the run never reaches the level), the value
// is the restricted test loss over the full model's test loss, with the key frequencies of the subject
// checkpoint (the final model, as the paper does). Both losses at every grid checkpoint are reported.
#include <torch/torch.h>

#include <memory>

#include "kinds.h"
#include "util/error.h"

namespace cc::grokking {
namespace {

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
  p["level"] = r.number("level", 0.5);
  if (!(p["level"].get<double>() > 0 && p["level"].get<double>() <= 1)) r.fail("level", "must be in (0, 1]");
  p["every"] = r.integer_in("every", 2000, 1, 1000000);
  p["min_share"] = r.number("min_share", 0.05);
  if (!(p["min_share"].get<double>() > 0 && p["min_share"].get<double>() <= 1))
    r.fail("min_share", "must be in (0, 1]");
  r.finish();
  return p;
}

// The first logged step with test accuracy >= level; -1 when there is none.
int64_t drop_step(const std::vector<nlohmann::json>& log, double level) {
  for (const auto& rec : log) {
    if (!rec.contains("test_accuracy") || !rec["test_accuracy"].is_number())
      throw Error("metrics record at step " + rec.value("step", nlohmann::json()).dump() + " lacks 'test_accuracy'");
    if (rec["test_accuracy"].get<double>() >= level) return rec["step"].get<int64_t>();
  }
  return -1;
}

analysis::Measurement measure(const analysis::MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const int p = config_of(in.checkpoint).task.modulus;
  const int64_t every = in.params["every"], last = in.checkpoint.step;
  analysis::Measurement m;
  const auto keys = key_frequencies(in.checkpoint, p, in.params["min_share"].get<double>(), m.details);
  const int64_t drop = drop_step(in.history->metrics, in.params["level"].get<double>());
  // Judged at the last grid step before the drop, or at the subject when the level is never reached.
  const int64_t judged = drop < 0 ? last : std::min(last, (drop - 1) / every * every);
  if (judged % every != 0)  // the subject is off the grid and the level was never reached
    throw Error(in.checkpoint.path + ": progress_order judges a checkpoint on its " + std::to_string(every) +
                "-step grid; step " + std::to_string(last) + " is not on it");
  nlohmann::json xs = nlohmann::json::array(), restricted = nlohmann::json::array(), full = nlohmann::json::array();
  for (int64_t step = 0; step <= last; step += every) {
    const auto ck = step == last ? std::shared_ptr<const train::Checkpoint>() : in.history->checkpoint_at(step);
    const KeyFrequencyLosses l = key_frequency_losses(step == last ? in.checkpoint : *ck, keys, /*on_train=*/false);
    xs.push_back(step);
    restricted.push_back(l.restricted);
    full.push_back(l.full);
    if (step == judged) {
      m.n = l.n;
      m.value = l.restricted / std::max(l.full, 1e-300);
      m.details["restricted_test_loss"] = l.restricted;
      m.details["test_loss"] = l.full;
    }
  }
  m.details["drop_step"] = drop;
  m.details["judged_step"] = judged;
  m.details["unthresholded"] = {{"first step with test accuracy >= level", drop},
                                {"checkpoint judged", judged},
                                {"restricted test loss there", m.details["restricted_test_loss"]},
                                {"test loss there", m.details["test_loss"]}};
  m.details["figures"] = nlohmann::json::array(
      {{{"id", "progress_order"},
        {"paper_figure", "Figure 7"},
        {"type", "lines"},
        {"title", "test loss and restricted test loss (final model's key frequencies)"},
        {"xlabel", "step"},
        {"ylabel", "cross-entropy (nats)"},
        {"series", nlohmann::json::array({{{"name", "test loss"}, {"x", xs}, {"y", full}},
                                          {{"name", "restricted test loss"}, {"x", xs}, {"y", restricted}}})}}});
  return m;
}

}  // namespace

void register_progress_order(analysis::Registry& r) {
  analysis::MeasurementKind k("progress_order", analysis::Statistic::Scalar, measure,
                              "restricted test loss over test loss at the last checkpoint before test accuracy "
                              "reaches `level` (the final model's key frequencies)");
  k.parse_params = parse;
  k.params_doc =
      "level: the test accuracy that marks the drop (0.5)\n"
      "every: the checkpoint grid, in steps (2000)\n"
      "min_share: a key frequency is the best of at least this share of the active neurons (0.05)";
  k.needs_history = true;
  r.add(std::move(k));
}

}  // namespace cc::grokking
