// The claims verifier: statistics, verdict boundaries, malformed claim files, the negative
// control, the run cache, and the report writers.
#include <gtest/gtest.h>

#include "test_helpers.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "claims/verifier.h"
#include "report/outcome.h"
#include "report/report.h"
#include "train/runtime.h"

using namespace cc;
using namespace cc::claims;
using namespace cc::catalogue;
namespace fs = std::filesystem;

namespace {

const std::string kData = CLAIMCHECK_TEST_DATA;

using cc::test::fresh_dir;

const Runs& test_runs() {
  static const Runs runs = Runs::load(kData + "/claims/runs.yaml");
  return runs;
}

// A valid claim; each malformed case edits one thing.
const std::string kValid =
    "id: X1\n"
    "title: t\n"
    "paper: {arxiv: 2605.31497v1, section: \"4\", quote: q}\n"
    "reported: {value: 0.98, text: \"> 98%\"}\n"
    "subject: {run: tiny, checkpoint: final, seeds: all}\n"
    "measure: {kind: accuracy, set: test_0, size: 100}\n"
    "expect: {op: \">\", threshold: 0.98}\n"
    "control: {checkpoint: init}\n"
    "tier: fixture\n";

std::string load_error(const std::string& text) {
  const std::string path = fresh_dir("bad") + "/claim.yaml";
  std::ofstream(path) << text;
  try {
    load_claim(path, analysis::builtin_registry(), test_runs());
  } catch (const Error& e) {
    std::string msg = e.what();
    return msg.substr(msg.find("claim.yaml"));  // drop the temp directory
  }
  return "(loaded)";
}

using cc::test::replace;

}  // namespace

TEST(Stats, WilsonMatchesKnownValues) {
  auto a = wilson(98, 100);
  EXPECT_NEAR(a.low, 0.92999, 1e-4);
  EXPECT_NEAR(a.high, 0.99449, 1e-4);
  auto b = wilson(0, 10);
  EXPECT_DOUBLE_EQ(b.low, 0.0);
  EXPECT_NEAR(b.high, 0.27753, 1e-4);
  auto c = wilson(10, 10);
  EXPECT_NEAR(c.low, 0.72247, 1e-4);
  EXPECT_DOUBLE_EQ(c.high, 1.0);
  // 98.6% of 1000 sequences has a Wilson lower bound near 97.7%: it cannot pass "> 98%".
  EXPECT_NEAR(wilson(986, 1000).low, 0.9766, 5e-4);
  auto none = wilson(0, 0);
  EXPECT_EQ(none.low, 0.0);
  EXPECT_EQ(none.high, 1.0);
}

// Below 5 seeds the interval over seeds is their range, called that, with its stated coverage of the
// median; from 5 a t interval of the mean or an order-statistic interval of the median.
TEST(Stats, SeedIntervalByNumberOfSeeds) {
  const std::vector<double> three = {0.97, 0.99, 0.995};
  const SeedSpread r = seed_interval(three, false);
  EXPECT_EQ(r.method, SeedInterval::SeedRange);
  EXPECT_EQ(r.ci.low, 0.97);
  EXPECT_EQ(r.ci.high, 0.995);
  EXPECT_DOUBLE_EQ(r.coverage, 0.75);
  EXPECT_DOUBLE_EQ(range_coverage(4), 0.875);
  EXPECT_EQ(seed_interval_name(r.method), "seed range");
  const std::vector<double> five = {1, 2, 3, 4, 5};
  const SeedSpread t = seed_interval(five, false);
  EXPECT_EQ(t.method, SeedInterval::StudentT);
  // mean 3, s = sqrt(2.5), t(0.975, 4) = 2.776445105: 3 +- 1.963094
  EXPECT_NEAR(t.ci.low, 3 - 2.776445105 * std::sqrt(2.5 / 5), 1e-8);
  EXPECT_NEAR(t.ci.high, 3 + 2.776445105 * std::sqrt(2.5 / 5), 1e-8);
  const SeedSpread m = seed_interval(five, true);
  EXPECT_EQ(m.method, SeedInterval::OrderStatistics);
  EXPECT_EQ(m.ci.low, 1);  // 5 seeds: only the range, at 1 - 2/32
  EXPECT_EQ(m.ci.high, 5);
  EXPECT_DOUBLE_EQ(m.coverage, 0.9375);
  double cov = 0;
  const Interval nine = median_order_interval({9, 1, 8, 2, 7, 3, 6, 4, 5}, 0.95, cov);
  EXPECT_EQ(nine.low, 2);  // k = 2: 1 - 2 * 10/512 = 0.9609; k = 3 would give 0.8203
  EXPECT_EQ(nine.high, 8);
  EXPECT_NEAR(cov, 1 - 2 * 10.0 / 512, 1e-12);
  // A seed that never crosses a grid (+inf) stays in the range.
  const SeedSpread inf = seed_interval({0.3, INFINITY, 0.25}, true);
  EXPECT_EQ(inf.ci.low, 0.25);
  EXPECT_EQ(inf.ci.high, INFINITY);
}

TEST(Verdict, BoundariesOfEachComparison) {
  EXPECT_EQ(decide(Comparison::Greater, 0.98, {0.981, 0.99}), Verdict::Pass);
  EXPECT_EQ(decide(Comparison::Greater, 0.98, {0.98, 0.99}), Verdict::Inconclusive);  // low == t is not > t
  EXPECT_EQ(decide(Comparison::Greater, 0.98, {0.97, 0.98}), Verdict::Fail);          // high == t: cannot be > t
  EXPECT_EQ(decide(Comparison::GreaterEq, 0.98, {0.98, 0.99}), Verdict::Pass);
  EXPECT_EQ(decide(Comparison::GreaterEq, 0.98, {0.97, 0.98}), Verdict::Inconclusive);
  EXPECT_EQ(decide(Comparison::GreaterEq, 0.98, {0.97, 0.979}), Verdict::Fail);
  EXPECT_EQ(decide(Comparison::Less, 0.25, {0.1, 0.2}), Verdict::Pass);
  EXPECT_EQ(decide(Comparison::Less, 0.25, {0.1, 0.25}), Verdict::Inconclusive);
  EXPECT_EQ(decide(Comparison::Less, 0.25, {0.25, 0.3}), Verdict::Fail);
  EXPECT_EQ(decide(Comparison::LessEq, 0.25, {0.1, 0.25}), Verdict::Pass);
  EXPECT_EQ(decide(Comparison::LessEq, 0.25, {0.2, 0.3}), Verdict::Inconclusive);
  EXPECT_EQ(decide(Comparison::LessEq, 0.25, {0.26, 0.3}), Verdict::Fail);
  EXPECT_EQ(decide(Comparison::Greater, 0.5, {std::nan(""), 1}), Verdict::Inconclusive);
}

