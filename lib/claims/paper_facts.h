#pragma once
// A paper's paper.yaml: facts from the paper that rules and reports read, rather than C++ constants: the
// phases of training and the paper's windows for some of them (the robustness sweep's default rule and
// the attribution score both measure a run's distance to them), and the attribution search's
// pre-registered score and rules.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/phases.h"

namespace cc::claims {

// paper.yaml: the paper's phases, their windows and the attribution rules.
struct PaperFacts {
  struct Window {
    int64_t low = 0, high = 0;
  };
  // The steps the paper gives for one phase (a `window:` in paper.yaml's `phases:`).
  struct PhaseWindow {
    std::string phase;
    Window steps;
  };
  analysis::PhaseDefs phases;
  std::vector<PhaseWindow> windows;  // in paper.yaml's order: the score adds their terms in it
  struct ScoreTerm {
    std::string claim;             // a per-seed accuracy claim (value in [0, 1])
    bool below_threshold = false;  // true: max(0, threshold - acc); false: |acc - reported|
  };
  std::vector<ScoreTerm> accuracy_terms;          // in percentage points, weight 1 each
  double steps_per_point = 1000;                  // a phase's distance to its window, in steps, per score point
  int confirm_top = 4;                            // screening rows that go on to confirmation
  int holds_min_seeds = 5;                        // "holds under X" needs at least this many seeds, all passing
  double alpha = 0.05;                            // the default rule's one-sided Mann-Whitney test
  std::string default_run;                        // the run whose unsupported claims the search explains
  std::string screen, confirm;                    // the sweeps of stages 1 and 2
  std::map<std::string, std::string> thresholds;  // stage 3: each §4 sweep -> its grid under the best row

  static PaperFacts load(const std::string& path);  // errors name FILE:LINE:COL
  // Only the phases and their windows (none when the file has no `phases:`), for a report's figures.
  static PaperFacts load_phases(const std::string& path);
  // That paper.yaml has no key but those its readers know (a misspelt one is an error naming its
  // line, never a section silently missing).
  static void check_keys(const std::string& path);
};

// "5300-5400"
std::string window_text(const PaperFacts::Window& w);

}  // namespace cc::claims
