#include "report/ladder.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "report/baseline.h"
#include "report/report.h"
#include "util/error.h"

namespace cc::report {
namespace {

// A rung's committed report: its claims by id, or why it cannot be read as this rung's.
struct RungReport {
  std::map<std::string, nlohmann::json> claims;
  std::string unavailable;
};

RungReport read_rung_report(const claims::Rung& rung) {
  RungReport out;
  try {
    const nlohmann::json j = read_outcomes(rung.report);  // a report.json, checked as --baseline checks one
    const std::string written_for = j.contains("rung") && j["rung"].is_object() ? j["rung"].value("name", "") : "";
    if (written_for != rung.name)
      throw Error(rung.report_as_written + ": not a report of rung " + rung.name +
                  (written_for.empty() ? " (it names no rung)" : " (it is rung " + written_for + "'s)"));
    for (const auto& c : j.at("claims")) out.claims[c.at("id").get<std::string>()] = c;
  } catch (const std::exception& e) {  // information beside this report's verdicts, not an input to them
    out.unavailable = e.what();
    if (out.unavailable.rfind("[json.exception", 0) == 0) out.unavailable = rung.report_as_written + ": malformed";
    // The path as paper.yaml names it: a committed report says nothing of the machine it was made on.
    for (size_t at = 0; (at = out.unavailable.find(rung.report, at)) != std::string::npos;
         at += rung.report_as_written.size())
      out.unavailable.replace(at, rung.report.size(), rung.report_as_written);
  }
  return out;
}

// One claim at one rung, as the section holds it.
nlohmann::json at_rung(const std::string& rung, const nlohmann::json* claim) {
  nlohmann::json e = {{"rung", rung}};
  if (!claim) {
    e["unavailable"] = "not in the rung's report";
    return e;
  }
  e["verdict"] = claim->value("verdict", "ERROR");
  if (claim->contains("reason") && (*claim)["reason"].is_string() && !(*claim)["reason"].empty())
    e["reason"] = (*claim)["reason"];
  if (claim->contains("measured") && (*claim)["measured"].is_object())
    for (const char* k : {"value", "ci_low", "ci_high", "interval"})
      if ((*claim)["measured"].contains(k)) e[k] = (*claim)["measured"][k];
  if (claim->contains("seeds")) {
    e["seeds"] = (*claim)["seeds"].size();
    for (const auto& sd : (*claim)["seeds"])
      if (sd.contains("seed") && sd.contains("value") && sd["value"].is_number())
        e["per_seed"].push_back({sd["seed"], sd["value"]});
  }
  if (const auto g = worst_gap(*claim); g && e["verdict"] == "FAIL") e["gap"] = *g;
  return e;
}

std::string fmt3(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The rung the sentence compares the committed one with: the paper's (the last when none is the
// paper's) where the claim was measured there, else the furthest rung toward it that measured it (a
// ladder is climbed a rung at a time); the committed rung itself when no other measured it.
size_t compared_rung(const nlohmann::json& rows, size_t committed, size_t paper) {
  if (!rows[paper].contains("unavailable")) return paper;
  for (size_t i = rows.size(); i-- > 0;)
    if (i != committed && !rows[i].contains("unavailable")) return i;
  return committed;
}

// The sentence comparing the committed rung with the paper's, or the furthest measured one.
nlohmann::json trend(const nlohmann::json& rows, const claims::LadderAxis& axis) {
  size_t c = 0, p = axis.rungs.size() - 1;
  for (size_t i = 0; i < axis.rungs.size(); ++i) {
    if (axis.rungs[i].committed()) c = i;
    if (axis.rungs[i].paper) p = i;
  }
  const size_t q = compared_rung(rows, c, p);
  if (q == c) {
    std::string why;
    for (size_t i = 0; i < rows.size(); ++i)
      if (i != c)
        why += (why.empty() ? "" : "; ") + axis.rungs[i].label + ": " + rows[i]["unavailable"].get<std::string>();
    return {{"trend", "not measured on another rung (" + why + ")"}, {"depends_on_scale", false}};
  }
  const nlohmann::json &a = rows[c], &b = rows[q];
  const std::string la = axis.rungs[c].label,
                    lb = axis.rungs[q].label + (axis.rungs[q].paper ? ", the paper's"
                                                : q != p            ? " (the paper's rung not measured yet)"
                                                                    : "");
  const std::string va = a.value("verdict", ""), vb = b.value("verdict", "");
  const auto decided = [](const std::string& v) { return v == "PASS" || v == "FAIL"; };
  if (va != vb && decided(va) && decided(vb))
    return {{"trend", va + " at " + la + ", " + vb + " at " + lb + ": the verdict depends on the scale" +
                          (va == "FAIL" ? ", not a finding against the paper" : "")},
            {"depends_on_scale", true}};
  if (va != vb)  // one side undecided (too few seeds, a control that passes): no trend to state
    return {{"trend", va + " at " + la + ", " + vb + " at " + lb +
                          (b.contains("reason") ? " (" + b["reason"].get<std::string>() + ")" : "")},
            {"depends_on_scale", false}};
  // "at both" names the two rungs where the second is not the paper's.
  const std::string both =
      q != p ? "both (" + la + " and " + axis.rungs[q].label + "; the paper's rung not measured yet)" : "both";
  if (va == "FAIL" && a.contains("gap") && b.contains("gap")) {
    const double ga = a["gap"], gb = b["gap"];
    const std::string dist = "the worst seed's distance beyond the threshold ";
    return {{"trend", "FAIL at " + both + "; " + dist +
                          (gb < ga ? "narrows from " + fmt3(ga) + " to " + fmt3(gb)
                                   : "persists (" + fmt3(ga) + ", then " + fmt3(gb) + ")")},
            {"depends_on_scale", false}};
  }
  return {{"trend", va + " at " + both}, {"depends_on_scale", false}};
}

nlohmann::json axis_section(const claims::LadderAxis& axis, const nlohmann::json& own_claims) {
  nlohmann::json out = {
      {"axis", axis.name}, {"why", axis.why}, {"rungs", nlohmann::json::array()}, {"claims", nlohmann::json::array()}};
  std::vector<RungReport> reports;
  for (const auto& rung : axis.rungs) {
    nlohmann::json r = {
        {"name", rung.name}, {"label", rung.label}, {"paper", rung.paper}, {"committed", rung.committed()}};
    reports.push_back(rung.committed() ? RungReport{} : read_rung_report(rung));
    if (!rung.committed()) r["report"] = rung.report_as_written;
    if (!reports.back().unavailable.empty()) r["unavailable"] = reports.back().unavailable;
    out["rungs"].push_back(r);
  }
  for (const auto& own : own_claims) {
    const std::string id = own.value("id", "");
    nlohmann::json rows = nlohmann::json::array();
    for (size_t i = 0; i < axis.rungs.size(); ++i) {
      const claims::Rung& rung = axis.rungs[i];
      if (!reports[i].unavailable.empty()) {
        rows.push_back({{"rung", rung.name}, {"unavailable", "its report is unavailable (below)"}});
        continue;
      }
      // A claim whose subject the rung does not move (another run, a sweep, a theory) is not on it.
      const std::string run = own.contains("subject") ? own["subject"].value("run", "") : "";
      if (!rung.committed() && !rung.runs.count(run)) {
        rows.push_back(
            {{"rung", rung.name},
             {"unavailable", run.empty() ? "not a run claim" : "run " + run + " is not varied on this rung"}});
        continue;
      }
      const auto it = reports[i].claims.find(id);
      const nlohmann::json* at = rung.committed() ? &own : it == reports[i].claims.end() ? nullptr : &it->second;
      rows.push_back(at_rung(rung.name, at));
    }
    nlohmann::json claim = {{"id", id}, {"proportion", own.value("measured_is_proportion", false)}, {"rungs", rows}};
    if (own.contains("threshold")) claim["threshold"] = own["threshold"];
    claim.update(trend(rows, axis));
    out["claims"].push_back(claim);
  }
  return out;
}

}  // namespace

std::optional<double> worst_gap(const nlohmann::json& claim) {
  if (!claim.contains("threshold") || !claim["threshold"].is_object() || !claim.contains("seeds")) return std::nullopt;
  const std::string op = claim["threshold"].value("op", "");
  const auto& t = claim["threshold"]["value"];
  if (!t.is_number() || (op != ">=" && op != ">" && op != "<=" && op != "<")) return std::nullopt;
  std::optional<double> worst;
  for (const auto& s : claim["seeds"]) {
    if (!s.contains("value") || !s["value"].is_number()) continue;
    const double v = s["value"], beyond = op[0] == '>' ? t.get<double>() - v : v - t.get<double>();
    worst = worst ? std::max(*worst, beyond) : beyond;
  }
  return worst;
}

nlohmann::json ladder_section(const std::vector<claims::LadderAxis>& ladder, const nlohmann::json& own_claims) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& axis : ladder) out.push_back(axis_section(axis, own_claims));
  return out;
}