// The margin: the value's signed distance from the threshold over its whole uncertainty (seeds,
// evaluation, draws in quadrature); none for an exact value.
TEST(Verdict, MarginIsTheDistanceFromTheThresholdInUnitsOfTheWholeUncertainty) {
  Rule rule;
  rule.op = Comparison::GreaterEq;
  rule.threshold = 0.9;
  ClaimResult r;
  for (double v : {0.95, 0.96, 0.97}) {
    SeedResult s;
    s.m.value = v;
    s.ci = {v - 0.01, v + 0.01};
    r.seeds.push_back(s);
  }
  r.measured = 0.96;
  r.measured_ci = {0.95, 0.97};
  ASSERT_TRUE(claim_margin(rule, r).has_value());
  EXPECT_NEAR(*claim_margin(rule, r), 0.06 / std::sqrt(2 * 0.01 * 0.01), 1e-12);
  r.draws.push_back({});
  r.draws.back().measured = 0.90;  // another draw 0.06 lower: half its range joins the uncertainty
  EXPECT_NEAR(*claim_margin(rule, r), 0.06 / std::sqrt(2 * 0.01 * 0.01 + 0.03 * 0.03), 1e-12);
  rule.op = Comparison::Less;  // the same value on the failing side of "< 0.9"
  EXPECT_LT(*claim_margin(rule, r), -1);
  rule.op = Comparison::Within;
  rule.high = 0.97;  // within [0.9, 0.97]: 0.01 from the nearer end
  EXPECT_NEAR(*claim_margin(rule, r), 0.01 / std::sqrt(2 * 0.01 * 0.01 + 0.03 * 0.03), 1e-12);
  ClaimResult exact;  // one seed, no interval: a bitwise difference of 0
  exact.seeds.push_back({});
  exact.measured = 0;
  EXPECT_FALSE(claim_margin(rule, exact).has_value());
}

TEST(ClaimFile, ValidClaimLoads) { EXPECT_EQ(load_error(kValid), "(loaded)"); }

TEST(ClaimFile, MalformedFilesNameFileLineColumnAndProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // 1 YAML syntax error
      {replace(kValid, "title: t\n", "title: [t\n"), "claim.yaml:3:6: YAML syntax error"},
      // 2 unknown measurement kind
      {replace(kValid, "kind: accuracy", "kind: accuracyy"),
       "claim.yaml:6:17: field 'measure.kind': unknown measurement kind 'accuracyy' (registered: accuracy, "
       "attention_mass"},
      // 3 missing required field
      {replace(kValid, "title: t\n", ""), "claim.yaml:1:1: missing required field 'title'"},
      // 4 wrongly typed field
      {replace(kValid, "threshold: 0.98}", "threshold: high}"),
       "claim.yaml:7:30: field 'expect.threshold': expected a number, got a string"},
      // 5 unknown evaluation set
      {replace(kValid, "set: test_0", "set: test_9"),
       "claim.yaml:6:32: field 'measure.set': 'test_9' is not one of: train, test_0"},
      // 6 unknown run
      {replace(kValid, "run: tiny", "run: huge"),
       "claim.yaml:5:16: field 'subject.run': unknown run 'huge' (runs.yaml defines: tiny)"},
      // 7 threshold out of range for a proportion
      {replace(kValid, "threshold: 0.98}", "threshold: 98}"),
       "claim.yaml:7:30: field 'expect.threshold': must be in [0, 1] for a proportion (kind 'accuracy')"},
      // 8 unknown top-level field
      {kValid + "colour: blue\n", "claim.yaml:10:9: field 'colour': unknown field; expected one of 'id', 'title'"},
      // 9 unknown comparison
      {replace(kValid, "op: \">\"", "op: \"=>\""),
       "claim.yaml:7:14: field 'expect.op': '=>' is not one of: >, >=, <, <="},
      // 10 bad arxiv id
      {replace(kValid, "arxiv: 2605.31497v1", "arxiv: \"2605.31497\""),
       "claim.yaml:3:16: field 'paper.arxiv': '2605.31497' must be an arXiv id with its version"},
      // 11 checkpoint beyond the run
      {replace(kValid, "checkpoint: final, seeds", "checkpoint: 99999, seeds"),
       "claim.yaml:5:34: field 'subject.checkpoint': checkpoint '99999' is not final, init or a step in [0, 300]"},
      // 12 seed not in the run
      {replace(kValid, "seeds: all", "seeds: [0, 5]"),
       "claim.yaml:5:48: field 'subject.seeds': seed 5 is not a seed of run 'tiny'"},
      // 13 unknown tier
      {replace(kValid, "tier: fixture", "tier: tpu"),
       "claim.yaml:9:7: field 'tier': 'tpu' is not one of: fixture, cpu, gpu"},
      // 14 bad id
      {replace(kValid, "id: X1", "id: \"has space\""),
       "claim.yaml:1:5: field 'id': 'has space' must be letters, digits"},
      // 15 duplicate key
      {kValid + "tier: cpu\n", "claim.yaml:10:1: duplicate key 'tier'"},
      // 16 measurement parameter out of range
      {replace(kValid, "size: 100}", "size: 0}"), "claim.yaml:6:46: field 'measure.size': must be in [1, 1000000]"},
      // 17 unknown measurement parameter
      {replace(kValid, "size: 100}", "size: 100, sets: x}"), "field 'measure.sets': unknown field"},
      // 18 control checkpoint invalid
      {replace(kValid, "control: {checkpoint: init}", "control: {checkpoint: start}"),
       "claim.yaml:8:23: field 'control.checkpoint': checkpoint 'start' is not final"},
      // 19 the document is not a mapping
      {"- just\n- a list\n", "claim.yaml:1:1: the document must be a mapping, got a list"},
      // 20 min_seeds below 1
      {replace(kValid, "threshold: 0.98}", "threshold: 0.98, min_seeds: 0}"),
       "field 'expect.min_seeds': 0 is outside [1, 1000]"},
      // 21 an unbounded integer
      {replace(kValid, "threshold: 0.98}", "threshold: 0.98, min_seeds: 1000000000000}"),
       "claim.yaml:7:47: field 'expect.min_seeds': 1000000000000 is outside [1, 1000]"},
      // 22 a tag that contradicts the expected type (or any explicit tag)
      {replace(kValid, "threshold: 0.98}", "threshold: !!str 0.98}"),
       "claim.yaml:7:30: explicit YAML tag '!!str' is not accepted"},
      // 23 a second document after a valid claim
      {kValid + "---\nid: X2\n", "claim.yaml:10:1: a second YAML document"},  // at the ---
      // 24 "billion laughs": nested aliases
      {"a: &a [x, x, x, x, x, x, x, x, x, x]\n"
       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
       "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
       "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
       "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n",
       "the document expands to more than 100000 values"},
      // 25 a long id (under the file cap, over the string cap) and a merely over-long one
      {replace(kValid, "id: X1", "id: " + std::string(200000, 'a')),
       "claim.yaml:1:5: a value of 200000 characters (at most 65536)"},
      {replace(kValid, "id: X1", "id: " + std::string(300, 'a')), "field 'id': 'aaaa"},
      // 26 a file over the cap (256 KiB)
      {replace(kValid, "id: X1", "id: " + std::string(5 << 20, 'a')),
       " bytes; a claim or run file is at most 262144 bytes"},
      // 27 deep nesting
      {kValid + "notes: " + std::string(100, '[') + std::string(100, ']') + "\n", "nested more than 64 levels deep"},
      // 28 a newline in a one-line field (it reaches a figure: a gnuplot command could follow it)
      {replace(kValid, "text: \"> 98%\"", "text: \"> 98%\\n!touch /tmp/pwned\\n#\""),
       "claim.yaml:4:31: field 'reported.text': a one-line field holds a newline or tab"},
      // 29 a terminal escape sequence, 30 a bidirectional override, 31 a C1 control character
      {replace(kValid, "title: t\n", "title: \"t\\e[2J\"\n"),
       "claim.yaml:2:8: this value holds a control character (U+001B)"},
      {replace(kValid, "title: t\n", "title: \"t\\u202Ex\"\n"),
       "claim.yaml:2:8: this value holds a control character (a bidirectional override)"},
      {replace(kValid, "title: t\n", "title: \"t\\x85x\"\n"),
       "claim.yaml:2:8: this value holds a control character (a C1 control character)"},
      // 32 a control character in a key
      {kValid + "\"no\\x01tes\": x\n", "claim.yaml:10:1: this key holds a control character (U+0001)"},
  };
  ASSERT_GE(cases.size(), 15u);
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string err = load_error(cases[i].first);
    EXPECT_EQ(err.rfind(cases[i].second, 0) == 0 || err.find(cases[i].second) != std::string::npos, true)
        << "case " << i + 1 << "\n  got:      " << err << "\n  expected: " << cases[i].second;
  }
}

