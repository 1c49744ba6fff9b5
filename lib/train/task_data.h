#pragma once
// What the engine's trainers and evaluation need of a task, as tensors: the batch of each training
// step and the named evaluation sets of the metrics log. Trainer, EnsembleTrainer, the step engines
// and evaluate.h know no more of a task than this. The run's task family gives it (family.h:
// TaskFamily::data).
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cc::train {

struct RunConfig;

// A target position with no loss (every-position targets below): a task that trains on some tokens only.
constexpr int64_t kNoTarget = -1;

// Sequences and what each should predict: either the answer at its last position (targets [B]), or
// the next token at every position (targets [B, T], kNoTarget where a position has no loss), as a
// language model is trained. The loss and accuracy average over the targets there are.
struct Batch {
  torch::Tensor tokens;   // [B, T] int64, contiguous, on the CPU
  torch::Tensor targets;  // [B] or [B, T] int64
  int64_t size() const { return tokens.defined() ? tokens.size(0) : 0; }
  bool every_position() const { return targets.defined() && targets.dim() == 2; }
};

struct NamedBatch {
  std::string name;         // the evaluation set's name, as the metrics log and the claims spell it
  std::string description;  // what the set is, for reports
  bool exhaustive = false;  // every sequence of its kind once (its size is its own, not the one asked for)
  Batch batch;
};

class TaskData {
 public:
  virtual ~TaskData() = default;
  // The batch of `step` (0-based) of the run the data was made for: a function of the run's seed,
  // its batch size and `step` only, so a resumed run sees the batches an uninterrupted one would.
  virtual Batch train_batch(int64_t step) const = 0;
  // Every evaluation set, in report order; `size` rows each (an exhaustive set has its own size),
  // a function of `eval_seed` only. A set may be empty.
  virtual std::vector<NamedBatch> eval_sets(int size, uint64_t eval_seed) const = 0;
  // One of them by name, as eval_sets() gives it. cc::Error for a name the task does not have.
  virtual NamedBatch eval_set(const std::string& name, int size, uint64_t eval_seed) const = 0;
};

// The evaluation-set names a claim's parameters may name: the default family's, then each other
// family's (TaskFamily::eval_set_names). A claim file is checked against them when it is read, before any run
// is loaded; a set the run's own task lacks is an error when the claim is measured.
std::vector<std::string> known_eval_set_names();
bool is_known_eval_set(const std::string& name);

// The data of `cfg`'s task, as its family gives it (cc::Error when the family gives none).
std::unique_ptr<TaskData> make_task_data(const RunConfig& cfg);

}  // namespace cc::train
