#include "report/report.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "report/baseline.h"
#include "report/cross_checks.h"
#include "report/figures.h"
#include "report/attribution_md.h"
#include "report/robustness_md.h"
#include "train/run_config.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/provenance.h"

namespace cc::report {
namespace fs = std::filesystem;
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

namespace {

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

bool is_proportion(const nlohmann::json& claim) {
  return claim.contains("measured_is_proportion") && claim["measured_is_proportion"].get<bool>();
}

// Strings (values and keys) that are not valid UTF-8 get U+FFFD in place of the bad bytes; numbers,
// infinities included, are left as they are.
void replace_invalid_utf8(nlohmann::json& j) {
  const auto fixed = [](const std::string& s) {
    return nlohmann::json::parse(nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        .get<std::string>();
  };
  if (j.is_string()) {
    j = fixed(j.get_ref<const std::string&>());
  } else if (j.is_array()) {
    for (auto& x : j) replace_invalid_utf8(x);
  } else if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [k, v] : j.items()) {
      replace_invalid_utf8(v);
      out[fixed(k)] = std::move(v);
    }
    j = std::move(out);
  }
}

}  // namespace

nlohmann::json report_json(const std::vector<claims::ClaimResult>& results, const ReportContext& ctx) {
  nlohmann::json j;
  j["format"] = kReportFormat;
  j["title"] = ctx.title;
  if (ctx.paper.is_object()) j["paper"] = ctx.paper;
  j["generated"] = utc_now_iso8601();
  j["command"] = ctx.command;
  j["budget"] = ctx.budget;
  j["wall_s"] = ctx.wall_s;
  j["runtime"] = ctx.runtime;
  std::map<std::string, int> counts;
  for (const char* v : {"PASS", "FAIL", "INCONCLUSIVE", "SKIPPED", "INVALID", "ERROR"}) counts[v] = 0;
  std::map<std::string, bool> runs_used;
  for (const auto& r : results) {
    auto c = claims::to_json(r);
    c["measured_is_proportion"] = r.loaded && r.claim.measurement->statistic == analysis::Statistic::Proportion;
    j["claims"].push_back(c);
    counts[claims::verdict_name(r.verdict)]++;
    if (r.loaded && r.claim.subject.is_run()) runs_used[r.claim.subject.name] = true;
    if (r.loaded && r.claim.subject.is_sweep() && ctx.runs)
      if (const auto* sw = ctx.runs->find_sweep(r.claim.subject.name)) {
        j["sweeps"][sw->name] = sw->definition();
        j["sweeps"][sw->name]["points"] = sw->points.size();
        runs_used[sw->base] = true;
      }
  }
  j["counts"] = counts;
  if (ctx.runs) {
    for (const auto& [name, _] : runs_used) {
      const catalogue::RunSpec* spec = ctx.runs->find(name);
      if (!spec) continue;
      nlohmann::json run = {
          {"seeds", spec->seeds}, {"config_hash", spec->config.weights_hash()}, {"config", spec->config.to_json()}};
      for (const auto& u : train::unstated_choices(spec->config))
        run["unstated"].push_back({{"key", u.key}, {"value", u.value}, {"note", u.note}});
      j["runs"][name] = run;
    }
  }
  if (ctx.store) j["provenance"] = ctx.store->provenance();
  if (!ctx.robustness.is_null()) j["robustness"] = ctx.robustness;
  if (!ctx.attribution.is_null()) j["attribution"] = ctx.attribution;
  if (ctx.cross_checks.is_array() && !ctx.cross_checks.empty()) j["cross_checks"] = ctx.cross_checks;
  // Every string is UTF-8 from here on: a byte that is not (from a file read past its loader's
  // checks, or an error message quoting one) becomes U+FFFD instead of aborting the report after
  // every claim was measured.
  replace_invalid_utf8(j);
  return j;
}

