#include "report/report.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <sstream>

#include "report/baseline.h"
#include "report/cross_checks.h"
#include "report/ladder.h"
#include "report/figures.h"
#include "report/outcome.h"
#include "report/report_folder.h"
#include "report/attribution_md.h"
#include "report/robustness_md.h"
#include "train/run_config.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_io.h"
#include "util/provenance.h"

namespace cc::report {
namespace fs = std::filesystem;

std::string valid_utf8(const std::string& s) {
  return nlohmann::json::parse(nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .get<std::string>();
}

namespace {

std::string fmt(double v, int digits = 4) {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// How an interval over seeds was made, where it is not a 95 % interval of that claim's own (claims/stats.h):
// "range " for the seed range (2-4 seeds), "t95 " and "order-stat " from 5 seeds; "" for one seed's own
// interval and for the Wilson interval of k/n seeds.
std::string interval_tag(const nlohmann::json& measured) {
  const std::string how = measured.value("interval", "");
  if (how == "seed range") return "range ";
  if (how == "t 95 %") return "t95 ";
  if (how == "order statistics") return "order-stat ";
  return "";
}

}  // namespace

std::string fmt_value(const nlohmann::json& measured, bool proportion) {
  if (measured.is_null()) return "—";
  const double v = measured["value"], lo = measured["ci_low"], hi = measured["ci_high"];
  if (proportion) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.2f%% [%s%.2f, %.2f]", 100 * v, interval_tag(measured).c_str(), 100 * lo,
                  100 * hi);
    return buf;
  }
  if (lo == hi || std::isnan(lo)) return fmt(v);
  return fmt(v) + " [" + interval_tag(measured) + fmt(lo) + ", " + fmt(hi) + "]";
}

// Text from claim files and paper.yaml as markdown shows it, on one line and in a table cell: '|'
// escaped, and a '<' that would open an HTML tag or comment escaped too, so a title cannot put markup
// (a <script>, an <img>) into REPORT.md. "< 0.5" stays as it reads.
std::string md_escape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i], next = i + 1 < s.size() ? s[i + 1] : '\0';
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else if (c == '<' && (std::isalpha(static_cast<unsigned char>(next)) || next == '/' || next == '!' || next == '?'))
      out += "\\<";
    else
      out += c;
  }
  return out;
}

namespace {

bool is_proportion(const claims::ClaimResult& r) {
  return r.loaded && r.claim.measurement && r.claim.statistic() == analysis::Statistic::Proportion;
}

// Strings (values and keys) that are not valid UTF-8 get U+FFFD in place of the bad bytes; numbers,
// infinities included, are left as they are.
void replace_invalid_utf8(nlohmann::json& j) {
  if (j.is_string()) {
    j = valid_utf8(j.get_ref<const std::string&>());
  } else if (j.is_array()) {
    for (auto& x : j) replace_invalid_utf8(x);
  } else if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [k, v] : j.items()) {
      replace_invalid_utf8(v);
      out[valid_utf8(k)] = std::move(v);
    }
    j = std::move(out);
  }
}

// The verdicts of the paper's claims, or (positive_controls) of the positive controls, counted apart.
std::map<std::string, int> verdict_counts(const std::vector<claims::ClaimResult>& results,
                                          bool positive_controls = false) {
  std::map<std::string, int> counts;
  for (const char* v : {"PASS", "FAIL", "INCONCLUSIVE", "SKIPPED", "INVALID", "ERROR"}) counts[v] = 0;
  for (const auto& r : results)
    if ((r.loaded && r.claim.positive_control) == positive_controls) counts[claims::verdict_name(r.verdict)]++;
  return counts;
}

bool any_positive_control(const std::vector<claims::ClaimResult>& results) {
  for (const auto& r : results)
    if (r.loaded && r.claim.positive_control) return true;
  return false;
}

bool is_expected(const Report& rep, const claims::ClaimResult& r) {
  return rep.baseline && rep.baseline->expected.count(r.id) > 0;
}

// The runs the claims were measured on (a sweep's base included), by name.
std::map<std::string, const catalogue::RunSpec*> runs_used(const Report& rep) {
  std::map<std::string, const catalogue::RunSpec*> used;
  if (!rep.context.runs) return used;
  const auto add = [&](const std::string& name) {
    if (const auto* spec = rep.context.runs->find(name)) used[name] = spec;
  };
  for (const auto& r : rep.claims) {
    if (!r.loaded) continue;
    if (r.claim.subject.is_run()) add(r.claim.subject.name);
    if (r.claim.subject.is_sweep())
      if (const auto* sw = rep.context.runs->find_sweep(r.claim.subject.name)) add(sw->base);
  }
  return used;
}

