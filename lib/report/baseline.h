#pragma once
// Known outcomes: a committed baseline of each claim's verdict and measured values, and the
// comparison that makes CI go red when either moves (LLVM lit's XFAIL/XPASS, for verdicts with
// intervals). Both sides are report.json-shaped, so `claimcheck diff` compares two reports, a
// report with a baseline, or two baselines alike.
//
// What counts as a change of a claim measured on both sides:
//   - its verdict: PASS -> FAIL/INCONCLUSIVE is a regression, FAIL/INCONCLUSIVE -> PASS an unexpected
//     pass (it fails until the baseline is updated), any other move a verdict change;
//   - its measured value or any seed's: proportions (accuracies counted on the same sequences) must
//     be equal exactly, in value and n; other values within the baseline's stated tolerance for the
//     device (`tolerance` in the file: see tolerance_for);
//   - a claim in one and not the other (added, removed);
//   - its meaning, whatever the verdict: the rule, the subject (run or sweep, checkpoint, seeds), the
//     measurement and its parameters, the declared negative controls and the tier, each a change of
//     its own ("rule changed: each seed > 0.98 (>= 3 seeds) -> each seed > 0.5 (>= 3 seeds)"). A
//     baseline row keeps them as "meaning" (and their sha256 as "meaning_sha256"); a title, quote or
//     note is wording and not part of it.
// A claim SKIPPED here is not compared (not measured here: a budget, a foreign kernel), except a claim
// of tier `fixture`, which every machine can measure: its skip is a change. A claim SKIPPED in the
// baseline and measured here (a `cpu`-tier repro claim, which ctest runs at the cpu budget) has no
// recorded outcome to agree with: it is judged on its own, and any verdict but PASS is a change
// ("not in the baseline").
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace cc::report {

// Exit status of `verify --baseline` and `diff` when an outcome differs.
constexpr int kExitBaselineChanged = 3;

struct Tolerance {
  double scalar_rel = 0;  // |new - old| <= scalar_abs + scalar_rel * |old|
  double scalar_abs = 0;
};

struct Change {
  std::string id;
  std::string kind;  // "regression", "unexpected pass", "verdict", "value", "added", "removed", "no longer measured",
                     // "not in the baseline", "rule changed" (and subject, measure, controls, tier, role)
  std::string before, after;  // "PASS 99.51%" / "FAIL 97.02%", or the value that moved
  std::string detail;         // which seed, by how much
};

// The comparable part of a report: per claim its id, file, tier, verdict, measured value and
// interval, whether it is a proportion, and each seed's value, n, interval and verdict. With
// `tolerance` (per device) and `command` (how it was made), as committed in papers/NAME/expected.json.
nlohmann::json baseline_from_report(const nlohmann::json& report, const nlohmann::json& tolerance,
                                    const std::string& command);

// `fresh`'s rows, plus those rows of `old` whose claim `fresh` lacks and whose file still exists (a
// partial run updates its own rows); "command" lists every command that made a row.
nlohmann::json merge_baseline(const nlohmann::json& old, const nlohmann::json& fresh);

// The tolerance for scalar values on `device` ("cpu", "cuda", ...): the baseline's "tolerance"
// {"cpu": {...}, "cuda": {...}}; a device it does not name gets its "default" entry, else exact.
Tolerance tolerance_for(const nlohmann::json& baseline, const std::string& device);

// Changes from `before` to `after`. `compared_ids`: when non-empty, only these claims of `after`
// count and a claim of `before` outside them is not looked at unless `before_files_gone` says its
// file no longer exists (removed). Changed rows first in plan order: regressions, unexpected passes,
// verdicts, values, added, removed.
std::vector<Change> compare_outcomes(const nlohmann::json& before, const nlohmann::json& after, const Tolerance& tol,
                                     const std::set<std::string>& compared_ids = {});

// A markdown table of the changes ("none" when empty), for REPORT.md, PR comments and
// $GITHUB_STEP_SUMMARY; and one line per change for the terminal.
std::string changes_markdown(const std::vector<Change>& changes);
std::string changes_lines(const std::vector<Change>& changes);
nlohmann::json changes_json(const std::vector<Change>& changes);

// The tolerances a new baseline states (see baseline.cpp for why each).
nlohmann::json default_tolerance();

// Reads a report.json or baseline file; throws cc::Error naming the file.
// Checks what a baseline is read for: a known "format" if any, unique ids, known verdicts, and each
// tolerance a number in [0, kMaxTolerance*]. Throws cc::Error naming the file and the entry.
// A baseline's relative claim files are resolved against its own folder (with_files_relative_to), so
// the comparison does not depend on the working directory; a report's are left as written.
nlohmann::json read_outcomes(const std::string& path);
// `baseline` with each claim's file relative to the folder of `baseline_path`, where it will be
// written (paths relative to the working directory now, as the verification was given them).
nlohmann::json with_files_relative_to(nlohmann::json baseline, const std::string& baseline_path);

constexpr const char* kBaselineFormat = "claimcheck-baseline/1";
constexpr const char* kReportFormat = "claimcheck-report/1";
// details.json beside report.json: {format, report, details: {JSON pointer into report.json: value}},
// the bulky figure series moved out of the seeds' and controls' `details`.
constexpr const char* kReportDetailsFormat = "claimcheck-report-details/1";
// The largest tolerance a baseline may set: 1 % relative and 1e-3 absolute, ten times past the
// loosest default (cuda, 1e-4 relative); beyond it a moved measurement would no longer show.
constexpr double kMaxToleranceRel = 1e-2;
constexpr double kMaxToleranceAbs = 1e-3;

}  // namespace cc::report
