#include "train/loss.h"

#include <torch/torch.h>

#include "train/task_data.h"

namespace cc::train {

torch::Tensor cross_entropy(const torch::Tensor& logits, const torch::Tensor& targets, const std::string& precision,
                            LossReduction reduction) {
  namespace F = torch::nn::functional;
  F::CrossEntropyFuncOptions options;
  options.ignore_index(kNoTarget);
  if (reduction == LossReduction::Sum) options.reduction(torch::kSum);
  if (reduction == LossReduction::PerRow) options.reduction(torch::kNone);
  const bool every_position = logits.dim() == 3;  // [B, T, V] against [B, T]
  const auto flat = every_position ? logits.reshape({-1, logits.size(-1)}) : logits;
  const auto y = every_position ? targets.reshape({-1}) : targets;
  return F::cross_entropy(precision == "float64" ? flat.to(torch::kDouble) : flat, y, options);
}

}  // namespace cc::train
