#include "papers/assign_and_add/module/task_family.h"

#include <cmath>
#include <sstream>

#include "papers/assign_and_add/module/task/sampler.h"
#include "train/family.h"
#include "util/error.h"

namespace cc::assign_and_add {

model::TokenSpace token_space(const task::TaskConfig& task) {
  const task::Vocab vocab(task);
  return {vocab.size(), task.modulus, task::kSeqLen};
}

task::TaskConfig task_config(const train::RunConfig& cfg) {
  if (!cfg.family.empty() && cfg.family != kFamily)
    throw Error("run '" + cfg.name + "' is a run of task family '" + cfg.family + "', not of " + kFamily);
  return task::TaskConfig::from_json(cfg.task);
}

void set_task(train::RunConfig& cfg, const task::TaskConfig& task) {
  task.validate();
  cfg.family = kFamily;
  cfg.task = task.to_json();
}

model::ModelConfig model_config() {
  model::ModelConfig m;
  m.d_model = 128;  // stated (§3), as d_head, n_heads and d_mlp
  m.d_head = 128;
  m.n_heads = 1;
  m.d_mlp = 512;
  m.activation = "relu";    // unstated (TransformerLens' default would be gelu)
  m.output_vocab = "full";  // unstated
  m.init_std = -1.0;        // unstated: TransformerLens' gpt2 init
  m.n_layers = 2;           // stated: two layers, the MLP of the first removed
  m.mlp_layers = {1};
  return m;
}

train::TrainConfig train_config() {
  train::TrainConfig t;
  t.steps = 30000;        // stated
  t.batch_size = 128;     // unstated
  t.lr = 1e-3;            // stated
  t.weight_decay = 2e-2;  // stated
  t.beta1 = 0.9;          // unstated: PyTorch's AdamW defaults
  t.beta2 = 0.999;
  t.eps = 1e-8;
  return t;
}

train::RunConfig run_config(const task::TaskConfig& task) {
  train::RunConfig c;
  set_task(c, task);
  c.model = model_config();
  c.train = train_config();
  c.model.derive(token_space(task));
  return c;
}

torch::Tensor tokens_tensor(const std::vector<task::Example>& examples) {
  const int64_t B = static_cast<int64_t>(examples.size());
  auto t = torch::empty({B, task::kSeqLen}, torch::kLong);
  auto acc = t.accessor<int64_t, 2>();
  for (int64_t b = 0; b < B; ++b)
    for (int p = 0; p < task::kSeqLen; ++p) acc[b][p] = examples[static_cast<size_t>(b)].tokens[static_cast<size_t>(p)];
  return t;
}

torch::Tensor targets_tensor(const std::vector<task::Example>& examples) {
  auto t = torch::empty({static_cast<int64_t>(examples.size())}, torch::kLong);
  auto acc = t.accessor<int64_t, 1>();
  for (size_t i = 0; i < examples.size(); ++i) acc[static_cast<int64_t>(i)] = examples[i].target;
  return t;
}

train::Batch to_batch(const std::vector<task::Example>& examples) {
  return {tokens_tensor(examples), targets_tensor(examples)};
}

train::NamedBatch to_batch(const task::EvalSet& set) {
  return {set.name, set.description, set.exhaustive, to_batch(set.examples)};
}

namespace {

class AssignAndAddData final : public train::TaskData {
 public:
  explicit AssignAndAddData(const train::RunConfig& cfg)
      : sampler_(task_config(cfg)), seed_(cfg.seed), batch_size_(cfg.train.batch_size) {}

  train::Batch train_batch(int64_t step) const override {
    return to_batch(sampler_.train_batch(seed_, step, batch_size_));
  }

  std::vector<train::NamedBatch> eval_sets(int size, uint64_t eval_seed) const override {
    std::vector<train::NamedBatch> out;
    for (const auto& set : task::make_eval_sets(sampler_, size, eval_seed)) out.push_back(to_batch(set));
    return out;
  }

  train::NamedBatch eval_set(const std::string& name, int size, uint64_t eval_seed) const override {
    return to_batch(task::make_eval_set(sampler_, name, size, eval_seed));
  }

