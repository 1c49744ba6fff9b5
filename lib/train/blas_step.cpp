// The "blas" engine: the step on flat buffers in ParamLayout order (weights, gradients, AdamW
// moments), through model::BlasTransformer's forward and hand-written backward and model::adamw_step.
// The model and the optimizer receive the weights and moments only when they are read (publish).
// Built where a CBLAS was found (lib/model/CMakeLists.txt); step_engine.cpp refuses it elsewhere.
#ifdef CLAIMCHECK_BLAS_ENGINE
#include <torch/torch.h>

#include <cstring>

#include "model/blas_bridge.h"
#include "model/blas_transformer.h"
#include "train/checkpoint.h"
#include "train/step_engine.h"
#include "util/error.h"

namespace cc::train {
namespace {

class BlasStep final : public StepEngine {
 public:
  BlasStep(const TrainConfig& tc, model::Transformer& model, torch::optim::AdamW& opt)
      : tc_(tc), model_(model), opt_(opt), engine_(model.config()) {
    w_ = model::flat_parameters(model_);
    const auto n = w_.size();
    grad_.assign(n, 0.f);
    exp_avg_.assign(n, 0.f);
    exp_avg_sq_.assign(n, 0.f);
    for (const auto& [name, p] : model_.named_parameters()) {  // a resumed run's moments
      AdamMoment m;
      if (!get_adam_state(opt_, p, m)) continue;
      const auto& e = engine_.layout().at(name);
      auto a = m.exp_avg.to(torch::kCPU).contiguous(), b = m.exp_avg_sq.to(torch::kCPU).contiguous();
      std::memcpy(exp_avg_.data() + e.offset, a.data_ptr<float>(), sizeof(float) * static_cast<size_t>(e.size));
      std::memcpy(exp_avg_sq_.data() + e.offset, b.data_ptr<float>(), sizeof(float) * static_cast<size_t>(e.size));
      adam_step_ = m.step;
    }
  }

  torch::Tensor step(int64_t step, const Batch& batch) override {
    if (batch.every_position())
      throw Error(
          "train.engine: blas trains the loss at the last position only; this task's loss is at every "
          "position (use engine libtorch)");
    auto tokens = batch.tokens.contiguous(), targets = batch.targets.contiguous();  // [B, T], [B] on the CPU
    const int64_t B = tokens.size(0), T = tokens.size(1);
    logits_.resize(static_cast<size_t>(B * model_.config().d_vocab_out));
    engine_.forward(w_.data(), tokens.data_ptr<int64_t>(), B, T, logits_.data());
    const double loss = engine_.backward(w_.data(), targets.data_ptr<int64_t>(), grad_.data());
    const auto n = static_cast<int64_t>(grad_.size());
    if (tc_.max_grad_norm > 0) model::clip_grad_norm(tc_.max_grad_norm, n, grad_.data());
    model::adamw_step({tc_.lr_at(step), tc_.beta1, tc_.beta2, tc_.eps, tc_.weight_decay}, ++adam_step_, n, w_.data(),
                      grad_.data(), exp_avg_.data(), exp_avg_sq_.data());
    stale_ = true;
    return torch::tensor(static_cast<float>(loss));
  }

  void publish() override {
    if (!stale_) return;
    stale_ = false;
    model::load_flat_parameters(model_, w_.data());
    if (adam_step_ == 0) return;
    for (const auto& [name, p] : model_.named_parameters()) {
      const auto& e = engine_.layout().at(name);
      auto m = torch::from_blob(exp_avg_.data() + e.offset, p.sizes(), torch::kFloat32).clone();
      auto v = torch::from_blob(exp_avg_sq_.data() + e.offset, p.sizes(), torch::kFloat32).clone();
      set_adam_state(opt_, p, {m, v, adam_step_});
    }
  }

 private:
  const TrainConfig tc_;
  model::Transformer& model_;
  torch::optim::AdamW& opt_;
  model::BlasTransformer engine_;
  std::vector<float> w_, grad_, exp_avg_, exp_avg_sq_, logits_;
  int64_t adam_step_ = 0;
  bool stale_ = false;  // a step was taken since the last publish
};

}  // namespace

std::unique_ptr<StepEngine> make_blas_step(const TrainConfig& tc, model::Transformer& model, torch::optim::AdamW& opt) {
  return std::make_unique<BlasStep>(tc, model, opt);
}

}  // namespace cc::train

#endif  // CLAIMCHECK_BLAS_ENGINE
