// claimcheck verify / list / explain: the claims front end.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <set>

#include <unistd.h>

#include "claims/verifier.h"
#include "claims/attribution.h"
#include "claims/robustness.h"
#include "catalogue/paper_layout.h"
#include "catalogue/sweep_results.h"
#include "cli.h"
#include "report/baseline.h"
#include "report/cross_checks.h"
#include "report/outcome.h"
#include "report/report.h"
#include "verify/verification.h"
#include "train/runtime.h"
#include "util/folder_lock.h"
#include "util/error.h"
#include "util/atomic_file.h"
#include "util/file_io.h"
#include "util/platform.h"
#include "util/registry.h"

namespace cc::app {
namespace fs = std::filesystem;
namespace {

// `verify`'s line as a claim ends: "[ 7/46] G4 FAIL in 3.2 s; 21 s elapsed, about 117 s left". The
// estimate assumes the claims left take as long on average as those done.
// `share_done`: the part of the whole work the claims done so far make (their count over all, or their
// seconds in the last report over every claim's): what the estimate of the rest scales the time by.
std::string progress_line(const claims::ClaimResult& r, size_t done, size_t total,
                          std::chrono::steady_clock::duration elapsed, double share_done) {
  const double s = std::chrono::duration<double>(elapsed).count();
  const int width = static_cast<int>(std::to_string(total).size());
  std::ostringstream os;
  os << "[" << std::setw(width) << done << "/" << total << "] " << (r.id.empty() ? r.file : r.id) << " "
     << claims::verdict_name(r.verdict) << std::fixed << std::setprecision(1) << " in " << r.seconds << " s; "
     << std::setprecision(0) << s << " s elapsed";
  if (done < total && share_done > 0) os << ", about " << s * (1 - std::min(share_done, 1.0)) / share_done << " s left";
  os << "\n";
  return os.str();
}

// "a,b,c" -> {a, b, c}; "" -> {}.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// runs.yaml: the one given, else the first found walking up from the first claim path.
std::string find_runs_file(const std::string& given, const std::vector<std::string>& paths) {
  if (!given.empty()) return given;
  for (const auto& p : paths) {
    for (fs::path dir = fs::absolute(p); !dir.empty(); dir = dir.parent_path()) {
      if (fs::exists(dir / "runs.yaml")) return (dir / "runs.yaml").string();
      if (dir == dir.parent_path()) break;
    }
  }
  throw Error("no runs.yaml found above " + (paths.empty() ? std::string(".") : paths.front()) + "; pass --runs FILE");
}

// The defaults of --report and --cache: reports/latest and cache of the checkout (found upward from
// the working directory, as git finds its repository), so that a run from a subfolder writes where one
// from the top does.
std::string default_report_dir() {
  return (catalogue::checkout_root() / "reports" / "latest").lexically_normal().string();
}
std::string default_cache_dir() { return (catalogue::checkout_root() / "cache").lexically_normal().string(); }

struct Common {
  std::vector<std::string> paths;  // empty: every paper of the checkout (catalogue/paper_layout.h)
  std::string runs_file, fixtures, cache = default_cache_dir();
};

// --fixtures, else the paper's own (catalogue/paper_layout.h: paper.yaml's `fixtures`, else fixtures/
// beside the runs file).
std::string fixtures_dir(const Common& c) {
  if (!c.fixtures.empty()) return c.fixtures;
  const fs::path found = catalogue::fixtures_beside(find_runs_file(c.runs_file, c.paths));
  // Relative to here, as reports print it: no machine's own path in a committed report.
  std::error_code ec;
  const fs::path rel = fs::relative(found, ec);
  return (ec || rel.empty() ? found : rel).string();
}

// A paper's folder given as a path means its claims/: its fixtures and reports hold no claim files.
std::vector<std::string> claim_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(catalogue::is_paper_folder(p) ? (fs::path(p) / "claims").string() : p);
  return out;
}

// The claims folder of every paper of the checkout; a usage error when there is none.
std::vector<fs::path> paper_claim_folders() {
  std::vector<fs::path> out;
  for (const auto& paper : catalogue::paper_folders()) out.push_back(paper / "claims");
  if (out.empty())
    throw po::error("no path given and no paper here (papers/NAME with runs.yaml and claims/): name claim files");
  return out;
}

// What `list` and `explain` read, one paper at a time: the paths given (a paper's folder as its
// claims/), else every paper's claims/. --runs and --fixtures name one paper's files: with them, a
// path is needed.
std::vector<std::vector<std::string>> claim_paths_by_paper(const Common& c) {
  if (!c.paths.empty()) return {claim_paths(c.paths)};
  if (!c.runs_file.empty() || !c.fixtures.empty())
    throw po::error("--runs and --fixtures name one paper's files: give that paper's folder or claims too");
  std::vector<std::vector<std::string>> out;
  for (const auto& dir : paper_claim_folders()) out.push_back({dir.string()});
  return out;
}

void add_common(po::options_description& desc, Common& c) {
  // One option a line, as boost::program_options reads best; clang-format 14 would join them.
  // clang-format off
  desc.add_options()
      ("paths", po::value(&c.paths)->multitoken(),
       "claim files or directories, or a paper's folder (default: every papers/NAME/claims)")
      ("runs", po::value(&c.runs_file), "runs file (default: the runs.yaml above the claims)")
      ("fixtures", po::value(&c.fixtures),
       "committed fixtures directory (default: the paper's: paper.yaml's `fixtures`, else fixtures/ beside the runs "
       "file)")
      ("cache", po::value(&c.cache), "cache of trained runs (default: cache of the checkout)");
  // clang-format on
}

// `verify` with no path: each paper with its own runs, fixtures and report folder, REPORT/NAME (NAME: the
// paper's folder under papers/). The exit status is the worst: a usage error,
// then a failure, then a change from a baseline; 77 only when every paper's claims were all skipped.
int verify_every_paper(const std::vector<std::string>& args, const std::vector<fs::path>& papers,
                       const std::string& report_dir) {
  std::vector<std::string> rest;  // the options given, without --report and its value
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--report") {
      ++i;
      continue;
    }
    if (args[i].rfind("--report=", 0) == 0) continue;
    rest.push_back(args[i]);
  }
  int worst = kExitOk;
  bool all_skipped = true;
  auto rank = [](int rc) {
    return rc == kExitUsage                   ? 4
           : rc == kExitWrite                 ? 3
           : rc == kExitFailure               ? 2
           : rc == kExitOk || rc == kExitSkip ? 0
                                              : 1;
  };
  for (const auto& claims_dir : papers) {
    const std::string name = claims_dir.parent_path().filename().string();
    std::vector<std::string> one = {claims_dir.string(), "--report", report_dir + "/" + name};
    one.insert(one.end(), rest.begin(), rest.end());
    // Under --json stdout holds one JSON line a paper and nothing else.
    const bool json = std::find(rest.begin(), rest.end(), "--json") != rest.end();
    (json ? std::cerr : std::cout) << "== " << claims_dir.string() << " -> " << report_dir << "/" << name << "\n"
                                   << std::flush;
    // A paper that cannot be verified (its runs file broken, say) is reported and the next one is
    // verified: one broken paper must not hide the others' results.
    int rc = kExitFailure;
    try {
      rc = cmd_verify(one);
    } catch (const std::exception& e) {
      std::cerr << "claimcheck verify: error: " << claims_dir.string() << ": " << e.what() << "\n";
      rc = exit_status_for(e);
    }
    all_skipped = all_skipped && rc == kExitSkip;
    if (rc != kExitSkip && rank(rc) > rank(worst)) worst = rc;
  }
  return all_skipped ? kExitSkip : worst;
}

