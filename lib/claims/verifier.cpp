#include "claims/verifier.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <mutex>
#include <numeric>
#include <thread>

#include "analysis/intervention.h"
#include "catalogue/sweep_results.h"
#include "train/metrics_log.h"
#include "util/error.h"
#include "util/file_io.h"
#include "util/json_input.h"
#include "util/sha256.h"

namespace cc::claims {

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass:
      return "PASS";
    case Verdict::Fail:
      return "FAIL";
    case Verdict::Inconclusive:
      return "INCONCLUSIVE";
    case Verdict::Skipped:
      return "SKIPPED";
    case Verdict::Invalid:
      return "INVALID";
    default:
      return "ERROR";
  }
}

Verdict decide(Comparison op, double t, Interval ci, double high) {
  if (std::isnan(ci.low) || std::isnan(ci.high)) return Verdict::Inconclusive;
  bool pass = false, fail = false;
  switch (op) {
    case Comparison::Within:
      pass = ci.low >= t && ci.high <= high;
      fail = ci.high < t || ci.low > high;
      break;
    case Comparison::Greater:
      pass = ci.low > t;
      fail = ci.high <= t;
      break;
    case Comparison::GreaterEq:
      pass = ci.low >= t;
      fail = ci.high < t;
      break;
    case Comparison::Less:
      pass = ci.high < t;
      fail = ci.low >= t;
      break;
    case Comparison::LessEq:
      pass = ci.high <= t;
      fail = ci.low > t;
      break;
  }
  return pass ? Verdict::Pass : fail ? Verdict::Fail : Verdict::Inconclusive;
}

