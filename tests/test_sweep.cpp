// Sweeps: the definitions in a runs file (expansion, validation errors with FILE:LINE:COL), the
// sweep measurement kinds on constructed series, and sweep claims through the verifier on a
// constructed summary (verdicts, the negative control, a summary from another definition).
#include <gtest/gtest.h>

#include "test_helpers.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "claims/verifier.h"
#include "catalogue/sweep_results.h"
#include "util/fixture_manifest.h"
#include "papers/assign_and_add/module/task_family.h"

using namespace cc;
namespace task = cc::assign_and_add::task;  // the paper module whose runs these tests train
using namespace cc::claims;
using namespace cc::catalogue;
namespace fs = std::filesystem;

namespace {

using cc::test::fresh_dir;

const std::string kRuns =
    "runs:\n"
    "  base:\n"
    "    seeds: [0]\n"
    "    config:\n"
    "      model: {d_model: 128, d_head: 128, n_heads: 1, d_mlp: 512, activation: relu, output_vocab: full, init_std: "
    "-1}\n"
    "      train: {steps: 100, batch_size: 128, lr: 1.0e-3, weight_decay: 2.0e-2, beta1: 0.9, beta2: 0.999, eps: "
    "1.0e-8}\n"
    "sweeps:\n"
    "  frac:\n"
    "    base: base\n"
    "    seeds: [0, 1]\n"
    "    set: {train.eval_every: 50}\n"
    "    axes:\n"
    "      task.pair_fraction: [0.1, 0.25, 0.5]\n";

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string runs_error(const std::string& text) {
  const std::string path = write(fresh_dir("sweep_bad"), "runs.yaml", text);
  try {
    Runs::load(path);
  } catch (const Error& e) {
    std::string msg = e.what();
    return msg.substr(msg.find("runs.yaml"));
  }
  return "(loaded)";
}

using cc::test::replace;

}  // namespace

TEST(SweepDefinition, ExpandsAxesTimesSeedsIntoOrdinaryRuns) {
  const Runs runs = Runs::load(write(fresh_dir("sweep_ok"), "runs.yaml", kRuns));
  const SweepSpec* s = runs.find_sweep("frac");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->points.size(), 6u);
  EXPECT_EQ(s->points[0].label(), "task.pair_fraction=0.1 seed=0");
  EXPECT_EQ(s->points[1].label(), "task.pair_fraction=0.1 seed=1");
  EXPECT_EQ(s->points[5].label(), "task.pair_fraction=0.5 seed=1");
  EXPECT_DOUBLE_EQ(assign_and_add::task_config(s->points[2].config).pair_fraction, 0.25);
  EXPECT_EQ(s->points[2].config.train.eval_every, 50);  // `set` applies to every point
  EXPECT_EQ(s->points[2].config.train.steps, 100);      // the rest comes from the base run
  EXPECT_EQ(s->points[3].config.seed, 1u);
  // Each point hashes like the ordinary run it is; the logging cadence is not in the hash.
  train::RunConfig plain = runs.find("base")->for_seed(1);
  task::TaskConfig t = assign_and_add::task_config(plain);
  t.pair_fraction = 0.25;
  assign_and_add::set_task(plain, t);
  EXPECT_EQ(s->points[3].config_hash, plain.weights_hash());
  // Shards interleave: 0/4 gets points 0 and 4.
  const auto shard = s->shard(0, 4);
  ASSERT_EQ(shard.size(), 2u);
  EXPECT_EQ(shard[1]->index, 4u);
}

