// grok_accuracy: the share of a split's pairs whose argmax logit at '=' is (a + b) mod p. The splits are
// exhaustive (every training pair, every held-out pair), so the Wilson interval is over pairs.
#include <torch/torch.h>

#include "kinds.h"

namespace cc::grokking {
namespace {

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
  p["split"] = r.one_of("split", {"train", "test"}, "test");
  r.finish();
  return p;
}

analysis::Measurement measure(const analysis::MeasureInput& in) {
  const RunConfig cfg = config_of(in.checkpoint);
  const auto logits = grid_logits(in.checkpoint);  // [p², p]
  const auto targets = all_pairs(cfg.task).targets;
  const auto parts = split(cfg.task);
  const auto rows = in.params["split"] == "train" ? parts.train : parts.test;
  const auto correct = logits.index_select(0, rows).argmax(1).eq(targets.index_select(0, rows));
  analysis::Measurement m;
  m.n = rows.numel();
  m.successes = correct.sum().item<int64_t>();
  m.value = static_cast<double>(m.successes) / static_cast<double>(m.n);
  return m;
}

}  // namespace

void register_accuracy(analysis::Registry& r) {
  analysis::MeasurementKind k("grok_accuracy", analysis::Statistic::Proportion, measure,
                              "accuracy at '=' on every pair of the train or test split (Nanda et al. 2023)");
  k.parse_params = parse;
  k.params_doc = "split: train | test (default test)";
  r.add(std::move(k));
}

}  // namespace cc::grokking