// control: a list, a trained control on another run, and what is refused (with FILE:LINE:COL).
TEST(ClaimFile, ControlsAreAListOrOneOrNoneAndARunControlMustExist) {
  const std::string list =
      replace(kValid, "control: {checkpoint: init}", "control: [{checkpoint: init}, {checkpoint: \"300\"}]");
  EXPECT_EQ(load_error(list), "(loaded)");
  EXPECT_NE(load_error(replace(kValid, "control: {checkpoint: init}", "control: {run: nope, checkpoint: final}"))
                .find("no run 'nope' in runs.yaml"),
            std::string::npos);
  EXPECT_NE(load_error(replace(kValid, "control: {checkpoint: init}", "control: {run: tiny, checkpoint: final}"))
                .find("names the claim's own run"),
            std::string::npos);
  EXPECT_NE(load_error(replace(kValid, "control: {checkpoint: init}", "control: []")).find("an empty list"),
            std::string::npos);
  EXPECT_NE(
      load_error(replace(kValid, "control: {checkpoint: init}", "control: [{none: why}]")).find("'none' stands alone"),
      std::string::npos);
  EXPECT_NE(load_error(replace(kValid, "control: {checkpoint: init}", "control: [{checkpoint: init}, 3]"))
                .find("must be a mapping"),
            std::string::npos);
}

TEST(Verifier, BrokenFileIsAnErrorAndTheOthersStillRun) {
  const auto dir = fresh_dir("mixed");
  std::ofstream(dir + "/bad.yaml") << replace(kValid, "kind: accuracy", "kind: nope");
  std::ofstream(dir + "/good.yaml") << kValid;  // fixture tier, no fixtures: SKIPPED
  std::ofstream(dir + "/dup.yaml") << kValid;   // same id X1 as good.yaml
  RunStore store(test_runs(), StoreOptions{dir + "/fixtures", dir + "/cache", Tier::Fixture});
  const auto results = run_claims(find_claim_files({dir}), analysis::builtin_registry(), test_runs(), store, {});
  ASSERT_EQ(results.size(), 3u);  // sorted: bad, dup, good
  EXPECT_EQ(results[0].verdict, Verdict::Error);
  EXPECT_NE(results[0].reason.find("unknown measurement kind 'nope'"), std::string::npos);
  EXPECT_EQ(results[1].verdict, Verdict::Skipped);
  EXPECT_EQ(results[2].verdict, Verdict::Error);
  EXPECT_NE(results[2].reason.find("duplicate claim id 'X1'"), std::string::npos);
  report::ReportContext ctx;
  ctx.fail_on = "any";
  EXPECT_EQ(report::exit_status(report::make_report(results, ctx)), 1);
  ctx.fail_on = "error";
  EXPECT_EQ(report::exit_status(report::make_report(results, ctx)), 1);
  EXPECT_EQ(report::exit_status(report::make_report({results[1]}, ctx)), kExitSkipped);
}