TEST(SweepDefinition, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(runs_error(replace(kRuns, "task.pair_fraction:", "task.pair_fractio:")).substr(0, 13), "runs.yaml:13:");
  EXPECT_NE(runs_error(replace(kRuns, "task.pair_fraction:", "task.pair_fractio:")).find("unknown config key"),
            std::string::npos);
  EXPECT_NE(runs_error(replace(kRuns, "task.pair_fraction:", "pair_fraction:")).find("task.X, model.X or train.X"),
            std::string::npos);
  // A value the config rejects: the position of that value.
  const std::string bad = runs_error(replace(kRuns, "[0.1, 0.25, 0.5]", "[0.1, 1.5, 0.5]"));
  EXPECT_EQ(bad.substr(0, 15), "runs.yaml:13:33") << bad;
  EXPECT_NE(bad.find("pair_fraction must be in (0, 1]"), std::string::npos) << bad;
  EXPECT_NE(runs_error(replace(kRuns, "[0.1, 0.25, 0.5]", "[0.1, \"x\", 0.5]")).find("expected a number"),
            std::string::npos);
  const std::string dup = runs_error(replace(kRuns, "[0.1, 0.25, 0.5]", "[0.1, 0.25, 0.10]"));
  EXPECT_EQ(dup.substr(0, 15), "runs.yaml:13:39") << dup;
  EXPECT_NE(dup.find("listed twice"), std::string::npos);
  EXPECT_NE(runs_error(replace(kRuns, "[0.1, 0.25, 0.5]", "[]")).find("has no values"), std::string::npos);
  EXPECT_NE(runs_error(replace(kRuns, "base: base", "base: nope")).find("unknown run 'nope'"), std::string::npos);
  EXPECT_NE(runs_error(replace(kRuns, "train.eval_every: 50", "train.eval_every: 0")).find("eval_every"),
            std::string::npos);
  EXPECT_NE(runs_error(replace(kRuns, "seeds: [0, 1]", "seeds: [0, 0]")).find("listed twice"), std::string::npos);
  EXPECT_NE(runs_error(replace(kRuns, "    axes:\n", "    bogus: 1\n    axes:\n")).find("unknown field"),
            std::string::npos);
  // More than kMaxSweepPoints points.
  std::string many = "[";
  for (int i = 0; i < 501; ++i) many += (i ? ", " : "") + std::to_string(i + 1);
  many += "]";
  EXPECT_NE(runs_error(replace(replace(kRuns, "task.pair_fraction: [0.1, 0.25, 0.5]", "train.steps: " + many), "", ""))
                .find("more than 1000 points"),
            std::string::npos);
}

// Variants: one named change to the base at a time (the robustness sweep), errors at the value.
TEST(SweepDefinition, VariantsAreNamedChangesOneAtATime) {
  const std::string variants =
      replace(kRuns, "    axes:\n      task.pair_fraction: [0.1, 0.25, 0.5]\n",
              "    variants:\n"
              "      base: {}\n"
              "      big_batch: {train.batch_size: 256}\n"
              "      swapped: {task.restricted_first: [g, h], task.restricted_second: [a, b]}\n");
  const Runs runs = Runs::load(write(fresh_dir("sweep_var"), "runs.yaml", variants));
  const SweepSpec* s = runs.find_sweep("frac");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->points.size(), 6u);
  EXPECT_EQ(s->points[0].label(), "variant=base seed=0");
  EXPECT_EQ(s->points[3].label(), "variant=big_batch seed=1");
  EXPECT_EQ(s->points[3].config.train.batch_size, 256);
  EXPECT_EQ(s->points[0].config.train.batch_size, runs.find("base")->config.train.batch_size);
  EXPECT_EQ(assign_and_add::task_config(s->points[4].config).restricted_first, (std::vector<std::string>{"g", "h"}));
  EXPECT_EQ(assign_and_add::task_config(s->points[4].config).restricted_second, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s->points[1].config_hash, runs.find("base")->for_seed(1).weights_hash());  // the base itself
  EXPECT_EQ(s->definition()["variants"]["big_batch"]["train.batch_size"], 256);
  // Each variant is also a run, SWEEP/VARIANT, whose cache folders are the sweep points' own.
  const RunSpec* v = runs.find("frac/big_batch");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->seeds, (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(v->config.train.batch_size, 256);
  RunStore store(runs, StoreOptions{"fx", "cache", Tier::Fixture});
  EXPECT_EQ(store.cache_dir(*v, 1), "cache/frac-" + s->points[3].config_hash + "/seed1");
  EXPECT_EQ(store.fixture_dir(*v, 1), "fx/frac/big_batch/seed1");
  // Errors: a variant's bad value at its position, both axes and variants, the same config twice.
  const std::string bad = runs_error(replace(variants, "train.batch_size: 256", "train.batch_size: 0"));
  EXPECT_EQ(bad.substr(0, 13), "runs.yaml:14:") << bad;
  EXPECT_NE(bad.find("variant 'big_batch'"), std::string::npos) << bad;
  EXPECT_NE(runs_error(variants + "    axes:\n      task.pair_fraction: [0.1]\n").find("one of axes"),
            std::string::npos);
  EXPECT_NE(runs_error(replace(variants, "train.batch_size: 256", "train.batch_sz: 256")).find("unknown config key"),
            std::string::npos);
  EXPECT_NE(
      runs_error(replace(variants, "big_batch: {train.batch_size: 256}", "big_batch: {}")).find("the same config"),
      std::string::npos);
}

