#pragma once
// The attention kernels shared by the single model and the stacked ensemble.
#include <torch/types.h>

namespace cc::model {

// softmax(q k^T / sqrt(d_head)) v for every query, causally masked.
// q, k, v [B, T, H, E] -> scores, pattern [B, H, T, T]; z [B, T, H, E].
struct Attended {
  torch::Tensor scores, pattern, z;
};
Attended causal_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v);
// Its two halves, for a forward that edits the scores or the pattern between them (Transformer::with_edits):
// q, k [B, T, H, E] -> masked scores [B, H, T, T]; pattern [B, H, T, T], v [B, T, H, E] -> z [B, T, H, E].
// causal_attention is softmax between them: the same operations, so the same bits.
torch::Tensor causal_scores(const torch::Tensor& q, const torch::Tensor& k);
torch::Tensor attend(const torch::Tensor& pattern, const torch::Tensor& v);

// The query at position p alone, causally masked (keys after p: -inf scores, zero pattern), as
// causal_attention's row p up to float rounding: q [B, H, E], k, v [B, T, H, E] -> scores, pattern
// [B, H, T]; z [B, H, E].
Attended query_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, int64_t p);

// The last query only (it sees every position, so no mask): q [B, H, E], k, v [B, T, H, E]
// -> z [B, H, E].
torch::Tensor last_query_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v);

}  // namespace cc::model
