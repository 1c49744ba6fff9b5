#pragma once
// The paper's memory-recall probes (§5, Figure 4; the authors' code: test_wo1, test_wk1, test_wk0):
// how many of the associations the induction head needs each learned matrix stores, read off the
// weights alone (TransformerLens convention: row vectors, x · W). Blocks are counted from 1 as the
// paper does (W_K^1 is blocks.0.attn.W_K).
//   W_O2: token k's embedding through block 2's value and output maps lands on k's unembedding:
//         argmax_j (w_E(k) W_V^2 W_O^2 W_U)_j = k, the share of the N tokens.
//   W_K2: a trigger's query w_E(q) W_Q^2 finds, among the triggers' previous-token remappings
//         w_E(q') W_V^1 W_O^1 W_K^2, its own: the share of the triggers (every token when the triggers
//         are drawn per sequence).
//   W_K1: position t's query p_t W_Q^1 finds position t-1's key p_{t-1} W_K^1 among every position's
//         (no causal mask, as the authors' probe), the share of t = 1..T-1.
#include <nlohmann/json.hpp>

#include <vector>

#include "model/transformer.h"

namespace cc::bietti_birth {

struct MemoryRecall {
  double W_O2 = 0, W_K2 = 0, W_K1 = 0;
};

// cc::Error for a model with fewer than two blocks or more than one head per block.
MemoryRecall memory_recall(const model::Transformer& m, const std::vector<int>& triggers);

// The W_K1 probe over the first `positions` positions only (2 <= positions <= T): the authors' variant
// test_wk0(cutoff=64), which their logs print beside the full one.
double w_k1_recall(const model::Transformer& m, int64_t positions);

// {"memory_recall": {"W_O2": .., "W_K2": .., "W_K1": ..}} for a two-block model; {} for any other.
nlohmann::json memory_recall_metrics(const model::Transformer& m, const std::vector<int>& triggers);

}  // namespace cc::bietti_birth
