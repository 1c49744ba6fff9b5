#pragma once
// A fixture's run.json lists the sha256 of every committed file (claim R3). Checking it is
// shared by `claimcheck fixtures verify` and the fixture_integrity measurement kind.
#include <string>
#include <vector>

namespace cc {

struct ManifestCheck {
  int runs = 0;                       // run.json files found
  int files = 0;                      // files they list
  std::vector<std::string> problems;  // "PATH: sha256 differs from run.json", "PATH: missing", ...
};

// Checks one fixture run directory (DIR/run.json). A missing or unreadable run.json is a problem.
ManifestCheck check_fixture_run(const std::string& run_dir);

// Every run.json under `root` (recursively); a root without any is an empty, clean result.
ManifestCheck check_fixture_tree(const std::string& root);

}  // namespace cc
