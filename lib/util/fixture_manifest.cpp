#include "util/fixture_manifest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_io.h"
#include "util/json_input.h"
#include "util/sha256.h"

namespace cc {
namespace fs = std::filesystem;

namespace {

bool is_hex64(const std::string& s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A manifest path: relative, no "..", no ".", no empty component, no backslash or control character.
bool safe_relative(const std::string& p) {
  if (p.empty() || p.front() == '/' || p.back() == '/') return false;
  std::istringstream parts(p);
  std::string part;
  while (std::getline(parts, part, '/'))
    if (part.empty() || part == "." || part == "..") return false;
  return std::none_of(p.begin(), p.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == '\\' || c == 0x7f; });
}

fs::path lexical_absolute(const std::string& p) { return fs::absolute(fs::path(p)).lexically_normal(); }

// Every entry under root except the manifest itself: regular files by relative path, and problems
// for what is neither a regular file nor a directory (symlinks included: a link can point anywhere).
std::vector<std::string> tree_files(const std::string& root, std::vector<std::string>& problems) {
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const auto st = it->symlink_status();
    const std::string rel = it->path().lexically_relative(root).generic_string();
    if (fs::is_directory(st)) continue;
    if (!fs::is_regular_file(st)) {
      problems.push_back(it->path().string() +
                         ": not a regular file (a symlink, FIFO or device has no place among fixtures)");
      continue;
    }
    if (rel != kManifestName) out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string digest_of(const std::string& path, FileDigests* digests) {
  return digests ? digests->of(path) : sha256_file(path);
}

}  // namespace

std::string FileDigests::of(const std::string& path) {
  const std::string key = lexical_absolute(path).string();
  if (const auto it = known_.find(key); it != known_.end()) return it->second;
  return known_.emplace(key, sha256_file(path)).first->second;
}

ManifestCheck check_fixture_run(const std::string& run_dir, FileDigests* digests) {
  ManifestCheck out;
  const fs::path manifest = fs::path(run_dir) / "run.json";
  if (!path_present(manifest.string())) {
    out.problems.push_back(manifest.string() + ": missing (every fixture run lists its files' sha256 there)");
    return out;
  }
  ++out.runs;
  nlohmann::json run;
  try {
    run = parse_json(read_regular_file(manifest.string(), kMaxJsonBytes, "run.json"), manifest.string(),
                     /*allow_exceptions=*/false);
  } catch (const Error& e) {
    out.problems.push_back(e.what());
    return out;
  }
  if (run.is_discarded() || !run.is_object() || !run.contains("sha256") || !run["sha256"].is_object()) {
    out.problems.push_back(manifest.string() + ": not valid JSON with a \"sha256\" object");
    return out;
  }
  for (const auto& [name, want] : run["sha256"].items()) {
    ++out.files;
    const fs::path f = fs::path(run_dir) / name;
    if (!want.is_string() || !safe_relative(name)) {
      out.problems.push_back(manifest.string() + ": entry '" + name + "' is not a file name with a sha256 string");
    } else if (!path_present(f.string())) {
      out.problems.push_back(f.string() + ": missing (listed in run.json)");
    } else {
      try {
        if (digest_of(f.string(), digests) != want.get<std::string>())
          out.problems.push_back(f.string() + ": sha256 differs from run.json");
      } catch (const Error& e) {
        out.problems.push_back(e.what());
      }
    }
  }
  return out;
}

ManifestCheck check_fixture_tree(const std::string& root, FileDigests* digests) {
  ManifestCheck out;
  if (!fs::is_directory(root)) return out;
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.path().filename() == "run.json") dirs.push_back(entry.path().parent_path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) {
    ManifestCheck one = check_fixture_run(d.string(), digests);
    out.runs += one.runs;
    out.files += one.files;
    out.problems.insert(out.problems.end(), one.problems.begin(), one.problems.end());
  }
  return out;
}

std::map<std::string, std::string> read_manifest(const std::string& root) {
  const std::string path = (fs::path(root) / kManifestName).string();
  if (!fs::exists(path))
    throw Error(
        path +
        ": missing; it lists the sha256 of every committed fixture file (`claimcheck fixtures manifest` writes it)");
  std::istringstream in(read_regular_file(path, kMaxJsonBytes, "fixture manifest"));
  std::map<std::string, std::string> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    // sha256sum's text format: 64 hex digits, two spaces (or space + '*' for binary mode), the path.
    if (line.size() < 67 || !is_hex64(line.substr(0, 64)) || line[64] != ' ' || (line[65] != ' ' && line[65] != '*'))
      throw Error(SourcePos{path, n, 1}, "expected 'SHA256  PATH' (sha256sum's format)");
    const std::string rel = line.substr(66);
    if (!safe_relative(rel))
      throw Error(SourcePos{path, n, 67}, "path '" + rel + "' is not a plain path under the fixtures folder");
    if (!out.emplace(rel, line.substr(0, 64)).second)
      throw Error(SourcePos{path, n, 67}, "'" + rel + "' is listed twice");
  }
  return out;
}

