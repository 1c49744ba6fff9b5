#pragma once
// The named evaluation sets (§4), each deterministic from (eval seed, set name):
//   test_k            uniform over S_k                     (k = 0, 1, 2)   "test accuracy"
//   heldout_pairs_k   S_k ∩ S_V \ S_A                      (k = 0, 1, 2)   held-out additions
//   var_restricted_k  S_k ∩ S_A \ S_V                      (k = 1, 2)      unseen variable positions
//   train             the training distribution S_T with its 0/1/2 mix
//   all_pairs_0       every ordered pair (x, y) once as a 0-var sequence (N^2, exhaustive)
#include <string>
#include <vector>

#include "papers/assign_and_add/module/task/sampler.h"

namespace cc::assign_and_add::task {

struct EvalSet {
  std::string name;
  std::string description;
  bool exhaustive = false;
  std::vector<Example> examples;
};

struct EvalSetInfo {
  std::string name;
  std::string description;
};

// All set names, in report order.
const std::vector<EvalSetInfo>& eval_set_catalog();
bool is_eval_set(const std::string& name);
std::vector<std::string> eval_set_names();  // the catalog's names, in its order

// Builds one set. `size` is ignored for exhaustive sets; an empty set (e.g. heldout pairs
// with f = 1) has no examples. Throws cc::Error for an unknown name.
EvalSet make_eval_set(const Sampler& sampler, const std::string& name, int size, uint64_t eval_seed);

// Builds every set of the catalog.
std::vector<EvalSet> make_eval_sets(const Sampler& sampler, int size, uint64_t eval_seed);

}  // namespace cc::assign_and_add::task
