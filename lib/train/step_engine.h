#pragma once
// How one optimisation step of one run is taken. The schedule (schedule.h) decides when steps,
// evaluations and checkpoints happen and the trainer keeps the books (trainer.h); an engine owns
// the arithmetic of a step and the state it updates. Two engines, chosen by train.engine:
//   "libtorch": autograd and torch::optim::AdamW on the model itself, on any device; the bitwise
//               reference (R2 retrains with it).
//   "blas":     flat buffers, direct BLAS calls and a hand-written backward (model/blas_transformer.h),
//               CPU only; the same function to float rounding (tests/test_train.cpp).
#include <torch/types.h>

#include <memory>
#include <vector>

#include "model/transformer.h"
#include "train/run_config.h"
#include "train/task_data.h"

namespace torch::optim {
class AdamW;
class Optimizer;
}  // namespace torch::optim

namespace cc::train {

class StepEngine {
 public:
  virtual ~StepEngine() = default;
  // One optimisation step on `batch`, the batch of `step` (the step also sets a warmup's rate);
  // returns the batch's mean loss (a 0-dim tensor).
  virtual torch::Tensor step(int64_t step, const Batch& batch) = 0;
  // Makes the model and the optimizer the engine was made with hold its current weights and AdamW
  // moments. An engine that trains them in place has nothing to do; one that keeps its own copies
  // copies them back (only when a step was taken since the last time).
  virtual void publish() {}
};

// The engine train.engine names, training `model` with `opt` (both already initialised or restored
// from a resume point; the engine takes them over as they are). Both must outlive the engine.
// cc::Error for the blas engine off the CPU, where it is not built, or for what only the libtorch
// engine trains (an optimizer other than AdamW, frozen parameters, a loss at every position).
std::unique_ptr<StepEngine> make_step_engine(const TrainConfig& tc, model::Transformer& model,
                                             torch::optim::Optimizer& opt, torch::Device device);

// The optimizer train.optimizer names, over `params` (the model's parameters less the frozen ones:
// trainable_parameters). The blas engine applies AdamW's update on its own buffers.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainConfig& tc,
                                                        const std::vector<torch::Tensor>& params);
std::unique_ptr<torch::optim::AdamW> make_adamw(const TrainConfig& tc, const std::vector<torch::Tensor>& params);

// The parameters of `model` that train.frozen does not name, in the model's order; the frozen ones
// stop requiring gradients. cc::Error naming a train.frozen entry the model has no parameter of.
std::vector<torch::Tensor> trainable_parameters(const TrainConfig& tc, model::Transformer& model);

}  // namespace cc::train
