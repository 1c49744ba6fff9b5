#include "claims/run_store.h"

#include <algorithm>
#include <filesystem>

#include "train/trainer.h"
#include "util/error.h"

namespace cc::claims {
namespace fs = std::filesystem;

RunStore::RunStore(const Runs& runs, StoreOptions options) : runs_(runs), opts_(std::move(options)) {}

std::string RunStore::fixture_dir(const RunSpec& spec, uint64_t seed) const {
  return opts_.fixtures_dir + "/" + spec.name + "/seed" + std::to_string(seed);
}

std::string RunStore::cache_dir(const RunSpec& spec, uint64_t seed) const {
  const std::string& prefix = spec.cache_name.empty() ? spec.name : spec.cache_name;
  return opts_.cache_dir + "/" + prefix + "-" + spec.for_seed(seed).weights_hash() + "/seed" + std::to_string(seed);
}

std::shared_ptr<const train::Checkpoint> RunStore::load(const std::string& path, const RunSpec& spec) {
  auto it = loaded_.find(path);
  if (it != loaded_.end()) return it->second;
  auto ck = std::make_shared<train::Checkpoint>(train::load_checkpoint(path, opts_.device));
  const std::string expect = spec.for_seed(ck->config.seed).weights_hash();
  if (ck->config.weights_hash() != expect)
    throw Error(path + ": was trained with config_hash " + ck->config.weights_hash() + ", but run '" + spec.name +
                "' in runs.yaml now hashes to " + expect + " (the config changed: retrain or restore it)");
  loaded_[path] = ck;
  return ck;
}

std::string RunStore::init_dir(const RunSpec& spec, uint64_t seed) const {
  const std::string& prefix = spec.cache_name.empty() ? spec.name : spec.cache_name;
  return opts_.cache_dir + "/init/" + prefix + "-" + spec.for_seed(seed).weights_hash() + "/seed" + std::to_string(seed);
}

std::vector<std::string> RunStore::dirs(const RunSpec& spec, uint64_t seed) const {
  std::vector<std::string> out = {fixture_dir(spec, seed), cache_dir(spec, seed)};
  // Another run with the same weights for this seed (e.g. robustness/default and default): its
  // fixtures and cache hold the same checkpoints, so reuse them instead of training again.
  const std::string hash = spec.for_seed(seed).weights_hash();
  for (const auto& name : runs_.names()) {
    const RunSpec& other = *runs_.find(name);
    if (other.name == spec.name || std::find(other.seeds.begin(), other.seeds.end(), seed) == other.seeds.end()) continue;
    if (other.for_seed(seed).weights_hash() != hash) continue;
    out.push_back(fixture_dir(other, seed));
    out.push_back(cache_dir(other, seed));
  }
  out.push_back(init_dir(spec, seed));
  return out;
}

std::shared_ptr<const train::Checkpoint> RunStore::get(const RunSpec& spec, uint64_t seed, int64_t step, std::string& why) {
  for (const auto& dir : dirs(spec, seed)) {
    const std::string path = train::checkpoint_path(dir, step);
    if (fs::exists(path)) {
      auto ck = load(path, spec);
      provenance_[spec.name + "/seed" + std::to_string(seed)] = {
          {"dir", dir}, {"train_wall_s", ck->sidecar.value("train_wall_s", 0.0)}, {"runtime", ck->sidecar.value("runtime", nlohmann::json())}};
      return ck;
    }
  }
  if (step == 0) {  // the initialisation only: no training, whatever the budget
    train::TrainOptions t;
    t.out_dir = init_dir(spec, seed);
    t.device = opts_.device;
    t.progress = false;
    t.stop_after = 0;
    t.command = "claimcheck train --config " + runs_.path() + " --run " + spec.name + " --seed " + std::to_string(seed) +
                " --stop-after 0 --out " + t.out_dir;
    fs::remove_all(t.out_dir);  // a half-written one from an interrupted process
    train::Trainer(spec.for_seed(seed), t).run();
    auto ck = load(train::checkpoint_path(t.out_dir, 0), spec);
    provenance_[spec.name + "/seed" + std::to_string(seed) + " (init)"] = {
        {"dir", t.out_dir}, {"train_wall_s", 0.0}, {"runtime", ck->sidecar.value("runtime", nlohmann::json())}};
    return ck;
  }
  if (opts_.budget < spec.tier) {
    why = "run '" + spec.name + "' seed " + std::to_string(seed) + " step " + std::to_string(step) +
          " is not in " + fixture_dir(spec, seed) + " nor the cache, and training it needs --budget " + tier_name(spec.tier);
    return nullptr;
  }
  if (spec.tier == Tier::Gpu && opts_.device.is_cpu()) {
    why = "run '" + spec.name + "' needs a GPU to train (--device cuda)";
    return nullptr;
  }
  const train::RunConfig cfg = spec.for_seed(seed);
  if (!cfg.train.keeps_checkpoint(step)) {
    why = "run '" + spec.name + "' does not keep a checkpoint at step " + std::to_string(step) +
          " (add it to train.checkpoint_steps in runs.yaml)";
    return nullptr;
  }
  train::TrainOptions t;
  t.out_dir = cache_dir(spec, seed);
  t.device = opts_.device;
  t.progress = opts_.progress;
  t.command = "claimcheck train --config " + runs_.path() + " --run " + spec.name + " --seed " + std::to_string(seed) +
              " --out " + t.out_dir;
  train::Trainer trainer(cfg, t);
  trainer.run();
  ++trainings_;
  return get(spec, seed, step, why);
}

}  // namespace cc::claims
