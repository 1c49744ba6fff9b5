#pragma once
// The training objective: cross-entropy of the logits against the targets (at the last position, or
// at every position that has one: task_data.h), in the precision the run asks for
// (TrainConfig::loss_precision). The step engine, the stacked trainer
// and evaluation share it, so a run's metrics log measures the loss it trains on.
#include <torch/types.h>

#include <string>

namespace cc::train {

enum class LossReduction { Mean, Sum, PerRow };

// logits [B, V], targets [B] -> 0-dim (Mean, Sum) or [B] (PerRow); or logits [B, T, V], targets
// [B, T] -> 0-dim over the positions whose target is not kNoTarget (Mean: their mean), or [B*T]
// (PerRow: 0 where there is none). In float32 or, for "float64", computed on the logits cast to
// double (the result is then double).
torch::Tensor cross_entropy(const torch::Tensor& logits, const torch::Tensor& targets, const std::string& precision,
                            LossReduction reduction = LossReduction::Mean);

}  // namespace cc::train