size_t write_manifest(const std::string& root) {
  std::vector<std::string> problems;
  const auto files = tree_files(root, problems);
  if (!problems.empty()) throw Error(problems.front());
  std::string text;
  for (const auto& rel : files) text += sha256_file((fs::path(root) / rel).string()) + "  " + rel + "\n";
  write_file_atomic((fs::path(root) / kManifestName).string(), text);
  return files.size();
}

ManifestCheck check_manifest(const std::string& root, FileDigests* digests) {
  ManifestCheck out;
  std::map<std::string, std::string> listed;
  try {
    listed = read_manifest(root);
  } catch (const Error& e) {
    out.problems.push_back(e.what());
    return out;
  }
  const auto present = tree_files(root, out.problems);
  for (const auto& rel : present)
    if (!listed.count(rel))
      out.problems.push_back((fs::path(root) / rel).string() + ": not listed in " + kManifestName);
  for (const auto& [rel, want] : listed) {
    ++out.files;
    const std::string f = (fs::path(root) / rel).string();
    const auto st = fs::symlink_status(f);
    if (!fs::exists(st)) {
      out.problems.push_back(f + ": missing (listed in " + kManifestName + ")");
    } else if (fs::is_regular_file(st)) {
      if (digest_of(f, digests) != want) out.problems.push_back(f + ": sha256 differs from " + kManifestName);
    }  // anything else was reported by tree_files
  }
  return out;
}

FixtureGuard::FixtureGuard(std::string root) : root_(std::move(root)) {}

std::optional<FixtureGuard> FixtureGuard::if_committed(const std::string& root) {
  if (!path_present((fs::path(root) / kManifestName).string())) return std::nullopt;
  return FixtureGuard(root);
}

std::string FixtureGuard::relative(const std::string& path) const {
  const fs::path rel = lexical_absolute(path).lexically_relative(lexical_absolute(root_));
  const std::string s = rel.generic_string();
  if (s.empty() || s == "." || s.rfind("..", 0) == 0) return "";
  return s;
}

bool FixtureGuard::covers(const std::string& path) const {
  return !relative(path).empty() || lexical_absolute(path) == lexical_absolute(root_);
}

const std::map<std::string, std::string>& FixtureGuard::manifest() {
  if (!loaded_) {
    manifest_ = read_manifest(root_);
    loaded_ = true;
  }
  return manifest_;
}

// Without a manifest nothing is committed (a checkout without fixtures); reading a fixture file
// still needs one (require_file).
bool FixtureGuard::lists(const std::string& path) {
  const std::string rel = relative(path);
  if (rel.empty() || !fs::exists(fs::path(root_) / kManifestName)) return false;
  return manifest().count(rel) > 0;
}

