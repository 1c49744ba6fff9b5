#include "papers/nanda_grokking/module/family.h"

#include <torch/torch.h>

#include <sstream>

#include "analysis/registry.h"
#include "papers/nanda_grokking/module/kinds.h"
#include "papers/nanda_grokking/module/run_config.h"
#include "train/family.h"
#include "train/run_config.h"
#include "train/task_data.h"
#include "util/error.h"
#include "papers/nanda_grokking/module/trainer.h"

namespace cc::nanda_grokking {
namespace {

// The engine's view of a run: the transformer's shape, the last step and the checkpoint cadence; the
// whole run as this module's JSON.
void read(ObjectReader r, train::RunConfig& c) {
  const RunConfig g = RunConfig::from_yaml(r, c.name, c.seed);
  c.model = g.model;
  c.train.steps = g.train.steps;
  c.train.batch_size = 0;  // full batch: the whole training split (PairSplits)
  c.train.lr = g.train.lr;
  c.train.weight_decay = g.train.weight_decay;
  c.train.beta1 = g.train.beta1;
  c.train.beta2 = g.train.beta2;
  c.train.eps = g.train.eps;
  c.train.warmup_steps = g.train.warmup_steps;
  c.train.eval_every = g.train.eval_every;
  c.train.checkpoint_every = g.train.checkpoint_every;
  c.train.resume_every = g.train.resume_every;
  c.train.checkpoint_steps.clear();
  c.family_config = g.to_json();
  c.family_config.erase("name");
  c.family_config.erase("seed");
}

std::vector<train::UnstatedChoice> unstated(const train::RunConfig& c) {
  const RunConfig g = RunConfig::from_json(c.to_json());
  auto num = [](double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  return {
      {"task.split_seed", std::to_string(g.task.split_seed),
       "which pairs are trained on is not stated (the authors' code seeds the split with the run's seed)"},
      {"model.init_std", num(g.model.init_std),
       "not stated; 1/sqrt(d_model) as the authors' code, whose W_U uses 1/sqrt(d_vocab) (0.0937 here)"},
      {"model biases", "none", "the authors' code has MLP biases (initialised to 0); the issue's setup states none"},
      {"train.eps", num(g.train.eps), "not stated; PyTorch's default, as the authors' code"},
      {"train.warmup_steps", std::to_string(g.train.warmup_steps),
       "not stated; the authors' code: lr x min(step/10, 1)"},
      {"train.steps", std::to_string(g.train.steps), "stated 40000 epochs; stopped after cleanup (assumptions.md)"},
      {"loss", "float64 cross-entropy over the p residues", "the authors' code (cross_entropy_high_precision)"},
  };
}

// The task as the engine's evaluation sees it: the two splits, each exhaustive ("train": every training
// pair, "test": every held-out pair), so the shared `accuracy` kind measures them. A training step's
// batch is the whole training split (full-batch training); this module's own trainer trains the runs.
class PairSplits : public train::TaskData {
 public:
  explicit PairSplits(const train::RunConfig& c) {
    const TaskConfig task = RunConfig::from_json(c.to_json()).task;
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
  const RunConfig g = RunConfig::from_json(c.to_json());
  return {g.task.modulus, "", all_pairs(g.task).tokens};  // tokens [p², 3], row a * p + b
}

}  // namespace

void register_module(const plugin::ModuleRegistrar& r) {
  train::TaskFamily f;
  f.name = "modular_addition";
  f.read = read;
  f.train = [](const train::RunConfig& c, const std::string& dir, int64_t stop_after, const std::string& command) {
    train(RunConfig::from_json(c.to_json()), dir, /*resume=*/true, command, stop_after);
  };
  f.unstated = unstated;
  f.data = [](const train::RunConfig& c) -> std::unique_ptr<train::TaskData> {
    return std::make_unique<PairSplits>(c);
  };
  f.eval_set_names = {"train", "test"};
  f.operand_grid = operand_grid;
  r.add_family(std::move(f));
  r.add_kinds(register_kinds);
}

}  // namespace cc::nanda_grokking
