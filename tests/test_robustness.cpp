// Robustness: phase steps read off a metrics log, and every run claim measured on each variant of a
// sweep (k of n seeds pass, Wilson interval), the default rule's ranking, and the reuse of another
// run's checkpoints when its config for a seed has the same weights.
#include <gtest/gtest.h>

#include "test_helpers.h"

#include <fstream>

#include "analysis/phases.h"
#include "claims/attribution.h"
#include "claims/robustness.h"
#include "catalogue/run_store.h"
#include "catalogue/runs.h"
#include "model/transformer.h"
#include "report/attribution_md.h"
#include "report/robustness_md.h"

using namespace cc;
using namespace cc::claims;
using namespace cc::catalogue;
using cc::test::fresh_dir;

namespace {

// Assign and Add's paper.yaml: the windows the default rule breaks ties by are data.
const PaperFacts& paper() {
  static const PaperFacts facts =
      PaperFacts::load(std::string(CLAIMCHECK_TEST_DATA) + "/../../papers/assign_and_add/paper.yaml");
  return facts;
}

// Phases as a paper defines them (paper.yaml `phases:`): here Assign and Add's.
analysis::PhaseDefs phase_defs() {
  return {{{"zero_var", "0-var", {"test_0"}, 0.98},
           {"binding", "binding", {"test_1", "test_2"}, 0.9},
           {"var_restricted_1", "var_restricted_1", {"var_restricted_1"}, 0.9},
           {"var_restricted", "var-restricted", {"var_restricted_1", "var_restricted_2"}, 0.9}},
          {"binding", "var_restricted_1"}};
}

// Its windows: the score and the default rule measure the binding and var-restricted steps' distance.
void set_phases(PaperFacts& facts) {
  facts.phases = phase_defs();
  facts.windows = {{"binding", {5300, 5400}}, {"var_restricted", {14500, 16000}}};
}

// A seed that binds at `binding` and learns the var-restricted sets at `restricted` (none: never).
analysis::PhaseSteps steps(std::optional<int64_t> binding, std::optional<int64_t> restricted) {
  analysis::PhaseSteps p;
  p.steps = {{"zero_var", 100}, {"binding", binding}, {"var_restricted_1", restricted}, {"var_restricted", restricted}};
  p.learned = binding && restricted;
  return p;
}

nlohmann::json rec(int64_t step, double t0, double t1, double t2, double vr1, double vr2) {
  return {
      {"step", step},
      {"acc", {{"test_0", t0}, {"test_1", t1}, {"test_2", t2}, {"var_restricted_1", vr1}, {"var_restricted_2", vr2}}}};
}

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Two variants of a tiny base run, two seeds each; `base` has the base run's weights.
const std::string kRuns =
    "runs:\n"
    "  base:\n"
    "    seeds: [0, 1]\n"
    "    tier: cpu\n"
    "    config:\n"
    "      model: {d_model: 128, d_head: 128, n_heads: 1, d_mlp: 512, activation: relu, output_vocab: full, init_std: "
    "-1}\n"
    "      train: {steps: 20, batch_size: 16, eval_every: 10, eval_size: 50, lr: 1.0e-3, weight_decay: 2.0e-2, beta1: "
    "0.9, beta2: 0.999, eps: 1.0e-8}\n"
    "sweeps:\n"
    "  rob:\n"
    "    base: base\n"
    "    seeds: [0, 1]\n"
    "    variants:\n"
    "      base: {}\n"
    "      small_batch: {train.batch_size: 8}\n";

// Passes on an untrained-looking model (loss of chance accuracy), so every seed passes; its
// control is none, since this test is about counting, not about the claim.
const std::string kClaim =
    "id: C1\n"
    "title: t\n"
    "paper: {arxiv: 2605.31497v1, section: \"4\", quote: q}\n"
    "reported: {value: null, text: t}\n"
    "subject: {run: base, checkpoint: final, seeds: all}\n"
    "measure: {kind: accuracy, set: test_0, size: 200}\n"
    "expect: {op: \"<\", threshold: 0.9, seeds: each, min_seeds: 1}\n"
    "control: {none: \"a counting test\"}\n";

}  // namespace

