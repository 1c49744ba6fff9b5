#pragma once
// The linear probe of §5.1 (probes.cpp), declared for its tests.
#include <torch/types.h>

namespace cc::assign_and_add {

// Held-out accuracy of a multinomial logistic regression from X [n, D] to labels y [n] (in
// [0, classes)): features standardised on the first half, trained there full-batch with Adam (lr 0.05)
// for `steps` steps from zero weights, scored on the second half.
double probe_accuracy(const torch::Tensor& X, const torch::Tensor& y, int classes, int steps);

}  // namespace cc::assign_and_add