namespace {

// A proportion counted over several positions of each sequence is judged over its sequences (Wilson's
// interval at Kish's effective size, analysis/clustered.h); one answer a sequence, over its n trials.
Interval interval_of(const analysis::Measurement& m, analysis::Statistic stat) {
  if (stat == analysis::Statistic::Proportion && m.details.contains("effective_n"))
    return wilson_at(m.n > 0 ? static_cast<double>(m.successes) / static_cast<double>(m.n) : 0.0,
                     m.details["effective_n"].get<double>());
  if (stat == analysis::Statistic::Proportion) return wilson(m.successes, m.n);
  if (!std::isnan(m.ci_low) && !std::isnan(m.ci_high)) return {m.ci_low, m.ci_high};
  return {m.value, m.value};
}

// Why a seed has no measurement: its data (a checkpoint, a sweep's points) is not there, or the kind
// cannot compute its statistic on that model (analysis::Unavailable).
enum class Missing { Data, NotComputable };

// Measures one seed at one stage (a checkpoint, a sweep's points, a theory model's parameters);
// nullopt with `why` (and `missing`) set when that seed cannot be measured.
using SeedMeasure = std::function<std::optional<analysis::Measurement>(uint64_t seed, const Stage& stage,
                                                                       std::string& why, Missing& missing)>;

// An ERROR carries its reason and no number: whatever was measured before the error is not a result.
void mark_error(ClaimResult& r, const std::string& reason) {
  r.verdict = Verdict::Error;
  r.reason = reason;
  r.seeds.clear();
  r.controls.clear();
  r.measured = std::numeric_limits<double>::quiet_NaN();
  r.measured_ci = {};
}

// The claim measured and judged on each seed whose data is available; the others listed in `missing`.
struct SeedsMeasured {
  std::vector<SeedResult> seeds;
  std::vector<uint64_t> missing;
  std::string why;              // why the last missing seed is missing
  bool not_computable = false;  // a seed is missing because the kind cannot compute on it
};

SeedsMeasured measure_seeds(const Claim& c, const SeedMeasure& measure, const std::vector<uint64_t>& seeds,
                            const Stage& stage, WorkPool* pool) {
  // Every seed measured (at once where a pool's threads are free), then read in the seeds' order:
  // the verdict, the first error and the reason do not depend on which thread measured what.
  struct Slot {
    std::optional<analysis::Measurement> m;
    std::string why;
    Missing missing = Missing::Data;
    std::exception_ptr error;
  };
  std::vector<Slot> slots(seeds.size());
  auto measure_one = [&](size_t i) {
    try {
      slots[i].m = measure(seeds[i], stage, slots[i].why, slots[i].missing);
    } catch (...) {
      slots[i].error = std::current_exception();
    }
  };
  analysis::parallel_for(pool, seeds.size(), measure_one);  // in this thread's grad mode, whoever runs a seed
  SeedsMeasured out;
  for (size_t i = 0; i < seeds.size(); ++i) {
    Slot& slot = slots[i];
    const uint64_t seed = seeds[i];
    if (slot.error) std::rethrow_exception(slot.error);
    if (!slot.why.empty()) out.why = slot.why;
    if (!slot.m) {
      out.missing.push_back(seed);
      if (slot.missing == Missing::NotComputable) out.not_computable = true;
      continue;
    }
    // NaN is no value: judged, it would read as an interval that straddles every threshold.
    if (std::isnan(slot.m->value))
      throw Error(c.file + ": seed " + std::to_string(seed) + " at " + stage.text() + ": the measurement '" + c.kind +
                  "' is NaN (undefined), so nothing can be judged");
    SeedResult s;
    s.seed = seed;
    s.m = std::move(*slot.m);
    s.step = s.m.details.value("step", int64_t{0});
    s.ci = interval_of(s.m, c.statistic());
    s.verdict = decide(c.rule.op, c.rule.threshold, s.ci, c.rule.high);
    out.seeds.push_back(std::move(s));
  }
  return out;
}

// The run's history up to `ck` (its step): the metrics log beside it and the run's other
// checkpoints through the store. Only kinds that ask for it get it.
analysis::RunHistory run_history(const catalogue::RunSpec& spec, uint64_t seed, const train::Checkpoint& ck,
                                 catalogue::RunStore& store) {
  analysis::RunHistory h;
  const std::string log = train::metrics_path_beside(ck.path);
  if (!std::filesystem::exists(log)) throw analysis::Unavailable(ck.path + ": no metrics.jsonl beside the checkpoint");
  for (auto& rec : train::MetricsLog::read(log))
    if (rec.at("step").get<int64_t>() <= ck.step) h.metrics.push_back(std::move(rec));
  for (int64_t s = 0; s <= ck.step; ++s)  // the steps the trainer keeps (the same rule), and the subject's own
    if (spec.config.train.keeps_checkpoint(s) || s == ck.step) h.checkpoint_steps.push_back(s);
  h.checkpoint_at = [&spec, seed, &store](int64_t step) {
    std::string why;
    auto at = store.get(spec, seed, step, why);
    if (!at) throw analysis::Unavailable(why);
    return at;
  };
  return h;
}

// The kind's measurement of the checkpoint's model with `edits` in its forwards.
analysis::Measurement edited_measure(const Claim& c, const train::Checkpoint& ck, const nlohmann::json& edits,
                                     const nlohmann::json& p, analysis::ActivationStore* activations) {
  train::Checkpoint edited = ck;
  edited.model = analysis::intervened_model(ck, edits, activations);
  analysis::Measurement m = c.measurement->measure(analysis::MeasureInput{edited, p, nullptr, activations});
  m.details.erase("figures");  // a kind's figures from the run's logs show the model without the edits
  return m;
}

// `intervene:` (analysis/intervention.h): the kind measures the model with the edits in its forwards; with
// `effect: drop`, the clean measurement less that one (with `reference:`, the measurement under the
// reference edits less it), with Newcombe's interval of two independent proportions (wider than a paired
// one of the same sequences: it errs towards INCONCLUSIVE).
analysis::Measurement intervened_measure(const Claim& c, const train::Checkpoint& ck, const nlohmann::json& p,
                                         analysis::ActivationStore* activations) {
  analysis::Measurement m = edited_measure(c, ck, p["intervene"], p, activations);
  m.details["intervene"] = p["intervene"];
  if (p.value("effect", "intervened") != "drop") return m;
  const bool from_reference = p.contains("reference");
  const analysis::Measurement from = from_reference
                                         ? edited_measure(c, ck, p["reference"], p, activations)
                                         : c.measurement->measure(analysis::MeasureInput{ck, p, nullptr, activations});
  if (from.n < 1 || m.n < 1)
    throw Error(c.file + ": the measurement '" + c.kind + "' counted no trials, so it has no drop to judge");
  analysis::Measurement drop;
  drop.value = from.value - m.value;
  drop.n = from.n;
  // Each side over its own unit (its sequences where it counts several positions of each).
  const Interval ci = newcombe_difference(from.value, interval_of(from, analysis::Statistic::Proportion), m.value,
                                          interval_of(m, analysis::Statistic::Proportion));
  drop.ci_low = ci.low;
  drop.ci_high = ci.high;
  drop.details = m.details;
  drop.details[from_reference ? "reference" : "clean"] = from.value;
  if (from_reference) drop.details["reference_intervene"] = p["reference"];
  drop.details["intervened"] = m.value;
  drop.details["n"] = m.n;
  return drop;
}

// A run's checkpoints, through the run store (fixtures, cache, training).
// `params`: the claim's own (c.params) unless another evaluation draw's; it must outlive the measure.
SeedMeasure checkpoint_measure(const Claim& c, const catalogue::RunSpec& spec, catalogue::RunStore& store,
                               analysis::ActivationStore* activations, const nlohmann::json* params = nullptr) {
  const nlohmann::json& p = params ? *params : c.params;
  return [&c, &p, &spec, &store, activations](uint64_t seed, const Stage& stage, std::string& why,
                                              Missing& missing) -> std::optional<analysis::Measurement> {
    const int64_t step = stage.step_of(spec);
    auto ck = store.get(spec, seed, step, why);
    // The claim's (or control's) own step, which the run never keeps and no fixture holds: a mistake of
    // the claim file at any budget, never "not available" (SKIPPED). A kind reading the run's history
    // may still find a step missing (RunHistory::checkpoint_at: analysis::Unavailable).
    if (!ck && !spec.for_seed(seed).train.keeps_checkpoint(step))
      throw Error("run '" + spec.name + "' does not keep a checkpoint at step " + std::to_string(step) +
                  " (its train.checkpoint_steps in runs.yaml do not include it, and no fixture holds it)");
    if (!ck) return std::nullopt;
    analysis::Measurement m;
    try {
      if (c.measurement->needs_history) {
        const analysis::RunHistory history = run_history(spec, seed, *ck, store);
        m = c.measurement->measure(analysis::MeasureInput{*ck, p, &history, activations});
      } else if (p.contains("intervene")) {
        m = intervened_measure(c, *ck, p, activations);
      } else {
        m = c.measurement->measure(analysis::MeasureInput{*ck, p, nullptr, activations});
      }
    } catch (const analysis::NotComputable& e) {
      why = e.what();
      missing = Missing::NotComputable;
      return std::nullopt;
    } catch (const analysis::Unavailable& e) {  // data the budget does not reach
      why = e.what();
      return std::nullopt;
    }
    if (!m.details.contains("step")) m.details["step"] = step;
    return m;
  };
}

// A model the kind defines (§7): no checkpoint; a control runs with its own parameters.
SeedMeasure theory_measure(const Claim& c, const nlohmann::json& params, analysis::ActivationStore* store) {
  return [&c, &params, store](uint64_t seed, const Stage&, std::string&,
                              Missing&) -> std::optional<analysis::Measurement> {
    auto m = c.measurement->measure_theory(analysis::TheoryMeasureInput{params, seed, store});
    if (!m.details.contains("step")) m.details["step"] = 0;
    return m;
  };
}

// A sweep's collected summary (fixtures/sweeps/NAME/summary.jsonl): one series per seed.
SeedMeasure sweep_measure(const Claim& c, const catalogue::SweepSpec& sweep,
                          const std::vector<catalogue::PointResult>& points) {
  if (sweep.axes.size() != 1)
    throw Error("sweep '" + sweep.name + "' has " + std::to_string(sweep.axes.size()) + " axes; kind '" + c.kind +
                "' needs one");
  return [&c, &sweep, &points](uint64_t seed, const Stage& stage, std::string& why,
                               Missing&) -> std::optional<analysis::Measurement> {
    const auto series = catalogue::series_for_seed(sweep.name, points, sweep.axes[0].key, seed,
                                                   stage.is_init() ? catalogue::Stage::Init : catalogue::Stage::Final);
    if (series.points.size() != sweep.axes[0].values.size()) {
      why = "sweep '" + sweep.name + "' seed " + std::to_string(seed) + ": " + std::to_string(series.points.size()) +
            " of " + std::to_string(sweep.axes[0].values.size()) + " points collected";
      return std::nullopt;
    }
    auto m = c.measurement->measure_sweep(analysis::SweepMeasureInput{series, c.params});
    m.details["step"] = series.points.front().step;
    return m;
  };
}

// The collected points of a sweep, checked against its current definition: a summary collected
// from another config would silently answer a different question.
std::vector<catalogue::PointResult> load_sweep_points(const catalogue::SweepSpec& sweep, catalogue::RunStore& store,
                                                      std::string& why) {
  const std::string path =
      catalogue::summary_path(catalogue::sweep_fixtures_dir(store.options().fixtures_dir, sweep.name));
  if (!std::filesystem::exists(path)) {
    if (store.committed(path) || (sweep.committed && store.fixtures_committed()))
      throw Error(path + ": missing (" +
                  (store.committed(path) ? "listed in " + store.options().fixtures_dir + "/MANIFEST.sha256"
                                         : "runs.yaml commits sweep '" + sweep.name + "'") +
                  ")");
    why = "sweep '" + sweep.name + "' has no collected results (" + path + "): run `claimcheck sweep run " +
          sweep.name + "`, then `claimcheck sweep collect " + sweep.name + "`";
    return {};
  }
  store.require_intact(path);  // a committed summary: as fixtures/MANIFEST.sha256 lists it
  // The sweep's own manifest.json records the summary's sha256 when it was collected: a summary
  // replaced (and the fixture manifest re-hashed to match) disagrees with it.
  const std::string sweep_manifest = catalogue::manifest_path(std::filesystem::path(path).parent_path().string());
  if (std::filesystem::exists(sweep_manifest)) {
    store.require_intact(sweep_manifest);
    nlohmann::json m;
    try {
      m = parse_json(read_regular_file(sweep_manifest, kMaxJsonBytes, "sweep manifest"), sweep_manifest);
    } catch (const nlohmann::json::exception& e) {
      throw Error(sweep_manifest + ": not valid JSON: " + e.what());
    }
    const std::string recorded = m.contains("summary_sha256") && m["summary_sha256"].is_string()
                                     ? m["summary_sha256"].get<std::string>()
                                     : std::string();
    const std::string actual = sha256_file(path);
    if (recorded != actual)
      throw Error(path + ": sha256 " + actual + " differs from the summary_sha256 that " + sweep_manifest +
                  " recorded when it was collected (" + (recorded.empty() ? "none" : recorded) + ")");
  }
  auto points = catalogue::read_summary(path);
  for (const auto& p : points) {
    if (p.index >= sweep.points.size() || sweep.points[p.index].config_hash != p.config_hash ||
        sweep.points[p.index].seed != p.seed)
      throw Error(path + ": point " + std::to_string(p.index) + " (config_hash " + p.config_hash +
                  ") is not a point of sweep '" + sweep.name + "' as runs.yaml now defines it: collect it again");
  }
  return points;
}

std::string seed_list(const std::vector<uint64_t>& seeds) {
  std::string s;
  for (uint64_t x : seeds) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

// The parameters a theory claim's control changes (" (phi1: scrambled)"), for the INVALID reason.
std::string changed_params(const Claim& c, const nlohmann::json& control_params) {
  std::string out;
  for (const auto& [key, value] : control_params.items())
    if (!c.params.contains(key) || c.params[key] != value)
      out += (out.empty() ? "" : ", ") + key + ": " + (value.is_string() ? value.get<std::string>() : value.dump());
  return out.empty() ? "" : " (" + out + ")";
}

// "seed 1", "seeds 0 and 2", "seeds 0, 1 and 2": the seeds of `seeds` with verdict `v`; "" when none.
std::string seeds_with(const std::vector<SeedResult>& seeds, Verdict v) {
  std::vector<std::string> ids;
  for (const auto& s : seeds)
    if (s.verdict == v) ids.push_back(std::to_string(s.seed));
  if (ids.empty()) return "";
  std::string out = ids.size() == 1 ? "seed " : "seeds ";
  for (size_t i = 0; i < ids.size(); ++i) out += (i == 0 ? "" : i + 1 == ids.size() ? " and " : ", ") + ids[i];
  return out;
}

// Combines per-seed verdicts under the rule: every seed, k of n seeds, or the mean or median with its
// interval over the seeds (claims/stats.h: the seed range below 5 seeds, and called that).
Verdict combine(const Rule& rule, const std::vector<SeedResult>& seeds, ClaimResult& r) {
  double& measured = r.measured;
  Interval& ci = r.measured_ci;
  std::string& reason = r.reason;
  if (rule.seeds == SeedRule::Fraction) {  // k of n seeds pass: the Wilson interval of k/n against q
    int64_t k = 0;
    for (const auto& s : seeds) k += s.verdict == Verdict::Pass;
    const int64_t n = static_cast<int64_t>(seeds.size());
    measured = static_cast<double>(k) / static_cast<double>(n);
    ci = wilson(k, n);
    r.measured_interval = "Wilson 95 % of k/n";
    r.measured_coverage = 0.95;
    reason = std::to_string(k) + " of " + std::to_string(n) + " seeds pass";
    if (n < rule.min_seeds) {
      reason += "; the rule needs " + std::to_string(rule.min_seeds) + " seeds";
      return Verdict::Inconclusive;
    }
    return decide(Comparison::GreaterEq, rule.fraction, ci);
  }
  std::vector<double> values;
  for (const auto& s : seeds) values.push_back(s.m.value);
  const bool use_median = rule.seeds == SeedRule::Median;
  measured = use_median ? median(values) : mean(values);
  if (seeds.size() == 1) {
    ci = seeds[0].ci;
    r.measured_interval = "one seed";
  } else {
    const SeedSpread spread = seed_interval(values, use_median);
    ci = spread.ci;
    r.measured_interval = seed_interval_name(spread.method);
    r.measured_coverage = spread.coverage;
  }
  const bool each = rule.seeds == SeedRule::Each;
  // Under "each seed", one seed that fails decides: more seeds could not rescue the claim. The reason
  // names every seed that fails (or, without one, every inconclusive seed).
  const std::string failing = seeds_with(seeds, Verdict::Fail), unsure = seeds_with(seeds, Verdict::Inconclusive);
  if (each && !failing.empty()) {
    reason = failing + (failing.rfind("seeds ", 0) == 0 ? " fail" : " fails");
    return Verdict::Fail;
  }
  if (static_cast<int>(seeds.size()) < rule.min_seeds) {
    reason = std::to_string(seeds.size()) + " seed(s) measured, the rule needs " + std::to_string(rule.min_seeds);
    return Verdict::Inconclusive;
  }
  if (!each) return decide(rule.op, rule.threshold, ci, rule.high);
  if (unsure.empty()) return Verdict::Pass;
  reason = unsure + ": the interval straddles the threshold";
  return Verdict::Inconclusive;
}

// What a control that passes fails to separate, for the INVALID reason.
std::string separated(const Claim& c, const Control& ctl) {
  if (ctl.params) return "the model from its control" + changed_params(c, *ctl.params);
  if (!ctl.run.empty()) return "run " + c.subject.name + " from run " + ctl.run + ", which should lack the mechanism";
  if (ctl.stage.is_init()) return "trained from untrained";
  return "the claim's checkpoint from the control checkpoint";
}

// The seeds of `seeds` that `allowed` lists, in their order.
std::vector<uint64_t> among(const std::vector<uint64_t>& seeds, const std::vector<uint64_t>& allowed) {
  std::vector<uint64_t> keep;
  for (uint64_t s : seeds)
    if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) keep.push_back(s);
  return keep;
}

// One control measured: its seeds' results, and `data_missing` when a seed's data is missing.
struct MeasuredControl {
  ControlResult result;
  std::string data_missing;  // why the claim is SKIPPED: a missing file never reads as a passed control
};

// Measures one control on its seeds: the claim's measured seeds on its own subject, or the control
// run's seeds. A seed the kind cannot compute on leaves the control "unavailable", with why.
MeasuredControl measure_control(const Claim& c, const Control& ctl, const catalogue::Runs& runs,
                                catalogue::RunStore& store, const VerifyOptions& opts,
                                const SeedMeasure& subject_measure, const std::vector<uint64_t>& measured) {
  MeasuredControl out;
  out.result.control = ctl;
  SeedsMeasured got;
  if (!ctl.run.empty()) {
    const catalogue::RunSpec& spec = *runs.find(ctl.run);
    // Its own seeds, less those --seeds leaves out.
    const std::vector<uint64_t> seeds = opts.seeds.empty() ? spec.seeds : among(spec.seeds, opts.seeds);
    if (seeds.empty()) {
      out.result.unavailable = "no seed of run " + ctl.run + " is among --seeds";
      return out;
    }
    got = measure_seeds(c, checkpoint_measure(c, spec, store, opts.activations), seeds, ctl.stage, opts.pool);
  } else if (ctl.intervene) {  // the claim's measurement with the control's edits, on its own run
    nlohmann::json params = c.params;
    params["intervene"] = *ctl.intervene;
    got = measure_seeds(c, checkpoint_measure(c, *runs.find(c.subject.name), store, opts.activations, &params),
                        measured, ctl.stage, opts.pool);
  } else {
    got = measure_seeds(c, ctl.params ? theory_measure(c, *ctl.params, opts.activations) : subject_measure, measured,
                        ctl.stage, opts.pool);
  }
  out.result.seeds = std::move(got.seeds);
  if (got.missing.empty()) return out;
  const std::string which = "seed(s) " + seed_list(got.missing) + ": " + got.why;
  if (got.not_computable)
    out.result.unavailable = which;
  else
    out.data_missing = "negative control (" + ctl.text() + ") unavailable for " + which;
  return out;
}

// Measures every negative control and folds them into the verdict: SKIPPED when a control's data is
// missing (the first such control's reason); INVALID when a seed of any control does not clearly fail;
// a claim none of whose controls could be measured says so (and is INVALID under --strict-controls).
void check_controls(const Claim& c, const catalogue::Runs& runs, catalogue::RunStore& store, const VerifyOptions& opts,
                    const SeedMeasure& subject_measure, ClaimResult& r) {
  std::vector<uint64_t> measured;
  for (const auto& sr : r.seeds) measured.push_back(sr.seed);
  std::string data_missing;
  for (const Control& ctl : c.controls) {
    MeasuredControl mc = measure_control(c, ctl, runs, store, opts, subject_measure, measured);
    if (data_missing.empty()) data_missing = mc.data_missing;
    r.controls.push_back(std::move(mc.result));
  }
  if (!data_missing.empty() && r.verdict != Verdict::Skipped) {
    r.verdict = Verdict::Skipped;
    r.reason = data_missing;
  }
  if (r.verdict == Verdict::Skipped) return;
  for (const ControlResult& cr : r.controls)
    for (const SeedResult& sr : cr.seeds) {
      if (sr.verdict == Verdict::Fail) continue;
      r.verdict = Verdict::Invalid;
      r.reason = "negative control (" + cr.control.text() + ", seed " + std::to_string(sr.seed) + ") gave " +
                 std::to_string(sr.m.value) + ", which " +
                 (sr.verdict == Verdict::Pass ? "passes" : "does not clearly fail") +
                 " the rule: the measurement does not separate " + separated(c, cr.control);
      return;
    }
  std::string unavailable;
  r.controls_unavailable = !r.controls.empty();
  for (const ControlResult& cr : r.controls) {
    if (!cr.unavailable.empty())
      unavailable += (unavailable.empty() ? "" : "; ") + cr.control.text() + ": " + cr.unavailable;
    if (!cr.seeds.empty()) r.controls_unavailable = false;
  }
  if (unavailable.empty()) return;
  const std::string note =
      (r.controls_unavailable ? "no negative control could be measured (" : "control unavailable (") + unavailable +
      ")";
  r.reason += (r.reason.empty() ? "" : "; ") + note;
  if (r.controls_unavailable && opts.strict_controls) {
    r.verdict = Verdict::Invalid;
    r.reason = note + ": --strict-controls needs at least one control that can fail";
  }
}

// The claim's seeds measured again another way (another evaluation draw, another reading) and judged by
// its rule. The first measurement had these seeds, so one missing now is an error naming `what`.
struct Remeasured {
  std::vector<SeedResult> seeds;
  Verdict verdict = Verdict::Error;
  double measured = 0;
};

// The seeds judged as a whole by `rule`, as the claim's own result is (the scratch result keeps only
// the verdict and the combined value).
Remeasured combined(const Rule& rule, std::vector<SeedResult> seeds) {
  Remeasured out;
  out.seeds = std::move(seeds);
  ClaimResult scratch;
  out.verdict = combine(rule, out.seeds, scratch);
  out.measured = scratch.measured;
  return out;
}

Remeasured remeasure(const Claim& c, const SeedMeasure& measure, const std::vector<uint64_t>& seeds,
                     const VerifyOptions& opts, const std::string& what) {
  SeedsMeasured again = measure_seeds(c, measure, seeds, c.stage, opts.pool);
  if (!again.missing.empty())
    throw Error(c.file + ": " + what + " could not measure seed(s) " + seed_list(again.missing) + ": " + again.why);
  return combined(c.rule, std::move(again.seeds));
}

// The threshold as a reading (Sensitivity::on_threshold, claim.cpp): the same measurements judged against
// another threshold of the same rule, seed by seed and then combined. Nothing is measured again.
Remeasured rejudge(const Claim& c, const std::vector<SeedResult>& measured, const nlohmann::json& threshold) {
  Rule rule = c.rule;
  rule.threshold = threshold.is_array() ? threshold[0].get<double>() : threshold.get<double>();
  rule.high = threshold.is_array() ? threshold[1].get<double>() : rule.high;
  std::vector<SeedResult> judged = measured;
  for (SeedResult& s : judged) s.verdict = decide(rule.op, rule.threshold, s.ci, rule.high);
  return combined(rule, std::move(judged));
}

// The rule's other evaluation draws (Rule::draws): the same seeds measured again with the next
// eval_seeds, each draw judged by the same rule. A verdict that differs between draws is decided by
// the draw, not the model: INCONCLUSIVE, each draw's verdict and value in the reason. The first draw's
// value stays the claim's (the committed one); the others are kept in the result.
void check_draws(const Claim& c, const catalogue::RunSpec& spec, catalogue::RunStore& store, const VerifyOptions& opts,
                 const std::vector<uint64_t>& seeds, ClaimResult& r) {
  const uint64_t first = c.params["eval_seed"].get<uint64_t>();
  std::vector<Verdict> verdicts = {r.verdict};
  std::vector<double> values = {r.measured};
  for (int k = 1; k < c.rule.draws; ++k) {
    nlohmann::json params = c.params;
    params["eval_seed"] = first + static_cast<uint64_t>(k);
    ClaimResult::Draw d;
    d.eval_seed = first + static_cast<uint64_t>(k);
    Remeasured again = remeasure(c, checkpoint_measure(c, spec, store, opts.activations, &params), seeds, opts,
                                 "evaluation draw " + std::to_string(k + 1));
    d.seeds = std::move(again.seeds);
    d.verdict = again.verdict;
    d.measured = again.measured;
    verdicts.push_back(d.verdict);
    values.push_back(d.measured);
    r.draws.push_back(std::move(d));
  }
  std::string each;
  for (size_t k = 0; k < verdicts.size(); ++k) {
    char value[32];
    std::snprintf(value, sizeof value, "%.4g", values[k]);
    each += (k ? ", " : "") + verdict_name(verdicts[k]) + " " + value;
  }
  const bool same = std::all_of(verdicts.begin(), verdicts.end(), [&](Verdict v) { return v == verdicts[0]; });
  if (same) {
    r.reason += std::string(r.reason.empty() ? "" : "; ") + "the same on each of " + std::to_string(verdicts.size()) +
                " evaluation draws (" + each + ")";
    return;
  }
  r.verdict = Verdict::Inconclusive;
  r.reason = "depends on the evaluation draw: " + each + " on " + std::to_string(verdicts.size()) +
             " independent draws of the same size";
}

// One constant's readings in order of value (the committed one among them): "0.05: PASS 2.5, 0.1
// (committed): PASS 2, 0.2: FAIL 1.33", and where the verdict first changes.
std::string readings_text(const Claim& c, size_t k, Verdict committed_verdict, double committed_value,
                          const std::vector<const ClaimResult::Reading*>& readings, std::string& flip) {
  const Sensitivity& s = c.sensitivity[k];
  struct Row {
    const nlohmann::json* value;
    Verdict verdict;
    double measured;
  };
  std::vector<Row> rows = {{&s.committed, committed_verdict, committed_value}};
  for (const auto* r : readings) rows.push_back({&s.values[r->value], r->verdict, r->measured});
  if (s.committed.is_number())
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.value->get<double>() < b.value->get<double>(); });
  std::string text;
  for (size_t i = 0; i < rows.size(); ++i) {
    char value[32];
    std::snprintf(value, sizeof value, "%.4g", rows[i].measured);
    text += (i ? ", " : "") + rows[i].value->dump() + (rows[i].value == &s.committed ? " (committed)" : "") + ": " +
            verdict_name(rows[i].verdict) + " " + value;
    if (i && flip.empty() && rows[i].verdict != rows[i - 1].verdict)
      flip = s.at + " between " + rows[i - 1].value->dump() + " and " + rows[i].value->dump();
  }
  return text;
}

