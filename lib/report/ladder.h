#pragma once
// The report's scale ladder (claims/ladder.h): each claim's value and verdict at every rung of each
// axis paper.yaml declares, the committed rung from this report and the others from their committed
// reports (written by `verify --rung NAME`), and one sentence per claim comparing the committed rung
// with the paper's own. The rule of the sentence (docs/claim-files.md, "Scale ladder"):
//   - PASS at one, FAIL at the other: "depends on the scale" (a FAIL there is not a finding against
//     the paper);
//   - FAIL at both: the failing seeds' worst distance to the threshold at each, "narrows" when it is
//     smaller at the paper's rung, else "persists";
//   - otherwise the verdicts as they are (an undecided one with its reason: too few seeds, a control).
// A claim whose subject run the rung does not map is "not varied on this rung" there. A rung whose
// report is missing, unreadable or another rung's is said so per rung: the verdicts of
// this report do not depend on it.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "claims/ladder.h"
#include "report/figures.h"

namespace cc::report {

// [{axis, why, rungs: [{name, label, paper, committed, report?, unavailable?}],
//   claims: [{id, rungs: [{rung, verdict?, value?, ci_low?, ci_high?, interval?, gap?, seeds?} or
//   {rung, unavailable}], trend, depends_on_scale}]}]; `own_claims` are this report's claims as
// report.json holds them (claims::to_json). An empty array when paper.yaml declares no ladder.
nlohmann::json ladder_section(const std::vector<claims::LadderAxis>& ladder, const nlohmann::json& own_claims);

// The worst distance of a failing seed beyond the threshold, in the value's units (positive: how far
// the worst seed is on the failing side); none without seeds or a threshold with an order.
std::optional<double> worst_gap(const nlohmann::json& claim);

// The section's figures (drawn by write_reports, each set as its claim's "figure"): per axis, each
// claim measured at two rungs or more and failing at one, every seed's value against the rungs with
// the threshold marked, as "figures/ladder-AXIS-ID.png".
std::vector<FigureJob> ladder_figure_jobs(const nlohmann::json& section);

// Whether the section says this claim's verdict depends on the scale on some axis.
bool depends_on_scale(const nlohmann::json& section, const std::string& id);

// REPORT.md's section ("" when there is no ladder).
std::string ladder_markdown(const nlohmann::json& section);

}  // namespace cc::report
