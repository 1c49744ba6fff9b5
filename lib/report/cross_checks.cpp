#include "report/cross_checks.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "report/report.h"
#include "util/error.h"
#include "util/file_io.h"
#include "util/json_input.h"
#include "util/yaml_json.h"

namespace cc::report {
namespace fs = std::filesystem;

nlohmann::json read_cross_checks(const std::string& paper_yaml) {
  nlohmann::json out = nlohmann::json::array();
  if (!fs::exists(paper_yaml)) return out;
  const YamlDoc doc = load_yaml_file(paper_yaml);
  ObjectReader top(doc, "");
  if (!top.has("cross_checks")) return out;
  const nlohmann::json& list = top.raw("cross_checks");
  if (!list.is_array() || list.size() > 64)
    top.fail("cross_checks", "expected a list of at most 64 {claim, relation, report, other_claim}");
  for (size_t i = 0; i < list.size(); ++i) {
    ObjectReader r(doc, "/cross_checks/" + std::to_string(i));
    nlohmann::json e = {{"claim", r.string("claim")},
                        {"relation", r.string("relation")},
                        {"report", r.string("report")},
                        {"other_claim", r.string("other_claim")}};
    // Another paper's report.json inside the checkout (the folder above papers/), named relative to
    // this paper.yaml: nothing else is read and quoted in the report (/etc/passwd, /proc/self/environ).
    const fs::path rel = e["report"].get<std::string>();
    const fs::path root = fs::weakly_canonical(fs::absolute(paper_yaml)).parent_path().parent_path().parent_path();
    const fs::path target = fs::weakly_canonical(fs::absolute(fs::path(paper_yaml).parent_path() / rel));
    if (rel.is_absolute() || rel.filename() != "report.json" || !lies_within(target.string(), root.string()))
      r.fail("report", "must name a report.json inside the checkout (" + root.string() +
                           "), relative to this file; got '" + rel.string() + "'");
    r.finish();
    const std::string file = target.string();
    try {
      nlohmann::json other;
      try {
        other = parse_json(read_regular_file(file, kMaxJsonBytes, "report"), file);
      } catch (const nlohmann::json::parse_error& pe) {  // its message quotes the text: say where only
        throw Error(file + ": not JSON (a syntax error at byte " + std::to_string(pe.byte) + ")");
      }
      if (other.contains("paper") && other["paper"].contains("title")) e["paper"] = other["paper"]["title"];
      const auto& claims = other.at("claims");
      auto it = std::find_if(claims.begin(), claims.end(), [&](const nlohmann::json& c) {
        return c.value("id", "") == e["other_claim"].get<std::string>();
      });
      if (it == claims.end()) throw Error(file + ": no claim " + e["other_claim"].get<std::string>());
      e["verdict"] = it->at("verdict");
      if (it->contains("measured")) {
        const auto& m = (*it)["measured"];
        for (const char* k : {"value", "ci_low", "ci_high", "interval"})
          if (m.contains(k)) e[k] = m[k];
      }
    } catch (const std::exception& ex) {  // the other paper's report is information, not an input
      e["unavailable"] = ex.what();
    }
    out.push_back(e);
  }
  return out;
}

std::string cross_checks_markdown(const nlohmann::json& checks) {
  if (!checks.is_array() || checks.empty()) return "";
  std::ostringstream md;
  md << "\n## Cross-checks with other papers\n\n"
        "A claim's measurement on another paper's committed models, read from that paper's report.\n\n"
        "| claim | relation | other paper's claim | its value | its verdict |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& e : checks) {
    const std::string other = e.value("paper", std::string("?")) + ", " + e["other_claim"].get<std::string>() + " (`" +
                              e["report"].get<std::string>() + "`)";
    md << "| " << e["claim"].get<std::string>() << " | " << e["relation"].get<std::string>() << " | " << other << " | ";
    if (e.contains("unavailable")) {
      md << "unavailable: " << e["unavailable"].get<std::string>() << " | — |\n";
      continue;
    }
    if (e.contains("value") && e["value"].is_number()) {
      // As this report prints its own claims; an interval the other report wrote as null is left out.
      const double v = e["value"];
      const bool ci = e.contains("ci_low") && e["ci_low"].is_number() && e["ci_high"].is_number();
      md << fmt_value({{"value", v},
                       {"ci_low", ci ? e["ci_low"].get<double>() : v},
                       {"ci_high", ci ? e["ci_high"].get<double>() : v},
                       {"interval", e.value("interval", "")}},
                      false);
    }
    md << " | " << e["verdict"].get<std::string>() << " |\n";
  }
  return md.str();
}

}  // namespace cc::report