// A design: the rows of a two-level fractional factorial become the variants, named by the tags
// of their high factors; the low levels must be the base run's; errors name the file and line.
TEST(SweepDefinition, DesignRowsAreVariants) {
  const std::string design = replace(kRuns, "    axes:\n      task.pair_fraction: [0.1, 0.25, 0.5]\n",
                                     "    design:\n"
                                     "      factors:\n"
                                     "        batch: {key: train.batch_size, low: 128, high: 256, tag: b256}\n"
                                     "        clip: {key: train.max_grad_norm, low: 0, high: 1.0}\n"
                                     "        sv:\n"
                                     "          low: {task.restricted_first: [a, b], task.restricted_second: [g, h]}\n"
                                     "          high: {task.restricted_first: [g, h], task.restricted_second: [a, b]}\n"
                                     "          tag: sv6\n"
                                     "      generators: {clip: [batch, sv]}\n");
  const Runs runs = Runs::load(write(fresh_dir("sweep_design"), "runs.yaml", design));
  const SweepSpec* s = runs.find_sweep("frac");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->points.size(), 8u);  // 2^(3-1) rows x 2 seeds
  std::vector<std::string> names;
  for (const auto& v : s->axes[0].values) names.push_back(v.get<std::string>());
  // Base factors batch, sv (name order, the first fastest); clip = -batch x sv, the sign that keeps
  // the row with every factor low (a generator of even length takes the minus sign).
  EXPECT_EQ(names, (std::vector<std::string>{"b256-clip", "b256-sv6", "base", "clip-sv6"}));
  EXPECT_EQ(s->points[4].config_hash, runs.find("base")->for_seed(0).weights_hash());  // "base" is the base run
  const RunSpec* both = runs.find("frac/b256-sv6");
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(both->config.train.batch_size, 256);
  EXPECT_EQ(both->config.train.max_grad_norm, 0.0);
  EXPECT_EQ(runs.find("frac/clip-sv6")->config.train.max_grad_norm, 1.0);
  EXPECT_EQ(runs.find("frac/clip-sv6")->config.train.batch_size, runs.find("base")->config.train.batch_size);
  const nlohmann::json definition = s->definition();
  const auto& rows = definition["design"]["rows"];
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) {
    const auto& l = r["levels"];
    EXPECT_EQ(l["clip"].get<int>(), -l["batch"].get<int>() * l["sv"].get<int>()) << r.dump();
  }
  // Errors, at the factor's line.
  const std::string low = runs_error(replace(design, "low: 128", "low: 64"));
  EXPECT_EQ(low.substr(0, 13), "runs.yaml:14:") << low;
  EXPECT_NE(low.find("not the base run's train.batch_size"), std::string::npos) << low;
  EXPECT_NE(runs_error(replace(design, "[batch, sv]", "[batch, nope]")).find("'nope' is not a base factor"),
            std::string::npos);
  EXPECT_NE(runs_error(replace(design, "[batch, sv]", "[batch]")).find("at least two base factors"), std::string::npos);
  EXPECT_NE(runs_error(replace(design, "train.max_grad_norm", "train.batch_size")).find("varied by another factor"),
            std::string::npos);
  EXPECT_NE(runs_error(replace(design, "high: 1.0", "high: -1.0")).find("max_grad_norm"), std::string::npos);
  EXPECT_NE(runs_error(design + "    variants:\n      x: {}\n").find("one of axes"), std::string::npos);
}

