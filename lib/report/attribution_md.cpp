#include "report/attribution_md.h"

#include <cstdio>
#include <sstream>

#include "report/figures.h"

namespace cc::report {
namespace {

using claims::AttributionSection;

std::string num(const std::optional<double>& v, const char* f = "%.2f") {
  if (!v) return "–";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, *v);
  return buf;
}

std::string signed_num(const std::optional<double>& v) { return num(v, "%+.2f"); }

std::string join(const std::vector<std::string>& list, const std::string& sep = ", ") {
  std::string s;
  for (const auto& x : list) s += (s.empty() ? "" : sep) + x;
  return s;
}

// "binding 5300–5400, var-restricted 14500–16000": each window the score measures, by its phase's label.
std::string windows_text(const AttributionSection& att) {
  std::string out;
  for (const auto& w : att.windows)
    out += (out.empty() ? "" : ", ") + w.label + " " + std::to_string(w.steps.low) + "–" + std::to_string(w.steps.high);
  return out;
}

// The score's accuracy terms, from paper.yaml: "G1, G2 below their thresholds and G4 from its
// reported value".
std::string score_terms_text(const AttributionSection& att) {
  std::vector<std::string> below, distance;
  for (const auto& t : att.accuracy_terms) (t.below_threshold ? below : distance).push_back(t.claim);
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + v[i];
    return s;
  };
  std::string s;
  if (!below.empty()) s += list(below) + " below " + (below.size() == 1 ? "its threshold" : "their thresholds");
  if (!below.empty() && !distance.empty()) s += "; ";
  if (!distance.empty())
    s += list(distance) + " from " + (distance.size() == 1 ? "its reported value" : "their reported values");
  return s.empty() ? "no claim" : s;
}

// The configurations that measured at least one failing claim, in the report's order.
std::vector<std::string> measured_configs(const AttributionSection& att) {
  std::vector<std::string> out;
  for (const auto& c : att.configs)
    for (const auto& cl : att.claims)
      if (cl.cells.count(c.id)) {
        out.push_back(c.id);
        break;
      }
  return out;
}

// The failing run claims whose effects stage 1 estimated (the same for every factor).
std::vector<std::string> effect_claims(const claims::Effects& e) {
  std::vector<std::string> ids;
  if (!e.factors.empty())
    for (const auto& [id, _] : e.factors[0].claims) ids.push_back(id);
  return ids;
}

// The screening's row with every factor low, which stage 2 confirms beside the chosen rows: the sweep's
// base run itself (catalogue/design.h), named as its design names it.
std::string all_low_row(const AttributionSection& att) {
  if (att.effects)
    for (const auto& row : att.effects->design.value("rows", nlohmann::json::array())) {
      bool low = true;
      for (const auto& [factor, level] : row["levels"].items()) low = low && level.get<int>() < 0;
      if (low) return "`" + row["variant"].get<std::string>() + "`";
    }
  return "the row that changes nothing";
}

// How much the score moves with nothing varied: from seed to seed, and from one engine to the other.
std::string noise_md(const claims::ScoreNoise& n) {
  std::ostringstream md;
  md << "\n### The score's noise\n\nFrom seed to seed: the spread (largest minus smallest per-seed score) of one "
        "configuration has a median of "
     << num(n.median_seed_spread) << " points over the " << n.configs_with_two_seeds
     << " configurations with two or more seeds.";
  if (n.engines.empty()) {
    md << " No configuration here was trained on both engines.\n";
    return md.str();
  }
  md << " The same configuration and seeds on the two engines (float rounding only: the blas engine's weights "
        "differ from libtorch's in the last bits, and training amplifies that):\n\n"
        "| libtorch | blas | per seed, libtorch / blas | blas − libtorch, mean |\n| --- | --- | --- | --- |\n";
  for (const auto& p : n.engines) {
    std::string per_seed;
    for (const auto& s : p.seeds)
      per_seed +=
          (per_seed.empty() ? "" : " ") + ("s" + std::to_string(s.seed) + ": " + num(s.libtorch) + " / " + num(s.blas));
    md << "| `" << p.libtorch << "` | `" << p.blas << "` | " << per_seed << " | " << signed_num(p.mean_difference)
       << " |\n";
  }
  return md.str();
}

