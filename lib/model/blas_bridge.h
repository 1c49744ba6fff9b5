#pragma once
// Between the libtorch Transformer and the blas engine's flat parameter buffer (ParamLayout order).
#include <torch/types.h>

#include <memory>
#include <vector>

#include "model/transformer.h"

namespace cc::model {

// True where the blas engine was built (a CBLAS was found: lib/model/CMakeLists.txt).
bool blas_engine_built();

std::vector<float> flat_parameters(const Transformer& model);      // copies to the CPU
void load_flat_parameters(Transformer& model, const float* flat);  // copies in (any device)

class BlasTransformer;

// Logits of the training path, without autograd: through the blas engine when it is built and the
// model is on the CPU, else through Transformer::forward_last. Flattens the weights once and keeps
// the engine's buffers between calls, so evaluating many chunks of one model allocates nothing.
class FastLogits {
 public:
  explicit FastLogits(const Transformer& model);
  ~FastLogits();
  torch::Tensor operator()(const torch::Tensor& tokens);  // [b, T] -> [b, d_vocab_out] (CPU for the engine)
  const Transformer& model() const { return model_; }

 private:
  const Transformer& model_;
  std::vector<float> w_;
  std::unique_ptr<BlasTransformer> engine_;  // null: the libtorch path
};

// One call of FastLogits: tokens [N, T] -> logits [N, d_vocab_out], in chunks of 256.
torch::Tensor fast_forward_last(const Transformer& model, const torch::Tensor& tokens);

}  // namespace cc::model
