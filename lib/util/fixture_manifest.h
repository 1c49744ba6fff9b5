#pragma once
// Tamper evidence for committed results. Two layers:
//   - fixtures/MANIFEST.sha256 lists every committed file under fixtures/ (checkpoints, sidecars,
//     metrics logs, run.json files, sweep summaries) with its sha256, in sha256sum's own format, so
//     `cd fixtures && sha256sum -c MANIFEST.sha256` checks it without claimcheck. A file that is
//     missing, changed, added without being listed, or not a regular file is a problem.
//   - each fixture run's run.json lists the sha256 of its own files too (claim R3's original
//     check), so a run folder copied elsewhere still carries its hashes.
// `claimcheck verify` checks, before it measures, every file it reads from fixtures/ against the
// manifest (FixtureGuard); `claimcheck fixtures verify` checks the whole tree.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cc {

constexpr const char* kManifestName = "MANIFEST.sha256";
// The format of a committed run's run.json (packed by sweep/fixture_pack.h, or written by `import`).
constexpr const char* kFixtureRunFormat = "claimcheck-fixture/1";

struct ManifestCheck {
  int runs = 0;                       // run.json files found
  int files = 0;                      // files they list
  std::vector<std::string> problems;  // "PATH: sha256 differs from run.json", "PATH: missing", ...
};

// The sha256 of files, each read once however many checks ask for it: a whole tree's check hashes
// every file for MANIFEST.sha256 and again for its run.json otherwise. Held for one check of files
// that do not change meanwhile.
class FileDigests {
 public:
  std::string of(const std::string& path);  // sha256_file(path), remembered under its absolute path
 private:
  std::map<std::string, std::string> known_;
};

// Checks one fixture run directory (DIR/run.json). A missing or unreadable run.json is a problem.
// `digests`: files hashed already (nullptr: every file is hashed here).
ManifestCheck check_fixture_run(const std::string& run_dir, FileDigests* digests = nullptr);

// Every run.json under `root` (recursively); a root without any is an empty, clean result.
ManifestCheck check_fixture_tree(const std::string& root, FileDigests* digests = nullptr);

// ROOT/MANIFEST.sha256: relative path -> sha256. Throws cc::Error (FILE:LINE) on a malformed line, a
// path that leaves the root, or a path listed twice; a missing manifest is an Error too.
std::map<std::string, std::string> read_manifest(const std::string& root);
// Writes ROOT/MANIFEST.sha256 listing every regular file under root (sorted); returns how many.
// Throws on anything under root that is not a regular file or a directory (a symlink, a FIFO).
size_t write_manifest(const std::string& root);
// The whole manifest: every listed file present and equal, every file under root listed.
ManifestCheck check_manifest(const std::string& root, FileDigests* digests = nullptr);

// Checks fixture files against the manifest before they are read, each folder or file once per
// process. Throws cc::Error naming the file and the problem.
class FixtureGuard {
 public:
  explicit FixtureGuard(std::string root);
  // A guard of `root` where it is a committed tree (it has MANIFEST.sha256); none for a scratch tree.
  static std::optional<FixtureGuard> if_committed(const std::string& root);
  const std::string& root() const { return root_; }
  // Whether `path` lies under the fixtures root (only those are checked).
  bool covers(const std::string& path) const;
  // Whether the manifest lists `path`, or (lists_under) any file directly in folder `dir`: a
  // committed file that is missing is then an error, never a fixture that was not committed.
  bool lists(const std::string& path);
  bool lists_under(const std::string& dir);
  // Every listed file in `dir` matches, no unlisted file is there, and something is listed.
  void require_dir(const std::string& dir);
  void require_file(const std::string& path);

 private:
  std::string relative(const std::string& path) const;  // "" when outside the root
  void require_run_json_agrees(const std::string& dir, const std::string& prefix);
  const std::map<std::string, std::string>& manifest();
  std::string root_;
  bool loaded_ = false;
  std::map<std::string, std::string> manifest_;
  std::set<std::string> checked_;
};

}  // namespace cc
