#pragma once
// A report folder (`verify --report DIR`) written as a whole and only inside itself.
//
// The report (figures/, details.json, report.json, REPORT.md, junit.xml) is first made complete in a staging folder
// inside DIR (DIR/.report-new-XXXXXX, same file system); only then is anything of the old report
// touched. The staging folder is renamed to DIR/.report-ready (one rename: from here on the new report
// is complete and will be installed), and its entries are renamed over the old ones. A kill before
// that rename leaves the old report whole; a kill during the installing renames leaves DIR/.report-ready,
// which the next write into DIR installs first (roll forward), so no two reports stay mixed.
//
// Nothing is written through a link: rename replaces a link that stands where a report file goes, it
// never writes its target; an old figures/ that is a link is unlinked, never emptied; the staging
// folder is made by mkdtemp (a new folder, never a planted one). Callers hold DIR's FolderLock.
#include <string>

namespace cc::report {

// Removes what an interrupted writer left in DIR (stale staging folders), installs an interrupted
// commit's complete report (DIR/.report-ready), and returns a new empty staging folder inside DIR.
std::string begin_report(const std::string& dir);

// Installs the complete report in `stage` (from begin_report) as DIR's report, then removes what is
// left of the old one.
void commit_report(const std::string& dir, const std::string& stage);

// Removes a staging folder whose report will not be installed (an exception while writing it).
void abandon_report(const std::string& stage) noexcept;

// The report's entries, in the order they are installed (junit.xml, what a pipeline reads, last).
inline constexpr const char* kReportEntries[] = {"figures", "details.json", "report.json", "REPORT.md", "junit.xml"};

}  // namespace cc::report
