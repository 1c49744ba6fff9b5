#pragma once
// A run of the grokking paper as its runs.yaml and its checkpoint sidecars write it: {task, model,
// train}, with `train` in this paper's words (batch: full, warmup_steps, ...). It is read straight
// into the engine's RunConfig (the task as TaskConfig's JSON, the model, the schedule and optimizer
// in TrainConfig) and written back in the same format, so the committed sidecars' configs stay as
// they are; the engine's Trainer trains it (full batch, float64 loss: family.cpp).
#include <nlohmann/json.hpp>

#include "papers/nanda_grokking/module/modular_addition.h"
#include "train/run_config.h"
#include "util/yaml_json.h"

namespace cc::nanda_grokking {

// Reads {task, model, train} into `c` (its name and seed are the caller's). Every field is required
// but the cadence's (eval_every, checkpoint_every, resume_every) and warmup_steps; errors name
// FILE:LINE:COL.
void read_run(ObjectReader r, train::RunConfig& c);
// {task, model, train} of `c` in the format read_run reads.
nlohmann::json write_run(const train::RunConfig& c);
// The task of one of this paper's runs (cc::Error for another family's run).
TaskConfig task_of(const train::RunConfig& c);

}  // namespace cc::nanda_grokking
