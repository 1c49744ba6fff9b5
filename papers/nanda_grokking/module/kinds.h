#pragma once
// The measurement kinds only the grokking paper needs (analysis/registry.h), one small file each.
// The kinds it shares with "Assign and Add" are the engine's own: `accuracy` (on the sets "train" and
// "test", which this module's task family gives: family.cpp) and the Fourier fits of MLP neurons.
//   embedding_fourier_share    W_E's energy in its largest frequencies       (kind_embedding.cpp)
//   key_frequency_loss         restricted / excluded loss                    (kind_key_frequencies.cpp)
//   training_curve             memorisation-to-grokking ratio, weight norm   (kind_training_curve.cpp)
//   progress_order             restricted loss before the test-loss drop     (kind_progress_order.cpp)
#include <torch/types.h>

#include <vector>

#include "analysis/registry.h"
#include "run_config.h"
#include "train/checkpoint.h"

namespace cc::grokking {

void register_kinds(analysis::Registry& r);
void register_embedding(analysis::Registry& r);
void register_key_frequencies(analysis::Registry& r);
void register_training_curve(analysis::Registry& r);
void register_progress_order(analysis::Registry& r);

// This paper's run config of a checkpoint; cc::Error when the checkpoint is another task's.
RunConfig config_of(const train::Checkpoint& ck);
// Logits at '=' for every pair [p², p] (row a * p + b), float64, no autograd.
torch::Tensor grid_logits(const train::Checkpoint& ck);

// Key frequencies (assumptions.md, 7): those that are the best degree-2 frequency of the post-ReLU
// activations of at least `min_share` of the active MLP neurons. Writes active_neurons and
// key_frequencies into `details`.
std::vector<int64_t> key_frequencies(const train::Checkpoint& ck, int p, double min_share, nlohmann::json& details);
// The checkpoint's cross-entropy on the train or test pairs: of its logits (full), of their projection
// onto the constant and cos/sin(w_k(a+b)) of `keys` (restricted), of the logits less those cos/sin
// parts (excluded).
struct KeyFrequencyLosses {
  double full = 0, restricted = 0, excluded = 0;
  int64_t n = 0;  // pairs
};
KeyFrequencyLosses key_frequency_losses(const train::Checkpoint& ck, const std::vector<int64_t>& keys, bool on_train);

}  // namespace cc::grokking
