#pragma once
// Cross-checks between papers: a claim's value as another paper's committed report measured it, read
// from data (the `cross_checks:` list of the paper.yaml beside the runs file), never from C++:
//   cross_checks:
//     - claim: M8b                 # this paper's claim the entry speaks to
//       relation: "positive control: M8b's measurement, unchanged, on models known to use the form"
//       report: ../papers/nanda_grokking/reports/fixtures/report.json   # relative to paper.yaml
//       other_claim: N6
// The report prints each beside its claim: the other paper, its claim's value, interval and verdict,
// and the file read. A report that is missing or lacks the claim is said so, not an error: the
// verdicts of this paper do not depend on it. A malformed entry is an error naming FILE:LINE:COL.
#include <nlohmann/json.hpp>

#include <string>

namespace cc::report {

// [{claim, relation, report, other_claim, paper (title), value, ci_low, ci_high, interval, verdict}
//  or {..., unavailable: why}]; an empty array when paper.yaml has no cross_checks or is absent.
nlohmann::json read_cross_checks(const std::string& paper_yaml);

// The report's section for them ("" when there are none).
std::string cross_checks_markdown(const nlohmann::json& checks);

}  // namespace cc::report
