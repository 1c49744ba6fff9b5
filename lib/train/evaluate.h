#pragma once
// Accuracy and loss of a model on evaluation sets (task_data.h: tokens and targets as tensors).
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/transformer.h"
#include "train/task_data.h"

namespace cc::train {

struct SetResult {
  std::string name;
  int64_t n = 0;  // sequences; for a set with targets at every position, the targets (task_data.h)
  int64_t correct = 0;
  double loss = 0.0;  // mean cross-entropy over them
  // For a set with targets at every position: each sequence's targets and correct answers, in order (the
  // sequences, not the targets, are independent: analysis/clustered.h). Empty for one answer a sequence.
  std::vector<int64_t> sequence_n, sequence_correct;
  double accuracy() const { return n > 0 ? static_cast<double>(correct) / static_cast<double>(n) : 0.0; }
};

// Evaluation runs the training path's forward without autograd: on the CPU through the blas engine
// (model/blas_transformer.h; median 4x faster than libtorch's path here, reports/perf.md; the same
// logits to float rounding), elsewhere through Transformer::forward_last. It runs in chunks of
// kEvalBatch sequences, small enough that no activation exceeds glibc's 32 MB mmap ceiling: larger
// blocks are mmap-ed and page-faulted afresh on every chunk, which cost more system time than the
// arithmetic (measured: G1 from 11.2 s to the figure in reports/perf.md).
constexpr int kEvalBatch = 512;

// The loss in `loss_precision` (train/loss.h; a run's TrainConfig::loss_precision). For a measurement:
// throws cc::Error when the logits are not finite (a loss that is NaN or infinite).
SetResult evaluate_set(const model::Transformer& model, const NamedBatch& set,
                       const std::string& loss_precision = "float32", int batch = kEvalBatch);
std::vector<SetResult> evaluate(const model::Transformer& model, const std::vector<NamedBatch>& sets,
                                const std::string& loss_precision = "float32", int batch = kEvalBatch);

}  // namespace cc::train