// The sweeps the claims were measured on: {name: its definition and number of points}; null for none.
nlohmann::json sweeps_used(const Report& rep) {
  nlohmann::json sweeps;
  if (!rep.context.runs) return sweeps;
  for (const auto& r : rep.claims)
    if (r.loaded && r.claim.subject.is_sweep())
      if (const auto* sw = rep.context.runs->find_sweep(r.claim.subject.name)) {
        sweeps[sw->name] = sw->definition();
        sweeps[sw->name]["points"] = sw->points.size();
      }
  return sweeps;
}

// The attribution's figures as drawn ({} until drawn).
nlohmann::json attribution_figures_drawn(const Report& rep) {
  return rep.attribution_figures.is_object() ? rep.attribution_figures : nlohmann::json::object();
}

nlohmann::json claim_json(const Report& rep, size_t i) {
  const claims::ClaimResult& r = rep.claims[i];
  nlohmann::json c = claims::to_json(r);
  c["measured_is_proportion"] = is_proportion(r);
  if (is_expected(rep, r)) c["expected"] = true;
  if (i < rep.figures.size() && !rep.figures[i].empty()) c["figures"] = rep.figures[i];
  return c;
}

bool any_infinite(const std::vector<claims::ClaimResult>& claims) {
  for (const auto& r : claims)
    for (const auto& s : r.seeds)
      if (std::isinf(s.m.value)) return true;
  return false;
}

std::string seed_value_text(double v, bool proportion, int percent_digits) {
  return proportion ? fmt(100 * v, percent_digits) + "%" : fmt(v);
}

}  // namespace

std::string fmt_value(const claims::ClaimResult& r) {
  return fmt_value({{"value", r.measured},
                    {"ci_low", r.measured_ci.low},
                    {"ci_high", r.measured_ci.high},
                    {"interval", r.measured_interval}},
                   is_proportion(r));
}

nlohmann::json phase_window_marks(const claims::PaperFacts& facts) {
  nlohmann::json marks = nlohmann::json::array();
  for (const auto& w : facts.windows)
    marks.push_back({{"at", w.steps.low},
                     {"label", "paper: " + facts.phases.find(w.phase)->label + " " + std::to_string(w.steps.low)}});
  return marks;
}

Report make_report(std::vector<claims::ClaimResult> results, ReportContext context) {
  Report rep;
  rep.context = std::move(context);
  rep.generated = utc_now_iso8601();
  rep.claims = std::move(results);
  return rep;
}

BaselineComparison compare_with_baseline(const Report& report, const nlohmann::json& baseline, const std::string& file,
                                         const std::string& platform) {
  BaselineComparison b{file, platform, {}, {}};
  std::set<std::string> ids;
  for (const auto& r : report.claims) ids.insert(r.id);
  // Compared as report.json holds it: JSON has no infinity or NaN (both are written as null), so an
  // infinite threshold (G7: no grid value reaches the level) reads back as null from the baseline.
  b.changes =
      compare_outcomes(baseline, nlohmann::json::parse(to_json(report).dump()), tolerance_for(baseline, platform), ids);
  // An expected failure: the baseline records this claim with the same FAIL or INCONCLUSIVE verdict.
  std::map<std::string, std::string> recorded;
  for (const auto& c : baseline.at("claims")) {
    recorded[c["id"]] = c["verdict"];
    b.not_run += ids.count(c["id"].get<std::string>()) == 0;
  }
  for (const auto& r : report.claims) {
    const auto it = recorded.find(r.id);
    const std::string v = claims::verdict_name(r.verdict);
    if (it != recorded.end() && it->second == v && v != "PASS" && v != "SKIPPED") b.expected.insert(r.id);
  }
  return b;
}

