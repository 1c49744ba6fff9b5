#include "claims/attribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "catalogue/runs.h"
#include "claims/stats.h"
#include "util/error.h"

namespace cc::claims {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Keys that change only what is logged, or how a step is computed: not a choice about the paper's setup.
const std::set<std::string> kNotChoices = {
    "train.eval_every",       "train.eval_size",    "train.eval_seed", "train.checkpoint_steps",
    "train.checkpoint_every", "train.resume_every", "train.engine"};

// One configuration: a run (SWEEP/VARIANT, or the default run) with its claim results and phases.
struct Config {
  std::string id, sweep, variant;
  bool changes_nothing = false;  // a variant that is its sweep's base itself (a design's row with every factor low)
  const catalogue::RunSpec* spec = nullptr;
  const std::vector<ClaimResult>* results = nullptr;
  std::map<uint64_t, analysis::PhaseSteps> phases;
  std::map<uint64_t, double> scores;     // seeds with every score term measured
  std::map<uint64_t, ScoreTerms> terms;  // the same seeds' scores, term by term
  std::vector<uint64_t> seeds;
  std::vector<std::string> changes;  // its choices that differ from the default run's
  int64_t learned = 0;
  double score = kInf;  // mean over `scores`
};

const ClaimResult* find_result(const std::vector<ClaimResult>& results, const std::string& id) {
  for (const auto& r : results)
    if (r.id == id) return &r;
  return nullptr;
}

// Claim `id`'s result for one seed, or null when that seed was not measured.
const SeedResult* find_seed(const std::vector<ClaimResult>& results, const std::string& id, uint64_t seed) {
  if (const ClaimResult* r = find_result(results, id))
    for (const auto& s : r->seeds)
      if (s.seed == seed) return &s;
  return nullptr;
}

// The per-seed score of the paper's assumptions.md, for every seed with all its terms.
void score(Config& c, const PaperFacts& f) {
  for (const auto& [seed, p] : c.phases) {
    ScoreTerms t;
    bool complete = true;
    for (const auto& term : f.accuracy_terms) {
      const ClaimResult* r = find_result(*c.results, term.claim);
      const SeedResult* sr = find_seed(*c.results, term.claim, seed);
      if (!sr || !std::isfinite(sr->m.value) || (!term.below_threshold && !r->claim.reported)) {
        complete = false;
        break;
      }
      const double acc = 100 * sr->m.value;
      t.accuracy += term.below_threshold ? std::max(0.0, 100 * r->claim.rule.threshold - acc)
                                         : std::abs(acc - 100 * *r->claim.reported);
    }
    if (!complete) continue;
    const double last =
        static_cast<double>(c.spec->config.train.steps);  // a phase never reached counts as reached here
    double total = t.accuracy;
    for (const auto& w : f.windows) {
      const auto step = p.step(w.phase);
      t.windows.push_back(window_distance(step ? static_cast<double>(*step) : last, w.steps.low, w.steps.high) /
                          f.steps_per_point);
      total += t.windows.back();  // summed left to right: accuracy, then the windows in paper.yaml's order
    }
    c.terms[seed] = t;
    c.scores[seed] = total;
  }
  for (const auto& [seed, p] : c.phases) c.learned += p.learned;
  if (!c.scores.empty()) {
    std::vector<double> v;
    for (const auto& [seed, s] : c.scores) v.push_back(s);
    c.score = mean(v);
  }
}

// "key=value" for every config value in which `spec` differs from `reference` (choices only).
std::vector<std::string> differing_choices(const catalogue::RunSpec& spec, const catalogue::RunSpec& reference) {
  std::vector<std::string> out;
  const auto a = spec.config.to_json(), b = reference.config.to_json();
  for (const char* section : {"task", "model", "train"})
    for (const auto& [key, value] : a[section].items()) {
      const std::string full = std::string(section) + "." + key;
      if (kNotChoices.count(full)) continue;
      if (!b[section].contains(key) || b[section][key] != value)
        out.push_back(full + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
    }
  for (const auto& [key, value] : b["train"].items())  // a knob the reference sets and this run leaves at its default
    if (!a["train"].contains(key) && !kNotChoices.count("train." + key)) out.push_back("train." + key + "=(default)");
  return out;
}

struct Tally {
  int64_t k = 0, n = 0;
};
Tally tally(const ClaimResult& r) {
  Tally t;
  for (const auto& s : r.seeds) {
    t.k += s.verdict == Verdict::Pass;
    ++t.n;
  }
  return t;
}

std::optional<double> finite_or_none(double v) { return std::isfinite(v) ? std::optional(v) : std::nullopt; }

// Main effects over a design's rows (every seed a replicate): mean(high) - mean(low) of `value`,
// which returns NaN for a (row, seed) not measured.
template <class F>
double effect(const nlohmann::json& rows, const std::string& factor, const std::vector<Config*>& configs, F value) {
  double sum[2] = {0, 0};
  int64_t count[2] = {0, 0};
  for (const auto* c : configs) {
    int level = 0;
    for (const auto& r : rows)
      if (r["variant"] == c->variant) level = r["levels"][factor].get<int>();
    if (level == 0) continue;
    for (uint64_t seed : c->seeds) {
      const double v = value(*c, seed);
      if (!std::isfinite(v)) continue;
      sum[level > 0] += v;
      ++count[level > 0];
    }
  }
  if (count[0] == 0 || count[1] == 0) return std::numeric_limits<double>::quiet_NaN();
  return sum[1] / static_cast<double>(count[1]) - sum[0] / static_cast<double>(count[0]);
}

// The two-factor interactions aliased with `factor`'s main effect: pairs whose column product is
// the factor's column (up to sign) on every row.
std::vector<std::string> aliases(const nlohmann::json& design, const std::string& factor) {
  std::vector<std::string> names;
  for (const auto& f : design["factors"]) names.push_back(f["name"].get<std::string>());
  std::vector<std::string> out;
  for (size_t a = 0; a < names.size(); ++a)
    for (size_t b = a + 1; b < names.size(); ++b) {
      if (names[a] == factor || names[b] == factor) continue;
      int sign = 0;
      bool same = true;
      for (const auto& r : design["rows"]) {
        const auto& l = r["levels"];
        const int prod = l[names[a]].get<int>() * l[names[b]].get<int>() * l[factor].get<int>();
        if (sign == 0) sign = prod;
        same = same && prod == sign;
      }
      if (same) out.push_back((sign < 0 ? "-" : "") + names[a] + "×" + names[b]);
    }
  return out;
}

std::string rate(const Tally& t) { return std::to_string(t.k) + "/" + std::to_string(t.n); }

}  // namespace

MannWhitney mann_whitney_less(const std::vector<double>& a, const std::vector<double>& b) {
  auto u_of = [](const std::vector<double>& x, const std::vector<double>& y) {
    double u = 0;
    for (double xi : x)
      for (double yj : y) u += xi > yj ? 1.0 : xi == yj ? 0.5 : 0.0;
    return u;
  };
  MannWhitney mw;
  if (a.empty() || b.empty()) return mw;
  mw.u = u_of(a, b);
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  if (pooled.size() > 24) throw Error("mann_whitney_less: more than 24 values (exact enumeration)");
  // Every way of choosing |a| of the pooled values as "a": the permutation distribution of U.
  int64_t total = 0, as_low = 0;
  const size_t n = pooled.size(), k = a.size();
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<size_t>(__builtin_popcount(mask)) != k) continue;
    std::vector<double> x, y;
    for (size_t i = 0; i < n; ++i) ((mask >> i) & 1 ? x : y).push_back(pooled[i]);
    ++total;
    as_low += u_of(x, y) <= mw.u + 1e-9;
  }
  mw.p = static_cast<double>(as_low) / static_cast<double>(total);
  return mw;
}

