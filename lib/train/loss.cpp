#include "train/loss.h"

#include <torch/torch.h>

namespace cc::train {

torch::Tensor cross_entropy(const torch::Tensor& logits, const torch::Tensor& targets, const std::string& precision,
                            LossReduction reduction) {
  namespace F = torch::nn::functional;
  F::CrossEntropyFuncOptions options;
  if (reduction == LossReduction::Sum) options.reduction(torch::kSum);
  if (reduction == LossReduction::PerRow) options.reduction(torch::kNone);
  return F::cross_entropy(precision == "float64" ? logits.to(torch::kDouble) : logits, targets, options);
}

}  // namespace cc::train