// `list` of one paper's claim paths: a table row (or an object of ROWS) per claim file; the number of
// files that did not load.
int list_claims(const Common& common, bool json, nlohmann::json& rows,
                std::map<std::string, std::set<std::string>>& papers_of_id) {
  const std::string runs_file = find_runs_file(common.runs_file, common.paths);
  const catalogue::Runs runs = catalogue::Runs::load(runs_file);
  // The paper: its folder's name (papers/NAME), as ctest's names and junit.xml's suites give it.
  const std::string paper = fs::absolute(runs_file).lexically_normal().parent_path().filename().string();
  catalogue::StoreOptions so;
  so.fixtures_dir = fixtures_dir(common);
  so.cache_dir = common.cache;
  catalogue::RunStore store(runs, so);
  int bad = 0;
  // One claim: a table row, or an object of the --json array.
  auto row = [&](const std::string& file, const std::string& id, const std::string& tier, const std::string& subject,
                 const std::string& inputs, const std::string& title) {
    if (json)
      rows.push_back({{"paper", paper},
                      {"file", file},
                      {"id", id},
                      {"tier", tier},
                      {"subject", subject},
                      {"inputs", inputs},
                      {"title", title}});
    else
      std::printf("%-10s %-8s %-15s %-22s %s\n", id.c_str(), tier.c_str(), subject.c_str(), inputs.c_str(),
                  title.c_str());
  };
  if (!json) row("", "id", "tier", "run", "inputs", "title");
  std::map<std::string, std::string> first_file_of_id;  // as verify refuses a paper's id used twice
  for (const auto& f : claims::find_claim_files(common.paths)) {
    try {
      const auto c = claims::load_claim(f, analysis::builtin_registry(), runs);
      if (const auto [it, fresh] = first_file_of_id.emplace(c.id, f); !fresh)
        throw Error(f + ": duplicate claim id '" + c.id + "' (first defined in " + it->second + ")");
      papers_of_id[c.id].insert(paper);
      if (c.subject.is_sweep()) {  // its input is the collected summary, not checkpoints
        const bool have =
            fs::exists(catalogue::summary_path(catalogue::sweep_fixtures_dir(so.fixtures_dir, c.subject.name)));
        row(f, c.id, catalogue::tier_name(c.tier), c.subject.name, have ? "summary collected" : "summary missing",
            c.title);
        continue;
      }
      if (c.subject.is_theory()) {  // computed from the kind's own model: nothing to load
        row(f, c.id, catalogue::tier_name(c.tier), "theory", "none (computed)", c.title);
        continue;
      }
      const auto& spec = *runs.find(c.subject.name);
      int present = 0, needed = 0;
      auto count = [&](const catalogue::RunSpec& run, uint64_t seed, const claims::Stage& stage) {
        ++needed;
        const auto step = stage.step_of(run);
        bool found = false;
        for (const auto& dir : store.dirs(run, seed)) found = found || fs::exists(train::checkpoint_path(dir, step));
        present += found;
      };
      for (uint64_t seed : c.seeds.empty() ? spec.seeds : c.seeds) {
        count(spec, seed, c.stage);
        for (const auto& ctl : c.controls)
          if (ctl.run.empty()) count(spec, seed, ctl.stage);
      }
      for (const auto& ctl : c.controls) {  // a trained control: its own run's seeds
        if (ctl.run.empty()) continue;
        const auto& other = *runs.find(ctl.run);
        for (uint64_t seed : other.seeds) count(other, seed, ctl.stage);
      }
      const std::string inputs = std::to_string(present) + "/" + std::to_string(needed) + " checkpoints";
      row(f, c.id, catalogue::tier_name(c.tier), c.subject.name, inputs, c.title);
    } catch (const Error& e) {
      ++bad;
      if (json)
        rows.push_back({{"paper", paper}, {"file", f}, {"error", e.what()}});
      else
        std::printf("%-10s %s\n", "ERROR", e.what());
    }
  }
  return bad;
}

