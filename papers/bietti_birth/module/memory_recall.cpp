#include "papers/bietti_birth/module/memory_recall.h"

#include <torch/torch.h>

#include "analysis/common.h"
#include "util/error.h"

namespace cc::bietti_birth {
namespace {

// The share of rows i of `scores` [n, m] whose argmax is `expected[i]`.
double recall(const torch::Tensor& scores, const torch::Tensor& expected) {
  return (scores.argmax(-1) == expected).to(torch::kDouble).mean().item<double>();
}

}  // namespace

MemoryRecall memory_recall(const model::Transformer& m, const std::vector<int>& triggers) {
  const auto& c = m.config();
  if (c.n_layers < 2 || c.n_heads != 1) throw Error("memory recall: needs two blocks of one head each");
  torch::NoGradGuard no_grad;
  const auto E = m.W_E().to(torch::kCPU), P = m.W_pos().to(torch::kCPU),
             U = m.W_U().to(torch::kCPU);  // [N, d] [T, d] [d, N]
  auto W = [&](torch::Tensor w) { return w.to(torch::kCPU); };
  MemoryRecall r;
  const int64_t N = E.size(0), T = P.size(0);
  r.W_O2 = recall(analysis::ov_apply(m, 1, E).matmul(U), torch::arange(N));  // [N, N]
  const auto q_ids = torch::tensor(std::vector<int64_t>(triggers.begin(), triggers.end()));
  const auto Eq = E.index_select(0, q_ids);                                                 // [K, d]
  const auto keys2 = analysis::ov_apply(m, 0, Eq).matmul(W(m.W_K(1)));                      // [K, d_head]
  r.W_K2 = recall(Eq.matmul(W(m.W_Q(1))).matmul(keys2.t()), torch::arange(q_ids.size(0)));  // [K, K]
  r.W_K1 = w_k1_recall(m, T);
  return r;
}

double w_k1_recall(const model::Transformer& m, int64_t positions) {
  torch::NoGradGuard no_grad;
  const auto P = m.W_pos().to(torch::kCPU).slice(0, 0, positions);                  // [T', d]
  const auto queries = P.slice(0, 1, positions).matmul(m.W_Q(0).to(torch::kCPU));   // [T'-1, d_head]
  const auto keys = P.slice(0, 0, positions - 1).matmul(m.W_K(0).to(torch::kCPU));  // [T'-1, d_head]
  return recall(queries.matmul(keys.t()), torch::arange(positions - 1));            // row t-1 is t's query
}

nlohmann::json memory_recall_metrics(const model::Transformer& m, const std::vector<int>& triggers) {
  if (m.config().n_layers < 2 || m.config().n_heads != 1) return nlohmann::json::object();
  const MemoryRecall r = memory_recall(m, triggers);
  return {{"memory_recall", {{"W_O2", r.W_O2}, {"W_K2", r.W_K2}, {"W_K1", r.W_K1}}}};
}

}  // namespace cc::bietti_birth
