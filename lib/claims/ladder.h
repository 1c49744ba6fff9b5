#pragma once
// The scale ladder: a paper's declared axes of runs that differ from the committed ones in one reduced
// or unstated choice (the training length, the model's width, the batch), each a list of rungs toward
// the paper's own value. Read from the `ladder:` of paper.yaml:
//   ladder:
//     length:                                  # the axis
//       why: "the paper trains 40k epochs; the committed runs stop at 20k (CPU cost)"
//       rungs:
//         - {name: steps20k, label: "20 000 steps"}          # no `runs:`: the committed runs themselves
//         - name: steps40k
//           label: "40 000 steps"
//           paper: true                        # the paper's own scale (at most one rung per axis)
//           runs: {stated: stated_40k, no_weight_decay: no_weight_decay_40k}
//           report: reports/steps40k/report.json   # its committed report, relative to paper.yaml
//           baseline: expected-steps40k.json       # optional: ctest's rung.PAPER.steps40k compares with it
// `verify --rung steps40k` measures every claim file as written with each run of `runs:` read as the
// run it maps to (subject and trained controls); its report, committed, is what the paper's main report
// shows beside each claim (report/ladder.h), so the ladder costs a verify nothing but reading files.
#include <map>
#include <string>
#include <vector>

#include "catalogue/runs.h"

namespace cc::claims {

struct Rung {
  std::string axis, name, label;
  bool paper = false;                       // the scale the paper used
  std::map<std::string, std::string> runs;  // committed run -> this rung's run; empty: the committed runs
  std::string report;                       // its committed report.json, absolute; "" for the committed rung
  std::string report_as_written;            // the same, as paper.yaml names it (relative: what reports quote)
  std::string baseline;                     // its baseline (verify --rung NAME --baseline), absolute; "" if none
  bool committed() const { return runs.empty(); }
};

struct LadderAxis {
  std::string name, why;
  std::vector<Rung> rungs;  // from the committed (reduced) rung toward the paper's, as declared
};

// paper.yaml's `ladder:` (none when the file or the key is absent). Each axis has exactly one
// committed rung, at most one paper rung, rung names unique in the file; every run named must be a
// run of `runs`; a rung's report (a report.json) and baseline (a .json) must lie inside the paper's
// folder. Errors name
// FILE:LINE:COL.
std::vector<LadderAxis> load_ladder(const std::string& paper_yaml, const catalogue::Runs& runs);

// The rung named `name` in any axis, or an Error listing the rungs there are.
const Rung& find_rung(const std::vector<LadderAxis>& ladder, const std::string& name, const std::string& paper_yaml);

}  // namespace cc::claims