// `explain` of ID among one paper's claim paths; false when none of them has that id (the ids seen are
// added to `ids`).
bool explain_claim(const Common& common, const std::string& id, bool json, std::vector<std::string>& ids) {
  const catalogue::Runs runs = catalogue::Runs::load(find_runs_file(common.runs_file, common.paths));
  for (const auto& f : claims::find_claim_files(common.paths)) {
    claims::Claim c;
    try {
      c = claims::load_claim(f, analysis::builtin_registry(), runs);
    } catch (const Error&) {
      continue;  // `claimcheck list` reports broken files
    }
    ids.push_back(c.id);
    if (c.id != id) continue;
    std::string control;
    for (const auto& ctl : c.controls)
      control += (control.empty() ? "must FAIL on: " : "; ") +
                 (ctl.params      ? "parameters " + ctl.params->dump()
                  : ctl.intervene ? "the same measurement with the edits " + ctl.intervene->dump() + ", checkpoint " +
                                        ctl.stage.text()
                  : !ctl.run.empty() ? "run " + ctl.run + " (its seeds), checkpoint " + ctl.stage.text()
                                     : "checkpoint " + ctl.stage.text());
    if (c.controls.empty()) control = "none (" + c.control_none_reason + ")";
    std::string readings;  // "denominator.within_of_last: 0.1 (committed), 0.05, 0.2"
    nlohmann::json readings_json = nlohmann::json::array();
    for (const auto& s : c.sensitivity) {
      readings += std::string(readings.empty() ? "" : "; ") + s.at + ": " + s.committed.dump() + " (committed)";
      for (const auto& v : s.values) readings += ", " + v.dump();
      readings_json.push_back({{"at", s.at}, {"committed", s.committed}, {"values", s.values}, {"why", s.why}});
    }
    if (json) {
      nlohmann::json j = {
          {"id", c.id},
          {"title", c.title},
          {"file", f},
          {"paper",
           {{"arxiv", c.paper.arxiv},
            {"section", c.paper.section},
            {"figure", c.paper.figure},
            {"quote", c.paper.quote}}},
          {"reported",
           {{"text", c.reported_text}, {"value", c.reported ? nlohmann::json(*c.reported) : nlohmann::json()}}},
          {"measure", {{"kind", c.kind}, {"description", c.measurement->description}, {"params", c.params}}},
          {"subject", c.subject.describe()},
          {"checkpoint", c.stage.text()},
          {"seeds", c.seeds.empty() ? nlohmann::json("all") : nlohmann::json(c.seeds)},
          {"rule", c.rule.describe()},
          {"negative_control", control},
          {"sensitivity", readings_json},
          {"tier", catalogue::tier_name(c.tier)},
          {"notes", c.notes}};
      std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                << "\n";  // a file name need not be UTF-8
      return true;
    }
    std::cout << c.id << ": " << c.title << "\n  file: " << f << "\n  paper: arXiv " << c.paper.arxiv << " §"
              << c.paper.section << (c.paper.figure.empty() ? "" : ", " + c.paper.figure) << "\n  quote: \""
              << c.paper.quote << "\"\n  reported: " << c.reported_text
              << (c.reported ? " (" + std::to_string(*c.reported) + ")" : std::string()) << "\n  measures: " << c.kind
              << " — " << c.measurement->description << "\n  parameters: " << c.params.dump()
              << "\n  on: " << c.subject.describe() << ", checkpoint " << c.stage.text() << ", seeds "
              << (c.seeds.empty() ? std::string("all") : std::to_string(c.seeds.size()))
              << "\n  rule: " << c.rule.describe()
              << (c.statistic() == analysis::Statistic::Proportion ? " (Wilson 95% interval)" : "")
              << "\n  negative control: " << control
              << (readings.empty() ? "" : "\n  the same verdict at each reading: " + readings)
              << "\n  tier: " << catalogue::tier_name(c.tier) << "\n";
    if (!c.notes.empty()) std::cout << "  notes: " << c.notes << "\n";
    return true;
  }
  return false;
}

