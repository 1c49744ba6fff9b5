#pragma once
// Sweeps: named families of runs in a paper's runs.yaml, next to the runs they vary.
//   sweeps:
//     pair_fraction:
//       base: default                       # a run of `runs:`
//       seeds: [0, 1, 2]
//       set: {train.eval_every: 500}        # applied to every point (optional)
//       axes:
//         task.pair_fraction: [0.1, 0.25, 0.5]
//       final_eval: {size: 10000, eval_seed: 20260531}   # after training, on every named set
//       committed: false                    # its results are not in fixtures/ (default true)
// Instead of `axes` (a grid), a sweep may list `variants`: named changes to the base, one at a
// time (the robustness sweep over the paper's unstated choices):
//       variants:
//         base: {}
//         batch512: {train.batch_size: 512}
//         sv_s6: {task.restricted_first: [g, h], task.restricted_second: [a, b]}
// Its points have the one axis "variant" (the names, sorted). Or a `design:` generates the variants:
// the rows of a two-level fractional factorial over named factors (claims/design.h).
// A point is one combination of axis values and one seed: an ordinary run config with its own
// config hash, trained by the ordinary trainer into the ordinary run cache.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "train/run_config.h"
#include "util/yaml_json.h"

namespace cc::catalogue {

constexpr size_t kMaxSweepPoints = 1000;  // a larger sweep is almost certainly a typo
constexpr const char* kVariantAxis = "variant";

struct SweepAxis {
  std::string key;  // dotted config key: task.pair_fraction
  std::vector<nlohmann::json> values;
};

struct SweepPoint {
  size_t index = 0;     // position in plan order (axis combinations, then seeds)
  nlohmann::json axes;  // {"task.pair_fraction": 0.25}
  uint64_t seed = 0;
  train::RunConfig config;    // seed and name (= the sweep's name) set
  std::string config_hash;    // config.weights_hash()
  std::string label() const;  // "task.pair_fraction=0.25 seed=1"
};

struct SweepSpec {
  std::string name, base;
  std::vector<uint64_t> seeds;
  nlohmann::json set = nlohmann::json::object();       // dotted key -> value, every point
  std::vector<SweepAxis> axes;                         // with variants: the one axis kVariantAxis over their names
  nlohmann::json variants = nlohmann::json::object();  // name -> {dotted key: value}
  nlohmann::json design;  // null, or a `design:`'s factors and rows (claims/design.h): its rows are the variants
  int final_eval_size = 10000;
  uint64_t final_eval_seed = 0;  // runs.yaml's final_eval.eval_seed (a paper gives its claims' own seed)
  // Whether its results are committed (fixtures/sweeps/NAME for a grid, fixtures/NAME/VARIANT/seedK
  // for variants): `claimcheck fixtures verify` then requires them. `committed: false` in runs.yaml
  // for a sweep whose evidence lives elsewhere (batch_seeds: papers/assign_and_add/assumptions.md).
  bool committed = true;
  SourcePos where;
  std::vector<SweepPoint> points;  // expanded and validated at load

  nlohmann::json definition() const;  // what a manifest records
  // Points of shard `shard` of `count` (index % count == shard): interleaved, so every shard
  // gets a mix of axis values and seeds.
  std::vector<const SweepPoint*> shard(size_t shard, size_t count) const;
};

// A run's config for a seed, or nullopt when the runs file has no run of that name: what a sweep
// needs of the runs beside it (its base, and that no run shares its name). Runs::load passes it.
using BaseConfig = std::function<std::optional<train::RunConfig>(const std::string& run, uint64_t seed)>;

// Reads the `sweeps:` mapping of a runs file (absent: none), the second half of Runs::load. Every
// error names FILE:LINE:COL: an unknown base run or config key, an empty or duplicated axis value, a
// value the config rejects (with the position of that value), more than kMaxSweepPoints points.
std::vector<SweepSpec> load_sweeps(const YamlDoc& doc, const BaseConfig& run_config);

}  // namespace cc::catalogue
