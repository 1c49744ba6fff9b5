#include "catalogue/design.h"

#include <algorithm>
#include <set>

#include "util/error.h"
#include "util/names.h"

namespace cc::catalogue {
namespace {

constexpr size_t kMaxBaseFactors = 8;  // 256 rows: beyond that, a design is almost certainly a typo

nlohmann::json config_value(const nlohmann::json& config, const std::string& key) {
  const size_t dot = key.find('.');
  if (dot == std::string::npos) return nullptr;
  const auto section = config.find(key.substr(0, dot));
  if (section == config.end() || !section->is_object()) return nullptr;
  const auto field = section->find(key.substr(dot + 1));
  return field == section->end() ? nlohmann::json(nullptr) : *field;
}

bool same_value(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

// One factor: its tag, its low and high levels (one key, or {key: value} with the same keys); its low
// level must be the base run's own and differ from its high one. `tags` and `keys` are those of the
// factors read before it, which it may not reuse.
DesignFactor read_factor(ObjectReader& fr, const std::string& name, const YamlDoc& doc,
                         const nlohmann::json& base_config, std::set<std::string>& tags, std::set<std::string>& keys) {
  ObjectReader f = fr.object(name);
  DesignFactor factor;
  factor.name = name;
  factor.where = doc.at(f.pointer());
  check_name(name, "factor name", factor.where);
  factor.tag = f.string("tag", name);
  check_name(factor.tag, "factor tag", factor.where);
  if (factor.tag == "base") f.fail("tag", "'base' names the row with every factor low");
  if (!tags.insert(factor.tag).second) f.fail("tag", "tag '" + factor.tag + "' is used by another factor");
  if (f.has("key")) {  // one key: low and high are its values
    const std::string key = f.string("key");
    factor.low = {{key, f.raw("low")}};
    factor.high = {{key, f.raw("high")}};
  } else {  // several keys: low and high are {key: value} with the same keys
    factor.low = f.raw("low");
    factor.high = f.raw("high");
    if (!factor.low.is_object() || !factor.high.is_object() || factor.low.empty())
      f.fail("low", "without `key`, low and high are {config key: value, ...}");
    for (const auto& [key, _] : factor.low.items())
      if (!factor.high.contains(key)) f.fail("high", "sets no value for '" + key + "', which low sets");
    if (factor.high.size() != factor.low.size()) f.fail("high", "sets a key that low does not");
  }
  f.finish();
  bool differs = false;
  for (const auto& [key, low] : factor.low.items()) {
    if (!keys.insert(key).second) fr.fail(name, "'" + key + "' is varied by another factor");
    const nlohmann::json own = config_value(base_config, key);
    if (own.is_null()) fr.fail(name, "'" + key + "' is not a config key of the base run");
    if (!same_value(own, low))
      fr.fail(name, "its low level " + low.dump() + " is not the base run's " + key + " (" + own.dump() +
                        "): the row with every factor low must be the base run");
    differs = differs || !same_value(low, factor.high[key]);
  }
  if (!differs) fr.fail(name, "low and high are the same level");
  return factor;
}

// generators: {factor: [base factors]}: each a product of at least two distinct base factors, no two
// factors with one column (their effects could not be told apart).
void read_generators(ObjectReader& r, Design& d) {
  auto find = [&](const std::string& n) {
    return std::find_if(d.factors.begin(), d.factors.end(), [&](const DesignFactor& f) { return f.name == n; });
  };
  ObjectReader gr = r.object_or_empty("generators");
  for (const auto& [name, _] : gr.json().items()) {
    auto it = find(name);
    if (it == d.factors.end()) gr.fail(name, "'" + name + "' is not a factor");
    it->generator = gr.strings(name, {});
    if (it->generator.size() < 2) gr.fail(name, "a generator is the product of at least two base factors");
  }
  gr.finish();
  for (const auto& f : d.factors) {
    std::set<std::string> seen;
    for (const auto& g : f.generator) {
      auto it = find(g);
      if (it == d.factors.end() || !it->generator.empty())
        gr.fail(f.name, "'" + g + "' is not a base factor (a factor without a generator)");
      if (!seen.insert(g).second) gr.fail(f.name, "'" + g + "' is listed twice");
    }
  }
  for (size_t a = 0; a < d.factors.size(); ++a)
    for (size_t b = a + 1; b < d.factors.size(); ++b) {
      auto ga = d.factors[a].generator, gb = d.factors[b].generator;
      std::sort(ga.begin(), ga.end());
      std::sort(gb.begin(), gb.end());
      if (!ga.empty() && ga == gb)
        gr.fail(d.factors[b].name,
                "has the same generator as '" + d.factors[a].name + "': their effects could not be told apart");
    }
}

// The rows: every combination of the base factors' levels, each generated factor the product of its
// generator's columns; a row is named by the tags of its high factors ("base" when none).
void expand_rows(Design& d, const std::vector<const DesignFactor*>& base, const SourcePos& where) {
  const size_t n_rows = size_t{1} << base.size();
  for (size_t i = 0; i < n_rows; ++i) {
    DesignRow row;
    for (size_t b = 0; b < base.size(); ++b) row.levels[base[b]->name] = ((i >> b) & 1) ? 1 : -1;
    for (const auto& f : d.factors) {
      if (f.generator.empty()) continue;
      // The product of the generator's columns, with the sign that puts the row with every base
      // factor low in the fraction: a generator of even length takes the minus sign.
      int level = f.generator.size() % 2 == 0 ? -1 : 1;
      for (const auto& g : f.generator) level *= row.levels.at(g);
      row.levels[f.name] = level;
    }
    row.changes = nlohmann::json::object();
    for (const auto& f : d.factors) {
      if (row.levels.at(f.name) < 0) continue;
      row.variant += (row.variant.empty() ? "" : "-") + f.tag;
      for (const auto& [key, value] : f.high.items()) row.changes[key] = value;
    }
    if (row.variant.empty()) row.variant = "base";
    check_name(row.variant, "design row name (the tags of its high factors)", where);
    d.rows.push_back(std::move(row));
  }
}

}  // namespace

Design Design::from_yaml(ObjectReader r, const nlohmann::json& base_config) {
  Design d;
  ObjectReader fr = r.object("factors");
  std::set<std::string> tags, keys;
  for (const auto& [name, _] : fr.json().items())
    d.factors.push_back(read_factor(fr, name, r.doc(), base_config, tags, keys));
  fr.finish();
  if (d.factors.size() < 2) r.fail("factors", "a design needs at least two factors");
  read_generators(r, d);
  std::vector<const DesignFactor*> base;
  for (const auto& f : d.factors)
    if (f.generator.empty()) base.push_back(&f);
  if (base.size() > kMaxBaseFactors)
    r.fail("factors", "more than " + std::to_string(kMaxBaseFactors) + " base factors");
  r.finish();
  expand_rows(d, base, r.doc().at(r.pointer()));
  return d;
}

nlohmann::json Design::to_json() const {
  nlohmann::json factors_json = nlohmann::json::array(), rows_json = nlohmann::json::array();
  for (const auto& f : factors)
    factors_json.push_back(
        {{"name", f.name}, {"tag", f.tag}, {"low", f.low}, {"high", f.high}, {"generator", f.generator}});
  for (const auto& r : rows) rows_json.push_back({{"variant", r.variant}, {"levels", r.levels}});
  return {{"factors", factors_json}, {"rows", rows_json}};
}

}  // namespace cc::catalogue