// --sweep-as OLD=NEW[,OLD=NEW...] -> {OLD: NEW}.
std::map<std::string, std::string> parse_sweep_as(const std::string& text) {
  std::map<std::string, std::string> out;
  for (const auto& pair : split_list(text)) {
    const size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
      throw po::error("--sweep-as '" + pair + "': expected OLD=NEW");
    out[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return out;
}

// The verdicts reach the terminal first: a report that cannot be written (a full disk) must not also
// hide what was measured.
// `verify --json`: the run in one JSON object on stdout (the lines a person reads go to stderr), what a
// pipeline step parses: report.json's status, counts and baseline comparison, and each claim's verdict,
// value, interval, rule and margin.
nlohmann::json summary_json(const report::Report& rep, const std::string& report_dir) {
  const nlohmann::json full = report::to_json(rep);
  nlohmann::json out = {{"format", "claimcheck-summary/1"}, {"status", full["status"]},
                        {"counts", full["counts"]},         {"report", report_dir + "/report.json"},
                        {"wall_s", full["wall_s"]},         {"claims", nlohmann::json::array()}};
  if (full.contains("baseline")) out["baseline"] = full["baseline"];
  for (const auto& c : full["claims"]) {
    nlohmann::json row = {{"id", c["id"]}, {"file", c["file"]}, {"verdict", c["verdict"]}};
    for (const char* key : {"rule", "margin", "reason"})
      if (c.contains(key)) row[key] = c[key];
    if (c.contains("measured"))
      for (const char* key : {"value", "ci_low", "ci_high"})
        if (c["measured"].contains(key)) row[key] = c["measured"][key];
    out["claims"].push_back(std::move(row));
  }
  return out;
}

// The verdict lines on `out` (stdout, or stderr under --json), then the report's files.
void print_and_write(verify::Result& result, int jobs, const std::string& report_dir, std::ostream& out) {
  report::Report& rep = result.report;  // write_reports records the figures it drew
  const std::vector<report::Change> no_changes;
  out << report::changes_lines(rep.baseline ? rep.baseline->changes : no_changes);  // the changed rows first
  out << report::summary_lines(rep) << std::flush;
  report::write_reports(report_dir, rep);
  const auto& st = result.activations;
  std::ostringstream timing;
  timing << "measured " << jobs << " claim(s) at a time; test-set forwards: " << st.forwards << " run, " << st.hits
         << " reused; values shared across claims: " << st.derived_made << " computed, " << st.derived_hits
         << " reused; " << st.evictions << " evicted (peak " << (st.peak_bytes >> 20) << " MB kept); " << std::fixed
         << std::setprecision(1) << rep.context.wall_s << " s\n";
  out << timing.str() << "report: " << report_dir << "/REPORT.md\n";
}

// Claims not verified in this run keep their rows (while their files exist): regenerating the repro
// claims with --budget cpu updates those rows only.
void write_baseline_file(const report::Report& rep, const std::string& path, const std::string& command,
                         std::ostream& out) {
  nlohmann::json fresh = report::baseline_from_report(report::to_json(rep), report::default_tolerance(), command);
  if (fs::exists(path)) fresh = report::merge_baseline(report::read_outcomes(path), fresh);
  write_file_atomic(path, report::with_files_relative_to(fresh, path).dump(2) + "\n");  // UTF-8: made from to_json
  out << "baseline: " << path << " (review its diff before committing)\n";
}

// The exit status junit.xml agrees with (report/outcome.h): against a baseline 3 when an outcome moved;
// without one, --fail-on decides; 77 when every claim skipped.
int announced_exit_status(const report::Report& rep, std::ostream& out) {
  const int status = report::exit_status(rep);
  if (status == report::kExitBaselineChanged)
    out << rep.baseline->changes.size() << " outcome(s) differ from " << rep.baseline->file
        << "; if a change is intended, regenerate it with --write-baseline and say why in the commit\n";
  return status;
}

// verify's flags, as given.
struct VerifyFlags {
  Common common;
  std::string budget = "fixture", device = "cpu", seeds, run, rung, robustness, report_dir = default_report_dir(),
              fail_on = "any";
  std::string baseline_file, write_baseline, attribution, sweep_as, junit, claims;
  int jobs = 0, activation_mb = static_cast<int>(claims::kActivationStoreBytes >> 20);
  bool json = false;
};

void add_verify_options(po::options_description& desc, VerifyFlags& f) {
  add_common(desc, f.common);
  // One option a line, as boost::program_options reads best; clang-format 14 would join them.
  // clang-format off
  desc.add_options()
      ("budget", po::value(&f.budget), "fixture (committed checkpoints only) | cpu (may train on CPU) | gpu")
      ("device", po::value(&f.device), "cpu | cuda | cuda:N, for measuring and training")
      ("seeds", po::value(&f.seeds), "only these seeds, e.g. 0,1")
      ("run", po::value(&f.run), "measure every claim on this run of runs.yaml instead of its own (e.g. b512)")
      ("rung", po::value(&f.rung),
       "measure every claim at this rung of paper.yaml's scale ladder: its runs read in place of the committed ones "
       "(e.g. steps40k); the report is the rung's, for the main report to show beside the committed runs")
      ("sweep-as", po::value(&f.sweep_as),
       "OLD=NEW[,OLD=NEW...]: every claim on sweep OLD reads sweep NEW instead, a grid over the same axis (e.g. "
       "pair_fraction=attribution_pair_fraction)")
      ("robustness", po::value(&f.robustness),
       "also measure every run claim on each variant of this sweep (e.g. "
       "robustness): k/n seeds pass per claim and variant")
      ("attribution", po::value(&f.attribution),
       "also measure every run claim on each variant of these sweeps (comma-separated, e.g. "
       "attribution_screen,attribution_confirm,robustness) and attribute each claim the default does not support "
       "(the paper.yaml beside the runs file: the score and the rules)")
      ("claims,k", po::value(&f.claims),
       "only the claims whose id matches one of these shell patterns, comma-separated (e.g. -k 'M8*,G1'); "
       "against a baseline, only their rows are compared")
      ("junit", po::value(&f.junit),
       "also write the JUnit XML here (REPORT/junit.xml is always written); every exit writes it, a usage error or "
       "a missing input as one <error> naming it")
      ("report", po::value(&f.report_dir),
       "report directory (default reports/latest of the checkout); the claims its last report.json says took "
       "longest start first")
      ("fail-on", po::value(&f.fail_on), "any: exit 1 unless every claim passes or skips; error: only on ERROR/INVALID")
      ("baseline", po::value(&f.baseline_file),
       "compare every outcome with this baseline (papers/NAME/expected.json): exit 3 when a verdict or value moved, 0 when "
       "none did (an expected FAIL passes); replaces --fail-on")
      ("write-baseline", po::value(&f.write_baseline),
       "write this run's outcomes as a baseline file (e.g. papers/NAME/expected.json)")
      ("jobs", po::value(&f.jobs),
       "threads measuring claims at once, and a claim's seeds once no claim is left to start (--budget fixture "
       "only; default: one per usable core); every value is the same for any number")
      ("activation-memory", po::value(&f.activation_mb),
       "MB of activations kept for reuse across claims (default 2048; 0 keeps none past a claim's own request)")
      ("progress", "also training's progress (the claim lines are on unless --quiet)")
      ("quiet",
       "no line per claim on stderr; without it, each claim's line as it ends (done/total, elapsed, an estimate "
       "of the rest), on a terminal or not")
      ("json", po::bool_switch(&f.json),
       "a JSON summary on stdout, one line (a paper's, each paper's with no path): status, counts, baseline "
       "changes, each claim's verdict, value, interval, rule and margin; the lines a person reads go to stderr")
      ("strict-controls",
       "a claim none of whose negative controls could be measured (e.g. a kind that reads a training history, "
       "on the untrained model) is INVALID instead of keeping its verdict with a note");
  // clang-format on
}

// Checks that need no file read: a wrong flag costs nothing.
void check_flags(const VerifyFlags& f, const po::variables_map& vm) {
  if (f.fail_on != "any" && f.fail_on != "error") throw po::error("--fail-on " + f.fail_on + ": expected any or error");
  if (f.budget != "fixture" && f.budget != "cpu" && f.budget != "gpu")
    throw po::error("--budget " + f.budget + ": expected fixture, cpu or gpu");
  for (const auto& p : f.common.paths)
    if (!fs::exists(p)) throw po::error(p + ": no such claim file or folder");
  // A file a flag names that is not there is a wrong flag value (exit 2), as a path is.
  for (const auto& [flag, file] :
       {std::pair<std::string, std::string>{"--baseline", f.baseline_file}, {"--runs", f.common.runs_file}})
    if (!file.empty() && !fs::exists(file)) throw po::error(flag + " " + file + ": no such file");
  // --report naming a file: the report cannot be written there (exit 4, as the table says).
  if (fs::exists(f.report_dir) && !fs::is_directory(f.report_dir))
    throw WriteError("--report " + f.report_dir + ": exists and is not a folder; the report cannot be written there");
  // A fixtures folder that is not there would make every claim "not available" (all SKIPPED, exit 77).
  if (vm.count("fixtures") && !fs::is_directory(f.common.fixtures))
    throw po::error("--fixtures " + f.common.fixtures + ": no such folder");
  if (vm.count("jobs") && (f.jobs < 1 || f.jobs > 256)) throw po::error("--jobs must be in [1, 256]");
  if (f.activation_mb < 0) throw po::error("--activation-memory must be >= 0");
  // A report among trained runs would be locked twice by this process (the report, then the run folder
  // its training writes) and wait for itself; and its files would stand among checkpoints.
  std::string fixtures;
  try {
    fixtures = fixtures_dir(f.common);
  } catch (const Error&) {  // no paper found (yet): the verification itself says so
  }
  if (lies_within(f.report_dir, f.common.cache) || (!fixtures.empty() && lies_within(f.report_dir, fixtures)))
    throw po::error("--report " + f.report_dir + ": lies in the cache (" + f.common.cache +
                    ") or the fixtures folder; choose a folder of its own");
  report::check_report_dir(f.report_dir);
  if (!f.run.empty() && !f.baseline_file.empty())
    throw po::error("--baseline compares the claims on their own runs; not with --run");
  if (!f.rung.empty() && (!f.run.empty() || !f.robustness.empty() || !f.attribution.empty()))
    throw po::error("--rung measures the claims on the rung's runs; not with --run, --robustness or --attribution");
  // Training (a budget above fixture, and the reproducibility claims R1/R2) sets process-wide thread
  // counts, which the bits of every concurrent measurement depend on: it runs one claim at a time.
  if (catalogue::parse_tier(f.budget) != catalogue::Tier::Fixture && f.jobs > 1)
    throw po::error("--jobs " + std::to_string(f.jobs) +
                    " needs --budget fixture: training sets process-wide thread counts");
}

// The request the flags make (verify/verification.h).
verify::Request make_request(const VerifyFlags& f, const po::variables_map& vm, const std::vector<std::string>& args) {
  verify::Request req;
  req.claim_files = claims::find_claim_files(f.common.paths);
  if (vm.count("claims")) {
    req.claim_patterns = split_list(f.claims);
    if (req.claim_patterns.empty()) throw po::error("-k/--claims: give at least one pattern");
  }
  req.runs_path = find_runs_file(f.common.runs_file, f.common.paths);
  req.store.budget = catalogue::parse_tier(f.budget);
  req.store.device = train::parse_device(f.device);
  req.store.fixtures_dir = fixtures_dir(f.common);
  req.store.cache_dir = f.common.cache;
  req.store.progress = vm.count("progress") > 0;
  req.device = f.device;
  claims::VerifyOptions& eo = req.options;
  if (vm.count("seeds")) eo.seeds = parse_seed_list(f.seeds);  // --seeds "" is refused, not "every seed"
  eo.strict_controls = vm.count("strict-controls") > 0;
  eo.jobs = f.jobs > 0 ? f.jobs : req.store.budget == catalogue::Tier::Fixture ? usable_cores() : 1;
  // The last report there, else the paper's committed one: the longest claims start first.
  eo.last_seconds = report::claim_seconds(f.report_dir);
  if (eo.last_seconds.empty())
    if (const auto committed = catalogue::committed_report_beside(req.runs_path))
      eo.last_seconds = report::claim_seconds(committed->string());
  eo.run = f.run;
  req.rung = f.rung;
  eo.sweep_as = parse_sweep_as(f.sweep_as);
  req.activation_bytes = static_cast<size_t>(f.activation_mb) << 20;
  req.robustness = f.robustness;
  req.attribution = split_list(f.attribution);
  req.baseline_file = f.baseline_file;
  // The tolerance for scalars: exact on the reference kernels, the stated one elsewhere (report/baseline.h).
  req.platform = f.device != "cpu" ? f.device : unpinned_reason().empty() ? "cpu" : "cpu-unpinned";
  req.command = join_command("verify", args);
  req.fail_on = f.fail_on;
  // On by default, a plain line a claim, so that a CI log shows a long run moving as a terminal does.
  if (!vm.count("quiet")) {
    // Each claim's share of the work: its seconds in the last report (the longest start first, so a
    // count would overstate what is left), 1 / count where that report does not know every claim.
    auto weight = std::make_shared<std::map<std::string, double>>();
    double known = 0;
    for (const auto& file : req.claim_files) {
      const auto it = eo.last_seconds.find(claims::last_seconds_key(file));
      if (it == eo.last_seconds.end()) {
        weight->clear();
        break;
      }
      (*weight)[file] = it->second;
      known += it->second;
    }
    for (auto& [file, w] : *weight) w = known > 0 ? w / known : 1.0 / static_cast<double>(weight->size());
    const auto t0 = std::chrono::steady_clock::now();
    auto share = std::make_shared<double>(0.0);
    eo.on_done = [t0, weight, share](const claims::ClaimResult& r, size_t done, size_t total) {
      if (weight->empty()) {
        *share = static_cast<double>(done) / static_cast<double>(total);
      } else if (const auto it = weight->find(r.file); it != weight->end()) {
        *share += it->second;
      }
      std::cerr << progress_line(r, done, total, std::chrono::steady_clock::now() - t0, *share) << std::flush;
    };
  }
  return req;
}

// No path given: every paper of this checkout in turn (its exit code), or the one there is
// (f.common.paths set, -1); flags that name one paper's files need a path when there are several.
int every_paper_or_one(VerifyFlags& f, const po::variables_map& vm, const std::vector<std::string>& args) {
  bool one_paper = false;
  for (const char* o : {"runs", "fixtures", "baseline", "write-baseline", "run", "rung", "robustness", "attribution",
                        "sweep-as", "junit", "claims"})
    one_paper = one_paper || vm.count(o) > 0;
  const auto papers = paper_claim_folders();
  if (papers.size() > 1 && !one_paper) return verify_every_paper(args, papers, f.report_dir);
  if (papers.size() > 1)
    throw po::error(
        "--runs, --fixtures, --baseline, --write-baseline, --run, --rung, --robustness, --attribution, "
        "--sweep-as, --junit and -k name one paper's files or claims: give that paper's folder too");
  f.common.paths = {papers.front().string()};
  return -1;
}

}  // namespace

namespace {

// Where this run's junit.xml goes, read from the arguments as given (flags that fail to parse
// included): --junit, else REPORT/junit.xml, else the default report folder's.
std::vector<std::string> junit_paths_in(const std::vector<std::string>& args) {
  std::string report = default_report_dir(), junit;
  for (size_t i = 0; i < args.size(); ++i) {
    for (const auto& [flag, into] : {std::pair<std::string, std::string*>{"--report", &report}, {"--junit", &junit}}) {
      if (args[i] == flag && i + 1 < args.size()) *into = args[i + 1];
      if (args[i].rfind(flag + "=", 0) == 0) *into = args[i].substr(flag.size() + 1);
    }
  }
  std::vector<std::string> out = {report + "/junit.xml"};
  if (!junit.empty()) out.push_back(junit);
  return out;
}

// A run that ends before any claim is judged writes, in place of whatever junit.xml was there (an old
// green one), one that says so: best effort, since the output itself may be what failed.
void write_error_junit(const std::vector<std::string>& paths, const std::string& message, int status) {
  for (const auto& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path(), ec))
      continue;  // nowhere to write it; nothing stale there either
    try {
      write_file_atomic(path, report::junit_for_error("claimcheck verify", message, status));
    } catch (const std::exception&) {
      fs::remove(path, ec);  // at least no stale one
    }
  }
}

