#pragma once
// The character statistics of the paper's task: pi_u (unigram) and pi_b (bigram) of the tiny-Shakespeare
// text, N = 65 characters (§3), as ../data/shakespeare_char_stats.json counts them (its
// derive_bigrams.py says how). Compiled into the module; parsed once.
#include <cstdint>
#include <string>
#include <vector>

#include "util/rng.h"

namespace cc::bietti_birth {

// A distribution over token ids 0..N-1 as its cumulative sums, for inverse-CDF draws that are the same
// on every machine (IEEE doubles, summed in one order).
class Categorical {
 public:
  Categorical() = default;
  explicit Categorical(const std::vector<double>& weights);  // any non-negative weights, not all 0
  int draw(Rng& rng) const;
  double p(int token) const { return probs_.at(static_cast<size_t>(token)); }
  int size() const { return static_cast<int>(probs_.size()); }

 private:
  std::vector<double> probs_, cumulative_;
};

struct CharStats {
  std::vector<std::string> vocab;  // token i is the character vocab[i] (UTF-8)
  Categorical unigram;             // pi_u
  std::vector<Categorical> next;   // pi_b(. | i)
  std::vector<int> by_frequency;   // token ids, most frequent first (ties: the lower id first)
  std::string sha256;              // of the committed statistics file
  int size() const { return static_cast<int>(vocab.size()); }
};

// The committed statistics (cc::Error if the compiled-in file does not parse as expected).
const CharStats& char_stats();

}  // namespace cc::bietti_birth
