// Reproducibility claims (claims/repro): the measurement is a training, not an analysis.
//   train_twice_max_abs_diff  R1: the checkpoint's config and seed, trained `steps` steps twice
//                             in this process; max |w1 - w2| (0 = bitwise identical)
//   retrain_max_abs_diff      R2: the checkpoint's config and seed retrained from scratch to the
//                             checkpoint's step; max |w - w_committed|
//   fixture_integrity         R3: files of the checkpoint's fixture run whose sha256 differs
//                             from its run.json (or that are missing)
// Retraining uses the thread setup recorded in the checkpoint's sidecar: "the same platform"
// includes it, since a BLAS with another thread count may sum in another order.
#include <torch/torch.h>

#include <chrono>
#include <filesystem>

#include "analysis/activation_store.h"
#include "analysis/kinds.h"
#include "train/runtime.h"
#include "train/trainer.h"
#include "util/fixture_manifest.h"
#include "util/platform.h"
#include "util/provenance.h"

namespace cc::analysis {
namespace {

// Sets the thread counts recorded in the sidecar for the lifetime of the guard.
class RecordedThreads {
 public:
  // Restores the setup in effect before (the verifier's measurement threads), not the environment's default.
  explicit RecordedThreads(const nlohmann::json& sidecar) : before_(train::threads_in_effect()) {
    used_ = train::recorded_threads(sidecar, train::default_threads());
    train::apply_threads(used_);
  }
  ~RecordedThreads() { train::apply_threads(before_); }
  nlohmann::json describe() const {
    return {{"torch_threads", used_.torch_threads}, {"blas_threads", used_.blas_threads}};
  }

 private:
  train::ThreadSetup before_, used_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Trains cfg from scratch to `steps` in memory (no files, no metrics) and returns the trainer.
std::unique_ptr<train::Trainer> train_in_memory(train::RunConfig cfg, int64_t steps) {
  cfg.train.steps = steps;
  auto opts = train::TrainOptions::silent();
  auto trainer = std::make_unique<train::Trainer>(cfg, opts);
  trainer->run();
  return trainer;
}

nlohmann::json steps_param(ObjectReader r) {
  const int64_t steps = r.integer_in("steps", 500, 1, 1000000);
  r.finish();
  return {{"steps", steps}};
}

// R1 is about this process: it runs with the process's own thread setup.
Measurement train_twice(const MeasureInput& in) {
  const int64_t steps = in.params.at("steps").get<int64_t>();
  const auto t0 = std::chrono::steady_clock::now();
  auto first = train_in_memory(in.checkpoint.config, steps);
  auto second = train_in_memory(in.checkpoint.config, steps);
  Measurement out;
  out.value = model::max_abs_diff(first->model(), second->model());
  out.n = 1;
  out.details = {{"steps", steps},
                 {"seed", in.checkpoint.config.seed},
                 {"threads", {{"torch_threads", torch::get_num_threads()}}},
                 {"seconds", seconds_since(t0)}};
  return out;
}

// Bitwise equality with a committed checkpoint is expected only on the kernels it was trained with
// (util/platform.h). Elsewhere the claim cannot be judged: a FAIL would blame the code for the platform.
void require_recorded_kernels(const train::Checkpoint& ck) {
  const nlohmann::json runtime = ck.sidecar.value("runtime", nlohmann::json::object());
  const std::string want = recorded_blas_kernel(runtime), have = blas_kernel();
  const std::string want_aten = runtime.value("aten_cpu_capability", "avx2"), have_aten = train::aten_cpu_capability();
  if (!want.empty() && want == have && want_aten == have_aten) return;
  std::string why = unpinned_reason();
  throw Unavailable(ck.path + " was trained on OpenBLAS kernel '" + (want.empty() ? "(not recorded)" : want) +
                    "' and ATen " + want_aten + "; this process runs '" + (have.empty() ? "(not OpenBLAS)" : have) +
                    "' and " + have_aten + (why.empty() ? "" : " (" + why + ")") +
                    ", so bitwise reproduction is not expected here");
}

Measurement retrain(const MeasureInput& in) {
  require_recorded_kernels(in.checkpoint);
  const RecordedThreads threads(in.checkpoint.sidecar);
  const auto t0 = std::chrono::steady_clock::now();
  auto trainer = train_in_memory(in.checkpoint.config, in.checkpoint.step);
  Measurement out;
  out.value = model::max_abs_diff(trainer->model(), *in.checkpoint.model);
  out.n = 1;
  out.details = {{"steps", in.checkpoint.step},
                 {"seed", in.checkpoint.config.seed},
                 {"threads", threads.describe()},
                 {"compared_with", in.checkpoint.path},
                 {"seconds", seconds_since(t0)}};
  return out;
}

// R3 covers every committed run: the manifest of the fixtures tree the checkpoint lies in (the
// nearest MANIFEST.sha256 above it), every file it lists, nothing unlisted, and every run.json.
Measurement integrity(const MeasureInput& in) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(in.checkpoint.path).parent_path();
  fs::path root;
  for (fs::path p = dir; !p.empty() && p != p.root_path(); p = p.parent_path())
    if (fs::exists(p / kManifestName)) {
      root = p;
      break;
    }
  ManifestCheck tree;
  if (root.empty()) {
    tree.problems.push_back(dir.string() + ": no " + std::string(kManifestName) + " in it or any folder above");
  } else {
    // Every seed's checkpoint lies in one tree (380 MB for Assign and Add): each file hashed once per
    // verification, whichever seed asks first, for both the manifest and its run.json.
    tree = *derived<ManifestCheck>(in.activations, "analysis.fixture_integrity " + root.string(), [&] {
      ManifestCheck both;
      FileDigests digests;
      for (const ManifestCheck& c :
           {check_manifest(root.string(), &digests), check_fixture_tree(root.string(), &digests)}) {
        both.problems.insert(both.problems.end(), c.problems.begin(), c.problems.end());
        both.files += c.files;
      }
      return Derived<ManifestCheck>{both, 0};
    });
  }
  const std::vector<std::string>& problems = tree.problems;
  const int files = tree.files;
  Measurement out;
  out.value = static_cast<double>(problems.size());
  out.n = files;
  // The root as a path relative to here where there is one: a committed report names no machine's folders.
  std::error_code ec;
  const fs::path shown = root.empty() ? root : fs::relative(root, ec);
  out.details = {
      {"fixtures_root", (ec || shown.empty() ? root : shown).string()}, {"files", files}, {"problems", problems}};
  return out;
}

}  // namespace

void register_reproducibility(Registry& r) {
  // R2's and R3's kinds take no parameters.
  r.add(MeasurementKind("retrain_max_abs_diff", Statistic::Scalar, retrain,
                        "max |w - w_ckpt| after retraining the checkpoint's config and seed from scratch to its step"));
  r.add(MeasurementKind("fixture_integrity", Statistic::Scalar, integrity,
                        "problems in the fixtures tree holding the checkpoint: files missing, changed or unlisted in "
                        "MANIFEST.sha256, or differing from their run.json"));
  MeasurementKind twice(
      "train_twice_max_abs_diff", Statistic::Scalar, train_twice,
      "max |w1 - w2| after training the checkpoint's config and seed for `steps` steps twice in one process");
  twice.parse_params = steps_param;
  twice.params_doc = "steps (default 500)";
  r.add(std::move(twice));
}

}  // namespace cc::analysis