nlohmann::json to_json(const Report& rep) {
  const ReportContext& ctx = rep.context;
  nlohmann::json j;
  j["format"] = kReportFormat;
  j["title"] = ctx.title;
  if (ctx.paper.is_object()) j["paper"] = ctx.paper;
  j["generated"] = rep.generated;
  j["command"] = ctx.command;
  j["budget"] = ctx.budget;
  j["wall_s"] = ctx.wall_s;
  j["runtime"] = ctx.runtime;
  j["claims"] = nlohmann::json::array();
  for (size_t i = 0; i < rep.claims.size(); ++i) j["claims"].push_back(claim_json(rep, i));
  j["counts"] = verdict_counts(rep.claims);
  // What the run's exit status says, for a pipeline that reads this file rather than the status.
  const int status = exit_status(rep);
  j["status"] = {{"exit", status},
                 {"outcome", status == 0    ? "ok"
                             : status == 3  ? "changed from the baseline"
                             : status == 77 ? "all skipped"
                                            : "failed"}};
  if (any_positive_control(rep.claims)) j["positive_control_counts"] = verdict_counts(rep.claims, true);
  if (auto sweeps = sweeps_used(rep); !sweeps.is_null()) j["sweeps"] = std::move(sweeps);
  for (const auto& [name, spec] : runs_used(rep)) {
    nlohmann::json run = {
        {"seeds", spec->seeds}, {"config_hash", spec->config.weights_hash()}, {"config", spec->config.to_json()}};
    for (const auto& u : train::unstated_choices(spec->config))
      run["unstated"].push_back({{"key", u.key}, {"value", u.value}, {"note", u.note}});
    j["runs"][name] = run;
  }
  if (ctx.store) j["provenance"] = ctx.store->provenance();
  if (rep.robustness) j["robustness"] = claims::to_json(*rep.robustness);
  if (rep.attribution) {
    j["attribution"] = claims::to_json(*rep.attribution);
    j["attribution"]["figures"] = attribution_figures_drawn(rep);
  }
  if (ctx.cross_checks.is_array() && !ctx.cross_checks.empty()) j["cross_checks"] = ctx.cross_checks;
  if (ctx.rung.is_object()) j["rung"] = ctx.rung;
  if (ctx.ladder.is_array() && !ctx.ladder.empty()) j["ladder"] = ctx.ladder;
  if (rep.baseline)
    j["baseline"] = {{"file", rep.baseline->file},
                     {"platform", rep.baseline->platform},
                     {"changes", changes_json(rep.baseline->changes)}};
  // Every string is UTF-8 from here on: a byte that is not (from a file read past its loader's
  // checks, or an error message quoting one) becomes U+FFFD instead of aborting the report after
  // every claim was measured.
  replace_invalid_utf8(j);
  return j;
}

namespace {

// The markdown report, section by section (to_markdown below puts them in order).

void md_header(std::ostream& md, const Report& rep) {
  const ReportContext& ctx = rep.context;
  md << "# " << md_escape(ctx.title) << "\n\n";
  if (ctx.paper.is_object())
    md << "Paper: *" << md_escape(ctx.paper.value("title", "")) << "*" << (ctx.paper.contains("authors") ? ", " : "")
       << md_escape(ctx.paper.value("authors", "")) << " (arXiv " << md_escape(ctx.paper.value("arxiv", "")) << "). ";
  md << "Generated " << rep.generated << " by `" << ctx.command << "` (budget `" << ctx.budget << "`, "
     << fmt(ctx.wall_s, 3) << " s).\n\n";
  if (ctx.rung.is_object()) {
    md << "**Rung " << md_escape(ctx.rung.value("label", "")) << "** of the scale ladder's axis `"
       << md_escape(ctx.rung.value("axis", "")) << "`" << (ctx.rung.value("paper", false) ? " (the paper's scale)" : "")
       << ": every claim as written, with";
    for (const auto& [from, to] : ctx.rung["runs"].items())
      md << " run `" << md_escape(from) << "` read as `" << md_escape(to.get<std::string>()) << "`;";
    md << " the main report shows it beside the committed runs.\n\n";
  }
}

// What moved since the baseline comes first: it is what a pull request's reviewer needs.
void md_changes(std::ostream& md, const Report& rep) {
  md << "## Changes from the baseline\n\n";
  if (rep.baseline) {
    const auto& b = *rep.baseline;
    md << "Compared with `" << b.file << "` (the tolerance of platform `" << b.platform << "`"
       << (b.not_run > 0 ? "; " + std::to_string(b.not_run) + " of its claims not run here, not compared" : "")
       << "): ";
    if (b.changes.empty()) {
      md << "none.\n\n";
    } else {
      md << b.changes.size()
         << " change(s).\n\n| claim | change | before | after | detail |\n| --- | --- | --- | --- | --- |\n";
      for (const auto& c : b.changes)
        md << "| " << md_escape(c.id) << " | **" << c.kind << "** | " << md_escape(c.before) << " | "
           << md_escape(c.after) << " | " << md_escape(c.detail) << " |\n";
      md << "\n";
    }
  } else {
    md << "not compared (`claimcheck verify --baseline FILE` compares, FILE the paper's expected.json).\n\n";
  }
}

void md_summary(std::ostream& md, const Report& rep) {
  const bool positives = any_positive_control(rep.claims);
  md << "## Summary\n\n| verdict | claims |" << (positives ? " positive controls |" : "") << "\n| --- | --- |"
     << (positives ? " --- |" : "") << "\n";
  const auto counts = verdict_counts(rep.claims), positive = verdict_counts(rep.claims, true);
  for (const char* v : {"PASS", "FAIL", "INCONCLUSIVE", "SKIPPED", "INVALID", "ERROR"})
    md << "| " << v << " | " << counts.at(v) << " |" << (positives ? " " + std::to_string(positive.at(v)) + " |" : "")
       << "\n";
  if (positives)
    md << "\nA positive control is not a claim of this paper: it checks that a measurement finds a mechanism where "
          "it is known to exist (its file says which measurement and why), and is counted apart.\n";
}

void md_claims_table(std::ostream& md, const Report& rep) {
  md << "\n## Claims\n\n"
        "measured: the mean over the seeds measured (the median under a median rule), with an interval that says "
        "what it is. One seed: that seed's own 95 % interval (Wilson for an accuracy). **range**: 2 to 4 seeds, "
        "[lowest, highest]; not a 95 % interval: it covers the median of the distribution the seeds come from with "
        "probability 1 − 2^(1−n), 75 % for 3 seeds, 87.5 % for 4, whatever that distribution. **t95**: 5 or more "
        "seeds, the Student t interval of the mean, 95 % when the seeds' values are normal. **order-stat**: 5 or "
        "more seeds under a median rule, [x₍k₎, x₍n+1−k₎] with the largest k that covers the median with "
        "probability ≥ 95 % (93.75 % with 5 seeds), whatever the distribution. A rule on k of n seeds: the Wilson "
        "95 % interval of k/n. tests/test_stats.cpp checks each coverage by simulation. Per seed: each seed's value "
        "and verdict, judged by its own interval. **margin**: the measured value's distance from the threshold in "
        "units of its whole uncertainty (the interval over seeds, the seeds' own evaluation intervals and the "
        "other evaluation draws, combined in quadrature; claims::claim_margin): positive on the passing side, "
        "beyond ±1 clear of the threshold, between them within reach of it; — where no uncertainty was "
        "measured (an exact value).\n\n"
        "| id | § | claim | paper | measured [interval] | per seed | rule | margin | verdict |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& r : rep.claims) {
    const bool prop = is_proportion(r);
    md << "| " << md_escape(r.id) << " | " << (r.loaded ? md_escape(r.claim.paper.section) : "") << " | "
       << (r.loaded ? md_escape(r.claim.title) : "(file did not load)") << " | "
       << (r.loaded ? md_escape(r.claim.reported_text) : "") << " | " << (r.seeds.empty() ? "—" : fmt_value(r))
       << " | ";
    for (const auto& sd : r.seeds)
      md << "s" << sd.seed << ": " << seed_value_text(sd.m.value, prop, 4) << " " << claims::verdict_name(sd.verdict)
         << "<br>";
    md << " | " << (r.loaded ? md_escape(r.claim.rule.describe()) : "") << " | " << (r.margin ? fmt(*r.margin, 3) : "—")
       << " | **" << claims::verdict_name(r.verdict) << "**"
       << (is_expected(rep, r) ? " (expected: in the baseline)" : "")
       << (depends_on_scale(rep.context.ladder, r.id) ? " (depends on the scale: see Scale ladder)" : "") << " |\n";
  }
  if (any_infinite(rep.claims))
    md << "\n**inf**: the value is not reached within the measured grid (a threshold kind: no grid value "
          "holds the level; the claim's section below shows the curve).\n";
}