int verify_command(const std::vector<std::string>& args);

}  // namespace

// Every exit writes a junit.xml that says what the exit status says: a claim's outcome each where the
// claims were judged (report/outcome.h), else one <error> naming why the run stopped.
int cmd_verify(const std::vector<std::string>& args) {
  const std::vector<std::string> junit = junit_paths_in(args);
  try {
    return verify_command(args);
  } catch (const std::exception& e) {
    const int status = exit_status_for(e);
    write_error_junit(junit, (status == kExitUsage ? "usage error: " : "") + std::string(e.what()), status);
    throw;
  }
}

namespace {

int verify_command(const std::vector<std::string>& args) {
  po::options_description desc("verify options");
  VerifyFlags f;
  add_verify_options(desc, f);
  po::positional_options_description pos;
  pos.add("paths", -1);
  po::variables_map vm;
  if (!parse("verify",
             "[CLAIM FILES|DIRS|PAPER DIR] [options]\n  no path: every paper here (papers/NAME/claims), each "
             "into REPORT/NAME",
             desc, pos, args, vm))
    return kExitOk;
  if (!vm.count("paths"))
    if (const int rc = every_paper_or_one(f, vm, args); rc >= 0) return rc;
  f.common.paths = claim_paths(f.common.paths);
  check_flags(f, vm);
  const FolderLock report_lock(f.report_dir, "report folder");  // a second verify into it waits: one report, whole
  // Measured with one libtorch and one BLAS thread whatever the machine: OpenBLAS splits a product
  // differently for another thread count, and the last bits of a value follow (M4a moved by 1e-9 with
  // 2 threads against 1). So every value is the same bits on any machine, as the baseline's exact
  // comparison expects; it is also the setup every committed fixture was trained with.
  train::apply_threads(train::measurement_threads());
  const verify::Request req = make_request(f, vm, args);
  verify::Result result;
  try {
    result = verify::verify(req);
  } catch (const verify::RequestError& e) {
    throw po::error(e.what());  // a flag that names what the runs file lacks: a usage error (exit 2)
  }
  std::ostream& lines = f.json ? std::cerr : std::cout;  // under --json stdout holds the JSON alone
  print_and_write(result, req.options.jobs, f.report_dir, lines);
  if (!f.junit.empty()) write_file_atomic(f.junit, report::to_junit(result.report));
  if (!f.write_baseline.empty()) write_baseline_file(result.report, f.write_baseline, req.command, lines);
  const int status = announced_exit_status(result.report, lines);
  if (f.json) std::cout << summary_json(result.report, f.report_dir).dump() << "\n";  // one line: JSON Lines
  return status;
}

}  // namespace

