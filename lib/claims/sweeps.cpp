#include "claims/sweeps.h"

#include <algorithm>
#include <set>

#include "claims/design.h"
#include "claims/runs.h"
#include "util/error.h"
#include "util/names.h"

namespace cc::claims {
namespace {

const std::vector<std::string> kSections = {"task", "model", "train"};

std::string pointer_of(const std::string& key) {  // "task.pair_fraction" -> "/task/pair_fraction"
  const size_t dot = key.find('.');
  return "/" + key.substr(0, dot) + "/" + key.substr(dot + 1);
}

// Errors about `key`'s value, or about its whole section (a cross-field check), point at `pos`.
void mark_value(std::map<std::string, SourcePos>& marks, const std::string& key, const SourcePos& pos) {
  const std::string ptr = pointer_of(key);
  marks[ptr] = pos;
  marks[ptr.substr(0, ptr.rfind('/'))] = pos;
}

// Checks that `key` names a field of the run config ("task.pair_fraction"); fails at `where`.
void check_key(const std::string& key, const nlohmann::json& base, const SourcePos& where) {
  const size_t dot = key.find('.');
  const std::string section = dot == std::string::npos ? key : key.substr(0, dot);
  if (dot == std::string::npos || std::find(kSections.begin(), kSections.end(), section) == kSections.end())
    throw Error(where, "'" + key + "' is not a config key: expected task.X, model.X or train.X");
  const std::string field = key.substr(dot + 1);
  if (!base[section].contains(field)) {
    std::string known;
    for (const auto& kv : base[section].items()) known += (known.empty() ? "" : ", ") + kv.key();
    throw Error(where, "unknown config key '" + key + "' (" + section + " has: " + known + ")");
  }
}

// A run config built from `j`, with errors placed at the positions in `marks` (JSON pointer of
// the config -> where that value was written in the runs file).
train::RunConfig config_from(const nlohmann::json& j, const std::string& file, std::map<std::string, SourcePos> marks) {
  YamlDoc doc;
  doc.file = file;
  doc.value = j;
  doc.marks = std::move(marks);
  return train::RunConfig::from_yaml(ObjectReader(doc, ""));
}

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

std::string SweepPoint::label() const {
  std::string s;
  for (const auto& kv : axes.items()) s += kv.key() + "=" + value_text(kv.value()) + " ";
  return s + "seed=" + std::to_string(seed);
}

nlohmann::json SweepSpec::definition() const {
  nlohmann::json axes_json = nlohmann::json::array();
  for (const auto& a : axes) axes_json.push_back({{"key", a.key}, {"values", a.values}});
  nlohmann::json d = {{"name", name},
                      {"base", base},
                      {"seeds", seeds},
                      {"set", set},
                      {"axes", axes_json},
                      {"final_eval", {{"size", final_eval_size}, {"eval_seed", final_eval_seed}}}};
  if (!variants.empty()) d["variants"] = variants;
  if (!design.is_null()) d["design"] = design;
  return d;
}

std::vector<const SweepPoint*> SweepSpec::shard(size_t shard, size_t count) const {
  std::vector<const SweepPoint*> out;
  for (const auto& p : points)
    if (p.index % count == shard) out.push_back(&p);
  return out;
}

std::vector<SweepSpec> load_sweeps(const YamlDoc& doc, const Runs& runs) {
  std::vector<SweepSpec> out;
  if (!doc.value.is_object() || !doc.value.contains("sweeps")) return out;
  ObjectReader top(doc, "");
  ObjectReader all = top.object("sweeps");
  for (const auto& [name, _] : doc.value["sweeps"].items()) {
    const std::string at = "/sweeps/" + name;
    ObjectReader r = all.object(name);
    SweepSpec s;
    s.name = name;
    s.where = doc.at(at);
    check_name(name, "sweep name", s.where);
    if (runs.find(name)) r.fail("", "a sweep and a run may not share the name '" + name + "'");
    s.base = r.string("base");
    const RunSpec* base = runs.find(s.base);
    if (!base) r.fail("base", "unknown run '" + s.base + "'");
    for (int64_t seed : r.integers("seeds", {0})) {
      if (seed < 0 || seed > (int64_t{1} << 32)) r.fail("seeds", "seeds must be in [0, 2^32]");
      if (std::find(s.seeds.begin(), s.seeds.end(), static_cast<uint64_t>(seed)) != s.seeds.end())
        r.fail("seeds", "seed " + std::to_string(seed) + " is listed twice");
      s.seeds.push_back(static_cast<uint64_t>(seed));
    }
    if (s.seeds.empty()) r.fail("seeds", "needs at least one seed");
    // Every field, so that a key written only when set (train.engine, train.warmup_steps) is known.
    const nlohmann::json base_json = base->for_seed(s.seeds.front()).to_json(true);

    // set: {key: value}, each checked alone against the base config.
    std::map<std::string, SourcePos> set_marks;
    nlohmann::json with_set = base_json;
    if (r.has("set")) {
      ObjectReader set = r.object("set");
      for (const auto& kv : doc.value["sweeps"][name]["set"].items()) {
        const SourcePos pos = doc.at(at + "/set/" + kv.key());
        check_key(kv.key(), base_json, pos);
        set.raw(kv.key());
        with_set[nlohmann::json::json_pointer(pointer_of(kv.key()))] = kv.value();
        mark_value(set_marks, kv.key(), pos);
        s.set[kv.key()] = kv.value();
      }
      set.finish();
      config_from(with_set, doc.file, set_marks);
    } else {
      r.object_or_empty("set");
    }

    const int layouts = int{r.has("axes")} + int{r.has("variants")} + int{r.has("design")};
    if (layouts != 1)
      r.fail(r.has("axes") ? "axes" : "variants",
             "a sweep has one of axes (a grid), variants (named changes to the base) or design (a fractional factorial)");
    size_t combos = 1;
    if (r.has("variants") || r.has("design")) {
      // Named changes to the base, each a config of its own, errors at the value's position: written
      // out (variants: {name: {key: value}}) or generated by a design (its rows; a value's position
      // is the factor's high level).
      nlohmann::json all_variants = nlohmann::json::object();
      std::map<std::string, SourcePos> design_pos;  // config key -> where a design sets it
      if (r.has("design")) {
        const Design design = Design::from_yaml(r.object("design"), with_set);
        for (const auto& f : design.factors) {
          const SourcePos pos = doc.at(at + "/design/factors/" + f.name + "/high");
          for (const auto& [key, _] : f.high.items()) {
            check_key(key, base_json, doc.at(at + "/design/factors/" + f.name));
            if (s.set.contains(key)) throw Error(pos, "'" + key + "' is also fixed in 'set'");
            design_pos[key] = pos;
          }
        }
        for (const auto& row : design.rows) all_variants[row.variant] = row.changes;
        s.design = design.to_json();
      } else {
        all_variants = doc.value["sweeps"][name]["variants"];
        ObjectReader vr = r.object("variants");
        if (all_variants.empty()) r.fail("variants", "needs at least one variant");
        for (const auto& [vname, overrides] : all_variants.items()) {
          const std::string vpath = at + "/variants/" + vname;
          check_name(vname, "variant name", doc.at(vpath));
          if (!overrides.is_object()) vr.fail(vname, "expected {config key: value, ...} ({} for the base itself)");
          ObjectReader ov = vr.object(vname);
          for (const auto& [key, value] : overrides.items()) {
            check_key(key, base_json, doc.at(vpath + "/" + key));
            if (s.set.contains(key)) ov.fail(key, "is also fixed in 'set'");
            ov.raw(key);
          }
          ov.finish();
        }
        vr.finish();
      }
      SweepAxis axis;
      axis.key = kVariantAxis;
      for (const auto& [vname, overrides] : all_variants.items()) {
        nlohmann::json j = with_set;
        auto marks = set_marks;
        for (const auto& [key, value] : overrides.items()) {
          j[nlohmann::json::json_pointer(pointer_of(key))] = value;
          const auto dp = design_pos.find(key);
          mark_value(marks, key, dp != design_pos.end() ? dp->second : doc.at(at + "/variants/" + vname + "/" + key));
        }
        try {
          config_from(j, doc.file, marks);
        } catch (const Error& e) {
          throw Error(std::string(e.what()) + " (variant '" + vname + "' of sweep '" + name + "')");
        }
        axis.values.push_back(vname);
        s.variants[vname] = overrides;
      }
      combos = axis.values.size();
      if (combos * s.seeds.size() > kMaxSweepPoints)
        r.fail(r.has("design") ? "design" : "variants", "the sweep would have more than " + std::to_string(kMaxSweepPoints) + " points");
      s.axes.push_back(std::move(axis));
    } else {
      // axes: {key: [values]}, each value checked alone, at its own position.
      ObjectReader axes = r.object("axes");
      if (doc.value["sweeps"][name]["axes"].empty()) r.fail("axes", "needs at least one axis");
      for (const auto& kv : doc.value["sweeps"][name]["axes"].items()) {
        const std::string apath = at + "/axes/" + kv.key();
        check_key(kv.key(), base_json, doc.at(apath));
        if (s.set.contains(kv.key())) axes.fail(kv.key(), "is also fixed in 'set'");
        const nlohmann::json& list = axes.raw(kv.key());
        if (!list.is_array()) axes.fail(kv.key(), "expected a list of values");
        if (list.empty()) axes.fail(kv.key(), "has no values");
        SweepAxis axis;
        axis.key = kv.key();
        for (size_t i = 0; i < list.size(); ++i) {
          const SourcePos pos = doc.at(apath + "/" + std::to_string(i));
          for (const auto& seen : axis.values)
            if (seen == list[i] || (seen.is_number() && list[i].is_number() && seen.get<double>() == list[i].get<double>()))
              throw Error(pos, "axis '" + kv.key() + "': value " + value_text(list[i]) + " is listed twice");
          nlohmann::json j = with_set;
          j[nlohmann::json::json_pointer(pointer_of(kv.key()))] = list[i];
          auto marks = set_marks;
          mark_value(marks, kv.key(), pos);
          try {
            config_from(j, doc.file, marks);
          } catch (const Error& e) {
            throw Error(std::string(e.what()) + " (axis '" + kv.key() + "' of sweep '" + name + "')");
          }
          axis.values.push_back(list[i]);
        }
        combos *= axis.values.size();
        if (combos * s.seeds.size() > kMaxSweepPoints)
          axes.fail(kv.key(), "the sweep would have more than " + std::to_string(kMaxSweepPoints) + " points");
        s.axes.push_back(std::move(axis));
      }
      axes.finish();
    }

    ObjectReader fe = r.object_or_empty("final_eval");
    const int64_t size = fe.integer("size", s.final_eval_size);
    if (size < 1 || size > 1000000) fe.fail("size", "must be in [1, 1000000]");
    s.final_eval_size = static_cast<int>(size);
    const int64_t eval_seed = fe.integer_in("eval_seed", static_cast<int64_t>(s.final_eval_seed), 0, int64_t{1} << 62);
    s.final_eval_seed = static_cast<uint64_t>(eval_seed);
    fe.finish();
    s.committed = r.boolean("committed", true);
    r.finish();

    // Expand: axis combinations (first axis slowest), then seeds.
    for (size_t c = 0; c < combos; ++c) {
      nlohmann::json values = nlohmann::json::object();
      nlohmann::json j = with_set;
      size_t rest = c;
      for (size_t a = s.axes.size(); a-- > 0;) {
        const auto& axis = s.axes[a];
        const auto& v = axis.values[rest % axis.values.size()];
        rest /= axis.values.size();
        values[axis.key] = v;
        if (axis.key == kVariantAxis) {
          for (const auto& [key, value] : s.variants[v.get<std::string>()].items())
            j[nlohmann::json::json_pointer(pointer_of(key))] = value;
        } else {
          j[nlohmann::json::json_pointer(pointer_of(axis.key))] = v;
        }
      }
      for (uint64_t seed : s.seeds) {
        SweepPoint p;
        p.index = s.points.size();
        p.axes = values;
        p.seed = seed;
        j["seed"] = seed;
        j["name"] = name;
        try {
          p.config = config_from(j, doc.file, {{"", s.where}});
        } catch (const Error& e) {
          throw Error(std::string(e.what()) + " (sweep '" + name + "', point " + p.label() + ")");
        }
        p.config_hash = p.config.weights_hash();
        s.points.push_back(std::move(p));
      }
    }
    std::set<std::string> hashes;
    for (const auto& p : s.points)
      if (!hashes.insert(p.config_hash + "/" + std::to_string(p.seed)).second)
        throw Error(s.where, "sweep '" + name + "': two points train the same config (" + p.label() + ")");
    out.push_back(std::move(s));
  }
  all.finish();
  return out;
}

RunSpec point_run_spec(const SweepSpec& sweep, const SweepPoint& point) {
  RunSpec spec;
  spec.name = sweep.name;
  spec.seeds = {point.seed};
  spec.tier = Tier::Cpu;
  spec.config = point.config;
  spec.where = sweep.where;
  return spec;
}

}  // namespace cc::claims
