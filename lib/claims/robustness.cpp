#include "claims/robustness.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "catalogue/run_store.h"
#include "catalogue/runs.h"
#include "claims/stats.h"
#include "train/metrics_log.h"

namespace cc::claims {
namespace {

nlohmann::json distribution(const std::map<uint64_t, analysis::PhaseSteps>& phases,
                            std::optional<int64_t> analysis::PhaseSteps::*field) {
  std::vector<double> steps;
  for (const auto& [seed, p] : phases)
    if (p.*field) steps.push_back(static_cast<double>(*(p.*field)));
  nlohmann::json d = {{"reached", steps.size()}, {"n", phases.size()}};
  if (steps.empty()) return d;
  d["median"] = median(steps);
  d["min"] = *std::min_element(steps.begin(), steps.end());
  d["max"] = *std::max_element(steps.begin(), steps.end());
  return d;
}

nlohmann::json rate(int64_t k, int64_t n) {
  nlohmann::json j = {{"k", k}, {"n", n}};
  if (n > 0) {
    const Interval ci = wilson(k, n);
    j["rate"] = static_cast<double>(k) / static_cast<double>(n);
    j["low"] = ci.low;
    j["high"] = ci.high;
  }
  return j;
}

bool run_independent(const ClaimResult& r) { return r.loaded && !r.claim.subject.is_run(); }

}  // namespace

double window_distance(double step, int64_t low, int64_t high) {
  if (step < static_cast<double>(low)) return static_cast<double>(low) - step;
  if (step > static_cast<double>(high)) return step - static_cast<double>(high);
  return 0;
}

std::optional<analysis::PhaseSteps> seed_phases(const catalogue::RunSpec& spec, uint64_t seed,
                                                catalogue::RunStore& store, std::string& why) {
  auto ck = store.get(spec, seed, spec.config.train.steps, why);
  if (!ck) return std::nullopt;
  const auto log = train::metrics_path(std::filesystem::path(ck->path).parent_path().string());
  if (!std::filesystem::exists(log)) {
    why = ck->path + ": no metrics.jsonl beside it";
    return std::nullopt;
  }
  return analysis::phase_steps(train::MetricsLog::read(log));
}

std::vector<VariantOutcome> run_robustness(const std::vector<std::string>& files, const catalogue::SweepSpec& sweep,
                                           const analysis::Registry& registry, const catalogue::Runs& runs,
                                           catalogue::RunStore& store, const VerifyOptions& base) {
  if (sweep.variants.empty())
    throw Error("sweep '" + sweep.name + "' has no variants: robustness needs a sweep with `variants:`");
  std::vector<VariantOutcome> out;
  for (const auto& [variant, changes] : sweep.variants.items()) {
    VariantOutcome v;
    v.variant = variant;
    v.run = sweep.name + "/" + variant;
    v.seeds = sweep.seeds;
    const catalogue::RunSpec* spec = runs.find(v.run);
    if (!spec) throw Error("sweep '" + sweep.name + "': no run " + v.run + " (runs.yaml defines one per variant)");
    VerifyOptions eo = base;
    eo.run = v.run;
    v.results = run_claims(files, registry, runs, store, eo);
    for (uint64_t seed : spec->seeds) {
      std::string why;
      if (auto p = seed_phases(*spec, seed, store, why))
        v.phases[seed] = *p;
      else
        v.unavailable[seed] = why;
    }
    out.push_back(std::move(v));
  }
  return out;
}

nlohmann::json robustness_json(const catalogue::SweepSpec& sweep, const std::vector<VariantOutcome>& outcomes,
                               const PaperFacts& facts) {
  nlohmann::json j = {{"sweep", sweep.name},
                      {"base", sweep.base},
                      {"seeds", sweep.seeds},
                      {"variants", nlohmann::json::array()},
                      {"claims", nlohmann::json::array()}};
  j["paper"] = {{"binding", {facts.binding.low, facts.binding.high}},
                {"refinement", {facts.refinement.low, facts.refinement.high}}};
  j["levels"] = {{"zero_var", "test_0 >= 0.98"},
                 {"binding", "test_1 and test_2 >= 0.9 (the later of the two first steps)"},
                 {"var_restricted", "var_restricted_1 and _2 >= 0.9 (the later of the two)"}};

  // Per variant: phase steps and their distribution, and how many seeds learn the task.
  bool complete = true;
  nlohmann::json ranking = nlohmann::json::array();
  for (const auto& v : outcomes) {
    nlohmann::json phases = nlohmann::json::object(), missing = nlohmann::json::object();
    int64_t learned = 0;
    for (const auto& [seed, p] : v.phases) {
      phases[std::to_string(seed)] = analysis::to_json(p);
      learned += p.learned();
    }
    for (const auto& [seed, why] : v.unavailable) missing[std::to_string(seed)] = why;
    complete = complete && v.unavailable.empty();
    const auto binding = distribution(v.phases, &analysis::PhaseSteps::binding);
    const auto refined = distribution(v.phases, &analysis::PhaseSteps::var_restricted);
    const double inf = std::numeric_limits<double>::infinity();
    const double dist = (binding.contains("median")
                             ? window_distance(binding["median"].get<double>(), facts.binding.low, facts.binding.high)
                             : inf) +
                        (refined.contains("median") ? window_distance(refined["median"].get<double>(),
                                                                      facts.refinement.low, facts.refinement.high)
                                                    : inf);
    const int64_t n = static_cast<int64_t>(v.phases.size());
    j["variants"].push_back({{"variant", v.variant},
                             {"run", v.run},
                             {"phases", phases},
                             {"unavailable", missing},
                             {"distribution",
                              {{"zero_var", distribution(v.phases, &analysis::PhaseSteps::zero_var)},
                               {"binding", binding},
                               {"var_restricted", refined}}},
                             {"learned", rate(learned, n)}});
    if (n > 0)
      ranking.push_back({{"variant", v.variant},
                         {"learned", learned},
                         {"n", n},
                         {"distance", std::isfinite(dist) ? nlohmann::json(dist) : nlohmann::json(nullptr)}});
  }

  // The rule for the default, fixed before the per-claim results were looked at (the paper's assumptions.md):
  // most seeds learning the task (binding and var_restricted_1 >= 0.9 by the last step), ties
  // broken by the distance of the median binding and refinement steps from the paper's ranges.
  std::stable_sort(ranking.begin(), ranking.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    const double ra = a["learned"].get<double>() / a["n"].get<double>(),
                 rb = b["learned"].get<double>() / b["n"].get<double>();
    if (ra != rb) return ra > rb;
    const double da = a["distance"].is_null() ? std::numeric_limits<double>::infinity() : a["distance"].get<double>();
    const double db = b["distance"].is_null() ? std::numeric_limits<double>::infinity() : b["distance"].get<double>();
    return da < db;
  });
  j["default_rule"] = {
      {"rule",
       "the variant whose seeds most often learn the task (test_1 and test_2 >= 0.9, and var_restricted_1 >= 0.9, by "
       "the last "
       "step), ties broken by the smallest |median binding step - " +
           window_text(facts.binding) + "| + |median var-restricted step - " + window_text(facts.refinement) + "|"},
      {"complete", complete && !outcomes.empty()},
      {"ranking", ranking},
      {"chosen", ranking.empty() ? nlohmann::json(nullptr) : ranking.front()["variant"]}};

