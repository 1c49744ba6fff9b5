#include "train/evaluate.h"

#include <torch/torch.h>

#include "model/blas_bridge.h"
#include "train/loss.h"

namespace cc::train {
namespace {

// One set through `logits_of` (the training path: the blas engine on the CPU, model/blas_bridge.h)
// in chunks of `batch` rows; evaluate() shares `logits_of` across its sets, so the engine's buffers
// are allocated once per evaluation, not once per set.
// A set whose targets are at every position: Transformer::forward, counted over the targets there are.
SetResult evaluate_every_position(const model::Transformer& model, const NamedBatch& set, const std::string& precision,
                                  int batch) {
  torch::NoGradGuard no_grad;
  SetResult r;
  r.name = set.name;
  double loss_sum = 0.0;
  for (int64_t start = 0; start < set.batch.size(); start += batch) {
    const int64_t end = std::min(set.batch.size(), start + batch);
    auto logits = model.forward(set.batch.tokens.slice(0, start, end)).to(torch::kCPU);  // [b, T, d_vocab_out]
    auto targets = set.batch.targets.slice(0, start, end);                               // [b, T]
    auto has = targets != kNoTarget;
    r.n += has.sum().item<int64_t>();
    r.correct += ((logits.argmax(-1) == targets) & has).sum().item<int64_t>();
    loss_sum += cross_entropy(logits, targets, precision, LossReduction::Sum).item<double>();
  }
  r.loss = r.n > 0 ? loss_sum / static_cast<double>(r.n) : 0.0;
  return r;
}

SetResult evaluate_with(model::FastLogits& logits_of, const NamedBatch& set, const std::string& precision, int batch) {
  if (set.batch.every_position()) return evaluate_every_position(logits_of.model(), set, precision, batch);
  torch::NoGradGuard no_grad;
  SetResult r;
  r.name = set.name;
  r.n = set.batch.size();
  double loss_sum = 0.0;
  for (int64_t start = 0; start < r.n; start += batch) {
    const int64_t end = std::min(r.n, start + batch);
    auto logits = logits_of(set.batch.tokens.slice(0, start, end)).to(torch::kCPU);  // [b, d_vocab_out]
    auto targets = set.batch.targets.slice(0, start, end);                           // [b]
    r.correct += (logits.argmax(-1) == targets).sum().item<int64_t>();
    loss_sum += cross_entropy(logits, targets, precision, LossReduction::Sum).item<double>();
  }
  r.loss = r.n > 0 ? loss_sum / static_cast<double>(r.n) : 0.0;
  return r;
}

}  // namespace

SetResult evaluate_set(const model::Transformer& model, const NamedBatch& set, const std::string& loss_precision,
                       int batch) {
  model::FastLogits logits_of(model);
  return evaluate_with(logits_of, set, loss_precision, batch);
}

std::vector<SetResult> evaluate(const model::Transformer& model, const std::vector<NamedBatch>& sets,
                                const std::string& loss_precision, int batch) {
  model::FastLogits logits_of(model);
  std::vector<SetResult> out;
  for (const auto& s : sets) out.push_back(evaluate_with(logits_of, s, loss_precision, batch));
  return out;
}

}  // namespace cc::train
