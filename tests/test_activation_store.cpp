// The activation store: the same bits as a forward of one's own, each forward once, a bounded size,
// and one forward per key when several threads ask at once.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "analysis/activation_store.h"
#include "analysis/common.h"
#include "analysis/registry.h"
#include "papers/assign_and_add/module/examples.h"
#include "train/run_config.h"
#include "util/error.h"
#include "papers/assign_and_add/module/task_family.h"

using namespace cc;
namespace task = cc::assign_and_add::task;  // the paper module whose runs these tests train

namespace {

train::Checkpoint random_model(uint64_t seed) {
  train::Checkpoint ck;
  ck.config = assign_and_add::run_config();
  ck.model = std::make_shared<model::Transformer>(ck.config.model);
  ck.model->init(seed);
  return ck;
}

const analysis::HookRead kPattern{"blocks.0.attn.hook_pattern"};
const analysis::HookRead kResidMidAtEquals{"blocks.1.hook_resid_mid", task::kEqualsPos};

// The hook as a kind reads it without the store: its own forward over the sampled sequences, made into
// tokens afresh, recording that hook alone.
torch::Tensor own_forward(const train::Checkpoint& ck, const std::vector<std::string>& sets, int size,
                          const analysis::HookRead& h) {
  std::vector<torch::Tensor> parts;
  analysis::for_each_recorded(*ck.model,
                              assign_and_add::tokens_tensor(assign_and_add::sample_examples(ck, sets, size, 7)), {h},
                              [&](const model::ActivationCache& c, size_t, size_t) { parts.push_back(c[h.key()]); });
  return torch::cat(parts);
}

torch::Tensor from_store(const analysis::Activations& a, const analysis::HookRead& h) {
  std::vector<torch::Tensor> parts;
  a.for_each([&](const model::ActivationCache& c, size_t, size_t) { parts.push_back(c[h.key()]); });
  return torch::cat(parts);
}

}  // namespace

TEST(ActivationStore, GivesTheSameBitsAsAForwardOfItsOwn) {
  const auto ck = random_model(3);
  analysis::ActivationStore store(size_t{1} << 30);
  // 1000 per set: two whole chunks each, as the kinds' own forward chunked them.
  const auto a = store.get(ck, {"test_1", "test_2"}, 1000, 7, {kPattern, kResidMidAtEquals});
  EXPECT_TRUE(torch::equal(from_store(a, kPattern), own_forward(ck, {"test_1", "test_2"}, 1000, kPattern)));
  EXPECT_TRUE(
      torch::equal(from_store(a, kResidMidAtEquals), own_forward(ck, {"test_1", "test_2"}, 1000, kResidMidAtEquals)));
  EXPECT_EQ(a.rows(), 2000u);
  EXPECT_EQ(from_store(a, kResidMidAtEquals).sizes(), (std::vector<int64_t>{2000, 128}));
}

TEST(ActivationStore, RunsEachForwardOnceAndKeepsWhatIsWanted) {
  const auto ck = random_model(3);
  analysis::ActivationStore store(size_t{1} << 30);
  store.want({kPattern, kResidMidAtEquals});
  store.get(ck, {"test_1", "test_2"}, 100, 7, {kPattern});
  store.get(ck, {"test_2"}, 100, 7, {kResidMidAtEquals});  // kept by the first forward: wanted
  store.get(ck, {"test_1"}, 100, 8, {kPattern});           // another seed: another sample
  EXPECT_EQ(store.stats().forwards, 3u);
  EXPECT_EQ(store.stats().hits, 1u);
  // A hook nobody declared: that set's forward runs again, keeping both.
  const analysis::HookRead post{"blocks.1.hook_resid_post", task::kEqualsPos};
  store.get(ck, {"test_2"}, 100, 7, {post});
  store.get(ck, {"test_2"}, 100, 7, {post, kPattern});
  EXPECT_EQ(store.stats().forwards, 4u);
  EXPECT_EQ(store.stats().hits, 2u);
}

TEST(ActivationStore, ADifferentModelIsADifferentEntry) {
  analysis::ActivationStore store(size_t{1} << 30);
  const auto a = random_model(1), b = random_model(2);
  const auto pa = from_store(store.get(a, {"test_0"}, 50, 7, {kPattern}), kPattern);
  const auto pb = from_store(store.get(b, {"test_0"}, 50, 7, {kPattern}), kPattern);
  EXPECT_EQ(store.stats().forwards, 2u);
  EXPECT_FALSE(torch::equal(pa, pb));
}

