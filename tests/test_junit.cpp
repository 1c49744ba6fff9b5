// junit.xml and the exit status agree on every outcome (report/outcome.h): a pipeline that reads one
// and a pipeline that reads the other go red together. Each case builds a report with one claim of each
// kind, renders junit.xml, and counts its elements.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "claims/verifier.h"
#include "report/baseline.h"
#include "report/outcome.h"
#include "report/report.h"

using namespace cc;
using claims::Verdict;

namespace {

claims::ClaimResult result(const std::string& id, Verdict v, const std::string& reason = "") {
  claims::ClaimResult r;
  r.id = id;
  r.file = "claims/" + id + ".yaml";
  r.verdict = v;
  r.reason = reason;
  return r;
}

report::Report make(std::vector<claims::ClaimResult> results, const std::string& fail_on = "any") {
  report::ReportContext ctx;
  ctx.paper_name = "scratch";
  ctx.fail_on = fail_on;
  return report::make_report(std::move(results), ctx);
}

// The report compared with a baseline made from `recorded` (as --write-baseline makes it).
report::Report against(report::Report now, const report::Report& recorded) {
  const auto baseline = report::baseline_from_report(report::to_json(recorded), report::default_tolerance(), "test");
  now.baseline = report::compare_with_baseline(now, baseline, "expected.json", "cpu");
  return now;
}

int count(const std::string& xml, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<int>(std::distance(std::sregex_iterator(xml.begin(), xml.end(), re), std::sregex_iterator()));
}

int attribute(const std::string& xml, const std::string& element, const std::string& name) {
  std::smatch m;
  const std::regex re("<" + element + " name=\"[^\"]*\" tests=\"(\\d+)\" failures=\"(\\d+)\" errors=\"(\\d+)\" " +
                      "skipped=\"(\\d+)\"");
  EXPECT_TRUE(std::regex_search(xml, m, re)) << xml;
  const int i = name == "tests" ? 1 : name == "failures" ? 2 : name == "errors" ? 3 : 4;
  return std::stoi(m[i]);
}

// A pipeline reading junit.xml is red when some case failed or erred; one reading the exit code, when
// it is neither 0 nor 77. The counts in both headers equal the elements.
void expect_agreement(const report::Report& rep, int expected_status) {
  const std::string xml = report::to_junit(rep);
  const int status = report::exit_status(rep);
  EXPECT_EQ(status, expected_status) << xml;
  const int failures = count(xml, "<failure "), errors = count(xml, "<error "), skipped = count(xml, "<skipped ");
  EXPECT_EQ(failures + errors > 0, status != 0 && status != claims::kExitSkipped) << xml;
  for (const char* element : {"testsuites", "testsuite"}) {
    EXPECT_EQ(attribute(xml, element, "tests"), count(xml, "<testcase ")) << element;
    EXPECT_EQ(attribute(xml, element, "failures"), failures) << element;
    EXPECT_EQ(attribute(xml, element, "errors"), errors) << element;
    EXPECT_EQ(attribute(xml, element, "skipped"), skipped) << element;
  }
}

}  // namespace

TEST(JUnit, NamesAreCtestsAndOneSuiteIsThePaper) {
  const auto rep = make({result("G1", Verdict::Pass)});
  const std::string xml = report::to_junit(rep);
  EXPECT_NE(xml.find("<testsuite name=\"scratch\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase name=\"claim.scratch.G1\" classname=\"claim.scratch.G1\""), std::string::npos) << xml;
  expect_agreement(rep, 0);
}

