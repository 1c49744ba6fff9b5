// Report figures: gnuplot scripts from figure specs, rendering into the report directory, the
// same bytes for the same data, and a figure that cannot be drawn reported without failing; and the
// baseline comparison the report opens with.
#include <gtest/gtest.h>

#include "test_helpers.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/baseline.h"
#include "report/cross_checks.h"
#include "report/figures.h"
#include "util/error.h"

using namespace cc;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json report_with(const nlohmann::json& figures_seed0, const nlohmann::json& figures_seed1) {
  nlohmann::json claim = {{"id", "X1"}, {"reported", {{"value", 0.25}, {"text", "f ≳ 0.25"}}}};
  claim["seeds"] = {{{"seed", 0}, {"details", {{"figures", figures_seed0}}}},
                    {{"seed", 1}, {"details", {{"figures", figures_seed1}}}}};
  return {{"claims", nlohmann::json::array({claim})}};
}

const nlohmann::json kLines = {
    {"id", "curve"},
    {"type", "lines"},
    {"merge_seeds", true},
    {"title", "t"},
    {"mark_reported", "vline"},
    {"series", nlohmann::json::array({{{"name", "test_0"}, {"x", {0.1, 0.25, 0.5}}, {"y", {0.2, 0.99, 1.0}}}})}};

}  // namespace

TEST(Figures, ScriptsCarryTheDataInline) {
  const nlohmann::json heat = {
      {"id", "h"}, {"type", "heatmap"}, {"title", "it's"}, {"matrix", {{1, 2}, {3, NAN}}}, {"xtics", {"a", "b"}}};
  const std::string gp = report::gnuplot_script(heat, "/tmp/x.png");
  EXPECT_NE(gp.find("set title 'it''s'"), std::string::npos) << gp;  // quotes escaped
  EXPECT_NE(gp.find("1 2\n3 NaN\n"), std::string::npos) << gp;       // masked cells stay missing
  EXPECT_NE(gp.find("set xtics ('a' 0, 'b' 1)"), std::string::npos) << gp;
  EXPECT_THROW(report::gnuplot_script({{"id", "z"}, {"type", "pie"}}, "/tmp/x.png"), Error);
}

TEST(Figures, RenderMergesSeedsMarksThePaperAndIsDeterministic) {
  if (std::system("gnuplot --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = cc::test::fresh_dir("figs");
  fs::remove_all(dir);
  nlohmann::json rep = report_with(nlohmann::json::array({kLines}), nlohmann::json::array({kLines}));
  const auto f = report::claim_figures(dir, rep["claims"][0]);
  ASSERT_EQ(f.size(), 1u);  // merged across the two seeds
  ASSERT_TRUE(f[0].contains("file")) << f.dump();
  const std::string png = slurp(dir + "/" + f[0]["file"].get<std::string>());
  EXPECT_EQ(png.substr(1, 3), "PNG");
  nlohmann::json again = report_with(nlohmann::json::array({kLines}), nlohmann::json::array({kLines}));
  report::claim_figures(dir, again["claims"][0]);
  EXPECT_EQ(slurp(dir + "/" + f[0]["file"].get<std::string>()), png);  // same data, same bytes
}

// A kind the papers share names no paper's figure and no paper's steps: the caption takes the claim's
// own figure, and a figure along training steps gets the paper's phase windows (paper.yaml) as marks.
TEST(Figures, TheClaimsFigureAndThePapersPhaseWindowsComeFromThePaper) {
  const std::string dir = cc::test::fresh_dir("figs_paper");
  nlohmann::json curve = kLines;
  curve.erase("mark_reported");
  curve["mark_phase_windows"] = true;
  nlohmann::json rep = report_with(nlohmann::json::array({curve}), nlohmann::json::array({curve}));
  rep["claims"][0]["paper"] = {{"figure", "Figure 9"}};
  const nlohmann::json marks = nlohmann::json::array({{{"at", 0.3}, {"label", "paper: binding 0.3"}}});
  const auto marked = report::claim_figures(dir, rep["claims"][0], marks);
  ASSERT_EQ(marked.size(), 1u);
  EXPECT_EQ(marked[0]["paper_figure"], "Figure 9");
  const std::string with_marks = slurp(dir + "/" + marked[0]["file"].get<std::string>());
  const auto plain = report::claim_figures(dir, rep["claims"][0]);
  EXPECT_NE(slurp(dir + "/" + plain[0]["file"].get<std::string>()), with_marks) << "the window is drawn";
  curve["paper_figure"] = "Figure 2";  // a paper's own kind may name its figure
  rep = report_with(nlohmann::json::array({curve}), nlohmann::json::array({curve}));
  rep["claims"][0]["paper"] = {{"figure", "Figure 9"}};
  EXPECT_EQ(report::claim_figures(dir, rep["claims"][0])[0]["paper_figure"], "Figure 2");
}

TEST(Figures, AFigureThatCannotBeDrawnIsReportedNotThrown) {
  const std::string dir = cc::test::fresh_dir("figs_bad");
  nlohmann::json rep = report_with(nlohmann::json::array({{{"id", "z"}, {"type", "pie"}}}), nlohmann::json::array());
  nlohmann::json f;
  EXPECT_NO_THROW(f = report::claim_figures(dir, rep["claims"][0]));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]["error"].get<std::string>().find("unknown type 'pie'"), std::string::npos);
}