namespace {

// How much the score moves when nothing the search varies does: from seed to seed within one
// configuration (the spread of its per-seed scores), and between the two engines on the same
// configuration and seeds (two configurations whose only difference is train.engine).
ScoreNoise score_noise(const std::vector<Config>& configs) {
  std::vector<double> spreads;
  for (const auto& c : configs) {
    if (c.scores.size() < 2) continue;
    double lo = kInf, hi = -kInf;
    for (const auto& [seed, s] : c.scores) {
      lo = std::min(lo, s);
      hi = std::max(hi, s);
    }
    spreads.push_back(hi - lo);
  }
  ScoreNoise out;
  out.configs_with_two_seeds = static_cast<int64_t>(spreads.size());
  if (!spreads.empty()) out.median_seed_spread = median(spreads);
  for (const auto& blas : configs)
    for (const auto& torch : configs) {
      // The same choices (train.engine is not one: kNotChoices), trained on the two engines.
      if (blas.spec->config.train.engine != "blas" || torch.spec->config.train.engine != "libtorch" ||
          !differing_choices(*blas.spec, *torch.spec).empty() || !differing_choices(*torch.spec, *blas.spec).empty())
        continue;
      EnginePair pair{torch.id, blas.id, {}, 0};
      double diff = 0;
      for (const auto& [seed, s] : torch.scores) {
        const auto other = blas.scores.find(seed);
        if (other == blas.scores.end()) continue;
        pair.seeds.push_back({seed, s, other->second});
        diff += other->second - s;
      }
      if (pair.seeds.empty()) continue;
      pair.mean_difference = diff / static_cast<double>(pair.seeds.size());
      out.engines.push_back(pair);
    }
  return out;
}

}  // namespace

