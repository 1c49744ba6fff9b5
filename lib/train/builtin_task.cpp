#include "train/builtin_task.h"

#include "task/sampler.h"
#include "train/run_config.h"

namespace cc::train {

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

Batch to_batch(const std::vector<task::Example>& examples) {
  return {tokens_tensor(examples), targets_tensor(examples)};
}

NamedBatch to_batch(const task::EvalSet& set) {
  return {set.name, set.description, set.exhaustive, to_batch(set.examples)};
}

std::vector<std::string> builtin_eval_set_names() { return task::eval_set_names(); }

OperandGrid builtin_operand_grid(const RunConfig& cfg) { return {cfg.task.modulus, "all_pairs_0", {}}; }

namespace {

class BuiltinTaskData final : public TaskData {
 public:
  explicit BuiltinTaskData(const RunConfig& cfg)
      : sampler_(cfg.task), seed_(cfg.seed), batch_size_(cfg.train.batch_size) {}

  Batch train_batch(int64_t step) const override { return to_batch(sampler_.train_batch(seed_, step, batch_size_)); }

  std::vector<NamedBatch> eval_sets(int size, uint64_t eval_seed) const override {
    std::vector<NamedBatch> out;
    for (const auto& set : task::make_eval_sets(sampler_, size, eval_seed)) out.push_back(to_batch(set));
    return out;
  }

  NamedBatch eval_set(const std::string& name, int size, uint64_t eval_seed) const override {
    return to_batch(task::make_eval_set(sampler_, name, size, eval_seed));
  }

 private:
  task::Sampler sampler_;
  uint64_t seed_;
  int batch_size_;
};

}  // namespace

std::unique_ptr<TaskData> builtin_task_data(const RunConfig& cfg) { return std::make_unique<BuiltinTaskData>(cfg); }

}  // namespace cc::train
