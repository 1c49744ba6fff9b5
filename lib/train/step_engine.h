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
}

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
// cc::Error for the blas engine off the CPU or where it is not built.
std::unique_ptr<StepEngine> make_step_engine(const TrainConfig& tc, model::Transformer& model, torch::optim::AdamW& opt,
                                             torch::Device device);

// The optimizer every engine starts from (its options; the blas engine then applies the same update
// on its own buffers).
std::unique_ptr<torch::optim::AdamW> make_adamw(const TrainConfig& tc, const std::vector<torch::Tensor>& params);

}  // namespace cc::train