namespace {

// Every configuration measured: the default run, then each sweep's variants, each scored.
std::vector<Config> measured_configs(const std::vector<ClaimResult>& on_default, const catalogue::RunSpec& reference,
                                     const std::vector<MeasuredSweep>& sweeps, const catalogue::Runs& runs,
                                     catalogue::RunStore& store, const PaperFacts& facts) {
  std::vector<Config> configs;
  Config d;
  d.id = reference.name;
  d.spec = &reference;
  d.results = &on_default;
  d.seeds = reference.seeds;
  for (uint64_t seed : reference.seeds) {
    std::string why;
    if (auto p = seed_phases(reference, seed, store, facts.phases, why)) d.phases[seed] = *p;
  }
  configs.push_back(std::move(d));
  for (const auto& ms : sweeps)
    for (const auto& v : ms.outcomes) {
      Config c;
      c.id = v.run;
      c.sweep = ms.sweep->name;
      c.variant = v.variant;
      c.changes_nothing = ms.sweep->variants.contains(v.variant) && ms.sweep->variants.at(v.variant).empty();
      c.spec = runs.find(v.run);
      c.results = &v.results;
      c.phases = v.phases;
      c.seeds = v.seeds;
      configs.push_back(std::move(c));
    }
  for (auto& c : configs) {
    score(c, facts);
    c.changes = differing_choices(*c.spec, reference);
  }
  return configs;
}

// A configuration as report.json gives it: its per-seed scores and, averaged over seeds, its terms.
ScoredConfig scored(const Config& c, const PaperFacts& facts) {
  ScoredConfig sc;
  sc.id = c.id;
  sc.sweep = c.sweep;
  sc.variant = c.variant;
  sc.seeds = c.seeds;
  sc.changes = c.changes;
  sc.scores = c.scores;
  sc.terms_by_seed = c.terms;
  sc.score = finite_or_none(c.score);
  if (!c.terms.empty()) {
    ScoreTerms mean_terms;
    mean_terms.windows.assign(facts.windows.size(), 0.0);
    const double w = 1.0 / static_cast<double>(c.terms.size());
    for (const auto& [seed, t] : c.terms) {
      mean_terms.accuracy += w * t.accuracy;
      for (size_t k = 0; k < t.windows.size(); ++k) mean_terms.windows[k] += w * t.windows[k];
    }
    sc.terms = mean_terms;
  }
  sc.learned = c.learned;
  sc.trained = static_cast<int64_t>(c.phases.size());
  return sc;
}

double no_value() { return std::numeric_limits<double>::quiet_NaN(); }

// Stage 1: each factor's main effect over the screening design on the score, on learning, and on
// each failing run claim's pass rate.
Effects screening_effects(const std::string& screen, const nlohmann::json& design,
                          const std::vector<Config*>& screen_rows, const std::vector<const ClaimResult*>& failing) {
  Effects effects{screen, design, {}};
  for (const auto& f : design["factors"]) {
    FactorEffect e;
    e.factor = f["name"].get<std::string>();
    e.tag = f["tag"].get<std::string>();
    e.aliases = aliases(design, e.factor);
    e.score = finite_or_none(effect(design["rows"], e.factor, screen_rows, [](const Config& c, uint64_t seed) {
      const auto it = c.scores.find(seed);
      return it == c.scores.end() ? no_value() : it->second;
    }));
    e.learned = finite_or_none(effect(design["rows"], e.factor, screen_rows, [](const Config& c, uint64_t seed) {
      const auto it = c.phases.find(seed);
      return it == c.phases.end() ? no_value() : it->second.learned ? 1.0 : 0.0;
    }));
    for (const auto* r : failing) {
      if (!r->claim.subject.is_run()) continue;
      e.claims[r->id] =
          finite_or_none(effect(design["rows"], e.factor, screen_rows, [&](const Config& c, uint64_t seed) {
            const SeedResult* s = find_seed(*c.results, r->id, seed);
            return !s ? no_value() : s->verdict == Verdict::Pass ? 1.0 : 0.0;
          }));
    }
    effects.factors.push_back(std::move(e));
  }
  return effects;
}

// Stage 1's ranking (score, then learning, then name) and the rows it sends to confirmation; whether
// the confirmation sweep holds exactly those rows and the screening's row that changes nothing.
Selection screening_selection(const std::string& screen, const std::string& confirm,
                              const std::vector<Config*>& screen_rows, const std::vector<Config*>& confirm_rows,
                              const PaperFacts& facts) {
  std::vector<const Config*> ranked(screen_rows.begin(), screen_rows.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const Config* a, const Config* b) {
    if (a->score != b->score) return a->score < b->score;
    if (a->learned != b->learned) return a->learned > b->learned;
    return a->variant < b->variant;
  });
  Selection sel;
  sel.sweep = screen;
  sel.complete = true;
  for (const auto* c : ranked) {
    sel.ranking.push_back(c->variant);
    sel.complete = sel.complete && c->scores.size() == c->seeds.size();
    if (static_cast<int>(sel.chosen.size()) < facts.confirm_top) sel.chosen.push_back(c->variant);
  }
  if (!confirm_rows.empty()) {
    std::set<std::string> want(sel.chosen.begin(), sel.chosen.end()), have;
    // Stage 2 confirms the chosen rows beside the screening's row that changes nothing.
    for (const auto* c : screen_rows)
      if (c->changes_nothing) want.insert(c->variant);
    for (const auto* c : confirm_rows) have.insert(c->variant);
    sel.confirm_sweep = confirm;
    sel.confirm_matches = want == have;
  }
  return sel;
}

