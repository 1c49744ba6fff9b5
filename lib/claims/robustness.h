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
#include "claims/paper_facts.h"
#include "claims/stats.h"
#include "claims/verifier.h"
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

// The seed's phase steps (the paper's `phases`) from the metrics log beside its final checkpoint
// (fixtures or cache; training only if the store's budget allows it, as for any claim); nullopt with
// `why` otherwise.
std::optional<analysis::PhaseSteps> seed_phases(const catalogue::RunSpec& spec, uint64_t seed,
                                                catalogue::RunStore& store, const analysis::PhaseDefs& phases,
                                                std::string& why);

// Measures every claim file on every variant run of `sweep` (which must have variants).
std::vector<VariantOutcome> run_robustness(const std::vector<std::string>& files, const catalogue::SweepSpec& sweep,
                                           const analysis::Registry& registry, const catalogue::Runs& runs,
                                           catalogue::RunStore& store, const VerifyOptions& base,
                                           const analysis::PhaseDefs& phases);

// k of n seeds, with the Wilson 95 % interval of the rate (none when n is 0).
struct Rate {
  int64_t k = 0, n = 0;
  std::optional<Interval> ci;
  static Rate of(int64_t k, int64_t n);
};

// One phase's step over a variant's seeds: how many of the n seeds read reached it, and the median,
// lowest and highest step of those that did (none when no seed did).
struct StepDistribution {
  int64_t reached = 0, n = 0;
  std::optional<double> median, min, max;
};

struct VariantSummary {
  std::string variant, run;
  std::map<uint64_t, analysis::PhaseSteps> phases;  // the seeds read
  std::map<uint64_t, std::string> unavailable;      // seed -> why not
  std::map<std::string, StepDistribution> steps;    // phase -> its steps over the seeds read
  Rate learned;                                     // seeds that learn the task (PhaseSteps::learned)
};

struct RankedVariant {
  std::string variant;
  int64_t learned = 0, n = 0;
  std::optional<double> distance;  // to the paper's phase windows; none without every windowed phase's median
};

// The rule that names the default configuration, its ranking of the variants with a trained seed
// (best first) and the one it chose; `complete` is false while a seed of some variant is missing.
struct DefaultRule {
  std::string rule;
  bool complete = false;
  std::vector<RankedVariant> ranking;
  std::optional<std::string> chosen;
};

// One claim on one variant: k of n seeds pass; the claim's own verdict there; the two readings of a
// single-run statement (`each`: every seed passes; `half`: at least half do, by Wilson), none when no
// seed was measured; why, when the verdict is neither PASS nor FAIL.
struct RobustnessCell {
  Rate passing;
  Verdict verdict = Verdict::Inconclusive;
  std::optional<Verdict> each, half;
  std::string reason;
};

struct RobustnessRow {
  std::string id, title;
  std::map<std::string, RobustnessCell> cells;  // variant -> cell
};

// The report's robustness section. Claims on a sweep or a theory model are left out: they do not
// depend on a run.
struct RobustnessSection {
  std::string sweep, base;
  std::vector<uint64_t> seeds;
  analysis::PhaseDefs phases;                    // the paper's (paper.yaml), in its order
  std::vector<PaperFacts::PhaseWindow> windows;  // the paper's steps for some of them
  std::vector<VariantSummary> variants;
  DefaultRule default_rule;
  std::vector<RobustnessRow> claims;  // in file order
};

// The section from the measured variants. The default rule breaks ties by the paper's phase windows
// (§6, Figures 8 and 9: paper.yaml).
RobustnessSection robustness_section(const catalogue::SweepSpec& sweep, const std::vector<VariantOutcome>& outcomes,
                                     const PaperFacts& facts);

// report.json's "robustness": {sweep, base, seeds, paper: {PHASE: window}, levels: {PHASE: what it
// means}, learned: the phases a run must reach, variants: [{variant, run, phases,
// unavailable, distribution, learned}], default_rule: {rule, complete, ranking, chosen}, claims: [{id,
// title, cells: {variant: {k, n, rate, low, high, verdict, each, half, reason}}}]}.
nlohmann::json to_json(const RobustnessSection& s);
nlohmann::json to_json(const Rate& r);
// A value or null: report.json writes a missing or non-finite number as null.
nlohmann::json optional_number(const std::optional<double>& v);

}  // namespace cc::claims
