#pragma once
// Attribution: for each claim the default run does not support, which configuration of the paper's
// unstated choices (if any) makes it hold. Reads the per-variant outcomes of several sweeps
// (claims/robustness.h: the attribution search's stages and the robustness sweep), scores every
// configuration by its distance to the paper's reported numbers, estimates each design factor's
// effect, applies the pre-registered rules (the paper's assumptions.md, "Attribution") and writes one
// sentence per claim. The score's terms, the paper's phase windows and the rules' numbers are data:
// the paper's paper.yaml.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "claims/paper_facts.h"
#include "claims/robustness.h"

namespace cc::claims {

struct MeasuredSweep {
  const catalogue::SweepSpec* sweep = nullptr;
  std::vector<VariantOutcome> outcomes;
};

// One-sided exact Mann-Whitney test that `a` tends to be lower than `b` (ties count one half):
// U = #{(x, y): x > y} + #{x == y}/2, p = P(U <= observed) over every split of the pooled values.
struct MannWhitney {
  double u = 0, p = 1;
};
MannWhitney mann_whitney_less(const std::vector<double>& a, const std::vector<double>& b);

// `on_default`: every claim on the default run (the report's main table); facts.screen and
// facts.confirm name the sweeps of the search's first two stages (either may be absent from `sweeps`).
// {"configs": [{id, sweep, variant, seeds, changes, scores, score, learned}], "effects": {...},
//  "selection": {...}, "default_rule": {...}, "claims": [{id, default_verdict, cells, sentence}]}
// `on_thresholds`: the sweep claims measured on facts.thresholds' grids (--sweep-as), or empty.
nlohmann::json attribution_json(const std::vector<ClaimResult>& on_default, const std::string& default_run,
                                const std::vector<MeasuredSweep>& sweeps, const catalogue::Runs& runs,
                                catalogue::RunStore& store, const PaperFacts& facts,
                                const std::vector<ClaimResult>& on_thresholds = {});

}  // namespace cc::claims
