#pragma once
// The measurement behind M8a/M8b, on any model and task: given an MLP's preactivations over the N x N
// grid of operand pairs, fit each active neuron (positive on >= active_fraction of the grid) with
// fourier_fit.h's `form` ("additive", "fourier", "fourier_2d"). The value is the median R^2 over
// active neurons; details as fourier.cpp documents. The assign-and-add kinds call it on their grid;
// another paper's module calls it on its own (papers/nanda_grokking: M8b's positive control).
#include <torch/types.h>

#include <string>

#include "analysis/measurement.h"
#include "model/transformer.h"

namespace cc::analysis {

struct GridNeuronFit {
  Measurement measurement;
  torch::Tensor r2;  // [active neurons] float64
};

// Y: [N*N, d_mlp] float64 preactivations, row g = n * N + m; `model` gives the last MLP's W_out.
GridNeuronFit grid_neuron_fit(torch::Tensor Y, int N, const std::string& form, double active_fraction,
                              const model::Transformer& model);

}  // namespace cc::analysis
