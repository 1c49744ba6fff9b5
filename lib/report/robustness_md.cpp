#include "report/robustness_md.h"

#include <cstdio>
#include <functional>
#include <sstream>

namespace cc::report {
namespace {

std::string num(double v, const char* f = "%.2f") {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// "3/5 (0.23–0.88)"; "–" when nothing was measured.
std::string rate_text(const nlohmann::json& r) {
  if (!r.contains("n") || r["n"].get<int64_t>() == 0) return "–";
  return std::to_string(r["k"].get<int64_t>()) + "/" + std::to_string(r["n"].get<int64_t>()) + " (" +
         num(r["low"].get<double>()) + "–" + num(r["high"].get<double>()) + ")";
}

// "6100 (4800–14100), 3/3"; "never (0/3)" when no seed reached it.
std::string steps_text(const nlohmann::json& d) {
  const auto reached = d["reached"].get<int64_t>(), n = d["n"].get<int64_t>();
  if (n == 0) return "–";
  if (reached == 0) return "never (0/" + std::to_string(n) + ")";
  return num(d["median"].get<double>(), "%.0f") + " (" + num(d["min"].get<double>(), "%.0f") + "–" +
         num(d["max"].get<double>(), "%.0f") + "), " + std::to_string(reached) + "/" + std::to_string(n);
}

// Rows = claims, columns = configurations, each cell rendered by `cell_text`.
void claims_table(std::ostringstream& md, const nlohmann::json& rob,
                  const std::function<std::string(const nlohmann::json&)>& cell_text) {
  const auto& variants = rob["variants"];
  md << "| claim |";
  for (const auto& v : variants) md << " `" << v["variant"].get<std::string>() << "` |";
  md << "\n| --- |";
  for (size_t i = 0; i < variants.size(); ++i) md << " --- |";
  md << "\n";
  for (const auto& c : rob["claims"]) {
    md << "| " << c["id"].get<std::string>() << " |";
    for (const auto& v : variants) md << " " << cell_text(c["cells"][v["variant"].get<std::string>()]) << " |";
    md << "\n";
  }
}

}  // namespace

std::string robustness_markdown(const nlohmann::json& rob) {
  std::ostringstream md;
  const auto& variants = rob["variants"];
  md << "\n## Robustness: how often each claim holds over seeds and the paper's unstated choices\n\n";
  // The base is named: it is the default the sweep was planned on, which need not be today's `default`.
  md << "Sweep `" << rob["sweep"].get<std::string>() << "`: its base run `" << rob["base"].get<std::string>()
     << "` and one unstated choice changed at a time, seeds " << rob["seeds"].dump()
     << " each; every run claim above is measured again on each variant run (`" << rob["sweep"].get<std::string>()
     << "/VARIANT`). A cell is k of n seeds passing the claim's per-seed test, with the "
     << "Wilson 95% interval on the rate; a claim whose own rule could not decide on that variant says why.\n\n";

  md << "### Phase steps per configuration\n\nmedian (range), seeds that reached it / seeds trained. "
     << rob["levels"]["zero_var"].get<std::string>() << "; binding: " << rob["levels"]["binding"].get<std::string>()
     << "; var-restricted: " << rob["levels"]["var_restricted"].get<std::string>()
     << ". Learned: binding and var_restricted_1 >= 0.9 by the last step.\n\n";
  md << "| configuration | seeds trained | learned | 0-var | binding | var-restricted |\n| --- | --- | --- | --- | --- "
        "| --- |\n";
  md << "| paper (one run) | 1 | – | \"first\" | " << rob["paper"]["binding"][0] << "–" << rob["paper"]["binding"][1]
     << " | " << rob["paper"]["refinement"][0] << "–" << rob["paper"]["refinement"][1] << " |\n";
  for (const auto& v : variants) {
    const auto& d = v["distribution"];
    md << "| `" << v["variant"].get<std::string>() << "` | " << d["binding"]["n"].get<int64_t>() << "/"
       << rob["seeds"].size() << " | " << rate_text(v["learned"]) << " | " << steps_text(d["zero_var"]) << " | "
       << steps_text(d["binding"]) << " | " << steps_text(d["var_restricted"]) << " |\n";
  }

  const auto& rule = rob["default_rule"];
  md << "\n### The default configuration, by a rule fixed in advance\n\nRule: " << rule["rule"].get<std::string>()
     << ".\n\n";
  if (rule["chosen"].is_null()) {
    md << "No variant has a trained seed yet.\n";
  } else {
    md << "Outcome: **`" << rule["chosen"].get<std::string>() << "`**"
       << (rule["complete"].get<bool>() ? "" : " (provisional: not every seed of every variant is trained yet)")
       << ". Ranking: ";
    bool first = true;
    for (const auto& r : rule["ranking"]) {
      md << (first ? "" : "; ") << "`" << r["variant"].get<std::string>() << "` " << r["learned"] << "/" << r["n"]
         << " learned"
         << (r["distance"].is_null() ? ", no median" : ", distance " + num(r["distance"].get<double>(), "%.0f"));
      first = false;
    }
    md << ".\n";
  }

  md << "\n### Claims × configurations (k/n seeds pass, Wilson 95%)\n\n";
  claims_table(md, rob, [](const nlohmann::json& cell) {
    const std::string verdict = cell["verdict"].get<std::string>();
    return rate_text(cell) + (verdict == "PASS" || verdict == "FAIL" ? "" : " " + verdict);
  });

  md << "\n### Two readings of a single-run statement\n\nThe paper reports one run. Each cell: the verdict if the "
        "claim must "
     << "hold on **every** seed / on **at least half** of the seeds (Wilson 95% interval of k/n against 1/2); which "
        "reading "
     << "each claim family supports is argued in the paper's assumptions.md.\n\n";
  claims_table(md, rob, [](const nlohmann::json& cell) {
    return cell.contains("each") ? cell["each"].get<std::string>() + " / " + cell["half"].get<std::string>()
                                 : std::string("–");
  });
  return md.str();
}

}  // namespace cc::report
