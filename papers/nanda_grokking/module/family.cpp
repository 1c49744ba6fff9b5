#include "papers/nanda_grokking/module/family.h"

#include <torch/torch.h>

#include <sstream>

#include "analysis/registry.h"
#include "papers/nanda_grokking/module/kinds.h"
#include "papers/nanda_grokking/module/run_config.h"
#include "train/family.h"
#include "model/transformer.h"
#include "train/run_config.h"
#include "train/task_data.h"
#include "util/error.h"

namespace cc::nanda_grokking {
namespace {

// Σ w² over every parameter, in double: the weight norm whose fall marks cleanup (§5.2).
nlohmann::json sum_of_squared_weights(const train::RunConfig& /*cfg*/, const model::Transformer& m) {
  double s = 0;
  for (const auto& kv : m.named_parameters()) s += kv.second.detach().to(torch::kDouble).pow(2).sum().item<double>();
  return {{"sum_squared_weights", s}};
}

std::vector<train::UnstatedChoice> unstated(const train::RunConfig& c) {
  const TaskConfig task = task_of(c);
  auto num = [](double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  return {
      {"task.split_seed", std::to_string(task.split_seed),
       "which pairs are trained on is not stated (the authors' code seeds the split with the run's seed)"},
      {"model.init_std", num(c.model.init_std),
       "not stated; 1/sqrt(d_model) as the authors' code, whose W_U uses 1/sqrt(d_vocab) (0.0937 here)"},
      {"model biases", "none", "the authors' code has MLP biases (initialised to 0); the issue's setup states none"},
      {"train.eps", num(c.train.eps), "not stated; PyTorch's default, as the authors' code"},
      {"train.warmup_steps", std::to_string(c.train.warmup_steps),
       "not stated; the authors' code: lr x min(step/10, 1)"},
      {"train.steps", std::to_string(c.train.steps), "stated 40000 epochs; stopped after cleanup (assumptions.md)"},
      {"loss", "float64 cross-entropy over the p residues", "the authors' code (cross_entropy_high_precision)"},
  };
}

// The task as the engine's evaluation sees it: the two splits, each exhaustive ("train": every training
// pair, "test": every held-out pair), so the shared `accuracy` kind measures them. A training step's
// batch is the whole training split (full-batch training).
class PairSplits : public train::TaskData {
 public:
  explicit PairSplits(const train::RunConfig& c) {
    const TaskConfig task = task_of(c);
    grid_ = all_pairs(task);  // tokens [p², 3], targets [p²]
    parts_ = split(task);
  }
  train::Batch train_batch(int64_t /*step*/) const override { return named("train").batch; }
  std::vector<train::NamedBatch> eval_sets(int /*size*/, uint64_t /*eval_seed*/) const override {
    return {named("train"), named("test")};
  }
  train::NamedBatch eval_set(const std::string& name, int /*size*/, uint64_t /*eval_seed*/) const override {
    if (name != "train" && name != "test")
      throw Error("the modular_addition task has no evaluation set '" + name + "' (it has: train, test)");
    return named(name);
  }

 private:
  train::NamedBatch named(const std::string& name) const {
    const torch::Tensor& rows = name == "train" ? parts_.train : parts_.test;
    return {name,
            name == "train" ? "every training pair (a, b)" : "every held-out pair (a, b)",
            true,
            {grid_.tokens.index_select(0, rows).contiguous(), grid_.targets.index_select(0, rows).contiguous()}};
  }
  PairGrid grid_;
  Split parts_;
};

train::OperandGrid operand_grid(const train::RunConfig& c) {
  const TaskConfig task = task_of(c);
  return {task.modulus, "", all_pairs(task).tokens};  // tokens [p², 3], row a * p + b
}

}  // namespace

void register_module(const plugin::ModuleRegistrar& r) {
  train::TaskFamily f;
  f.name = "modular_addition";
  f.read = read_run;
  f.write = write_run;
  f.unstated = unstated;
  f.data = [](const train::RunConfig& c) -> std::unique_ptr<train::TaskData> {
    return std::make_unique<PairSplits>(c);
  };
  f.eval_set_names = {"train", "test"};
  f.extra_metrics = sum_of_squared_weights;
  f.operand_grid = operand_grid;
  r.add_family(std::move(f));
  r.add_kinds(register_kinds);
  for (auto& s : key_frequency_subspaces()) r.add_subspace(std::move(s));
}

}  // namespace cc::nanda_grokking
