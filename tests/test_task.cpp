// Properties of the task (§3): every training sample is in S_T, every evaluation set is what
// its name says, held-out pairs never reach training in any form.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "papers/assign_and_add/module/task/eval_sets.h"
#include "papers/assign_and_add/module/task/sampler.h"

using namespace cc::assign_and_add::task;

namespace {

TaskConfig default_config() { return TaskConfig{}; }

// Structural checks every sequence must pass, whatever set it belongs to.
void expect_well_formed(const Sampler& s, const Example& e) {
  const Vocab& v = s.vocab();
  ASSERT_EQ(e.tokens[kPlusPos], v.plus());
  ASSERT_EQ(e.tokens[kEqualsPos], v.equals());
  std::set<int> assigned;
  for (int p = 0; p < kAssignSlots;) {
    const int t = e.tokens[static_cast<size_t>(p)];
    ASSERT_NE(t, v.equals()) << "no '=' inside assignments";
    ASSERT_NE(t, v.plus());
    if (t == v.pad()) {
      ++p;
      continue;
    }
    ASSERT_TRUE(v.is_variable(t)) << "assignment starts with a variable at " << p << ": " << s.render(e);
    ASSERT_LT(p + 1, kAssignSlots);
    ASSERT_TRUE(v.is_number(e.tokens[static_cast<size_t>(p + 1)]));
    ASSERT_TRUE(assigned.insert(t).second) << "each variable assigned once: " << s.render(e);
    p += 2;
  }
  int x = -1, y = -1;
  ASSERT_TRUE(s.resolve(e.tokens, x, y)) << s.render(e);
  EXPECT_EQ(x, e.x);
  EXPECT_EQ(y, e.y);
  EXPECT_EQ(e.target, (x + y) % s.config().modulus);
  const int nv = v.is_variable(e.tokens[kFirstOperandPos]) + v.is_variable(e.tokens[kSecondOperandPos]);
  EXPECT_EQ(nv, e.n_vars);
  EXPECT_EQ(e.tokens[static_cast<size_t>(e.source_first)], v.number(x));
  EXPECT_EQ(e.tokens[static_cast<size_t>(e.source_second)], v.number(y));
}

}  // namespace

TEST(Task, VocabularyLayout) {
  Vocab v(default_config());
  EXPECT_EQ(v.size(), 74);
  EXPECT_EQ(v.name(v.variable(1)), "b");
  EXPECT_EQ(v.name(v.pad()), "PAD");
  EXPECT_EQ(v.name(v.equals()), "=");
  EXPECT_EQ(v.variable_index("l"), 11);
  EXPECT_EQ(v.variable_index("m"), -1);
}

TEST(Task, PairSetHasRoundFTimesN2Pairs) {
  for (double f : {0.7, 0.25, 0.5, 1.0}) {
    TaskConfig c;
    c.pair_fraction = f;
    PairSet p(c);
    EXPECT_EQ(static_cast<long>(p.train().size()), std::lround(f * 3481)) << f;
    EXPECT_EQ(p.train().size() + p.heldout().size(), 3481u);
  }
}

TEST(Task, PairSetDependsOnPairSeedOnly) {
  TaskConfig a, b, c;
  c.pair_seed = 7;
  EXPECT_EQ(PairSet(a).train(), PairSet(b).train());
  EXPECT_NE(PairSet(a).train(), PairSet(c).train());
}

TEST(Task, HundredThousandTrainingSamplesAllInST) {
  Sampler s(default_config());
  std::map<int, int> counts;
  for (int64_t step = 0; step < 200; ++step) {
    for (const auto& e : s.train_batch(42, step, 512)) {
      expect_well_formed(s, e);
      ASSERT_TRUE(s.in_S_A(e)) << s.render(e);
      ASSERT_TRUE(s.in_S_V(e)) << s.render(e);
      counts[e.n_vars]++;
    }
  }
  EXPECT_EQ(counts[0] + counts[1] + counts[2], 102400);
  // Default mix 1 : 1 : r=1 -> each about a third; 5 sigma of a binomial is ~750.
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(counts[k], 102400 / 3.0, 750) << k;
}

TEST(Task, HeldOutPairNeverInTrainingInAnyForm) {
  Sampler s(default_config());
  std::set<std::pair<int, int>> seen;
  for (int64_t step = 0; step < 100; ++step)
    for (const auto& e : s.train_batch(1, step, 512)) seen.insert({e.x, e.y});
  for (const auto& p : s.pairs().heldout()) ASSERT_EQ(seen.count(p), 0u) << p.first << "+" << p.second;
  // ...and training does reach most of the allowed pairs.
  EXPECT_GT(seen.size(), s.pairs().train().size() * 95 / 100);
}

TEST(Task, RatioOfTwoVarToZeroVarMatchesR) {
  for (double r : {0.2, 0.5, 2.0}) {
    TaskConfig c;
    c.ratio_2var_to_0var = r;
    Sampler s(c);
    double n0 = 0, n2 = 0;
    for (int64_t step = 0; step < 60; ++step)
      for (const auto& e : s.train_batch(3, step, 512)) {
        if (e.n_vars == 0) n0 += 1;
        if (e.n_vars == 2) n2 += 1;
      }
    // Relative error of a ratio of two counts of ~10^4: a few percent.
    EXPECT_NEAR(n2 / n0, r, 0.08 * r) << "r=" << r;
  }
}

