#include "claims/paper_facts.h"

#include "util/yaml_json.h"

namespace cc::claims {

PaperFacts PaperFacts::load(const std::string& path) {
  const YamlDoc doc = load_yaml_file(path);
  ObjectReader top(doc, "");
  PaperFacts f;
  ObjectReader ph = top.object("phases");
  auto window = [&](const std::string& key) {
    const auto v = ph.integers(key, {});
    if (v.size() != 2 || v[0] > v[1]) ph.fail(key, "expected [first step, last step]");
    return Window{v[0], v[1]};
  };
  f.binding = window("binding");
  f.refinement = window("refinement");
  ph.finish();
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
  top.finish();
  return f;
}

std::string window_text(const PaperFacts::Window& w) { return std::to_string(w.low) + "-" + std::to_string(w.high); }

}  // namespace cc::claims