// A report's figures share one gnuplot process: each is drawn as it would be alone (the same bytes,
// whatever was drawn before it: a heatmap's palette and square ratio, a curve's log scale and marks),
// and a figure gnuplot rejects, mid-script, costs only itself: the figures after it are drawn too.
TEST(Figures, FiguresDrawnTogetherAreTheBytesOfEachDrawnAlone) {
  if (std::system("gnuplot --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = cc::test::fresh_dir("figs_batch");
  nlohmann::json marked_log = kLines;
  marked_log["logx"] = true;
  marked_log["vlines"] = {{{"at", 0.3}, {"label", "v"}}};
  nlohmann::json rejected = kLines;  // no point a log scale can place: gnuplot's "x range is invalid"
  rejected["logx"] = true;
  rejected["series"][0]["x"] = {-1, 0, -2};
  const std::vector<report::FigureJob> jobs = {
      {"figures/heat.png",
       {{"id", "h"}, {"type", "heatmap"}, {"diverging", true}, {"title", "h"}, {"matrix", {{1, -1}, {0.5, 0}}}}},
      {"figures/marked.png", marked_log},
      {"figures/rejected.png", rejected},
      {"figures/plain.png", kLines},
      {"figures/text.png", {{"id", "t"}, {"type", "bars"}, {"labels", {"a"}}, {"values", {NAN}}}},
      {"figures/bars.png", {{"id", "b"}, {"type", "bars"}, {"labels", {"a", "b"}}, {"values", {1, 2}}}},
  };
  const std::vector<nlohmann::json> together = report::render_figures(dir + "/together", jobs);
  ASSERT_EQ(together.size(), jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const nlohmann::json alone = report::render_figure(dir + "/alone", jobs[i].rel, jobs[i].spec);
    EXPECT_EQ(together[i].dump(), alone.dump()) << jobs[i].rel;
    if (!alone.contains("file")) continue;
    const std::string bytes = slurp(dir + "/together/" + jobs[i].rel);
    EXPECT_EQ(bytes.substr(1, 3), "PNG") << jobs[i].rel;
    EXPECT_EQ(bytes, slurp(dir + "/alone/" + jobs[i].rel)) << jobs[i].rel;
  }
  EXPECT_TRUE(together[2].contains("error")) << together[2].dump();
  EXPECT_FALSE(fs::exists(dir + "/together/figures/rejected.png.part"));
  EXPECT_TRUE(together[4].contains("text")) << together[4].dump();
  for (size_t i : {0, 1, 3, 5}) EXPECT_TRUE(together[i].contains("file")) << together[i].dump();
}

// Data no plot could show is written as text, without starting gnuplot: a series with no finite
// point, every point at one x (gnuplot's "empty x range"), a heatmap of NaN, an empty histogram.
TEST(Figures, EmptyOrSinglePointSeriesBecomeText) {
  const std::string dir = cc::test::fresh_dir("figs_text");
  const double nan = std::nan("");
  auto lines = [](nlohmann::json x, nlohmann::json y) {
    return nlohmann::json{{"id", "l"},
                          {"type", "lines"},
                          {"title", "t"},
                          {"series", nlohmann::json::array({{{"name", "s"}, {"x", x}, {"y", y}}})}};
  };
  const nlohmann::json none =
      report::render_figure(dir, "figures/a.png", lines(nlohmann::json::array(), nlohmann::json::array()));
  EXPECT_EQ(none.value("text", ""), "no finite point to draw");
  const nlohmann::json one = report::render_figure(dir, "figures/b.png", lines({3000, nan}, {0.5, 0.7}));
  EXPECT_EQ(one.value("text", ""), "every point at one x, so as text: s: (3000, 0.5)");
  const nlohmann::json same_x = report::render_figure(dir, "figures/c.png", lines({2, 2}, {0.5, 0.7}));
  EXPECT_EQ(same_x.value("text", ""), "every point at one x, so as text: s: (2, 0.5); s: (2, 0.7)");
  const nlohmann::json heat = report::render_figure(
      dir, "figures/d.png", {{"id", "h"}, {"type", "heatmap"}, {"matrix", {{nan, nan}, {nan, nan}}}});
  EXPECT_EQ(heat.value("text", ""), "no finite value to draw");
  const nlohmann::json hist = report::render_figure(
      dir, "figures/e.png",
      {{"id", "h"}, {"type", "histogram"}, {"series", {{{"name", "s"}, {"values", nlohmann::json::array()}}}}});
  EXPECT_EQ(hist.value("text", ""), "no finite value to draw");
  for (const auto* e : {&none, &one, &same_x, &heat, &hist}) EXPECT_FALSE(e->contains("file"));
  EXPECT_FALSE(fs::exists(dir + "/figures"));  // nothing drawn, nothing written
  // Two points at two x are a plot.
  EXPECT_EQ(report::render_figure(dir, "figures/f.png", lines({1, 2}, {0.5, 0.7})).count("text"), 0u);
}

// No text from a claim, runs file or checkpoint reaches gnuplot as anything but the text of a
// string: each hostile payload, in every text field a figure spec has, gives a script of the same
// shape as plain text does, and gnuplot runs it without running anything else.
TEST(Figures, HostileTextInEveryFieldStaysText) {
  const std::string dir = cc::test::fresh_dir("inject");
  const std::string mark = dir + "/pwned";
  const std::vector<std::string> payloads = {
      "a\n!touch " + mark + "\n#",                  // a newline, then a shell escape
      "a\r!touch " + mark,                          // a carriage return
      "`touch " + mark + "`",                       // backquote command substitution
      "x' . system('touch " + mark + "') . '",      // breaking out of the quotes
      "x'\nsystem('touch " + mark + "')\nprint '",  // both
      "@MACRO system(\"touch " + mark + "\")",      // a macro and a function call
      std::string("a\0b", 3) + "\x1b[2J\x07",       // NUL, escape sequence, bell
  };
  // Every string a spec carries: title, axis labels, colour-box label, tic labels, series names,
  // marker labels, bar labels.
  auto specs = [](const std::string& t) {
    return std::vector<nlohmann::json>{
        {{"id", "h"},
         {"type", "heatmap"},
         {"title", t},
         {"xlabel", t},
         {"ylabel", t},
         {"cblabel", t},
         {"matrix", {{1, 2}, {3, 4}}},
         {"xtics", {t, t}},
         {"ytics", {t, t}}},
        {{"id", "l"},
         {"type", "lines"},
         {"title", t},
         {"xlabel", t},
         {"ylabel", t},
         {"series", {{{"name", t}, {"x", {0, 1}}, {"y", {0, 1}}}}},
         {"vlines", {{{"at", 0.5}, {"label", t}}}},
         {"hlines", {{{"at", 0.5}, {"label", t}}}}},
        {{"id", "s"}, {"type", "histogram"}, {"title", t}, {"series", {{{"name", t}, {"values", {0.1, 0.2}}}}}},
        {{"id", "b"}, {"type", "bars"}, {"title", t}, {"labels", {t, t}}, {"values", {1, 2}}},
    };
  };
  const bool have_gnuplot = std::system("gnuplot --version >/dev/null 2>&1") == 0;
  const auto plain = specs("plain");
  for (const auto& payload : payloads) {
    const auto hostile = specs(payload);
    for (size_t k = 0; k < plain.size(); ++k) {
      const std::string png = dir + "/f.png";
      const std::string a = report::gnuplot_script(plain[k], png), b = report::gnuplot_script(hostile[k], png);
      EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), std::count(b.begin(), b.end(), '\n')) << "spec " << k << ":\n"
                                                                                            << b;
      for (char c : b)
        EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << "a control character reached the script";
      if (!have_gnuplot) continue;
      std::ofstream(dir + "/f.gp") << b;
      std::system(("gnuplot '" + dir + "/f.gp' >/dev/null 2>&1").c_str());
      EXPECT_FALSE(fs::exists(mark)) << "spec " << k << " ran a command:\n" << b;
      fs::remove(mark);
    }
  }
}

