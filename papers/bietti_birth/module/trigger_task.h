#pragma once
// The paper's synthetic task (§3): sequences of characters drawn from the global bigram model pi_b,
// except after each of K trigger tokens q_k, which is always followed by the sequence's own output
// token o_k. Triggers are the K most frequent characters or drawn per sequence from pi_u (over every
// character, or over those that are not the K most frequent: triggers a fixed-trigger run never has); outputs are
// drawn per sequence from pi_o (uniform, or pi_b(. | q_k)). The next token after a trigger can only be
// known from the context (from its second occurrence on: the in-context bigrams); every other next
// token follows the global bigrams.
#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <cstdint>
#include <string>

#include "util/yaml_json.h"

namespace cc::bietti_birth {

struct TaskConfig {
  int seq_len = 0;             // T
  int triggers = 0;            // K
  std::string trigger_choice;  // most_frequent | unigram | unigram_not_most_frequent
  std::string output_choice;   // uniform | bigram
  std::string loss_on;         // in_context_repeats (the outputs from their 2nd occurrence) | every_token
  std::string statistics;      // the sha256 of the character statistics; must be the compiled-in ones

  static TaskConfig from_yaml(ObjectReader r);
  nlohmann::json to_json() const;
  int vocab_size() const;  // N
};

// `count` sequences of T tokens with what follows each, from Rng(seed, stream, index).
struct Sequences {
  torch::Tensor tokens;      // [count, T] int64: z_1 .. z_T
  torch::Tensor next;        // [count, T] int64: z_2 .. z_{T+1}
  torch::Tensor occurrence;  // [count, T] int64: k >= 1 where next is a trigger's output for the k-th time, else 0
};
Sequences draw_sequences(const TaskConfig& task, uint64_t seed, uint64_t stream, uint64_t index, int64_t count);
// The evaluation draw: `size` sequences that are a function of `eval_seed` only (the family's
// evaluation sets and the kinds read the same sequences).
Sequences eval_sequences(const TaskConfig& task, int64_t size, uint64_t eval_seed);

// `next` where `keep` holds, kNoTarget elsewhere: the targets of one class of tokens.
torch::Tensor targets_where(const Sequences& s, const torch::Tensor& keep);

}  // namespace cc::bietti_birth
