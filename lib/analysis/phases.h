#pragma once
// The phase steps of one training run, read off its metrics log (every set every `eval_every`
// steps): when 0-var addition, variable binding and the var-restricted sets are learned (§4
// Figure 2, §6). The robustness report gives their distribution over seeds per configuration;
// the levels are D1's readings of "learned" (claims/s6_dynamics).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cc::analysis {

constexpr double kZeroVarLevel = 0.98;  // test_0: D1's "near-perfect"
constexpr double kLearnedLevel = 0.9;   // the variable sets

struct PhaseSteps {
  std::optional<int64_t> zero_var;          // first logged step with test_0 >= 0.98
  std::optional<int64_t> binding;           // the later of the first steps test_1 and test_2 reach 0.9
  std::optional<int64_t> var_restricted_1;  // first step var_restricted_1 >= 0.9
  std::optional<int64_t> var_restricted;    // the later of the first steps var_restricted_1 and _2 reach 0.9
  int64_t last_step = 0;                    // the log's last step
  // "Learns the task" (the robustness rule for the default, papers/assign_and_add/assumptions.md): binding and
  // var_restricted_1 both reached within the log.
  bool learned() const { return binding.has_value() && var_restricted_1.has_value(); }
};

// The first logged step at which `set`'s accuracy is >= level (records without it are skipped);
// the one definition of "reaches" for the §6 kinds and the phase steps.
std::optional<int64_t> first_reaching(const std::vector<nlohmann::json>& metrics, const std::string& set, double level);

// `metrics`: metrics.jsonl records ({"step": s, "acc": {set: accuracy}}), ascending step.
PhaseSteps phase_steps(const std::vector<nlohmann::json>& metrics);

nlohmann::json to_json(const PhaseSteps& p);  // absent phases as null

}  // namespace cc::analysis
