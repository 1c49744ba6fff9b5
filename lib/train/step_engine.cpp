#include "train/step_engine.h"

#include <torch/torch.h>

#include <algorithm>

#include "util/error.h"

namespace cc::train {

// Defined in torch_step.cpp and (where a CBLAS was found) blas_step.cpp.
std::unique_ptr<StepEngine> make_torch_step(const TrainConfig& tc, model::Transformer& model,
                                            torch::optim::Optimizer& opt, torch::Device device);
std::unique_ptr<StepEngine> make_blas_step(const TrainConfig& tc, model::Transformer& model, torch::optim::AdamW& opt);

std::unique_ptr<StepEngine> make_step_engine(const TrainConfig& tc, model::Transformer& model,
                                             torch::optim::Optimizer& opt, torch::Device device) {
  if (tc.engine != "blas") return make_torch_step(tc, model, opt, device);
  if (tc.optimizer != "adamw")
    throw Error("train.optimizer: the blas engine applies AdamW only; use engine libtorch for " + tc.optimizer);
  if (!tc.frozen.empty())
    throw Error("train.frozen: the blas engine trains every parameter; use engine libtorch to freeze some");
  if (tc.loss_precision != "float32")
    throw Error("train.loss_precision: the blas engine computes its loss in float32; use engine libtorch for " +
                tc.loss_precision);
  if (!device.is_cpu())
    throw Error("train.engine: blas runs on the CPU; use engine libtorch with --device " + device.str());
#ifdef CLAIMCHECK_BLAS_ENGINE
  return make_blas_step(tc, model, static_cast<torch::optim::AdamW&>(opt));  // optimizer adamw, checked above
#else
  throw Error(
      "train.engine: blas is not built into this claimcheck (no CBLAS found at configure time: "
      "install libblas-dev and reconfigure)");
#endif
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainConfig& tc,
                                                        const std::vector<torch::Tensor>& params) {
  if (tc.optimizer == "adamw") return make_adamw(tc, params);
  if (tc.optimizer != "sgd") throw Error("train.optimizer: unknown optimizer '" + tc.optimizer + "'");
  auto options = torch::optim::SGDOptions(tc.lr).momentum(tc.momentum).weight_decay(tc.weight_decay);
  return std::make_unique<torch::optim::SGD>(params, options);
}

std::vector<torch::Tensor> trainable_parameters(const TrainConfig& tc, model::Transformer& model) {
  for (const auto& name : tc.frozen) {
    if (std::none_of(model.named_parameters().begin(), model.named_parameters().end(),
                     [&](const auto& kv) { return kv.first == name; }))
      throw Error("train.frozen: the model has no parameter '" + name + "' (its parameters are named as " +
                  "TransformerLens names them, e.g. embed.W_E, blocks.0.attn.W_K)");
  }
  std::vector<torch::Tensor> out;
  for (const auto& [name, p] : model.named_parameters()) {
    const bool frozen = std::find(tc.frozen.begin(), tc.frozen.end(), name) != tc.frozen.end();
    p.requires_grad_(!frozen);  // p is a handle to the model's tensor
    if (!frozen) out.push_back(p);
  }
  return out;
}

std::unique_ptr<torch::optim::AdamW> make_adamw(const TrainConfig& tc, const std::vector<torch::Tensor>& params) {
  auto options =
      torch::optim::AdamWOptions(tc.lr).betas({tc.beta1, tc.beta2}).eps(tc.eps).weight_decay(tc.weight_decay);
  return std::make_unique<torch::optim::AdamW>(params, options);
}

}  // namespace cc::train