// Each structural claim beside the causal claims that test its mechanism (`companion_of`): what the
// structure reads, and what removing the mechanism does.
void md_causal(std::ostream& md, const Report& rep) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const claims::ClaimResult*>> companions;
  for (const auto& r : rep.claims)
    if (r.loaded)
      for (const auto& id : r.claim.companion_of) {
        if (!companions.count(id)) order.push_back(id);
        companions[id].push_back(&r);
      }
  if (order.empty()) return;
  md << "\n## Structure and cause\n\nA structural claim reads a pattern in the weights or activations; its causal "
        "companions remove or replace the mechanism (`measure.intervene`) and measure the behaviour. A structure "
        "INVALID (present in a model without the behaviour) is decided by its companions.\n\n"
        "| structural claim | its verdict | causal companion | what it measures | measured | verdict |\n"
        "| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& id : order) {
    const auto it = std::find_if(rep.claims.begin(), rep.claims.end(), [&](const auto& r) { return r.id == id; });
    const std::string verdict = it == rep.claims.end() ? "not measured here" : claims::verdict_name(it->verdict);
    for (const auto* c : companions[id])
      md << "| " << md_escape(id) << " | " << verdict << " | " << md_escape(c->id) << " | " << md_escape(c->claim.title)
         << " | " << (c->seeds.empty() ? "—" : fmt_value(*c)) << " | **" << claims::verdict_name(c->verdict)
         << "** |\n";
  }
}

