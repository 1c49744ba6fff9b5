// Linear probes for the answer (§5.1): a multinomial logistic regression on an activation at '='
// (features standardised on the training split), trained full-batch with Adam from zero weights
// (deterministic), scored on a disjoint held-out split.
//   linear_probe_pre_post: the paper's contrast as one number,
//     min(pre_max - acc(blocks.1.hook_resid_mid), acc(blocks.1.hook_resid_post) - post_min)
//   which is >= 0 exactly when the pre-MLP probe fails (<= pre_max) and the post-MLP probe
//   succeeds (>= post_min). On an untrained model both probes fail, so the value is negative:
//   the claim has a real negative control, which "the pre-MLP probe fails" alone would not.
#include <torch/torch.h>

#include "analysis/activation_store.h"
#include "analysis/common.h"
#include "papers/assign_and_add/module/examples.h"
#include "papers/assign_and_add/module/module.h"
#include "papers/assign_and_add/module/probes.h"
#include "papers/assign_and_add/module/task_family.h"

namespace cc::assign_and_add {
using namespace cc::analysis;  // the engine's measurement vocabulary (Registry, Measurement, ...)

// The mean cross-entropy's gradient is written out, ∂loss/∂logits = (softmax(X W + b) - onehot(y)) / n,
// rather than taken by autograd: the same Adam steps (PyTorch's, lr 0.05) with no graph and one softmax
// a step, about 40 % less time; the two matrix products are what is left.
double probe_accuracy(const torch::Tensor& X, const torch::Tensor& y, int classes, int steps) {
  const int64_t half = X.size(0) / 2;
  auto Xtr = X.slice(0, 0, half), Xte = X.slice(0, half), ytr = y.slice(0, 0, half), yte = y.slice(0, half);
  auto mu = Xtr.mean(0, true), sd = Xtr.std(0, true, true).clamp_min(1e-6);
  Xtr = (Xtr - mu) / sd;  // [n, D]
  Xte = (Xte - mu) / sd;
  torch::NoGradGuard no_grad;
  const auto XtrT = Xtr.t().contiguous();                                                       // [D, n]
  const auto target = torch::zeros({half, classes}).scatter_(1, ytr.unsqueeze(1), 1.0 / half);  // onehot / n
  auto W = torch::zeros({X.size(1), classes}, torch::requires_grad());
  auto b = torch::zeros({classes}, torch::requires_grad());
  W.mutable_grad() = torch::zeros_like(W);
  b.mutable_grad() = torch::zeros_like(b);
  torch::optim::Adam opt({W, b}, torch::optim::AdamOptions(0.05));
  for (int s = 0; s < steps; ++s) {
    const auto g = torch::addmm(b, Xtr, W).softmax(1).div_(half).sub_(target);  // ∂loss/∂logits [n, classes]
    torch::mm_out(W.mutable_grad(), XtrT, g);
    torch::sum_out(b.mutable_grad(), g, {0});
    opt.step();
  }
  return (Xte.matmul(W) + b).argmax(-1).eq(yte).to(torch::kDouble).mean().item<double>();
}

namespace {

const HookRead kResidMidAtEquals{"blocks.1.hook_resid_mid", task::kEqualsPos};
const HookRead kResidPostAtEquals{"blocks.1.hook_resid_post", task::kEqualsPos};

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
  p["sets"] = read_sets(r, {"test_0", "test_1", "test_2"});
  p["size"] = read_size(r, 2000);
  p["eval_seed"] = read_eval_seed(r);
  p["pre_max"] = r.number("pre_max", 0.25);
  p["post_min"] = r.number("post_min", 0.95);
  const int64_t steps = r.integer("steps", 500);
  if (steps < 1 || steps > 100000) r.fail("steps", "must be in [1, 100000]");
  p["steps"] = steps;
  r.finish();
  return p;
}

// The two probes' held-out accuracies (pre, post) and the held-out count: they depend on the sets, size,
// eval_seed and steps, not on pre_max or post_min, so the readings of those constants (`sensitivity:`)
// and any claim asking the same share one computation through the store.
struct ProbeAccuracies {
  double pre = 0, post = 0;
  int64_t held_out = 0;
};

ProbeAccuracies probe_accuracies(const MeasureInput& in) {
  const auto& p = in.params;
  const auto sets = p["sets"].get<std::vector<std::string>>();
  const auto acts = activations(in.activations, in.checkpoint, sets, p["size"].get<int>(),
                                p["eval_seed"].get<uint64_t>(), {kResidMidAtEquals, kResidPostAtEquals});
  const auto ex = sample_examples(in.checkpoint, sets, p["size"].get<int>(), p["eval_seed"].get<uint64_t>());
  std::vector<torch::Tensor> pre, post;
  acts.for_each([&](const model::ActivationCache& c, size_t, size_t) {
    pre.push_back(c[kResidMidAtEquals.key()].to(torch::kCPU));
    post.push_back(c[kResidPostAtEquals.key()].to(torch::kCPU));
  });
  // Interleave the sets before splitting, so both halves hold every var-count.
  auto perm = torch::randperm(static_cast<int64_t>(ex.size()),
                              at::detail::createCPUGenerator(p["eval_seed"].get<uint64_t>()), torch::kLong);
  auto y = torch::empty({static_cast<int64_t>(ex.size())}, torch::kLong);
  for (size_t i = 0; i < ex.size(); ++i) y[static_cast<int64_t>(i)] = ex[i].target;
  const int classes = assign_and_add::task_config(in.checkpoint.config).modulus;
  const int steps = p["steps"].get<int>();
  const std::vector<torch::Tensor> features = {torch::cat(pre), torch::cat(post)};
  std::vector<double> accuracy(features.size());
  parallel_for(in.activations, features.size(), [&](size_t k) {  // the two probes at once
    accuracy[k] = probe_accuracy(features[k].index_select(0, perm), y.index_select(0, perm), classes, steps);
  });
  return {accuracy[0], accuracy[1], static_cast<int64_t>(ex.size()) / 2};
}

Measurement measure(const MeasureInput& in) {
  const auto& p = in.params;
  const std::string name = "assign_and_add.linear_probes " + p["sets"].dump() + " size=" + p["size"].dump() +
                           " eval_seed=" + p["eval_seed"].dump() + " steps=" + p["steps"].dump();
  const auto probes = derived<ProbeAccuracies>(in.activations, in.checkpoint, name, [&] {
    return Derived<ProbeAccuracies>{probe_accuracies(in), sizeof(ProbeAccuracies)};
  });
  const double acc_pre = probes->pre, acc_post = probes->post;
  Measurement m;
  m.value = std::min(p["pre_max"].get<double>() - acc_pre, acc_post - p["post_min"].get<double>());
  m.n = probes->held_out;
  m.details = {{"probe_accuracy_resid_mid", acc_pre}, {"probe_accuracy_resid_post", acc_post}, {"held_out", m.n}};
  m.details["unthresholded"] = {{"probe accuracy on blocks.1.hook_resid_mid", acc_pre},
                                {"probe accuracy on blocks.1.hook_resid_post", acc_post}};
  return m;
}

}  // namespace

void register_probes(Registry& r) {
  MeasurementKind probe(
      "linear_probe_pre_post", Statistic::Scalar, measure,
      "min(pre_max - probe acc on resid_mid, probe acc on resid_post - post_min): >= 0 iff the answer is "
      "linearly decodable after the layer-2 MLP and not before");
  probe.parse_params = parse;
  probe.params_doc =
      "sets, size (per set, default 2000), eval_seed\npre_max (0.25), post_min (0.95)\nsteps: Adam steps (500)";
  probe.reads = {kResidMidAtEquals, kResidPostAtEquals};
  r.add(std::move(probe));
}

}  // namespace cc::assign_and_add
