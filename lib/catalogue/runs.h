#pragma once
// A paper's runs.yaml: the named runs that claims refer to.
//   runs:
//     default:
//       seeds: [0, 1, 2]
//       tier: cpu              # what training it from scratch needs: cpu | gpu
//       config: {task: {...}, model: {...}, train: {...}}   # the full run config
//   sweeps: {...}              # optional: families of runs over a base run (claims/sweeps.h)
#include <map>
#include <string>
#include <vector>

#include "catalogue/sweeps.h"
#include "train/run_config.h"
#include "util/yaml_json.h"

namespace cc::catalogue {

enum class Tier { Fixture = 0, Cpu = 1, Gpu = 2 };
Tier parse_tier(const std::string& s);  // throws cc::Error
std::string tier_name(Tier t);

struct RunSpec {
  std::string name;        // a run of `runs:`, or SWEEP/VARIANT for a variant of a sweep
  std::string cache_name;  // the run cache's folder prefix when it is not `name` (a variant: its sweep's)
  std::vector<uint64_t> seeds;
  Tier tier = Tier::Cpu;
  // `committed: false`: its checkpoints are not in the fixtures (a rung still to be trained); then a
  // claim on it trains it under a budget that allows, or is SKIPPED, and `fixtures verify` does not ask.
  bool committed = true;
  train::RunConfig config;  // config.seed is a placeholder; the seed comes from `seeds`
  SourcePos where;
  train::RunConfig for_seed(uint64_t seed) const;
};

class Runs {
 public:
  static Runs load(const std::string& path);  // throws cc::Error with FILE:LINE:COL
  const RunSpec* find(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::string& path() const { return path_; }
  // The file's `sweeps:` (claims/sweeps.h): named families of runs over a base run.
  const SweepSpec* find_sweep(const std::string& name) const;
  // A sweep with variants also defines one run per variant, SWEEP/VARIANT (the sweep's seeds,
  // trained into the same cache folders as its points), so every run claim can be measured on
  // it: `claimcheck verify claims --run robustness/batch512`.
  const std::vector<SweepSpec>& sweeps() const { return sweeps_; }

 private:
  std::string path_;
  std::map<std::string, RunSpec> runs_;
  std::vector<SweepSpec> sweeps_;
};

// Reads a run config from either a plain run-config file or one entry of a runs file
// (`run` names it; required when the file has a top-level `runs:` mapping).
train::RunConfig load_run_config(const std::string& path, const std::string& run);

}  // namespace cc::catalogue
