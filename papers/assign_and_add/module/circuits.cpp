// Weight-space circuit measurements (§5.1, §5.2; Figs 6, 7). Notation as the paper:
// OV_l(x) = x W_V^l W_O^l, QK_l = W_Q^l (W_K^l)^T / sqrt(d_head), E = W_E, P = W_pos.
//   isolated_circuit_accuracy  W_U · MLP_2(OV_2(E_a) + OV_2(E_b)) right on all N^2 pairs (M7)
//   equals_qk_operand_positions [E_= + P_15] QK_1 P_j^T: its top-2 over j <= 15 are {13, 14} (M1)
//   qk_previous_position        P QK_1 P^T: rows i = 2..11 whose max over j < i, j != i-2 is at i-1 (M9)
//   variable_qk_diagonal        (OV_1 E_var) QK_2 (OV_1 E_var)^T: rows whose max is the diagonal (M10)
#include <torch/torch.h>

#include <algorithm>

#include "analysis/common.h"
#include "papers/assign_and_add/module/task/config.h"
#include "papers/assign_and_add/module/module.h"
#include "papers/assign_and_add/module/task_family.h"

namespace cc::assign_and_add {
using namespace cc::analysis;  // the engine's measurement vocabulary (Registry, Measurement, ...)
namespace {

torch::Tensor cpu(const torch::Tensor& t) { return t.detach().to(torch::kCPU, torch::kFloat32); }

Measurement isolated_circuit(const MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const auto& m = *in.checkpoint.model;
  const int n = assign_and_add::task_config(in.checkpoint.config).modulus;
  auto ov = ov_apply(m, 1, cpu(m.W_E()).slice(0, 0, n));                           // [N, D]: OV_2(E_a)
  auto a = torch::arange(n).repeat_interleave(n), b = torch::arange(n).repeat(n);  // all ordered pairs
  auto h = ov.index_select(0, a) + ov.index_select(0, b);                          // [N^2, D]
  auto logits = m.mlp_activation(h.matmul(cpu(m.W_in()))).matmul(cpu(m.W_out())).matmul(cpu(m.W_U()));
  auto right = logits.argmax(-1) == (a + b).remainder(n);
  Measurement out;
  out.n = n * n;
  out.successes = right.sum().item<int64_t>();
  out.value = static_cast<double>(out.successes) / static_cast<double>(out.n);
  out.details["errors"] = out.n - out.successes;
  out.details["unthresholded"]["wrong pairs"] = out.n - out.successes;
  auto wrong = (~right).nonzero().flatten();
  for (int64_t i = 0; i < std::min<int64_t>(20, wrong.size(0)); ++i) {
    const int64_t k = wrong[i].item<int64_t>();
    out.details["first_errors"].push_back({k / n, k % n});
  }
  return out;
}

Measurement equals_qk(const MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const auto& m = *in.checkpoint.model;
  const task::Vocab vocab(assign_and_add::task_config(in.checkpoint.config));
  auto P = cpu(m.W_pos());
  auto q = cpu(m.W_E())[vocab.equals()] + P[task::kEqualsPos];  // [D]
  auto scores = q.matmul(qk_matrix(m, 0)).matmul(P.t());        // [T]
  auto top = std::get<1>(scores.topk(2));
  std::vector<int64_t> t = {top[0].item<int64_t>(), top[1].item<int64_t>()};
  std::sort(t.begin(), t.end());
  Measurement out;
  out.value = (t[0] == task::kFirstOperandPos && t[1] == task::kSecondOperandPos) ? 1.0 : 0.0;
  out.n = 1;
  out.details["top2"] = t;
  out.details["scores"] = std::vector<float>(scores.data_ptr<float>(), scores.data_ptr<float>() + scores.numel());
  return out;
}

Measurement previous_position(const MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const auto& m = *in.checkpoint.model;
  auto P = cpu(m.W_pos());
  auto S = P.matmul(qk_matrix(m, 0)).matmul(P.t()).contiguous();  // [T, T]
  auto a = S.accessor<float, 2>();
  int hits = 0, rows = 0;
  for (int i = 2; i < task::kAssignSlots; ++i) {
    int best = -1;
    for (int j = 0; j < i; ++j)
      if (j != i - 2 && (best < 0 || a[i][j] > a[i][best])) best = j;
    hits += best == i - 1;
    ++rows;
  }
  Measurement out;
  out.value = static_cast<double>(hits) / rows;
  out.n = rows;
  out.details["rows_with_max_at_i_minus_1"] = hits;
  out.details["matrix"] = std::vector<float>(S.data_ptr<float>(), S.data_ptr<float>() + S.numel());
  // Figure 6: the causal part of P QK_1 P^T (keys after the query are masked).
  auto shown = S.to(torch::kDouble).masked_fill(torch::ones_like(S, torch::kBool).triu(1), std::nan(""));
  out.details["figures"] = nlohmann::json::array({{{"id", "positional_qk1"},
                                                   {"paper_figure", "Figure 6"},
                                                   {"type", "heatmap"},
                                                   {"title", "P QK_1 P^T: positional query-key scores of layer 1"},
                                                   {"xlabel", "key position"},
                                                   {"ylabel", "query position"},
                                                   {"cblabel", "score"},
                                                   {"matrix", matrix_json(shown)}}});
  return out;
}

Measurement variable_diagonal(const MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const auto& m = *in.checkpoint.model;
  const task::Vocab vocab(assign_and_add::task_config(in.checkpoint.config));
  auto V = ov_apply(m, 0, cpu(m.W_E()).slice(0, vocab.variable(0), vocab.variable(0) + vocab.v));  // OV_1(E_var) [V, D]
  auto S = V.matmul(qk_matrix(m, 1)).matmul(V.t()).contiguous();                                   // [V, V]
  auto a = S.accessor<float, 2>();
  int hits = 0;
  double min_margin = 1e30;
  for (int i = 0; i < vocab.v; ++i) {
    float off = -1e30f;
    for (int j = 0; j < vocab.v; ++j)
      if (j != i) off = std::max(off, a[i][j]);
    hits += a[i][i] > off;
    min_margin = std::min(min_margin, static_cast<double>(a[i][i] - off));
  }
  Measurement out;
  out.value = static_cast<double>(hits) / vocab.v;
  out.n = vocab.v;
  out.details["min_diagonal_margin"] = min_margin;
  out.details["unthresholded"]["min diagonal margin over the row's best off-diagonal"] = min_margin;
  out.details["matrix"] = std::vector<float>(S.data_ptr<float>(), S.data_ptr<float>() + S.numel());
  nlohmann::json names = nlohmann::json::array();
  for (int i = 0; i < vocab.v; ++i) names.push_back(vocab.name(vocab.variable(i)));
  out.details["figures"] =
      nlohmann::json::array({{{"id", "variable_qk2"},
                              {"paper_figure", "Figure 7b"},
                              {"type", "heatmap"},
                              {"title", "layer-2 QK scores between remapped variables OV_1(E_var)"},
                              {"xlabel", "key variable"},
                              {"ylabel", "query variable"},
                              {"cblabel", "score"},
                              {"xtics", names},
                              {"ytics", names},
                              {"matrix", matrix_json(S)}}});
  return out;
}

}  // namespace

void register_circuits(Registry& r) {
  // The four read the weights alone and take no parameters, so a row says all that differs.
  struct WeightKind {
    const char* name;
    Statistic statistic;
    Measurement (*measure)(const MeasureInput&);
    const char* description;
  };
  const WeightKind rows[] = {
      {"isolated_circuit_accuracy", Statistic::Proportion, isolated_circuit,
       "accuracy of W_U·MLP_2(OV_2(E_a)+OV_2(E_b)) over all N^2 ordered pairs (no residual)"},
      {"equals_qk_operand_positions", Statistic::Scalar, equals_qk,
       "1 if the top-2 of [E_= + P_15] QK_1 P_j^T over j <= 15 are {13, 14}, else 0"},
      {"qk_previous_position", Statistic::Scalar, previous_position,
       "fraction of rows i = 2..11 of P QK_1 P^T whose max over j < i, j != i-2 is at i-1"},
      {"variable_qk_diagonal", Statistic::Scalar, variable_diagonal,
       "fraction of the 12 rows of (OV_1 E_var) QK_2 (OV_1 E_var)^T whose max is the diagonal"},
  };
  for (const WeightKind& row : rows) {
    MeasurementKind k(row.name, row.statistic, row.measure, row.description);
    r.add(std::move(k));
  }
}

}  // namespace cc::assign_and_add
