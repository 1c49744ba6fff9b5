#include "train/evaluate.h"

#include <torch/torch.h>

#include <cmath>

#include "model/blas_bridge.h"
#include "train/loss.h"
#include "util/error.h"

namespace cc::train {
namespace {

// One set in chunks of `batch` rows: the answers at the last position through `logits_of` (the
// training path: the blas engine on the CPU, model/blas_bridge.h), a set with targets at every position
// through Transformer::forward; counted over the targets there are (every row has one at the last
// position). evaluate() shares `logits_of` across its sets, so the engine's buffers are allocated once
// per evaluation, not once per set.
SetResult evaluate_with(model::FastLogits& logits_of, const NamedBatch& set, const std::string& precision, int batch) {
  torch::NoGradGuard no_grad;
  SetResult r;
  r.name = set.name;
  double loss_sum = 0.0;
  for (int64_t start = 0; start < set.batch.size(); start += batch) {
    const int64_t end = std::min(set.batch.size(), start + batch);
    const auto tokens = set.batch.tokens.slice(0, start, end);
    auto logits = (set.batch.every_position() ? logits_of.model().forward(tokens)  // [b, T, d_vocab_out]
                                              : logits_of(tokens))                 // [b, d_vocab_out]
                      .to(torch::kCPU);
    auto targets = set.batch.targets.slice(0, start, end);  // [b, T] or [b]
    auto has = targets != kNoTarget;
    const auto right = (logits.argmax(-1) == targets) & has;
    r.n += has.sum().item<int64_t>();
    r.correct += right.sum().item<int64_t>();
    if (set.batch.every_position()) {
      const auto n = has.sum(1).to(torch::kInt64).contiguous(), k = right.sum(1).to(torch::kInt64).contiguous();
      r.sequence_n.insert(r.sequence_n.end(), n.data_ptr<int64_t>(), n.data_ptr<int64_t>() + n.numel());
      r.sequence_correct.insert(r.sequence_correct.end(), k.data_ptr<int64_t>(), k.data_ptr<int64_t>() + k.numel());
    }
    loss_sum += cross_entropy(logits, targets, precision, LossReduction::Sum).item<double>();
  }
  r.loss = r.n > 0 ? loss_sum / static_cast<double>(r.n) : 0.0;
  return r;
}

}  // namespace

SetResult evaluate_set(const model::Transformer& model, const NamedBatch& set, const std::string& loss_precision,
                       int batch) {
  model::FastLogits logits_of(model);
  SetResult r = evaluate_with(logits_of, set, loss_precision, batch);
  // A measurement, unlike training's evaluation (where a diverged run is an outcome it records), is
  // never read from a forward that overflowed: NaN logits have an argmax too (finite weights of 3e38
  // gave an accuracy, and a PASS on a bound).
  if (!std::isfinite(r.loss))
    throw Error("evaluation set '" + set.name + "': the model's logits are not finite (loss " + std::to_string(r.loss) +
                "): its weights overflow the forward, so no accuracy is read from it");
  return r;
}

std::vector<SetResult> evaluate(const model::Transformer& model, const std::vector<NamedBatch>& sets,
                                const std::string& loss_precision, int batch) {
  model::FastLogits logits_of(model);
  std::vector<SetResult> out;
  for (const auto& s : sets) out.push_back(evaluate_with(logits_of, s, loss_precision, batch));
  return out;
}

}  // namespace cc::train