namespace {

// One claim's figure: each seed's value at each rung it was measured at, the threshold marked; none
// unless two rungs or more have values and the claim fails at one of them.
std::optional<nlohmann::json> value_against_scale(const nlohmann::json& axis, const nlohmann::json& claim) {
  std::map<int64_t, nlohmann::json> by_seed;  // seed -> {x: [...], y: [...]}
  int measured = 0;
  bool fails = false;
  for (size_t r = 0; r < claim["rungs"].size(); ++r) {
    const auto& e = claim["rungs"][r];
    if (!e.contains("per_seed")) continue;
    ++measured;
    fails = fails || e.value("verdict", "") == "FAIL";
    for (const auto& sv : e["per_seed"]) {
      auto& series = by_seed[sv[0].get<int64_t>()];
      series["name"] = "seed " + std::to_string(sv[0].get<int64_t>());
      series["x"].push_back(r);
      series["y"].push_back(sv[1]);
    }
  }
  if (measured < 2 || !fails) return std::nullopt;
  nlohmann::json spec = {{"id", "ladder-" + axis["axis"].get<std::string>()},
                         {"type", "lines"},
                         {"title", claim["id"].get<std::string>() + " against " + axis["axis"].get<std::string>()},
                         {"xlabel", axis["axis"]},
                         {"ylabel", "value"},
                         {"series", nlohmann::json::array()},
                         {"xtics", nlohmann::json::array()},
                         {"xrange", {-0.3, static_cast<double>(axis["rungs"].size()) - 0.7}}};
  for (auto& [seed, series] : by_seed) spec["series"].push_back(series);
  for (const auto& r : axis["rungs"]) spec["xtics"].push_back(r["label"]);
  if (claim.contains("threshold") && claim["threshold"].contains("value") && claim["threshold"]["value"].is_number())
    spec["hlines"] = {{{"at", claim["threshold"]["value"]},
                       {"label", "threshold " + claim["threshold"].value("op", "") + " " +
                                     fmt3(claim["threshold"]["value"].get<double>())}}};
  return spec;
}

}  // namespace

