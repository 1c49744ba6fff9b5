#include "util/fixture_manifest.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <algorithm>

#include "util/error.h"
#include "util/sha256.h"

namespace cc {
namespace fs = std::filesystem;

ManifestCheck check_fixture_run(const std::string& run_dir) {
  ManifestCheck out;
  const fs::path manifest = fs::path(run_dir) / "run.json";
  if (!fs::exists(manifest)) {
    out.problems.push_back(manifest.string() + ": missing (every fixture run lists its files' sha256 there)");
    return out;
  }
  ++out.runs;
  nlohmann::json run = nlohmann::json::parse(std::ifstream(manifest), nullptr, /*allow_exceptions=*/false);
  if (run.is_discarded() || !run.is_object() || !run.contains("sha256") || !run["sha256"].is_object()) {
    out.problems.push_back(manifest.string() + ": not valid JSON with a \"sha256\" object");
    return out;
  }
  for (const auto& [name, want] : run["sha256"].items()) {
    ++out.files;
    const fs::path f = fs::path(run_dir) / name;
    if (!want.is_string()) {
      out.problems.push_back(manifest.string() + ": sha256 of '" + name + "' is not a string");
    } else if (!fs::exists(f)) {
      out.problems.push_back(f.string() + ": missing (listed in run.json)");
    } else if (sha256_file(f.string()) != want.get<std::string>()) {
      out.problems.push_back(f.string() + ": sha256 differs from run.json");
    }
  }
  return out;
}

ManifestCheck check_fixture_tree(const std::string& root) {
  ManifestCheck out;
  if (!fs::is_directory(root)) return out;
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.path().filename() == "run.json") dirs.push_back(entry.path().parent_path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) {
    ManifestCheck one = check_fixture_run(d.string());
    out.runs += one.runs;
    out.files += one.files;
    out.problems.insert(out.problems.end(), one.problems.begin(), one.problems.end());
  }
  return out;
}

}  // namespace cc