// Stage 2: the best confirmed row against the row that changes nothing; the default changes only if
// the best learns as often and beats it at the pre-registered level.
std::optional<DefaultChange> default_rule(const std::vector<Config*>& confirm_rows, const PaperFacts& facts) {
  const Config* best = nullptr;
  const Config* base = nullptr;
  bool complete = !confirm_rows.empty();
  for (const auto* c : confirm_rows) {
    complete = complete && c->scores.size() == c->seeds.size();
    if (c->changes_nothing) base = c;
    if (!best || c->score < best->score) best = c;
  }
  if (!best || !base) return std::nullopt;
  std::vector<double> sb, sa;
  for (const auto& [seed, s] : best->scores) sb.push_back(s);
  for (const auto& [seed, s] : base->scores) sa.push_back(s);
  DefaultChange rule;
  rule.best = best->id;
  rule.base = base->id;
  rule.best_score = finite_or_none(best->score);
  rule.base_score = finite_or_none(base->score);
  rule.best_learned = best->learned;
  rule.base_learned = base->learned;
  rule.test = mann_whitney_less(sb, sa);
  rule.alpha = facts.alpha;
  rule.complete = complete;
  rule.change = best != base && best->learned >= base->learned && rule.test.p < facts.alpha;
  rule.changes = best->changes;
  return rule;
}

