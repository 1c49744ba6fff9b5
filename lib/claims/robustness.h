#pragma once
// Robustness: the paper reports one run, so each claim is also measured on every variant of a
// sweep with `variants:` (Assign and Add's `robustness`: the default run and one unstated choice
// changed at a time, several seeds each). Per claim and variant: k of n seeds pass, with a Wilson
// interval on the rate; per variant: the phase steps over its seeds (analysis/phases.h); and the
// rule, fixed before any per-claim result was seen, that names the default configuration.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/phases.h"
#include "claims/verifier.h"
#include "claims/paper_facts.h"
#include "catalogue/sweeps.h"

namespace cc::claims {

struct VariantOutcome {
  std::string variant;                              // its name in the sweep
  std::string run;                                  // the run SWEEP/VARIANT
  std::vector<uint64_t> seeds;                      // the sweep's seeds
  std::vector<ClaimResult> results;                 // every claim, re-targeted to the run
  std::map<uint64_t, analysis::PhaseSteps> phases;  // seeds whose final checkpoint and metrics log exist
  std::map<uint64_t, std::string> unavailable;      // seed -> why not
};

// The distance of a step from the window [low, high] of steps: 0 inside it.
double window_distance(double step, int64_t low, int64_t high);

// The seed's phase steps from the metrics log beside its final checkpoint (fixtures or cache;
// training only if the store's budget allows it, as for any claim); nullopt with `why` otherwise.
std::optional<analysis::PhaseSteps> seed_phases(const catalogue::RunSpec& spec, uint64_t seed,
                                                catalogue::RunStore& store, std::string& why);

// Measures every claim file on every variant run of `sweep` (which must have variants).
std::vector<VariantOutcome> run_robustness(const std::vector<std::string>& files, const catalogue::SweepSpec& sweep,
                                           const analysis::Registry& registry, const catalogue::Runs& runs,
                                           catalogue::RunStore& store, const VerifyOptions& base);

// {"sweep", "base", "seeds", "variants": [...phases, distributions, learned k/n...], "claims": [{id, title,
//  cells: {variant: {verdict, k, n, low, high, each, half}}}]: `each` and `half` are the verdicts of
//  the two readings of a single-run statement (every seed passes; at least half do, by Wilson), "default_rule": {rule,
//  complete, ranking, chosen}}.
// Claims on a sweep or a theory model are left out: they do not depend on a run.
// The default rule breaks ties by the paper's phase windows (§6, Figures 8 and 9: paper.yaml).
nlohmann::json robustness_json(const catalogue::SweepSpec& sweep, const std::vector<VariantOutcome>& outcomes,
                               const PaperFacts& facts);

}  // namespace cc::claims
