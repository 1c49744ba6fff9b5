// Checkpoints: exact round trip; a corrupted or mismatched file fails loudly.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "train/checkpoint.h"
#include "train/runtime.h"
#include "util/error.h"
#include "test_helpers.h"

using namespace cc;
namespace fs = std::filesystem;

using cc::test::fresh_dir;

namespace {

train::RunConfig small_config() {
  train::RunConfig c;
  c.model.derive(c.task);
  return c;
}

std::string error_of(const std::string& path) {
  try {
    train::load_checkpoint(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Checkpoint, RoundTripIsBitwiseExact) {
  auto cfg = small_config();
  model::Transformer m(cfg.model);
  m.init(9);
  const auto dir = fresh_dir("ck_rt");
  train::save_checkpoint(dir, m, cfg, 42, {{"command", "test"}});
  auto ck = train::load_checkpoint(train::checkpoint_path(dir, 42));
  EXPECT_EQ(ck.step, 42);
  EXPECT_EQ(ck.sidecar["command"], "test");
  EXPECT_EQ(ck.config.weights_hash(), cfg.weights_hash());
  for (const auto& [name, t] : m.named_parameters()) EXPECT_TRUE(torch::equal(t, ck.model->param(name))) << name;
  EXPECT_EQ(train::list_checkpoints(dir), (std::vector<int64_t>{42}));
}

// Every sidecar carries runtime_info(): build_commit is the commit the binary was compiled from
// (recorded at build time, cmake/BuildCommit.cmake), beside git_commit, the checkout's when it runs.
TEST(Checkpoint, RuntimeNamesTheCommitTheBinaryWasBuiltFrom) {
  const auto rt = train::runtime_info();
  ASSERT_TRUE(rt.contains("build_commit"));
  const std::regex commit("([0-9a-f]{40}(-dirty)?|unknown)");
  EXPECT_TRUE(std::regex_match(rt["build_commit"].get<std::string>(), commit)) << rt["build_commit"];
  EXPECT_TRUE(std::regex_match(rt["git_commit"].get<std::string>(), commit)) << rt["git_commit"];
}

TEST(Checkpoint, FlippedByteFailsTheSha256Check) {
  auto cfg = small_config();
  model::Transformer m(cfg.model);
  m.init(9);
  const auto dir = fresh_dir("ck_flip");
  train::save_checkpoint(dir, m, cfg, 1, {});
  const auto path = train::checkpoint_path(dir, 1);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-10, std::ios::end);
    f.put('\x7f');
  }
  EXPECT_NE(error_of(path).find("does not match the sidecar"), std::string::npos) << error_of(path);
}

TEST(Checkpoint, TruncatedAndMissingSidecarAreClearErrors) {
  auto cfg = small_config();
  model::Transformer m(cfg.model);
  m.init(9);
  const auto dir = fresh_dir("ck_trunc");
  train::save_checkpoint(dir, m, cfg, 1, {});
  const auto path = train::checkpoint_path(dir, 1);
  fs::resize_file(path, fs::file_size(path) / 2);
  EXPECT_NE(error_of(path).find("not a valid safetensors file"), std::string::npos) << error_of(path);
  fs::remove(train::sidecar_path(path));
  EXPECT_NE(error_of(path).find("missing sidecar"), std::string::npos) << error_of(path);
}

TEST(Checkpoint, ShapeMismatchNamesTheTensor) {
  auto cfg = small_config();
  model::Transformer m(cfg.model);
  const auto dir = fresh_dir("ck_shape");
  train::save_checkpoint(dir, m, cfg, 1, {});
  // Claim a different architecture in the sidecar: the weights no longer fit.
  const auto side = train::sidecar_path(train::checkpoint_path(dir, 1));
  nlohmann::json j = nlohmann::json::parse(std::ifstream(side));
  j["config"]["model"]["d_mlp"] = 256;
  std::ofstream(side, std::ios::trunc) << j.dump();
  EXPECT_NE(error_of(train::checkpoint_path(dir, 1)).find("'blocks.1.mlp.W_in' has shape [128, 512]"), std::string::npos)
      << error_of(train::checkpoint_path(dir, 1));
}
