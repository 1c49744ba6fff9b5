#pragma once
// The sequences behind a kind's activations (analysis/activation_store.h), with what the task knows
// of each (operands, variables, where each operand's constant stands) beside its tokens: the kinds
// of this module read them row for row beside the activations.
#include <cstdint>
#include <string>
#include <vector>

#include "papers/assign_and_add/module/task/eval_sets.h"
#include "train/checkpoint.h"

namespace cc::assign_and_add {

// A seeded sample of `size` sequences from each named evaluation set, the sets one after the other:
// row i is row i of activations(store, ck, sets, size, seed, ...).
std::vector<task::Example> sample_examples(const train::Checkpoint& ck, const std::vector<std::string>& sets, int size,
                                           uint64_t seed);

}  // namespace cc::assign_and_add