namespace {

analysis::SweepSeries series(const std::vector<double>& xs, const std::vector<int64_t>& correct, int64_t n = 1000) {
  analysis::SweepSeries s;
  s.sweep = "frac";
  s.axis = "task.pair_fraction";
  for (size_t i = 0; i < xs.size(); ++i) s.points.push_back({xs[i], 30000, {{"test_0", {n, correct[i]}}}});
  return s;
}

analysis::Measurement measure(const std::string& kind, const analysis::SweepSeries& s, const std::string& params_yaml) {
  const auto* k = analysis::builtin_registry().find(kind);
  EXPECT_NE(k, nullptr);
  const YamlDoc doc = load_yaml_string(params_yaml, "params");
  const nlohmann::json p = k->parse_params(ObjectReader(doc, ""));
  return k->measure_sweep(analysis::SweepMeasureInput{s, p});
}

}  // namespace

TEST(SweepKinds, ThresholdIsTheSmallestValueFromWhichTheLevelHolds) {
  // 0.1 fails, 0.2 passes, 0.3 fails again, 0.4 and 0.5 pass: the threshold is 0.4, not 0.2.
  const auto s = series({0.1, 0.2, 0.3, 0.4, 0.5}, {500, 990, 970, 985, 999});
  EXPECT_DOUBLE_EQ(measure("sweep_threshold", s, "{set: test_0, level: 0.98}").value, 0.4);
  EXPECT_DOUBLE_EQ(measure("sweep_threshold", s, "{set: test_0, level: 0.5}").value, 0.1);
  // The largest grid value fails: no threshold in the grid.
  const auto never = series({0.1, 0.2}, {990, 900});
  const auto m = measure("sweep_threshold", never, "{set: test_0, level: 0.98}");
  EXPECT_TRUE(std::isinf(m.value));
  EXPECT_FALSE(m.details["reached"].get<bool>());
}

TEST(SweepKinds, AccuracyPicksTheWorstGridValueInRange) {
  const auto s = series({0.1, 0.2, 0.3}, {100, 990, 980});
  auto m = measure("sweep_accuracy", s, "{set: test_0, from: 0.2}");
  EXPECT_EQ(m.successes, 980);
  EXPECT_DOUBLE_EQ(m.details["at"].get<double>(), 0.3);
  EXPECT_EQ(m.details["curve"].size(), 3u);
  m = measure("sweep_accuracy", s, "{set: test_0, to: 0.1, pick: best}");
  EXPECT_EQ(m.successes, 100);
  EXPECT_THROW(measure("sweep_accuracy", s, "{set: test_0, from: 0.6}"), Error);
  EXPECT_THROW(measure("sweep_accuracy", s, "{set: test_1}"), Error);  // no counts for that set
  // Which set is the paper's to say: no default.
  EXPECT_THROW(measure("sweep_accuracy", s, "{from: 0.2}"), Error);
  EXPECT_THROW(measure("sweep_threshold", s, "{set: test_0}"), Error);  // nor a default level
}

