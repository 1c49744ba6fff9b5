// The "libtorch" engine: autograd through Transformer::forward_last (or forward, for a loss at every
// position) and the run's torch::optim optimizer, on the model's own parameters, on any device.
#include <torch/torch.h>

#include "train/loss.h"
#include "train/step_engine.h"

namespace cc::train {
namespace {

class TorchStep final : public StepEngine {
 public:
  TorchStep(const TrainConfig& tc, model::Transformer& model, torch::optim::Optimizer& opt, torch::Device device)
      : tc_(tc), model_(model), opt_(opt), device_(device) {}

  torch::Tensor step(int64_t step, const Batch& batch) override {
    auto tokens = batch.tokens.to(device_);                              // [B, T]
    auto targets = batch.targets.to(device_);                            // [B], or [B, T]
    auto logits = batch.every_position() ? model_.forward(tokens)        // [B, T, d_vocab_out]
                                         : model_.forward_last(tokens);  // [B, d_vocab_out]
    auto loss = cross_entropy(logits, targets, tc_.loss_precision);
    opt_.zero_grad();
    loss.backward();
    if (tc_.max_grad_norm > 0)
      torch::nn::utils::clip_grad_norm_(model_.parameters(), tc_.max_grad_norm);  // frozen: no grad
    // A warmup sets this step's rate; without one it stays the constructor's (a resumed optimizer's
    // state carries no learning rate: the step alone decides it).
    if (tc_.warmup_steps > 0) opt_.param_groups()[0].options().set_lr(tc_.lr_at(step));
    opt_.step();
    return loss.detach();
  }

 private:
  const TrainConfig tc_;
  model::Transformer& model_;
  torch::optim::Optimizer& opt_;
  torch::Device device_;
};

}  // namespace

std::unique_ptr<StepEngine> make_torch_step(const TrainConfig& tc, model::Transformer& model,
                                            torch::optim::Optimizer& opt, torch::Device device) {
  return std::make_unique<TorchStep>(tc, model, opt, device);
}

}  // namespace cc::train
