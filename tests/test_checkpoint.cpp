// Checkpoints: exact round trip; a corrupted or mismatched file fails loudly.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>

#include "train/checkpoint.h"
#include "train/metrics_log.h"
#include "train/run_config.h"
#include "train/runtime.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/platform.h"
#include "test_helpers.h"
#include "papers/assign_and_add/module/task_family.h"

using namespace cc;
namespace fs = std::filesystem;

using cc::test::fresh_dir;

namespace {

train::RunConfig small_config() {
  train::RunConfig c = assign_and_add::run_config();
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

// A step-1 checkpoint of small_config, initialised with seed 9, in a fresh folder: the file the
// corruption tests damage.
std::string saved_checkpoint(const std::string& tag) {
  auto cfg = small_config();
  model::Transformer m(cfg.model);
  m.init(9);
  const auto dir = fresh_dir(tag);
  train::save_checkpoint(dir, m, cfg, 1, {});
  return train::checkpoint_path(dir, 1);
}

TEST(Checkpoint, FlippedByteFailsTheSha256Check) {
  const auto path = saved_checkpoint("ck_flip");
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-10, std::ios::end);
    f.put('\x7f');
  }
  EXPECT_NE(error_of(path).find("does not match the sidecar"), std::string::npos) << error_of(path);
}

TEST(Checkpoint, TruncatedAndMissingSidecarAreClearErrors) {
  const auto path = saved_checkpoint("ck_trunc");
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
  EXPECT_NE(error_of(train::checkpoint_path(dir, 1)).find("'blocks.1.mlp.W_in' has shape [128, 512]"),
            std::string::npos)
      << error_of(train::checkpoint_path(dir, 1));
}

// ---- The metrics log a verdict rests on: every bad record refused with FILE:LINE ----------------

namespace {

std::string metrics_file(const std::string& name, const std::string& text) {
  const std::string path = cc::test::test_path(name);
  std::ofstream(path) << text;
  return path;
}

const char* kGood =
    R"({"step":0,"wall_s":1.0,"acc":{"test_0":0.01},"loss":{"test_0":4.3},"n":{"test_0":1000}})"
    "\n"
    R"({"step":100,"wall_s":2.0,"train_loss":3.1,"acc":{"test_0":0.2},"loss":{"test_0":3.0},"n":{"test_0":1000}})"
    "\n";

}  // namespace

TEST(MetricsLog, ReadsAGoodLog) { EXPECT_EQ(train::MetricsLog::read(metrics_file("good.jsonl", kGood)).size(), 2u); }

TEST(MetricsLog, RefusesBadRecordsNamingFileAndLine) {
  const std::string line0 = R"({"step":0,"acc":{"test_0":0.01},"n":{"test_0":1000}})"
                            "\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {line0 + R"({"step":100,"acc":{"test_0":null},"n":{"test_0":1000}})"
               "\n",
       ":2:1: acc.test_0 is null"},
      {line0 + R"({"step":100,"acc":{"test_0":1.7},"n":{"test_0":1000}})"
               "\n",
       ":2:1: acc.test_0 is 1.7"},
      {line0 + R"({"step":100,"acc":{"test_0":0.5},"n":{"test_0":-3}})"
               "\n",
       ":2:1: n.test_0 is -3"},
      {line0 + R"({"step":100,"train_loss":null,"acc":{"test_0":0.5}})"
               "\n",
       ":2:1: train_loss is null"},
      {line0 + R"({"step":100,"acc":{"test_0":"0.5"}})"
               "\n",
       ":2:1: acc.test_0 is \"0.5\""},
      // Other families' metrics, by name (the grokking and Bietti logs): read as written before, so
      // grokking's N2 took an accuracy of 1.5 and Bietti's B8 a recall of 7.
      {line0 + R"({"step":100,"test_accuracy":1.5})"
               "\n",
       ":2:1: test_accuracy is 1.5; expected a number in [0, 1]"},
      {line0 + R"({"step":100,"sum_squared_weights":-5})"
               "\n",
       ":2:1: sum_squared_weights is -5; expected a finite number >= 0"},
      {line0 + R"({"step":100,"memory_recall":{"W_K1":7}})"
               "\n",
       ":2:1: memory_recall.W_K1 is 7; expected a number in [0, 1]"},
      {line0 + R"({"step":100,"test_loss":-0.5})"
               "\n",
       ":2:1: test_loss is -0.5"},
      {line0 + R"({"step":100,"some_statistic":null})"
               "\n",
       ":2:1: some_statistic is null; expected a finite number"},
      {line0 + line0, ":2:1: step 0 after step 0 (a duplicate)"},
      {R"({"step":100})"
       "\n" +
           line0,
       ":2:1: step 0 after step 100 (out of order)"},
      {line0 + R"({"step":-100})"
               "\n",
       ":2:1: metrics record has a negative step"},
      {line0 + R"({"step":100,"acc":{"test_0":0.5}})", ":2:1: the last record has no newline (truncated?)"},
      {line0 + R"({"step":100,"acc":{"te)", ":2:1: metrics record is not valid JSON"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = metrics_file("bad" + std::to_string(i) + ".jsonl", cases[i].first);
    try {
      train::MetricsLog::read(path);
      ADD_FAILURE() << "case " << i << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + cases[i].second), std::string::npos)
          << "case " << i << ": " << e.what();
    }
  }
}