TEST(Phases, StepsFromTheMetricsLog) {
  std::vector<nlohmann::json> log = {rec(0, 0.01, 0.01, 0.01, 0.01, 0.01), rec(100, 0.99, 0.3, 0.2, 0.1, 0.1),
                                     rec(200, 0.99, 0.95, 0.5, 0.2, 0.1), rec(300, 0.97, 0.92, 0.91, 0.95, 0.5),
                                     rec(400, 0.99, 0.96, 0.93, 0.96, 0.8)};
  auto p = analysis::phase_steps(log, phase_defs());
  EXPECT_EQ(p.step("zero_var"), 100);
  EXPECT_EQ(p.step("binding"), 300);  // test_1 at 200, test_2 at 300: the later
  EXPECT_EQ(p.step("var_restricted_1"), 300);
  EXPECT_FALSE(p.step("var_restricted").has_value());  // var_restricted_2 never reaches 0.9
  EXPECT_FALSE(p.step("no_such_phase").has_value());
  EXPECT_TRUE(p.learned);
  EXPECT_EQ(p.last_step, 400);
  log.back() = rec(400, 0.99, 0.96, 0.89, 0.96, 0.8);
  log[3] = rec(300, 0.97, 0.92, 0.89, 0.95, 0.5);
  p = analysis::phase_steps(log, phase_defs());
  EXPECT_FALSE(p.step("binding").has_value());
  EXPECT_FALSE(p.learned);  // binding never reached
  EXPECT_TRUE(analysis::to_json(p)["binding"].is_null());
  EXPECT_EQ(analysis::to_json(p)["last_step"], 400);
  EXPECT_EQ(analysis::describe(phase_defs().phases[1]), "test_1 and test_2 >= 0.9 (the later of their first steps)");
  EXPECT_EQ(analysis::describe(phase_defs().phases[0]), "test_0 >= 0.98");
  EXPECT_EQ(analysis::learned_text(phase_defs()), "binding and var_restricted_1");
  // The phases are the paper's: another paper's sets and levels, from its paper.yaml.
  EXPECT_EQ(paper().phases.phases.size(), 4u);
  EXPECT_EQ(paper().phases.learned, phase_defs().learned);
  ASSERT_EQ(paper().windows.size(), 2u);
  EXPECT_EQ(paper().windows[1].phase, "var_restricted");
  EXPECT_EQ(paper().windows[1].steps.low, 14500);
}

