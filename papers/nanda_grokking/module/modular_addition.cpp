#include "papers/nanda_grokking/module/modular_addition.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "util/rng.h"

namespace cc::nanda_grokking {

TaskConfig TaskConfig::from_yaml(ObjectReader r) {
  TaskConfig c;
  if (r.has("family") && r.string("family") != "modular_addition") r.fail("family", "must be 'modular_addition'");
  c.modulus = static_cast<int>(r.integer_in("modulus", c.modulus, 2, 1000));
  c.train_fraction = r.number("train_fraction", c.train_fraction);
  c.split_seed =
      static_cast<uint64_t>(r.integer_in("split_seed", static_cast<int64_t>(c.split_seed), 0, int64_t{1} << 62));
  if (!(c.train_fraction > 0 && c.train_fraction < 1)) r.fail("train_fraction", "must be in (0, 1)");
  r.finish();
  return c;
}

nlohmann::json TaskConfig::to_json() const {
  return {{"family", "modular_addition"},
          {"modulus", modulus},
          {"train_fraction", train_fraction},
          {"split_seed", split_seed}};
}

PairGrid all_pairs(const TaskConfig& cfg) {
  const int64_t p = cfg.modulus;
  auto a = torch::arange(p, torch::kLong).repeat_interleave(p);  // [p²]
  auto b = torch::arange(p, torch::kLong).repeat(p);             // [p²]
  auto eq = torch::full({p * p}, cfg.equals_token(), torch::kLong);
  return {torch::stack({a, b, eq}, 1), (a + b).remainder(p)};
}

Split split(const TaskConfig& cfg) {
  const int64_t n = int64_t{cfg.modulus} * cfg.modulus;
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Rng rng(cfg.split_seed, stream_id("grokking split"), 0);
  rng.shuffle(order);
  const auto n_train = static_cast<size_t>(std::floor(cfg.train_fraction * static_cast<double>(n)));
  std::vector<int64_t> train(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n_train));
  std::vector<int64_t> test(order.begin() + static_cast<std::ptrdiff_t>(n_train), order.end());
  std::sort(train.begin(), train.end());
  std::sort(test.begin(), test.end());
  return {torch::tensor(train, torch::kLong), torch::tensor(test, torch::kLong)};
}

}  // namespace cc::nanda_grokking