  // Per claim (in file order, as the first variant lists them): k of n seeds pass, per variant.
  if (outcomes.empty()) return j;
  for (size_t i = 0; i < outcomes.front().results.size(); ++i) {
    const ClaimResult& first = outcomes.front().results[i];
    if (run_independent(first)) continue;
    nlohmann::json claim = {
        {"id", first.id}, {"title", first.loaded ? first.claim.title : ""}, {"cells", nlohmann::json::object()}};
    for (const auto& v : outcomes) {
      const ClaimResult& r = v.results.at(i);
      int64_t k = 0;
      for (const auto& s : r.seeds) k += s.verdict == Verdict::Pass;
      const int64_t n = static_cast<int64_t>(r.seeds.size());
      nlohmann::json cell = rate(k, n);
      cell["verdict"] = verdict_name(r.verdict);
      // The two readings of a single-run statement (the paper's assumptions.md): it holds on every
      // seed, or on at least half of them (Wilson interval of k/n against 1/2).
      if (n > 0) {
        bool any_fail = false;
        for (const auto& s : r.seeds) any_fail = any_fail || s.verdict == Verdict::Fail;
        const int min_seeds = r.loaded ? r.claim.rule.min_seeds : 1;
        cell["each"] = verdict_name(any_fail                   ? Verdict::Fail
                                    : k == n && n >= min_seeds ? Verdict::Pass
                                                               : Verdict::Inconclusive);
        cell["half"] = verdict_name(decide(Comparison::GreaterEq, 0.5, wilson(k, n)));
      }
      if (r.verdict != Verdict::Pass && r.verdict != Verdict::Fail) cell["reason"] = r.reason;
      claim["cells"][v.variant] = cell;
    }
    j["claims"].push_back(claim);
  }
  return j;
}

}  // namespace cc::claims