// The longest claims start first where the last report says how long each took (unknown ones first, in
// the files' order); the results stay in the files' order. A report that is missing or cut short is
// no hint at all.
TEST(Verifier, TheLongestClaimsOfTheLastReportStartFirst) {
  const std::vector<std::string> files = {"c/a.yaml", "c/b.yaml", "c/./c.yaml", "c/d.yaml"};
  EXPECT_EQ(start_order(files, {}), (std::vector<size_t>{0, 1, 2, 3}));
  const std::map<std::string, double> last = {{"c/b.yaml", 1.0}, {"c/c.yaml", 5.0}};
  EXPECT_EQ(start_order(files, last), (std::vector<size_t>{0, 3, 2, 1}));
  const auto dir = fresh_dir("last_seconds");
  EXPECT_TRUE(report::claim_seconds(dir).empty());
  std::ofstream(dir + "/report.json")
      << R"({"claims": [{"file": "c/./c.yaml", "seconds": 5.0}, {"file": "c/b.yaml", "seconds": 1}, {"file": "c/x.yaml"}]})";
  EXPECT_EQ(report::claim_seconds(dir), last);
  std::ofstream(dir + "/report.json") << R"({"claims": [{"file": "c/b.yaml", "seconds": 1},)";
  EXPECT_TRUE(report::claim_seconds(dir).empty());
  // Run in another order, the same results in the same places.
  std::ofstream(dir + "/bad.yaml") << replace(kValid, "kind: accuracy", "kind: nope");
  std::ofstream(dir + "/good.yaml") << kValid;
  RunStore store(test_runs(), StoreOptions{dir + "/fixtures", dir + "/cache", Tier::Fixture});
  VerifyOptions reversed;
  reversed.jobs = 2;
  reversed.last_seconds = {{dir + "/bad.yaml", 1.0}, {dir + "/good.yaml", 2.0}};
  const auto results = run_claims(find_claim_files({dir}), analysis::builtin_registry(), test_runs(), store, reversed);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].verdict, Verdict::Error);
  EXPECT_EQ(results[1].verdict, Verdict::Skipped);
}

