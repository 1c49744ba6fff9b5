#include "catalogue/run_store.h"

#include <algorithm>
#include <filesystem>

#include "catalogue/layout.h"
#include "catalogue/sweep_results.h"
#include "train/family.h"
#include "train/trainer.h"
#include "util/error.h"
#include "util/file_io.h"

namespace cc::catalogue {
namespace fs = std::filesystem;

namespace {

// A run's folder under a cache root (catalogue/layout.h), PREFIX the run's (or its sweep's) name.
std::string run_folder(const std::string& root, const RunSpec& spec, uint64_t seed) {
  const std::string& prefix = spec.cache_name.empty() ? spec.name : spec.cache_name;
  return cache_folder(root, prefix, spec.for_seed(seed).weights_hash(), seed);
}

// What the report's provenance table says of a checkpoint read: where from, how far trained, on what.
nlohmann::json provenance_of(const std::string& dir, int64_t step, double train_wall_s, const train::Checkpoint& ck) {
  return {{"dir", dir},
          {"step", step},
          {"train_wall_s", train_wall_s},
          {"device", ck.sidecar.value("device", "cpu")},
          {"runtime", ck.sidecar.value("runtime", nlohmann::json())}};
}

}  // namespace

RunStore::RunStore(const Runs& runs, StoreOptions options)
    : runs_(runs), opts_(std::move(options)), guard_(opts_.fixtures_dir) {}

std::string RunStore::fixture_dir(const RunSpec& spec, uint64_t seed) const {
  return opts_.fixtures_dir + "/" + spec.name + "/seed" + std::to_string(seed);
}

std::string RunStore::cache_dir(const RunSpec& spec, uint64_t seed) const {
  return run_folder(opts_.cache_dir, spec, seed);
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
  return run_folder(opts_.cache_dir + "/init", spec, seed);
}

std::vector<std::string> RunStore::dirs(const RunSpec& spec, uint64_t seed) const {
  std::vector<std::string> out = {fixture_dir(spec, seed), cache_dir(spec, seed)};
  // Another run with the same weights for this seed (e.g. robustness/default_beta2_0999 and the run
  // default_beta2_0999): its fixtures and cache hold the same checkpoints, so reuse them instead of training again.
  const std::string hash = spec.for_seed(seed).weights_hash();
  for (const auto& name : runs_.names()) {
    const RunSpec& other = *runs_.find(name);
    if (other.name == spec.name || std::find(other.seeds.begin(), other.seeds.end(), seed) == other.seeds.end())
      continue;
    if (other.for_seed(seed).weights_hash() != hash) continue;
    out.push_back(fixture_dir(other, seed));
    out.push_back(cache_dir(other, seed));
  }
  out.push_back(init_dir(spec, seed));
  return out;
}

std::shared_ptr<const train::Checkpoint> RunStore::get(const RunSpec& spec, uint64_t seed, int64_t step,
                                                       std::string& why) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  for (const auto& dir : dirs(spec, seed)) {
    const std::string path = train::checkpoint_path(dir, step);
    // A folder under fixtures/ is checked whole before it is read, or passed over while the manifest
    // lists files in it: every file as fixtures/MANIFEST.sha256 lists it, and nothing unlisted beside
    // them. A listed file that was deleted (or the whole folder) is an error here, never a checkpoint
    // that "is not available".
    const bool present = path_present(path);
    if (guard_.covers(dir) && (present || guard_.lists_under(dir))) guard_.require_dir(dir);
    if (present) {
      auto ck = load(path, spec);
      if (ck->config.seed != seed)  // a checkpoint copied into another seed's folder
        throw Error(path + ": its sidecar says seed " + std::to_string(ck->config.seed) +
                    ", but it stands in the folder of seed " + std::to_string(seed));
      // The latest checkpoint read stands for the run (a negative control's step 0 must not hide it).
      auto& entry = provenance_[spec.name + "/seed" + std::to_string(seed)];
      if (entry.is_null() || entry.value("step", int64_t{-1}) <= step)
        entry = provenance_of(dir, step, ck->sidecar.value("train_wall_s", 0.0), *ck);
      return ck;
    }
  }
  if (step == 0) {  // the initialisation only: no training, whatever the budget
    const std::string dir = init_dir(spec, seed);
    fs::remove_all(dir);  // a half-written one from an interrupted process
    train_into(spec, seed, dir, /*stop_after=*/0);
    auto ck = load(train::checkpoint_path(dir, 0), spec);
    provenance_[spec.name + "/seed" + std::to_string(seed) + " (init)"] =
        provenance_of(dir, 0, 0.0, *ck);  // made here: no training
    return ck;
  }
  // In a committed fixtures tree (one with a manifest), a seed runs.yaml commits whose folder is gone
  // (deleted with its manifest lines) is an error where this budget cannot train it: never a seed
  // that is merely "not available", which would let the other seeds decide the verdict.
  const bool cannot_train = opts_.budget < spec.tier || (spec.tier == Tier::Gpu && opts_.device.is_cpu());
  if (cannot_train && fixtures_committed() && commits(spec) && !fixture_present(spec, seed))
    throw Error(fixture_dir(spec, seed) + ": missing: " + runs_.path() + " commits run '" + spec.name + "' seed " +
                std::to_string(seed) + " and no folder under " + opts_.fixtures_dir +
                " holds it (`claimcheck fixtures verify` lists what is missing; --budget " + tier_name(spec.tier) +
                " would train it)");
  if (opts_.budget < spec.tier) {
    why = "run '" + spec.name + "' seed " + std::to_string(seed) + " step " + std::to_string(step) + " is not in " +
          fixture_dir(spec, seed) + " nor the cache, and training it needs --budget " + tier_name(spec.tier);
    return nullptr;
  }
  if (spec.tier == Tier::Gpu && opts_.device.is_cpu()) {
    why = "run '" + spec.name + "' needs a GPU to train (--device cuda)";
    return nullptr;
  }
  if (!spec.for_seed(seed).train.keeps_checkpoint(step)) {
    why = "run '" + spec.name + "' does not keep a checkpoint at step " + std::to_string(step) +
          " (add it to train.checkpoint_steps in runs.yaml)";
    return nullptr;
  }
  train_into(spec, seed, cache_dir(spec, seed), /*stop_after=*/-1);
  ++trainings_;
  return get(spec, seed, step, why);
}

