// fourier_gini_rise: W_E and W_L become sparse in the Fourier basis during cleanup (Nanda et al. 2023,
// §5.2; assumptions.md, 16). For W_E's p number rows (over the token axis) or W_L = (W_out W_U)^T (over
// the answer axis), the norm of each frequency k = 1..(p-1)/2 (cos and sin together, the constant left
// out); the Gini coefficient of those norms. The value is its rise from the judged checkpoint of
// progress_order (the last one on the `every` grid before test accuracy reaches `level`; the subject's
// step when it never does) to the subject checkpoint. A history that ends at step 0 has no phases:
// analysis::NotComputable.
#include <torch/torch.h>

#include "papers/nanda_grokking/module/kinds.h"

namespace cc::nanda_grokking {
namespace {

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
  p["matrix"] = r.one_of("matrix", {"W_E", "W_L"}, "W_E");
  p["level"] = r.number("level", 0.5);
  if (!(p["level"].get<double>() > 0 && p["level"].get<double>() <= 1)) r.fail("level", "must be in (0, 1]");
  p["every"] = r.integer_in("every", 2000, 1, 1000000);
  r.finish();
  return p;
}

// Gini coefficient of non-negative values: 0 when all are equal, towards 1 when one holds everything.
double gini(torch::Tensor x) {
  x = std::get<0>(x.flatten().sort());
  const int64_t n = x.numel();
  const double total = x.sum().item<double>();
  if (n == 0 || total <= 0) return 0;
  const auto rank = torch::arange(1, n + 1, torch::kDouble);
  return ((2 * rank - n - 1) * x).sum().item<double>() / (static_cast<double>(n) * total);
}

double fourier_gini(const train::Checkpoint& ck, const std::string& matrix) {
  torch::NoGradGuard no_grad;
  const int64_t p = task_of(ck).modulus;
  const auto X = matrix == "W_E" ? ck.model->W_E().detach().to(torch::kCPU, torch::kDouble).slice(0, 0, p)  // [p, d]
                                 : neuron_logit_map(ck);  // [p, d_mlp]
  return gini(frequency_energy(X).sqrt());
}

analysis::Measurement measure(const analysis::MeasureInput& in) {
  task_of(in.checkpoint);  // this paper's run
  require_training(*in.history, in.checkpoint);
  const std::string matrix = in.params["matrix"];
  const int64_t drop = drop_step(*in.history, in.params["level"].get<double>());
  const int64_t judged = judged_step(drop, in.checkpoint.step, in.params["every"].get<int64_t>(),
                                     in.checkpoint.path + ": fourier_gini_rise");
  const double at_end = fourier_gini(in.checkpoint, matrix);
  const double before =
      judged == in.checkpoint.step ? at_end : fourier_gini(*in.history->checkpoint_at(judged), matrix);
  analysis::Measurement m;
  m.n = (task_of(in.checkpoint).modulus - 1) / 2;
  m.value = at_end - before;
  m.details["drop_step"] = drop;
  m.details["judged_step"] = judged;
  m.details["unthresholded"] = {{"Gini before the drop", before}, {"Gini at the end", at_end}};
  return m;
}

}  // namespace

void register_fourier_gini(analysis::Registry& r) {
  analysis::MeasurementKind k("fourier_gini_rise", analysis::Statistic::Scalar, measure,
                              "rise of the Gini coefficient of W_E's or W_L's Fourier-frequency norms from the last "
                              "checkpoint before test accuracy reaches `level` to the subject");
  k.parse_params = parse;
  k.params_doc =
      "matrix: W_E | W_L (W_E)\n"
      "level: the test accuracy that marks the drop (0.5)\n"
      "every: the checkpoint grid, in steps (2000)";
  k.needs_history = true;
  r.add(std::move(k));
}

}  // namespace cc::nanda_grokking
