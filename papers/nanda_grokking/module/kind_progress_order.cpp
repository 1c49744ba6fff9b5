// progress_order: the circuit forms before the test loss drops (Nanda et al. 2023, §5.2; assumptions.md, 9).
// The drop is the first logged step at which test accuracy reaches `level`. At the last checkpoint on
// the `every`-step grid before it (the subject's step when the run never reaches the level), the value
// is the restricted test loss, with the key frequencies of the subject checkpoint (the final model, as
// the paper does), over the full model's test loss there (`against: model`) or over ln p, the loss of a
// uniform guess (`against: chance`, N9's reading since 2026-12-04: a memorising model's inflated test
// loss made the first pass). Both losses at every grid checkpoint the run keeps are in the figure.
#include <torch/torch.h>

#include <cmath>
#include <memory>

#include "papers/nanda_grokking/module/kinds.h"
#include "util/error.h"

namespace cc::nanda_grokking {
namespace {

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
  p["level"] = r.number("level", 0.5);
  if (!(p["level"].get<double>() > 0 && p["level"].get<double>() <= 1)) r.fail("level", "must be in (0, 1]");
  p["every"] = r.integer_in("every", 2000, 1, 1000000);
  p["against"] = r.one_of("against", {"model", "chance"}, "model");
  p["min_share"] = read_min_share(r);
  r.finish();
  return p;
}

analysis::Measurement measure(const analysis::MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const int p = task_of(in.checkpoint).modulus;
  const int64_t every = in.params["every"], last = in.checkpoint.step;
  analysis::Measurement m;
  const auto keys = key_frequencies(in.checkpoint, in.activations, in.params["min_share"].get<double>(), m.details);
  const int64_t drop = drop_step(*in.history, in.params["level"].get<double>());
  // Judged at the last grid step before the drop, or at the subject when the level is never reached.
  const int64_t judged = judged_step(drop, last, every, in.checkpoint.path + ": progress_order");
  const bool against_chance = in.params.value("against", "model") == "chance";
  const double chance = std::log(static_cast<double>(p));  // a uniform guess over the p answers
  nlohmann::json xs = nlohmann::json::array(), restricted = nlohmann::json::array(), full = nlohmann::json::array();
  nlohmann::json lacking = nlohmann::json::array();
  std::string losses_name = "nanda_grokking.progress_order test losses, keys";
  for (int64_t k : keys) losses_name += " " + std::to_string(k);
  for (int64_t step = 0; step <= last; step += every) {
    std::shared_ptr<const train::Checkpoint> ck;
    if (step != last) {
      try {
        ck = in.history->checkpoint_at(step);
      } catch (const analysis::Unavailable&) {
        if (step == judged) throw;  // the verdict's own checkpoint must be there
        lacking.push_back(step);    // a figure point the run does not keep (e.g. every 5000th only)
        continue;
      }
    }
    // The run's other checkpoints: their forwards are computed here, not kept; the losses are shared by
    // key set through the store, so the claim's readings (level, min_share) read each checkpoint once.
    const KeyFrequencyLosses l = step == last
                                     ? key_frequency_losses(in.checkpoint, in.activations, keys, false)
                                     : *analysis::derived<KeyFrequencyLosses>(in.activations, *ck, losses_name, [&] {
                                         return analysis::Derived<KeyFrequencyLosses>{
                                             key_frequency_losses(*ck, nullptr, keys, /*on_train=*/false)};
                                       });
    xs.push_back(step);
    restricted.push_back(l.restricted);
    full.push_back(l.full);
    if (step == judged) {
      m.n = l.n;
      m.value = l.restricted / (against_chance ? chance : std::max(l.full, 1e-300));
      m.details["restricted_test_loss"] = l.restricted;
      m.details["test_loss"] = l.full;
    }
  }
  m.details["chance_loss"] = chance;
  if (!lacking.empty()) m.details["figure_steps_not_kept"] = lacking;
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
                              "restricted test loss at the last checkpoint before test accuracy reaches `level` (the "
                              "final model's key frequencies), over the model's own test loss there or over chance");
  k.parse_params = parse;
  k.params_doc =
      "level: the test accuracy that marks the drop (0.5)\n"
      "every: the checkpoint grid, in steps (2000)\n"
      "against: model (over the model's test loss there; superseded as N9's reading, assumptions.md 11) | chance "
      "(over ln p, a uniform guess's loss) (model)\n"
      "min_share: a key frequency is the best of at least this share of the active neurons (0.05)";
  k.needs_history = true;
  r.add(std::move(k));
}

}  // namespace cc::nanda_grokking