namespace {

// A summary as `sweep collect` writes it: final counts from `finals` (per seed, per grid value),
// chance accuracy at step 0.
void write_summary(const SweepSpec& s, const std::string& fixtures, const std::vector<std::vector<int64_t>>& finals) {
  std::vector<PointResult> points;
  for (const auto& p : s.points) {
    PointResult r;
    r.index = p.index;
    r.axes = p.axes;
    r.seed = p.seed;
    r.config_hash = p.config_hash;
    r.final_step = p.config.train.steps;
    r.final_eval_seed = s.final_eval_seed;
    r.final_sets["test_0"] = {1000, finals[p.seed][p.index / s.seeds.size()]};
    r.metrics.push_back({{"step", 0}, {"acc", {{"test_0", 0.02}}}, {"n", {{"test_0", 1000}}}});
    points.push_back(r);
  }
  fs::create_directories(fixtures + "/sweeps/" + s.name);
  std::ofstream(summary_path(fixtures + "/sweeps/" + s.name)) << summary_text(points);
  write_manifest(fixtures);  // committed results are listed in the fixtures manifest
}

const std::string kThresholdClaim =
    "id: T1\n"
    "title: t\n"
    "paper: {arxiv: 2605.31497v1, section: \"4\", quote: q}\n"
    "reported: {value: 0.25, text: \"f ≳ 0.25\"}\n"
    "subject: {sweep: frac, checkpoint: final}\n"
    "measure: {kind: sweep_threshold, set: test_0, level: 0.98}\n"
    "expect: {op: within, threshold: [0.2, 0.3], seeds: median, min_seeds: 2}\n"
    "control: {checkpoint: init}\n";

ClaimResult run_one(const std::string& dir, const Runs& runs, const std::string& claim_text,
                    const VerifyOptions& eo = {}) {
  const std::string claim = write(dir, "claim.yaml", claim_text);
  StoreOptions so;
  so.fixtures_dir = dir + "/fixtures";
  so.cache_dir = dir + "/cache";
  RunStore store(runs, so);
  return run_claim(claim, analysis::builtin_registry(), runs, store, eo);
}

}  // namespace

TEST(SweepClaims, ThresholdVerdictWithControlAndStaleSummary) {
  const std::string dir = fresh_dir("sweep_claims");
  const Runs runs = Runs::load(write(dir, "runs.yaml", kRuns));
  const SweepSpec& s = *runs.find_sweep("frac");
  // No summary yet: SKIPPED with how to make one.
  auto r = run_one(dir, runs, kThresholdClaim);
  EXPECT_EQ(r.verdict, Verdict::Skipped);
  EXPECT_NE(r.reason.find("claimcheck sweep run frac"), std::string::npos) << r.reason;

  write_summary(s, dir + "/fixtures", {{500, 985, 999}, {400, 990, 995}});  // f* = 0.25 on both seeds
  r = run_one(dir, runs, kThresholdClaim);
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason;
  EXPECT_DOUBLE_EQ(r.measured, 0.25);
  ASSERT_EQ(r.controls.size(), 1u);
  ASSERT_EQ(r.controls[0].seeds.size(), 2u);
  EXPECT_TRUE(std::isinf(r.controls[0].seeds[0].m.value));  // step 0: never reaches 98 %
  EXPECT_EQ(r.controls[0].seeds[0].verdict, Verdict::Fail);

  write_summary(s, dir + "/fixtures", {{500, 970, 999}, {400, 900, 995}});  // f* = 0.5: outside [0.2, 0.3]
  r = run_one(dir, runs, kThresholdClaim);
  EXPECT_EQ(r.verdict, Verdict::Fail) << r.reason;

  // The "each seed >" rule on the worst grid value, and a kind/subject mismatch.
  const std::string each =
      replace(replace(replace(kThresholdClaim, "sweep_threshold, set: test_0, level: 0.98",
                              "sweep_accuracy, set: test_0, from: 0.25"),
                      "op: within, threshold: [0.2, 0.3], seeds: median", "op: \">\", threshold: 0.98, seeds: each"),
              "", "");
  r = run_one(dir, runs, each);
  EXPECT_EQ(r.verdict, Verdict::Fail) << r.reason;  // seed 0 at 0.25: 970/1000
  ASSERT_FALSE(r.seeds.empty());
  EXPECT_EQ(r.seeds[0].m.successes, 970);
  r = run_one(dir, runs,
              replace(kThresholdClaim, "sweep_threshold, set: test_0, level: 0.98", "accuracy, set: test_0"));
  EXPECT_EQ(r.verdict, Verdict::Error);
  EXPECT_NE(r.reason.find("measures a run's checkpoint"), std::string::npos) << r.reason;

  // The summary changed after the manifest was written (an edit in a pull request): ERROR, not a verdict.
  { std::ofstream(summary_path(dir + "/fixtures/sweeps/frac"), std::ios::app) << "\n"; }
  r = run_one(dir, runs, kThresholdClaim);
  EXPECT_EQ(r.verdict, Verdict::Error);
  EXPECT_NE(r.reason.find("summary.jsonl: sha256 differs from"), std::string::npos) << r.reason;
  write_manifest(dir + "/fixtures");

  // The definition changed after collecting: the summary answers another question -> ERROR.
  const Runs changed = Runs::load(write(dir, "runs.yaml", replace(kRuns, "steps: 100", "steps: 120")));
  r = run_one(dir, changed, kThresholdClaim);
  EXPECT_EQ(r.verdict, Verdict::Error);
  EXPECT_NE(r.reason.find("collect it again"), std::string::npos) << r.reason;
}

