#pragma once
// The built-in task (task/: the sampler and evaluation sets of §3–§4) as the engine's trainers see
// it (task_data.h), and its examples as tensors. The only file of train/ that reads task/ besides
// the run config.
#include <torch/types.h>

#include <memory>
#include <vector>

#include "task/eval_sets.h"
#include "train/family.h"
#include "train/task_data.h"

namespace cc::train {

struct RunConfig;

torch::Tensor tokens_tensor(const std::vector<task::Example>& examples);   // [B, T] int64
torch::Tensor targets_tensor(const std::vector<task::Example>& examples);  // [B] int64
Batch to_batch(const std::vector<task::Example>& examples);
NamedBatch to_batch(const task::EvalSet& set);

std::unique_ptr<TaskData> builtin_task_data(const RunConfig& cfg);
std::vector<std::string> builtin_eval_set_names();  // task::eval_set_names(), in report order
// all_pairs_0: every pair (x, y) once as a 0-var sequence, row x * N + y, its PADs placed by the seed.
OperandGrid builtin_operand_grid(const RunConfig& cfg);

}  // namespace cc::train
