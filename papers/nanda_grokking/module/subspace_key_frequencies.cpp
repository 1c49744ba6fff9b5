// The subspaces `key_frequencies` and `key_frequencies_with_mean` (analysis/subspace.h) at hook_embed:
// the directions of the embedding space in which W_E carries the key frequencies (and its mean). W_E's row for token x
// (x < p) written over x in the Fourier basis, W_E[x] = c_0 + sum_f (a_f cos(w_f x) + b_f sin(w_f x)), has a_f = (2/p)
// sum_x cos(w_f x) W_E[x] and b_f likewise with sin: the subspace is the span of a_k and b_k over the key frequencies k
// (those of the neurons, min_share 0.05, as N7a/N7b read them). Projected off at the positions of a and
// b, the embedding keeps everything but the key frequencies' directions (and whatever of other
// frequencies lies in them); projected onto, only those directions. `key_frequencies_with_mean` adds
// c_0, the mean of W_E's rows over the p numbers: the constant term N7a's restricted logits keep too.
#include <cmath>
#include <vector>

#include "papers/nanda_grokking/module/kinds.h"

namespace cc::nanda_grokking {

namespace {

// [rows, d]: a_k and b_k (unnormalised: subspace_basis orthonormalises) for each key frequency k, then
// c_0 when `with_mean`. Summed in token order, in double: the same bits on every CPU.
torch::Tensor fourier_directions(const train::Checkpoint& ck, analysis::ActivationStore* store, bool with_mean) {
  constexpr double kMinShare = 0.05;  // N7a/N7b's default (kind_key_frequencies.cpp)
  const auto keys = neuron_frequencies(ck, store, kMinShare)->keys;
  const int p = task_of(ck).modulus;
  const auto W_E = ck.model->W_E().detach().to(torch::kCPU, torch::kDouble).contiguous();  // [p + 1, d]
  const int64_t d = W_E.size(1), n = 2 * static_cast<int64_t>(keys.size());
  auto w = W_E.accessor<double, 2>();
  auto out = torch::zeros({n + (with_mean ? 1 : 0), d}, torch::kDouble);
  auto o = out.accessor<double, 2>();
  for (size_t i = 0; i < keys.size(); ++i) {
    const double omega = 2.0 * M_PI * static_cast<double>(keys[i]) / p;
    const int64_t row = 2 * static_cast<int64_t>(i);
    for (int x = 0; x < p; ++x)
      for (int64_t j = 0; j < d; ++j) {
        o[row][j] += std::cos(omega * x) * w[x][j];
        o[row + 1][j] += std::sin(omega * x) * w[x][j];
      }
  }
  if (with_mean)
    for (int x = 0; x < p; ++x)
      for (int64_t j = 0; j < d; ++j) o[n][j] += w[x][j] / p;
  return out;
}

}  // namespace

std::vector<analysis::Subspace> key_frequency_subspaces() {
  analysis::Subspace keys;
  keys.name = "key_frequencies";
  keys.description =
      "the embedding's directions of the key frequencies: the span of sum_x cos/sin(w_k x) W_E[x] over the "
      "neurons' key frequencies k (min_share 0.05)";
  keys.hooks = {"hook_embed"};
  keys.directions = [](const train::Checkpoint& ck, analysis::ActivationStore* store) {
    return fourier_directions(ck, store, false);
  };
  analysis::Subspace with_mean = keys;
  with_mean.name = "key_frequencies_with_mean";
  with_mean.description = "key_frequencies and the mean of W_E's rows over the p numbers (N7a's constant term)";
  with_mean.directions = [](const train::Checkpoint& ck, analysis::ActivationStore* store) {
    return fourier_directions(ck, store, true);
  };
  return {keys, with_mean};
}

}  // namespace cc::nanda_grokking