// An ERROR carries no number in any rendering: a claim measured and then found to share its id, and a
// kind whose value is NaN (judged, it would be INCONCLUSIVE, "the interval straddles the threshold").
TEST(Verifier, AnErrorCarriesNoNumberAndNaNIsAnError) {
  train::apply_threads(train::default_threads());
  const auto dir = fresh_dir("error-numbers"), nan_dir = fresh_dir("error-nan");
  std::ifstream in(kData + "/claims/sec/learns.yaml");
  const std::string learns((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(dir + "/a.yaml") << learns;
  std::ofstream(dir + "/b.yaml") << learns;  // the same id, measured too
  std::ofstream(nan_dir + "/c.yaml") << replace(learns, "{kind: accuracy, set: test_0, size: 3000}",
                                                "{kind: nan_value}");
  analysis::Registry nan_registry;
  nan_registry.add(analysis::MeasurementKind(
      "nan_value", analysis::Statistic::Scalar, [](const analysis::MeasureInput&) { return analysis::Measurement{}; },
      "always NaN"));
  const StoreOptions so{fresh_dir("nofixtures"), fresh_dir("cache"), Tier::Cpu};
  RunStore store(test_runs(), so), nan_store(test_runs(), so);
  auto results = run_claims(find_claim_files({dir}), analysis::builtin_registry(), test_runs(), store, {});
  const auto nan = run_claims(find_claim_files({nan_dir}), nan_registry, test_runs(), nan_store, {});
  ASSERT_EQ(results.size(), 2u);
  ASSERT_EQ(nan.size(), 1u);
  results.push_back(nan[0]);
  EXPECT_EQ(results[0].verdict, Verdict::Pass) << results[0].reason;
  for (size_t i : {1u, 2u}) {
    EXPECT_EQ(results[i].verdict, Verdict::Error) << results[i].reason;
    EXPECT_TRUE(results[i].seeds.empty());
    EXPECT_TRUE(results[i].controls.empty());
  }
  EXPECT_NE(results[1].reason.find("duplicate claim id"), std::string::npos);
  EXPECT_NE(results[2].reason.find("is NaN (undefined)"), std::string::npos) << results[2].reason;
  const auto j = report::to_json(report::make_report(results, {}));
  for (size_t i : {1u, 2u}) {
    EXPECT_FALSE(j["claims"][i].contains("measured")) << j["claims"][i].dump();
    EXPECT_FALSE(j["claims"][i].contains("seeds"));
  }
  // Markup in a title reaches REPORT.md as text: every '<' that would open a tag is escaped.
  results[0].claim.title = "<script>alert(1)</script> <img src=x> <!-- c --> a < 0.5";
  const std::string md = report::to_markdown(report::make_report(results, {}));
  for (const std::string tag : {"<script", "</script", "<img", "<!--"})
    for (size_t at = md.find(tag); at != std::string::npos; at = md.find(tag, at + 1))
      EXPECT_TRUE(at > 0 && md[at - 1] == '\\') << md.substr(at, 20);
  EXPECT_NE(md.find("\\<script>alert(1)\\</script>"), std::string::npos);
  EXPECT_NE(md.find("a < 0.5"), std::string::npos);
}

TEST(Verifier, TrainsOnceThenServesFromCacheAndTheControlCatchesAWeakRule) {
  train::apply_threads(train::default_threads());
  const auto cache = fresh_dir("cache");
  const auto files = find_claim_files({kData + "/claims/sec"});
  ASSERT_EQ(files.size(), 2u);
  StoreOptions so{fresh_dir("nofixtures"), cache, Tier::Cpu};

  RunStore first(test_runs(), so);
  const auto results = run_claims(files, analysis::builtin_registry(), test_runs(), first, {});
  EXPECT_EQ(first.trainings(), 1) << "two claims on one run train it once";
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].id, "T-learns");
  EXPECT_EQ(results[0].verdict, Verdict::Pass) << results[0].reason << " measured " << results[0].measured;
  ASSERT_EQ(results[0].controls.size(), 1u);
  ASSERT_EQ(results[0].controls[0].seeds.size(), 1u);
  EXPECT_EQ(results[0].controls[0].seeds[0].verdict, Verdict::Fail);
  EXPECT_EQ(results[1].id, "T-weak");
  EXPECT_EQ(results[1].verdict, Verdict::Invalid) << results[1].reason;
  EXPECT_NE(results[1].reason.find("negative control"), std::string::npos);

  RunStore second(test_runs(), so);
  const auto again = run_claims(files, analysis::builtin_registry(), test_runs(), second, {});
  EXPECT_EQ(second.trainings(), 0) << "a second verify finds the run in the cache";
  EXPECT_EQ(again[0].measured, results[0].measured);
  // A run's provenance is its latest checkpoint read, not the negative control's step 0 read after it.
  ASSERT_FALSE(second.provenance().empty());
  for (const auto& [key, p] : second.provenance()) {
    if (key.find("(init)") != std::string::npos) continue;
    EXPECT_GT(p.value("step", int64_t{-1}), 0) << key;
    EXPECT_EQ(p.value("device", std::string()), "cpu") << key;
  }

  // A list of controls: each is measured and reported; one that passes (here the claim's own final
  // checkpoint, which must pass) makes the claim INVALID even when the untrained control fails.
  const auto two = fresh_dir("two-controls") + "/T-two.yaml";
  std::ifstream original(files[0]);
  const std::string text((std::istreambuf_iterator<char>(original)), std::istreambuf_iterator<char>());
  std::ofstream(two) << replace(text, "control: {checkpoint: init}",
                                "control: [{checkpoint: init}, {checkpoint: final}]");
  const auto listed = run_claim(two, analysis::builtin_registry(), test_runs(), second, {});
  ASSERT_EQ(listed.controls.size(), 2u);
  EXPECT_EQ(listed.controls[0].seeds.at(0).verdict, Verdict::Fail);
  EXPECT_EQ(listed.controls[1].seeds.at(0).verdict, Verdict::Pass);
  EXPECT_EQ(listed.verdict, Verdict::Invalid) << listed.reason;
  EXPECT_NE(listed.reason.find("negative control (final, seed 0)"), std::string::npos) << listed.reason;
  EXPECT_EQ(to_json(listed)["controls"].size(), 2u);

  // With no budget to train and an empty cache the same claims are SKIPPED, not failed.
  RunStore none(test_runs(), StoreOptions{so.fixtures_dir, fresh_dir("empty"), Tier::Fixture});
  EXPECT_EQ(run_claim(files[0], analysis::builtin_registry(), test_runs(), none, {}).verdict, Verdict::Skipped);

  // The report: markdown table row, JSON counts, JUnit properties.
  report::ReportContext ctx;
  ctx.command = "test";
  ctx.budget = "cpu";
  ctx.runtime = train::runtime_info();
  ctx.runs = &test_runs();
  const report::Report rep = report::make_report(results, ctx);
  const auto j = report::to_json(rep);
  EXPECT_EQ(j["format"], report::kReportFormat);
  EXPECT_EQ(j["counts"]["PASS"], 1);
  EXPECT_EQ(j["counts"]["INVALID"], 1);
  const auto md = report::to_markdown(rep);
  EXPECT_NE(md.find("| T-learns | 4 |"), std::string::npos);
  EXPECT_NE(md.find("| train.batch_size | 256 |"), std::string::npos) << "the unstated choices are listed";
  EXPECT_NE(md.find("not compared"), std::string::npos);
  EXPECT_LT(md.size(), 1u << 20);
  const auto xml = report::to_junit(rep);
  EXPECT_NE(xml.find("<property name=\"measured\""), std::string::npos);
  EXPECT_NE(xml.find("<error message=\"INVALID"), std::string::npos);

  // Against a baseline, in all three renderings at once: a FAIL the baseline records is expected (JUnit
  // passes it, REPORT.md says so); a PASS it recorded that fails now is a regression.
  auto failing = results;
  failing[0].verdict = Verdict::Fail;
  report::Report found = report::make_report(failing, ctx);
  const auto recorded = report::baseline_from_report(report::to_json(found), report::default_tolerance(), "test");
  found.baseline = report::compare_with_baseline(found, recorded, "expected.json", "cpu");
  EXPECT_TRUE(found.baseline->changes.empty());
  // T-weak's INVALID is recorded too: a verdict other than PASS or SKIPPED that the baseline holds.
  EXPECT_EQ(found.baseline->expected, (std::set<std::string>{"T-learns", "T-weak"}));
  EXPECT_EQ(report::to_json(found)["claims"][0]["expected"], true);
  EXPECT_EQ(report::to_json(found)["baseline"]["changes"], nlohmann::json::array());
  EXPECT_NE(report::to_markdown(found).find("**FAIL** (expected: in the baseline)"), std::string::npos);
  EXPECT_NE(report::to_junit(found).find("failures=\"0\""), std::string::npos);
  EXPECT_NE(report::summary_lines(found).find("no change"), std::string::npos);
  const auto passed = report::baseline_from_report(j, report::default_tolerance(), "test");
  found.baseline = report::compare_with_baseline(found, passed, "expected.json", "cpu");
  ASSERT_EQ(found.baseline->changes.size(), 1u);
  EXPECT_EQ(found.baseline->changes[0].kind, "regression");
  EXPECT_EQ(found.baseline->expected, std::set<std::string>{"T-weak"});
  EXPECT_NE(report::to_markdown(found).find("| T-learns | **regression** |"), std::string::npos);
  EXPECT_NE(report::to_junit(found).find("<failure message=\"changed from the baseline: regression"),
            std::string::npos);
}

TEST(Verifier, RunsFileErrorsAreLocated) {
  const auto dir = fresh_dir("runsbad");
  std::ofstream(dir + "/runs.yaml")
      << "runs:\n  r:\n    seeds: [0]\n    tier: cpu\n    config:\n      model: {d_model: 128, d_head: 128, n_heads: "
         "1, d_mlp: 512, activation: relu, output_vocab: full, init_std: -1}\n"
      << "      train: {steps: -5, batch_size: 128, lr: 1.0e-3, weight_decay: 2.0e-2, beta1: 0.9, beta2: 0.999, eps: "
         "1.0e-8}\n";
  try {
    Runs::load(dir + "/runs.yaml");
    FAIL() << "loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("runs.yaml:7:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("field 'runs.r.config.train.steps': -5 is outside [1, 1000000000]"),
              std::string::npos)
        << e.what();
  }
}

