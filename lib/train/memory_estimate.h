#pragma once
// What a training run will take in memory, estimated from its config before anything is allocated, and
// the budget it must fit: a run past the budget is refused with the estimate in the message, instead of
// an allocation failing minutes in (41 GB for `--batch 1000000`, 12 GB for 65536 heads).
#include <cstdint>
#include <string>

#include "train/run_config.h"
#include "train/task_data.h"

namespace cc::train {

struct MemoryEstimate {
  int64_t parameters = 0;   // weights, gradients and optimizer state, every member
  int64_t activations = 0;  // what autograd keeps for one training batch, every member
  int64_t evaluation = 0;   // the evaluation sets' sequences, and one evaluation chunk's forward (no gradients)
  int64_t total() const { return parameters + activations + evaluation; }
  std::string text() const;  // "12.4 GB (parameters 1.1 GB, activations 11.3 GB, evaluation 0.1 GB)"
};

// A training batch as the estimate needs it.
struct BatchShape {
  int64_t rows = 0;             // sequences per step
  int64_t seq_len = 0;          // tokens per sequence
  bool every_position = false;  // logits at every position, or at the last one only
  int64_t eval_sets = 0;        // evaluation sets the task gives, each held whole (train.eval_size sequences)
};
// The shape of the run's batches, `data` being the run's own: its full batch where train.batch_size is 0
// (held anyway), else train.batch_size rows of the length one sequence has.
BatchShape training_batch_shape(const RunConfig& cfg, const TaskData& data);

// `members`: models trained together (an ensemble's seeds; 1 otherwise).
MemoryEstimate estimate_training_memory(const RunConfig& cfg, const BatchShape& batch, int64_t members = 1);

// The budget in bytes: CLAIMCHECK_TRAIN_MEMORY_MB, else 8192 MB (docs/integrity.md).
int64_t training_memory_budget();

// cc::Error naming the run, the estimate and the budget when the estimate is past it.
void check_training_memory(const RunConfig& cfg, const BatchShape& batch, int64_t members = 1);

}  // namespace cc::train