// A seed per row: its step, value, n, own 95 % interval (where the kind gives one: a value computed
// exactly, with no sampling, has none) and verdict.
void md_seed_table(std::ostream& md, const std::vector<claims::SeedResult>& rows, bool prop) {
  md << "| seed | step | value | n | 95% interval | verdict |\n| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& s : rows) {
    const bool has_interval = s.ci.low != s.ci.high;
    md << "| " << s.seed << " | " << s.step << " | " << seed_value_text(s.m.value, prop, 5) << " | " << s.m.n << " | "
       << (!has_interval ? std::string("— (none: computed, not sampled)")
           : prop        ? "[" + fmt(100 * s.ci.low, 4) + ", " + fmt(100 * s.ci.high, 4) + "]"
                         : "[" + fmt(s.ci.low) + ", " + fmt(s.ci.high) + "]")
       << " | " << claims::verdict_name(s.verdict) << " |\n";
  }
  md << "\n";
}

// A sweep claim's curves (details.curve: [{x, n, correct}]): one column per seed, Wilson 95 % CIs.
void md_curve(std::ostream& md, const claims::ClaimResult& r) {
  if (!r.seeds.empty() && r.seeds[0].m.details.contains("curve")) {
    const auto& d0 = r.seeds[0].m.details;
    md << "Final accuracy on `" << d0.value("set", "?") << "` along `" << d0.value("axis", "?") << "`:\n\n| "
       << d0.value("axis", "x");
    for (const auto& sd : r.seeds) md << " | seed " << sd.seed;
    md << " |\n| ---";
    for (size_t k = 0; k < r.seeds.size(); ++k) md << " | ---";
    md << " |\n";
    const auto& first = d0["curve"];
    for (size_t p = 0; p < first.size(); ++p) {
      md << "| " << fmt(first[p]["x"].get<double>());
      for (const auto& sd : r.seeds) {
        const auto& pt = sd.m.details["curve"][p];
        const auto ci = claims::wilson(pt["correct"].get<int64_t>(), pt["n"].get<int64_t>());
        md << " | " << fmt(100 * pt["accuracy"].get<double>(), 4) << "% [" << fmt(100 * ci.low, 4) << ", "
           << fmt(100 * ci.high, 4) << "]";
      }
      md << " |\n";
    }
    md << "\n";
  }
}

// Figures drawn from the measurement's data (report/figures.h), captioned with the paper's figure: the
// report's paper's, or another's (a claim whose paper.arxiv is not the report's, e.g. a positive
// control quoting the paper it controls for) named by its arXiv id.
void md_figures(std::ostream& md, const Report& rep, size_t i) {
  if (i >= rep.claims.size() || i >= rep.figures.size()) return;
  const auto& r = rep.claims[i];
  const std::string own = rep.context.paper.is_object() ? rep.context.paper.value("arxiv", "") : "";
  const std::string other =
      r.loaded && !r.claim.paper.arxiv.empty() && r.claim.paper.arxiv != own ? r.claim.paper.arxiv : "";
  for (const auto& f : rep.figures[i]) {
    const std::string paper = f.value("paper_figure", "");
    const std::string caption = f.value("caption", "") + (paper.empty()   ? ""
                                                          : other.empty() ? " — cf. the paper's " + paper
                                                                          : " — cf. " + paper + " of arXiv " + other);
    if (f.contains("file"))
      md << "![" << md_escape(caption) << "](" << f["file"].get<std::string>() << ")\n\n*" << md_escape(caption)
         << ".*\n\n";
    else if (f.contains("text"))
      md << "Figure (" << md_escape(caption) << "): not drawn, " << md_escape(f["text"].get<std::string>()) << ".\n\n";
    else
      md << "Figure not rendered (" << md_escape(caption) << "): " << md_escape(f.value("error", "")) << "\n\n";
  }
}

// Numbers a claim reports without judging them (details.unthresholded: {label: value}).
void md_unthresholded(std::ostream& md, const claims::ClaimResult& r) {
  for (const auto& s : r.seeds) {
    if (!s.m.details.contains("unthresholded")) continue;
    md << "Reported without a threshold, seed " << s.seed << ": ";
    bool first = true;
    for (const auto& [label, value] : s.m.details["unthresholded"].items()) {
      md << (first ? "" : "; ") << label << " = " << (value.is_number() ? fmt(value.get<double>()) : value.dump());
      first = false;
    }
    md << "\n\n";
  }
}

// The reading's free constants (`sensitivity:`): each value's verdict beside the committed one's.
void md_readings(std::ostream& md, const claims::ClaimResult& r, bool prop) {
  const claims::Claim& c = r.claim;
  if (c.sensitivity.empty() || r.seeds.empty()) return;
  md << "Readings (constants the paper leaves open; the rule must give one verdict at each):\n\n"
     << "| constant | value | verdict | measured | why this range |\n| --- | --- | --- | --- | --- |\n";
  for (size_t k = 0; k < c.sensitivity.size(); ++k) {
    const claims::Sensitivity& s = c.sensitivity[k];
    md << "| `" << s.at << "` | " << md_escape(s.committed.dump()) << " (committed) | "
       << claims::verdict_name(r.first_verdict) << " | " << fmt(r.measured, prop ? 4 : 6) << " | " << md_escape(s.why)
       << " |\n";
    for (const auto& reading : r.readings)
      if (reading.constant == k)
        md << "| `" << s.at << "` | " << md_escape(s.values[reading.value].dump()) << " | "
           << claims::verdict_name(reading.verdict) << " | " << fmt(reading.measured, prop ? 4 : 6) << " | |\n";
  }
  md << "\n";
}

