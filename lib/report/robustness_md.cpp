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
std::string rate_text(const claims::Rate& r) {
  if (r.n == 0) return "–";
  return std::to_string(r.k) + "/" + std::to_string(r.n) + " (" + num(r.ci->low) + "–" + num(r.ci->high) + ")";
}

// "6100 (4800–14100), 3/3"; "never (0/3)" when no seed reached it.
std::string steps_text(const claims::StepDistribution& d) {
  if (d.n == 0) return "–";
  if (d.reached == 0) return "never (0/" + std::to_string(d.n) + ")";
  return num(*d.median, "%.0f") + " (" + num(*d.min, "%.0f") + "–" + num(*d.max, "%.0f") + "), " +
         std::to_string(d.reached) + "/" + std::to_string(d.n);
}

// Rows = claims, columns = configurations, each cell rendered by `cell_text` ("" where a claim has
// no cell for a configuration).
void claims_table(std::ostringstream& md, const claims::RobustnessSection& rob,
                  const std::function<std::string(const claims::RobustnessCell&)>& cell_text) {
  md << "| claim |";
  for (const auto& v : rob.variants) md << " `" << v.variant << "` |";
  md << "\n| --- |";
  for (size_t i = 0; i < rob.variants.size(); ++i) md << " --- |";
  md << "\n";
  for (const auto& c : rob.claims) {
    md << "| " << c.id << " |";
    for (const auto& v : rob.variants) {
      const auto it = c.cells.find(v.variant);
      md << " " << (it == c.cells.end() ? std::string() : cell_text(it->second)) << " |";
    }
    md << "\n";
  }
}

}  // namespace

std::string robustness_markdown(const claims::RobustnessSection& rob) {
  std::ostringstream md;
  md << "\n## Robustness: how often each claim holds over seeds and the paper's unstated choices\n\n";
  // The base is named: it is the default the sweep was planned on, which need not be today's `default`.
  md << "Sweep `" << rob.sweep << "`: its base run `" << rob.base
     << "` and one unstated choice changed at a time, seeds " << nlohmann::json(rob.seeds).dump()
     << " each; every run claim above is measured again on each variant run (`" << rob.sweep
     << "/VARIANT`). A cell is k of n seeds passing the claim's per-seed test, with the "
     << "Wilson 95% interval on the rate; a claim whose own rule could not decide on that variant says why.\n\n";

  md << "### Phase steps per configuration\n\nmedian (range), seeds that reached it / seeds trained. ";
  for (const auto& phase : rob.phases.phases) md << phase.label << ": " << analysis::describe(phase) << "; ";
  md << "learned: " << analysis::learned_text(rob.phases) << " reached by the last step.\n\n";
  md << "| configuration | seeds trained | learned |";
  for (const auto& phase : rob.phases.phases) md << " " << phase.label << " |";
  md << "\n| --- | --- | --- |";
  for (size_t i = 0; i < rob.phases.phases.size(); ++i) md << " --- |";
  md << "\n| paper (one run) | 1 | – |";
  for (const auto& phase : rob.phases.phases) {
    std::string window = "–";
    for (const auto& w : rob.windows)
      if (w.phase == phase.name) window = std::to_string(w.steps.low) + "–" + std::to_string(w.steps.high);
    md << " " << window << " |";
  }
  md << "\n";
  for (const auto& v : rob.variants) {
    md << "| `" << v.variant << "` | " << v.learned.n << "/" << rob.seeds.size() << " | " << rate_text(v.learned)
       << " |";
    for (const auto& phase : rob.phases.phases) {
      const auto it = v.steps.find(phase.name);
      md << " " << (it == v.steps.end() ? std::string("–") : steps_text(it->second)) << " |";
    }
    md << "\n";
  }

  const auto& rule = rob.default_rule;
  md << "\n### The default configuration, by a rule fixed in advance\n\nRule: " << rule.rule << ".\n\n";
  if (!rule.chosen) {
    md << "No variant has a trained seed yet.\n";
  } else {
    md << "Outcome: **`" << *rule.chosen << "`**"
       << (rule.complete ? "" : " (provisional: not every seed of every variant is trained yet)") << ". Ranking: ";
    bool first = true;
    for (const auto& r : rule.ranking) {
      md << (first ? "" : "; ") << "`" << r.variant << "` " << r.learned << "/" << r.n << " learned"
         << (r.distance ? ", distance " + num(*r.distance, "%.0f") : ", no median");
      first = false;
    }
    md << ".\n";
  }

  md << "\n### Claims × configurations (k/n seeds pass, Wilson 95%)\n\n";
  claims_table(md, rob, [](const claims::RobustnessCell& cell) {
    const bool decided = cell.verdict == claims::Verdict::Pass || cell.verdict == claims::Verdict::Fail;
    return rate_text(cell.passing) + (decided ? "" : " " + claims::verdict_name(cell.verdict));
  });

  md << "\n### Two readings of a single-run statement\n\nThe paper reports one run. Each cell: the verdict if the "
        "claim must "
     << "hold on **every** seed / on **at least half** of the seeds (Wilson 95% interval of k/n against 1/2); which "
        "reading "
     << "each claim family supports is argued in the paper's assumptions.md.\n\n";
  claims_table(md, rob, [](const claims::RobustnessCell& cell) {
    return cell.each ? claims::verdict_name(*cell.each) + " / " + claims::verdict_name(*cell.half) : std::string("–");
  });
  return md.str();
}

}  // namespace cc::report