std::string figure_md(const nlohmann::json& figures, const std::string& id) {
  if (!figures.is_object() || !figures.contains(id)) return "";
  const auto& f = figures[id];
  if (f.contains("file")) return "![" + f["caption"].get<std::string>() + "](" + f["file"].get<std::string>() + ")\n\n";
  return "(figure not drawn: " + f.value("text", f.value("error", std::string("?"))) + ")\n\n";
}

}  // namespace

nlohmann::json attribution_figures(const std::string& dir, const AttributionSection& att) {
  nlohmann::json figures = nlohmann::json::object();
  const auto configs = measured_configs(att);
  nlohmann::json ytics = nlohmann::json::array(), matrix = nlohmann::json::array();
  for (const auto& cl : att.claims) {
    if (cl.cells.empty()) continue;
    ytics.push_back(cl.id);
    nlohmann::json row = nlohmann::json::array();
    for (const auto& id : configs) {
      const auto cell = cl.cells.find(id);
      row.push_back(cell == cl.cells.end() || cell->second.n == 0
                        ? nlohmann::json(nullptr)
                        : nlohmann::json(static_cast<double>(cell->second.k) / static_cast<double>(cell->second.n)));
    }
    matrix.push_back(row);
  }
  if (!matrix.empty() && !configs.empty()) {
    const nlohmann::json spec = {
        {"type", "heatmap"},
        {"title", "Claims the default does not support: share of seeds passing, per configuration"},
        {"matrix", matrix},
        {"xtics", configs},
        {"ytics", ytics},
        {"cblabel", "seeds passing"},
        {"cbrange", {0, 1}},
        {"xtics_rotate", true},
        {"size", {std::max<int>(560, 40 * static_cast<int>(configs.size()) + 260), 620}}};
    figures["pass_rates"] = render_figure(dir, "figures/attribution-pass-rates.png", spec);
  }
  if (att.effects) {
    nlohmann::json xtics = nlohmann::json::array(), m = nlohmann::json::array();
    for (const auto& f : att.effects->factors) xtics.push_back(f.tag);
    const auto ids = effect_claims(*att.effects);
    for (const auto& id : ids) {
      nlohmann::json row = nlohmann::json::array();
      for (const auto& f : att.effects->factors) {
        const auto v = f.claims.at(id);
        row.push_back(v ? nlohmann::json(*v) : nlohmann::json(nullptr));
      }
      m.push_back(row);
    }
    if (!m.empty()) {
      const nlohmann::json spec = {
          {"type", "heatmap"},
          {"title", "Main effect of each choice on each claim (share of seeds passing, high - low)"},
          {"matrix", m},
          {"xtics", xtics},
          {"ytics", ids},
          {"cblabel", "effect on pass rate"},
          {"diverging", true},
          {"xtics_rotate", true},
          {"size", {640, 560}}};
      figures["effects"] = render_figure(dir, "figures/attribution-effects.png", spec);
    }
  }
  return figures;
}

namespace {

void per_claim_md(std::ostream& md, const AttributionSection& att, const nlohmann::json& figures) {
  md << "### Per claim\n\n| claim | on `" << att.default_run << "` | attribution |\n| --- | --- | --- |\n";
  for (const auto& c : att.claims) {
    std::string extra;
    if (c.candidates && !c.candidates->empty())
      extra = "<br>candidates (every seed passes, fewer than 5 seeds): " + join(*c.candidates);
    md << "| " << c.id << " | " << claims::verdict_name(c.default_verdict) << " | " << c.sentence << extra << " |\n";
  }
  md << "\n" << figure_md(figures, "pass_rates");
}

void configurations_md(std::ostream& md, const AttributionSection& att) {
  md << "### Configurations and their scores\n\nScore: the distance of a run's outcomes to the paper's numbers "
        "(percentage points of accuracy: "
     << score_terms_text(att) << "; plus each phase's distance to its window per " << num(att.steps_per_point, "%.0f")
     << " steps; " << windows_text(att)
     << "), the mean over seeds; lower is closer. Learned: " << join(att.learned, " and ")
     << " reached by the last step.\n\n"
     << "| configuration | choices that differ from `" << att.default_run
     << "` | seeds trained | learned | score | accuracy";
  for (const auto& w : att.windows) md << " + " << w.label;
  md << " | per seed |\n| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& c : att.configs) {
    std::string per_seed;
    for (const auto& [seed, s] : c.scores)
      per_seed += (per_seed.empty() ? "" : " ") + ("s" + std::to_string(seed) + ": " + num(s));
    std::string terms = "–";
    if (c.terms) {
      terms = num(c.terms->accuracy);
      for (double w : c.terms->windows) terms += " + " + num(w);
    }
    md << "| `" << c.id << "` | " << (c.changes.empty() ? "–" : join(c.changes)) << " | " << c.trained << "/"
       << c.seeds.size() << " | " << c.learned << " | " << num(c.score) << " | " << terms << " | "
       << (per_seed.empty() ? "–" : per_seed) << " |\n";
  }
}

