#include "verify/verification.h"

#include <fnmatch.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "analysis/registry.h"
#include "catalogue/runs.h"
#include "claims/attribution.h"
#include "claims/claim.h"
#include "claims/paper_facts.h"
#include "claims/robustness.h"
#include "report/baseline.h"
#include "claims/ladder.h"
#include "report/cross_checks.h"
#include "report/ladder.h"
#include "train/runtime.h"
#include "util/yaml_json.h"

namespace cc::verify {
namespace fs = std::filesystem;
namespace {

// The sweeps a request names, checked against the runs file before anything is measured.
struct Sweeps {
  const catalogue::SweepSpec* robustness = nullptr;
  std::vector<const catalogue::SweepSpec*> attribution;
};

const catalogue::SweepSpec& sweep_of_variants(const catalogue::Runs& runs, const std::string& name,
                                              const std::string& flag) {
  const catalogue::SweepSpec* s = runs.find_sweep(name);
  if (!s) throw RequestError(flag + " " + name + ": no such sweep in the runs file");
  if (s->variants.empty())
    throw RequestError(flag + " " + name +
                       ": the sweep has axes, not variants (a sweep of `variants:` or a `design:`)");
  return *s;
}

Sweeps resolve_sweeps(const Request& req, const catalogue::Runs& runs) {
  if (!req.options.run.empty() && !runs.find(req.options.run))
    throw RequestError("--run " + req.options.run + ": no such run in the runs file");
  if (!req.attribution.empty() && !req.options.run.empty())
    throw RequestError("--attribution compares configurations against the claims' own runs; not with --run");
  Sweeps s;
  if (!req.robustness.empty()) s.robustness = &sweep_of_variants(runs, req.robustness, "--robustness");
  for (const auto& name : req.attribution) s.attribution.push_back(&sweep_of_variants(runs, name, "--attribution"));
  return s;
}

// The paper this is, from paper.yaml beside the runs file ({title, authors, arxiv}); null without one.
nlohmann::json paper_header(const std::string& paper_yaml) {
  if (!fs::exists(paper_yaml)) return nullptr;
  const YamlDoc doc = load_yaml_file(paper_yaml);
  if (!doc.value.contains("paper")) return nullptr;
  ObjectReader r(doc, "/paper");
  nlohmann::json p = {{"title", r.string("title")}, {"arxiv", r.string("arxiv")}};
  if (r.has("authors")) p["authors"] = r.string("authors");
  r.finish();
  return p;
}

// A cross-check is shown beside one of this paper's claims: one naming a claim the paper does not have
// would be shown nowhere, silently. Checked against every claim file of the paper (not only those
// verified now), by id or, for a file that does not load, by name.
void check_cross_check_claims(const nlohmann::json& checks, const std::string& paper_yaml) {
  if (!checks.is_array() || checks.empty()) return;
  const fs::path claims_dir = fs::path(paper_yaml).parent_path() / "claims";
  const std::vector<std::string> files = claims::find_claim_files({claims_dir.string()});
  std::set<std::string> ids;
  for (const auto& f : files) ids.insert(fs::path(f).stem().string());
  auto missing = [&] {
    for (size_t i = 0; i < checks.size(); ++i)
      if (!ids.count(checks[i].value("claim", std::string()))) return i;
    return checks.size();
  };
  // Claims are usually named after their files: load them (for their ids) only when a name is missing.
  if (missing() < checks.size()) {
    try {
      const catalogue::Runs runs = catalogue::Runs::load((fs::path(paper_yaml).parent_path() / "runs.yaml").string());
      for (const auto& f : files) {
        try {
          ids.insert(claims::load_claim(f, analysis::builtin_registry(), runs).id);
        } catch (const Error&) {  // its own ERROR row says why
        }
      }
    } catch (const Error&) {  // the verification reports the runs file itself
      return;
    }
  }
  if (const size_t i = missing(); i < checks.size())
    throw Error(paper_yaml + ": cross_checks[" + std::to_string(i) + "].claim '" +
                checks[i].value("claim", std::string()) + "': no claim of this paper (" + claims_dir.string() +
                ") has that id");
}

// What the report reads of paper.yaml: its header, cross-checks and phase windows; and the facts the
// robustness rule and the attribution need, read only when asked for (a mistake there costs no training).
std::optional<claims::PaperFacts> read_paper(const std::string& paper_yaml, bool need_facts,
                                             report::ReportContext& ctx) {
  ctx.paper = paper_header(paper_yaml);
  ctx.cross_checks = report::read_cross_checks(paper_yaml);
  check_cross_check_claims(ctx.cross_checks, paper_yaml);
  std::optional<claims::PaperFacts> facts;
  if (!fs::exists(paper_yaml)) {
    if (need_facts) facts = claims::PaperFacts::load(paper_yaml);  // the error names the missing file
    return facts;
  }
  claims::PaperFacts::check_keys(paper_yaml);
  // The attribution's section is checked whenever the file has one, not only when it is used.
  if (need_facts || load_yaml_file(paper_yaml).value.contains("attribution")) {
    facts = claims::PaperFacts::load(paper_yaml);
    ctx.phase_marks = report::phase_window_marks(*facts);
  } else {
    ctx.phase_marks = report::phase_window_marks(claims::PaperFacts::load_phases(paper_yaml));
  }
  if (!need_facts) facts.reset();
  return facts;
}

// Stages 1 and 2 (every run claim on each sweep's variants) and 3 (the sweep claims on the grids of the
// best row), then the section that attributes each claim the default run does not support.
claims::AttributionSection attribution(const Request& req, const Sweeps& sweeps, const claims::PaperFacts& facts,
                                       const std::vector<claims::ClaimResult>& on_default, const catalogue::Runs& runs,
                                       catalogue::RunStore& store, const claims::VerifyOptions& eo) {
  const auto& registry = analysis::builtin_registry();
  std::vector<claims::MeasuredSweep> measured;
  for (const auto* s : sweeps.attribution)
    measured.push_back({s, claims::run_robustness(req.claim_files, *s, registry, runs, store, eo, facts.phases)});
  const auto on_thresholds = claims::run_on_threshold_grids(req.claim_files, facts, registry, runs, store, eo);
  return claims::attribution_section(on_default, facts.default_run, measured, runs, store, facts, on_thresholds);
}

// The claim files whose id (or, for a file that does not load, its name) matches a pattern of -k.
std::vector<std::string> select_claims(const std::vector<std::string>& files, const std::vector<std::string>& patterns,
                                       const catalogue::Runs& runs) {
  if (patterns.empty()) return files;
  auto matches = [&](const std::string& name) {
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const std::string& p) { return ::fnmatch(p.c_str(), name.c_str(), 0) == 0; });
  };
  std::vector<std::string> out;
  for (const auto& f : files) {
    std::string id = fs::path(f).stem().string();
    try {
      id = claims::load_claim(f, analysis::builtin_registry(), runs).id;
    } catch (const Error&) {  // its ERROR row is the verification's to give, if the name is selected
    }
    if (matches(id)) out.push_back(f);
  }
  if (out.empty()) {
    std::string all;
    for (const auto& p : patterns) all += (all.empty() ? "" : ",") + p;
    throw RequestError("-k " + all + ": no claim id matches among " + std::to_string(files.size()) + " claim file(s)");
  }
  return out;
}

