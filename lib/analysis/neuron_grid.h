#pragma once
// The measurement behind M8a/M8b, on any model and task: given an MLP's preactivations over the N x N
// grid of operand pairs, fit each active neuron (positive on >= active_fraction of the grid) with
// fourier_fit.h's `form` ("additive", "fourier", "fourier_2d"). The value is the median R^2 over
// active neurons; details as fourier.cpp documents. The assign-and-add kinds call it on their grid;
// another paper's module calls it on its own (papers/nanda_grokking: M8b's positive control).
#include <torch/types.h>

#include <string>

#include "analysis/activation_store.h"
#include "analysis/measurement.h"
#include "model/transformer.h"
#include "train/checkpoint.h"

namespace cc::analysis {

struct GridNeuronFit {
  Measurement measurement;
  torch::Tensor r2;  // [active neurons] float64
};

struct GridPreactivations {
  torch::Tensor pre;  // [N*N, d_mlp] float64, row g = n * N + m
  int N = 0;
};

// The last MLP's preactivations (hook_pre) at the last position for every pair of the checkpoint's
// operand grid (train::operand_grid): an evaluation-set grid's through the store's forwards of that
// set (drawn with `eval_seed`), a grid of its own sequences as a derived value of the checkpoint. So
// every claim that reads them (M8a/M8b; the grokking paper's N5, N6 and its key frequencies) shares
// one forward per checkpoint. `store` nullptr: computed here. cc::Error naming the checkpoint when
// its task has no grid.
GridPreactivations grid_preactivations(const train::Checkpoint& ck, ActivationStore* store, uint64_t eval_seed);

// Y: [N*N, d_mlp] float64 preactivations, row g = n * N + m; `model` gives the last MLP's W_out.
GridNeuronFit grid_neuron_fit(torch::Tensor Y, int N, const std::string& form, double active_fraction,
                              const model::Transformer& model);

}  // namespace cc::analysis
