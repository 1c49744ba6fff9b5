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

StepDistribution distribution(const std::map<uint64_t, analysis::PhaseSteps>& phases, const std::string& phase) {
  std::vector<double> steps;
  for (const auto& [seed, p] : phases)
    if (const auto step = p.step(phase)) steps.push_back(static_cast<double>(*step));
  StepDistribution d;
  d.reached = static_cast<int64_t>(steps.size());
  d.n = static_cast<int64_t>(phases.size());
  if (steps.empty()) return d;
  d.median = median(steps);
  d.min = *std::min_element(steps.begin(), steps.end());
  d.max = *std::max_element(steps.begin(), steps.end());
  return d;
}

nlohmann::json to_json(const StepDistribution& d) {
  nlohmann::json j = {{"reached", d.reached}, {"n", d.n}};
  if (d.median) j["median"] = *d.median;
  if (d.min) j["min"] = *d.min;
  if (d.max) j["max"] = *d.max;
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
                                                catalogue::RunStore& store, const analysis::PhaseDefs& phases,
                                                std::string& why) {
  auto ck = store.get(spec, seed, spec.config.train.steps, why);
  if (!ck) return std::nullopt;
  const auto log = train::metrics_path_beside(ck->path);
  if (!std::filesystem::exists(log)) {
    why = ck->path + ": no metrics.jsonl beside it";
    return std::nullopt;
  }
  return analysis::phase_steps(train::MetricsLog::read(log), phases);
}

std::vector<VariantOutcome> run_robustness(const std::vector<std::string>& files, const catalogue::SweepSpec& sweep,
                                           const analysis::Registry& registry, const catalogue::Runs& runs,
                                           catalogue::RunStore& store, const VerifyOptions& base,
                                           const analysis::PhaseDefs& phases) {
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
      if (auto p = seed_phases(*spec, seed, store, phases, why))
        v.phases[seed] = *p;
      else
        v.unavailable[seed] = why;
    }
    out.push_back(std::move(v));
  }
  return out;
}

Rate Rate::of(int64_t k, int64_t n) {
  Rate r{k, n, std::nullopt};
  if (n > 0) r.ci = wilson(k, n);
  return r;
}

nlohmann::json optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json to_json(const Rate& r) {
  nlohmann::json j = {{"k", r.k}, {"n", r.n}};
  if (r.n > 0) {
    j["rate"] = static_cast<double>(r.k) / static_cast<double>(r.n);
    j["low"] = r.ci->low;
    j["high"] = r.ci->high;
  }
  return j;
}

RobustnessSection robustness_section(const catalogue::SweepSpec& sweep, const std::vector<VariantOutcome>& outcomes,
                                     const PaperFacts& facts) {
  RobustnessSection s;
  s.sweep = sweep.name;
  s.base = sweep.base;
  s.seeds = sweep.seeds;
  s.phases = facts.phases;
  s.windows = facts.windows;

  // Per variant: phase steps and their distribution, and how many seeds learn the task.
  bool complete = true;
  for (const auto& v : outcomes) {
    VariantSummary sum;
    sum.variant = v.variant;
    sum.run = v.run;
    sum.phases = v.phases;
    sum.unavailable = v.unavailable;
    int64_t learned = 0;
    for (const auto& [seed, p] : v.phases) learned += p.learned;
    complete = complete && v.unavailable.empty();
    for (const auto& phase : facts.phases.phases) sum.steps[phase.name] = distribution(v.phases, phase.name);
    const int64_t n = static_cast<int64_t>(v.phases.size());
    sum.learned = Rate::of(learned, n);
    if (n > 0) {
      // The distance of the medians from the paper's windows, summed in paper.yaml's order.
      RankedVariant r{v.variant, learned, n, std::nullopt};
      double distance = 0;
      bool every_median = true;
      for (const auto& w : facts.windows) {
        const auto& median = sum.steps.at(w.phase).median;
        every_median = every_median && median.has_value();
        if (median) distance += window_distance(*median, w.steps.low, w.steps.high);
      }
      if (every_median) r.distance = distance;
      s.default_rule.ranking.push_back(r);
    }
    s.variants.push_back(std::move(sum));
  }

  // The rule for the default, fixed before the per-claim results were looked at (the paper's assumptions.md):
  // most seeds learning the task (reaching the phases of `learned` by the last step), ties broken by
  // the distance of the median steps from the paper's windows.
  auto& ranking = s.default_rule.ranking;
  std::stable_sort(ranking.begin(), ranking.end(), [](const RankedVariant& a, const RankedVariant& b) {
    const double ra = static_cast<double>(a.learned) / static_cast<double>(a.n),
                 rb = static_cast<double>(b.learned) / static_cast<double>(b.n);
    if (ra != rb) return ra > rb;
    const double inf = std::numeric_limits<double>::infinity();
    return a.distance.value_or(inf) < b.distance.value_or(inf);
  });
  std::string distance;
  for (const auto& w : facts.windows)
    distance += (distance.empty() ? "" : " + ") + std::string("|median ") + facts.phases.find(w.phase)->label +
                " step - " + window_text(w.steps) + "|";
  s.default_rule.rule = "the variant whose seeds most often learn the task (" + analysis::learned_text(facts.phases) +
                        " reached by the last step)" +
                        (distance.empty() ? "" : ", ties broken by the smallest " + distance);
  s.default_rule.complete = complete && !outcomes.empty();
  if (!ranking.empty()) s.default_rule.chosen = ranking.front().variant;

  // Per claim (in file order, as the first variant lists them): k of n seeds pass, per variant.
  if (outcomes.empty()) return s;
  for (size_t i = 0; i < outcomes.front().results.size(); ++i) {
    const ClaimResult& first = outcomes.front().results[i];
    if (run_independent(first)) continue;
    RobustnessRow row{first.id, first.loaded ? first.claim.title : "", {}};
    for (const auto& v : outcomes) {
      const ClaimResult& r = v.results.at(i);
      int64_t k = 0;
      for (const auto& sd : r.seeds) k += sd.verdict == Verdict::Pass;
      const int64_t n = static_cast<int64_t>(r.seeds.size());
      RobustnessCell cell;
      cell.passing = Rate::of(k, n);
      cell.verdict = r.verdict;
      // The two readings of a single-run statement (the paper's assumptions.md): it holds on every
      // seed, or on at least half of them (Wilson interval of k/n against 1/2).
      if (n > 0) {
        bool any_fail = false;
        for (const auto& sd : r.seeds) any_fail = any_fail || sd.verdict == Verdict::Fail;
        const int min_seeds = r.loaded ? r.claim.rule.min_seeds : 1;
        cell.each = any_fail ? Verdict::Fail : k == n && n >= min_seeds ? Verdict::Pass : Verdict::Inconclusive;
        cell.half = decide(Comparison::GreaterEq, 0.5, wilson(k, n));
      }
      if (r.verdict != Verdict::Pass && r.verdict != Verdict::Fail) cell.reason = r.reason;
      row.cells[v.variant] = cell;
    }
    s.claims.push_back(std::move(row));
  }
  return s;
}

