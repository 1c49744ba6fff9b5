#pragma once
// Between the libtorch Transformer and the blas engine's flat parameter buffer (ParamLayout order).
#include <torch/types.h>

#include <vector>

#include "model/transformer.h"

namespace cc::model {

// True where the blas engine was built (a CBLAS was found: lib/model/CMakeLists.txt).
bool blas_engine_built();

std::vector<float> flat_parameters(const Transformer& model);         // copies to the CPU
void load_flat_parameters(Transformer& model, const float* flat);      // copies in (any device)

// Logits [N, d_vocab_out] of the training path, through the blas engine when it is built and the
// model is on the CPU, else through Transformer::forward_last; in chunks, without autograd.
torch::Tensor fast_forward_last(const Transformer& model, const torch::Tensor& tokens);

}  // namespace cc::model