std::string report_markdown(const nlohmann::json& rep) {
  std::ostringstream md;
  md << "# " << rep["title"].get<std::string>() << "\n\n";
  if (rep.contains("paper"))
    md << "Paper: *" << rep["paper"].value("title", "") << "*" << (rep["paper"].contains("authors") ? ", " : "")
       << rep["paper"].value("authors", "") << " (arXiv " << rep["paper"].value("arxiv", "") << "). ";
  md << "Generated " << rep["generated"].get<std::string>() << " by `" << rep["command"].get<std::string>()
     << "` (budget `" << rep["budget"].get<std::string>() << "`, " << fmt(rep["wall_s"].get<double>(), 3) << " s).\n\n";

  // What moved since the baseline comes first: it is what a pull request's reviewer needs.
  md << "## Changes from the baseline\n\n";
  if (rep.contains("baseline")) {
    const auto& b = rep["baseline"];
    md << "Compared with `" << b["file"].get<std::string>() << "` (tolerance for `" << b["platform"].get<std::string>()
       << "`): ";
    if (b["changes"].empty()) {
      md << "none.\n\n";
    } else {
      md << b["changes"].size()
         << " change(s).\n\n| claim | change | before | after | detail |\n| --- | --- | --- | --- | --- |\n";
      for (const auto& c : b["changes"])
        md << "| " << md_escape(c["id"]) << " | **" << c["kind"].get<std::string>() << "** | " << md_escape(c["before"])
           << " | " << md_escape(c["after"]) << " | " << md_escape(c["detail"]) << " |\n";
      md << "\n";
    }
  } else {
    md << "not compared (`claimcheck verify --baseline FILE` compares, FILE the paper's expected.json).\n\n";
  }

  md << "## Summary\n\n| verdict | claims |\n| --- | --- |\n";
  for (const char* v : {"PASS", "FAIL", "INCONCLUSIVE", "SKIPPED", "INVALID", "ERROR"})
    md << "| " << v << " | " << rep["counts"][v].get<int>() << " |\n";

  md << "\n## Claims\n\n"
        "measured: the mean over the seeds measured (the median under a median rule), with an interval that says "
        "what it is. One seed: that seed's own 95 % interval (Wilson for an accuracy). **range**: 2 to 4 seeds, "
        "[lowest, highest]; not a 95 % interval: it covers the median of the distribution the seeds come from with "
        "probability 1 − 2^(1−n), 75 % for 3 seeds, 87.5 % for 4, whatever that distribution. **t95**: 5 or more "
        "seeds, the Student t interval of the mean, 95 % when the seeds' values are normal. **order-stat**: 5 or "
        "more seeds under a median rule, [x₍k₎, x₍n+1−k₎] with the largest k that covers the median with "
        "probability ≥ 95 % (93.75 % with 5 seeds), whatever the distribution. A rule on k of n seeds: the Wilson "
        "95 % interval of k/n. tests/test_stats.cpp checks each coverage by simulation. Per seed: each seed's value "
        "and verdict, judged by its own interval.\n\n"
        "| id | § | claim | paper | measured [interval] | per seed | rule | verdict |\n| --- | --- | --- | --- | --- "
        "| --- | --- | --- |\n";
  for (const auto& c : rep["claims"]) {
    const bool loaded = c.contains("title");
    md << "| " << md_escape(c["id"]) << " | " << (loaded ? md_escape(c["paper"]["section"]) : "") << " | "
       << (loaded ? md_escape(c["title"]) : "(file did not load)") << " | "
       << (loaded ? md_escape(c["reported"]["text"]) : "") << " | "
       << (c.contains("measured") ? fmt_value(c["measured"], is_proportion(c)) : "—") << " | ";
    if (c.contains("seeds"))
      for (const auto& sd : c["seeds"])
        md << "s" << sd["seed"].get<int>() << ": "
           << (is_proportion(c) ? fmt(100 * sd["value"].get<double>(), 4) + "%" : fmt(sd["value"].get<double>())) << " "
           << sd["verdict"].get<std::string>() << "<br>";
    md << " | " << (loaded ? md_escape(c["rule"]) : "") << " | **" << c["verdict"].get<std::string>() << "**"
       << (c.value("expected", false) ? " (expected: in the baseline)" : "") << " |\n";
  }

  if (rep.contains("cross_checks")) md << cross_checks_markdown(rep["cross_checks"]);
  if (rep.contains("robustness")) md << robustness_markdown(rep["robustness"]);
  if (rep.contains("attribution")) md << attribution_markdown(rep["attribution"]);

  md << "\n## Details\n";
  for (const auto& c : rep["claims"]) {
    md << "\n### " << c["id"].get<std::string>() << " — " << c["verdict"].get<std::string>() << "\n\n";
    if (!c.contains("title")) {
      md << "`" << c["file"].get<std::string>() << "`: " << c["reason"].get<std::string>() << "\n";
      continue;
    }
    md << "**" << c["title"].get<std::string>() << "** (`" << c["file"].get<std::string>() << "`)\n\n";
    md << "> " << md_escape(c["paper"]["quote"]) << " — §" << c["paper"]["section"].get<std::string>();
    if (!c["paper"]["figure"].get<std::string>().empty()) md << ", " << c["paper"]["figure"].get<std::string>();
    md << "\n\n";
    md << "Measured: `" << c["measure"]["kind"].get<std::string>() << "` " << c["measure"]["params"].dump()
       << (c["subject"].contains("theory")
               ? " on the theory model `" + c["subject"]["theory"].get<std::string>() + "` (no training)"
           : c["subject"].contains("sweep")
               ? " on sweep `" + c["subject"]["sweep"].get<std::string>() + "`, checkpoint `" +
                     c["subject"]["checkpoint"].get<std::string>() + "`"
               : " on run `" + c["subject"]["run"].get<std::string>() + "`, checkpoint `" +
                     c["subject"]["checkpoint"].get<std::string>() + "`")
       << ". Rule: " << c["rule"].get<std::string>() << ".\n\n";
    if (c.contains("control_params"))
      md << "Negative control: the same computation with " << c["control_params"].dump() << ".\n\n";
    if (!c["reason"].get<std::string>().empty()) md << "Why: " << md_escape(c["reason"]) << "\n\n";
    const bool prop = is_proportion(c);
    for (const char* part : {"seeds", "control"}) {
      if (!c.contains(part)) continue;
      md << (std::string(part) == "seeds" ? "| seed | step | value | n | 95% CI | verdict |\n"
                                          : "Negative control:\n\n| seed | step | value | n | 95% CI | verdict |\n");
      md << "| --- | --- | --- | --- | --- | --- |\n";
      for (const auto& s : c[part]) {
        const double v = s["value"], lo = s["ci_low"], hi = s["ci_high"];
        md << "| " << s["seed"] << " | " << s["step"] << " | " << (prop ? fmt(100 * v, 5) + "%" : fmt(v)) << " | "
           << s["n"] << " | "
           << (prop ? "[" + fmt(100 * lo, 4) + ", " + fmt(100 * hi, 4) + "]" : "[" + fmt(lo) + ", " + fmt(hi) + "]")
           << " | " << s["verdict"].get<std::string>() << " |\n";
      }
      md << "\n";
    }
    // A sweep claim's curves (details.curve: [{x, n, correct}]): one column per seed, Wilson 95 % CIs.
    if (c.contains("seeds") && !c["seeds"].empty() && c["seeds"][0]["details"].contains("curve")) {
      md << "Final accuracy on `" << c["seeds"][0]["details"].value("set", "?") << "` along `"
         << c["seeds"][0]["details"].value("axis", "?") << "`:\n\n| " << c["seeds"][0]["details"].value("axis", "x");
      for (const auto& sd : c["seeds"]) md << " | seed " << sd["seed"];
      md << " |\n| ---";
      for (size_t k = 0; k < c["seeds"].size(); ++k) md << " | ---";
      md << " |\n";
      const auto& first = c["seeds"][0]["details"]["curve"];
      for (size_t i = 0; i < first.size(); ++i) {
        md << "| " << fmt(first[i]["x"].get<double>());
        for (const auto& sd : c["seeds"]) {
          const auto& pt = sd["details"]["curve"][i];
          const auto ci = claims::wilson(pt["correct"].get<int64_t>(), pt["n"].get<int64_t>());
          md << " | " << fmt(100 * pt["accuracy"].get<double>(), 4) << "% [" << fmt(100 * ci.low, 4) << ", "
             << fmt(100 * ci.high, 4) << "]";
        }
        md << " |\n";
      }
      md << "\n";
    }
    // Figures drawn from the measurement's data (report/figures.h), captioned with the paper's figure.
    if (c.contains("figures"))
      for (const auto& f : c["figures"]) {
        const std::string paper = f.value("paper_figure", "");
        const std::string caption = f.value("caption", "") + (paper.empty() ? "" : " — cf. the paper's " + paper);
        if (f.contains("file"))
          md << "![" << md_escape(caption) << "](" << f["file"].get<std::string>() << ")\n\n*" << md_escape(caption)
             << ".*\n\n";
        else if (f.contains("text"))
          md << "Figure (" << md_escape(caption) << "): not drawn, " << md_escape(f["text"].get<std::string>())
             << ".\n\n";
        else
          md << "Figure not rendered (" << md_escape(caption) << "): " << md_escape(f.value("error", "")) << "\n\n";
      }
    // Numbers a claim reports without judging them (details.unthresholded: {label: value}).
    if (c.contains("seeds"))
      for (const auto& s : c["seeds"]) {
        if (!s.contains("details") || !s["details"].contains("unthresholded")) continue;
        md << "Reported without a threshold, seed " << s["seed"] << ": ";
        bool first = true;
        for (const auto& [label, value] : s["details"]["unthresholded"].items()) {
          md << (first ? "" : "; ") << label << " = " << (value.is_number() ? fmt(value.get<double>()) : value.dump());
          first = false;
        }
        md << "\n\n";
      }
  }

  if (rep.contains("sweeps")) {
    md << "\n## Sweeps\n\n| sweep | base run | axes | seeds | points | set on every point |\n| --- | --- | --- | --- | "
          "--- | --- |\n";
    for (const auto& [name, sw] : rep["sweeps"].items()) {
      std::string axes;
      for (const auto& a : sw["axes"])
        axes += (axes.empty() ? "" : "; ") + a["key"].get<std::string>() + " ∈ " + a["values"].dump();
      md << "| `" << name << "` | `" << sw["base"].get<std::string>() << "` | " << md_escape(axes) << " | "
         << sw["seeds"].dump() << " | " << sw["points"] << " | " << md_escape(sw["set"].dump()) << " |\n";
    }
  }

  if (rep.contains("runs")) {
    md << "\n## Runs and the paper's unstated choices\n";
    for (const auto& [name, run] : rep["runs"].items()) {
      md << "\n### run `" << name << "` (seeds " << run["seeds"].dump() << ", config_hash `"
         << run["config_hash"].get<std::string>() << "`)\n\n| choice | value | note |\n| --- | --- | --- |\n";
      for (const auto& u : run["unstated"])
        md << "| " << md_escape(u["key"]) << " | " << md_escape(u["value"]) << " | " << md_escape(u["note"]) << " |\n";
    }
  }

  md << "\n## Provenance\n\n| | |\n| --- | --- |\n";
  for (const auto& [k, v] : rep["runtime"].items())
    md << "| " << k << " | " << md_escape(v.is_string() ? v.get<std::string>() : v.dump()) << " |\n";
  if (rep.contains("provenance") && !rep["provenance"].is_null()) {
    md << "\n| run / seed | checkpoints from | latest step read | training wall time to it | trained with |\n"
       << "| --- | --- | --- | --- | --- |\n";
    for (const auto& [k, v] : rep["provenance"].items()) {
      const auto& rt = v["runtime"];
      md << "| " << k << " | `" << v["dir"].get<std::string>() << "` | " << v.value("step", int64_t{-1}) << " | "
         << fmt(v["train_wall_s"].get<double>(), 4) << " s | " << md_escape(v.value("device", std::string()))
         << (rt.is_object() ? md_escape(", libtorch " + rt.value("libtorch", "") + ", " +
                                        rt.value("build_commit", rt.value("git_commit", std::string())))
                            : "")
         << " |\n";
    }
  }
  return md.str();
}

