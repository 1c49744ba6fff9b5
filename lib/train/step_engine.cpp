#include "train/step_engine.h"

#include <torch/torch.h>

#include "util/error.h"

namespace cc::train {

// Defined in torch_step.cpp and (where a CBLAS was found) blas_step.cpp.
std::unique_ptr<StepEngine> make_torch_step(const TrainConfig& tc, model::Transformer& model, torch::optim::AdamW& opt,
                                            torch::Device device);
std::unique_ptr<StepEngine> make_blas_step(const TrainConfig& tc, model::Transformer& model, torch::optim::AdamW& opt);

std::unique_ptr<StepEngine> make_step_engine(const TrainConfig& tc, model::Transformer& model, torch::optim::AdamW& opt,
                                             torch::Device device) {
  if (tc.engine != "blas") return make_torch_step(tc, model, opt, device);
  if (tc.loss_precision != "float32")
    throw Error("train.loss_precision: the blas engine computes its loss in float32; use engine libtorch for " +
                tc.loss_precision);
  if (!device.is_cpu())
    throw Error("train.engine: blas runs on the CPU; use engine libtorch with --device " + device.str());
#ifdef CLAIMCHECK_BLAS_ENGINE
  return make_blas_step(tc, model, opt);
#else
  throw Error(
      "train.engine: blas is not built into this claimcheck (no CBLAS found at configure time: "
      "install libblas-dev and reconfigure)");
#endif
}

std::unique_ptr<torch::optim::AdamW> make_adamw(const TrainConfig& tc, const std::vector<torch::Tensor>& params) {
  auto options =
      torch::optim::AdamWOptions(tc.lr).betas({tc.beta1, tc.beta2}).eps(tc.eps).weight_decay(tc.weight_decay);
  return std::make_unique<torch::optim::AdamW>(params, options);
}

}  // namespace cc::train