// A sweep claim: its verdict on its grid, and on the same grid under the search's best row (stage 3).
std::string sweep_claim_sentence(const ClaimResult& r, const catalogue::Runs& runs,
                                 const std::vector<ClaimResult>& on_thresholds, ClaimAttribution& claim) {
  std::string sentence = std::string("a threshold over the sweep `") + r.claim.subject.name + "` (trained on `" +
                         runs.find_sweep(r.claim.subject.name)->base + "`): " + verdict_name(r.verdict) + " there";
  const ClaimResult* best_grid = find_result(on_thresholds, r.id);
  if (!best_grid || best_grid->verdict == Verdict::Skipped)
    return sentence + "; under the search's best configuration it is the third stage, not measured yet";
  char value[32];
  std::snprintf(value, sizeof value, "%.4g", best_grid->measured);
  claim.under_best = {best_grid->claim.subject.name, best_grid->verdict, finite_or_none(best_grid->measured)};
  return sentence + "; on `" + best_grid->claim.subject.name +
         "`, the same grid under the search's best configuration: " + verdict_name(best_grid->verdict) + " (" + value +
         ")";
}

// A run claim: k/n under every configuration; where it holds (all seeds, at least holds_min_seeds of
// them; the most seeds, then the lowest score), else its best pass rate.
void attribute_run_claim(const ClaimResult& r, const std::vector<Config>& configs, const PaperFacts& facts,
                         ClaimAttribution& claim) {
  const Config* holds = nullptr;
  const Config* best_rate = nullptr;
  Tally holds_t, best_t;
  claim.candidates.emplace();
  int64_t tried = 0;
  for (const auto& c : configs) {
    const ClaimResult* cr = find_result(*c.results, r.id);
    if (!cr || cr->seeds.empty()) continue;
    const Tally t = tally(*cr);
    ++tried;
    claim.cells[c.id] = {t.k, t.n, cr->verdict};
    if (t.k == t.n && t.n >= facts.holds_min_seeds &&
        (!holds || t.n > holds_t.n || (t.n == holds_t.n && c.score < holds->score))) {
      holds = &c;
      holds_t = t;
    }
    if (t.k == t.n && t.n < facts.holds_min_seeds) claim.candidates->push_back(c.id);
    const double rate_c = static_cast<double>(t.k) / static_cast<double>(t.n);
    const double rate_b = best_rate ? static_cast<double>(best_t.k) / static_cast<double>(best_t.n) : -1;
    if (!best_rate || rate_c > rate_b || (rate_c == rate_b && t.n > best_t.n)) {
      best_rate = &c;
      best_t = t;
    }
  }
  if (holds) {
    std::string what;
    for (const auto& x : holds->changes) what += (what.empty() ? "" : ", ") + x;
    claim.holds_under = holds->id;
    claim.sentence = "holds under `" + holds->id + "` (" + rate(holds_t) + " seeds)" +
                     (what.empty() ? std::string(": the default's own choices")
                                   : " — " + what + ": choices the paper does not state");
  } else if (best_rate) {
    claim.best = best_rate->id;
    claim.sentence = "fails under all " + std::to_string(tried) + " configurations tried (best: " + rate(best_t) +
                     " under `" + best_rate->id + "`)";
  } else {
    claim.sentence = "not measured on any configuration";
  }
}

ClaimAttribution attribute_claim(const ClaimResult& r, const std::vector<Config>& configs, const catalogue::Runs& runs,
                                 const PaperFacts& facts, const std::vector<ClaimResult>& on_thresholds) {
  ClaimAttribution claim;
  claim.id = r.id;
  claim.title = r.claim.title;
  claim.default_verdict = r.verdict;
  if (r.claim.subject.is_theory())
    claim.sentence = "measured on a model its kind defines (" + r.claim.subject.name +
                     "), not on a trained run: no training choice applies";
  else if (r.claim.subject.is_sweep())
    claim.sentence = sweep_claim_sentence(r, runs, on_thresholds, claim);
  else
    attribute_run_claim(r, configs, facts, claim);
  return claim;
}

}  // namespace