void effects_md(std::ostream& md, const claims::Effects& e, const nlohmann::json& figures) {
  md << "\n### Stage 1: what each choice moves (main effects, sweep `" << e.sweep << "`)\n\n"
     << "Each factor's effect: the mean over the runs at its high level minus the mean at its low level (each seed a "
        "replicate), on the score (negative: closer to the paper), on the share of runs that learn the task, and on "
        "the share of seeds passing each claim the default does not support. A main effect of this resolution-III "
        "design is confounded with the two-factor interactions listed beside it.\n\n| factor | score | learned |";
  const auto ids = effect_claims(e);
  for (const auto& id : ids) md << " " << id << " |";
  md << " aliased with |\n| --- | --- | --- |";
  for (size_t i = 0; i < ids.size(); ++i) md << " --- |";
  md << " --- |\n";
  for (const auto& f : e.factors) {
    md << "| `" << f.tag << "` | " << signed_num(f.score) << " | " << signed_num(f.learned) << " |";
    for (const auto& id : ids) md << " " << signed_num(f.claims.at(id)) << " |";
    md << " " << (f.aliases.empty() ? "–" : join(f.aliases)) << " |\n";
  }
  md << "\n" << figure_md(figures, "effects");
}

void selection_md(std::ostream& md, const AttributionSection& att) {
  const auto& s = *att.selection;
  md << "### Stage 2: the rows that go on to 5 seeds\n\nRanked by score (ties: more seeds learning, then the name): "
     << join(s.ranking) << ". Chosen: **" << join(s.chosen) << "**, with " << all_low_row(att)
     << (s.complete ? "" : " (provisional: not every screening seed is measured yet)") << ".";
  if (s.confirm_sweep)
    md << (s.confirm_matches ? " The sweep `" + *s.confirm_sweep + "` holds exactly these rows."
                             : " **The sweep `" + *s.confirm_sweep +
                                   "` does not hold these rows: its rows differ from the rule's choice.**");
  md << "\n\n";
}

void default_rule_md(std::ostream& md, const claims::DefaultChange& r) {
  md << "### The rule for the default\n\nBest confirmed row: `" << r.best << "` (score " << num(r.best_score)
     << ", learned " << r.best_learned << ") against `" << r.base << "` (score " << num(r.base_score) << ", learned "
     << r.base_learned << "): Mann–Whitney U = " << num(r.test.u, "%.1f") << ", one-sided p = " << num(r.test.p, "%.3f")
     << " (alpha " << num(r.alpha) << "). Outcome: **" << (r.change ? "the default changes to it" : "the default stays")
     << "**" << (r.complete ? "" : " (provisional: not every confirmation seed is measured yet)") << ".\n";
}

}  // namespace

std::string attribution_markdown(const AttributionSection& att, const nlohmann::json& figures) {
  std::ostringstream md;
  md << "\n## Attribution: is a failing claim the paper's, or a choice it does not state?\n\n"
     << "For each claim the default run does not support, every configuration of the paper's unstated choices measured "
        "here (the attribution search's stages and the robustness sweep), with k of n seeds passing the claim's "
        "per-seed "
        "test. The design, the score, the stage sizes and the rules were committed before the first result "
        "(the paper's assumptions.md, \"Attribution\"); the score's terms are in its paper.yaml.\n\n";
  per_claim_md(md, att, figures);
  configurations_md(md, att);
  if (att.effects) effects_md(md, *att.effects, figures);
  if (att.selection) selection_md(md, att);
  if (att.default_rule) default_rule_md(md, *att.default_rule);
  md << noise_md(att.noise);
  return md.str();
}

}  // namespace cc::report
