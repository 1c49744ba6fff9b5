#pragma once
// Where checkpoints come from, in order: committed fixtures, the local cache (keyed by the
// hash of the run's full config), then training, if the budget allows. The step-0 checkpoint (the
// initialisation: the negative controls' "untrained model") is made at any budget when missing,
// since it costs no training: CACHE/init/RUN-HASH/seedK, with the step-0 metrics record. Each checkpoint is
// loaded once per process, and each run is trained at most once. Safe to share between threads.
#include <torch/types.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "catalogue/runs.h"
#include "train/checkpoint.h"
#include "util/fixture_manifest.h"

namespace cc::catalogue {

struct StoreOptions {
  std::string fixtures_dir = "fixtures";
  std::string cache_dir = "cache";
  Tier budget = Tier::Fixture;  // fixture: never train; cpu: train cpu-tier runs; gpu: any run
  torch::Device device = torch::kCPU;
  bool progress = false;
};

class RunStore {
 public:
  RunStore(const Runs& runs, StoreOptions options);

  // The checkpoint, or nullptr with `why` set when it is unavailable under the budget.
  // Throws cc::Error for a fixture that exists but is broken or from another config.
  std::shared_ptr<const train::Checkpoint> get(const RunSpec& spec, uint64_t seed, int64_t step, std::string& why);

  std::string fixture_dir(const RunSpec& spec, uint64_t seed) const;
  // Where get() looks, in order: the run's fixtures, its cache, then those of any other run whose
  // config for `seed` has the same weights hash.
  std::vector<std::string> dirs(const RunSpec& spec, uint64_t seed) const;
  std::string init_dir(const RunSpec& spec, uint64_t seed) const;
  std::string cache_dir(const RunSpec& spec, uint64_t seed) const;
  int trainings() const { return trainings_; }
  const StoreOptions& options() const { return opts_; }
  // Checks a committed file (a sweep summary) against fixtures/MANIFEST.sha256 before it is read;
  // checkpoints and the files beside them are checked by get(), a folder at a time.
  void require_intact(const std::string& fixture_file) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    guard_.require_file(fixture_file);
  }
  // Whether fixtures/MANIFEST.sha256 lists the file (then a missing one is an error, not "absent").
  bool committed(const std::string& fixture_file) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    return guard_.covers(fixture_file) && guard_.lists(fixture_file);
  }
  // What runs.yaml says is committed but fixtures/ lacks: every seed of every run and of every
  // committed variant sweep (in its own folder or an equal-config run's), the summary of every
  // committed grid sweep. One line per missing folder or file.
  std::vector<std::string> missing_fixtures() const;
  // Whether runs.yaml commits `spec`'s seeds as fixtures (every run's and sweep's not marked
  // `committed: false`), and whether a folder under the fixtures holds seed `seed` of it (its run.json).
  bool commits(const RunSpec& spec) const;
  // Whether the fixtures folder is a committed tree: it has a MANIFEST.sha256. Then what runs.yaml
  // commits and the tree lacks is an error, not data "not available" (get()).
  bool fixtures_committed() const;
  bool fixture_present(const RunSpec& spec, uint64_t seed) const;
  // Wall time of each run trained or found, for the report's provenance: "run/seedK" -> sidecar.
  const std::map<std::string, nlohmann::json>& provenance() const { return provenance_; }

 private:
  std::shared_ptr<const train::Checkpoint> load(const std::string& path, const RunSpec& spec);
  // Trains `spec` for `seed` into `dir` (to stop_after when >= 0), with the command that recreates it.
  void train_into(const RunSpec& spec, uint64_t seed, const std::string& dir, int64_t stop_after) const;
  const Runs& runs_;
  StoreOptions opts_;
  FixtureGuard guard_;
  std::map<std::string, std::shared_ptr<const train::Checkpoint>> loaded_;
  std::map<std::string, nlohmann::json> provenance_;
  int trainings_ = 0;
  // get() and require_intact() may be called from several claims' threads (verify --jobs): one at a
  // time, each checkpoint loaded and each run trained once.
  mutable std::recursive_mutex mu_;
};

}  // namespace cc::catalogue
