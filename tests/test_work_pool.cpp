// The threads a verification shares between its claims and their seeds (util/work_pool.h): every
// item runs once, the caller's items finish before parallel_for returns, and a helper runs items of
// a batch that another thread opened.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "util/work_pool.h"

using namespace cc;

TEST(WorkPool, RunsEveryItemOnceOnTheCallingThreadAlone) {
  WorkPool pool;
  std::vector<int> runs(5, 0);
  pool.parallel_for(runs.size(), [&](size_t i) { ++runs[i]; });
  EXPECT_EQ(runs, std::vector<int>(5, 1));
  pool.parallel_for(0, [&](size_t) { FAIL(); });
}

TEST(WorkPool, AHelperTakesItemsOfAnotherThreadsBatch) {
  WorkPool pool;
  std::atomic<bool> finished{false};
  std::atomic<int> by_helper{0};
  std::thread helper([&] { pool.help_until([&] { return finished.load(); }); });
  const auto caller = std::this_thread::get_id();
  std::vector<std::atomic<int>> runs(64);
  // Each item waits until some item has run on the helper (or a long while has passed), so the
  // helper, woken by the batch, takes at least one of them whatever the scheduling.
  pool.parallel_for(runs.size(), [&](size_t i) {
    ++runs[i];
    if (std::this_thread::get_id() != caller) ++by_helper;
    for (int spin = 0; spin < 2000 && by_helper == 0; ++spin) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  for (auto& r : runs) EXPECT_EQ(r.load(), 1);
  EXPECT_GT(by_helper.load(), 0);
  finished = true;
  pool.notify();
  helper.join();
}

TEST(WorkPool, BatchesFromSeveralThreadsAllComplete) {
  WorkPool pool;
  std::atomic<int> total{0};
  std::atomic<int> callers_done{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      pool.parallel_for(100, [&](size_t) { ++total; });
      ++callers_done;
      pool.notify();
      pool.help_until([&] { return callers_done == 4; });
    });
  for (auto& c : callers) c.join();
  EXPECT_EQ(total.load(), 400);
}

// An item may open a batch of its own (a claim's seed, then that seed's Monte Carlo batches): with two
// helpers and four callers, every outer and inner item runs once and every call returns.
TEST(WorkPool, NestedBatchesAllComplete) {
  WorkPool pool;
  std::atomic<bool> finished{false};
  std::vector<std::thread> helpers;
  for (int h = 0; h < 2; ++h) helpers.emplace_back([&] { pool.help_until([&] { return finished.load(); }); });
  std::atomic<int> outer{0}, inner{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      pool.parallel_for(6, [&](size_t) {
        ++outer;
        pool.parallel_for(8, [&](size_t) { ++inner; });
      });
    });
  for (auto& c : callers) c.join();
  finished = true;
  pool.notify();
  for (auto& h : helpers) h.join();
  EXPECT_EQ(outer.load(), 4 * 6);
  EXPECT_EQ(inner.load(), 4 * 6 * 8);
}
