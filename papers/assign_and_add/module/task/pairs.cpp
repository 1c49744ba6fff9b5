#include "papers/assign_and_add/module/task/pairs.h"

#include <algorithm>
#include <cmath>

#include "papers/assign_and_add/module/task/rng.h"

namespace cc::assign_and_add::task {

PairSet::PairSet(const TaskConfig& cfg) : n_(cfg.modulus), in_train_(static_cast<size_t>(n_ * n_), false) {
  const int total = n_ * n_;
  const int keep = static_cast<int>(std::lround(cfg.pair_fraction * total));
  std::vector<int> order(static_cast<size_t>(total));
  for (int i = 0; i < total; ++i) order[static_cast<size_t>(i)] = i;
  Rng rng(cfg.pair_seed, kPairStream, 0);
  rng.shuffle(order);
  for (int i = 0; i < keep; ++i) in_train_[static_cast<size_t>(order[static_cast<size_t>(i)])] = true;
  // Both lists in (x, y) order, so sampling from them does not depend on the shuffle.
  for (int p = 0; p < total; ++p) (in_train_[static_cast<size_t>(p)] ? train_ : heldout_).emplace_back(p / n_, p % n_);
}

}  // namespace cc::assign_and_add::task