// --seeds naming a seed that no run or sweep of runs.yaml has is a mistake: every claim would be
// SKIPPED (exit 77), which a pipeline reads as "nothing to do".
void check_seeds_exist(const std::vector<uint64_t>& wanted, const catalogue::Runs& runs) {
  std::set<uint64_t> have;
  for (const auto& name : runs.names()) have.insert(runs.find(name)->seeds.begin(), runs.find(name)->seeds.end());
  for (const auto& sweep : runs.sweeps()) have.insert(sweep.seeds.begin(), sweep.seeds.end());
  for (const uint64_t seed : wanted)
    if (!have.count(seed)) {
      std::string known;
      for (const uint64_t s : have) known += (known.empty() ? "" : ", ") + std::to_string(s);
      throw Error("--seeds " + std::to_string(seed) + ": no run or sweep of " + runs.path() + " has seed " +
                  std::to_string(seed) + " (its seeds: " + known + ")");
    }
}

// --rung NAME: every claim at that rung of paper.yaml's ladder (its runs read in place of the committed
// ones), and the report says which rung it is.
void measure_at_rung(const std::vector<claims::LadderAxis>& ladder, const std::string& name,
                     const std::string& paper_yaml, claims::VerifyOptions& options, report::ReportContext& ctx) {
  const claims::Rung* rung = nullptr;
  try {
    rung = &claims::find_rung(ladder, name, paper_yaml);
  } catch (const Error& e) {
    throw RequestError(e.what());
  }
  options.run_as = rung->runs;
  ctx.rung = {
      {"axis", rung->axis}, {"name", rung->name}, {"label", rung->label}, {"paper", rung->paper}, {"runs", rung->runs}};
}

}  // namespace

