#include "analysis/phases.h"

#include <algorithm>
#include <string>

namespace cc::analysis {

std::optional<int64_t> first_reaching(const std::vector<nlohmann::json>& metrics, const std::string& set,
                                      double level) {
  for (const auto& rec : metrics) {
    const auto acc = rec.find("acc");
    if (acc == rec.end() || !acc->contains(set) || !(*acc)[set].is_number()) continue;
    if ((*acc)[set].get<double>() >= level) return rec["step"].get<int64_t>();
  }
  return std::nullopt;
}

namespace {

// Both sets reached: the later of the two first steps.
std::optional<int64_t> both_reaching(const std::vector<nlohmann::json>& metrics, const std::string& a,
                                     const std::string& b, double level) {
  const auto x = first_reaching(metrics, a, level), y = first_reaching(metrics, b, level);
  if (!x || !y) return std::nullopt;
  return std::max(*x, *y);
}

nlohmann::json step_or_null(const std::optional<int64_t>& s) {
  return s ? nlohmann::json(*s) : nlohmann::json(nullptr);
}

}  // namespace

PhaseSteps phase_steps(const std::vector<nlohmann::json>& metrics) {
  PhaseSteps p;
  p.zero_var = first_reaching(metrics, "test_0", kZeroVarLevel);
  p.binding = both_reaching(metrics, "test_1", "test_2", kLearnedLevel);
  p.var_restricted_1 = first_reaching(metrics, "var_restricted_1", kLearnedLevel);
  p.var_restricted = both_reaching(metrics, "var_restricted_1", "var_restricted_2", kLearnedLevel);
  if (!metrics.empty()) p.last_step = metrics.back()["step"].get<int64_t>();
  return p;
}

nlohmann::json to_json(const PhaseSteps& p) {
  return {{"zero_var", step_or_null(p.zero_var)},
          {"binding", step_or_null(p.binding)},
          {"var_restricted_1", step_or_null(p.var_restricted_1)},
          {"var_restricted", step_or_null(p.var_restricted)},
          {"last_step", p.last_step},
          {"learned", p.learned()}};
}

}  // namespace cc::analysis