TEST(MetricsLog, AResumedLogDropsATornLastRecord) {
  // A process killed mid-append leaves half a line; resuming at step 100 re-logs from there.
  const std::string path = metrics_file("torn.jsonl", std::string(kGood) + R"({"step":200,"acc":{"te)");
  train::MetricsLog log(path, 101);
  EXPECT_TRUE(log.has(100));
  EXPECT_EQ(train::MetricsLog::read(path).size(), 2u);
}

// ---- Disk full: a clear error, and nothing half-written left behind --------------------------------

TEST(AtomicFile, AFailedWriteIsAClearErrorAndLeavesNoTmp) {
  const std::string dir = cc::test::fresh_dir("full");
  const std::string path = dir + "/step000100.safetensors";
  std::ofstream(path) << "the previous version";
  // A file-size limit stands for a full disk (a test cannot fill one): every write past 1 KiB fails
  // (EFBIG, SIGXFSZ ignored), for this one write; the limit is put back before anything is checked.
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  const rlimit small{1024, before.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string what;
  try {
    cc::write_file_atomic(path, std::string(1 << 16, 'x'));
  } catch (const WriteError& e) {
    what = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &before);
  ::signal(SIGXFSZ, old_handler);
  EXPECT_NE(what.find("write failed"), std::string::npos) << "no WriteError: '" << what << "'";
  EXPECT_NE(what.find(path + " is unchanged"), std::string::npos) << what;
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(path + ".tmp"))) << "the .tmp was left behind";
  std::ifstream in(path);
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "the previous version");
}

// A link planted where the .tmp goes (to another file, or to /dev/full) is removed, never written through.
TEST(AtomicFile, APlantedTmpLinkIsNotWrittenThrough) {
  const std::string dir = cc::test::fresh_dir("planted");
  const std::string path = dir + "/report.json", victim = dir + "/victim";
  std::ofstream(victim) << "not the report";
  std::filesystem::create_symlink(victim, path + ".tmp");
  cc::write_file_atomic(path, "the report");
  std::ifstream v(victim), r(path);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(v)), std::istreambuf_iterator<char>()), "not the report");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(r)), std::istreambuf_iterator<char>()), "the report");
  EXPECT_FALSE(std::filesystem::is_symlink(path));
}

// ---- The platform a bitwise result depends on --------------------------------------------------------

TEST(Platform, ReadsTheKernelFromOldSidecarsAndRecordsItInNewOnes) {
  // Sidecars written before blas_kernel was recorded: the kernel stands before MAX_THREADS.
  const nlohmann::json old = {
      {"blas", "OpenBLAS OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"}};
  EXPECT_EQ(cc::recorded_blas_kernel(old), "Haswell");
  EXPECT_EQ(cc::recorded_blas_kernel(nlohmann::json{{"blas", "unknown (not OpenBLAS)"}}), "");
  const nlohmann::json rt = train::runtime_info();
  EXPECT_EQ(rt.at("blas_kernel"), cc::blas_kernel());
  EXPECT_TRUE(rt.at("aten_cpu_capability") == "avx2" || rt.at("aten_cpu_capability") == "avx512" ||
              rt.at("aten_cpu_capability") == "default");
  EXPECT_EQ(cc::recorded_blas_kernel(rt), cc::blas_kernel());
}

TEST(Platform, KnowsWhatAKernelNeeds) {
  std::string why;
  EXPECT_TRUE(cc::cpu_supports({"Prescott", "default"}, why)) << why;  // SSE3: every x86-64 CPU
  EXPECT_FALSE(cc::cpu_supports({"NoSuchKernel", "avx2"}, why));
  EXPECT_NE(why.find("NoSuchKernel"), std::string::npos);
}

// The report's unstated-choice table says whether a run uses PyTorch's default, reading the value:
// the default run's eps is 1e-6, which the label once called "PyTorch default".
TEST(UnstatedChoices, LabelsReadTheValueTheyDescribe) {
  train::RunConfig c = assign_and_add::run_config();
  auto note = [&c](const std::string& key) {
    for (const auto& u : train::unstated_choices(c))
      if (u.key == key) return u.note;
    return std::string("(no row)");
  };
  EXPECT_NE(note("train.eps").find("(used here)"), std::string::npos) << note("train.eps");
  c.train.eps = 1e-6;
  EXPECT_NE(note("train.eps").find("(not used here)"), std::string::npos) << note("train.eps");
  c.train.beta2 = 0.98;
  EXPECT_NE(note("train.beta1, train.beta2").find("(not used here)"), std::string::npos);
}
