// GPU path: the same training step on CUDA matches the CPU within float tolerance, and repeats
// bitwise with deterministic kernels. Skips (ctest: "skipped") when libtorch has no usable CUDA device.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>

#include "train/run_config.h"
#include "train/runtime.h"
#include "train/trainer.h"
#include "papers/assign_and_add/module/task_family.h"

using namespace cc;

namespace {

// A trained default-config model after `steps` steps of batch 64 on `device`.
std::unique_ptr<train::Trainer> trained(int64_t steps, const torch::Device& device) {
  train::RunConfig c = assign_and_add::run_config();
  c.train.steps = steps;
  c.train.batch_size = 64;
  auto o = train::TrainOptions::silent();
  o.device = device;
  auto t = std::make_unique<train::Trainer>(c, o);
  t->run();
  return t;
}

}  // namespace

TEST(Gpu, CudaTrainingMatchesCpu) {
  if (!train::cuda_available()) GTEST_SKIP() << "no CUDA device";
  train::make_cuda_deterministic();
  const auto cpu = trained(5, torch::kCPU), gpu = trained(5, torch::Device("cuda"));
  for (const auto& [name, t] : cpu->model().named_parameters())
    EXPECT_LT((t - gpu->model().param(name).cpu()).abs().max().item<double>(), 1e-3) << name;
}

// With deterministic kernels (the default for cuda), two identical runs agree bitwise, as on CPU.
TEST(Gpu, CudaTrainingRepeatsBitwise) {
  if (!train::cuda_available()) GTEST_SKIP() << "no CUDA device";
  train::make_cuda_deterministic();
  const auto a = trained(50, torch::Device("cuda")), b = trained(50, torch::Device("cuda"));
  for (const auto& [name, t] : a->model().named_parameters())
    EXPECT_TRUE(torch::equal(t, b->model().param(name))) << name;
}