// The reading's free constants (Claim::sensitivity): the same seeds measured at each other value of
// each constant, judged by the same rule. A verdict that changes inside a declared range is decided by
// the reading, not the model: INCONCLUSIVE, each value's verdict and where it changes in the reason.
// `committed` is the verdict of the committed reading on the first draw.
void check_sensitivity(const Claim& c, const std::function<SeedMeasure(const nlohmann::json&)>& measure_with,
                       const VerifyOptions& opts, const std::vector<uint64_t>& seeds, Verdict committed,
                       ClaimResult& r) {
  const double committed_value = r.measured;
  for (size_t k = 0; k < c.sensitivity.size(); ++k)
    for (size_t v = 0; v < c.sensitivity[k].values.size(); ++v) {
      Remeasured again =
          c.sensitivity[k].on_threshold()
              ? rejudge(c, r.seeds, c.sensitivity[k].values[v])
              : remeasure(c, measure_with(c.sensitivity[k].params[v]), seeds, opts,
                          "the reading " + c.sensitivity[k].at + " = " + c.sensitivity[k].values[v].dump());
      r.readings.push_back({k, v, std::move(again.seeds), again.verdict, again.measured});
    }
  std::string each, flips;
  for (size_t k = 0; k < c.sensitivity.size(); ++k) {
    std::vector<const ClaimResult::Reading*> mine;
    for (const auto& reading : r.readings)
      if (reading.constant == k) mine.push_back(&reading);
    std::string flip;
    each += (k ? "; " : "") + c.sensitivity[k].at + " = " + readings_text(c, k, committed, committed_value, mine, flip);
    if (!flip.empty()) flips += (flips.empty() ? "" : "; ") + flip;
  }
  if (flips.empty()) {
    r.reason += std::string(r.reason.empty() ? "" : "; ") + "the same at every declared reading (" + each + ")";
    return;
  }
  const std::string draws = r.verdict == Verdict::Inconclusive ? "; " + r.reason : "";  // the draws' own doubt
  r.verdict = Verdict::Inconclusive;
  r.reason = "depends on the reading: the verdict changes at " + flips + " (" + each + ")" + draws;
}

}  // namespace