// A theory claim (§7): no run, Monte Carlo seeds, a control that overrides parameters.
TEST(ClaimFile, TheorySubjectAndControlParameters) {
  const std::string theory =
      "id: T9\ntitle: t\npaper: {arxiv: 2605.31497v1, section: \"7\", quote: q}\nreported: {value: null, text: x}\n"
      "subject: {theory: disentangled, seeds: [0, 5]}\n"
      "measure: {kind: theory_one_step, sizes: [[5, 2, 6]], assignments: [1, 2], samples: 256, eval_size: 100}\n"
      "expect: {op: \">=\", threshold: 0.9}\n"
      "control: {params: {phi1: scrambled}}\n";
  EXPECT_EQ(load_error(theory), "(loaded)");
  const std::string path = fresh_dir("theory") + "/T9.yaml";
  std::ofstream(path) << theory;
  const Claim c = load_claim(path, analysis::builtin_registry(), test_runs());
  EXPECT_EQ(c.seeds, (std::vector<uint64_t>{0, 5}));
  ASSERT_EQ(c.controls.size(), 1u);
  ASSERT_TRUE(c.controls[0].params.has_value());
  EXPECT_EQ((*c.controls[0].params)["phi1"], "scrambled");
  EXPECT_EQ(c.params["phi1"], "identity");
  // A theory kind on a run, a run kind on a theory, a bad override, a misnamed model.
  EXPECT_NE(load_error(replace(theory, "theory: disentangled, seeds: [0, 5]", "run: tiny, checkpoint: final"))
                .find("measures a theory model"),
            std::string::npos);
  EXPECT_NE(
      load_error(
          replace(
              replace(theory,
                      "kind: theory_one_step, sizes: [[5, 2, 6]], assignments: [1, 2], samples: 256, eval_size: 100",
                      "kind: accuracy, set: test_0"),
              "threshold: 0.9", "threshold: 0.5"))
          .find("measures a run's checkpoint"),
      std::string::npos);
  EXPECT_NE(load_error(replace(theory, "phi1: scrambled", "phi1: shuffled"))
                .find("'shuffled' is not one of: identity, scrambled"),
            std::string::npos);
  EXPECT_NE(load_error(replace(theory, "theory: disentangled", "theory: tangled")).find("the subject names 'tangled'"),
            std::string::npos);
  EXPECT_NE(load_error(replace(theory, "sizes: [[5, 2, 6]]", "sizes: [[6, 2, 6]]")).find("claim.yaml:6:"),
            std::string::npos);
  // Through the verifier: both Monte Carlo seeds measured, the control run with the overrides.
  RunStore store(test_runs(), StoreOptions{fresh_dir("theory-fx"), fresh_dir("theory-cache"), Tier::Fixture});
  const auto r = run_claim(path, analysis::builtin_registry(), test_runs(), store, {});
  EXPECT_TRUE(r.verdict == Verdict::Pass || r.verdict == Verdict::Fail || r.verdict == Verdict::Inconclusive ||
              r.verdict == Verdict::Invalid)
      << verdict_name(r.verdict) << ": " << r.reason;
  EXPECT_EQ(r.seeds.size(), 2u);
  ASSERT_EQ(r.controls.size(), 1u);
  EXPECT_EQ(r.controls[0].seeds.size(), 2u);
  EXPECT_EQ(to_json(r)["subject"]["theory"], "disentangled");
}

// expect.seeds: fraction — k of n seeds pass, judged by the Wilson interval of k/n against q.
TEST(Verifier, FractionRuleJudgesTheShareOfPassingSeeds) {
  const std::string base =
      "id: F1\ntitle: t\npaper: {arxiv: 2605.31497v1, section: \"7\", quote: q}\nreported: {value: null, text: x}\n"
      "subject: {theory: disentangled, seeds: [0, 1, 2, 3, 4]}\n"
      "measure: {kind: theory_one_step, sizes: [[5, 2, 6]], assignments: [1, 2], samples: 256, eval_size: 100}\n"
      "expect: {op: \">=\", threshold: 0, seeds: fraction, fraction: 0.3}\n"
      "control: {none: a rule every model passes}\n";
  auto verdict_of = [&](const std::string& text, std::string* reason = nullptr) {
    const std::string path = fresh_dir("fraction") + "/F1.yaml";
    std::ofstream(path) << text;
    RunStore store(test_runs(), StoreOptions{fresh_dir("fraction-fx"), fresh_dir("fraction-cache"), Tier::Fixture});
    const auto r = run_claim(path, analysis::builtin_registry(), test_runs(), store, {});
    if (reason) *reason = r.reason;
    return r.verdict;
  };
  std::string reason;
  EXPECT_EQ(verdict_of(base, &reason), Verdict::Pass);  // 5 of 5: Wilson [0.57, 1] >= 0.3
  EXPECT_EQ(reason, "5 of 5 seeds pass");
  EXPECT_EQ(verdict_of(replace(base, "fraction: 0.3", "fraction: 0.9")), Verdict::Inconclusive);  // 0.57 < 0.9 <= 1
  const std::string none_pass = replace(base, "op: \">=\", threshold: 0,", "op: \">\", threshold: 1,");
  EXPECT_EQ(verdict_of(none_pass), Verdict::Inconclusive);  // 0 of 5: [0, 0.43] holds 0.3
  EXPECT_EQ(verdict_of(replace(none_pass, "fraction: 0.3", "fraction: 0.9")), Verdict::Fail);  // [0, 0.43] < 0.9
  EXPECT_NE(load_error(replace(base, "fraction: 0.3", "fraction: 1.5")).find("must be in (0, 1]"), std::string::npos);
  EXPECT_NE(load_error(replace(base, "seeds: fraction, fraction: 0.3", "seeds: each, fraction: 0.3"))
                .find("only with seeds: fraction"),
            std::string::npos);
}

// The kinds tables are written by hand: docs/claim-files.md's (the engine's kinds and Assign and Add's)
// and each paper's README (its module's kinds). Every registered kind must have a row in one of them,
// and every row of docs/claim-files.md must name a registered kind, so no table drifts from the registry.
// In a file with a "## Measurement kinds" section, only that section's rows are read (the schema's table
// above it names fields, such as `companion_of`, not kinds).
std::set<std::string> kind_rows(const std::string& markdown) {
  std::ifstream in(markdown);
  std::vector<std::string> lines;
  bool sectioned = false;
  for (std::string line; std::getline(in, line);) {
    sectioned = sectioned || line == "## Measurement kinds";
    lines.push_back(line);
  }
  std::set<std::string> rows;
  bool in_section = !sectioned;
  for (const std::string& line : lines) {
    if (sectioned && line.rfind("## ", 0) == 0) in_section = line == "## Measurement kinds";
    if (!in_section || line.rfind("| `", 0) != 0) continue;  // a table row whose first cell is `name`
    const size_t end = line.find('`', 3);
    if (end != std::string::npos) rows.insert(line.substr(3, end - 3));
  }
  return rows;
}

