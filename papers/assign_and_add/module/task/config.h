#pragma once
// Every choice that defines the task. Values the paper states are marked so; the others are
// unstated choices with documented defaults, listed in every report (see unstated_choices()).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "util/yaml_json.h"

namespace cc::assign_and_add::task {

constexpr int kSeqLen = 16;       // T (§3)
constexpr int kAssignSlots = 12;  // positions 0..11 hold the assignments
constexpr int kPlusPos = 12;      // '+'
constexpr int kFirstOperandPos = 13;
constexpr int kSecondOperandPos = 14;
constexpr int kEqualsPos = 15;  // '=': the model's answer is read here

struct TaskConfig {
  int modulus = 59;            // N (stated)
  int n_variables = 12;        // V (stated): a..l
  double pair_fraction = 0.7;  // f (stated: "approximately 30%" removed)
  uint64_t pair_seed = 0;      // which pairs are held out (unstated)
  // S_V (stated in §3): these variables never stand at position 13 / 14 in training.
  // §6 reads as if b was held out at position 14; run s6_reading in papers/assign_and_add/runs.yaml swaps the lists.
  std::vector<std::string> restricted_first = {"a", "b"};
  std::vector<std::string> restricted_second = {"g", "h"};
  double ratio_2var_to_0var = 1.0;  // r (§4 sweeps it; its default is unstated)
  double weight_1var = 1.0;         // 1-var share relative to 0-var (unstated)
  int assignments_min = 1;          // assignments per sequence (unstated)
  int assignments_max = 4;
  bool allow_same_variable = false;  // may a 2-var addition be x+x? (unstated)

  static TaskConfig from_yaml(ObjectReader r);  // validates ranges, names FILE:LINE on error
  nlohmann::json to_json() const;
  static TaskConfig from_json(const nlohmann::json& j);
  void validate() const;  // throws cc::Error
};

// Token ids: numbers 0..N-1, variables N..N+V-1, then PAD, '+', '='.
struct Vocab {
  int n = 59, v = 12;
  explicit Vocab(const TaskConfig& c) : n(c.modulus), v(c.n_variables) {}
  int number(int value) const { return value; }
  int variable(int index) const { return n + index; }
  int pad() const { return n + v; }
  int plus() const { return n + v + 1; }
  int equals() const { return n + v + 2; }
  int size() const { return n + v + 3; }
  bool is_number(int t) const { return t >= 0 && t < n; }
  bool is_variable(int t) const { return t >= n && t < n + v; }
  std::string name(int t) const;                        // "17", "b", "PAD", "+", "="
  int variable_index(const std::string& letter) const;  // -1 if not a variable name
};

}  // namespace cc::assign_and_add::task