nlohmann::json to_json(const RobustnessSection& s) {
  nlohmann::json j = {{"sweep", s.sweep},
                      {"base", s.base},
                      {"seeds", s.seeds},
                      {"variants", nlohmann::json::array()},
                      {"claims", nlohmann::json::array()}};
  j["paper"] = nlohmann::json::object();
  for (const auto& w : s.windows) j["paper"][w.phase] = {w.steps.low, w.steps.high};
  j["levels"] = nlohmann::json::object();
  for (const auto& phase : s.phases.phases) j["levels"][phase.name] = analysis::describe(phase);
  j["learned"] = s.phases.learned;
  for (const auto& v : s.variants) {
    nlohmann::json phases = nlohmann::json::object(), missing = nlohmann::json::object();
    for (const auto& [seed, p] : v.phases) phases[std::to_string(seed)] = analysis::to_json(p);
    for (const auto& [seed, why] : v.unavailable) missing[std::to_string(seed)] = why;
    nlohmann::json distribution = nlohmann::json::object();
    for (const auto& [phase, d] : v.steps) distribution[phase] = to_json(d);
    j["variants"].push_back({{"variant", v.variant},
                             {"run", v.run},
                             {"phases", phases},
                             {"unavailable", missing},
                             {"distribution", distribution},
                             {"learned", to_json(v.learned)}});
  }
  nlohmann::json ranking = nlohmann::json::array();
  for (const auto& r : s.default_rule.ranking)
    ranking.push_back(
        {{"variant", r.variant}, {"learned", r.learned}, {"n", r.n}, {"distance", optional_number(r.distance)}});
  j["default_rule"] = {{"rule", s.default_rule.rule},
                       {"complete", s.default_rule.complete},
                       {"ranking", ranking},
                       {"chosen", s.default_rule.chosen ? nlohmann::json(*s.default_rule.chosen) : nlohmann::json()}};
  for (const auto& row : s.claims) {
    nlohmann::json claim = {{"id", row.id}, {"title", row.title}, {"cells", nlohmann::json::object()}};
    for (const auto& [variant, c] : row.cells) {
      nlohmann::json cell = to_json(c.passing);
      cell["verdict"] = verdict_name(c.verdict);
      if (c.each) cell["each"] = verdict_name(*c.each);
      if (c.half) cell["half"] = verdict_name(*c.half);
      if (c.verdict != Verdict::Pass && c.verdict != Verdict::Fail) cell["reason"] = c.reason;
      claim["cells"][variant] = cell;
    }
    j["claims"].push_back(claim);
  }
  return j;
}

}  // namespace cc::claims