AttributionSection attribution_section(const std::vector<ClaimResult>& on_default, const std::string& default_run,
                                       const std::vector<MeasuredSweep>& sweeps, const catalogue::Runs& runs,
                                       catalogue::RunStore& store, const PaperFacts& facts,
                                       const std::vector<ClaimResult>& on_thresholds) {
  const catalogue::RunSpec* reference = runs.find(default_run);
  if (!reference) throw Error("attribution: no run '" + default_run + "'");
  std::vector<Config> configs = measured_configs(on_default, *reference, sweeps, runs, store, facts);

  AttributionSection out;
  for (const auto& w : facts.windows) out.windows.push_back({w.phase, facts.phases.find(w.phase)->label, w.steps});
  out.learned = facts.phases.learned;
  out.accuracy_terms = facts.accuracy_terms;
  out.steps_per_point = facts.steps_per_point;
  out.default_run = default_run;
  for (const auto& c : configs) out.configs.push_back(scored(c, facts));

  // Failing claims on the default (run claims first measured there), for the effects and the table.
  std::vector<const ClaimResult*> failing;
  for (const auto& r : on_default)
    if (r.loaded && (r.verdict == Verdict::Fail || r.verdict == Verdict::Inconclusive)) failing.push_back(&r);

  std::vector<Config*> screen_rows, confirm_rows;
  for (auto& c : configs) {
    if (!facts.screen.empty() && c.sweep == facts.screen) screen_rows.push_back(&c);
    if (!facts.confirm.empty() && c.sweep == facts.confirm) confirm_rows.push_back(&c);
  }
  const catalogue::SweepSpec* screen_sweep = facts.screen.empty() ? nullptr : runs.find_sweep(facts.screen);
  if (screen_sweep && !screen_sweep->design.is_null() && !screen_rows.empty())
    out.effects = screening_effects(facts.screen, screen_sweep->design, screen_rows, failing);
  if (!screen_rows.empty())
    out.selection = screening_selection(facts.screen, facts.confirm, screen_rows, confirm_rows, facts);
  out.default_rule = default_rule(confirm_rows, facts);
  out.noise = score_noise(configs);
  for (const auto* r : failing) out.claims.push_back(attribute_claim(*r, configs, runs, facts, on_thresholds));
  return out;
}

namespace {

// {accuracy, PHASE: its window's term, ...}
nlohmann::json to_json(const ScoreTerms& t, const std::vector<AttributionSection::ScoreWindow>& windows) {
  nlohmann::json j = {{"accuracy", t.accuracy}};
  for (size_t k = 0; k < windows.size(); ++k) j[windows[k].phase] = t.windows.at(k);
  return j;
}

nlohmann::json to_json(const ScoredConfig& c, const std::vector<AttributionSection::ScoreWindow>& windows) {
  nlohmann::json scores = nlohmann::json::object(), by_seed = nlohmann::json::object();
  for (const auto& [seed, s] : c.scores) scores[std::to_string(seed)] = s;
  for (const auto& [seed, t] : c.terms_by_seed) by_seed[std::to_string(seed)] = to_json(t, windows);
  return {{"id", c.id},
          {"sweep", c.sweep},
          {"variant", c.variant},
          {"seeds", c.seeds},
          {"changes", c.changes},
          {"scores", scores},
          {"score", optional_number(c.score)},
          {"terms", c.terms ? to_json(*c.terms, windows) : nlohmann::json()},
          {"terms_by_seed", by_seed},
          {"learned", c.learned},
          {"trained", c.trained}};
}

nlohmann::json to_json(const Effects& e) {
  nlohmann::json factors = nlohmann::json::array();
  for (const auto& f : e.factors) {
    nlohmann::json claims = nlohmann::json::object();
    for (const auto& [id, v] : f.claims) claims[id] = optional_number(v);
    factors.push_back({{"factor", f.factor},
                       {"tag", f.tag},
                       {"aliases", f.aliases},
                       {"score", optional_number(f.score)},
                       {"learned", optional_number(f.learned)},
                       {"claims", claims}});
  }
  return {{"sweep", e.sweep}, {"design", e.design}, {"factors", factors}};
}

nlohmann::json to_json(const Selection& s) {
  nlohmann::json j = {{"sweep", s.sweep}, {"ranking", s.ranking}, {"chosen", s.chosen}, {"complete", s.complete}};
  if (s.confirm_sweep) {
    j["confirm_sweep"] = *s.confirm_sweep;
    j["confirm_matches"] = s.confirm_matches;
  }
  return j;
}

nlohmann::json to_json(const DefaultChange& r) {
  return {{"best", r.best},
          {"base", r.base},
          {"best_score", optional_number(r.best_score)},
          {"base_score", optional_number(r.base_score)},
          {"best_learned", r.best_learned},
          {"base_learned", r.base_learned},
          {"u", r.test.u},
          {"p", r.test.p},
          {"alpha", r.alpha},
          {"complete", r.complete},
          {"change", r.change},
          {"changes", r.changes}};
}

nlohmann::json to_json(const ScoreNoise& n) {
  nlohmann::json engines = nlohmann::json::array();
  for (const auto& p : n.engines) {
    nlohmann::json seeds = nlohmann::json::array();
    for (const auto& s : p.seeds) seeds.push_back({{"seed", s.seed}, {"libtorch", s.libtorch}, {"blas", s.blas}});
    engines.push_back(
        {{"libtorch", p.libtorch}, {"blas", p.blas}, {"seeds", seeds}, {"mean_difference", p.mean_difference}});
  }
  return {{"configs_with_two_seeds", n.configs_with_two_seeds},
          {"median_seed_spread", optional_number(n.median_seed_spread)},
          {"engines", engines}};
}

nlohmann::json to_json(const ClaimAttribution& c) {
  nlohmann::json cells = nlohmann::json::object();
  for (const auto& [id, cell] : c.cells)
    cells[id] = {{"k", cell.k}, {"n", cell.n}, {"verdict", verdict_name(cell.verdict)}};
  nlohmann::json j = {{"id", c.id},
                      {"title", c.title},
                      {"default_verdict", verdict_name(c.default_verdict)},
                      {"cells", cells},
                      {"sentence", c.sentence}};
  if (c.candidates) j["candidates"] = *c.candidates;
  if (c.holds_under) j["holds_under"] = *c.holds_under;
  if (c.best) j["best"] = *c.best;
  if (c.under_best)
    j["under_best"] = {{"sweep", c.under_best->sweep},
                       {"verdict", verdict_name(c.under_best->verdict)},
                       {"value", optional_number(c.under_best->value)}};
  return j;
}

}  // namespace

