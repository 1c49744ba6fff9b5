#pragma once
// Figures: measurement kinds describe them as data in their details ("figures": [spec, ...]);
// the report renders them with gnuplot (pngcairo) into <report dir>/figures/ and REPORT.md embeds
// them under their claim, captioned with the paper's figure. No figure code in claim logic.
//
// A spec: {"id", "paper_figure" ("Figure 6"; else the claim's), "title", "xlabel", "ylabel", "type", ...}
//   heatmap:   "matrix" [[row...]...], optional "xtics"/"ytics" (labels), "cblabel"
//   lines:     "series" [{"name", "x": [...], "y": [...]}], optional "vlines"/"hlines"
//              [{"at", "label"}], "yrange" [lo, hi], "xrange" [lo, hi], "xtics" [labels at x = 0, 1, ...],
//              "logx"
//   histogram: "series" [{"name", "values": [...]}], "bins", optional "range" [lo, hi]
//   bars:      "labels" [...], "values" [...]
//   "merge_seeds": true draws every seed's series in one figure ("seed k: name"); otherwise the
//   first measured seed's figure is drawn.
//   "value_axis": "x" | "y" names the axis in the claim's measured value's units: the report marks the
//   rule's threshold and each negative control's value on it.
// The same data gives the same bytes (fixed size, font, formatting): committed reports do not churn.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cc::report {

// The gnuplot script for one spec (its data inline), writing to `png_path`.
std::string gnuplot_script(const nlohmann::json& spec, const std::string& png_path);

// Renders one spec into DIR/REL: {"file": REL, "caption", "paper_figure"}, or {"error", "caption"}.
// Data no plot could show (no finite value; every point at one x) is not drawn: {"text", "caption"},
// the reason and, for points at one x, the points themselves, which the report prints instead.
nlohmann::json render_figure(const std::string& dir, const std::string& rel, const nlohmann::json& spec);

// One figure to draw: its path relative to the report directory, and its spec.
struct FigureJob {
  std::string rel;
  nlohmann::json spec;
};

// Renders every job as render_figure would, each entry in the jobs' order, with one gnuplot process
// for them all (a report has dozens of figures, and gnuplot's start-up costs more than a figure).
std::vector<nlohmann::json> render_figures(const std::string& dir, const std::vector<FigureJob>& jobs);

// One claim's figures as jobs (DIR-relative "figures/<claim id>-<figure id>.png"), as claim_figures
// below draws them.
std::vector<FigureJob> claim_figure_jobs(const nlohmann::json& claim,
                                         const nlohmann::json& phase_marks = nlohmann::json::array());

// Renders one claim's figures (`claim`: as report.json holds it, claims::to_json) into DIR/figures/
// and returns them: [{"file" (relative to DIR), "caption", "paper_figure"}], or {"error", "caption"}
// for one that could not be drawn (gnuplot missing or failing): the report says so, the verdicts do
// not change. An empty array when its kind declared none.
// A figure is captioned with the paper's figure its kind names, else the claim's own (`paper.figure`);
// one whose kind asks for them ("mark_phase_windows": true) gets `phase_marks` ([{at, label}]) as
// vertical lines: the paper's phase windows, which a kind papers share cannot know.
nlohmann::json claim_figures(const std::string& dir, const nlohmann::json& claim,
                             const nlohmann::json& phase_marks = nlohmann::json::array());

}  // namespace cc::report