bool RunStore::fixtures_committed() const { return path_present(opts_.fixtures_dir + "/" + kManifestName); }

bool RunStore::commits(const RunSpec& spec) const {
  if (!spec.committed) return false;
  const SweepSpec* sweep = spec.cache_name.empty() ? nullptr : runs_.find_sweep(spec.cache_name);
  return !sweep || sweep->committed;
}

bool RunStore::fixture_present(const RunSpec& spec, uint64_t seed) const {
  const std::string root = opts_.fixtures_dir + "/";
  const auto ds = dirs(spec, seed);
  return std::any_of(ds.begin(), ds.end(),
                     [&](const std::string& d) { return d.rfind(root, 0) == 0 && path_present(d + "/run.json"); });
}

std::vector<std::string> RunStore::missing_fixtures() const {
  std::vector<std::string> out;
  for (const auto& name : runs_.names()) {
    const RunSpec& spec = *runs_.find(name);
    if (!commits(spec)) continue;
    for (uint64_t seed : spec.seeds) {
      if (!fixture_present(spec, seed))
        out.push_back(fixture_dir(spec, seed) + ": missing (runs.yaml commits run '" + name + "' seed " +
                      std::to_string(seed) + ", and no equal-config run's folder holds it)");
    }
  }
  for (const auto& sweep : runs_.sweeps()) {
    if (!sweep.committed || !sweep.variants.empty()) continue;
    const std::string summary = summary_path(sweep_fixtures_dir(opts_.fixtures_dir, sweep.name));
    if (!path_present(summary)) out.push_back(summary + ": missing (runs.yaml commits sweep '" + sweep.name + "')");
  }
  return out;
}

void RunStore::train_into(const RunSpec& spec, uint64_t seed, const std::string& dir, int64_t stop_after) const {
  train::TrainOptions t;
  t.out_dir = dir;
  t.device = opts_.device;
  t.progress = opts_.progress && stop_after != 0;
  t.stop_after = stop_after;
  t.command = "claimcheck train --config " + runs_.path() + " --run " + spec.name + " --seed " + std::to_string(seed) +
              (stop_after >= 0 ? " --stop-after " + std::to_string(stop_after) : std::string()) + " --out " + dir;
  train::Trainer(spec.for_seed(seed), t).run();  // on the batches of the run's task family
}

}  // namespace cc::catalogue
