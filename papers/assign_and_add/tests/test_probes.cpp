// The §5.1 linear probe (probes.cpp): its written-out gradient trains as autograd's does, and it reads
// a linear code of the label and nothing from noise.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "papers/assign_and_add/module/probes.h"

using namespace cc;

namespace {

// The probe as it was written before its gradient was: cross_entropy's own backward.
double autograd_probe_accuracy(const torch::Tensor& X, const torch::Tensor& y, int classes, int steps) {
  const int64_t half = X.size(0) / 2;
  auto Xtr = X.slice(0, 0, half), Xte = X.slice(0, half), ytr = y.slice(0, 0, half), yte = y.slice(0, half);
  auto mu = Xtr.mean(0, true), sd = Xtr.std(0, true, true).clamp_min(1e-6);
  Xtr = (Xtr - mu) / sd;
  Xte = (Xte - mu) / sd;
  auto W = torch::zeros({X.size(1), classes}, torch::requires_grad());
  auto b = torch::zeros({classes}, torch::requires_grad());
  torch::optim::Adam opt({W, b}, torch::optim::AdamOptions(0.05));
  for (int s = 0; s < steps; ++s) {
    auto loss = torch::nn::functional::cross_entropy(Xtr.matmul(W) + b, ytr);
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  torch::NoGradGuard no_grad;
  return (Xte.matmul(W) + b).argmax(-1).eq(yte).to(torch::kDouble).mean().item<double>();
}

struct Data {
  torch::Tensor X, y_linear, y_noise;
};

// 2000 points in 32 dimensions, 9 classes: a label that is the argmax of a noisy linear map of the
// point, and one drawn apart from it.
Data synthetic() {
  auto gen = at::detail::createCPUGenerator(11);
  Data d;
  d.X = torch::randn({2000, 32}, gen);
  const auto map = torch::randn({32, 9}, gen);
  d.y_linear = (d.X.matmul(map) + 0.5 * torch::randn({2000, 9}, gen)).argmax(1);
  d.y_noise = torch::randint(0, 9, {2000}, gen);
  return d;
}

}  // namespace

TEST(LinearProbe, TrainsAsAutogradsGradientDoes) {
  const Data d = synthetic();
  for (int steps : {1, 20, 200}) {
    const double ours = assign_and_add::probe_accuracy(d.X, d.y_linear, 9, steps);
    const double reference = autograd_probe_accuracy(d.X, d.y_linear, 9, steps);
    EXPECT_NEAR(ours, reference, 2.0 / 1000) << steps << " steps";  // float rounding: a prediction or two
  }
}

TEST(LinearProbe, ReadsALinearCodeAndNotNoise) {
  const Data d = synthetic();
  EXPECT_GE(assign_and_add::probe_accuracy(d.X, d.y_linear, 9, 200), 0.8);
  EXPECT_LE(assign_and_add::probe_accuracy(d.X, d.y_noise, 9, 200), 1.0 / 9 + 0.05);
}
