#pragma once
// Sequences of the paper's task (§3, Figure 1). Layout of the T = 16 tokens:
//   positions 0..11  : `n` assignments as (variable, constant) token pairs, in random order,
//                      with the 12 - 2n PAD tokens spread at random around them
//   position 12      : '+'
//   positions 13, 14 : the operands, each a constant or an assigned variable
//   position 15      : '='   -> target (x + y) mod N of the resolved operands
// A k-var sequence has k variable operands; the other assignments are distractors.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "papers/assign_and_add/module/task/config.h"
#include "papers/assign_and_add/module/task/pairs.h"
#include "papers/assign_and_add/module/task/rng.h"

namespace cc::assign_and_add::task {

struct Example {
  std::array<int32_t, kSeqLen> tokens{};
  int32_t target = 0;                     // (x + y) mod N
  int x = 0, y = 0;                       // resolved operand values
  int n_vars = 0;                         // variables among the two operands (0, 1, 2)
  int var_first = -1;                     // variable index at position 13, or -1 for a constant
  int var_second = -1;                    // variable index at position 14, or -1
  int source_first = kFirstOperandPos;    // where operand 1's constant stands (13, or its assignment)
  int source_second = kSecondOperandPos;  // where operand 2's constant stands
};

enum class PairRule { Any, Train, HeldOut };         // S_A, its complement, or either
enum class PositionRule { Any, Valid, Restricted };  // S_V, its complement, or either

struct SetSpec {
  int n_vars = 0;
  PairRule pairs = PairRule::Any;
  PositionRule positions = PositionRule::Any;
};

class Sampler {
 public:
  explicit Sampler(const TaskConfig& cfg);

  // One sequence of the given kind. Throws cc::Error for an empty kind (e.g. restricted 0-var).
  Example sample(Rng& rng, const SetSpec& spec) const;
  // One sequence with the given operands (for exhaustive sets).
  Example sample_with_pair(Rng& rng, int n_vars, PositionRule positions, int x, int y) const;
  // One draw from the training distribution S_T = S_V ∩ S_A with the configured 0/1/2 mix.
  Example sample_train(Rng& rng) const;
  // The training batch for `step` of a run seeded `seed` (deterministic; see rng.h).
  std::vector<Example> train_batch(uint64_t seed, int64_t step, int batch_size) const;

  // Membership tests on a finished sequence, re-derived from its tokens alone.
  bool in_S_A(const Example& e) const;
  bool in_S_V(const Example& e) const;
  // Resolve the operands from the tokens (the reference the tests check the sampler against).
  bool resolve(const std::array<int32_t, kSeqLen>& tokens, int& x, int& y) const;

  const TaskConfig& config() const { return cfg_; }
  const Vocab& vocab() const { return vocab_; }
  const PairSet& pairs() const { return pairs_; }
  double mix_weight(int n_vars) const;         // relative frequency of k-var sequences in training
  std::string render(const Example& e) const;  // "PAD c 1 b 17 ... + b 19 ="

 private:
  bool variable_ok_first(int var) const { return !banned_first_[static_cast<size_t>(var)]; }
  bool variable_ok_second(int var) const { return !banned_second_[static_cast<size_t>(var)]; }
  void choose_variables(Rng& rng, int n_vars, PositionRule rule, int& v1, int& v2) const;
  Example build(Rng& rng, int x, int y, int v1, int v2) const;

  TaskConfig cfg_;
  Vocab vocab_;
  PairSet pairs_;
  std::vector<bool> banned_first_, banned_second_;
};

}  // namespace cc::assign_and_add::task