TEST(Task, SameSeedSameBatchesDifferentSeedDifferentBatches) {
  Sampler s(default_config());
  auto a = s.train_batch(5, 17, 64), b = s.train_batch(5, 17, 64), c = s.train_batch(6, 17, 64);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].tokens, b[i].tokens);
  int differ = 0;
  for (size_t i = 0; i < a.size(); ++i) differ += a[i].tokens != c[i].tokens;
  EXPECT_GT(differ, 60);
}

TEST(Task, EvaluationSetsHaveTheirNamedConstraints) {
  Sampler s(default_config());
  for (const auto& set : make_eval_sets(s, 3000, 99)) {
    SCOPED_TRACE(set.name);
    ASSERT_FALSE(set.examples.empty());
    for (const auto& e : set.examples) {
      expect_well_formed(s, e);
      const std::string& n = set.name;
      if (n.rfind("test_", 0) == 0 || n.rfind("heldout_pairs_", 0) == 0 || n.rfind("var_restricted_", 0) == 0)
        ASSERT_EQ(e.n_vars, n.back() - '0');
      if (n.rfind("heldout_pairs_", 0) == 0) {
        ASSERT_FALSE(s.in_S_A(e));
        ASSERT_TRUE(s.in_S_V(e));
      }
      if (n.rfind("var_restricted_", 0) == 0) {
        ASSERT_TRUE(s.in_S_A(e));
        ASSERT_FALSE(s.in_S_V(e));
      }
      if (n == "train") {
        ASSERT_TRUE(s.in_S_A(e));
        ASSERT_TRUE(s.in_S_V(e));
      }
      if (n == "all_pairs_0") ASSERT_EQ(e.n_vars, 0);
    }
  }
}

TEST(Task, AllPairsSetIsExhaustive) {
  Sampler s(default_config());
  auto set = make_eval_set(s, "all_pairs_0", 0, 1);
  ASSERT_EQ(set.examples.size(), 3481u);
  std::set<std::pair<int, int>> pairs;
  for (const auto& e : set.examples) pairs.insert({e.x, e.y});
  EXPECT_EQ(pairs.size(), 3481u);
}

TEST(Task, TestSetsCoverBothPartitionsOfSA) {
  // test_k is uniform over S_k: about 70% of its pairs are training pairs.
  Sampler s(default_config());
  auto set = make_eval_set(s, "test_1", 10000, 3);
  int in_a = 0;
  for (const auto& e : set.examples) in_a += s.in_S_A(e);
  EXPECT_NEAR(in_a / 10000.0, 0.7, 0.03);
}

TEST(Task, EvaluationSetsAreDeterministic) {
  Sampler s(default_config());
  auto a = make_eval_set(s, "var_restricted_2", 500, 11), b = make_eval_set(s, "var_restricted_2", 500, 11);
  for (size_t i = 0; i < a.examples.size(); ++i) ASSERT_EQ(a.examples[i].tokens, b.examples[i].tokens);
}

TEST(Task, SectionSixReadingSwapsTheRestrictedPositions) {
  TaskConfig c;
  c.restricted_first = {"g", "h"};
  c.restricted_second = {"a", "b"};
  Sampler s(c);
  for (int64_t step = 0; step < 20; ++step)
    for (const auto& e : s.train_batch(0, step, 256)) {
      ASSERT_NE(e.var_second, 1) << "b never second under the §6 reading";
      ASSERT_NE(e.var_first, 6) << "g never first";
    }
}

TEST(Task, RestrictedZeroVarSetIsAnError) {
  Sampler s(default_config());
  Rng rng(0, 0, 0);
  EXPECT_THROW(s.sample(rng, SetSpec{0, PairRule::Any, PositionRule::Restricted}), cc::Error);
}

TEST(Task, OperandResolutionFromTokens) {
  Sampler s(default_config());
  const Vocab& v = s.vocab();
  // c 1 b 17 a 42 PAD PAD PAD PAD PAD PAD + b 19 =  ->  17 + 19 = 36
  std::array<int32_t, kSeqLen> t{};
  std::vector<int> layout = {v.variable(2), 1, v.variable(1), 17, v.variable(0), 42};
  for (int p = 0; p < kAssignSlots; ++p) t[static_cast<size_t>(p)] = p < 6 ? layout[static_cast<size_t>(p)] : v.pad();
  t[kPlusPos] = v.plus();
  t[kFirstOperandPos] = v.variable(1);
  t[kSecondOperandPos] = 19;
  t[kEqualsPos] = v.equals();
  int x, y;
  ASSERT_TRUE(s.resolve(t, x, y));
  EXPECT_EQ(x, 17);
  EXPECT_EQ(y, 19);
  t[kSecondOperandPos] = v.variable(5);  // f is not assigned
  EXPECT_FALSE(s.resolve(t, x, y));
}