TEST(ClaimFile, KindsTableInTheReadmeMatchesTheRegistry) {
  const std::string root = std::string(CLAIMCHECK_TEST_DATA) + "/../../";
  ASSERT_TRUE(std::ifstream(root + "docs/claim-files.md").good());
  const std::set<std::string> rows = kind_rows(root + "docs/claim-files.md");
  const auto& registry = analysis::builtin_registry();
  for (const auto& name : registry.names()) {
    const std::string origin = registry.origin(name);  // papers/NAME/module, or the engine
    const bool in_paper =
        origin.rfind("papers/", 0) == 0 &&
        kind_rows(root + origin.substr(0, origin.size() - std::string("/module").size()) + "/README.md").count(name);
    EXPECT_TRUE(rows.count(name) || in_paper)
        << "kind '" << name << "' (" << origin << ") has no row in docs/claim-files.md or its paper's README.md";
  }
  for (const auto& row : rows)
    if (row.find('.') == std::string::npos && row.find(' ') == std::string::npos && row.find('_') != std::string::npos)
      EXPECT_NE(registry.find(row), nullptr)
          << "docs/claim-files.md has a row for '" << row << "', which is not a registered kind";
}

// claims/defaults.yaml in lit's manner (claims/folder_defaults.h): the claim gets the keys it does not
// write from its folder's defaults and those above it, up to `claims/`; nearer ones refine farther ones.
TEST(ClaimFile, FolderDefaultsFillWhatAClaimLeavesOutAndNameTheirOwnLines) {
  const fs::path root = fresh_dir("defaults");
  const fs::path claims_dir = root / "claims", section = claims_dir / "s4";
  fs::create_directories(section);
  std::ofstream(root / "defaults.yaml") << "tier: gpu\n";  // above claims/: not read
  std::ofstream(claims_dir / "defaults.yaml") << "paper: {arxiv: 2605.31497v1}\ntier: cpu\nanalysis_seed: 7\n";
  std::ofstream(section / "defaults.yaml") << "tier: fixture\npaper: {section: \"4\"}\n";
  const std::string claim =
      replace(replace(kValid, "paper: {arxiv: 2605.31497v1, section: \"4\", quote: q}\n", "paper: {quote: q}\n"),
              "tier: fixture\n", "");
  std::ofstream(section / "X1.yaml") << claim;
  const Claim c = load_claim((section / "X1.yaml").string(), analysis::builtin_registry(), test_runs());
  EXPECT_EQ(c.paper.arxiv, "2605.31497v1");
  EXPECT_EQ(c.paper.section, "4");
  EXPECT_EQ(c.tier, Tier::Fixture);     // the nearer file wins
  EXPECT_EQ(c.params["eval_seed"], 7);  // the kind's sampled set: the paper's analysis_seed, not the engine's 0
  // The claim's own value wins over every defaults file.
  std::ofstream(section / "X2.yaml") << replace(claim, "id: X1", "id: X2") << "tier: cpu\n";
  EXPECT_EQ(load_claim((section / "X2.yaml").string(), analysis::builtin_registry(), test_runs()).tier, Tier::Cpu);
  // defaults.yaml is not a claim: neither verify nor ctest discovery lists it.
  for (const auto& f : find_claim_files({claims_dir.string()})) EXPECT_NE(fs::path(f).filename(), "defaults.yaml") << f;

  // A bad value or key in a defaults file is reported at its own line.
  std::ofstream(claims_dir / "defaults.yaml") << "paper: {arxiv: 2605.31497v1}\ntier: cpu\nowner: me\n";
  try {
    load_claim((section / "X1.yaml").string(), analysis::builtin_registry(), test_runs());
    ADD_FAILURE() << "an unknown key in defaults.yaml was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("claims/defaults.yaml:3:1: unknown field 'owner' in a defaults file"),
              std::string::npos)
        << e.what();
  }
  std::ofstream(claims_dir / "defaults.yaml") << "tier: cpu\npaper: {arxiv: not-an-id}\n";
  try {
    load_claim((section / "X1.yaml").string(), analysis::builtin_registry(), test_runs());
    ADD_FAILURE() << "a bad arxiv id from defaults.yaml was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("claims/defaults.yaml:2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'not-an-id' must be an arXiv id"), std::string::npos) << e.what();
  }
}

// A paper module's kinds read the runs of its own task families only: measured on a checkpoint of
// another family, each refuses it (cc::Error naming both families) before reading it. Before, M9's
// qk_previous_position indexed Assign and Add's positions in a grokking model's 3-position table (a
// read past the buffer that decided a verdict). Every kind of every module, on every other paper's run.
TEST(Kinds, EveryModuleKindRefusesTheRunsOfAnotherTaskFamily) {
  const auto dir = fresh_dir("families");
  std::ofstream(dir + "/runs.yaml")
      << "runs:\n  tiny:\n    seeds: [0]\n    tier: cpu\n    config:\n"
         "      task: {family: modular_addition, modulus: 13, train_fraction: 0.5, split_seed: 3}\n"
         "      model: {n_layers: 1, mlp_layers: [0], d_model: 32, n_heads: 2, d_head: 16, d_mlp: 64, activation: "
         "relu, output_vocab: numbers, init_std: 0.17}\n"
         "      train: {batch: full, steps: 12, lr: 1.0e-2, weight_decay: 1.0, beta1: 0.9, beta2: 0.98, eps: 1.0e-8}\n";
  const Runs grokking = Runs::load(dir + "/runs.yaml");
  std::vector<train::Checkpoint> checkpoints;
  for (const RunSpec* spec : {test_runs().find("tiny"), grokking.find("tiny")}) {
    train::Checkpoint ck;
    ck.path = dir + "/" + spec->config.family + ".safetensors";
    ck.config = spec->for_seed(0);
    ck.model = std::make_shared<model::Transformer>(ck.config.model);
    ck.model->init(0);
    checkpoints.push_back(std::move(ck));
  }
  ASSERT_NE(checkpoints[0].config.family, checkpoints[1].config.family);
  const auto& reg = analysis::builtin_registry();
  const nlohmann::json params = nlohmann::json::object();  // refused before the parameters are read
  int refused = 0;
  for (const auto& name : reg.names()) {
    const auto& k = *reg.find(name);
    const bool from_module = reg.origin(name).rfind("papers/", 0) == 0;
    EXPECT_EQ(from_module, !k.families.empty()) << name << " from " << reg.origin(name);
    if (k.families.empty() || !k.measure) continue;
    int others = 0;
    for (const auto& ck : checkpoints) {
      if (std::find(k.families.begin(), k.families.end(), ck.config.family) != k.families.end()) continue;
      ++others;
      try {
        k.measure({ck, params});
        ADD_FAILURE() << name << " measured a run of task family '" << ck.config.family << "'";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("is of task family '" + ck.config.family + "'"), std::string::npos)
            << name << ": " << e.what();
        ++refused;
      }
    }
    EXPECT_GE(others, 1) << name << " reads every family these tests know";
  }
  EXPECT_GE(refused, 20);  // both modules' checkpoint kinds (25 when written), each refused above
}

