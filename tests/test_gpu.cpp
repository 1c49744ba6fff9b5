// GPU path: the same training step on CUDA matches the CPU within float tolerance.
// Skips (ctest: "skipped") when libtorch has no usable CUDA device.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "train/runtime.h"
#include "train/trainer.h"

using namespace cc;

TEST(Gpu, CudaTrainingMatchesCpu) {
  if (!train::cuda_available()) GTEST_SKIP() << "no CUDA device";
  train::make_cuda_deterministic();
  train::RunConfig c;
  c.train.steps = 5;
  c.train.batch_size = 64;
  c.model.derive(c.task);
  train::TrainOptions o;
  o.progress = false;
  o.log_metrics = false;
  train::Trainer cpu(c, o);
  cpu.run();
  o.device = torch::Device("cuda");
  train::Trainer gpu(c, o);
  gpu.run();
  for (const auto& [name, t] : cpu.model().named_parameters())
    EXPECT_LT((t - gpu.model().param(name).cpu()).abs().max().item<double>(), 1e-3) << name;
}

// With deterministic kernels (the default for cuda), two identical runs agree bitwise, as on CPU.
TEST(Gpu, CudaTrainingRepeatsBitwise) {
  if (!train::cuda_available()) GTEST_SKIP() << "no CUDA device";
  train::make_cuda_deterministic();
  train::RunConfig c;
  c.train.steps = 50;
  c.train.batch_size = 64;
  c.model.derive(c.task);
  train::TrainOptions o;
  o.progress = false;
  o.log_metrics = false;
  o.device = torch::Device("cuda");
  train::Trainer a(c, o);
  a.run();
  train::Trainer b(c, o);
  b.run();
  for (const auto& [name, t] : a.model().named_parameters())
    EXPECT_TRUE(torch::equal(t, b.model().param(name))) << name;
}