// ---- Known outcomes: the baseline comparison ------------------------------------------------------

namespace {

nlohmann::json outcomes(const std::string& verdict, double value, bool proportion,
                        const std::string& tier = "fixture") {
  nlohmann::json c = {{"id", "X"},
                      {"file", "claims/x.yaml"},
                      {"tier", tier},
                      {"verdict", verdict},
                      {"measured_is_proportion", proportion},
                      {"measured", {{"value", value}, {"ci_low", value}, {"ci_high", value}}},
                      {"seeds", {{{"seed", 0}, {"verdict", verdict}, {"value", value}, {"n", 1000}}}}};
  return {{"claims", {c}}};
}

std::vector<std::string> kinds(const std::vector<report::Change>& changes) {
  std::vector<std::string> out;
  for (const auto& c : changes) out.push_back(c.kind);
  return out;
}

}  // namespace

TEST(Baseline, VerdictsValuesAndToleranceByPlatform) {
  const report::Tolerance exact{}, loose{1e-6, 1e-9};
  using V = std::vector<std::string>;
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("PASS", 0.5, false), outcomes("PASS", 0.5, false), exact)), V{});
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("PASS", 0.5, false), outcomes("FAIL", 0.5, false), exact)),
            V{"regression"});
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("PASS", 0.5, false), outcomes("INCONCLUSIVE", 0.5, false), exact)),
            V{"regression"});
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("FAIL", 0.5, false), outcomes("PASS", 0.5, false), exact)),
            V{"unexpected pass"});
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("FAIL", 0.5, false), outcomes("ERROR", 0.5, false), exact)),
            V{"verdict"});
  // A scalar that moved in the 8th digit: a change where the kernels are pinned (exact), not elsewhere.
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("PASS", 0.5, false), outcomes("PASS", 0.50000003, false), exact)),
            V{"value"});
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("PASS", 0.5, false), outcomes("PASS", 0.50000003, false), loose)),
            V{});
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("PASS", 0.5, false), outcomes("PASS", 0.50001, false), loose)),
            V{"value"});
  // A proportion is exact whatever the tolerance.
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("PASS", 0.995, true), outcomes("PASS", 0.99500001, true), loose)),
            V{"value"});
  // Skipped: not compared, unless a fixture-tier claim is no longer measured.
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("PASS", 0.5, false, "cpu"), outcomes("SKIPPED", 0.5, false, "cpu"),
                                           exact)),
            V{});
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("PASS", 0.5, false), outcomes("SKIPPED", 0.5, false), exact)),
            V{"no longer measured"});
  // Skipped in the baseline (a repro claim at the fixture budget) and measured here: judged on its own.
  // PASS agrees; anything else is a change, so a repro claim run by ctest at the cpu budget can fail.
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("SKIPPED", 0.5, false, "cpu"), outcomes("PASS", 0.5, false, "cpu"),
                                           exact)),
            V{});
  for (const char* v : {"FAIL", "ERROR", "INVALID", "INCONCLUSIVE"})
    EXPECT_EQ(
        kinds(report::compare_outcomes(outcomes("SKIPPED", 0.5, false, "cpu"), outcomes(v, 0.5, false, "cpu"), exact)),
        V{"not in the baseline"})
        << v;
  // Added and removed.
  nlohmann::json none = {{"claims", nlohmann::json::array()}};
  EXPECT_EQ(kinds(report::compare_outcomes(none, outcomes("PASS", 0.5, false), exact)), V{"added"});
  EXPECT_EQ(kinds(report::compare_outcomes(outcomes("PASS", 0.5, false), none, exact)), V{"removed"});
  // The tolerance table of a baseline, by platform.
  const nlohmann::json base = {{"tolerance", report::default_tolerance()}};
  EXPECT_EQ(report::tolerance_for(base, "cpu").scalar_rel, 0.0);
  EXPECT_EQ(report::tolerance_for(base, "cpu-unpinned").scalar_rel, 1e-6);
  EXPECT_EQ(report::tolerance_for(base, "cuda:0").scalar_rel, 1e-4);
}

