#pragma once
// A claim file (claims/<section>/<id>.yaml): what the paper says, what to measure on which
// run, and the rule that decides. Schema: docs/claim-files.md.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/registry.h"
#include "catalogue/runs.h"
#include "claims/subject.h"

namespace cc::claims {

enum class Comparison { Greater, GreaterEq, Less, LessEq, Within };  // Within: low <= x <= high
std::string comparison_symbol(Comparison c);

// Each: every seed must pass. Mean / Median: the mean or median over seeds with its interval over
// seeds (claims/stats.h: the seed range below 5 seeds).
// Fraction: at least a fraction q of the seeds pass, judged by the Wilson interval of k of n.
enum class SeedRule { Each, Mean, Median, Fraction };

// The most evaluation draws a rule may ask for: each is a full measurement of every seed.
constexpr int kMaxDraws = 10;

struct Rule {
  Comparison op = Comparison::Greater;
  double threshold = 0;
  double high = 0;  // Within: the range is [threshold, high]
  SeedRule seeds = SeedRule::Each;
  double fraction = 0;  // Fraction: the q that the share of passing seeds must reach
  int min_seeds = 1;
  // Independent evaluation draws the rule must hold on (the claim's eval_seed and the ones after it):
  // a verdict that differs between them is INCONCLUSIVE, decided by the draw rather than the model.
  int draws = 1;
  std::string describe() const;  // "each seed: Wilson 95% CI > 0.98 (>= 3 seeds)"
};

// One negative control (docs/claim-files.md, "Negative controls"): the claim's own subject at another
// checkpoint (`{checkpoint: init}`), another run of runs.yaml that lacks the mechanism
// (`{run: no_weight_decay, checkpoint: final}`: a trained control, measured on that run's seeds), or
// for a theory model the same computation with control parameters (`{params: {...}}`).
struct Control {
  std::string run;                       // "": the claim's subject; else the trained control's run
  Stage stage = Stage::init();           // where on it (Stage::theory_control() for a theory model)
  std::optional<nlohmann::json> params;  // a theory model's control parameters, parsed by the kind
  // The claim's measurement with these edits instead of its own (analysis/intervention.h), on its own subject.
  std::optional<nlohmann::json> intervene;
  // "init", "run no_weight_decay, final" or "params {...}": the control as the report names it.
  std::string text() const;
};

// A free constant of the claim's reading (`sensitivity:`): a parameter of its measurement that the paper
// does not state, with the other values a careful reading could have chosen. The rule must give the same
// verdict at each (one constant varied at a time, the others as committed), else the claim is
// INCONCLUSIVE: it depends on the reading, not on the model.
struct Sensitivity {
  std::string at;                      // a dotted path in the measure block, e.g. denominator.within_of_last
  nlohmann::json committed;            // the value the claim file gives there
  std::vector<nlohmann::json> values;  // the other values, as written
  std::vector<nlohmann::json> params;  // the measurement's parameters at each of them, checked by its kind
  std::string why;                     // the range's argument from the paper (wording, not meaning)

  // `at: expect.threshold`: the rule's threshold as the free constant, judged again on the same
  // measurements (claim.cpp reads it, the verifier rejudges it); nothing is measured again.
  static constexpr const char* kThreshold = "expect.threshold";
  bool on_threshold() const { return at == kThreshold; }
};

// Bounds on `sensitivity:`: each value is a full measurement of every seed.
constexpr size_t kMaxSensitivityConstants = 6;
constexpr size_t kMaxSensitivityValues = 6;

struct Claim {
  std::string file;
  std::string id, title, section;  // section: the folder, e.g. s4_generalization
  struct {
    std::string arxiv, section, figure, quote;
  } paper;
  std::optional<double> reported;     // the paper's number, when it gives one
  std::string reported_text;          // the paper's words for it
  Subject subject;                    // a run, a sweep of runs.yaml, or a model the kind defines (§7)
  Stage stage = Stage::final_step();  // subject.checkpoint (a sweep: final or init; a theory model: theory())
  std::vector<uint64_t> seeds;        // empty: every seed of the run (a theory model's: Monte Carlo seeds)
  std::string kind;
  nlohmann::json params;
  const analysis::MeasurementKind* measurement = nullptr;
  Rule rule;
  // The negative controls: models that should lack the mechanism and are able to fail the rule. The
  // claim is INVALID when any seed of any control does not clearly fail. Empty with
  // `control: {none: reason}`.
  std::vector<Control> controls;
  std::string control_none_reason;
  catalogue::Tier tier = catalogue::Tier::Fixture;
  std::string notes;
  // `role: positive_control`: not a claim of this paper but a check of a measurement on a model known to
  // have the mechanism (e.g. the grokking paper's N6 for Assign and Add's M8b); reports count it apart.
  bool positive_control = false;
  // `companion_of: [M2]`: the structural claims whose mechanism this causal claim tests by removing it;
  // the report shows each with its companions (a structure INVALID, its cause PASS).
  std::vector<std::string> companion_of;
  std::vector<Sensitivity> sensitivity;  // the reading's free constants, each with its other values

  // How its interval is read: the kind's statistic, but a scalar for an intervention's effect
  // (`measure.effect: drop`, the clean value less the intervened one).
  analysis::Statistic statistic() const;
};

// Loads and validates one claim file; every problem is a cc::Error with FILE:LINE:COL.
Claim load_claim(const std::string& path, const analysis::Registry& registry, const catalogue::Runs& runs);
// The same from text (the fuzz target's entry point); `path` names it in errors and sets the section.
Claim load_claim_string(const std::string& text, const std::string& path, const analysis::Registry& registry,
                        const catalogue::Runs& runs);
Claim load_claim_doc(const YamlDoc& doc, const analysis::Registry& registry, const catalogue::Runs& runs);

// Every *.yaml under the given files/directories except runs.yaml, sorted, each file once (however
// often and however spelt it is named).
std::vector<std::string> find_claim_files(const std::vector<std::string>& paths);

}  // namespace cc::claims
