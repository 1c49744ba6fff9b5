// The scale ladder's section (report/ladder.h): the sentence per claim from the committed rung and the
// paper's, the worst failing seed's distance, and a rung report that is not this rung's.
#include <gtest/gtest.h>

#include <fstream>

#include "report/baseline.h"
#include "report/ladder.h"
#include "test_helpers.h"

namespace cc::report {
namespace {

// A claim as report.json holds it: `op threshold`, its verdict and per-seed values.
nlohmann::json claim(const std::string& id, const std::string& verdict, const std::string& op, double threshold,
                     const std::vector<double>& seeds) {
  nlohmann::json c = {{"id", id},
                      {"verdict", verdict},
                      {"subject", {{"run", "stated"}}},
                      {"threshold", {{"op", op}, {"value", threshold}}}};
  c["seeds"] = nlohmann::json::array();
  for (double v : seeds) c["seeds"].push_back({{"seed", c["seeds"].size()}, {"value", v}});
  c["measured"] = {{"value", seeds.front()}, {"ci_low", seeds.front()}, {"ci_high", seeds.front()}};
  return c;
}

// An axis of the committed rung and `paper`, whose report (rung `written_for`) holds `claims`.
claims::LadderAxis axis_with(const nlohmann::json& claims, const std::string& written_for = "paper") {
  const std::string file = cc::test::test_path("report.json");
  std::ofstream(file) << nlohmann::json{
      {"format", kReportFormat},
      {"rung", {{"name", written_for}}},
      {"claims", claims}}.dump();
  claims::LadderAxis axis{"length", "why", {}};
  axis.rungs.push_back({"length", "base", "20k", false, {}, "", "", ""});
  axis.rungs.push_back(
      {"length", "paper", "40k", true, {{"stated", "stated_40k"}}, file, "reports/paper/report.json", ""});
  return axis;
}

nlohmann::json one_claim(const nlohmann::json& own, const nlohmann::json& at_paper) {
  const auto section = ladder_section({axis_with(nlohmann::json::array({at_paper}))}, nlohmann::json::array({own}));
  return section.at(0).at("claims").at(0);
}

TEST(Ladder, WorstGapIsTheFailingSideOfTheWorstSeed) {
  EXPECT_NEAR(*worst_gap(claim("a", "FAIL", ">=", 0.95, {0.93, 0.97, 0.99})), 0.02, 1e-12);
  EXPECT_NEAR(*worst_gap(claim("a", "FAIL", "<=", 0.0055, {0.0209, 0.0074})), 0.0154, 1e-12);
  EXPECT_LT(*worst_gap(claim("a", "PASS", ">", 0.5, {0.9})), 0);  // every seed clear: negative
  EXPECT_FALSE(worst_gap({{"id", "a"}, {"verdict", "SKIPPED"}}).has_value());
}

TEST(Ladder, PassAtThePapersRungMeansTheFailDependsOnTheScale) {
  const auto c = one_claim(claim("N10", "FAIL", ">=", 0.95, {0.93}), claim("N10", "PASS", ">=", 0.95, {0.96}));
  EXPECT_TRUE(c["depends_on_scale"].get<bool>());
  EXPECT_NE(c["trend"].get<std::string>().find("not a finding against the paper"), std::string::npos) << c;
  EXPECT_TRUE(
      depends_on_scale(ladder_section({axis_with(nlohmann::json::array({claim("N10", "PASS", ">=", 0.95, {0.96})}))},
                                      nlohmann::json::array({claim("N10", "FAIL", ">=", 0.95, {0.93})})),
                       "N10"));
}

TEST(Ladder, FailAtBothSaysWhetherTheGapNarrows) {
  const auto narrows = one_claim(claim("N5b", "FAIL", ">=", 0.846, {0.688}), claim("N5b", "FAIL", ">=", 0.846, {0.8}));
  EXPECT_FALSE(narrows["depends_on_scale"].get<bool>());
  EXPECT_NE(narrows["trend"].get<std::string>().find("narrows from 0.158 to 0.046"), std::string::npos) << narrows;
  const auto persists = one_claim(claim("N5b", "FAIL", ">=", 0.846, {0.8}), claim("N5b", "FAIL", ">=", 0.846, {0.7}));
  EXPECT_NE(persists["trend"].get<std::string>().find("persists"), std::string::npos) << persists;
}

TEST(Ladder, AnUndecidedVerdictIsNoScaleEffect) {
  nlohmann::json few = claim("N3", "INCONCLUSIVE", "<", 0.5, {0.07});
  few["reason"] = "1 seed(s) measured, the rule needs 3";
  const auto c = one_claim(claim("N3", "PASS", "<", 0.5, {0.07}), few);
  EXPECT_FALSE(c["depends_on_scale"].get<bool>());
  EXPECT_NE(c["trend"].get<std::string>().find("the rule needs 3"), std::string::npos) << c;
}

TEST(Ladder, AClaimOnARunTheRungDoesNotMoveIsNotOnIt) {
  nlohmann::json other = claim("N3", "PASS", "<", 0.5, {0.07});
  other["subject"]["run"] = "no_weight_decay";
  const auto c = one_claim(other, claim("N3", "FAIL", "<", 0.5, {0.9}));
  EXPECT_FALSE(c["depends_on_scale"].get<bool>());
  EXPECT_NE(c["trend"].get<std::string>().find("run no_weight_decay is not varied on this rung"), std::string::npos)
      << c;
}

TEST(Ladder, AnotherRungsReportIsUnavailableNotRead) {
  const auto section =
      ladder_section({axis_with(nlohmann::json::array({claim("N1", "FAIL", ">", 0.99, {0.1})}), "other")},
                     nlohmann::json::array({claim("N1", "PASS", ">", 0.99, {1.0})}));
  const auto& c = section.at(0).at("claims").at(0);
  EXPECT_FALSE(c["depends_on_scale"].get<bool>());
  EXPECT_TRUE(c["rungs"][1].contains("unavailable")) << c;
  EXPECT_NE(section.at(0).at("rungs").at(1).value("unavailable", "").find("it is rung other's"), std::string::npos);
}

// The paper's rung not measured yet (no report): the sentence compares the committed rung with the
// furthest rung toward it that measured the claim, and says the paper's is still missing.
TEST(Ladder, WithoutThePapersRungTheFurthestMeasuredRungIsCompared) {
  claims::LadderAxis axis = axis_with(nlohmann::json::array({claim("B6b", "FAIL", ">=", 0.9, {0.70})}), "width");
  axis.rungs[1].name = "width";
  axis.rungs[1].label = "d 256";
  axis.rungs[1].paper = false;
  axis.rungs.push_back({"scale",
                        "paper",
                        "d 256, batch 512",
                        true,
                        {{"stated", "stated_paper"}},
                        cc::test::test_path("missing/report.json"),
                        "reports/paper/report.json",
                        ""});
  const auto section = ladder_section({axis}, nlohmann::json::array({claim("B6b", "FAIL", ">=", 0.9, {0.52})}));
  const std::string trend = section.at(0).at("claims").at(0).at("trend");
  EXPECT_NE(trend.find("narrows from 0.38 to 0.2"), std::string::npos) << trend;
  EXPECT_NE(trend.find("FAIL at both (20k and d 256; the paper's rung not measured yet)"), std::string::npos) << trend;
}

}  // namespace
}  // namespace cc::report
