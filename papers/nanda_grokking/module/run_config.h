#pragma once
// One training run of the grokking paper: task, model, optimisation, seed. Read from one entry of
// papers/nanda_grokking/runs.yaml; written whole into every checkpoint sidecar (no C++ default decides
// what a committed run was: every field is written).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "model/config.h"
#include "papers/nanda_grokking/module/modular_addition.h"
#include "util/yaml_json.h"

namespace cc::nanda_grokking {

struct OptimConfig {
  int64_t steps = 0;  // full-batch steps (= epochs)
  double lr = 1e-3, weight_decay = 1.0, beta1 = 0.9, beta2 = 0.98, eps = 1e-8;
  int64_t warmup_steps = 10;     // the authors' code: lr · min(step / 10, 1)
  int64_t eval_every = 100;      // metrics.jsonl cadence
  int64_t checkpoint_every = 0;  // kept checkpoints (step 0 and the last are always kept)
  int64_t resume_every = 1000;   // AdamW state saved this often

  static OptimConfig from_yaml(ObjectReader r);
  nlohmann::json to_json() const;
  double lr_at(int64_t step) const;  // lr · min(step / warmup_steps, 1): the first step has rate 0
  bool keeps_checkpoint(int64_t step) const;
};

struct RunConfig {
  std::string name;
  uint64_t seed = 0;  // the weights' initialisation
  TaskConfig task;
  model::ModelConfig model;
  OptimConfig train;

  // A runs.yaml entry's config {task, model, train}; `seed` from the caller (runs list several).
  static RunConfig from_yaml(ObjectReader r, const std::string& name, uint64_t seed);
  static RunConfig from_json(const nlohmann::json& j);  // a sidecar's "config"
  nlohmann::json to_json() const;
};

// The entry `name` of a runs.yaml file (runs: NAME: {seeds, tier, config}) (cc::Error naming FILE:LINE for a bad one)
// and its seeds.
RunConfig read_run(const std::string& runs_yaml, const std::string& name, uint64_t seed);
std::vector<int64_t> run_seeds(const std::string& runs_yaml, const std::string& name);

}  // namespace cc::nanda_grokking
