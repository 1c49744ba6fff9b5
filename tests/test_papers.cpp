// Every paper of the checkout (papers/NAME) as the engine finds and reads it (catalogue/paper_layout.h),
// and the layout's rules on scratch folders.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catalogue/paper_layout.h"
#include "catalogue/runs.h"
#include "test_helpers.h"
#include "papers/assign_and_add/module/task_family.h"
#include "train/family.h"
#include "train/run_config.h"
#include "util/error.h"
#include "util/yaml_json.h"

namespace fs = std::filesystem;
using namespace cc;

namespace {

// The keys of WANT (recursing into objects) that HAVE lacks, as dotted paths under PREFIX.
void missing_keys(const nlohmann::json& want, const nlohmann::json& have, const std::string& prefix,
                  std::vector<std::string>& out) {
  for (const auto& [key, value] : want.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (!have.is_object() || !have.contains(key))
      out.push_back(path);
    else if (value.is_object())
      missing_keys(value, have[key], path, out);
  }
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

// A run without `base:` is its whole config: every field its JSON (what the hash is taken over) holds
// is written in runs.yaml, so no C++ default decides a committed run's hash.
TEST(Papers, EveryRunWithoutABaseSpellsOutItsWholeConfig) {
  const auto papers = catalogue::paper_folders(CLAIMCHECK_SOURCE_DIR);
  ASSERT_GE(papers.size(), 2u) << "expected papers/assign_and_add and papers/nanda_grokking";
  int checked = 0;
  for (const auto& paper : papers) {
    const std::string runs_file = (paper / "runs.yaml").string();
    const catalogue::Runs runs = catalogue::Runs::load(runs_file);
    const YamlDoc doc = load_yaml_file(runs_file);
    for (const auto& [name, entry] : doc.value.at("runs").items()) {
      if (entry.contains("base")) continue;
      const catalogue::RunSpec* spec = runs.find(name);
      ASSERT_NE(spec, nullptr) << runs_file << ": " << name;
      nlohmann::json want = spec->config.to_json();  // the family's format (TaskFamily::write) where it has one
      want.erase("name");
      want.erase("seed");
      std::vector<std::string> missing;
      missing_keys(want, entry.at("config"), "", missing);
      std::string list;
      for (const auto& m : missing) list += " " + m;
      EXPECT_TRUE(missing.empty()) << runs_file << ": run '" << name << "' leaves to C++ defaults:" << list;
      ++checked;
    }
  }
  EXPECT_GE(checked, 5);  // search_base, b512, s6_reading; stated, no_weight_decay
}

// Every run's task comes from a registered family. Assign and Add's runs name none: its module's
// family is the default one, and a run that names it has the same config and hash as one that does not.
TEST(Papers, ARunIsReadByTheFamilyItNamesOrTheDefaultOne) {
  ASSERT_NE(train::default_family(), nullptr);
  nlohmann::json run = assign_and_add::run_config().to_json();  // every model and train field stated
  run["task"] = {{"modulus", 59}};
  const auto plain = train::RunConfig::from_json(run);
  run["task"]["family"] = "assign_and_add";
  const auto named = train::RunConfig::from_json(run);
  EXPECT_EQ(plain.family, train::default_family()->name);
  EXPECT_EQ(named.family, plain.family);
  EXPECT_EQ(named.to_json(), plain.to_json());
  EXPECT_EQ(named.weights_hash(), plain.weights_hash());
  EXPECT_FALSE(named.to_json()["task"].contains("family"));
  try {
    train::RunConfig::from_json({{"task", {{"family", "nope"}}}});
    ADD_FAILURE() << "an unknown family was read";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown task family 'nope' (registered: "), std::string::npos) << what;
    for (const auto& name : train::family_names()) EXPECT_NE(what.find(name), std::string::npos) << name;
  }
  train::TaskFamily second;
  second.name = "another_default";
  second.is_default = true;
  EXPECT_THROW(train::register_family(second, "the test"), Error);  // one family reads the runs that name none
}

// The fixtures of a paper: fixtures/ beside its runs file, or the folder its paper.yaml names; and back.
TEST(Papers, FixturesAreBesideTheRunsFileOrWherePaperYamlSays) {
  const fs::path root = test::fresh_dir("checkout");
  write(root / "papers/plain/runs.yaml", "runs: {}\n");
  fs::create_directories(root / "papers/plain/claims");
  fs::create_directories(root / "papers/plain/fixtures");
  write(root / "papers/moved/runs.yaml", "runs: {}\n");
  write(root / "papers/moved/paper.yaml", "paper: {title: t, arxiv: x}\nfixtures: ../../shared_fixtures\n");
  fs::create_directories(root / "papers/moved/claims");
  fs::create_directories(root / "shared_fixtures");
  write(root / "shared_fixtures/MANIFEST.sha256", "");       // a committed fixtures folder (empty)
  write(root / "papers/no_claims/runs.yaml", "runs: {}\n");  // not a paper: no claims/

  const auto papers = catalogue::paper_folders(root);
  ASSERT_EQ(papers.size(), 2u);
  EXPECT_EQ(papers[0].filename(), "moved");
  EXPECT_EQ(papers[1].filename(), "plain");

  EXPECT_EQ(catalogue::fixtures_beside(root / "papers/plain/runs.yaml"), root / "papers/plain/fixtures");
  EXPECT_EQ(catalogue::fixtures_beside(root / "papers/moved/runs.yaml"), root / "shared_fixtures");
  EXPECT_EQ(catalogue::runs_beside(root / "shared_fixtures", root), root / "papers/moved/runs.yaml");
  EXPECT_EQ(catalogue::runs_beside(root / "papers/plain/fixtures/", root), root / "papers/plain/runs.yaml");
  EXPECT_FALSE(catalogue::runs_beside(root / "elsewhere", root).has_value());
  // A folder paper.yaml names that is no committed fixtures folder (a typo, /etc): an error naming it,
  // not a paper whose every claim is "not available".
  write(root / "papers/moved/paper.yaml", "paper: {title: t, arxiv: x}\nfixtures: /etc\n");
  try {
    catalogue::fixtures_beside(root / "papers/moved/runs.yaml");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("paper.yaml: fixtures: /etc holds no MANIFEST.sha256"), std::string::npos)
        << e.what();
  }
}

// paper.yaml's `report:` names the committed report whose claim times order a first verification.
TEST(Papers, TheCommittedReportIsWherePaperYamlSaysAndAWrongTypeIsAnErrorAtItsLine) {
  const fs::path root = test::fresh_dir("checkout");
  write(root / "papers/plain/runs.yaml", "runs: {}\n");
  EXPECT_FALSE(catalogue::committed_report_beside(root / "papers/plain/runs.yaml").has_value());
  write(root / "papers/plain/paper.yaml", "paper: {title: t, arxiv: x}\n");
  EXPECT_FALSE(catalogue::committed_report_beside(root / "papers/plain/runs.yaml").has_value());
  write(root / "papers/plain/paper.yaml", "paper: {title: t, arxiv: x}\nreport: ../../reports/x\n");
  EXPECT_EQ(catalogue::committed_report_beside(root / "papers/plain/runs.yaml"), root / "reports/x");
  write(root / "papers/plain/paper.yaml", "paper: {title: t, arxiv: x}\nreport: {a: 1}\n");
  try {
    catalogue::committed_report_beside(root / "papers/plain/runs.yaml");
    FAIL() << "a map was accepted as the report folder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("paper.yaml:2"), std::string::npos) << e.what();
  }
}

TEST(Papers, AFixturesKeyThatIsNotAFolderNameIsAnErrorAtItsLine) {
  const fs::path root = test::fresh_dir("checkout");
  write(root / "runs.yaml", "runs: {}\n");
  write(root / "paper.yaml", "paper: {title: t, arxiv: x}\nfixtures: [a, b]\n");
  try {
    catalogue::fixtures_beside(root / "runs.yaml");
    FAIL() << "a list was accepted as the fixtures folder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("paper.yaml:2"), std::string::npos) << e.what();
  }
}
