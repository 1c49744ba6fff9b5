#pragma once
// A verification run's report in three forms: REPORT.md (fits a GitHub step summary),
// report.json (the same content) and JUnit XML (measured values as properties).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "claims/verifier.h"

namespace cc::report {

struct ReportContext {
  std::string title = "claimcheck reproducibility report";
  nlohmann::json paper;  // {title, authors, arxiv} from paper.yaml beside runs.yaml; null: not given
  std::string command;
  std::string budget;
  double wall_s = 0;
  nlohmann::json runtime;                      // train::runtime_info()
  const catalogue::Runs* runs = nullptr;       // for the unstated-choices table
  const catalogue::RunStore* store = nullptr;  // for per-run provenance
  nlohmann::json robustness;                   // claims::robustness_json(), or null
  nlohmann::json attribution;                  // claims::attribution_json(), or null
  nlohmann::json cross_checks;                 // report::read_cross_checks(), or null
};

nlohmann::json report_json(const std::vector<claims::ClaimResult>& results, const ReportContext& ctx);
std::string report_markdown(const nlohmann::json& report);
std::string report_junit(const nlohmann::json& report);

// Writes DIR/REPORT.md, DIR/report.json, DIR/junit.xml (atomically, each) from one report_json().
// Renders the figures first (report/figures.h) and records them in the three files.
void write_reports(const std::string& dir, nlohmann::json report);
// Creates DIR and checks a file can be written there; throws cc::Error naming --report DIR and the
// reason. verify calls it before measuring, so a bad path costs nothing.
void check_report_dir(const std::string& dir);

// A measured value with its interval, as the report and the terminal print it: proportions as
// percentages, the interval tagged with its method where it is not a 95 % one ("[range 97.69, 99.00]").
// `measured`: {value, ci_low, ci_high, interval}, as report.json holds it.
std::string fmt_value(const nlohmann::json& measured, bool proportion);

// One line per claim for the terminal: "PASS  G1  99.62% [99.50, 99.71]  (> 0.98)", then the counts
// ("28 PASS, 12 FAIL, ...") and, with a baseline, whether anything changed from it.
std::string summary_lines(const nlohmann::json& report);

}  // namespace cc::report