// --sweep-as: the claim reads another sweep over the same axis (the attribution's threshold stage).
TEST(SweepClaims, SweepAsReadsTheSameGridUnderOtherChoices) {
  const std::string dir = fresh_dir("sweep_as");
  const std::string text =
      kRuns +
      "  frac_b256:\n    base: base\n    seeds: [0, 1]\n    set: {train.eval_every: 50, train.batch_size: 256}\n"
      "    axes:\n      task.pair_fraction: [0.1, 0.25, 0.5]\n"
      "  other_axis:\n    base: base\n    axes:\n      task.ratio_2var_to_0var: [0.1, 0.5]\n";
  const Runs runs = Runs::load(write(dir, "runs.yaml", text));
  write_summary(*runs.find_sweep("frac"), dir + "/fixtures", {{500, 970, 999}, {400, 900, 995}});       // f* = 0.5
  write_summary(*runs.find_sweep("frac_b256"), dir + "/fixtures", {{500, 985, 999}, {400, 990, 995}});  // f* = 0.25
  VerifyOptions eo;
  EXPECT_EQ(run_one(dir, runs, kThresholdClaim, eo).verdict, Verdict::Fail);
  eo.sweep_as["frac"] = "frac_b256";
  const auto r = run_one(dir, runs, kThresholdClaim, eo);
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason;
  EXPECT_EQ(r.claim.subject.name, "frac_b256");
  EXPECT_TRUE(r.claim.subject.is_sweep());
  eo.sweep_as["frac"] = "other_axis";
  EXPECT_NE(run_one(dir, runs, kThresholdClaim, eo).reason.find("do not vary the same one axis"), std::string::npos);
  eo.sweep_as["frac"] = "nope";
  EXPECT_NE(run_one(dir, runs, kThresholdClaim, eo).reason.find("no sweep 'nope'"), std::string::npos);
}

TEST(SweepClaims, WithinAndMedianRules) {
  EXPECT_EQ(decide(Comparison::Within, 0.2, {0.2, 0.3}, 0.3), Verdict::Pass);
  EXPECT_EQ(decide(Comparison::Within, 0.2, {0.15, 0.25}, 0.3), Verdict::Inconclusive);
  EXPECT_EQ(decide(Comparison::Within, 0.2, {0.4, INFINITY}, 0.3), Verdict::Fail);
  EXPECT_EQ(decide(Comparison::Within, 0.2, {0.1, 0.15}, 0.3), Verdict::Fail);
  EXPECT_DOUBLE_EQ(median({0.3, INFINITY, 0.25}), 0.3);
  const auto ci = seed_interval({0.25, 0.25, 0.3}, true).ci;  // 3 seeds: their range
  EXPECT_EQ(ci.low, 0.25);
  EXPECT_EQ(ci.high, 0.3);
}