// --run, --run-as and --sweep-as point the claim at another run or sweep; true when --run-as moved a run
// claim (its own seed list may then name seeds the other run lacks).
bool retarget(Claim& c, const catalogue::Runs& runs, const VerifyOptions& opts) {
  Subject& subject = c.subject;
  if (!opts.run.empty() && subject.is_run()) {  // --run re-targets run claims only
    if (!runs.find(opts.run)) throw Error("--run " + opts.run + ": no such run in runs.yaml");
    subject.name = opts.run;
  }
  const bool moved = subject.is_run() && opts.run_as.count(subject.name);
  if (moved) subject.name = opts.run_as.at(subject.name);
  for (Control& ctl : c.controls)
    if (const auto it = opts.run_as.find(ctl.run); !ctl.run.empty() && it != opts.run_as.end()) ctl.run = it->second;
  if (const auto it = opts.sweep_as.find(subject.name); subject.is_sweep() && it != opts.sweep_as.end()) {
    const catalogue::SweepSpec* from = runs.find_sweep(subject.name);
    const catalogue::SweepSpec* to = runs.find_sweep(it->second);
    if (!to) throw Error("--sweep-as " + it->first + "=" + it->second + ": no sweep '" + it->second + "' in runs.yaml");
    if (to->axes.size() != 1 || from->axes.size() != 1 || to->axes[0].key != from->axes[0].key)
      throw Error("--sweep-as " + it->first + "=" + it->second + ": the sweeps do not vary the same one axis");
    subject.name = it->second;
  }
  return moved;
}

