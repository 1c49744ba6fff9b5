#pragma once
// The measurement kinds only the grokking paper needs (analysis/registry.h), one small file each.
// The kinds it shares with "Assign and Add" are the engine's own: `accuracy` (on the sets "train" and
// "test", which this module's task family gives: family.cpp) and the Fourier fits of MLP neurons.
//   embedding_fourier_share    W_E's energy in its largest frequencies       (kind_embedding.cpp)
//   key_frequency_loss         restricted / excluded loss                    (kind_key_frequencies.cpp)
//   training_curve             memorisation-to-grokking ratio, weight norm   (kind_training_curve.cpp)
//   progress_order             restricted loss before the test-loss drop     (kind_progress_order.cpp)
//   neuron_key_frequency_share the paper's neuron statistic (§4.3)           (kind_neurons.cpp)
//   neuron_fit_accuracy        neurons replaced by their fits (§4.4)         (kind_neurons.cpp)
//   logit_cos_fve, wl_residual_share  the logits' and W_L's form (§4.2)      (kind_logits.cpp)
//   fourier_gini_rise          W_E's / W_L's Fourier sparsity in cleanup     (kind_fourier_gini.cpp)
#include <torch/types.h>

#include <memory>
#include <vector>

#include "analysis/activation_store.h"
#include "analysis/fourier_fit.h"
#include "analysis/registry.h"
#include "analysis/subspace.h"
#include "papers/nanda_grokking/module/run_config.h"
#include "train/checkpoint.h"

namespace cc::nanda_grokking {

void register_kinds(analysis::Registry& r);
void register_embedding(analysis::Registry& r);
void register_key_frequencies(analysis::Registry& r);
void register_training_curve(analysis::Registry& r);
void register_progress_order(analysis::Registry& r);
void register_neurons(analysis::Registry& r);
void register_logits(analysis::Registry& r);
void register_fourier_gini(analysis::Registry& r);

// The subspaces `key_frequencies` and `key_frequencies_with_mean` at hook_embed, for `op: project`
// (subspace_key_frequencies.cpp).
std::vector<analysis::Subspace> key_frequency_subspaces();

// The task of a checkpoint of this paper's runs; cc::Error when the checkpoint is another paper's.
TaskConfig task_of(const train::Checkpoint& ck);

// The quantities below are read by several claims of the same checkpoint (the key frequencies by
// seven): with `store`, the verification's (MeasureInput::activations), each is computed once per
// checkpoint; nullptr computes it here (a checkpoint no other claim reads, a test).

// Logits at '=' for every pair [p², p] (row a * p + b), float64, no autograd.
torch::Tensor grid_logits(const train::Checkpoint& ck, analysis::ActivationStore* store);

// Key frequencies (assumptions.md, 7): those that are the best degree-2 frequency of the post-ReLU
// activations of at least `min_share` of the active MLP neurons, with what they were read from.
struct NeuronFrequencies {
  torch::Tensor active;   // indices of the active neurons (active on >= 1 % of the grid)
  analysis::GridFit fit;  // the active neurons' degree-2 single-frequency fits
  std::vector<int64_t> keys;
  // Writes active_neurons and key_frequencies into `details` (when some neuron is active).
  void describe(nlohmann::json& details) const;
};
std::shared_ptr<const NeuronFrequencies> neuron_frequencies(const train::Checkpoint& ck,
                                                            analysis::ActivationStore* store, double min_share);
// The key frequencies alone, described into `details`.
std::vector<int64_t> key_frequencies(const train::Checkpoint& ck, analysis::ActivationStore* store, double min_share,
                                     nlohmann::json& details);
// The `min_share` parameter of the kinds that pick key frequencies: in (0, 1], default 0.05.
double read_min_share(ObjectReader& r);
// The checkpoint's cross-entropy on the train or test pairs: of its logits (full), of their projection
// onto the constant and cos/sin(w_k(a+b)) of `keys` (restricted), of the logits less those cos/sin
// parts (excluded).
struct KeyFrequencyLosses {
  double full = 0, restricted = 0, excluded = 0;
  double full_accuracy = 0, excluded_accuracy = 0;
  int64_t n = 0;  // pairs
};
KeyFrequencyLosses key_frequency_losses(const train::Checkpoint& ck, analysis::ActivationStore* store,
                                        const std::vector<int64_t>& keys, bool on_train);

// The post-ReLU activations of the last MLP at '=' over the whole grid [p², d_mlp], float64.
torch::Tensor neuron_activations(const train::Checkpoint& ck, analysis::ActivationStore* store);
// The neuron-logit map W_L = (W_out W_U)^T [p, d_mlp], float64: how each neuron writes to each answer's
// logit (the skip path left out, as the paper does).
torch::Tensor neuron_logit_map(const train::Checkpoint& ck);
// Energy (squared norm, cos and sin together) of each frequency k = 1..(p-1)/2 along the rows of X [p, D]
// (index k - 1); the constant left out.
torch::Tensor frequency_energy(const torch::Tensor& X);

// The phases a claim reads off the run's metrics log. A log that ends at step 0 has none: the kinds
// that need them throw analysis::NotComputable (the untrained model is then no control of theirs).
void require_training(const analysis::RunHistory& h, const train::Checkpoint& ck);
// The run's metrics log as the engine's trainer writes it: {"step", "acc": {"train", "test"}, "loss":
// {"train", "test"}, "sum_squared_weights"} (the last from this family's extra metrics). The committed
// fixtures' logs were written by this module's own trainer before the engine's trained every paper,
// as {"step", "train_accuracy", "test_accuracy", "train_loss", "test_loss", "sum_squared_weights"}
// (the same quantities, losses in float64 over the whole split); they are read as the same records.
// cc::Error for a record that lacks a number at one of the JSON pointers `required` (e.g. "/acc/test").
std::vector<nlohmann::json> metrics_log(const analysis::RunHistory& h, const std::vector<std::string>& required);
// The first logged step with test accuracy >= level (analysis::first_reaching); -1 when there is none.
int64_t drop_step(const analysis::RunHistory& h, double level);
// The checkpoint judged "before the drop": the last step on the `every` grid before `drop`, or `last`
// when the run never reaches the level (cc::Error when `last` is then off the grid).
int64_t judged_step(int64_t drop, int64_t last, int64_t every, const std::string& where);

}  // namespace cc::nanda_grokking