bool FixtureGuard::lists_under(const std::string& dir) {
  const std::string rel = relative(dir);
  if (rel.empty() || !fs::exists(fs::path(root_) / kManifestName)) return false;
  const std::string prefix = rel + "/";
  const auto& m = manifest();
  for (auto it = m.lower_bound(prefix); it != m.end() && it->first.rfind(prefix, 0) == 0; ++it)
    if (it->first.find('/', prefix.size()) == std::string::npos) return true;
  return false;
}

void FixtureGuard::require_file(const std::string& path) {
  const std::string rel = relative(path);
  if (rel.empty() || checked_.count(rel)) return;
  const auto& m = manifest();
  const auto it = m.find(rel);
  if (it == m.end())
    throw Error(path + ": not listed in " + root_ + "/" + kManifestName + " (an unlisted fixture file is not trusted)");
  const auto st = fs::symlink_status(path);
  if (!fs::exists(st)) throw Error(path + ": missing (listed in " + root_ + "/" + kManifestName + ")");
  if (fs::is_symlink(st)) throw Error(path + ": a symlink; fixture files are regular files");
  if (sha256_file(path) != it->second)
    throw Error(path + ": sha256 differs from " + root_ + "/" + kManifestName + " (changed since it was committed)");
  checked_.insert(rel);
}

// A run folder's run.json lists its files too (the second layer above). Every file it lists must be
// listed by the manifest with the same sha256: a checkpoint deleted together with its manifest lines
// is then still missing, never a step the run "did not keep" (which let the other seeds decide a
// verdict). The manifest's files were checked against the disk already, so this reads no file again.
void FixtureGuard::require_run_json_agrees(const std::string& dir, const std::string& prefix) {
  const auto& m = manifest();
  if (!m.count(prefix + "run.json")) return;  // not a run folder (a sweep's summaries)
  const std::string path = dir + "/run.json";
  const nlohmann::json run = parse_json(read_regular_file(path, kMaxJsonBytes, "run.json"), path,
                                        /*allow_exceptions=*/false);
  if (run.is_discarded() || !run.is_object() || !run.contains("sha256") || !run["sha256"].is_object())
    throw Error(path + ": not valid JSON with a \"sha256\" object");
  for (const auto& [name, want] : run["sha256"].items()) {
    const auto it = m.find(prefix + name);
    if (it == m.end())
      throw Error(dir + "/" + name + ": missing from " + root_ + "/" + kManifestName + " but listed in " + path +
                  " (a committed file deleted with its manifest line?)");
    if (!want.is_string() || want.get<std::string>() != it->second)
      throw Error(dir + "/" + name + ": its sha256 in " + path + " differs from " + root_ + "/" + kManifestName);
  }
}

void FixtureGuard::require_dir(const std::string& dir) {
  const std::string rel = relative(dir);
  if (rel.empty() || checked_.count(rel + "/")) return;
  const auto& m = manifest();
  const std::string prefix = rel + "/";
  size_t listed = 0;
  for (auto it = m.lower_bound(prefix); it != m.end() && it->first.rfind(prefix, 0) == 0; ++it) {
    if (it->first.find('/', prefix.size()) != std::string::npos) continue;  // a deeper folder's
    ++listed;
    require_file((fs::path(root_) / it->first).string());
  }
  if (listed == 0) throw Error(dir + ": no file of this folder is listed in " + root_ + "/" + kManifestName);
  require_run_json_agrees(dir, prefix);
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string r = prefix + entry.path().filename().string();
    if (fs::is_regular_file(entry.symlink_status()) && !m.count(r))
      throw Error(entry.path().string() + ": not listed in " + root_ + "/" + kManifestName +
                  " (an unlisted fixture file is not trusted)");
    if (!fs::is_regular_file(entry.symlink_status()) && !fs::is_directory(entry.symlink_status()))
      throw Error(entry.path().string() +
                  ": not a regular file (a symlink, FIFO or device has no place among fixtures)");
  }
  checked_.insert(rel + "/");
}

}  // namespace cc
