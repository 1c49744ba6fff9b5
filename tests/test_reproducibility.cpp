// The reproducibility kinds (R1-R3) must be able to fail: each is run once where the answer is
// "identical" and once on a deliberately different input.
#include <gtest/gtest.h>

#include "test_helpers.h"
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "analysis/registry.h"
#include "train/checkpoint.h"
#include "train/trainer.h"
#include "util/fixture_manifest.h"
#include "util/sha256.h"
#include "train_helpers.h"

using namespace cc;
namespace fs = std::filesystem;

namespace {

// Batch 32, 20 sequences per evaluation set: R1/R2 train twice.
train::RunConfig tiny32(int64_t steps) { return cc::test::tiny_run(steps, 0, 32, 20); }

analysis::Measurement measure(const std::string& kind, const train::Checkpoint& ck, const std::string& yaml = "{}") {
  const auto* k = analysis::builtin_registry().find(kind);
  EXPECT_NE(k, nullptr) << kind;
  auto doc = load_yaml_string(yaml, "params.yaml");
  return k->measure(analysis::MeasureInput{ck, k->parse_params(ObjectReader(doc, ""))});
}

// A checkpoint of tiny32(steps) trained into `dir`, loaded back.
train::Checkpoint trained(const std::string& dir, int64_t steps) {
  fs::remove_all(dir);
  train::TrainOptions o;
  o.out_dir = dir;
  o.progress = false;
  train::Trainer(tiny32(steps), o).run();
  return train::load_checkpoint(train::checkpoint_path(dir, steps));
}

}  // namespace

TEST(Reproducibility, TrainTwiceIsBitwiseIdentical) {
  const auto ck = trained(cc::test::fresh_dir("repro_twice"), 1);
  const auto m = measure("train_twice_max_abs_diff", ck, "{steps: 8}");
  EXPECT_EQ(m.value, 0.0);
  EXPECT_EQ(m.details["steps"], 8);
}

TEST(Reproducibility, RetrainMatchesItsCheckpointAndNotATamperedOne) {
  auto ck = trained(cc::test::fresh_dir("repro_retrain"), 12);
  EXPECT_EQ(measure("retrain_max_abs_diff", ck).value, 0.0);
  // The same checkpoint with one weight nudged: the retrained model no longer matches.
  std::map<std::string, torch::Tensor> w;
  for (const auto& [name, t] : ck.model->named_parameters()) w[name] = t.detach().clone();
  w["unembed.W_U"][0][0] += 1e-3f;
  ck.model->load(w);
  EXPECT_NEAR(measure("retrain_max_abs_diff", ck).value, 1e-3, 1e-5);
  // And a checkpoint recorded at another step is not what retraining to this step gives.
  ck.step = 11;
  EXPECT_GT(measure("retrain_max_abs_diff", ck).value, 0.0);
}

TEST(Reproducibility, FixtureIntegrityFindsAChangedAMissingAndAnUnlistedFile) {
  // A fixtures tree of one run: ROOT/MANIFEST.sha256 and ROOT/tiny/seed0/{checkpoints, metrics, run.json}.
  const std::string root = cc::test::fresh_dir("repro_integrity");
  const std::string dir = root + "/tiny/seed0";
  const auto ck = trained(dir, 1);
  const std::string weights = train::checkpoint_path(dir, 1);
  {
    std::ofstream run(dir + "/run.json");
    run << "{\"sha256\": {\"step000001.safetensors\": \"" << sha256_file(weights) << "\", \"metrics.jsonl\": \""
        << sha256_file(dir + "/metrics.jsonl") << "\"}}";
  }
  write_manifest(root);
  EXPECT_EQ(measure("fixture_integrity", ck).value, 0.0);
  {
    std::ofstream append(dir + "/metrics.jsonl", std::ios::app);
    append << "\n";
  }
  auto m = measure("fixture_integrity", ck);
  EXPECT_EQ(m.value, 2.0) << m.details.dump();  // the manifest and run.json both say so
  EXPECT_NE(m.details["problems"][0].get<std::string>().find("metrics.jsonl: sha256 differs from MANIFEST.sha256"),
            std::string::npos);
  EXPECT_NE(m.details["problems"][1].get<std::string>().find("metrics.jsonl: sha256 differs from run.json"),
            std::string::npos);
  fs::remove(weights);
  EXPECT_EQ(measure("fixture_integrity", ck).value, 4.0);
  write_manifest(root);
  std::ofstream(dir + "/planted.safetensors") << "x";
  m = measure("fixture_integrity", ck);
  EXPECT_NE(m.details.dump().find("planted.safetensors: not listed in MANIFEST.sha256"), std::string::npos)
      << m.details.dump();
  fs::remove(root + "/MANIFEST.sha256");
  m = measure("fixture_integrity", ck);  // no manifest at all is a problem too
  EXPECT_EQ(m.value, 1.0);
  EXPECT_NE(m.details["problems"][0].get<std::string>().find("no MANIFEST.sha256 in it or any folder above"),
            std::string::npos);
}

TEST(Reproducibility, StepsParameterIsValidated) {
  const auto* k = analysis::builtin_registry().find("train_twice_max_abs_diff");
  auto doc = load_yaml_string("{steps: 0}", "claim.yaml");
  try {
    k->parse_params(ObjectReader(doc, ""));
    FAIL() << "steps: 0 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("claim.yaml:1:9"), std::string::npos) << e.what();
  }
}
