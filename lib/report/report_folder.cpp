#include "report/report_folder.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "util/atomic_file.h"

namespace cc::report {
namespace fs = std::filesystem;
namespace {

constexpr const char* kStagePrefix = ".report-new-";
constexpr const char* kReady = ".report-ready";
constexpr const char* kOld = ".report-old";

// Removes PATH whatever it is; a link is removed itself (remove_all never follows one).
void remove_entry(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) throw WriteError(path.string() + ": cannot remove it (" + ec.message() + ")");
}

void rename_entry(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) throw WriteError(from.string() + ": cannot rename it to " + to.string() + " (" + ec.message() + ")");
}

// Installs DIR/.report-ready entry by entry. A file is renamed over the old one (a link standing there
// is replaced, not followed); a folder cannot be renamed over a non-empty one, so the old figures/ (or a
// link of that name) is first moved aside to DIR/.report-old, then removed with the rest.
void install_ready(const fs::path& dir) {
  const fs::path ready = dir / kReady, old = dir / kOld;
  remove_entry(old);
  std::error_code made;
  fs::create_directory(old, made);
  if (made) throw WriteError(old.string() + ": cannot make it (" + made.message() + ")");
  for (const char* name : kReportEntries) {
    const fs::path target = dir / name;
    std::error_code ec;
    const fs::file_type was = fs::symlink_status(target, ec).type(), is = fs::symlink_status(ready / name, ec).type();
    // A file replaces a file (or a link) in one rename; anything else is moved aside first.
    const bool replace_in_place = was != fs::file_type::directory && is == fs::file_type::regular;
    if (was != fs::file_type::not_found && !replace_in_place) rename_entry(target, old / name);
    if (is != fs::file_type::not_found) rename_entry(ready / name, target);
  }
  remove_entry(ready);
  remove_entry(old);
}

}  // namespace

std::string begin_report(const std::string& dir) {
  const fs::path d(dir);
  if (fs::exists(fs::symlink_status(d / kReady))) install_ready(d);  // an interrupted commit: roll forward
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(d, ec))
    if (e.path().filename().string().rfind(kStagePrefix, 0) == 0) remove_entry(e.path());
  remove_entry(d / kOld);
  std::string stage = (d / (std::string(kStagePrefix) + "XXXXXX")).string();
  if (!::mkdtemp(stage.data()))
    throw WriteError("--report " + dir + ": cannot make a staging folder there (" + std::strerror(errno) + ")");
  return stage;
}

void commit_report(const std::string& dir, const std::string& stage) {
  const fs::path d(dir);
  remove_entry(d / kReady);
  rename_entry(stage, d / kReady);  // the new report is complete: from here it is installed, now or by the next writer
  install_ready(d);
}

void abandon_report(const std::string& stage) noexcept {
  std::error_code ec;
  fs::remove_all(stage, ec);
}

}  // namespace cc::report
