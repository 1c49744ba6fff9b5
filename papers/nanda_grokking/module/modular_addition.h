#pragma once
// The task of Nanda et al. (2023), "Progress measures for grokking via mechanistic interpretability"
// (arXiv 2301.05217), §3: inputs "a b =" for a, b in [0, p), target (a + b) mod p. A fixed share of the
// p² pairs is the training set (full-batch training); the rest is the test set.
// Token ids: the numbers 0..p-1, then '=' = p; the model reads its answer at '=' (position 2).
#include <torch/types.h>

#include <cstdint>
#include <string>

#include "util/yaml_json.h"

namespace cc::nanda_grokking {

constexpr int kSeqLen = 3;  // a, b, '='

struct TaskConfig {
  int modulus = 113;            // p (stated)
  double train_fraction = 0.3;  // stated: "30 % of the pairs"
  uint64_t split_seed = 0;      // which pairs are trained on (unstated; the authors' code seeds it with the run's seed)

  static TaskConfig from_yaml(ObjectReader r);
  nlohmann::json to_json() const;
  int vocab_size() const { return modulus + 1; }
  int equals_token() const { return modulus; }
};

// Every pair once, row-major: row g = a * p + b. tokens [p², 3], targets [p²].
struct PairGrid {
  torch::Tensor tokens, targets;
};
PairGrid all_pairs(const TaskConfig& cfg);

// The split: indices (rows of all_pairs) of the training pairs and of the test pairs, each ascending.
// The first floor(train_fraction · p²) pairs of a seeded Fisher-Yates shuffle are the training set.
struct Split {
  torch::Tensor train, test;  // int64 row indices
};
Split split(const TaskConfig& cfg);

}  // namespace cc::nanda_grokking