// paper.yaml's phases: a bad one is refused with its file and line, and what is wrong.
TEST(Phases, PaperYamlRefusesABadDefinition) {
  const std::string dir = fresh_dir("phases_yaml");
  const std::string attribution =
      "attribution: {default_run: d, screen: s, confirm: c, score: [{claim: A, term: below_threshold}],\n"
      "              steps_per_point: 1000, alpha: 0.05}\n";
  auto refused = [&](const std::string& phases, const std::string& why) {
    write(dir, "paper.yaml", phases + attribution);
    try {
      PaperFacts::load(dir + "/paper.yaml");
      ADD_FAILURE() << "accepted: " << phases;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("paper.yaml:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused("phases:\n  steps:\n    - {name: a, sets: [test_0], level: 0.9}\n  learned: [b]\n", "names no phase");
  refused("phases:\n  steps:\n    - {name: a, sets: [test_0], level: 0.9, window: [9, 1]}\n  learned: [a]\n",
          "[first step, last step]");
  refused("phases:\n  steps:\n    - {name: a, sets: [], level: 0.9}\n  learned: [a]\n", "evaluation sets");
  // A set no task family has: the phase would never be reached, silently.
  refused("phases:\n  steps:\n    - {name: a, sets: [tset_0], level: 0.9}\n  learned: [a]\n",
          "names no evaluation set of any task family: 'tset_0'");
  refused("phases:\n  steps:\n    - {name: a, sets: [test_0], level: 1.5}\n  learned: [a]\n", "(0, 1]");
  refused("phases:\n  steps:\n    - {name: learned, sets: [test_0], level: 0.9}\n  learned: [learned]\n", "other than");
  refused(
      "phases:\n  steps:\n    - {name: a, sets: [test_0], level: 0.9}\n    - {name: a, sets: [test_1], level: 0.9}\n"
      "  learned: [a]\n",
      "defined twice");
  write(dir, "paper.yaml",
        "phases:\n  steps:\n    - {name: grok, label: grokked, sets: [test], level: 0.99, window: [1, 2]}\n"
        "  learned: [grok]\n" +
            attribution);
  const PaperFacts ok = PaperFacts::load(dir + "/paper.yaml");
  EXPECT_EQ(ok.phases.phases.at(0).label, "grokked");
  EXPECT_EQ(ok.windows.at(0).phase, "grok");
}

TEST(Robustness, RankingCellsAndRunIndependentClaims) {
  SweepSpec sweep;
  sweep.name = "rob";
  sweep.seeds = {0, 1, 2};
  auto outcome = [](const std::string& name, std::vector<std::optional<int64_t>> bindings, std::vector<Verdict> seeds) {
    VariantOutcome v;
    v.variant = name;
    v.run = "rob/" + name;
    for (size_t s = 0; s < bindings.size(); ++s)
      v.phases[s] = steps(bindings[s], bindings[s] ? std::optional<int64_t>(*bindings[s] + 5000) : std::nullopt);
    ClaimResult r;
    r.loaded = true;
    r.id = "G2";
    r.verdict = Verdict::Fail;
    for (size_t s = 0; s < seeds.size(); ++s) {
      SeedResult sr;
      sr.seed = s;
      sr.verdict = seeds[s];
      r.seeds.push_back(sr);
    }
    ClaimResult theory;  // does not depend on a run: left out of the table
    theory.loaded = true;
    theory.id = "T1";
    theory.claim.subject = {analysis::Subject::Theory, "disentangled"};
    v.results = {r, theory};
    return v;
  };
  // a: 2 of 3 learn; b and c: 3 of 3. Distances: b 4600 + 0 (binding 10000, refinement 15000), c 0 + 4100.
  std::vector<VariantOutcome> out = {
      outcome("a", {5300, 5350, std::nullopt}, {Verdict::Pass, Verdict::Pass, Verdict::Fail}),
      outcome("b", {10000, 10000, 10000}, {Verdict::Pass, Verdict::Pass, Verdict::Pass}),
      outcome("c", {5400, 5400, 5400}, {Verdict::Pass, Verdict::Fail, Verdict::Fail})};
  out[2].unavailable[3] = "not trained";
  const RobustnessSection section = robustness_section(sweep, out, paper());
  EXPECT_EQ(section.default_rule.chosen, "c");
  ASSERT_EQ(section.claims.size(), 1u);
  EXPECT_EQ(section.claims[0].cells.at("a").each, Verdict::Fail);
  EXPECT_EQ(section.variants[0].steps.at("binding").median, 5325);
  const auto j = to_json(section);  // report.json's shape
  EXPECT_EQ(j["default_rule"]["chosen"], "c");
  EXPECT_EQ(j["levels"]["binding"], "test_1 and test_2 >= 0.9 (the later of their first steps)");
  EXPECT_EQ(j["paper"]["var_restricted"], nlohmann::json({14500, 16000}));
  EXPECT_EQ(j["learned"], nlohmann::json({"binding", "var_restricted_1"}));
  EXPECT_NE(j["default_rule"]["rule"].get<std::string>().find(
                "(binding and var_restricted_1 reached by the last step), ties broken by the smallest |median binding "
                "step - 5300-5400| + |median var-restricted step - 14500-16000|"),
            std::string::npos)
      << j["default_rule"]["rule"];
  // REPORT.md: a column per phase of paper.yaml, the paper's window where it gives one.
  const std::string md = report::robustness_markdown(section);
  EXPECT_NE(
      md.find("| configuration | seeds trained | learned | 0-var | binding | var_restricted_1 | var-restricted |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| paper (one run) | 1 | – | – | 5300–5400 | – | 14500–16000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `a` | 3/3 | 2/3"), std::string::npos) << md;
  EXPECT_EQ(j["default_rule"]["ranking"][1]["variant"], "b");
  EXPECT_EQ(j["default_rule"]["ranking"][2]["variant"], "a");
  EXPECT_FALSE(j["default_rule"]["complete"].get<bool>());  // c lacks a seed
  ASSERT_EQ(j["claims"].size(), 1u);                        // T1 left out
  const auto& a = j["claims"][0]["cells"]["a"];
  EXPECT_EQ(a["k"], 2);
  EXPECT_EQ(a["n"], 3);
  EXPECT_NEAR(a["low"].get<double>(), 0.2077, 1e-3);  // Wilson 95% of 2/3
  EXPECT_NEAR(a["high"].get<double>(), 0.9385, 1e-3);
  EXPECT_EQ(a["each"], "FAIL");          // a seed fails
  EXPECT_EQ(a["half"], "INCONCLUSIVE");  // 2/3: [0.21, 0.94] straddles 1/2
  EXPECT_EQ(j["claims"][0]["cells"]["b"]["each"], "PASS");
  EXPECT_EQ(j["claims"][0]["cells"]["c"]["half"], "INCONCLUSIVE");  // 1/3: [0.06, 0.79]
  EXPECT_EQ(j["variants"][0]["distribution"]["binding"]["reached"], 2);
  EXPECT_EQ(j["variants"][0]["distribution"]["binding"]["median"], 5325);
  EXPECT_EQ(j["variants"][0]["learned"]["k"], 2);
}

TEST(Robustness, EveryClaimOnEveryVariantReusingTheBaseRunsCheckpoints) {
  const std::string dir = fresh_dir("robustness_e2e");
  const Runs runs = Runs::load(write(dir, "runs.yaml", kRuns));
  const std::string claim = write(dir, "c1.yaml", kClaim);
  StoreOptions so;
  so.fixtures_dir = dir + "/fixtures";
  so.cache_dir = dir + "/cache";
  so.budget = Tier::Cpu;
  RunStore store(runs, so);
  // The base run trained first: rob/base must find its checkpoints, not train again.
  auto base = run_claims({claim}, analysis::builtin_registry(), runs, store, {});
  ASSERT_EQ(base[0].verdict, Verdict::Pass) << base[0].reason;
  EXPECT_EQ(store.trainings(), 2);
  const auto dirs = store.dirs(*runs.find("rob/base"), 1);
  EXPECT_NE(std::find(dirs.begin(), dirs.end(), store.cache_dir(*runs.find("base"), 1)), dirs.end());
  const auto small = store.dirs(*runs.find("rob/small_batch"), 1);
  EXPECT_EQ(small.size(), 3u);  // other weights: only its own fixtures, cache and init folder

  const auto out =
      run_robustness({claim}, *runs.find_sweep("rob"), analysis::builtin_registry(), runs, store, {}, phase_defs());
  EXPECT_EQ(store.trainings(), 4);  // only small_batch's two seeds were trained
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].variant, "base");
  EXPECT_EQ(out[0].phases.size(), 2u);
  EXPECT_TRUE(out[0].unavailable.empty());
  EXPECT_FALSE(out[0].phases.at(0).step("binding").has_value());  // 20 steps learn nothing
  const auto j = to_json(robustness_section(*runs.find_sweep("rob"), out, paper()));
  EXPECT_EQ(j["base"], runs.find_sweep("rob")->base);  // the report names the run the sweep varies
  EXPECT_EQ(j["claims"][0]["cells"]["small_batch"]["k"], 2);
  EXPECT_EQ(j["claims"][0]["cells"]["small_batch"]["verdict"], "PASS");
  EXPECT_EQ(j["variants"][1]["learned"]["k"], 0);

  // At the fixture budget with nothing trained, a variant's seeds are unavailable, with why.
  StoreOptions fixture_only = so;
  fixture_only.budget = Tier::Fixture;
  fixture_only.cache_dir = dir + "/empty-cache";
  RunStore empty(runs, fixture_only);
  const auto none =
      run_robustness({claim}, *runs.find_sweep("rob"), analysis::builtin_registry(), runs, empty, {}, phase_defs());
  EXPECT_EQ(none[1].unavailable.size(), 2u);
  EXPECT_EQ(none[1].results[0].verdict, Verdict::Skipped);
  const RobustnessSection nothing = robustness_section(*runs.find_sweep("rob"), none, paper());
  EXPECT_FALSE(nothing.default_rule.chosen.has_value());
  EXPECT_EQ(to_json(nothing)["default_rule"]["chosen"], nullptr);
}

// The step-0 checkpoint is the initialisation, made at any budget: bitwise the one training writes.
TEST(RunStore, InitCheckpointIsMadeWithoutTrainingAndEqualsTheTrainedRunsStepZero) {
  const std::string dir = fresh_dir("robustness_init");
  const Runs runs = Runs::load(write(dir, "runs.yaml", kRuns));
  const RunSpec& base = *runs.find("base");
  StoreOptions so;
  so.fixtures_dir = dir + "/fixtures";
  so.cache_dir = dir + "/cache";
  RunStore fixture_only(runs, so);  // budget fixture
  std::string why;
  EXPECT_EQ(fixture_only.get(base, 1, 20, why), nullptr);  // the final one needs training
  auto init = fixture_only.get(base, 1, 0, why);
  ASSERT_NE(init, nullptr) << why;
  EXPECT_EQ(fixture_only.trainings(), 0);
  EXPECT_TRUE(std::filesystem::exists(fixture_only.init_dir(base, 1) + "/metrics.jsonl"));  // the step-0 record

  so.budget = Tier::Cpu;
  so.cache_dir = dir + "/cache2";
  RunStore trains(runs, so);
  ASSERT_NE(trains.get(base, 1, 20, why), nullptr) << why;
  auto trained_init = trains.get(base, 1, 0, why);  // written by the training run
  ASSERT_NE(trained_init, nullptr);
  EXPECT_EQ(trained_init->path, train::checkpoint_path(trains.cache_dir(base, 1), 0));
  EXPECT_EQ(model::max_abs_diff(*trained_init->model, *init->model), 0.0);
}

// Attribution: scores from claims and phases, a design's main effects and aliases, the rows chosen
// for confirmation, the default rule's Mann-Whitney test, and each failing claim's sentence.
TEST(Attribution, ScoresEffectsRuleAndSentences) {
  EXPECT_EQ(mann_whitney_less({1, 2}, {3, 4}).u, 0);
  EXPECT_NEAR(mann_whitney_less({1, 2}, {3, 4}).p, 1.0 / 6, 1e-12);  // 1 of the C(4,2) splits
  EXPECT_NEAR(mann_whitney_less({3, 4}, {1, 2}).p, 1.0, 1e-12);
  EXPECT_NEAR(mann_whitney_less({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}).p, 1.0 / 252, 1e-12);

  const std::string dir = fresh_dir("attribution");
  const Runs runs = Runs::load(write(dir, "runs.yaml",
                                     "runs:\n"
                                     "  default:\n"
                                     "    seeds: [0, 1]\n"
                                     "    config:\n"
                                     "      model: {d_model: 128, d_head: 128, n_heads: 1, d_mlp: 512, activation: "
                                     "relu, output_vocab: full, init_std: -1}\n"
                                     "      train: {steps: 30000, batch_size: 128, lr: 1.0e-3, weight_decay: 2.0e-2, "
                                     "beta1: 0.9, beta2: 0.999, eps: 1.0e-8}\n"
                                     "sweeps:\n"
                                     "  screen:\n"
                                     "    base: default\n"
                                     "    seeds: [0, 1]\n"
                                     "    design:\n"
                                     "      factors:\n"
                                     "        x: {key: train.batch_size, low: 128, high: 256, tag: b256}\n"
                                     "        y: {key: train.max_grad_norm, low: 0, high: 1.0, tag: clip}\n"
                                     "        z: {key: train.warmup_steps, low: 0, high: 500, tag: wu}\n"
                                     "      generators: {z: [x, y]}\n"
                                     "  confirm:\n"
                                     "    base: default\n"
                                     "    seeds: [0, 1, 2, 3, 4]\n"
                                     "    variants:\n"
                                     "      base: {}\n"
                                     "      b256-wu: {train.batch_size: 256, train.warmup_steps: 500}\n"));
  RunStore store(runs, StoreOptions{dir + "/fx", dir + "/cache", Tier::Fixture});
  PaperFacts facts;
  set_phases(facts);
  facts.accuracy_terms = {{"G3", true}};
  facts.confirm_top = 1;
  facts.screen = "screen";
  facts.confirm = "confirm";

  // A run's claims: G3 at `acc` on every seed (threshold 0.98), M8b passing on the first `passing` seeds.
  auto results = [](size_t seeds, double acc, size_t passing) {
    ClaimResult g3, m8;
    g3.loaded = m8.loaded = true;
    g3.id = "G3";
    m8.id = "M8b";
    g3.claim.subject = m8.claim.subject = {analysis::Subject::Checkpoint, "default"};
    g3.claim.rule.threshold = 0.98;
    for (size_t s = 0; s < seeds; ++s) {
      SeedResult a, b;
      a.seed = b.seed = s;
      a.m.value = acc;
      a.verdict = acc > 0.98 ? Verdict::Pass : Verdict::Fail;
      b.verdict = s < passing ? Verdict::Pass : Verdict::Fail;
      g3.seeds.push_back(a);
      m8.seeds.push_back(b);
    }
    g3.verdict = acc > 0.98 ? Verdict::Pass : Verdict::Fail;
    m8.verdict = passing == seeds ? Verdict::Pass : Verdict::Fail;
    return std::vector<ClaimResult>{g3, m8};
  };
  // Every seed binds at 5300 and refines at 15000 (distance 0), so a score is G3's gap alone.
  auto outcome = [&](const std::string& sweep, const std::string& variant, size_t seeds, double acc, size_t passing) {
    VariantOutcome v;
    v.variant = variant;
    v.run = sweep + "/" + variant;
    for (size_t s = 0; s < seeds; ++s) {
      v.seeds.push_back(s);
      v.phases[s] = steps(5300, 15000);
    }
    v.results = results(seeds, acc, passing);
    return v;
  };
  const SweepSpec* screen = runs.find_sweep("screen");
  const SweepSpec* confirm = runs.find_sweep("confirm");
  ASSERT_NE(screen, nullptr);
  // Rows (x fastest; z = -x*y): base, b256-wu, clip-wu, b256-clip. Batch 256 adds one point of accuracy.
  std::vector<MeasuredSweep> measured = {
      {screen,
       {outcome("screen", "base", 2, 0.96, 0), outcome("screen", "b256-wu", 2, 0.975, 2),
        outcome("screen", "clip-wu", 2, 0.965, 0), outcome("screen", "b256-clip", 2, 0.97, 1)}},
      {confirm, {outcome("confirm", "base", 5, 0.96, 0), outcome("confirm", "b256-wu", 5, 0.985, 5)}}};
  const auto on_default = results(2, 0.96, 0);
  const AttributionSection att = attribution_section(on_default, "default", measured, runs, store, facts);
  const auto j = to_json(att);

  ASSERT_EQ(j["configs"].size(), 7u);  // default + 4 rows + 2 confirmation rows
  EXPECT_EQ(j["configs"][0]["id"], "default");
  EXPECT_TRUE(j["configs"][0]["score"].is_null());                 // no metrics log for the default here: no phases
  EXPECT_NEAR(j["configs"][2]["score"].get<double>(), 0.5, 1e-9);  // screen/b256-wu: 98 - 97.5
  EXPECT_EQ(j["configs"][2]["changes"], nlohmann::json({"train.batch_size=256", "train.warmup_steps=500"}));
  // The score term by term: the accuracy gap alone, both phases in their windows.
  EXPECT_NEAR(j["configs"][2]["terms"]["accuracy"].get<double>(), 0.5, 1e-9);
  EXPECT_EQ(j["configs"][2]["terms"]["binding"].get<double>(), 0.0);
  EXPECT_EQ(j["configs"][2]["terms"]["var_restricted"].get<double>(), 0.0);
  EXPECT_TRUE(j["configs"][0]["terms"].is_null());
  // The score's terms travel with the section, and the report describes the score from them.
  EXPECT_EQ(j["score"], nlohmann::json::parse(R"({"terms": [{"claim": "G3", "term": "below_threshold"}],
                                                  "steps_per_point": 1000.0})"));
  EXPECT_NE(report::attribution_markdown(att).find(
                "(percentage points of accuracy: G3 below its threshold; plus each phase's distance to its window per "
                "1000 steps; binding 5300–5400, var-restricted 14500–16000), the mean over seeds; lower is "
                "closer. Learned: binding and var_restricted_1 reached by the last step."),
            std::string::npos);
  // The configurations' table heads a column per window, by its phase's label.
  EXPECT_NE(report::attribution_markdown(att).find("| score | accuracy + binding + var-restricted | per seed |"),
            std::string::npos);
  // Noise: every row's seeds score alike here (spread 0); no row differs from another by the engine alone.
  EXPECT_EQ(j["noise"]["configs_with_two_seeds"], 6);
  EXPECT_EQ(j["noise"]["median_seed_spread"].get<double>(), 0.0);
  EXPECT_TRUE(j["noise"]["engines"].empty());
  // Effects: x (b256) high rows 97.5, 97 against low 96, 96.5 on G3: the score falls by 1 point.
  const auto& fx = j["effects"]["factors"][0];
  EXPECT_EQ(fx["factor"], "x");
  EXPECT_NEAR(fx["score"].get<double>(), -1.0, 1e-9);
  EXPECT_NEAR(fx["claims"]["M8b"].get<double>(), 0.75, 1e-9);  // 3/4 passing at high, 0/4 at low
  EXPECT_EQ(fx["aliases"], nlohmann::json({"-y×z"}));
  EXPECT_EQ(j["selection"]["chosen"], nlohmann::json({"b256-wu"}));
  // Stage 2 confirms the chosen rows beside the design's all-low row, named as the design names it.
  EXPECT_NE(report::attribution_markdown(att).find("Chosen: **b256-wu**, with `base`."), std::string::npos);
  EXPECT_TRUE(j["selection"]["confirm_matches"].get<bool>());
  // The rule: b256-wu beats base on all 5 seeds (U = 0, p = 1/252) and learns as often.
  EXPECT_EQ(j["default_rule"]["best"], "confirm/b256-wu");
  EXPECT_NEAR(j["default_rule"]["p"].get<double>(), 1.0 / 252, 1e-12);
  EXPECT_TRUE(j["default_rule"]["change"].get<bool>());
  // Sentences: G3 and M8b both hold under confirm/b256-wu (5/5); b256-wu in the screen is a candidate.
  ASSERT_EQ(j["claims"].size(), 2u);
  const auto& m8 = j["claims"][1];
  EXPECT_EQ(m8["id"], "M8b");
  EXPECT_EQ(m8["holds_under"], "confirm/b256-wu");
  EXPECT_NE(m8["sentence"].get<std::string>().find("holds under `confirm/b256-wu` (5/5 seeds) — train.batch_size=256"),
            std::string::npos)
      << m8["sentence"];
  EXPECT_EQ(m8["candidates"], nlohmann::json({"screen/b256-wu"}));
  // The typed section says the same as its JSON: report.json is rendered from it.
  EXPECT_FALSE(att.configs[0].score.has_value());
  ASSERT_TRUE(att.default_rule.has_value());
  EXPECT_EQ(att.default_rule->best, "confirm/b256-wu");
  EXPECT_TRUE(att.default_rule->change);
  EXPECT_EQ(att.claims[1].holds_under, std::optional<std::string>("confirm/b256-wu"));
  // Without the confirmation: M8b fails everywhere with 5+ seeds, so the best rate is named.
  measured.pop_back();
  const auto k = to_json(attribution_section(on_default, "default", measured, runs, store, facts));
  EXPECT_EQ(k["claims"][1]["sentence"], "fails under all 5 configurations tried (best: 2/2 under `screen/b256-wu`)");
  EXPECT_FALSE(k.contains("default_rule"));
}

// The score's noise: two configurations whose only difference is train.engine are paired seed by seed,
// and a phase outside its window adds its distance per 1000 steps as its own term.
TEST(Attribution, NoisePairsTheEnginesAndTheTermsSumToTheScore) {
  const std::string dir = fresh_dir("attribution_noise");
  const Runs runs = Runs::load(write(dir, "runs.yaml",
                                     "runs:\n"
                                     "  default:\n"
                                     "    seeds: [0, 1]\n"
                                     "    config:\n"
                                     "      model: {d_model: 128, d_head: 128, n_heads: 1, d_mlp: 512, activation: "
                                     "relu, output_vocab: full, init_std: -1}\n"
                                     "      train: {steps: 30000, batch_size: 128, lr: 1.0e-3, weight_decay: 2.0e-2, "
                                     "beta1: 0.9, beta2: 0.999, eps: 1.0e-8}\n"
                                     "sweeps:\n"
                                     "  engines:\n"
                                     "    base: default\n"
                                     "    seeds: [0, 1]\n"
                                     "    variants:\n"
                                     "      base: {}\n"
                                     "      blas: {train.engine: blas}\n"));
  RunStore store(runs, StoreOptions{dir + "/fx", dir + "/cache", Tier::Fixture});
  PaperFacts facts;
  set_phases(facts);
  facts.accuracy_terms = {{"G3", true}};
  auto outcome = [](const std::string& variant, double acc, int64_t binding) {
    VariantOutcome v;
    v.variant = variant;
    v.run = "engines/" + variant;
    ClaimResult g3;
    g3.loaded = true;
    g3.id = "G3";
    g3.claim.subject = {analysis::Subject::Checkpoint, "default"};
    g3.claim.rule.threshold = 0.98;
    for (uint64_t s = 0; s < 2; ++s) {
      v.seeds.push_back(s);
      v.phases[s] = steps(binding + static_cast<int64_t>(s) * 1000, 15000);  // seed 1 binds 1000 steps later
      SeedResult r;
      r.seed = s;
      r.m.value = acc;
      r.verdict = Verdict::Fail;
      g3.seeds.push_back(r);
    }
    v.results = {g3};
    return v;
  };
  const SweepSpec* engines = runs.find_sweep("engines");
  ASSERT_NE(engines, nullptr);
  const std::vector<MeasuredSweep> measured = {{engines, {outcome("base", 0.96, 5400), outcome("blas", 0.97, 6400)}}};
  const AttributionSection att = attribution_section({}, "default", measured, runs, store, facts);
  const auto j = to_json(att);
  const auto& blas = j["configs"][2];
  ASSERT_EQ(blas["id"], "engines/blas");
  // Seed 1 of blas: G3 1 point below 98, binding at 7400 is 2000 steps past 5400: 1 + 2 = 3.
  EXPECT_NEAR(blas["terms_by_seed"]["1"]["accuracy"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(blas["terms_by_seed"]["1"]["binding"].get<double>(), 2.0, 1e-12);
  EXPECT_EQ(blas["terms_by_seed"]["1"]["var_restricted"].get<double>(), 0.0);
  EXPECT_NEAR(blas["scores"]["1"].get<double>(), 3.0, 1e-9);
  EXPECT_NEAR(blas["terms"]["binding"].get<double>(), 1.5, 1e-12);  // seeds 0 and 1: 1 and 2
  // The pair: base scores 2, 3 (2 points of G3, binding 0 and 1); blas 2, 3: a mean difference of 0.
  const auto& n = j["noise"];
  ASSERT_EQ(n["engines"].size(), 1u);
  EXPECT_EQ(n["engines"][0]["libtorch"], "engines/base");
  EXPECT_EQ(n["engines"][0]["blas"], "engines/blas");
  EXPECT_EQ(n["engines"][0]["seeds"].size(), 2u);
  EXPECT_NEAR(n["engines"][0]["mean_difference"].get<double>(), 0.0, 1e-9);
  EXPECT_NEAR(n["median_seed_spread"].get<double>(), 1.0, 1e-9);  // each row's seeds differ by 1 point
}
