// claimcheck diff BEFORE AFTER [--platform P]
//   the claims whose verdict or measured value changed between two report.json files (or a
//   baseline and a report), as a markdown table for a pull-request comment or $GITHUB_STEP_SUMMARY.
//   Exit 0 when nothing changed, 3 when something did (report/baseline.h).
#include <iostream>
#include <set>

#include "cli.h"
#include "report/baseline.h"

namespace cc::app {

int cmd_diff(const std::vector<std::string>& args) {
  po::options_description desc("diff options");
  std::string before, after, platform = "cpu";
  // One option a line, as boost::program_options reads best; clang-format 14 would join them.
  // clang-format off
  desc.add_options()
      ("before", po::value(&before)->required(), "report.json or baseline (e.g. papers/NAME/expected.json)")
      ("after", po::value(&after)->required(), "report.json or baseline")
      ("platform", po::value(&platform),
       "whose tolerance for non-proportion values: cpu (exact), cpu-unpinned, cuda (default cpu); from the "
       "baseline's \"tolerance\" table when either side is a baseline");
  // clang-format on
  po::positional_options_description pos;
  pos.add("before", 1).add("after", 1);
  po::variables_map vm;
  if (!parse("diff", "BEFORE AFTER [--platform cpu|cpu-unpinned|cuda]", desc, pos, args, vm)) return kExitOk;
  const nlohmann::json a = report::read_outcomes(before), b = report::read_outcomes(after);
  const nlohmann::json& table = a.contains("tolerance") ? a : b.contains("tolerance") ? b : nlohmann::json();
  const report::Tolerance tol = report::tolerance_for(
      table.is_null() ? nlohmann::json{{"tolerance", report::default_tolerance()}} : table, platform);
  // Only the claims AFTER has are compared (it may be a partial run); one of BEFORE's it lacks is
  // "removed" only when its file is gone.
  std::set<std::string> ids;
  for (const auto& c : b.at("claims")) ids.insert(c["id"].get<std::string>());
  const auto changes = report::compare_outcomes(a, b, tol, ids);
  int not_run = 0;
  for (const auto& c : a.at("claims")) not_run += ids.count(c["id"].get<std::string>()) == 0;
  std::cout << "### Changes from `" << before << "` to `" << after << "`\n\n" << report::changes_markdown(changes);
  if (not_run > 0)
    std::cout << "\n"
              << not_run << " claim(s) of " << before << " are not in " << after
              << " and were not compared (a claim whose file is gone is listed as removed).\n";
  return changes.empty() ? kExitOk : report::kExitBaselineChanged;
}

}  // namespace cc::app