TEST(ActivationStore, StaysWithinItsBudget) {
  const auto ck = random_model(3);
  analysis::ActivationStore store(3u << 20);  // 3 MB: about one test set's patterns at size 1000 (1 MB each)
  for (const char* set : {"test_0", "test_1", "test_2", "train"}) store.get(ck, {set}, 1000, 7, {kPattern});
  const auto st = store.stats();
  EXPECT_LE(st.bytes, size_t{3} << 20);
  EXPECT_GT(st.evictions, 0u);
  store.get(ck, {"train"}, 1000, 7, {kPattern});  // the newest is still there
  EXPECT_EQ(store.stats().hits, 1u);
  store.get(ck, {"test_0"}, 1000, 7, {kPattern});  // the oldest was evicted
  EXPECT_EQ(store.stats().forwards, 5u);
}

TEST(ActivationStore, ThreadsAskingAtOnceShareOneForward) {
  const auto ck = random_model(3);
  analysis::ActivationStore store(size_t{1} << 30);
  std::vector<torch::Tensor> got(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { got[i] = from_store(store.get(ck, {"test_1"}, 600, 7, {kPattern}), kPattern); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(store.stats().forwards, 1u);
  EXPECT_EQ(store.stats().hits, 3u);
  for (const auto& g : got) EXPECT_TRUE(torch::equal(g, got[0]));
}

TEST(ActivationStore, TheKindsDeclareWhatTheyRead) {
  const auto reads = analysis::builtin_registry().activation_reads();
  std::set<std::string> keys;
  for (const auto& r : reads) keys.insert(r.key());
  const std::string at_equals = "[:, " + std::to_string(task::kEqualsPos) + "]";
  EXPECT_TRUE(keys.count("blocks.0.attn.hook_pattern"));
  EXPECT_TRUE(keys.count("blocks.1.hook_resid_mid" + at_equals));
  // Layer 2's pattern is read at '=' alone, so no forward computes layer 2's queries at other positions.
  EXPECT_TRUE(keys.count("blocks.1.attn.hook_pattern" + at_equals));
  EXPECT_FALSE(keys.count("blocks.1.attn.hook_pattern"));
  // The Fourier kinds declare none: their grid's position is the task's last, read per checkpoint.
  EXPECT_FALSE(keys.count("blocks.1.mlp.hook_pre[:, " + std::to_string(task::kEqualsPos) + "]"));
}

TEST(ActivationStore, MakesEachDerivedValueOncePerCheckpointAndName) {
  const auto a = random_model(3), b = random_model(4);
  analysis::ActivationStore store(size_t{1} << 30);
  std::atomic<int> made{0};
  auto make = [&](int v) {
    return [&made, v] {
      ++made;
      return analysis::Derived<int>{v, sizeof(int)};
    };
  };
  std::vector<std::thread> threads;  // four threads ask at once: one makes it, three wait and share it
  std::vector<int> got(4);
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { got[i] = *store.derived<int>(a, "x", make(7)); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(made, 1);
  for (int g : got) EXPECT_EQ(g, 7);
  EXPECT_EQ(*store.derived<int>(a, "y", make(8)), 8);  // another name
  EXPECT_EQ(*store.derived<int>(b, "x", make(9)), 9);  // another checkpoint
  EXPECT_EQ(made, 3);
  EXPECT_EQ(store.stats().derived_made, 3u);
  EXPECT_EQ(store.stats().derived_hits, 3u);
  EXPECT_EQ(store.stats().forwards, 0u);  // not counted as forwards
  // One name of one checkpoint is one value: asked for as another type, a programming error.
  EXPECT_THROW(store.derived<double>(a, "x", [] { return analysis::Derived<double>{1.0, 8}; }), Error);
}

TEST(ActivationStore, ADerivedValueThatFailsIsNotKept) {
  const auto ck = random_model(3);
  analysis::ActivationStore store(size_t{1} << 30);
  EXPECT_THROW(store.derived<int>(ck, "x", []() -> analysis::Derived<int> { throw Error("no"); }), Error);
  EXPECT_EQ(*store.derived<int>(ck, "x", [] { return analysis::Derived<int>{5, 4}; }), 5);
}

TEST(ActivationStore, DerivedValuesCountAgainstTheBudget) {
  const auto ck = random_model(3);
  analysis::ActivationStore store(10);  // bytes
  for (const char* name : {"a", "b", "c"}) store.derived<int>(ck, name, [] { return analysis::Derived<int>{1, 6}; });
  EXPECT_LE(store.stats().bytes, 10u);
  EXPECT_EQ(store.stats().evictions, 2u);
  int again = 0;  // "a" was evicted: made again
  store.derived<int>(ck, "a", [&] { return analysis::Derived<int>{++again, 6}; });
  EXPECT_EQ(again, 1);
  // Without a store, made for the call.
  EXPECT_EQ(*analysis::derived<int>(nullptr, ck, "a", [] { return analysis::Derived<int>{3, 4}; }), 3);
}

TEST(ActivationStore, AValueNoCheckpointOwnsIsKeptByName) {
  analysis::ActivationStore store(size_t{1} << 20);
  int made = 0;
  auto make = [&] { return analysis::Derived<int>{++made, 4}; };
  EXPECT_EQ(*store.derived<int>("theory terms seed 0", make), 1);
  EXPECT_EQ(*store.derived<int>("theory terms seed 0", make), 1);  // the second claim's read
  EXPECT_EQ(*store.derived<int>("theory terms seed 1", make), 2);
  const auto ck = random_model(3);  // a checkpoint's value of the same name is another entry
  EXPECT_EQ(*store.derived<int>(ck, "theory terms seed 0", make), 3);
}

namespace {

// Bounded: a failure fails, never hangs.
void wait_for(const std::atomic<bool>& flag) {
  for (int i = 0; i < 5000 && !flag; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// A thread that waits for a value helps the pool meanwhile: thread A computes "x" until `helped` is set;
// thread B (outside grad mode if asked) waits for "x" and names itself in `waiter`; `batch` runs on this
// thread, and its items must set `helped` once one has run on B. Returns when A and B have finished.
void with_a_waiting_helper(
    bool b_without_grad, std::atomic<bool>& helped,
    const std::function<void(analysis::ActivationStore&, const std::atomic<std::thread::id>&)>& batch) {
  const auto ck = random_model(3);
  analysis::ActivationStore store(size_t{1} << 20);
  WorkPool pool;
  store.help_while_waiting(&pool);
  std::atomic<bool> computing{false};
  std::thread a([&] {
    store.derived<int>(ck, "x", [&] {
      computing = true;
      wait_for(helped);
      return analysis::Derived<int>{1, 4};
    });
  });
  wait_for(computing);
  std::atomic<std::thread::id> waiter{};
  std::thread b([&] {
    torch::AutoGradMode grad(!b_without_grad);
    waiter = std::this_thread::get_id();
    EXPECT_EQ(*store.derived<int>(ck, "x", [] { return analysis::Derived<int>{2, 4}; }), 1);
  });
  batch(store, waiter);
  a.join();
  b.join();
  store.help_while_waiting(nullptr);
}

}  // namespace

TEST(ActivationStore, AThreadWaitingForAValueHelpsThePoolMeanwhile) {
  std::atomic<bool> helped{false};
  // This thread's batch: its items wait until one has run on B, so B, waiting, must take one.
  with_a_waiting_helper(false, helped, [&](analysis::ActivationStore& store, const auto& waiter) {
    store.pool()->parallel_for(4, [&](size_t) {
      if (std::this_thread::get_id() == waiter) helped = true;
      wait_for(helped);
    });
  });
  EXPECT_TRUE(helped);
}

// analysis::parallel_for runs each item in its caller's grad mode, whichever thread runs it: B, waiting
// for a value inside a NoGradGuard, helps with an item that needs autograd.
TEST(ActivationStore, AnItemRunsInItsCallersGradModeOnAHelper) {
  std::atomic<bool> helped{false}, grad_off_on_helper{false};
  with_a_waiting_helper(true, helped, [&](analysis::ActivationStore& store, const auto& waiter) {
    ASSERT_TRUE(torch::GradMode::is_enabled());
    analysis::parallel_for(&store, 4, [&](size_t) {
      if (std::this_thread::get_id() == waiter) {
        if (!torch::GradMode::is_enabled()) grad_off_on_helper = true;
        auto w = torch::ones({2}, torch::requires_grad());
        (w * w).sum().backward();  // throws with grad mode off
        helped = true;
      }
      wait_for(helped);
    });
  });
  EXPECT_TRUE(helped);
  EXPECT_FALSE(grad_off_on_helper);
}

// The first exception in index order, after every item has run.
TEST(ActivationStore, ParallelForRethrowsTheFirstErrorInIndexOrder) {
  WorkPool pool;
  std::atomic<int> ran{0};
  try {
    analysis::parallel_for(&pool, 5, [&](size_t i) {
      ++ran;
      if (i == 3 || i == 1) throw Error("item " + std::to_string(i));
    });
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("item 1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ran, 5);
}
