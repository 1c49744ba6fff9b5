#include "papers/assign_and_add/module/task/sampler.h"

#include <algorithm>

#include "util/error.h"

namespace cc::assign_and_add::task {

Sampler::Sampler(const TaskConfig& cfg)
    : cfg_(cfg),
      vocab_(cfg),
      pairs_(cfg),
      banned_first_(static_cast<size_t>(cfg.n_variables), false),
      banned_second_(static_cast<size_t>(cfg.n_variables), false) {
  cfg_.validate();
  for (const auto& v : cfg.restricted_first) banned_first_[static_cast<size_t>(vocab_.variable_index(v))] = true;
  for (const auto& v : cfg.restricted_second) banned_second_[static_cast<size_t>(vocab_.variable_index(v))] = true;
}

double Sampler::mix_weight(int n_vars) const {
  switch (n_vars) {
    case 0:
      return 1.0;
    case 1:
      return cfg_.weight_1var;
    default:
      return cfg_.ratio_2var_to_0var;
  }
}

void Sampler::choose_variables(Rng& rng, int n_vars, PositionRule rule, int& v1, int& v2) const {
  if (n_vars == 0) {
    if (rule == PositionRule::Restricted) throw Error("a 0-var sequence cannot violate S_V: the set is empty");
    v1 = v2 = -1;
    return;
  }
  // Rejection from the unconstrained choice keeps each set uniform over its own members.
  for (int attempt = 0; attempt < 100000; ++attempt) {
    v1 = v2 = -1;
    if (n_vars == 1) {
      int var = static_cast<int>(rng.below(cfg_.n_variables));
      (rng.below(2) == 0 ? v1 : v2) = var;
    } else {
      v1 = static_cast<int>(rng.below(cfg_.n_variables));
      do v2 = static_cast<int>(rng.below(cfg_.n_variables));
      while (!cfg_.allow_same_variable && v2 == v1);
    }
    const bool valid = (v1 < 0 || variable_ok_first(v1)) && (v2 < 0 || variable_ok_second(v2));
    if (rule == PositionRule::Any || (rule == PositionRule::Valid) == valid) return;
  }
  throw Error("no variable placement satisfies the requested position rule (check restricted_first/second)");
}

Example Sampler::build(Rng& rng, int x, int y, int v1, int v2) const {
  Example e;
  e.x = x;
  e.y = y;
  e.target = (x + y) % cfg_.modulus;
  e.var_first = v1;
  e.var_second = v2;
  e.n_vars = (v1 >= 0) + (v2 >= 0);

  // The assignments: the operand variables with their values, then distinct distractors.
  struct Assignment {
    int var, value;
  };
  std::vector<Assignment> assignments;
  if (v1 >= 0) assignments.push_back({v1, x});
  if (v2 >= 0 && v2 != v1) assignments.push_back({v2, y});
  const int needed = static_cast<int>(assignments.size());
  const int n_assign = static_cast<int>(rng.between(std::max(needed, cfg_.assignments_min), cfg_.assignments_max));
  std::vector<int> free_vars;
  for (int v = 0; v < cfg_.n_variables; ++v)
    if (v != v1 && v != v2) free_vars.push_back(v);
  rng.shuffle(free_vars);
  for (int i = needed; i < n_assign; ++i)
    assignments.push_back({free_vars[static_cast<size_t>(i - needed)], static_cast<int>(rng.below(cfg_.modulus))});
  rng.shuffle(assignments);

  // Layout: n_assign pair-items and (12 - 2 n_assign) PAD items in a random order.
  const int n_pad = kAssignSlots - 2 * n_assign;
  std::vector<bool> is_pair(static_cast<size_t>(n_assign + n_pad), false);
  std::fill(is_pair.begin(), is_pair.begin() + n_assign, true);
  rng.shuffle(is_pair);
  int pos = 0;
  size_t next = 0;
  for (bool pair : is_pair) {
    if (!pair) {
      e.tokens[static_cast<size_t>(pos++)] = vocab_.pad();
      continue;
    }
    const Assignment& a = assignments[next++];
    e.tokens[static_cast<size_t>(pos)] = vocab_.variable(a.var);
    e.tokens[static_cast<size_t>(pos + 1)] = vocab_.number(a.value);
    if (a.var == v1) e.source_first = pos + 1;
    if (a.var == v2) e.source_second = pos + 1;
    pos += 2;
  }
  e.tokens[kPlusPos] = vocab_.plus();
  e.tokens[kFirstOperandPos] = v1 >= 0 ? vocab_.variable(v1) : vocab_.number(x);
  e.tokens[kSecondOperandPos] = v2 >= 0 ? vocab_.variable(v2) : vocab_.number(y);
  e.tokens[kEqualsPos] = vocab_.equals();
  return e;
}

Example Sampler::sample_with_pair(Rng& rng, int n_vars, PositionRule positions, int x, int y) const {
  int v1, v2;
  choose_variables(rng, n_vars, positions, v1, v2);
  return build(rng, x, y, v1, v2);
}

Example Sampler::sample(Rng& rng, const SetSpec& spec) const {
  int x, y;
  if (spec.pairs == PairRule::Any) {
    x = static_cast<int>(rng.below(cfg_.modulus));
    y = static_cast<int>(rng.below(cfg_.modulus));
  } else {
    const auto& list = spec.pairs == PairRule::Train ? pairs_.train() : pairs_.heldout();
    if (list.empty())
      throw Error("the requested pair set is empty (pair_fraction = " + std::to_string(cfg_.pair_fraction) + ")");
    const auto& p = list[static_cast<size_t>(rng.below(static_cast<int64_t>(list.size())))];
    x = p.first;
    y = p.second;
  }
  return sample_with_pair(rng, spec.n_vars, spec.positions, x, y);
}

Example Sampler::sample_train(Rng& rng) const {
  const double w0 = mix_weight(0), w1 = mix_weight(1), w2 = mix_weight(2);
  const double u = rng.unit() * (w0 + w1 + w2);
  const int k = u < w0 ? 0 : (u < w0 + w1 ? 1 : 2);
  return sample(rng, SetSpec{k, PairRule::Train, PositionRule::Valid});
}

std::vector<Example> Sampler::train_batch(uint64_t seed, int64_t step, int batch_size) const {
  Rng rng(seed, kTrainStream, static_cast<uint64_t>(step));
  std::vector<Example> batch;
  batch.reserve(static_cast<size_t>(batch_size));
  for (int i = 0; i < batch_size; ++i) batch.push_back(sample_train(rng));
  return batch;
}

bool Sampler::resolve(const std::array<int32_t, kSeqLen>& t, int& x, int& y) const {
  auto value_of = [&](int token, int& out) {
    if (vocab_.is_number(token)) {
      out = token;
      return true;
    }
    if (!vocab_.is_variable(token)) return false;
    for (int p = 0; p + 1 < kAssignSlots; ++p)
      if (t[static_cast<size_t>(p)] == token && vocab_.is_number(t[static_cast<size_t>(p + 1)])) {
        out = t[static_cast<size_t>(p + 1)];
        return true;
      }
    return false;
  };
  return value_of(t[kFirstOperandPos], x) && value_of(t[kSecondOperandPos], y);
}

bool Sampler::in_S_A(const Example& e) const {
  int x, y;
  return resolve(e.tokens, x, y) && pairs_.contains(x, y);
}

bool Sampler::in_S_V(const Example& e) const {
  const int t1 = e.tokens[kFirstOperandPos], t2 = e.tokens[kSecondOperandPos];
  if (vocab_.is_variable(t1) && !variable_ok_first(t1 - vocab_.n)) return false;
  if (vocab_.is_variable(t2) && !variable_ok_second(t2 - vocab_.n)) return false;
  return true;
}

std::string Sampler::render(const Example& e) const {
  std::string s;
  for (int t : e.tokens) s += (s.empty() ? "" : " ") + vocab_.name(t);
  return s;
}

}  // namespace cc::assign_and_add::task