TEST(JUnit, WithoutABaselineFailAndInconclusiveFailInvalidAndErrorErr) {
  const auto rep = make({result("P", Verdict::Pass), result("F", Verdict::Fail, "seed 0 fails"),
                         result("I", Verdict::Invalid, "the control passed"),
                         result("E", Verdict::Error, "no such file"), result("S", Verdict::Skipped, "tier cpu")});
  expect_agreement(rep, 1);
  const std::string xml = report::to_junit(rep);
  EXPECT_EQ(count(xml, "<failure "), 1);
  EXPECT_EQ(count(xml, "<error "), 2);
  EXPECT_NE(xml.find("<failure message=\"FAIL: seed 0 fails\""), std::string::npos) << xml;
  // --fail-on error: a FAIL is a finding, not a failure; INVALID and ERROR still count.
  const auto findings = make({result("P", Verdict::Pass), result("F", Verdict::Fail, "seed 0 fails")}, "error");
  expect_agreement(findings, 0);
  EXPECT_NE(report::to_junit(findings).find("<system-out>FAIL: seed 0 fails (not counted"), std::string::npos);
  expect_agreement(make({result("F", Verdict::Fail), result("E", Verdict::Error)}, "error"), 1);
  expect_agreement(make({result("S", Verdict::Skipped)}), claims::kExitSkipped);
}

TEST(JUnit, AgainstABaselineOnlyAChangeFails) {
  const auto recorded = make({result("P", Verdict::Pass), result("F", Verdict::Fail, "seed 0 fails"),
                              result("I", Verdict::Invalid, "the control passed"), result("E", Verdict::Error, "x"),
                              result("U", Verdict::Fail, "seed 1 fails"), result("R", Verdict::Pass)});
  // Expected findings (the recorded FAIL, INVALID and ERROR) pass, each with its finding.
  const auto same = against(make(recorded.claims), recorded);
  expect_agreement(same, 0);
  const std::string xml = report::to_junit(same);
  EXPECT_NE(xml.find("<system-out>expected FAIL (in the baseline): seed 0 fails</system-out>"), std::string::npos);
  EXPECT_NE(xml.find("<system-out>expected INVALID (in the baseline)"), std::string::npos);
  EXPECT_EQ(count(xml, "<failure "), 0);
  // A regression (PASS -> FAIL) and an unexpected pass (FAIL -> PASS) fail, naming old -> new.
  auto moved = recorded.claims;
  moved[0].verdict = Verdict::Fail;
  moved[4].verdict = Verdict::Pass;
  const auto changed = against(make(moved), recorded);
  expect_agreement(changed, report::kExitBaselineChanged);
  const std::string cx = report::to_junit(changed);
  EXPECT_EQ(count(cx, "<failure "), 2) << cx;
  EXPECT_NE(cx.find("changed from the baseline: regression PASS"), std::string::npos) << cx;
  EXPECT_NE(cx.find("changed from the baseline: unexpected pass FAIL"), std::string::npos) << cx;
  // An ERROR the baseline did not record is a change too.
  auto broken = recorded.claims;
  broken[5].verdict = Verdict::Error;
  expect_agreement(against(make(broken), recorded), report::kExitBaselineChanged);
}

TEST(JUnit, AClaimTheBaselineHasAndTheRunLostIsAFailingCase) {
  const auto recorded = make({result("A", Verdict::Pass), result("B", Verdict::Pass)});
  auto rep = make({result("A", Verdict::Pass)});
  // As a full run sees it: B's file is gone (claims/B.yaml does not exist here).
  const auto baseline = report::baseline_from_report(report::to_json(recorded), report::default_tolerance(), "test");
  rep.baseline = report::BaselineComparison{
      "expected.json",
      "cpu",
      report::compare_outcomes(baseline, report::to_json(rep), report::tolerance_for(baseline, "cpu")),
      {}};
  ASSERT_EQ(rep.baseline->changes.size(), 1u);
  expect_agreement(rep, report::kExitBaselineChanged);
  EXPECT_NE(report::to_junit(rep).find("<testcase name=\"claim.scratch.B\""), std::string::npos);
}

TEST(JUnit, TextIsEscapedAndValidUtf8) {
  const auto rep = make({result("X", Verdict::Fail, "a <b> & \"c\" \x01 \xff")});
  const std::string xml = report::to_junit(rep);
  EXPECT_NE(xml.find("a &lt;b&gt; &amp; &quot;c&quot;"), std::string::npos) << xml;
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_EQ(xml.find("\xff"), std::string::npos);
}