// One claim's section: the paper's words, what was measured, each seed, each control, curves, figures.
void md_claim_detail(std::ostream& md, const Report& rep, size_t i) {
  const claims::ClaimResult& r = rep.claims[i];
  md << "\n### " << r.id << " — " << claims::verdict_name(r.verdict) << "\n\n";
  if (!r.loaded) {
    md << "`" << r.file << "`: " << md_escape(r.reason) << "\n";
    return;
  }
  const claims::Claim& c = r.claim;
  md << "**" << md_escape(c.title) << "** (`" << r.file << "`)\n\n";
  md << "> " << md_escape(c.paper.quote) << " — §" << c.paper.section;
  if (!c.paper.figure.empty()) md << ", " << c.paper.figure;
  md << "\n\n";
  md << "Measured: `" << c.kind << "` " << c.params.dump()
     << (c.subject.is_theory()  ? " on the theory model `" + c.subject.name + "` (no training)"
         : c.subject.is_sweep() ? " on sweep `" + c.subject.name + "`, checkpoint `" + c.stage.text() + "`"
                                : " on run `" + c.subject.name + "`, checkpoint `" + c.stage.text() + "`")
     << ". Rule: " << c.rule.describe() << ".\n\n";
  if (!r.reason.empty()) md << "Why: " << md_escape(r.reason) << "\n\n";
  const bool prop = is_proportion(r);
  if (!r.seeds.empty()) md_seed_table(md, r.seeds, prop);
  md_readings(md, r, prop);
  if (!c.control_none_reason.empty()) md << "Negative control: none (" << md_escape(c.control_none_reason) << ").\n\n";
  for (const auto& cr : r.controls) {
    md << "Negative control `" << md_escape(cr.control.text()) << "`"
       << (cr.control.params            ? " (the same computation with these parameters)"
           : !cr.control.run.empty()    ? " (a trained model that should lack the mechanism, on its own seeds)"
           : cr.control.stage.is_init() ? " (the untrained model)"
                                        : "")
       << ":\n\n";
    if (!cr.unavailable.empty()) md << "Control unavailable: " << md_escape(cr.unavailable) << "\n\n";
    if (!cr.seeds.empty()) md_seed_table(md, cr.seeds, prop);
  }
  md_curve(md, r);
  md_figures(md, rep, i);
  md_unthresholded(md, r);
}

void md_sweeps(std::ostream& md, const Report& rep) {
  if (const auto sweeps = sweeps_used(rep); !sweeps.is_null()) {
    md << "\n## Sweeps\n\n| sweep | base run | axes | seeds | points | set on every point |\n| --- | --- | --- | --- | "
          "--- | --- |\n";
    for (const auto& [name, sw] : sweeps.items()) {
      std::string axes;
      for (const auto& a : sw["axes"])
        axes += (axes.empty() ? "" : "; ") + a["key"].get<std::string>() + " ∈ " + a["values"].dump();
      md << "| `" << name << "` | `" << sw["base"].get<std::string>() << "` | " << md_escape(axes) << " | "
         << sw["seeds"].dump() << " | " << sw["points"] << " | " << md_escape(sw["set"].dump()) << " |\n";
    }
  }
}

void md_runs(std::ostream& md, const Report& rep) {
  const auto runs = runs_used(rep);
  if (!runs.empty()) {
    md << "\n## Runs and the paper's unstated choices\n";
    for (const auto& [name, spec] : runs) {
      md << "\n### run `" << name << "` (seeds " << nlohmann::json(spec->seeds).dump() << ", config_hash `"
         << spec->config.weights_hash() << "`)\n\n| choice | value | note |\n| --- | --- | --- |\n";
      for (const auto& u : train::unstated_choices(spec->config))
        md << "| " << md_escape(u.key) << " | " << md_escape(u.value) << " | " << md_escape(u.note) << " |\n";
    }
  }
}

