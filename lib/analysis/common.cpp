#include "analysis/common.h"

#include <boost/math/distributions/students_t.hpp>

#include <torch/torch.h>

#include <cmath>

#include "train/task_data.h"

namespace cc::analysis {

namespace {

// fn(rows [start, end) of tokens, start, end) chunk by chunk, without autograd.
void for_each_chunk(const torch::Tensor& tokens, int chunk,
                    const std::function<void(const torch::Tensor&, size_t, size_t)>& fn) {
  torch::NoGradGuard no_grad;
  const size_t rows = static_cast<size_t>(tokens.size(0));
  for (size_t start = 0; start < rows; start += static_cast<size_t>(chunk)) {
    const size_t end = std::min(rows, start + static_cast<size_t>(chunk));
    fn(tokens.slice(0, static_cast<int64_t>(start), static_cast<int64_t>(end)), start, end);
  }
}

}  // namespace

void for_each_cached(const model::Transformer& model, const torch::Tensor& tokens,
                     const std::function<void(const model::ActivationCache&, size_t, size_t)>& fn, int chunk) {
  for_each_chunk(tokens, chunk, [&](const torch::Tensor& rows, size_t start, size_t end) {
    model::ActivationCache cache;
    model.run_with_cache(rows, cache);
    fn(cache, start, end);
  });
}

void for_each_recorded(const model::Transformer& model, const torch::Tensor& tokens,
                       const std::set<model::HookRead>& reads,
                       const std::function<void(const model::ActivationCache&, size_t, size_t)>& fn, int chunk) {
  for_each_chunk(tokens, chunk, [&](const torch::Tensor& rows, size_t start, size_t end) {
    fn(model.record(rows, reads), start, end);
  });
}

torch::Tensor hook_at_last_position(const model::Transformer& model, const torch::Tensor& tokens,
                                    const std::string& hook) {
  const model::HookRead last{hook, static_cast<int>(tokens.size(1)) - 1};
  std::vector<torch::Tensor> parts;
  for_each_recorded(
      model, tokens, {last}, [&](const model::ActivationCache& c, size_t, size_t) { parts.push_back(c[last.key()]); },
      2000);
  return torch::cat(parts, 0);
}

Measurement mean_measurement(const std::vector<double>& values) {
  Measurement m;
  m.n = static_cast<int64_t>(values.size());
  if (values.empty()) return m;
  double s = 0, s2 = 0;
  for (double v : values) s += v;
  m.value = s / static_cast<double>(m.n);
  for (double v : values) s2 += (v - m.value) * (v - m.value);
  const double sd = m.n > 1 ? std::sqrt(s2 / static_cast<double>(m.n - 1)) : 0.0;
  const double half = 1.959963984540054 * sd / std::sqrt(static_cast<double>(m.n));
  m.ci_low = m.value - half;
  m.ci_high = m.value + half;
  m.details["sd"] = sd;
  return m;
}

double jackknife_se(const std::vector<double>& loo) {
  const double K = static_cast<double>(loo.size());
  double avg = 0, ss = 0;
  for (double v : loo) avg += v / K;
  for (double v : loo) ss += (v - avg) * (v - avg);
  return std::sqrt((K - 1) / K * ss);
}

double t_critical_95(int64_t df) {
  return boost::math::quantile(boost::math::students_t(static_cast<double>(df)), 0.975);
}

std::vector<std::string> read_sets(ObjectReader& r, const std::vector<std::string>& fallback) {
  auto sets = r.strings("sets", fallback);
  if (sets.empty()) r.fail("sets", "needs at least one evaluation set");
  for (const auto& s : sets)
    if (!train::is_known_eval_set(s)) r.fail("sets", "'" + s + "' is not an evaluation set");
  return sets;
}

std::string read_set(ObjectReader& r) {
  r.string("set");  // required: "missing required field 'set'" rather than one_of's "'' is not one of"
  return r.one_of("set", train::known_eval_set_names(), "");
}

// Sequences per set for the kinds that keep activations (attention, cosines, probes). A claim's own
// working set grows ~20 KB a sequence beyond the activation store (M5, two sets and their twins: 0.3 GB
// at 2000, 1.1 GB at 20000 with --activation-memory 0); the cap keeps it near 1 GB, ten times the
// committed claims' 2000.
constexpr int64_t kMaxActivationSetSize = 20000;

int read_size(ObjectReader& r, int fallback) {
  const int64_t size = r.integer("size", fallback);
  if (size < 1 || size > kMaxActivationSetSize)
    r.fail("size", "must be in [1, " + std::to_string(kMaxActivationSetSize) +
                       "] (each sequence's activations are kept while the claim is measured)");
  return static_cast<int>(size);
}

int64_t read_eval_seed(ObjectReader& r) {
  const nlohmann::json& inherited = r.doc().inherited;
  const int64_t fallback = inherited.contains("analysis_seed") ? inherited["analysis_seed"].get<int64_t>() : 0;
  return r.integer_in("eval_seed", fallback, 0, int64_t{1} << 62);
}

nlohmann::json matrix_json(const torch::Tensor& m) {
  const auto d = m.to(torch::kCPU, torch::kDouble).contiguous();
  const auto a = d.accessor<double, 2>();
  nlohmann::json rows = nlohmann::json::array();
  for (int64_t i = 0; i < d.size(0); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int64_t j = 0; j < d.size(1); ++j) row.push_back(a[i][j]);
    rows.push_back(row);
  }
  return rows;
}

torch::Tensor qk_matrix(const model::Transformer& m, int layer) {
  torch::NoGradGuard no_grad;
  auto q = m.W_Q(layer).cpu(), k = m.W_K(layer).cpu();
  return q.matmul(k.t()) / std::sqrt(static_cast<double>(q.size(1)));
}

torch::Tensor ov_apply(const model::Transformer& m, int layer, const torch::Tensor& x) {
  torch::NoGradGuard no_grad;
  return x.matmul(m.W_V(layer).cpu()).matmul(m.W_O(layer).cpu());
}

}  // namespace cc::analysis
