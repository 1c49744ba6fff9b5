// embedding_fourier_share: how sparse the embedding of the numbers is in the Fourier basis over Z_p
// (Nanda et al. 2023, §4.1). W_E's number rows [p, d_model] are projected onto cos(2πki/p) and
// sin(2πki/p), k = 1..(p-1)/2 (unit vectors); a frequency's energy is the squared norm of both
// projections summed over d_model. The value is the share of the total (the constant left out) held
// by the `top` largest; details list every frequency's share, largest first.
#include <torch/torch.h>

#include <cmath>

#include "papers/nanda_grokking/module/kinds.h"

namespace cc::nanda_grokking {
namespace {

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
  p["top"] = r.integer_in("top", 6, 1, 500);
  r.finish();
  return p;
}

analysis::Measurement measure(const analysis::MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const TaskConfig task = task_of(in.checkpoint);
  const int64_t p = task.modulus, top = in.params["top"].get<int64_t>();
  const auto W = in.checkpoint.model->W_E().detach().to(torch::kCPU, torch::kDouble).slice(0, 0, p);  // [p, d]
  const auto energy = frequency_energy(W);
  const auto sorted = std::get<0>(energy.sort(0, /*descending=*/true));
  const double total = energy.sum().item<double>();
  analysis::Measurement m;
  m.n = energy.numel();
  m.value = sorted.slice(0, 0, std::min<int64_t>(top, energy.numel())).sum().item<double>() / total;
  const auto order = std::get<1>(energy.sort(0, true));
  nlohmann::json ranked = nlohmann::json::array();
  for (int64_t j = 0; j < order.numel(); ++j) {
    const int64_t k = order[j].item<int64_t>();
    ranked.push_back({{"k", k + 1}, {"share", energy[k].item<double>() / total}});
  }
  m.details["frequencies_by_share"] = ranked;
  return m;
}

}  // namespace

void register_embedding(analysis::Registry& r) {
  analysis::MeasurementKind k("embedding_fourier_share", analysis::Statistic::Scalar, measure,
                              "share of W_E's number rows' energy in its `top` largest Fourier frequencies");
  k.parse_params = parse;
  k.params_doc = "top: how many of the (p-1)/2 frequencies (default 6)";
  r.add(std::move(k));
}

}  // namespace cc::nanda_grokking
