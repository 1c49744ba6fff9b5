// The §6 history kinds on synthetic metrics logs whose phase order and spike are known.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

#include "analysis/registry.h"
#include "train/run_config.h"
#include "papers/assign_and_add/module/task_family.h"

using namespace cc;

namespace {

// A log every 100 steps to 8000: test_0 learned at 1500; test_1 rises 0.54 in the first 500 steps
// (as 1-var sequences get answered from the constant alone), plateaus at 0.55, then jumps by 0.44
// at 5000-5500 (binding); test_2 follows at 5600, var_restricted_2 at 7000.
std::vector<nlohmann::json> synthetic_log(bool reversed) {
  std::vector<nlohmann::json> log;
  for (int64_t s = 0; s <= 8000; s += 100) {
    const double t0 = s >= 1500 ? 0.99 : 0.01 + s * 0.0005;
    double t1 = s >= 5500 ? 0.99 : s >= 500 ? 0.55 : 0.01 + s * 0.0012;
    if (s > 5000 && s < 5500) t1 = 0.55 + (s - 5000) * 0.001;
    const double t2 = s >= 5600 ? 0.93 : 0.3;
    const double vr2 = s >= 7000 ? 0.95 : 0.4;
    nlohmann::json acc = {{"test_0", reversed ? t1 : t0},
                          {"test_1", reversed ? t0 : t1},
                          {"test_2", reversed ? 0.99 : t2},
                          {"var_restricted_2", vr2}};
    log.push_back({{"step", s}, {"acc", acc}});
  }
  return log;
}

train::Checkpoint zero_model() {
  train::Checkpoint ck;
  ck.config = assign_and_add::run_config();
  ck.model = std::make_shared<model::Transformer>(ck.config.model);
  std::map<std::string, torch::Tensor> w;
  for (const auto& [name, t] : ck.model->named_parameters()) w[name] = torch::zeros_like(t);
  ck.model->load(w);
  return ck;
}

analysis::Measurement run(const std::string& kind, const analysis::RunHistory& h, const std::string& yaml) {
  const auto* k = analysis::builtin_registry().find(kind);
  EXPECT_NE(k, nullptr) << kind;
  EXPECT_TRUE(k->needs_history);
  auto doc = load_yaml_string(yaml, "params.yaml");
  auto params = k->parse_params(ObjectReader(doc, ""));
  static const train::Checkpoint ck = zero_model();
  return k->measure(analysis::MeasureInput{ck, params, &h});
}

analysis::RunHistory history(std::vector<nlohmann::json> log, std::set<int64_t>* asked = nullptr) {
  analysis::RunHistory h;
  h.metrics = std::move(log);
  for (int64_t s = 0; s <= 8000; s += 500) h.checkpoint_steps.push_back(s);
  auto ck = std::make_shared<const train::Checkpoint>(zero_model());
  h.checkpoint_at = [ck, asked](int64_t step) {
    if (asked) asked->insert(step);
    return ck;
  };
  return h;
}

}  // namespace

TEST(Dynamics, PhaseOrderHoldsOnALogWithTheKnownOrder) {
  const auto m = run("phase_order", history(synthetic_log(false)), "{}");
  EXPECT_EQ(m.value, 1);
  EXPECT_EQ(m.details["zero_var_step"], 1500);
  EXPECT_EQ(m.details["late_step"], 5600);
  EXPECT_EQ(m.details["plateau_first"], 1500);
}

TEST(Dynamics, PhaseOrderFailsWhenTheOrderIsReversed) {
  EXPECT_EQ(run("phase_order", history(synthetic_log(true)), "{}").value, 0);
}

// The untrained model's input: a history that ends at step 0 has no phases. The kinds say so (the
// control is reported unavailable) instead of returning 0 whatever the code does.
TEST(Dynamics, HistoryKindsRefuseTheStepZeroHistory) {
  auto log = synthetic_log(false);
  log.resize(1);
  EXPECT_THROW(run("phase_order", history(log), "{}"), analysis::NotComputable);
  EXPECT_THROW(run("transition_circuit", history(log), "circuit: {kind: variable_qk_diagonal}"),
               analysis::NotComputable);
  EXPECT_THROW(run("late_refinement", history(log), "{}"), analysis::NotComputable);
}

TEST(Dynamics, SpikeIsTheLargestRiseAfterTheZeroVariablePhase) {
  std::set<int64_t> asked;
  const auto m =
      run("transition_circuit", history(synthetic_log(false), &asked), "circuit: {kind: variable_qk_diagonal}");
  // The early rise (0.54 in the first 500 steps, larger than binding's 0.44) is not the binding spike.
  EXPECT_EQ(m.details["spike_start"], 5000);
  EXPECT_EQ(m.details["spike_end"], 5500);
  EXPECT_TRUE(asked.count(4000));  // lead 1000 before the window
  EXPECT_TRUE(asked.count(5500));  // the window's end
  EXPECT_EQ(m.value, 0);           // a zero model has no circuit, before or after
}

TEST(Dynamics, NoSpikeWithoutTheZeroVariablePhase) {
  auto log = synthetic_log(false);
  for (auto& r : log) r["acc"]["test_0"] = 0.5;
  const auto m = run("transition_circuit", history(log), "circuit: {kind: variable_qk_diagonal}");
  EXPECT_EQ(m.value, 0);
  EXPECT_FALSE(m.details.contains("spike_start"));
}

TEST(Dynamics, LateRefinementNeedsTheSetAfterTheSpike) {
  std::set<int64_t> asked;
  auto m = run("late_refinement", history(synthetic_log(false), &asked), "{}");
  EXPECT_EQ(m.details["refined_step"], 7000);
  EXPECT_TRUE(asked.count(5500) && asked.count(7000));
  EXPECT_EQ(m.value, 0);  // identical checkpoints: the restricted variables' score does not rise
  auto early = synthetic_log(false);
  for (auto& r : early) r["acc"]["var_restricted_2"] = r["step"].get<int64_t>() >= 3000 ? 0.95 : 0.4;
  m = run("late_refinement", history(early), "{}");
  EXPECT_EQ(m.value, 0);
  EXPECT_FALSE(m.details.contains("refined_step"));  // learned before binding: not a late refinement
}

TEST(Dynamics, CircuitMustBeACheckpointKind) {
  const auto* k = analysis::builtin_registry().find("transition_circuit");
  auto doc = load_yaml_string("circuit: {kind: phase_order}", "c.yaml");
  try {
    k->parse_params(ObjectReader(doc, ""));
    FAIL() << "accepted a history kind as the circuit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("c.yaml:1"), std::string::npos) << e.what();
  }
}