// Cross-checks: another paper's committed report read beside a claim; a missing report is said so, a
// malformed entry is an error naming the file and line.
TEST(CrossChecks, ReadFromTheOtherPapersReport) {
  // A checkout: papers/this/paper.yaml cross-checks papers/other/report.json.
  const std::string root = cc::test::fresh_dir("cross_checks");
  const std::string dir = root + "/papers/this";
  std::filesystem::create_directories(dir);
  std::filesystem::create_directories(root + "/papers/other");
  std::ofstream(root + "/papers/other/report.json")
      << R"({"paper": {"title": "Other"}, "claims": [{"id": "N6", "verdict": "PASS",
      "measured": {"value": 0.944, "ci_low": 0.924, "ci_high": 0.964, "interval": "seed range"}}]})";
  std::ofstream(dir + "/paper.yaml")
      << "cross_checks:\n"
         "  - {claim: M8b, relation: positive control, report: ../other/report.json, other_claim: N6}\n"
         "  - {claim: M8b, relation: gone, report: ../gone/report.json, other_claim: N6}\n";
  const nlohmann::json c = report::read_cross_checks(dir + "/paper.yaml");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0]["paper"], "Other");
  EXPECT_EQ(c[0]["verdict"], "PASS");
  EXPECT_DOUBLE_EQ(c[0]["value"].get<double>(), 0.944);
  EXPECT_NE(c[1]["unavailable"].get<std::string>().find("gone/report.json"), std::string::npos);
  const std::string md = report::cross_checks_markdown(c);
  EXPECT_NE(
      md.find("| M8b | positive control | Other, N6 (`../other/report.json`) | 0.944 [range 0.924, 0.964] | PASS |"),
      std::string::npos)
      << md;
  // Only a report.json inside the checkout: not an absolute path, another file, or one above the root.
  for (const std::string& report :
       std::vector<std::string>{root + "/papers/other/report.json", "../other/x.json", "../../../report.json"}) {
    std::ofstream(dir + "/out.yaml") << "cross_checks:\n  - {claim: M8b, relation: r, report: " << report
                                     << ", other_claim: N6}\n";
    EXPECT_THROW(report::read_cross_checks(dir + "/out.yaml"), cc::Error) << report;
  }
  EXPECT_TRUE(report::read_cross_checks(dir + "/none.yaml").empty());
  std::ofstream(dir + "/bad.yaml")
      << "cross_checks:\n  - {claim: M8b, report: ../other/report.json, other_claim: N6}\n";
  try {
    report::read_cross_checks(dir + "/bad.yaml");
    FAIL() << "an entry without its relation was accepted";
  } catch (const cc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:2:"), std::string::npos) << e.what();
  }
}