void md_provenance(std::ostream& md, const Report& rep) {
  const ReportContext& ctx = rep.context;
  md << "\n## Provenance\n\n| | |\n| --- | --- |\n";
  for (const auto& [k, v] : ctx.runtime.items())
    md << "| " << k << " | " << md_escape(v.is_string() ? v.get<std::string>() : v.dump()) << " |\n";
  const nlohmann::json provenance = ctx.store ? nlohmann::json(ctx.store->provenance()) : nlohmann::json();
  if (!provenance.is_null()) {
    md << "\n| run / seed | checkpoints from | latest step read | training wall time to it | trained with |\n"
       << "| --- | --- | --- | --- | --- |\n";
    for (const auto& [k, v] : provenance.items()) {
      const auto& rt = v["runtime"];
      md << "| " << k << " | `" << v["dir"].get<std::string>() << "` | " << v.value("step", int64_t{-1}) << " | "
         << fmt(v["train_wall_s"].get<double>(), 4) << " s | " << md_escape(v.value("device", std::string()))
         << (rt.is_object() ? md_escape(", libtorch " + rt.value("libtorch", "") + ", " +
                                        rt.value("build_commit", rt.value("git_commit", std::string())))
                            : "")
         << " |\n";
    }
  }
}

}  // namespace

std::string to_markdown(const Report& rep) {
  std::ostringstream md;
  md_header(md, rep);
  md_changes(md, rep);
  md_summary(md, rep);
  md_claims_table(md, rep);
  md_causal(md, rep);
  const ReportContext& ctx = rep.context;
  if (ctx.cross_checks.is_array() && !ctx.cross_checks.empty()) md << cross_checks_markdown(ctx.cross_checks);
  md << ladder_markdown(ctx.ladder);
  if (rep.robustness) md << robustness_markdown(*rep.robustness);
  if (rep.attribution) md << attribution_markdown(*rep.attribution, attribution_figures_drawn(rep));

  md << "\n## Details\n";
  for (size_t i = 0; i < rep.claims.size(); ++i) md_claim_detail(md, rep, i);
  md_sweeps(md, rep);
  md_runs(md, rep);
  md_provenance(md, rep);
  return valid_utf8(md.str());
}

std::string summary_lines(const Report& rep) {
  std::ostringstream s;
  for (const auto& r : rep.claims) {
    // Padded columns; an id longer than its column (a file that did not load) is written whole.
    std::string head = claims::verdict_name(r.verdict);
    head.resize(std::max<size_t>(head.size(), 12), ' ');
    std::string id = r.id;
    id.resize(std::max<size_t>(id.size(), 8), ' ');
    s << head << " " << id << " ";
    if (!r.seeds.empty()) s << fmt_value(r) << "  (" << r.claim.rule.describe() << ")";
    if (!r.reason.empty()) s << (r.seeds.empty() ? "" : "  ") << r.reason;
    if (is_expected(rep, r)) s << "  [expected: in the baseline]";
    s << "\n";
  }
  // One line to end on, as pytest's: how many of each verdict, and whether the baseline held.
  const auto counts = verdict_counts(rep.claims);
  const char* sep = "";
  for (const char* v : {"PASS", "FAIL", "INCONCLUSIVE", "SKIPPED", "INVALID", "ERROR"}) {
    s << sep << counts.at(v) << " " << v;
    sep = ", ";
  }
  if (any_positive_control(rep.claims)) {
    s << "; positive controls:";
    for (const auto& [v, n] : verdict_counts(rep.claims, true))
      if (n > 0) s << " " << n << " " << v;
  }
  if (rep.baseline) {
    const size_t changed = rep.baseline->changes.size();
    s << "; against " << rep.baseline->file << ": "
      << (changed == 0 ? std::string("no change") : std::to_string(changed) + " change(s)");
    if (rep.baseline->not_run > 0) s << " (" << rep.baseline->not_run << " of its claims not run here)";
  }
  s << "\n";
  return valid_utf8(s.str());
}

std::map<std::string, double> claim_seconds(const std::string& dir) {
  constexpr size_t kMaxReportBytes = size_t{64} << 20;  // Assign and Add's, with every detail: 10 MB
  std::map<std::string, double> out;
  const std::string path = dir + "/report.json";
  try {
    if (!fs::is_regular_file(path)) return out;
    const auto rep = nlohmann::json::parse(read_regular_file(path, kMaxReportBytes, "report"), nullptr, false);
    if (!rep.is_object() || !rep.contains("claims") || !rep["claims"].is_array()) return out;
    for (const auto& c : rep["claims"])
      if (c.is_object() && c.contains("file") && c["file"].is_string() && c.contains("seconds") &&
          c["seconds"].is_number())
        out[claims::last_seconds_key(c["file"].get<std::string>())] = c["seconds"].get<double>();
  } catch (const std::exception&) {
    out.clear();  // unreadable: no hint
  }
  return out;
}