std::string report_junit(const nlohmann::json& rep) {
  std::ostringstream x;
  const auto& counts = rep["counts"];
  const int total = static_cast<int>(rep["claims"].size());
  int failures = 0;
  for (const auto& c : rep["claims"])
    if ((c["verdict"] == "FAIL" || c["verdict"] == "INCONCLUSIVE") && !c.value("expected", false)) ++failures;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"claimcheck\" tests=\"" << total
    << "\" failures=\"" << failures << "\" errors=\"" << counts["ERROR"].get<int>() + counts["INVALID"].get<int>()
    << "\" skipped=\"" << counts["SKIPPED"].get<int>() << "\" time=\"" << rep["wall_s"].get<double>() << "\">\n";
  for (const auto& c : rep["claims"]) {
    const std::string verdict = c["verdict"];
    x << "  <testcase name=\"claim." << xml_escape(c["id"]) << "\" classname=\"claims."
      << xml_escape(c.value("section", "unloaded")) << "\" time=\"" << c["seconds"].get<double>() << "\">\n";
    x << "    <properties>\n      <property name=\"verdict\" value=\"" << verdict << "\"/>\n";
    if (c.value("expected", false)) x << "      <property name=\"expected\" value=\"true\"/>\n";
    if (c.contains("measured")) {
      x << "      <property name=\"measured\" value=\"" << c["measured"]["value"].get<double>() << "\"/>\n";
      x << "      <property name=\"ci_low\" value=\"" << c["measured"]["ci_low"].get<double>() << "\"/>\n";
      x << "      <property name=\"ci_high\" value=\"" << c["measured"]["ci_high"].get<double>() << "\"/>\n";
    }
    if (c.contains("reported") && !c["reported"]["value"].is_null())
      x << "      <property name=\"reported\" value=\"" << c["reported"]["value"].get<double>() << "\"/>\n";
    if (c.contains("rule")) x << "      <property name=\"rule\" value=\"" << xml_escape(c["rule"]) << "\"/>\n";
    x << "    </properties>\n";
    const std::string reason = xml_escape(c["reason"]);
    // An expected FAIL (in the baseline) is a finding of this reproduction, not a broken build: the test
    // passes, and the finding stays in the output.
    if (c.value("expected", false))
      x << "    <system-out>expected " << verdict << " (in the baseline): " << reason << "</system-out>\n";
    else if (verdict == "FAIL" || verdict == "INCONCLUSIVE")
      x << "    <failure message=\"" << verdict << ": " << reason << "\"/>\n";
    else if (verdict == "ERROR" || verdict == "INVALID")
      x << "    <error message=\"" << verdict << ": " << reason << "\"/>\n";
    else if (verdict == "SKIPPED")
      x << "    <skipped message=\"" << reason << "\"/>\n";
    x << "  </testcase>\n";
  }
  x << "</testsuite>\n</testsuites>\n";
  return x.str();
}