// The claim measured on `seeds` and judged: its rule, then the draws, readings and controls it declares.
void measure_and_judge(const Claim& c, const SeedMeasure& measure, const std::vector<uint64_t>& seeds,
                       const catalogue::RunSpec* spec, const catalogue::Runs& runs, catalogue::RunStore& store,
                       const VerifyOptions& opts, ClaimResult& r) {
  SeedsMeasured got = measure_seeds(c, measure, seeds, c.stage, opts.pool);
  r.seeds = std::move(got.seeds);
  if (r.seeds.empty() && got.not_computable)
    // The kind cannot compute on the claim's own subject (memory_recall on a one-layer model, a layer
    // the model lacks): the claim file is wrong, not a budget short of data.
    throw Error(c.file + ": the measurement '" + c.kind + "' cannot be computed on its own subject (" + c.subject.name +
                "): " + got.why);
  if (r.seeds.empty()) {
    r.verdict = Verdict::Skipped;
    r.reason = got.why;
    return;
  }
  r.verdict = combine(c.rule, r.seeds, r);
  r.first_verdict = r.verdict;
  std::vector<uint64_t> measured;
  for (const auto& sr : r.seeds) measured.push_back(sr.seed);
  if (c.rule.draws > 1) {
    if (!spec) throw Error(c.file + ": expect.draws needs a run subject (a model to evaluate again)");
    check_draws(c, *spec, store, opts, measured, r);
  }
  if (!c.sensitivity.empty()) {
    auto measure_with = [&](const nlohmann::json& params) {
      return c.subject.is_theory() ? theory_measure(c, params, opts.activations)
                                   : checkpoint_measure(c, *spec, store, opts.activations, &params);
    };
    check_sensitivity(c, measure_with, opts, measured, r.first_verdict, r);
  }
  r.margin = claim_margin(c.rule, r);
  check_controls(c, runs, store, opts, measure, r);
  if (!got.missing.empty() && r.verdict != Verdict::Skipped && r.verdict != Verdict::Invalid)
    r.reason +=
        std::string(r.reason.empty() ? "" : "; ") + "seed(s) " + seed_list(got.missing) + " not available: " + got.why;
}

