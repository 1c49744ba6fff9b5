#pragma once
// Counter-based seeding: every random stream is a pure function of (seed, stream, index).
// A task draws the training batch of step s from Rng(seed, <its training stream>, s), so the data
// RNG "state" of a run is just its step number: resuming needs nothing saved, and a batch can be
// regenerated in isolation (tests, debugging). std::mt19937_64 and std::seed_seq are
// specified bit-for-bit by the standard; the bounded draw below is ours because
// std::uniform_int_distribution is implementation-defined.
#include <cstdint>
#include <random>
#include <string>

namespace cc {

class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream, uint64_t index) {
    std::seed_seq seq{static_cast<uint32_t>(seed),   static_cast<uint32_t>(seed >> 32),
                      static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32),
                      static_cast<uint32_t>(index),  static_cast<uint32_t>(index >> 32)};
    engine_.seed(seq);
  }

  // Uniform integer in [0, n), n > 0, by rejection (no modulo bias).
  int64_t below(int64_t n) {
    const uint64_t un = static_cast<uint64_t>(n);
    const uint64_t limit = UINT64_MAX - UINT64_MAX % un;
    uint64_t x;
    do x = engine_();
    while (x >= limit);
    return static_cast<int64_t>(x % un);
  }
  // Uniform integer in [lo, hi].
  int64_t between(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }
  // Uniform double in [0, 1).
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  template <typename Vec>
  void shuffle(Vec& v) {  // Fisher-Yates with our own bounded draw
    for (int64_t i = static_cast<int64_t>(v.size()) - 1; i > 0; --i) {
      const auto j = below(i + 1);
      auto tmp = static_cast<typename Vec::value_type>(v[static_cast<size_t>(i)]);
      v[static_cast<size_t>(i)] = static_cast<typename Vec::value_type>(v[static_cast<size_t>(j)]);
      v[static_cast<size_t>(j)] = tmp;
    }
  }

 private:
  std::mt19937_64 engine_;
};

// Stable stream id for a name (FNV-1a), so each evaluation set has its own stream.
inline uint64_t stream_id(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace cc
