#include "model/attention.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>

namespace cc::model {

// softmax(q k^T / sqrt(d_head)) v for every query, causally masked.
// q, k, v [B, T, H, E] -> scores, pattern [B, H, T, T]; z [B, T, H, E].
torch::Tensor causal_scores(const torch::Tensor& q, const torch::Tensor& k) {
  const int64_t T = q.size(1);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(3)));
  auto scores = q.transpose(1, 2).matmul(k.permute({0, 2, 3, 1})) * scale;
  auto future = torch::ones({T, T}, torch::TensorOptions().dtype(torch::kBool).device(q.device())).triu(1);
  return scores.masked_fill(future, -std::numeric_limits<float>::infinity());
}

torch::Tensor attend(const torch::Tensor& pattern, const torch::Tensor& v) {
  return pattern.matmul(v.transpose(1, 2)).transpose(1, 2);
}

Attended causal_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) {
  auto scores = causal_scores(q, k);
  auto pattern = torch::softmax(scores, -1);
  return {scores, pattern, attend(pattern, v)};
}

// One query's row: the broadcast multiply-and-sum of last_query_attention below, masked after p.
Attended query_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, int64_t p) {
  const int64_t T = k.size(1);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(2)));
  auto scores = ((k * q.unsqueeze(1)).sum(-1) * scale).transpose(1, 2);  // [B, H, T]
  auto future = torch::arange(T, torch::TensorOptions().dtype(torch::kLong).device(q.device())) > p;
  scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity()).contiguous();
  auto pattern = torch::softmax(scores, -1);
  return {scores, pattern, (pattern.transpose(1, 2).unsqueeze(-1) * v).sum(1)};  // z [B, H, E]
}

// The same for the last query only (it sees every position, so no mask). q [B, H, E],
// k, v [B, T, H, E] -> z [B, H, E]. A broadcast multiply-and-sum: on CPU a bmm over B tiny
// matrices costs far more in per-matrix overhead than this does in arithmetic.
torch::Tensor last_query_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(2)));
  auto scores = (k * q.unsqueeze(1)).sum(-1) * scale;  // [B, T, H]
  auto pattern = torch::softmax(scores, 1);
  return (pattern.unsqueeze(-1) * v).sum(1);  // [B, H, E]
}

}  // namespace cc::model