// Run, sweep and variant names become folder names (fixtures/NAME, CACHE/NAME-HASH): a name that
// could leave the folder (a sweep named ../../../../x trained outside --cache) is refused at load.
TEST(SweepDefinition, NamesThatCouldLeaveTheirFolderAreRefused) {
  EXPECT_NE(runs_error(replace(kRuns, "  frac:\n", "  ../../../../x:\n"))
                .find("runs.yaml:8:3: sweep name '../../../../x' must be"),
            std::string::npos)
      << runs_error(replace(kRuns, "  frac:\n", "  ../../../../x:\n"));
  EXPECT_NE(runs_error(replace(kRuns, "  base:\n", "  /etc:\n")).find("runs.yaml:2:3: run name '/etc' must be"),
            std::string::npos);
  EXPECT_NE(runs_error(replace(kRuns, "  base:\n", "  .hidden:\n")).find("run name '.hidden' must be"),
            std::string::npos);
  const std::string variants = replace(kRuns, "    axes:\n      task.pair_fraction: [0.1, 0.25, 0.5]\n",
                                       "    variants:\n      \"a/../../b\": {train.batch_size: 64}\n");
  EXPECT_NE(runs_error(variants).find("runs.yaml:13:7: variant name 'a/../../b' must be"), std::string::npos)
      << runs_error(variants);
}

TEST(SweepDefinition, StepsAndSeedsAreRangeChecked) {
  EXPECT_NE(runs_error(replace(kRuns, "steps: 100", "steps: 0"))
                .find("field 'runs.base.config.train.steps': 0 is outside [1,"),
            std::string::npos)
      << runs_error(replace(kRuns, "steps: 100", "steps: 0"));
  EXPECT_NE(runs_error(replace(kRuns, "seeds: [0]", "seeds: [-1]")).find("seeds must be in [0, 2^32]"),
            std::string::npos);
}

// A run's `base:` starts from another run's config and changes only what it sets; the result hashes
// as the same config written out, and a cycle or an unknown key is an error at its line.
TEST(RunsFile, BaseRunsInheritTheirBasesConfig) {
  const std::string full =
      "runs:\n  a:\n    config:\n      model: {d_model: 128, d_head: 128, n_heads: 1, d_mlp: 512, activation: relu, "
      "output_vocab: full, init_std: -1}\n      train: {steps: 100, batch_size: 128, lr: 1.0e-3, weight_decay: 2.0e-2, "
      "beta1: 0.9, beta2: 0.999, eps: 1.0e-8}\n"
      "      task: {assignments_max: 6}\n";
  const std::string based =
      "runs:\n  b:\n    base: z\n    config:\n      train: {beta2: 0.999}\n"
      "  z:\n    seeds: [0, 1]\n    config:\n      model: {d_model: 128, d_head: 128, n_heads: 1, d_mlp: 512, "
      "activation: relu, output_vocab: full, init_std: -1}\n"
      "      train: {steps: 100, batch_size: 128, lr: 1.0e-3, weight_decay: 2.0e-2, beta1: 0.9, beta2: 0.98, eps: "
      "1.0e-8}\n"
      "      task: {assignments_max: "
      "6}\n";
  const Runs a = Runs::load(write(fresh_dir("runs_base_a"), "runs.yaml", full));
  const Runs b = Runs::load(write(fresh_dir("runs_base_b"), "runs.yaml", based));
  EXPECT_EQ(b.find("b")->for_seed(3).weights_hash(), a.find("a")->for_seed(3).weights_hash());
  EXPECT_EQ(b.find("b")->seeds, (std::vector<uint64_t>{0}));  // seeds are the run's own, not its base's
  EXPECT_EQ(b.find("z")->config.train.beta2, 0.98);
  EXPECT_NE(runs_error(replace(based, "base: z", "base: b")).find("is its own base"), std::string::npos);
  EXPECT_NE(runs_error(replace(based, "base: z", "base: nope")).find("unknown base run 'nope'"), std::string::npos);
  const std::string bad = runs_error(replace(based, "{beta2: 0.999}", "{beta3: 0.999}"));
  EXPECT_EQ(bad.substr(0, 12), "runs.yaml:5:") << bad;
  EXPECT_NE(bad.find("unknown config key 'train.beta3'"), std::string::npos) << bad;
  EXPECT_NE(runs_error(replace(based, "{beta2: 0.999}", "{beta2: 1.5}")).find("beta2"), std::string::npos);
}