// `sensitivity:` declares a reading's free constants: each other value goes through the kind's own
// parameter check, and every mistake names the sensitivity's line.
TEST(ClaimFile, SensitivityDeclaresTheReadingsFreeConstants) {
  const std::string valid = kValid + "sensitivity:\n  - {at: size, values: [50, 200], why: w}\n";
  ASSERT_EQ(load_error(valid), "(loaded)");
  const std::string path = fresh_dir("sensitivity") + "/claim.yaml";
  std::ofstream(path) << valid;
  const Claim c = load_claim(path, analysis::builtin_registry(), test_runs());
  ASSERT_EQ(c.sensitivity.size(), 1u);
  EXPECT_EQ(c.sensitivity[0].committed, 100);
  ASSERT_EQ(c.sensitivity[0].params.size(), 2u);
  EXPECT_EQ(c.sensitivity[0].params[1]["size"], 200);
  EXPECT_EQ(c.sensitivity[0].params[1]["set"], "test_0");  // the other parameters as committed
  std::string seven_constants;
  for (int i = 0; i < 7; ++i) seven_constants += "  - {at: size, values: [" + std::to_string(50 + i) + "], why: w}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"  - {at: eval_seed, values: [1], why: w}\n", "no single value at 'eval_seed'"},  // a default, not written
      {"  - {at: size, values: [100], why: w}\n", "100 is the committed value"},
      {"  - {at: size, values: [50, 50], why: w}\n", "50 is listed twice"},
      {"  - {at: size, values: [\"big\"], why: w}\n", "not of the committed value's type"},
      {"  - {at: size, values: [0], why: w}\n", "at size = 0: "},  // the kind refuses it
      {"  - {at: kind, values: [x], why: w}\n", "not a constant of the reading"},
      {"  - {at: size, values: [], why: w}\n", "a list of 1 to 6"},
      {"  - {at: size, values: [50]}\n", "why"},
      {"  - {at: size, values: [50], why: w}\n  - {at: size, values: [60], why: w}\n", "'size' twice"},
      {seven_constants, "a list of 1 to 6"},  // one constant more than the cap (a cost bound)
  };
  for (const auto& [entry, want] : cases) {
    const std::string err = load_error(kValid + "sensitivity:\n" + entry);
    EXPECT_NE(err.find("claim.yaml:1"), std::string::npos) << entry << " -> " << err;  // its line, 10 or 11
    EXPECT_NE(err.find(want), std::string::npos) << entry << " -> " << err;
  }
}

// `at: expect.threshold`: the rule's threshold as a reading. Its values have the committed threshold's
// shape, lie in [0, 1] for a proportion, and carry no measurement parameters (nothing is measured again).
TEST(ClaimFile, TheThresholdIsAReadingWhereThePaperNamesNoNumber) {
  const std::string valid = kValid + "sensitivity:\n  - {at: expect.threshold, values: [0.95, 0.99], why: w}\n";
  ASSERT_EQ(load_error(valid), "(loaded)");
  const std::string path = fresh_dir("threshold_reading") + "/claim.yaml";
  std::ofstream(path) << valid;
  const Claim c = load_claim(path, analysis::builtin_registry(), test_runs());
  ASSERT_EQ(c.sensitivity.size(), 1u);
  EXPECT_EQ(c.sensitivity[0].committed, 0.98);
  EXPECT_EQ(c.sensitivity[0].values.size(), 2u);
  EXPECT_TRUE(c.sensitivity[0].params.empty());
  const std::string within =
      replace(kValid, "expect: {op: \">\", threshold: 0.98}", "expect: {op: within, threshold: [0.9, 1]}");
  EXPECT_EQ(load_error(within + "sensitivity:\n  - {at: expect.threshold, values: [[0.8, 1]], why: w}\n"), "(loaded)");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kValid + "sensitivity:\n  - {at: expect.threshold, values: [0.98], why: w}\n", "is the committed threshold"},
      {kValid + "sensitivity:\n  - {at: expect.threshold, values: [1.5], why: w}\n", "must lie in [0, 1]"},
      {kValid + "sensitivity:\n  - {at: expect.threshold, values: [[0.9, 1]], why: w}\n",
       "not a threshold of this rule (a number)"},
      {kValid + "sensitivity:\n  - {at: expect.threshold, values: [0.9, 0.9], why: w}\n", "listed twice"},
      {within + "sensitivity:\n  - {at: expect.threshold, values: [0.8], why: w}\n",
       "not a threshold of this rule ([low, high])"},
      {within + "sensitivity:\n  - {at: expect.threshold, values: [[1, 0.8]], why: w}\n", "low <= high"},
  };
  for (const auto& [text, want] : cases) {
    const std::string err = load_error(text);
    EXPECT_NE(err.find("claim.yaml:1"), std::string::npos) << text << " -> " << err;
    EXPECT_NE(err.find(want), std::string::npos) << text << " -> " << err;
  }
}

TEST(ClaimFile, AFileNamedTwiceIsReadOnce) {
  const std::string dir = kData + "/claims/sec";
  const auto once = find_claim_files({dir});
  ASSERT_EQ(once.size(), 2u);
  // The folder and one of its files, that file again, and the same file by another spelling.
  const auto twice =
      find_claim_files({dir, once[0], once[0], dir + "/../sec/" + fs::path(once[0]).filename().string()});
  ASSERT_EQ(twice.size(), once.size());
  for (size_t i = 0; i < once.size(); ++i) EXPECT_EQ(fs::weakly_canonical(twice[i]), fs::weakly_canonical(once[i]));
}
