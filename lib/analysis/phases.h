#pragma once
// The phase steps of one training run, read off its metrics log (every set every `eval_every`
// steps): when each part of the task is learned. Which parts, which evaluation sets show them and at
// what accuracy are a paper's own (its paper.yaml `phases:`, read by claims/paper_facts.h); the
// robustness section gives their distribution over seeds per configuration and the attribution score
// their distance to the paper's windows.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cc::analysis {

// One phase: reached at the first logged step at which every set in `sets` has reached `level` (for
// several sets, the latest of their first steps).
struct PhaseDef {
  std::string name;               // a key of paper.yaml's `phases:`; report.json uses it
  std::string label;              // how a report's table heads it; the name when not given
  std::vector<std::string> sets;  // evaluation sets of the run's metrics log
  double level = 0;
};

// A paper's phases, in the order its reports show them, and what "learns the task" means: every phase
// in `learned` reached within the log.
struct PhaseDefs {
  std::vector<PhaseDef> phases;
  std::vector<std::string> learned;
  const PhaseDef* find(const std::string& name) const;
};

struct PhaseSteps {
  std::map<std::string, std::optional<int64_t>> steps;          // phase -> its first step; none: not reached
  int64_t last_step = 0;                                        // the log's last step
  bool learned = false;                                         // every phase of PhaseDefs::learned reached
  std::optional<int64_t> step(const std::string& phase) const;  // none for a phase not reached or not defined
};

// The first logged step at which `set`'s accuracy is >= level (records without it are skipped);
// the one definition of "reaches" for the dynamics kinds and the phase steps.
std::optional<int64_t> first_reaching(const std::vector<nlohmann::json>& metrics, const std::string& set, double level);

// `metrics`: metrics.jsonl records ({"step": s, "acc": {set: accuracy}}), ascending step.
PhaseSteps phase_steps(const std::vector<nlohmann::json>& metrics, const PhaseDefs& defs);

// What the phase means, in words: "test_1 and test_2 >= 0.9 (the later of their first steps)".
std::string describe(const PhaseDef& phase);
// "binding and var_restricted_1"
std::string learned_text(const PhaseDefs& defs);

nlohmann::json to_json(const PhaseSteps& p);  // {PHASE: step or null, ..., last_step, learned}

}  // namespace cc::analysis
