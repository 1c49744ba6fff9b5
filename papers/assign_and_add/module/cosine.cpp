// Cosine similarities of the pre-MLP residual at '=' (blocks.1.hook_resid_mid, §5.1, Fig 5).
//   residual_cosine, target ov_sum   : cos(resid_mid, OV_2(E_x) + OV_2(E_y)) of the resolved
//                                      operands, vs the same with another sequence's operands (M4)
//   residual_cosine, target zero_var_twin: cos(resid_mid of a variable sequence, resid_mid of a
//                                      0-var sequence with the same operands), vs a 0-var sequence
//                                      with other operands (M5, Fig 5a)
//   metric matched: mean matched cosine; margin: mean (matched - baseline), paired per sequence.
// The baseline partner of sequence i is sequence i+1 (a fixed, seeded, independent draw).
#include <torch/torch.h>

#include "analysis/common.h"
#include "papers/assign_and_add/module/examples.h"
#include "papers/assign_and_add/module/task_family.h"
#include "papers/assign_and_add/module/module.h"

namespace cc::assign_and_add {
using namespace cc::analysis;  // the engine's measurement vocabulary (Registry, Measurement, ...)
namespace {

nlohmann::json parse(ObjectReader r, const char* metric) {
  nlohmann::json p;
  p["target"] = r.one_of("target", {"ov_sum", "zero_var_twin"}, "ov_sum");
  p["sets"] = read_sets(r, p["target"] == "ov_sum" ? std::vector<std::string>{"test_0", "test_1", "test_2"}
                                                   : std::vector<std::string>{"test_1", "test_2"});
  p["size"] = read_size(r, 2000);
  p["eval_seed"] = read_eval_seed(r);
  p["metric"] = metric;
  r.finish();
  return p;
}

const std::string kResidMid = "blocks.1.hook_resid_mid";
const HookRead kResidMidAtEquals{kResidMid, task::kEqualsPos};

// resid_mid at '=' for each example: [n, D].
torch::Tensor resid_mid_at_equals(const Activations& acts) {
  std::vector<torch::Tensor> parts;
  acts.for_each([&](const model::ActivationCache& c, size_t, size_t) {
    parts.push_back(c[kResidMidAtEquals.key()].to(torch::kCPU));
  });
  return torch::cat(parts, 0);
}

Measurement measure(const MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const auto& p = in.params;
  const auto& m = *in.checkpoint.model;
  const auto sets = p["sets"].get<std::vector<std::string>>();
  const auto acts = activations(in.activations, in.checkpoint, sets, p["size"].get<int>(),
                                p["eval_seed"].get<uint64_t>(), {kResidMidAtEquals});
  const auto ex = sample_examples(in.checkpoint, sets, p["size"].get<int>(), p["eval_seed"].get<uint64_t>());
  const int64_t n = static_cast<int64_t>(ex.size());
  auto resid = resid_mid_at_equals(acts);  // [n, D]
  torch::Tensor target;                    // [n, D]: what each residual should match
  if (p["target"] == "ov_sum") {
    const int N = assign_and_add::task_config(in.checkpoint.config).modulus;
    auto ov = ov_apply(m, 1, m.W_E().detach().cpu().slice(0, 0, N));  // OV_2(E_a), [N, D]
    auto xs = torch::empty({n}, torch::kLong), ys = torch::empty({n}, torch::kLong);
    for (int64_t i = 0; i < n; ++i) {
      xs[i] = ex[static_cast<size_t>(i)].x;
      ys[i] = ex[static_cast<size_t>(i)].y;
    }
    target = ov.index_select(0, xs) + ov.index_select(0, ys);
  } else {
    task::Sampler sampler(assign_and_add::task_config(in.checkpoint.config));
    task::Rng rng(p["eval_seed"].get<uint64_t>(), task::stream_id("zero_var_twin"), 0);
    std::vector<task::Example> twins;
    for (const auto& e : ex) twins.push_back(sampler.sample_with_pair(rng, 0, task::PositionRule::Any, e.x, e.y));
    // The twins are this kind's own sequences: run here, not kept in the store.
    std::vector<torch::Tensor> parts;
    for_each_recorded(m, assign_and_add::tokens_tensor(twins), {kResidMidAtEquals},
                      [&](const model::ActivationCache& c, size_t, size_t) {
                        parts.push_back(c[kResidMidAtEquals.key()].to(torch::kCPU));
                      });
    target = torch::cat(parts, 0);
  }
  auto cos = [](const torch::Tensor& a, const torch::Tensor& b) { return torch::cosine_similarity(a, b, 1, 1e-12); };
  auto matched = cos(resid, target).to(torch::kDouble);
  auto baseline = cos(resid, target.roll(-1, 0)).to(torch::kDouble);  // partner: the next sequence's target
  auto values = p["metric"] == "matched" ? matched : matched - baseline;
  Measurement out = mean_measurement(std::vector<double>(values.data_ptr<double>(), values.data_ptr<double>() + n));
  out.details["matched_mean"] = matched.mean().item<double>();
  out.details["baseline_mean"] = baseline.mean().item<double>();
  out.details["margin_mean"] = (matched - baseline).mean().item<double>();
  out.details["unthresholded"] = {{"matched cosine", out.details["matched_mean"]},
                                  {"baseline cosine", out.details["baseline_mean"]}};
  // Figure 5: the two distributions of cosines (rounded to 4 digits: the picture needs no more).
  auto rounded = [](const torch::Tensor& t) {
    nlohmann::json v = nlohmann::json::array();
    const auto a = t.accessor<double, 1>();
    for (int64_t i = 0; i < t.size(0); ++i) v.push_back(std::round(a[i] * 1e4) / 1e4);
    return v;
  };
  const std::string what = p["target"] == "ov_sum" ? "OV_2(E_x) + OV_2(E_y)" : "the 0-var twin's residual";
  out.details["figures"] =
      nlohmann::json::array({{{"id", "cosines"},
                              {"paper_figure", "Figure 5"},
                              {"type", "histogram"},
                              {"bins", 50},
                              {"title", "cos(resid_mid at '=', " + what + "): matched vs mismatched operands"},
                              {"xlabel", "cosine similarity"},
                              {"ylabel", "fraction of sequences"},
                              {"series",
                               {{{"name", "matched"}, {"values", rounded(matched)}},
                                {{"name", "mismatched (next sequence's)"}, {"values", rounded(baseline)}}}}}});
  return out;
}

}  // namespace

void register_cosine(Registry& r) {
  const std::string doc =
      "target: ov_sum | zero_var_twin\nsets: evaluation sets (ov_sum: test_0..2; zero_var_twin: test_1, test_2)\n"
      "size: sequences per set (default 2000)\neval_seed: default the paper's analysis_seed (20260531)";
  add_modes(r, measure, parse, doc, {kResidMidAtEquals},
            {{"residual_cosine", Statistic::Scalar, "matched",
              "mean cosine of resid_mid at '=' with its matched target (OV_2 sum, or the 0-var twin)"},
             {"residual_cosine_margin", Statistic::Scalar, "margin",
              "mean of (matched cosine - cosine with another sequence's target), paired"}});
}

}  // namespace cc::assign_and_add