int cmd_list(const std::vector<std::string>& args) {
  po::options_description desc("list options");
  Common common;
  add_common(desc, common);
  bool json = false, ctest = false;
  std::string root = ".", budget = "fixture";
  // clang-format off
  desc.add_options()
      ("json", po::bool_switch(&json), "one JSON array, an object per claim file, instead of the table")
      ("ctest", po::bool_switch(&ctest),
       "the claim tests of every paper under --root, a line each (cmake/ClaimTests.cmake reads them)")
      ("root", po::value(&root), "with --ctest: the checkout whose papers/ to list (default: .)")
      ("budget", po::value(&budget), "with --ctest: the budget of the tests (fixture | cpu | gpu)");
  // clang-format on
  po::positional_options_description pos;
  pos.add("paths", -1);
  po::variables_map vm;
  if (!parse("list", "[CLAIM FILES|DIRS|PAPER DIR] [options]\n  no path: every paper here, one after the other", desc,
             pos, args, vm))
    return kExitOk;
  if (ctest) {
    if (vm.count("paths") || json) throw po::error("--ctest lists every paper under --root: no paths, no --json");
    if (budget != "fixture" && budget != "cpu" && budget != "gpu")
      throw po::error("--budget must be fixture, cpu or gpu, not '" + budget + "'");
    return list_ctest(root, budget);
  }
  int bad = 0;
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, std::set<std::string>> papers_of_id;
  for (const auto& paths : claim_paths_by_paper(common)) {
    common.paths = paths;
    if (!json && !vm.count("paths")) std::printf("== %s\n", paths.front().c_str());
    try {
      bad += list_claims(common, json, rows, papers_of_id);
    } catch (const Error& e) {  // a broken paper (its runs.yaml, paper.yaml) is said; the others are listed
      std::cerr << "error: " << e.what() << "\n";
      ++bad;
    }
  }
  // Ids are a paper's own (ctest and junit.xml name claim.PAPER.ID), so two papers may share one; said
  // here because `explain ID` then needs the paper.
  for (const auto& [id, papers] : papers_of_id) {
    if (papers.size() < 2 || json) continue;
    std::string names;
    for (const auto& p : papers) names += (names.empty() ? "" : ", ") + p;
    std::printf("note: id %s is used by %zu papers (%s): `explain %s` needs --paths papers/NAME\n", id.c_str(),
                papers.size(), names.c_str(), id.c_str());
  }
  if (json) std::cout << rows.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";  // nor a file name
  return bad ? kExitFailure : kExitOk;
}