std::vector<FigureJob> ladder_figure_jobs(const nlohmann::json& section) {
  std::vector<FigureJob> jobs;
  if (!section.is_array()) return jobs;
  for (const auto& axis : section)
    for (const auto& claim : axis["claims"])
      if (auto spec = value_against_scale(axis, claim))
        jobs.push_back(
            {"figures/ladder-" + axis["axis"].get<std::string>() + "-" + claim["id"].get<std::string>() + ".png",
             std::move(*spec)});
  return jobs;
}

bool depends_on_scale(const nlohmann::json& section, const std::string& id) {
  if (!section.is_array()) return false;
  for (const auto& axis : section)
    for (const auto& c : axis["claims"])
      if (c["id"] == id && c.value("depends_on_scale", false)) return true;
  return false;
}

std::string ladder_markdown(const nlohmann::json& section) {
  if (!section.is_array() || section.empty()) return "";
  std::ostringstream md;
  md << "\n## Scale ladder\n\n"
        "Each claim measured as written on runs that differ from the committed ones in one declared choice "
        "(paper.yaml's `ladder:`), read from each rung's committed report (`verify --rung NAME`). A claim "
        "that passes at one of the committed rung and the paper's and fails at the other depends on the scale: "
        "its FAIL is not a finding against the paper. A FAIL at both gives the worst failing seed's distance "
        "beyond the threshold at each; an undecided verdict (too few seeds) gives its reason.\n";
  for (const auto& axis : section) {
    md << "\n### " << md_escape(axis["axis"].get<std::string>()) << "\n\n"
       << md_escape(axis["why"].get<std::string>()) << "\n\n| claim |";
    for (const auto& r : axis["rungs"])
      md << " " << md_escape(r["label"].get<std::string>())
         << (r["committed"].get<bool>() ? " (committed)"
             : r["paper"].get<bool>()   ? " (the paper's)"
                                        : "")
         << " |";
    md << " trend |\n| --- |";
    for (size_t i = 0; i < axis["rungs"].size(); ++i) md << " --- |";
    md << " --- |\n";
    for (const auto& c : axis["claims"]) {
      md << "| " << md_escape(c["id"].get<std::string>()) << " |";
      for (const auto& e : c["rungs"]) {
        if (e.contains("unavailable")) {
          md << " — |";
          continue;
        }
        md << " " << e["verdict"].get<std::string>();
        if (e.contains("value") && e["value"].is_number() && e.contains("ci_low") && e["ci_low"].is_number())
          md << " " << fmt_value(e, c["proportion"].get<bool>());
        md << " |";
      }
      md << " " << md_escape(c["trend"].get<std::string>()) << " |\n";
    }
    for (const auto& c : axis["claims"])
      if (c.contains("figure") && c["figure"].contains("file"))
        md << "\n![" << md_escape(c["id"].get<std::string>()) << " against "
           << md_escape(axis["axis"].get<std::string>()) << "](" << c["figure"]["file"].get<std::string>() << ")\n";
    for (const auto& r : axis["rungs"])
      if (r.contains("unavailable"))
        md << "\nRung " << md_escape(r["label"].get<std::string>()) << ": "
           << md_escape(r["unavailable"].get<std::string>()) << "\n";
  }
  return md.str();
}

}  // namespace cc::report
