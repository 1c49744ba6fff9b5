#pragma once
// "Assign and Add"'s task (task/: the sampler and evaluation sets of §3–§4) as the engine's task
// family (train/family.h): it reads every run whose `task:` names no family (all of this paper's runs,
// which predate families; their configs and hashes are as they were), lists the paper's unstated
// choices, and gives the trainers its batches and evaluation sets as tensors (train/task_data.h).
#include <torch/types.h>

#include <memory>
#include <vector>

#include "model/config.h"
#include "papers/assign_and_add/module/task/config.h"
#include "papers/assign_and_add/module/task/eval_sets.h"
#include "train/family.h"
#include "train/run_config.h"
#include "train/task_data.h"

namespace cc::assign_and_add {

inline constexpr const char* kFamily = "assign_and_add";

// The task's token space (the model's input and output, model/config.h): N numbers, V variables,
// PAD, '+' and '=' in; the N numbers as answers; T positions.
model::TokenSpace token_space(const task::TaskConfig& task);

// The task of a run this family read (cc::Error for another family's run).
task::TaskConfig task_config(const train::RunConfig& cfg);
// `cfg` with `task` as its task (the model's vocabulary is not changed: derive it after).
void set_task(train::RunConfig& cfg, const task::TaskConfig& task);
// The paper's model (§3: two layers, one head, d_model = d_head = 128, d_mlp = 512, an MLP in the second
// block only) and a schedule of its stated values (30000 steps, lr 1e-3, weight decay 2e-2) with
// PyTorch's AdamW defaults for what it leaves open; the committed runs state their own (runs.yaml).
model::ModelConfig model_config();
train::TrainConfig train_config();
// A run of `task` with model_config(), derived for its token space, and train_config().
train::RunConfig run_config(const task::TaskConfig& task = {});

torch::Tensor tokens_tensor(const std::vector<task::Example>& examples);   // [B, T] int64
torch::Tensor targets_tensor(const std::vector<task::Example>& examples);  // [B] int64
train::Batch to_batch(const std::vector<task::Example>& examples);
train::NamedBatch to_batch(const task::EvalSet& set);

std::unique_ptr<train::TaskData> task_data(const train::RunConfig& cfg);

train::TaskFamily task_family();  // the default family, which register_module() registers

}  // namespace cc::assign_and_add
