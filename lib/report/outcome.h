#pragma once
// What a pipeline reads of a verification: its exit status and, per claim, a JUnit test case's outcome.
// Both come from one rule (claim_outcomes), so junit.xml and the exit code agree on every claim:
//   with a baseline   a claim whose outcome moved from the baseline fails (the change is the message);
//                     one that did not passes, a FAIL, INCONCLUSIVE, INVALID or ERROR the baseline records
//                     kept as its finding; a claim the baseline has and this run lost is a failing case
//                     of its own. Exit 3 when any case fails.
//   without one       ERROR and INVALID are errors; FAIL and INCONCLUSIVE fail (under --fail-on error
//                     they pass, the finding kept). Exit 1 when any case fails or errs.
// SKIPPED is skipped; every case skipped is exit 77 (ctest's SKIP_RETURN_CODE).
#include <string>
#include <vector>

#include "report/report.h"

namespace cc::report {

enum class TestOutcome { Pass, Failure, Error, Skipped };

struct ClaimOutcome {
  std::string id;
  const claims::ClaimResult* result = nullptr;  // null: a claim of the baseline this run did not measure
  TestOutcome outcome = TestOutcome::Pass;
  std::string message;  // why it failed, erred or was skipped
  std::string finding;  // a passing case's recorded finding ("expected FAIL (in the baseline): ...")
};

// One per claim of the report, in its order, then the baseline's lost claims.
std::vector<ClaimOutcome> claim_outcomes(const Report& report);

// 0, 1 (a claim failed or erred), 3 (kExitBaselineChanged: an outcome moved) or 77 (all skipped).
int exit_status(const Report& report);

// A junit.xml for a run that ended before any claim was judged (a usage error, a missing input, an
// output it could not write): one <testcase> named COMMAND with an <error> giving the message and the
// exit status, so that a pipeline reading junit.xml sees the failure the exit status says.
std::string junit_for_error(const std::string& command, const std::string& message, int exit_status);

// The ctest name of a claim of the report's paper, claim.PAPER.ID (ReportContext::paper_name).
std::string test_name(const Report& report, const std::string& id);

}  // namespace cc::report