nlohmann::json to_json(const AttributionSection& s) {
  nlohmann::json j;
  j["paper"] = nlohmann::json::object();  // {PHASE: window}; "windows": their order and labels
  j["windows"] = nlohmann::json::array();
  for (const auto& w : s.windows) {
    j["paper"][w.phase] = {w.steps.low, w.steps.high};
    j["windows"].push_back({{"phase", w.phase}, {"label", w.label}});
  }
  j["learned"] = s.learned;
  j["score"] = {{"terms", nlohmann::json::array()}, {"steps_per_point", s.steps_per_point}};
  for (const auto& term : s.accuracy_terms)
    j["score"]["terms"].push_back(
        {{"claim", term.claim}, {"term", term.below_threshold ? "below_threshold" : "distance_to_reported"}});
  j["default_run"] = s.default_run;
  j["configs"] = nlohmann::json::array();
  for (const auto& c : s.configs) j["configs"].push_back(to_json(c, s.windows));
  if (s.effects) j["effects"] = to_json(*s.effects);
  if (s.selection) j["selection"] = to_json(*s.selection);
  if (s.default_rule) j["default_rule"] = to_json(*s.default_rule);
  j["noise"] = to_json(s.noise);
  j["claims"] = nlohmann::json::array();
  for (const auto& c : s.claims) j["claims"].push_back(to_json(c));
  return j;
}

std::vector<ClaimResult> run_on_threshold_grids(const std::vector<std::string>& files, const PaperFacts& facts,
                                                const analysis::Registry& registry, const catalogue::Runs& runs,
                                                catalogue::RunStore& store, const VerifyOptions& base) {
  VerifyOptions on_grids = base;
  for (const auto& [from, to] : facts.thresholds)
    if (runs.find_sweep(to)) on_grids.sweep_as[from] = to;
  std::vector<std::string> sweep_files;
  for (const auto& f : files) {
    try {
      const Claim c = load_claim(f, registry, runs);
      if (c.subject.is_sweep() && on_grids.sweep_as.count(c.subject.name)) sweep_files.push_back(f);
    } catch (const Error&) {  // reported in the main table
    }
  }
  return sweep_files.empty() ? std::vector<ClaimResult>{} : run_claims(sweep_files, registry, runs, store, on_grids);
}

}  // namespace cc::claims
