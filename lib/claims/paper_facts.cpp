#include "claims/paper_facts.h"

#include "train/task_data.h"
#include "util/yaml_json.h"

namespace cc::claims {

namespace {

// paper.yaml's `phases:` into f.phases and f.windows.
void read_phases(const YamlDoc& doc, ObjectReader ph, PaperFacts& f) {
  const auto& steps = ph.raw("steps");
  if (!steps.is_array() || steps.empty()) ph.fail("steps", "expected a list of {name, sets, level}");
  for (size_t i = 0; i < steps.size(); ++i) {
    ObjectReader s(doc, ph.pointer() + "/steps/" + std::to_string(i));
    analysis::PhaseDef def;
    def.name = s.string("name");
    // report.json holds a run's phases beside these two keys (analysis::to_json(PhaseSteps)).
    if (def.name.empty() || def.name == "last_step" || def.name == "learned")
      s.fail("name", "must be a name other than '', 'last_step' and 'learned'");
    if (f.phases.find(def.name)) s.fail("name", "phase '" + def.name + "' is defined twice");
    def.label = s.string("label", def.name);
    def.sets = s.strings("sets", {});
    if (def.sets.empty()) s.fail("sets", "expected the evaluation sets whose accuracy marks the phase");
    for (const auto& set : def.sets)  // a misspelt set would leave the phase never reached
      if (!train::is_known_eval_set(set)) s.fail("sets", "names no evaluation set of any task family: '" + set + "'");
    def.level = s.number("level");
    if (!(def.level > 0 && def.level <= 1)) s.fail("level", "must be an accuracy in (0, 1]");
    if (s.has("window")) {
      const auto v = s.integers("window", {});
      if (v.size() != 2 || v[0] > v[1]) s.fail("window", "expected [first step, last step]");
      f.windows.push_back({def.name, PaperFacts::Window{v[0], v[1]}});
    }
    s.finish();
    f.phases.phases.push_back(def);
  }
  f.phases.learned = ph.strings("learned", {});
  if (f.phases.learned.empty()) ph.fail("learned", "expected the phases a run must reach to learn the task");
  for (const auto& name : f.phases.learned)
    if (!f.phases.find(name)) ph.fail("learned", "names no phase of `steps`: '" + name + "'");
  ph.finish();
}

}  // namespace

PaperFacts PaperFacts::load(const std::string& path) {
  const YamlDoc doc = load_yaml_file(path);
  ObjectReader top(doc, "");
  PaperFacts f;
  read_phases(doc, top.object("phases"), f);
  ObjectReader at = top.object("attribution");
  const auto& terms = at.raw("score");
  if (!terms.is_array() || terms.empty()) at.fail("score", "expected a list of {claim, term}");
  for (size_t i = 0; i < terms.size(); ++i) {
    ObjectReader t(doc, at.pointer() + "/score/" + std::to_string(i));
    ScoreTerm term;
    term.claim = t.string("claim");
    term.below_threshold = t.one_of("term", {"below_threshold", "distance_to_reported"}, "") == "below_threshold";
    t.finish();
    f.accuracy_terms.push_back(term);
  }
  f.steps_per_point = at.number("steps_per_point");
  if (!(f.steps_per_point > 0)) at.fail("steps_per_point", "must be > 0");
  f.confirm_top = static_cast<int>(at.integer_in("confirm_top", f.confirm_top, 1, 100));
  f.holds_min_seeds = static_cast<int>(at.integer_in("holds_min_seeds", f.holds_min_seeds, 1, 1000));
  ObjectReader th = at.object_or_empty("thresholds");
  for (const auto& [from, _] : th.json().items()) f.thresholds[from] = th.string(from);
  th.finish();
  f.default_run = at.string("default_run");
  f.screen = at.string("screen");
  f.confirm = at.string("confirm");
  f.alpha = at.number("alpha");
  if (!(f.alpha > 0 && f.alpha < 1)) at.fail("alpha", "must be in (0, 1)");
  at.finish();
  top.object_or_empty("paper");  // the paper itself: the report header reads it (read_paper_header)
  if (top.has("cross_checks")) top.raw("cross_checks");  // the report reads them (report/cross_checks.h)
  if (top.has("fixtures")) top.raw("fixtures");          // the fixtures' folder (catalogue/paper_layout.h)
  if (top.has("report")) top.raw("report");              // the committed report's folder (the same)
  if (top.has("ladder")) top.raw("ladder");              // the scale ladder (claims/ladder.h)
  top.finish();
  return f;
}

void PaperFacts::check_keys(const std::string& path) {
  const YamlDoc doc = load_yaml_file(path);
  ObjectReader top(doc, "");
  // Each is read in full by its reader (paper_header, read_phases, load, report/cross_checks.h, ladder.h).
  for (const char* key : {"paper", "phases", "attribution", "cross_checks", "fixtures", "report", "ladder"})
    if (top.has(key)) top.raw(key);
  top.finish();
}

PaperFacts PaperFacts::load_phases(const std::string& path) {
  PaperFacts f;
  const YamlDoc doc = load_yaml_file(path);
  ObjectReader top(doc, "");
  if (top.has("phases")) read_phases(doc, top.object("phases"), f);
  return f;  // the rest of the file is load()'s to check
}

std::string window_text(const PaperFacts::Window& w) { return std::to_string(w.low) + "-" + std::to_string(w.high); }

}  // namespace cc::claims
