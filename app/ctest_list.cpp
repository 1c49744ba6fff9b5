// `claimcheck list --ctest`: the claim tests of every paper, as ctest gets them (cmake/ClaimTests.cmake
// asks this binary when ctest runs, as gtest_discover_tests asks a test binary). One discovery for
// `verify` and ctest: the files find_claim_files finds are the tests, so a claim verify reads always has
// a test and a file it refuses has none.
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>

#include "analysis/registry.h"
#include "catalogue/paper_layout.h"
#include "catalogue/runs.h"
#include "claims/claim.h"
#include "claims/ladder.h"
#include "cli.h"
#include "util/error.h"

namespace cc::app {
namespace fs = std::filesystem;
namespace {

// The budget a claim's test runs under: the one configured, except that a claim whose tier is `cpu`
// (one that trains by design, e.g. a retraining check of about a minute) gets `cpu` under `fixture`.
// A `gpu` claim keeps the configured budget: without a GPU it is SKIPPED, never trained on a CPU.
std::string test_budget(const std::string& configured, catalogue::Tier tier) {
  return configured == "fixture" && tier == catalogue::Tier::Cpu ? "cpu" : configured;
}

struct ClaimTest {
  std::string id, tier = "fixture", budget;
};

// The claim's id and tier; a file that does not load is still a test (named by its file, tier
// fixture), which then fails with the loader's error: discovery never hides a broken claim.
ClaimTest read_test(const std::string& file, const catalogue::Runs* runs, const std::string& budget) {
  ClaimTest t{fs::path(file).stem().string(), "fixture", budget};
  if (!runs) return t;
  try {
    const claims::Claim c = claims::load_claim(file, analysis::builtin_registry(), *runs);
    t.id = c.id;
    t.tier = catalogue::tier_name(c.tier);
    t.budget = test_budget(budget, c.tier);
  } catch (const Error&) {
  }
  return t;
}

// One line per rung of paper.yaml's ladder that has a baseline: rung.PAPER.NAME verifies the whole paper
// at that rung (the sixth field: verify's extra arguments, ','-separated). A ladder that does not load
// lists none: the paper's claim tests then fail with its error.
void list_rung_tests(const fs::path& paper, const catalogue::Runs& runs, const std::string& budget) {
  std::vector<claims::LadderAxis> ladder;
  try {
    ladder = claims::load_ladder((paper / "paper.yaml").string(), runs);
  } catch (const Error&) {
    return;
  }
  const std::string name = paper.filename().string();
  for (const auto& axis : ladder)
    for (const auto& rung : axis.rungs)
      if (!rung.baseline.empty())
        std::cout << "rung." << name << "." << rung.name << '\t' << fs::absolute(paper).string() << '\t' << budget
                  << '\t' << rung.baseline << '\t' << "rung,fixture,paper:" << name << '\t' << "--rung," << rung.name
                  << '\n';
}

}  // namespace

// One line per claim test, fields separated by tabs:
//   NAME  CLAIM-FILE  BUDGET  BASELINE  LABELS  [EXTRA]
// NAME is claim.PAPER.ID; LABELS are claim, TIER, paper:PAPER and the claim's folder under claims/ (its
// section), ','-separated (a ';' would split the line in CMake's lists). Only papers with a baseline (expected.json)
// have tests.
int list_ctest(const fs::path& root, const std::string& budget) {
  for (const fs::path& paper : catalogue::paper_folders(root)) {
    const fs::path baseline = paper / "expected.json";
    if (!fs::exists(baseline)) continue;
    std::optional<catalogue::Runs> runs;
    try {
      runs = catalogue::Runs::load((paper / "runs.yaml").string());
    } catch (const Error&) {  // every claim's test then fails with the runs file's error
    }
    const std::string name = paper.filename().string();
    std::set<std::string> seen;
    for (const auto& file : claims::find_claim_files({(paper / "claims").string()})) {
      const ClaimTest t = read_test(file, runs ? &*runs : nullptr, budget);
      // Two files of one id: the verifier reports it; each still gets a test of its own.
      std::string test = "claim." + name + "." + t.id;
      if (!seen.insert(test).second) test += "." + fs::path(file).stem().string();
      std::string labels = "claim," + t.tier + ",paper:" + name;
      const fs::path section = fs::relative(fs::path(file).parent_path(), paper / "claims");
      if (!section.empty() && section != ".") labels += "," + section.generic_string();
      std::cout << test << '\t' << fs::absolute(file).string() << '\t' << t.budget << '\t'
                << fs::absolute(baseline).string() << '\t' << labels << '\n';
    }
    if (runs) list_rung_tests(paper, *runs, budget);
  }
  return kExitOk;
}

}  // namespace cc::app
