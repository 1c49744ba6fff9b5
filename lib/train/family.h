#pragma once
// Task families: a paper whose task is not the engine's built-in one (task/) plugs its runs in here.
// A run config whose `task:` names a `family:` is read, hashed, trained and listed by that family's
// functions; the engine keeps only what it needs to load and measure such a run: the transformer's
// shape (RunConfig::model), the last step and the checkpoint cadence (RunConfig::train), and the
// family's own JSON of the whole run (RunConfig::family_config, written whole into every sidecar).
// A paper module registers its family once, before any run config is read (app/paper_modules.cpp).
#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "util/yaml_json.h"

namespace cc::train {

struct RunConfig;
struct UnstatedChoice;
class TaskData;

// The grid the engine's Fourier kinds fit over (analysis/neuron_grid.h): every ordered pair of operands
// (n, m) once, row g = n * N + m, read at the last position. Either an exhaustive evaluation set of
// the task's data (TaskData::eval_set), whose other tokens may be drawn with the claim's eval_seed, or
// the sequences themselves.
struct OperandGrid {
  int modulus = 0;       // N
  std::string eval_set;  // the set's name, or empty: then
  torch::Tensor tokens;  // [N*N, T] int64
};

struct TaskFamily {
  std::string name;  // the value of task.family, e.g. "modular_addition"
  // Reads {task, model, train} (and any other key of a run entry) into `cfg`: model, train.steps and
  // train's checkpoint cadence, family_config. Errors name FILE:LINE:COL through `r`.
  std::function<void(ObjectReader r, RunConfig& cfg)> read;
  // Trains `cfg` into `dir` (resuming from its resume point), to `stop_after` when >= 0.
  std::function<void(const RunConfig& cfg, const std::string& dir, int64_t stop_after, const std::string& command)>
      train;
  // The choices the family's paper leaves open, with this config's values (the report lists them).
  std::function<std::vector<UnstatedChoice>(const RunConfig& cfg)> unstated;
  // The run's batches and evaluation sets as tensors (task_data.h), for the engine's trainers and
  // `claimcheck eval`. Empty: the family trains its runs itself (`train` above) and gives none.
  std::function<std::unique_ptr<TaskData>(const RunConfig& cfg)> data;
  // The names of the evaluation sets `data` gives (what a claim's `set:` may name; task_data.h).
  std::vector<std::string> eval_set_names;
  // The operand grid of the run's task (OperandGrid above). Empty: none.
  std::function<OperandGrid(const RunConfig& cfg)> operand_grid;
};

void register_family(TaskFamily family);  // cc::Error for a second family of the same name
const TaskFamily* find_family(const std::string& name);
std::vector<std::string> family_names();

// The operand grid of `cfg`'s task: its family's, else the built-in task's. cc::Error when its family
// gives none.
OperandGrid operand_grid(const RunConfig& cfg);

}  // namespace cc::train