namespace {

// Moves every `details.figures` (the series a kind's figures are drawn from: 90 % of Assign and Add's
// report) out of REPORT into the returned object, keyed by the JSON pointer where it stood, so that the
// report.json that diff, --baseline and cross-checks read stays small and details.json puts it back.
nlohmann::json split_figure_data(nlohmann::json& node,
                                 const nlohmann::json::json_pointer& at = nlohmann::json::json_pointer()) {
  nlohmann::json moved = nlohmann::json::object();
  auto merge = [&](nlohmann::json more) {
    for (auto& [ptr, v] : more.items()) moved[ptr] = std::move(v);
  };
  if (node.is_object()) {
    if (!at.empty() && at.back() == "details" && node.contains("figures")) {
      moved[(at / "figures").to_string()] = std::move(node["figures"]);
      node.erase("figures");
    }
    for (auto& [key, v] : node.items()) merge(split_figure_data(v, at / key));
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) merge(split_figure_data(node[i], at / i));
  }
  return moved;
}

// Every file of the report into DIR, an empty folder: figures/ (this report's only), report.json,
// details.json (the figures' data), REPORT.md and junit.xml.
// The scale ladder's figures, each set as its claim's "figure" in the section (report/ladder.h).
void draw_ladder_figures(const std::string& dir, nlohmann::json& ladder) {
  const std::vector<FigureJob> jobs = ladder_figure_jobs(ladder);
  if (jobs.empty()) return;
  const std::vector<nlohmann::json> drawn = render_figures(dir, jobs);
  std::map<std::string, nlohmann::json> by_file;
  for (size_t i = 0; i < jobs.size(); ++i) by_file[jobs[i].rel] = drawn[i];
  for (auto& axis : ladder)
    for (auto& claim : axis["claims"]) {
      const std::string rel =
          "figures/ladder-" + axis["axis"].get<std::string>() + "-" + claim["id"].get<std::string>() + ".png";
      if (const auto it = by_file.find(rel); it != by_file.end()) claim["figure"] = it->second;
    }
}

void write_report_files(const std::string& dir, Report& rep) {
  // Drawn from each claim as report.json holds it (its strings made valid UTF-8: the ids name files),
  // every claim's figures at once (one gnuplot process).
  std::vector<FigureJob> jobs;
  std::vector<size_t> first_job(rep.claims.size() + 1, 0);  // claim i's jobs: [first_job[i], first_job[i + 1])
  for (size_t i = 0; i < rep.claims.size(); ++i) {
    nlohmann::json claim = claims::to_json(rep.claims[i]);
    replace_invalid_utf8(claim);
    for (auto& job : claim_figure_jobs(claim, rep.context.phase_marks)) jobs.push_back(std::move(job));
    first_job[i + 1] = jobs.size();
  }
  const std::vector<nlohmann::json> drawn = render_figures(dir, jobs);
  rep.figures.assign(rep.claims.size(), nlohmann::json::array());
  for (size_t i = 0; i < rep.claims.size(); ++i)
    for (size_t j = first_job[i]; j < first_job[i + 1]; ++j) rep.figures[i].push_back(drawn[j]);
  if (rep.attribution) rep.attribution_figures = attribution_figures(dir, *rep.attribution);
  draw_ladder_figures(dir, rep.context.ladder);
  nlohmann::json report = to_json(rep);  // its strings are UTF-8
  const nlohmann::json figure_data = {
      {"format", kReportDetailsFormat}, {"report", "report.json"}, {"details", split_figure_data(report)}};
  write_file_atomic(dir + "/report.json", report.dump(2) + "\n");
  write_file_atomic(dir + "/details.json", figure_data.dump(1) + "\n");
  write_file_atomic(dir + "/REPORT.md", to_markdown(rep));
  write_file_atomic(dir + "/junit.xml", to_junit(rep));
}

}  // namespace

void check_report_dir(const std::string& dir) {
  // The path reaches gnuplot's `set output '...'`, where a control character cannot stand (it would
  // end the command): the figures would go elsewhere than the report links. No folder needs one.
  for (const char ch : dir)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
      throw Error(
          "--report: the path holds a control character (a newline, tab or escape); choose a plain folder name");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("--report " + dir + ": cannot create the report directory (" + ec.message() + ")");
  if (!fs::is_directory(dir)) throw Error("--report " + dir + ": exists and is not a directory");
  std::string probe = dir + "/.write-test-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) throw Error("--report " + dir + ": cannot write there (" + std::strerror(errno) + ")");
  ::close(fd);
  fs::remove(probe, ec);
}

// The report made complete in a staging folder inside DIR, then installed (report/report_folder.h):
// an interrupted write leaves the old report whole, and no file is written through a link.
void write_reports(const std::string& dir, Report& rep) {
  check_report_dir(dir);
  const std::string stage = begin_report(dir);
  try {
    write_report_files(stage, rep);
  } catch (...) {
    abandon_report(stage);
    throw;
  }
  commit_report(dir, stage);
}

}  // namespace cc::report