Result verify(const Request& request) {
  Request req = request;  // its claim files narrowed to -k's below
  const auto t0 = std::chrono::steady_clock::now();
  if (req.claim_files.empty()) throw Error("no claim files under the given paths");
  auto runs_owned = std::make_shared<const catalogue::Runs>(catalogue::Runs::load(req.runs_path));
  const catalogue::Runs& runs = *runs_owned;
  check_seeds_exist(req.options.seeds, runs);
  req.claim_files = select_claims(req.claim_files, req.claim_patterns, runs);
  const Sweeps sweeps = resolve_sweeps(req, runs);
  const nlohmann::json baseline =
      req.baseline_file.empty() ? nlohmann::json() : report::read_outcomes(req.baseline_file);
  report::ReportContext ctx;
  const std::string paper_yaml = (fs::path(req.runs_path).parent_path() / "paper.yaml").string();
  const auto facts = read_paper(paper_yaml, sweeps.robustness || !sweeps.attribution.empty(), ctx);
  const auto ladder = claims::load_ladder(paper_yaml, runs);
  if (!req.rung.empty()) measure_at_rung(ladder, req.rung, paper_yaml, req.options, ctx);

  auto store_owned = std::make_shared<catalogue::RunStore>(runs, req.store);
  catalogue::RunStore& store = *store_owned;
  // One store for every claim of this verification (the main table, robustness, attribution): a
  // checkpoint's test-set forward runs once. Its entries die with it, at the end of this call.
  analysis::ActivationStore activations(req.activation_bytes);
  claims::VerifyOptions eo = req.options;
  eo.activations = &activations;
  const auto& registry = analysis::builtin_registry();
  auto results = claims::run_claims(req.claim_files, registry, runs, store, eo);
  // Robustness and attribution print no claim lines of their own.
  eo.on_done = nullptr;
  std::optional<claims::RobustnessSection> robustness;
  if (sweeps.robustness) {
    const auto outcomes =
        claims::run_robustness(req.claim_files, *sweeps.robustness, registry, runs, store, eo, facts->phases);
    robustness = claims::robustness_section(*sweeps.robustness, outcomes, *facts);
  }
  std::optional<claims::AttributionSection> attributed;
  if (!sweeps.attribution.empty()) attributed = attribution(req, sweeps, *facts, results, runs, store, eo);

  ctx.command = req.command;
  ctx.budget = catalogue::tier_name(req.store.budget);
  ctx.paper_name = fs::absolute(req.runs_path).lexically_normal().parent_path().filename().string();
  ctx.fail_on = req.fail_on;
  ctx.runtime = train::runtime_info();
  ctx.runtime["device"] = req.device;
  ctx.runs = &runs;
  ctx.store = &store;
  ctx.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // One typed report, complete before anything is printed or written: the files and the terminal agree.
  Result out{report::make_report(std::move(results), ctx), activations.stats(), runs_owned, store_owned};
  out.report.robustness = std::move(robustness);
  out.report.attribution = std::move(attributed);
  // The ladder beside the claims as committed: not beside claims measured on other runs or seeds.
  if (req.rung.empty() && req.options.run.empty() && req.options.seeds.empty())
    out.report.context.ladder = report::ladder_section(ladder, report::to_json(out.report)["claims"]);
  if (!baseline.is_null())
    out.report.baseline = report::compare_with_baseline(out.report, baseline, req.baseline_file, req.platform);
  return out;
}

}  // namespace cc::verify