// An id that claims of several papers use names none of them: a usage error naming each file, so the
// user says which paper (--paths papers/NAME) instead of getting the first one found.
void refuse_ambiguous_id(const std::vector<std::vector<std::string>>& papers, const std::string& id) {
  std::vector<std::string> files;
  for (const auto& paths : papers) {
    for (const auto& f : claims::find_claim_files(paths)) {
      try {
        const YamlDoc doc = load_yaml_file(f);
        if (doc.value.is_object() && doc.value.value("id", nlohmann::json()) == id) files.push_back(f);
      } catch (const Error&) {
        // a broken file is `list`'s to report
      }
    }
  }
  if (files.size() < 2) return;
  std::string list;
  for (const auto& f : files) list += (list.empty() ? "" : ", ") + f;
  throw po::error("claim id '" + id + "' is used by " + std::to_string(files.size()) + " claim files (" + list +
                  "): give the paper, --paths papers/NAME");
}

int cmd_explain(const std::vector<std::string>& args) {
  po::options_description desc("explain options");
  Common common;
  std::string id;
  bool json = false;
  add_common(desc, common);
  desc.add_options()("id", po::value(&id)->required(), "claim id, e.g. G1");
  desc.add_options()("json", po::bool_switch(&json), "the same as one JSON object");
  po::positional_options_description pos;
  pos.add("id", 1);
  po::variables_map vm;
  if (!parse("explain", "ID [options]\n  no --paths: the claim of that id in any paper here", desc, pos, args, vm))
    return kExitOk;
  std::vector<std::string> ids;  // every id seen, for "did you mean"
  const auto papers = claim_paths_by_paper(common);
  if (papers.size() > 1) refuse_ambiguous_id(papers, id);
  for (const auto& paths : papers) {
    common.paths = paths;
    if (explain_claim(common, id, json, ids)) return kExitOk;
  }
  throw Error("no claim with id '" + id + "' under the given paths" + did_you_mean(id, ids));
}

}  // namespace cc::app
