#include "train/evaluate.h"

#include <torch/torch.h>

#include "model/blas_bridge.h"

namespace cc::train {

torch::Tensor tokens_tensor(const std::vector<task::Example>& examples) {
  const int64_t B = static_cast<int64_t>(examples.size());
  auto t = torch::empty({B, task::kSeqLen}, torch::kLong);
  auto acc = t.accessor<int64_t, 2>();
  for (int64_t b = 0; b < B; ++b)
    for (int p = 0; p < task::kSeqLen; ++p) acc[b][p] = examples[static_cast<size_t>(b)].tokens[static_cast<size_t>(p)];
  return t;
}

torch::Tensor targets_tensor(const std::vector<task::Example>& examples) {
  auto t = torch::empty({static_cast<int64_t>(examples.size())}, torch::kLong);
  auto acc = t.accessor<int64_t, 1>();
  for (size_t i = 0; i < examples.size(); ++i) acc[static_cast<int64_t>(i)] = examples[i].target;
  return t;
}

namespace {

// Runs the training path (through the blas engine on the CPU: model/blas_bridge.h) over `examples`
// in chunks; calls fn(logits [b, V], targets [b], offset).
template <typename Fn>
void for_each_chunk(model::FastLogits& logits_of, const std::vector<task::Example>& examples, int batch, Fn fn) {
  torch::NoGradGuard no_grad;
  for (size_t start = 0; start < examples.size(); start += static_cast<size_t>(batch)) {
    const size_t end = std::min(examples.size(), start + static_cast<size_t>(batch));
    std::vector<task::Example> chunk(examples.begin() + static_cast<std::ptrdiff_t>(start),
                                     examples.begin() + static_cast<std::ptrdiff_t>(end));
    auto logits = logits_of(tokens_tensor(chunk)).to(torch::kCPU);
    fn(logits, targets_tensor(chunk), start);
  }
}

}  // namespace

std::vector<uint8_t> correct_mask(const model::Transformer& model, const std::vector<task::Example>& examples,
                                  int batch) {
  std::vector<uint8_t> out(examples.size(), 0);
  model::FastLogits logits_of(model);
  for_each_chunk(logits_of, examples, batch,
                 [&](const torch::Tensor& logits, const torch::Tensor& targets, size_t offset) {
                   auto ok = (logits.argmax(-1) == targets).to(torch::kUInt8).contiguous();
                   std::memcpy(out.data() + offset, ok.data_ptr<uint8_t>(), static_cast<size_t>(ok.numel()));
                 });
  return out;
}

namespace {

// One set through `logits_of`, which evaluate() shares across its sets: the engine's buffers are
// then allocated once per evaluation, not once per set.
SetResult evaluate_with(model::FastLogits& logits_of, const task::EvalSet& set, int batch) {
  SetResult r;
  r.name = set.name;
  r.n = static_cast<int64_t>(set.examples.size());
  double loss_sum = 0.0;
  for_each_chunk(
      logits_of, set.examples, batch, [&](const torch::Tensor& logits, const torch::Tensor& targets, size_t) {
        r.correct += (logits.argmax(-1) == targets).sum().item<int64_t>();
        loss_sum += torch::nn::functional::cross_entropy(
                        logits, targets, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                        .item<double>();
      });
  r.loss = r.n > 0 ? loss_sum / static_cast<double>(r.n) : 0.0;
  return r;
}

}  // namespace

SetResult evaluate_set(const model::Transformer& model, const task::EvalSet& set, int batch) {
  model::FastLogits logits_of(model);
  return evaluate_with(logits_of, set, batch);
}

std::vector<SetResult> evaluate(const model::Transformer& model, const std::vector<task::EvalSet>& sets, int batch) {
  model::FastLogits logits_of(model);
  std::vector<SetResult> out;
  for (const auto& s : sets) out.push_back(evaluate_with(logits_of, s, batch));
  return out;
}

}  // namespace cc::train
