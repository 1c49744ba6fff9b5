#include "catalogue/runs.h"

#include <functional>
#include <set>

#include "catalogue/config_keys.h"
#include "util/error.h"
#include "util/names.h"

namespace cc::catalogue {

Tier parse_tier(const std::string& s) {
  if (s == "fixture") return Tier::Fixture;
  if (s == "cpu") return Tier::Cpu;
  if (s == "gpu") return Tier::Gpu;
  throw Error("unknown tier '" + s + "' (fixture, cpu or gpu)");
}

std::string tier_name(Tier t) {
  switch (t) {
    case Tier::Fixture:
      return "fixture";
    case Tier::Cpu:
      return "cpu";
    default:
      return "gpu";
  }
}

train::RunConfig RunSpec::for_seed(uint64_t seed) const {
  train::RunConfig c = config;
  c.seed = seed;
  c.name = name;
  return c;
}

namespace {

// `base` with what `cfg` (a run's `config:` mapping) sets on top: each section's keys replace the
// base's, and errors point at the key that was written.
train::RunConfig config_over(const train::RunConfig& base, const ObjectReader& cfg, const YamlDoc& doc) {
  const nlohmann::json every = base.to_json(true);
  nlohmann::json j = every;
  std::map<std::string, SourcePos> marks = {{"", doc.at(cfg.pointer())}};
  for (const auto& [section, fields] : cfg.json().items()) {
    if (!fields.is_object()) cfg.fail(section, "expected one of task, model, train, each a mapping");
    for (const auto& [field, value] : fields.items()) {
      const std::string key = section + "." + field;
      const SourcePos pos = doc.at(cfg.pointer() + "/" + section + "/" + field);
      check_key(key, every, pos);
      j[nlohmann::json::json_pointer(pointer_of(key))] = value;
      mark_value(marks, key, pos);
    }
  }
  return config_from(j, doc.file, std::move(marks));
}

}  // namespace

Runs Runs::load(const std::string& path) {
  Runs runs;
  runs.path_ = path;
  YamlDoc doc = load_yaml_file(path);
  ObjectReader top(doc, "");
  ObjectReader all = top.object("runs");
  top.object_or_empty("sweeps");  // read below, once the runs they vary are known
  top.finish();
  // A run with `base: OTHER` starts from OTHER's config (every field) and changes only what its own
  // `config:` sets; bases resolve in any order, a cycle is an error.
  std::set<std::string> loading;
  std::function<const RunSpec&(const std::string&, const SourcePos&)> load_run =
      [&](const std::string& name, const SourcePos& from) -> const RunSpec& {
    if (auto it = runs.runs_.find(name); it != runs.runs_.end()) return it->second;
    if (!doc.value["runs"].contains(name)) throw Error(from, "unknown base run '" + name + "'");
    if (!loading.insert(name).second) throw Error(from, "run '" + name + "' is its own base (a cycle of base:)");
    ObjectReader r = all.object(name);
    RunSpec spec;
    spec.name = name;
    spec.where = doc.at("/runs/" + name);
    check_name(name, "run name", doc.key_at("/runs", name));
    spec.seeds = read_seeds(r);
    spec.tier = parse_tier(r.one_of("tier", {"cpu", "gpu"}, "cpu"));
    spec.committed = r.boolean("committed", true);
    if (r.has("base")) {
      const std::string base_name = r.string("base");
      const RunSpec& base = load_run(base_name, doc.at("/runs/" + name + "/base"));
      ObjectReader cfg = r.object_or_empty("config");
      spec.config = config_over(base.config, cfg, doc);
    } else {
      ObjectReader cfg = r.object("config");
      spec.config = train::RunConfig::from_yaml(cfg);
    }
    spec.config.name = name;
    r.finish();
    loading.erase(name);
    return runs.runs_[name] = std::move(spec);
  };
  for (const auto& [name, _] : doc.value["runs"].items()) load_run(name, doc.at("/runs/" + name));
  all.finish();
  runs.sweeps_ = load_sweeps(doc, [&runs](const std::string& run, uint64_t seed) -> std::optional<train::RunConfig> {
    const RunSpec* spec = runs.find(run);
    if (!spec) return std::nullopt;
    return spec->for_seed(seed);
  });
  for (const auto& sweep : runs.sweeps_)
    for (const auto& p : sweep.points) {
      if (!p.axes.contains(kVariantAxis) || p.seed != sweep.seeds.front()) continue;
      RunSpec spec;
      spec.name = sweep.name + "/" + p.axes[kVariantAxis].get<std::string>();
      spec.cache_name = sweep.name;
      spec.seeds = sweep.seeds;
      spec.tier = runs.runs_.at(sweep.base).tier;
      spec.config = p.config;
      spec.config.name = spec.name;
      spec.where = sweep.where;
      runs.runs_[spec.name] = std::move(spec);
    }
  return runs;
}

const SweepSpec* Runs::find_sweep(const std::string& name) const {
  for (const auto& s : sweeps_)
    if (s.name == name) return &s;
  return nullptr;
}

const RunSpec* Runs::find(const std::string& name) const {
  auto it = runs_.find(name);
  return it == runs_.end() ? nullptr : &it->second;
}

std::vector<std::string> Runs::names() const {
  std::vector<std::string> out;
  for (const auto& kv : runs_) out.push_back(kv.first);
  return out;
}

train::RunConfig load_run_config(const std::string& path, const std::string& run) {
  YamlDoc doc = load_yaml_file(path);
  if (doc.value.is_object() && doc.value.contains("runs")) {
    if (run.empty())
      throw Error(path + ": holds several runs; name one with --run (" + [&] {
        std::string s;
        for (const auto& kv : doc.value["runs"].items()) s += (s.empty() ? "" : ", ") + kv.key();
        return s;
      }() + ")");
    const Runs runs = Runs::load(path);
    const RunSpec* spec = runs.find(run);
    if (!spec) throw Error(path + ": no run named '" + run + "'");
    return spec->for_seed(spec->seeds.front());
  }
  if (!run.empty()) throw Error(path + ": is a single run config; --run does not apply");
  return train::RunConfig::from_yaml(ObjectReader(doc, ""));
}

}  // namespace cc::catalogue
