#include "claims/runs.h"

#include "util/error.h"
#include "util/names.h"

namespace cc::claims {

Tier parse_tier(const std::string& s) {
  if (s == "fixture") return Tier::Fixture;
  if (s == "cpu") return Tier::Cpu;
  if (s == "gpu") return Tier::Gpu;
  throw Error("unknown tier '" + s + "' (fixture, cpu or gpu)");
}

std::string tier_name(Tier t) {
  switch (t) {
    case Tier::Fixture: return "fixture";
    case Tier::Cpu: return "cpu";
    default: return "gpu";
  }
}

train::RunConfig RunSpec::for_seed(uint64_t seed) const {
  train::RunConfig c = config;
  c.seed = seed;
  c.name = name;
  return c;
}

Runs Runs::load(const std::string& path) {
  Runs runs;
  runs.path_ = path;
  YamlDoc doc = load_yaml_file(path);
  ObjectReader top(doc, "");
  ObjectReader all = top.object("runs");
  top.object_or_empty("sweeps");  // read below, once the runs they vary are known
  top.finish();
  for (const auto& [name, _] : doc.value["runs"].items()) {
    ObjectReader r = all.object(name);
    RunSpec spec;
    spec.name = name;
    spec.where = doc.at("/runs/" + name);
    check_name(name, "run name", spec.where);
    for (int64_t s : r.integers("seeds", {0})) {
      if (s < 0 || s > (int64_t{1} << 32)) r.fail("seeds", "seeds must be in [0, 2^32]");
      spec.seeds.push_back(static_cast<uint64_t>(s));
    }
    if (spec.seeds.empty()) r.fail("seeds", "needs at least one seed");
    spec.tier = parse_tier(r.one_of("tier", {"cpu", "gpu"}, "cpu"));
    ObjectReader cfg = r.object("config");
    spec.config = train::RunConfig::from_yaml(cfg);
    spec.config.name = name;
    r.finish();
    runs.runs_[name] = std::move(spec);
  }
  all.finish();
  runs.sweeps_ = load_sweeps(doc, runs);
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
    if (run.empty()) throw Error(path + ": holds several runs; name one with --run (" + [&] {
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

}  // namespace cc::claims
