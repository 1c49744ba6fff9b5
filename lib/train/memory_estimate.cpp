#include "train/memory_estimate.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "model/param_layout.h"
#include "train/evaluate.h"
#include "util/error.h"

namespace cc::train {
namespace {

constexpr int64_t kFloat = 4;  // bytes: every tensor is float32

std::string gb(int64_t bytes) {
  char buf[32];
  if (bytes < 1000000000)
    std::snprintf(buf, sizeof buf, "%.0f MB", static_cast<double>(bytes) / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.1f GB", static_cast<double>(bytes) / 1e9);
  return buf;
}

// Floats one sequence of T tokens keeps through a forward pass, per block: the residual stream and the
// attention output (d_model each, a few copies), queries, keys, values and the heads' outputs (n_heads x
// d_head each), the scores and the pattern (n_heads x T x T each), the MLP's pre- and post-activations;
// and the logits where there is a loss: about what autograd keeps for the backward pass.
// An upper bound: measured max RSS over libtorch's own 166 MB was 76, 122, 359 and 587 MB for Assign and
// Add's default run, grokking's stated run, Bietti et al.'s two_layer and Assign and Add's default run at
// batches of 4096; estimated 199 MB, 158 MB, 644 MB and 1.2 GB.
int64_t forward_floats_per_sequence(const model::ModelConfig& m, int64_t T, bool every_position) {
  const int64_t heads = static_cast<int64_t>(m.n_heads) * m.d_head;
  int64_t blocks = 0;
  for (int layer = 0; layer < m.n_layers; ++layer) {
    blocks += T * (4 * int64_t{m.d_model} + 4 * heads) + 3 * int64_t{m.n_heads} * T * T;
    if (m.has_mlp(layer)) blocks += 3 * T * m.d_mlp;
  }
  const int64_t logit_rows = every_position ? T : 1;
  return blocks + 3 * logit_rows * m.d_vocab_out + 2 * T * m.d_model;
}

}  // namespace

std::string MemoryEstimate::text() const {
  return gb(total()) + " (parameters and optimizer state " + gb(parameters) + ", activations " + gb(activations) +
         ", evaluation " + gb(evaluation) + ")";
}

MemoryEstimate estimate_training_memory(const RunConfig& cfg, const BatchShape& batch, int64_t members) {
  const model::ModelConfig& m = cfg.model;
  const int64_t states = cfg.train.optimizer == "sgd" ? (cfg.train.momentum != 0 ? 1 : 0) : 2;  // AdamW: m, v
  const int64_t per_sequence = forward_floats_per_sequence(m, batch.seq_len, batch.every_position) * kFloat;
  MemoryEstimate e;
  e.parameters = model::ParamLayout(m).total * kFloat * (2 + states) * members;
  e.activations = per_sequence * batch.rows * members;  // kept for backward (their gradients are freed as it goes)
  e.evaluation = per_sequence * std::min<int64_t>(kEvalBatch, cfg.train.eval_size) * members;
  return e;
}

BatchShape training_batch_shape(const RunConfig& cfg, const TaskData& data) {
  if (cfg.train.batch_size == 0) {
    const Batch full = data.train_batch(0);
    return {full.size(), full.tokens.size(1), full.every_position()};
  }
  // One sequence tells the length and where the loss is, without drawing a batch of train.batch_size
  // (which may be the very size being refused).
  RunConfig one = cfg;
  one.train.batch_size = 1;
  const Batch first = make_task_data(one)->train_batch(0);
  return {cfg.train.batch_size, first.tokens.size(1), first.every_position()};
}

int64_t training_memory_budget() {
  int64_t mb = 8192;
  if (const char* env = std::getenv("CLAIMCHECK_TRAIN_MEMORY_MB")) {
    char* end = nullptr;
    const long long v = std::strtoll(env, &end, 10);
    // Past 2^43 MB the budget in bytes would overflow (it read as "-1 MB"); no machine has 8 EiB.
    constexpr long long kMaxMb = std::numeric_limits<int64_t>::max() >> 20;
    if (end == env || *end != '\0' || v < 1 || v > kMaxMb)
      throw Error(std::string("CLAIMCHECK_TRAIN_MEMORY_MB='") + env + "': expected a number of megabytes in [1, " +
                  std::to_string(kMaxMb) + "]");
    mb = v;
  }
  return mb * (int64_t{1} << 20);
}

void check_training_memory(const RunConfig& cfg, const BatchShape& batch, int64_t members) {
  const MemoryEstimate e = estimate_training_memory(cfg, batch, members);
  const int64_t budget = training_memory_budget();
  if (e.total() <= budget) return;
  throw Error("run '" + cfg.name + "': training would take about " + e.text() + " with batches of " +
              std::to_string(batch.rows) + " sequences" +
              (members > 1 ? " and " + std::to_string(members) + " members" : "") + ", past the budget of " +
              std::to_string(budget >> 20) +
              " MB (CLAIMCHECK_TRAIN_MEMORY_MB raises it; a smaller batch, model or ensemble fits)");
}

}  // namespace cc::train