 private:
  task::Sampler sampler_;
  uint64_t seed_;
  int batch_size_;
};

// {task, model, train}: the task's fields (task/config.h), the transformer (its vocabulary derived from
// the task's) and the schedule; every key checked, errors at FILE:LINE:COL.
void read(ObjectReader r, train::RunConfig& c) {
  const task::TaskConfig t = task::TaskConfig::from_yaml(r.object_or_empty("task"));
  set_task(c, t);
  c.model = model::ModelConfig::from_yaml(r.object_or_empty("model"), token_space(t));
  c.train = train::TrainConfig::from_yaml(r.object_or_empty("train"));
  r.finish();
}

// The choices the paper leaves open (papers/assign_and_add/assumptions.md), with this run's values.
std::vector<train::UnstatedChoice> unstated(const train::RunConfig& c) {
  const task::TaskConfig t = task_config(c);
  auto num = [](double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
    return s;
  };
  return {
      {"train.batch_size", std::to_string(c.train.batch_size), "not stated in the paper"},
      {"train.beta1, train.beta2", num(c.train.beta1) + ", " + num(c.train.beta2),
       std::string("AdamW betas not stated; PyTorch's defaults are 0.9, 0.999") +
           (c.train.beta1 == 0.9 && c.train.beta2 == 0.999 ? " (used here)" : " (not used here)")},
      {"train.eps", num(c.train.eps),
       std::string("not stated; PyTorch's default is 1e-08") +
           (c.train.eps == 1e-8 ? " (used here)" : " (not used here)")},
      {"train.warmup_steps", c.train.warmup_steps ? std::to_string(c.train.warmup_steps) : "0 (none)",
       "learning-rate warmup not stated (TransformerLens's trainer: none unless set)"},
      {"train.max_grad_norm", c.train.max_grad_norm > 0 ? num(c.train.max_grad_norm) : "0 (no clipping)",
       "gradient clipping not stated (TransformerLens's trainer: none unless set)"},
      {"model.init_std", num(c.model.effective_init_std()),
       std::string("initialisation not stated; N(0, 0.8/sqrt(d_model)) is TransformerLens' default (gpt2 init)") +
           (c.model.effective_init_std() == 0.8 / std::sqrt(static_cast<double>(c.model.d_model))
                ? " (used here)"
                : " (not used here)")},
      {"model.activation", c.model.activation,
       std::string("MLP activation not stated; TransformerLens' default is gelu") +
           (c.model.activation == "gelu" ? " (used here)" : " (not used here)")},
      {"model.output_vocab", c.model.output_vocab + " (" + std::to_string(c.model.d_vocab_out) + " logits)",
       "output vocabulary size not stated"},
      {"task.assignments_min..max", std::to_string(t.assignments_min) + ".." + std::to_string(t.assignments_max),
       "number of assignments per sequence not stated (the §3 example has 3)"},
      {"task.allow_same_variable", t.allow_same_variable ? "true" : "false",
       "whether a 2-var addition may use one variable twice is not stated"},
      {"task.weight_1var : 1 : ratio_2var_to_0var", num(t.weight_1var) + " : 1 : " + num(t.ratio_2var_to_0var),
       "0/1/2-var training mix not stated (r is swept in §4)"},
      {"task.pair_seed", std::to_string(t.pair_seed), "which pairs are held out is not stated"},
      {"task.restricted_first / restricted_second", join(t.restricted_first) + " / " + join(t.restricted_second),
       "§3: a,b never first, g,h never second; §6 reads as if b were held out second"},
  };
}

// all_pairs_0: every pair (x, y) once as a 0-var sequence, row x * N + y, its PADs placed by the seed.
train::OperandGrid operand_grid(const train::RunConfig& cfg) { return {task_config(cfg).modulus, "all_pairs_0", {}}; }

}  // namespace

std::unique_ptr<train::TaskData> task_data(const train::RunConfig& cfg) {
  return std::make_unique<AssignAndAddData>(cfg);
}

train::TaskFamily task_family() {
  train::TaskFamily f;
  f.name = kFamily;
  f.is_default = true;  // every run of this paper's runs.yaml and sidecars names no family
  f.read = read;
  f.unstated = unstated;
  f.data = task_data;
  f.eval_set_names = task::eval_set_names();
  f.operand_grid = operand_grid;
  return f;
}

}  // namespace cc::assign_and_add
