#pragma once
// S_A (§3): the training pair set, a seeded random fraction f of the N^2 ordered operand
// pairs. A removed pair (x, y) is removed in every form: x+y, c=x,c+y, c=y,x+c, ...
// because membership is decided on the *resolved* operands, never on the surface tokens.
#include <cstdint>
#include <utility>
#include <vector>

#include "papers/assign_and_add/module/task/config.h"

namespace cc::assign_and_add::task {

class PairSet {
 public:
  explicit PairSet(const TaskConfig& cfg);
  bool contains(int x, int y) const { return in_train_[static_cast<size_t>(x * n_ + y)]; }
  const std::vector<std::pair<int, int>>& train() const { return train_; }
  const std::vector<std::pair<int, int>>& heldout() const { return heldout_; }
  int modulus() const { return n_; }

 private:
  int n_;
  std::vector<bool> in_train_;
  std::vector<std::pair<int, int>> train_, heldout_;
};

}  // namespace cc::assign_and_add::task
