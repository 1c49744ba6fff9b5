#include "papers/assign_and_add/module/task/eval_sets.h"

#include <algorithm>

#include "util/error.h"

namespace cc::assign_and_add::task {
namespace {

struct Definition {
  const char* name;
  const char* description;
  SetSpec spec;
};

const Definition kDefinitions[] = {
    {"train", "training distribution S_T = S_V ∩ S_A (with the run's 0/1/2 mix)", {}},
    {"test_0", "uniform over S_0 (0-var)", {0, PairRule::Any, PositionRule::Any}},
    {"test_1", "uniform over S_1 (1-var)", {1, PairRule::Any, PositionRule::Any}},
    {"test_2", "uniform over S_2 (2-var)", {2, PairRule::Any, PositionRule::Any}},
    {"heldout_pairs_0",
     "S_0 ∩ S_V \\ S_A: held-out addition pairs, 0-var",
     {0, PairRule::HeldOut, PositionRule::Valid}},
    {"heldout_pairs_1",
     "S_1 ∩ S_V \\ S_A: held-out addition pairs, 1-var",
     {1, PairRule::HeldOut, PositionRule::Valid}},
    {"heldout_pairs_2",
     "S_2 ∩ S_V \\ S_A: held-out addition pairs, 2-var",
     {2, PairRule::HeldOut, PositionRule::Valid}},
    {"var_restricted_1",
     "S_1 ∩ S_A \\ S_V: variables in held-out positions, 1-var",
     {1, PairRule::Train, PositionRule::Restricted}},
    {"var_restricted_2",
     "S_2 ∩ S_A \\ S_V: variables in held-out positions, 2-var",
     {2, PairRule::Train, PositionRule::Restricted}},
    {"all_pairs_0", "every ordered pair (x, y) once, 0-var (exhaustive)", {}},
};

}  // namespace

const std::vector<EvalSetInfo>& eval_set_catalog() {
  static const std::vector<EvalSetInfo> catalog = [] {
    std::vector<EvalSetInfo> out;
    for (const auto& d : kDefinitions) out.push_back({d.name, d.description});
    return out;
  }();
  return catalog;
}

bool is_eval_set(const std::string& name) {
  const auto& c = eval_set_catalog();
  return std::any_of(c.begin(), c.end(), [&](const EvalSetInfo& i) { return i.name == name; });
}

std::vector<std::string> eval_set_names() {
  std::vector<std::string> names;
  for (const auto& info : eval_set_catalog()) names.push_back(info.name);
  return names;
}

EvalSet make_eval_set(const Sampler& sampler, const std::string& name, int size, uint64_t eval_seed) {
  const Definition* def = nullptr;
  for (const auto& d : kDefinitions)
    if (name == d.name) def = &d;
  if (!def) throw Error("unknown evaluation set '" + name + "'");

  EvalSet set{def->name, def->description, false, {}};
  Rng rng(eval_seed, stream_id(name), 0);
  const int n = sampler.config().modulus;
  if (name == "all_pairs_0") {
    set.exhaustive = true;
    for (int x = 0; x < n; ++x)
      for (int y = 0; y < n; ++y) set.examples.push_back(sampler.sample_with_pair(rng, 0, PositionRule::Any, x, y));
    return set;
  }
  if (def->spec.pairs == PairRule::HeldOut && sampler.pairs().heldout().empty()) return set;
  set.examples.reserve(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i)
    set.examples.push_back(name == "train" ? sampler.sample_train(rng) : sampler.sample(rng, def->spec));
  return set;
}

std::vector<EvalSet> make_eval_sets(const Sampler& sampler, int size, uint64_t eval_seed) {
  std::vector<EvalSet> out;
  for (const auto& info : eval_set_catalog()) out.push_back(make_eval_set(sampler, info.name, size, eval_seed));
  return out;
}

}  // namespace cc::assign_and_add::task
