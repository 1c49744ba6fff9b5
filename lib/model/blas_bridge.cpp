#include "model/blas_bridge.h"

#include <torch/torch.h>

#ifdef CLAIMCHECK_BLAS_ENGINE
#include "model/blas_transformer.h"
#endif

namespace cc::model {

bool blas_engine_built() {
#ifdef CLAIMCHECK_BLAS_ENGINE
  return true;
#else
  return false;
#endif
}

std::vector<float> flat_parameters(const Transformer& model) {
  std::vector<float> out;
  for (const auto& [name, p] : model.named_parameters()) {
    auto t = p.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    out.insert(out.end(), t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
  }
  return out;
}

void load_flat_parameters(Transformer& model, const float* flat) {
  torch::NoGradGuard no_grad;
  int64_t at = 0;
  for (const auto& [name, p] : model.named_parameters()) {
    auto src = torch::from_blob(const_cast<float*>(flat + at), p.sizes(), torch::kFloat32);
    const_cast<torch::Tensor&>(p).copy_(src);  // the tensor's storage, not the handle, changes
    at += p.numel();
  }
}

FastLogits::FastLogits(const Transformer& model) : model_(model) {
#ifdef CLAIMCHECK_BLAS_ENGINE
  // The engine is written for the paper's shape only; any other runs Transformer::forward_last, and so
  // does a model with interventions (Transformer::with_edits), which the engine does not know.
  if (!model.device().is_cpu() || !model.config().is_two_layer_mlp_last() || model.edited()) return;
  engine_ = std::make_unique<BlasTransformer>(model.config());
  w_ = flat_parameters(model);
#endif
}

FastLogits::~FastLogits() = default;

torch::Tensor FastLogits::operator()(const torch::Tensor& tokens) {
  torch::NoGradGuard no_grad;
#ifdef CLAIMCHECK_BLAS_ENGINE
  if (engine_) {
    auto ids = tokens.to(torch::kCPU, torch::kLong).contiguous();
    auto out = torch::empty({ids.size(0), model_.config().d_vocab_out}, torch::kFloat32);
    engine_->logits(w_.data(), ids.data_ptr<int64_t>(), ids.size(0), ids.size(1), out.data_ptr<float>());
    return out;
  }
#endif
  return model_.forward_last(tokens);
}

torch::Tensor fast_forward_last(const Transformer& model, const torch::Tensor& tokens) {
  return FastLogits(model)(tokens);
}

}  // namespace cc::model