std::string summary_lines(const nlohmann::json& rep) {
  std::ostringstream s;
  for (const auto& c : rep["claims"]) {
    char head[64];
    std::snprintf(head, sizeof head, "%-12s %-8s ", c["verdict"].get<std::string>().c_str(),
                  c["id"].get<std::string>().c_str());
    s << head;
    if (c.contains("measured"))
      s << fmt_value(c["measured"], is_proportion(c)) << "  (" << c["rule"].get<std::string>() << ")";
    if (!c["reason"].get<std::string>().empty())
      s << (c.contains("measured") ? "  " : "") << c["reason"].get<std::string>();
    if (c.value("expected", false)) s << "  [expected: in the baseline]";
    s << "\n";
  }
  // One line to end on, as pytest's: how many of each verdict, and whether the baseline held.
  const char* sep = "";
  for (const char* v : {"PASS", "FAIL", "INCONCLUSIVE", "SKIPPED", "INVALID", "ERROR"}) {
    s << sep << rep["counts"][v].get<int>() << " " << v;
    sep = ", ";
  }
  if (rep.contains("baseline")) {
    const size_t changed = rep["baseline"]["changes"].size();
    s << "; against " << rep["baseline"]["file"].get<std::string>() << ": "
      << (changed == 0 ? std::string("no change") : std::to_string(changed) + " change(s)");
  }
  s << "\n";
  return s.str();
}

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

void write_reports(const std::string& dir, nlohmann::json rep) {
  check_report_dir(dir);
  // A report folder used before keeps no figure of that run: figures/ holds this report's only.
  std::error_code ec;
  if (fs::is_directory(dir + "/figures"))
    for (const auto& e : fs::directory_iterator(dir + "/figures", ec))
      if (e.is_regular_file() && (e.path().extension() == ".png" || e.path().extension() == ".part"))
        fs::remove(e.path(), ec);
  render_figures(dir, rep);
  if (rep.contains("attribution")) render_attribution_figures(dir, rep["attribution"]);
  write_file_atomic(dir + "/report.json", rep.dump(2) + "\n");
  write_file_atomic(dir + "/REPORT.md", report_markdown(rep));
  write_file_atomic(dir + "/junit.xml", report_junit(rep));
}

}  // namespace cc::report