ClaimResult run_claim(const std::string& file, const analysis::Registry& registry, const catalogue::Runs& runs,
                      catalogue::RunStore& store, const VerifyOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  ClaimResult r;
  r.file = file;
  r.id = file;
  try {
    r.claim = load_claim(file, registry, runs);
    r.loaded = true;
    r.id = r.claim.id;
    const bool moved = retarget(r.claim, runs, opts);
    const Claim& c = r.claim;
    const bool theory = c.subject.is_theory();
    const catalogue::RunSpec* spec = c.subject.is_run() ? runs.find(c.subject.name) : nullptr;
    const catalogue::SweepSpec* sweep = c.subject.is_sweep() ? runs.find_sweep(c.subject.name) : nullptr;
    std::vector<uint64_t> seeds = !c.seeds.empty() ? c.seeds : spec ? spec->seeds : sweep->seeds;
    // A claim's own seed list may name seeds the other run (--run, --rung) lacks; a theory claim's seeds are
    // Monte Carlo seeds, not runs, and --seeds leaves them alone.
    if (spec && (!opts.run.empty() || moved)) seeds = among(seeds, spec->seeds);
    if (!opts.seeds.empty() && !theory) seeds = among(seeds, opts.seeds);
    std::string why;
    std::vector<catalogue::PointResult> sweep_points;
    if (sweep) sweep_points = load_sweep_points(*sweep, store, why);
    if (seeds.empty()) {
      r.verdict = Verdict::Skipped;
      r.reason = "no seed of the claim is among --seeds";
    } else if (store.options().budget < c.tier) {
      r.verdict = Verdict::Skipped;
      r.reason = "tier " + catalogue::tier_name(c.tier) + " needs --budget " + catalogue::tier_name(c.tier);
    } else if (sweep && sweep_points.empty()) {
      r.verdict = Verdict::Skipped;
      r.reason = why;
    } else {
      const SeedMeasure measure = theory  ? theory_measure(c, c.params, opts.activations)
                                  : sweep ? sweep_measure(c, *sweep, sweep_points)
                                          : checkpoint_measure(c, *spec, store, opts.activations);
      measure_and_judge(c, measure, seeds, spec, runs, store, opts, r);
    }
  } catch (const std::exception& e) {  // cc::Error for bad input; anything else is reported, never a crash
    mark_error(r, e.what());
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::optional<double> claim_margin(const Rule& rule, const ClaimResult& r) {
  if (r.seeds.empty()) return std::nullopt;
  auto half = [](const Interval& i) { return std::isfinite(i.high - i.low) ? (i.high - i.low) / 2 : 0.0; };
  const bool fraction = rule.seeds == SeedRule::Fraction;  // measured is k/n, its interval Wilson's
  const double seeds = r.seeds.size() > 1 || fraction ? half(r.measured_ci) : 0.0;
  double evaluation = 0, low = r.measured, high = r.measured;
  if (!fraction)
    for (const auto& s : r.seeds) evaluation += half(s.ci) / static_cast<double>(r.seeds.size());
  for (const auto& d : r.draws) {
    low = std::min(low, d.measured);
    high = std::max(high, d.measured);
  }
  const double draws = (high - low) / 2;
  const double u = std::sqrt(seeds * seeds + evaluation * evaluation + draws * draws);
  if (!(u > 0) || !std::isfinite(r.measured)) return std::nullopt;
  const double x = r.measured;
  double distance = 0;  // signed: positive on the passing side
  if (fraction) {
    distance = x - rule.fraction;
  } else if (rule.op == Comparison::Within) {
    distance = std::min(x - rule.threshold, rule.high - x);
  } else {
    const bool above = rule.op == Comparison::Greater || rule.op == Comparison::GreaterEq;
    distance = above ? x - rule.threshold : rule.threshold - x;
  }
  return distance / u;
}

std::string last_seconds_key(const std::string& file) {
  return std::filesystem::path(file).lexically_normal().string();
}

std::vector<size_t> start_order(const std::vector<std::string>& files, const std::map<std::string, double>& seconds) {
  auto cost = [&](size_t i) {
    const auto it = seconds.find(last_seconds_key(files[i]));
    return it == seconds.end() ? std::numeric_limits<double>::infinity() : it->second;
  };
  std::vector<size_t> order(files.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cost(a) > cost(b); });
  return order;
}

std::vector<ClaimResult> run_claims(const std::vector<std::string>& files, const analysis::Registry& registry,
                                    const catalogue::Runs& runs, catalogue::RunStore& store,
                                    const VerifyOptions& opts) {
  std::optional<analysis::ActivationStore> own;
  VerifyOptions o = opts;
  if (!o.activations) o.activations = &own.emplace(kActivationStoreBytes);
  o.activations->want(registry.activation_reads());  // each forward then keeps what every kind reads
  std::vector<ClaimResult> results(files.size());
  // Workers take the next file in start_order; each claim's result goes to its own slot. A worker with
  // no file left helps with the seeds of the claims still running, until every claim has ended.
  WorkPool pool;
  if (o.jobs > 1) o.pool = &pool;
  // A thread waiting for another's forward helps with seeds meanwhile, while the pool lives.
  struct Helping {
    analysis::ActivationStore& store;
    ~Helping() { store.help_while_waiting(nullptr); }
  } helping{*o.activations};
  o.activations->help_while_waiting(o.pool);
  const std::vector<size_t> order = start_order(files, o.last_seconds);
  std::atomic<size_t> next{0}, ended{0};
  std::mutex done_mutex;
  size_t done = 0;
  auto work = [&] {
    for (size_t k; (k = next++) < files.size();) {
      const size_t i = order[k];
      results[i] = run_claim(files[i], registry, runs, store, o);
      if (o.on_done) {
        const std::lock_guard<std::mutex> lock(done_mutex);
        o.on_done(results[i], ++done, files.size());
      }
      ++ended;
      pool.notify();
    }
    pool.help_until([&] { return ended == files.size(); });
  };
  std::vector<std::thread> workers;
  for (int j = 1; j < o.jobs; ++j) workers.emplace_back(work);
  work();
  for (auto& w : workers) w.join();
  std::map<std::string, std::string> seen;  // id -> first file
  for (size_t i = 0; i < files.size(); ++i) {
    ClaimResult& r = results[i];
    const std::string& f = files[i];
    if (r.loaded) {
      auto [it, fresh] = seen.emplace(r.id, f);
      if (!fresh) mark_error(r, f + ": duplicate claim id '" + r.id + "' (first defined in " + it->second + ")");
    }
  }
  return results;
}

namespace {

nlohmann::json seed_json(const SeedResult& s) {
  return {{"seed", s.seed},
          {"step", s.step},
          {"value", s.m.value},
          {"n", s.m.n},
          {"ci_low", s.ci.low},
          {"ci_high", s.ci.high},
          {"verdict", verdict_name(s.verdict)},
          {"details", s.m.details}};
}

}  // namespace

nlohmann::json to_json(const ClaimResult& r) {
  nlohmann::json j = {{"id", r.id},
                      {"file", r.file},
                      {"verdict", verdict_name(r.verdict)},
                      {"reason", r.reason},
                      {"seconds", r.seconds}};
  if (!r.loaded) return j;
  const Claim& c = r.claim;
  j["title"] = c.title;
  j["section"] = c.section;
  j["paper"] = {
      {"arxiv", c.paper.arxiv}, {"section", c.paper.section}, {"figure", c.paper.figure}, {"quote", c.paper.quote}};
  j["reported"] = {{"value", c.reported ? nlohmann::json(*c.reported) : nlohmann::json()}, {"text", c.reported_text}};
  j["subject"] = {{c.subject.field(), c.subject.name},
                  {"checkpoint", c.stage.text()},
                  {"seeds", c.seeds.empty() ? nlohmann::json("all") : nlohmann::json(c.seeds)}};
  j["measure"] = {{"kind", c.kind}, {"params", c.params}};
  j["rule"] = c.rule.describe();
  // The rule's bound(s) as numbers: what a figure marks on the measured value's axis.
  j["threshold"] = {{"op", comparison_symbol(c.rule.op)}, {"value", c.rule.threshold}};
  if (c.rule.op == Comparison::Within) j["threshold"]["high"] = c.rule.high;
  j["tier"] = catalogue::tier_name(c.tier);
  if (c.positive_control) j["role"] = "positive_control";
  if (!c.companion_of.empty()) j["companion_of"] = c.companion_of;
  if (!r.seeds.empty()) {
    j["measured"] = {{"value", r.measured},
                     {"ci_low", r.measured_ci.low},
                     {"ci_high", r.measured_ci.high},
                     {"interval", r.measured_interval}};
    if (r.measured_coverage > 0) j["measured"]["coverage"] = r.measured_coverage;
    if (r.margin) j["margin"] = *r.margin;  // derived from the values: not a baseline's
    for (const auto& s : r.seeds) j["seeds"].push_back(seed_json(s));
  }
  for (const auto& d : r.draws) {
    nlohmann::json one = {{"eval_seed", d.eval_seed}, {"verdict", verdict_name(d.verdict)}, {"measured", d.measured}};
    for (const auto& s : d.seeds) one["seeds"].push_back(seed_json(s));
    j["draws"].push_back(one);
  }
  for (const auto& cr : r.controls) {
    nlohmann::json one = {{"control", cr.control.text()}, {"checkpoint", cr.control.stage.text()}};
    if (!cr.control.run.empty()) one["run"] = cr.control.run;
    if (cr.control.params) one["params"] = *cr.control.params;
    if (cr.control.intervene) one["intervene"] = *cr.control.intervene;
    if (!cr.unavailable.empty()) one["unavailable"] = cr.unavailable;
    one["seeds"] = nlohmann::json::array();
    for (const auto& s : cr.seeds) one["seeds"].push_back(seed_json(s));
    j["controls"].push_back(std::move(one));
  }
  for (const auto& s : c.sensitivity)
    j["sensitivity"].push_back({{"at", s.at}, {"committed", s.committed}, {"values", s.values}, {"why", s.why}});
  for (const auto& reading : r.readings) {
    const Sensitivity& s = c.sensitivity[reading.constant];
    nlohmann::json one = {{"at", s.at},
                          {"value", s.values[reading.value]},
                          {"verdict", verdict_name(reading.verdict)},
                          {"measured", reading.measured}};
    for (const auto& sd : reading.seeds) one["seeds"].push_back(seed_json(sd));
    j["readings"].push_back(one);
  }
  if (!c.control_none_reason.empty()) j["control_none"] = c.control_none_reason;
  if (r.controls_unavailable) j["controls_unavailable"] = true;
  return j;
}

}  // namespace cc::claims
