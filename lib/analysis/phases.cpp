#include "analysis/phases.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace cc::analysis {

const PhaseDef* PhaseDefs::find(const std::string& name) const {
  for (const auto& p : phases)
    if (p.name == name) return &p;
  return nullptr;
}

std::optional<int64_t> PhaseSteps::step(const std::string& phase) const {
  const auto it = steps.find(phase);
  return it == steps.end() ? std::nullopt : it->second;
}

std::optional<int64_t> first_reaching(const std::vector<nlohmann::json>& metrics, const std::string& set,
                                      double level) {
  for (const auto& rec : metrics) {
    const auto acc = rec.find("acc");
    if (acc == rec.end() || !acc->contains(set) || !(*acc)[set].is_number()) continue;
    if ((*acc)[set].get<double>() >= level) return rec["step"].get<int64_t>();
  }
  return std::nullopt;
}

PhaseSteps phase_steps(const std::vector<nlohmann::json>& metrics, const PhaseDefs& defs) {
  PhaseSteps p;
  for (const auto& def : defs.phases) {
    // Every set reached: the latest of their first steps.
    std::optional<int64_t> reached;
    for (const auto& set : def.sets) {
      const auto s = first_reaching(metrics, set, def.level);
      if (!s) {
        reached.reset();
        break;
      }
      reached = std::max(reached.value_or(*s), *s);
    }
    p.steps[def.name] = reached;
  }
  p.learned = true;
  for (const auto& name : defs.learned) p.learned = p.learned && p.step(name).has_value();
  if (!metrics.empty()) p.last_step = metrics.back()["step"].get<int64_t>();
  return p;
}

namespace {

std::string level_text(double level) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", level);
  return buf;
}

std::string and_list(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

}  // namespace

std::string describe(const PhaseDef& phase) {
  return and_list(phase.sets) + " >= " + level_text(phase.level) +
         (phase.sets.size() > 1 ? " (the later of their first steps)" : "");
}

std::string learned_text(const PhaseDefs& defs) { return and_list(defs.learned); }

nlohmann::json to_json(const PhaseSteps& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, step] : p.steps) j[name] = step ? nlohmann::json(*step) : nlohmann::json(nullptr);
  j["last_step"] = p.last_step;
  j["learned"] = p.learned;
  return j;
}

}  // namespace cc::analysis
