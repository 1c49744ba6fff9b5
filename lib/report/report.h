#pragma once
// A verification run's report: one typed value (Report), built before anything is written, and its
// three renderings: report.json (format kReportFormat, schemas/report.schema.json), REPORT.md (fits a
// GitHub step summary) and JUnit XML (measured values as properties). The terminal's lines and a new
// baseline (report/baseline.h) are rendered from the same value; nothing edits a rendering after it
// is made.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "claims/attribution.h"
#include "claims/paper_facts.h"
#include "claims/robustness.h"
#include "claims/verifier.h"
#include "report/baseline.h"

namespace cc::report {

// What the report says about how it was made, and what it reads besides the claims' results.
struct ReportContext {
  std::string title = "claimcheck reproducibility report";
  nlohmann::json paper;  // {title, authors, arxiv} from paper.yaml beside runs.yaml; null: not given
  std::string command;
  std::string budget;
  // The paper's folder name (the runs file's folder: papers/NAME): the JUnit suite, and the PAPER of the
  // ctest names claim.PAPER.ID the test cases carry. Empty: "claimcheck".
  std::string paper_name;
  // verify's --fail-on: "any" (a FAIL or INCONCLUSIVE fails the run) or "error" (only ERROR, INVALID).
  std::string fail_on = "any";
  double wall_s = 0;
  nlohmann::json runtime;                      // train::runtime_info()
  const catalogue::Runs* runs = nullptr;       // for the unstated-choices table
  const catalogue::RunStore* store = nullptr;  // for per-run provenance
  nlohmann::json cross_checks;                 // report::read_cross_checks(), or null
  // The paper's phase windows as marks on figures along training steps ([{at, label}], phase_window_marks).
  nlohmann::json phase_marks = nlohmann::json::array();
  // verify --rung: the rung measured ({axis, name, label, paper, runs: {committed: read as}}); null otherwise.
  nlohmann::json rung;
  // The scale ladder beside the claims (report/ladder.h: ladder_section); null or [] when none.
  nlohmann::json ladder;
};

// The outcome of comparing the claims with a committed baseline (report/baseline.h).
struct BaselineComparison {
  std::string file;      // as given to --baseline
  std::string platform;  // whose tolerance was applied ("cpu", "cpu-unpinned", "cuda")
  std::vector<Change> changes;
  std::set<std::string> expected;  // claims whose FAIL/INCONCLUSIVE the baseline records: expected failures
  int not_run = 0;                 // claims of the baseline this (partial) run did not measure: not compared
};

struct Report {
  ReportContext context;
  std::string generated;  // UTC, ISO 8601
  std::vector<claims::ClaimResult> claims;
  std::optional<claims::RobustnessSection> robustness;
  std::optional<claims::AttributionSection> attribution;
  std::optional<BaselineComparison> baseline;
  // Figures as drawn by write_reports (report/figures.h): per claim, in the order of `claims`, [{file |
  // text | error, caption, paper_figure}]; and the attribution's ({name: entry}). Empty until drawn.
  std::vector<nlohmann::json> figures;
  nlohmann::json attribution_figures;
};

// "paper: binding 5300": the first step of each window of paper.yaml's phases, for the figures whose kind
// asks for them ("mark_phase_windows").
nlohmann::json phase_window_marks(const claims::PaperFacts& facts);

// A report of `results`, stamped now.
Report make_report(std::vector<claims::ClaimResult> results, ReportContext context);

// Compares the report's claims with `baseline` (read_outcomes) under `platform`'s tolerance, as
// report.json holds them; only the claims measured here count (compare_outcomes' compared_ids).
BaselineComparison compare_with_baseline(const Report& report, const nlohmann::json& baseline, const std::string& file,
                                         const std::string& platform);

// `s` with U+FFFD in place of each byte sequence that is not valid UTF-8: every rendering's text.
std::string valid_utf8(const std::string& s);

nlohmann::json to_json(const Report& report);   // report.json
std::string to_markdown(const Report& report);  // REPORT.md
std::string to_junit(const Report& report);     // junit.xml

// Draws the figures into DIR/figures/ (a folder used before keeps no figure of an earlier run) and
// writes DIR/REPORT.md, DIR/report.json and DIR/junit.xml: all made in a staging folder inside DIR,
// then installed together (report/report_folder.h), never writing through a link.
void write_reports(const std::string& dir, Report& report);
// How long each claim took when DIR/report.json was written, by claim file (lexically normal): the
// order in which the next verification into DIR starts its claims (claims::VerifyOptions). Empty when
// there is no such report or it cannot be read: it is a hint, never an input that changes a value.
std::map<std::string, double> claim_seconds(const std::string& dir);
// Creates DIR and checks a file can be written there; throws cc::Error naming --report DIR and the
// reason. verify calls it before measuring, so a bad path costs nothing.
void check_report_dir(const std::string& dir);

// A measured value with its interval, as the report and the terminal print it: proportions as
// percentages, the interval tagged with its method where it is not a 95 % one ("[range 97.69, 99.00]").
// `measured`: {value, ci_low, ci_high, interval}, as report.json holds it.
std::string fmt_value(const nlohmann::json& measured, bool proportion);
std::string fmt_value(const claims::ClaimResult& r);  // the claim's measured value (with seeds only)

// Text from claim files and paper.yaml as a markdown table cell shows it: on one line, '|' and
// markup-opening '<' escaped.
std::string md_escape(const std::string& s);

// One line per claim for the terminal: "PASS  G1  99.62% [99.50, 99.71]  (> 0.98)", then the counts
// ("28 PASS, 12 FAIL, ...") and, with a baseline, whether anything changed from it.
std::string summary_lines(const Report& report);

}  // namespace cc::report
