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
#include <optional>
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

// One seed's score, term by term (paper.yaml's `score`): the accuracy terms' sum, and each window's
// term (the phase's distance to the paper's window, in score points), in paper.yaml's order.
struct ScoreTerms {
  double accuracy = 0;
  std::vector<double> windows;
};

// One configuration measured: the default run, or a variant SWEEP/VARIANT of one of the sweeps.
struct ScoredConfig {
  std::string id, sweep, variant;  // sweep and variant empty for the default run
  std::vector<uint64_t> seeds;
  std::vector<std::string> changes;   // "key=value": its choices that differ from the default run's
  std::map<uint64_t, double> scores;  // the seeds with every score term measured
  std::map<uint64_t, ScoreTerms> terms_by_seed;
  std::optional<double> score;      // the mean over `scores`; none without a scored seed
  std::optional<ScoreTerms> terms;  // the mean of `terms_by_seed`, term by term
  int64_t learned = 0;              // seeds that learn the task (the paper's `learned` phases reached)
  int64_t trained = 0;              // seeds whose phases were read
};

// Stage 1: one design factor's main effect, mean(high) - mean(low) over the screening rows (each seed
// a replicate); none where a level has no measured seed.
struct FactorEffect {
  std::string factor, tag;
  std::vector<std::string> aliases;                     // the two-factor interactions confounded with it ("-y×z")
  std::optional<double> score, learned;                 // on the score; on the share of seeds that learn the task
  std::map<std::string, std::optional<double>> claims;  // each failing run claim: on its share of seeds passing
};

struct Effects {
  std::string sweep;
  nlohmann::json design;  // the sweep's design as runs.yaml gives it (catalogue::Design::to_json)
  std::vector<FactorEffect> factors;
};

// Stage 1's ranking of the screening rows by score and the rows it sends to stage 2; whether stage 2's
// sweep holds exactly those rows (and the row that changes nothing).
struct Selection {
  std::string sweep;
  std::vector<std::string> ranking, chosen;
  bool complete = false;  // every screening seed scored
  std::optional<std::string> confirm_sweep;
  bool confirm_matches = false;
};

// Stage 2's rule for the default: the best confirmed row against the row that changes nothing.
struct DefaultChange {
  std::string best, base;
  std::optional<double> best_score, base_score;
  int64_t best_learned = 0, base_learned = 0;
  MannWhitney test;  // the best row's scores lower than the base's
  double alpha = 0.05;
  bool complete = false;             // every confirmation seed scored
  bool change = false;               // the default changes to `best`
  std::vector<std::string> changes;  // `best`'s choices that differ from the default run's
};

// How much the score moves when nothing the search varies does.
struct EnginePair {  // one configuration trained on both engines, seed by seed
  struct Seed {
    uint64_t seed = 0;
    double libtorch = 0, blas = 0;
  };
  std::string libtorch, blas;  // the two configurations' ids
  std::vector<Seed> seeds;
  double mean_difference = 0;  // blas − libtorch
};
struct ScoreNoise {
  int64_t configs_with_two_seeds = 0;
  std::optional<double> median_seed_spread;  // the median over those configurations of max - min score
  std::vector<EnginePair> engines;
};

// One claim the default run does not support: k of n seeds passing under each configuration, and the
// sentence that attributes it.
struct AttributionCell {
  int64_t k = 0, n = 0;
  Verdict verdict = Verdict::Inconclusive;
};
struct ClaimAttribution {
  std::string id, title;
  Verdict default_verdict = Verdict::Fail;
  std::map<std::string, AttributionCell> cells;        // configuration id -> cell (run claims only)
  std::optional<std::vector<std::string>> candidates;  // run claims: every seed passes, too few seeds
  std::optional<std::string> holds_under, best;        // run claims: where it holds, else its best rate
  struct UnderBest {                                   // a sweep claim on the grid under the best row
    std::string sweep;
    Verdict verdict = Verdict::Inconclusive;
    std::optional<double> value;
  };
  std::optional<UnderBest> under_best;
  std::string sentence;
};

// The report's attribution section.
struct AttributionSection {
  struct ScoreWindow {  // a phase the score measures, with the paper's window and the phase's label
    std::string phase, label;
    PaperFacts::Window steps;
  };
  std::vector<ScoreWindow> windows;  // paper.yaml's order: the score sums them in it
  std::vector<std::string> learned;  // the phases a run must reach to learn the task
  std::vector<PaperFacts::ScoreTerm> accuracy_terms;
  double steps_per_point = 1000;
  std::string default_run;
  std::vector<ScoredConfig> configs;  // the default run first, then each sweep's variants
  std::optional<Effects> effects;
  std::optional<Selection> selection;
  std::optional<DefaultChange> default_rule;
  ScoreNoise noise;
  std::vector<ClaimAttribution> claims;  // the default's FAIL and INCONCLUSIVE claims, in its order
};

// Stage 3: the sweep claims among `files` whose sweep paper.yaml's `thresholds` maps to a grid trained
// under the best row (those the runs file declares), measured on that grid. Files that do not load are
// left out (the main table reports them).
std::vector<ClaimResult> run_on_threshold_grids(const std::vector<std::string>& files, const PaperFacts& facts,
                                                const analysis::Registry& registry, const catalogue::Runs& runs,
                                                catalogue::RunStore& store, const VerifyOptions& base);

// `on_default`: every claim on the default run (the report's main table); facts.screen and
// facts.confirm name the sweeps of the search's first two stages (either may be absent from `sweeps`).
// `on_thresholds`: the sweep claims measured on facts.thresholds' grids (--sweep-as), or empty.
AttributionSection attribution_section(const std::vector<ClaimResult>& on_default, const std::string& default_run,
                                       const std::vector<MeasuredSweep>& sweeps, const catalogue::Runs& runs,
                                       catalogue::RunStore& store, const PaperFacts& facts,
                                       const std::vector<ClaimResult>& on_thresholds = {});

// report.json's "attribution" (without its figures): {paper: {PHASE: window}, windows: [{phase,
// label}], learned, score: {terms: [{claim, term}], steps_per_point}, default_run, configs: [{id, sweep,
// variant, seeds, changes, scores, score, terms, terms_by_seed, learned, trained}], effects: {sweep,
// design, factors}, selection, default_rule, noise, claims: [{id, title, default_verdict, cells,
// sentence, ...}]}; schemas/report.schema.json describes it.
nlohmann::json to_json(const AttributionSection& s);

}  // namespace cc::claims
