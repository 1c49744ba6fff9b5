#include "catalogue/paper_layout.h"

#include <algorithm>
#include <system_error>

#include "util/error.h"
#include "util/fixture_manifest.h"
#include "util/yaml_json.h"

namespace cc::catalogue {
namespace fs = std::filesystem;

bool is_paper_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "claims", ec) && fs::is_regular_file(dir / "runs.yaml", ec);
}

namespace {

bool has_paper(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root / "papers", ec)) return false;
  for (const auto& e : fs::directory_iterator(root / "papers", ec))
    if (is_paper_folder(e.path())) return true;
  return false;
}

}  // namespace

fs::path checkout_root() {
  fs::path up = ".";
  std::error_code ec;
  const fs::path here = fs::current_path(ec);
  if (ec) return up;
  for (fs::path dir = here;; dir = dir.parent_path()) {
    if (has_paper(dir)) return up;
    if (dir == dir.parent_path()) return ".";
    up = up == "." ? fs::path("..") : up / "..";
  }
}

std::vector<fs::path> paper_folders(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(root / "papers", ec)) return out;
  for (const auto& e : fs::directory_iterator(root / "papers", ec))
    if (is_paper_folder(e.path())) out.push_back(e.path().lexically_normal());
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// paper.yaml's `key` beside the runs file: a folder relative to paper.yaml; none without a paper.yaml
// or without the key. Read through ObjectReader for its FILE:LINE message on a wrong type; the other
// keys belong to the paper's facts, read elsewhere, so no finish() here.
std::optional<fs::path> folder_in_paper_yaml(const fs::path& runs_file, const std::string& key) {
  const fs::path paper_yaml = runs_file.parent_path() / "paper.yaml";
  if (!fs::is_regular_file(paper_yaml)) return std::nullopt;
  const YamlDoc doc = load_yaml_file(paper_yaml.string());
  if (!doc.value.is_object() || !doc.value.contains(key)) return std::nullopt;
  ObjectReader top(doc, "");
  const std::string rel = top.string(key);
  if (rel.empty()) top.fail(key, "expected a folder, relative to paper.yaml");
  return (runs_file.parent_path() / rel).lexically_normal();
}

}  // namespace

fs::path fixtures_beside(const fs::path& runs_file) {
  const std::optional<fs::path> named = folder_in_paper_yaml(runs_file, "fixtures");
  if (!named) return (runs_file.parent_path() / "fixtures").lexically_normal();
  // A folder paper.yaml names is a statement that the paper's fixtures are there: one without a
  // manifest (a typo, `/etc`) would make every claim "not available", all SKIPPED.
  std::error_code ec;
  if (!fs::is_regular_file(*named / kManifestName, ec))
    throw Error((runs_file.parent_path() / "paper.yaml").string() + ": fixtures: " + named->string() + " holds no " +
                kManifestName + " (not a committed fixtures folder)");
  return *named;
}

std::optional<fs::path> committed_report_beside(const fs::path& runs_file) {
  return folder_in_paper_yaml(runs_file, "report");
}

std::optional<fs::path> runs_beside(const fs::path& fixtures_dir, const fs::path& root) {
  std::error_code ec;
  for (const fs::path& paper : paper_folders(root)) {
    const fs::path runs = paper / "runs.yaml";
    if (fs::equivalent(fixtures_beside(runs), fixtures_dir, ec)) return runs;
  }
  fs::path dir = fixtures_dir.lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "fixtures/" names the folder "fixtures"
  const fs::path parent_runs = dir.parent_path() / "runs.yaml";
  if (fs::is_regular_file(parent_runs, ec)) return parent_runs;
  return std::nullopt;
}

}  // namespace cc::catalogue
