#pragma once
// The measurement kinds only the grokking paper needs (analysis/registry.h), one small file each.
// The kinds it shares with "Assign and Add" (the Fourier fits of MLP neurons) are the engine's own.
//   grok_accuracy              accuracy on the train or test split            (kind_accuracy.cpp)
//   embedding_fourier_share    W_E's energy in its largest frequencies       (kind_embedding.cpp)
//   key_frequency_loss         restricted / excluded loss                    (kind_key_frequencies.cpp)
//   training_curve             memorisation-to-grokking ratio, weight norm   (kind_training_curve.cpp)
#include <torch/types.h>

#include <vector>

#include "analysis/registry.h"
#include "run_config.h"
#include "train/checkpoint.h"

namespace cc::grokking {

void register_kinds(analysis::Registry& r);
void register_accuracy(analysis::Registry& r);
void register_embedding(analysis::Registry& r);
void register_key_frequencies(analysis::Registry& r);
void register_training_curve(analysis::Registry& r);

// This paper's run config of a checkpoint; cc::Error when the checkpoint is another task's.
RunConfig config_of(const train::Checkpoint& ck);
// Logits at '=' for every pair [p², p] (row a * p + b), float64, no autograd.
torch::Tensor grid_logits(const train::Checkpoint& ck);

}  // namespace cc::grokking
