#pragma once
// Task families: every run's task comes from a paper module's family. A run config's `task:` names its
// family (`family:`), or names none and is read by the default family (the one registered with
// is_default: the paper whose runs predate families, so their configs and hashes stay as they were).
// A run is read, written, hashed, listed and given to the engine's trainers as tensors by its family's
// functions: every run is trained by the engine's Trainer (trainer.h), on the batches, evaluation sets,
// loss precision and extra metrics its family supplies. A paper module registers its family once,
// before any run config is read (plugin/paper_module.h).
#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "util/yaml_json.h"

namespace cc::model {
class Transformer;
}

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
  // Reads the runs whose `task:` names no family (at most one family is the default).
  bool is_default = false;
  // Reads {task, model, train} (and any other key of a run entry) into `cfg`: family, task, model and
  // train. Errors name FILE:LINE:COL through `r`.
  std::function<void(ObjectReader r, RunConfig& cfg)> read;
  // Writes `cfg` as `read` reads it ({task, model, train}; the engine adds name and seed): the JSON of
  // its sidecars and its hash. Empty: the engine's format (RunConfig::to_json). A family whose
  // committed sidecars predate the engine's format keeps its own this way.
  std::function<nlohmann::json(const RunConfig& cfg)> write;
  // The choices the family's paper leaves open, with this config's values (the report lists them).
  std::function<std::vector<UnstatedChoice>(const RunConfig& cfg)> unstated;
  // The run's batches and evaluation sets as tensors (task_data.h), for the engine's trainers,
  // `claimcheck eval` and the `accuracy` kind. Empty: none of these serve its runs.
  std::function<std::unique_ptr<TaskData>(const RunConfig& cfg)> data;
  // Metrics of the run's model at an evaluation beyond the engine's (accuracy and loss per evaluation
  // set), merged into each metrics-log record (e.g. {"sum_squared_weights": ...}). Empty: none.
  std::function<nlohmann::json(const RunConfig& cfg, const model::Transformer& model)> extra_metrics;
  // The names of the evaluation sets `data` gives (what a claim's `set:` may name; task_data.h).
  std::vector<std::string> eval_set_names;
  // The operand grid of the run's task (OperandGrid above). Empty: none.
  std::function<OperandGrid(const RunConfig& cfg)> operand_grid;
};

// cc::Error for a second family of the same name (naming both origins), a second default one, or a
// family registered after the first lookup below froze the registry (util/registry.h). `origin`: the
// module that registers it (papers/NAME/module).
void register_family(TaskFamily family, const std::string& origin);
const TaskFamily* find_family(const std::string& name);
// "unknown task family 'x' (registered: ...), did you mean 'y'?"
std::string unknown_family_message(const std::string& name);
const TaskFamily* default_family();  // nullptr when no module registered one
std::vector<std::string> family_names();
// The family of `cfg`: the one it names, else the default one. cc::Error when that is not registered.
const TaskFamily& family_of(const RunConfig& cfg);

// The operand grid of `cfg`'s task, as its family gives it. cc::Error when its family gives none.
OperandGrid operand_grid(const RunConfig& cfg);

}  // namespace cc::train
