#include "train/memory_estimate.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "model/param_layout.h"
#include "train/evaluate.h"
#include "train/family.h"
#include "util/error.h"
#include "util/heap.h"

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

// Floats alive at once per logit entry (a row's answer over one output token) at the loss's peak, the
// backward of log_softmax in train/loss.cpp's cross-entropy: the logits (the step holds them), the
// log-probabilities (kept for that backward), their incoming gradient and the gradient it makes: 4. A
// float64 loss makes the last three doubles (2 floats each): 7. Traced (the step's mappings, strace;
// grokking's task at p = 700, 83 300 training rows, large blocks mapped as in training, util/heap.h):
// at most the float logits and three float64 tensors of their shape alive at once, 7 floats an entry.
int64_t loss_floats_per_logit(const std::string& precision) { return precision == "float64" ? 7 : 4; }

// One kind of tensor a training forward makes: its floats per sequence, and how many of them are alive
// at once (kept by autograd for the backward, or made by it).
struct Tensors {
  int64_t floats_per_sequence;
  int64_t copies;
};

// Per block: the residual stream and the attention output (d_model each, a few copies), queries, keys,
// values and the heads' outputs (n_heads x d_head each), the scores and the pattern (n_heads x T x T
// each), the MLP's pre- and post-activations; the embedding and the last residual stream; the logits.
std::vector<Tensors> forward_tensors(const model::ModelConfig& m, int64_t T, bool every_position,
                                     const std::string& precision) {
  const int64_t heads = static_cast<int64_t>(m.n_heads) * m.d_head;
  std::vector<Tensors> out = {{T * m.d_model, 2}};
  for (int layer = 0; layer < m.n_layers; ++layer) {
    out.push_back({T * m.d_model, 4});
    out.push_back({T * heads, 4});
    out.push_back({int64_t{m.n_heads} * T * T, 3});
    if (m.has_mlp(layer)) out.push_back({T * m.d_mlp, 3});
  }
  out.push_back({(every_position ? T : 1) * m.d_vocab_out, loss_floats_per_logit(precision)});
  return out;
}

// Bytes of these tensors over `rows` sequences. In a training step (`with_holes`) a tensor of kMappedBlockBytes or more
// has a mapping of its own while training (util/heap.h) and is given back when freed: counted once. A
// smaller one comes from the kept heap, where each step frees and allocates blocks of a few sizes in an
// order no heap packs tightly, leaving holes: counted twice (measured: a model of width 16 at p = 700,
// whose blocks under 32 MB were about 0.2 GB alive at once, grew the heap by 0.23 GB at its second step
// and no further in six).
// An upper bound: measured max RSS over libtorch's own 166 MB was 76, 122, 359 and 587 MB for Assign and
// Add's default run, grokking's stated run, Bietti et al.'s two_layer and Assign and Add's default run at
// batches of 4096; estimated 266 MB, 309 MB, 878 MB and 1.2 GB. Where the logits dominate (grokking with
// 17 % of the pairs), 2.6 GB against 4.6 GB at p = 700 (83 300 rows) and 6.6 GB against 10.7 GB at
// p = 1000 (it took 11 GB before training mapped its large blocks); with a model of width 16 at p = 700,
// 1.95 GB over the task's own against 2.1 GB. At p = 400 with width 16 (estimated 454 MB, cli.memory_bound)
// 364-406 MB over 1-8 BLAS threads, four kernels and environments of five sizes; it was ~384 or ~455 MB
// while training kept glibc's 64 MB top pad (util/heap.h).
// An evaluation chunk's forward keeps nothing for a backward, and no heap holes are added: every
// tensor counted once, as if it were kept (`with_holes` false).
int64_t tensor_bytes(const std::vector<Tensors>& tensors, int64_t rows, bool with_holes) {
  int64_t total = 0;
  for (const Tensors& t : tensors) {
    const int64_t block = t.floats_per_sequence * rows * kFloat;
    total += block * t.copies * (with_holes && block < kMappedBlockBytes ? 2 : 1);
  }
  return total;
}

// The evaluation sets are drawn once and held for the whole run: per token its id and its target (8
// bytes each) in every set. A task whose sets are its fixed splits (grokking's) holds fewer; `eval_size:
// 10000000` on a Bietti et al. run: up to 82 GB (it ended in one 10.24 GB allocation failing).
int64_t held_sets_bytes(const BatchShape& batch, int64_t eval_size) {
  return batch.eval_sets * eval_size * batch.seq_len * 2 * int64_t{8};
}

}  // namespace

std::string MemoryEstimate::text() const {
  return gb(total()) + " (parameters and optimizer state " + gb(parameters) + ", activations " + gb(activations) +
         ", evaluation " + gb(evaluation) + ")";
}

MemoryEstimate estimate_training_memory(const RunConfig& cfg, const BatchShape& batch, int64_t members) {
  const model::ModelConfig& m = cfg.model;
  const int64_t states = cfg.train.optimizer == "sgd" ? (cfg.train.momentum != 0 ? 1 : 0) : 2;  // AdamW: m, v
  const std::vector<Tensors> tensors =
      forward_tensors(m, batch.seq_len, batch.every_position, cfg.train.loss_precision);
  MemoryEstimate e;
  e.parameters = model::ParamLayout(m).total * kFloat * (2 + states) * members;
  e.activations = tensor_bytes(tensors, batch.rows * members, true);  // an ensemble stacks its members' tensors
  e.evaluation = (tensor_bytes(tensors, std::min<int64_t>(kEvalBatch, cfg.train.eval_size), false) +
                  held_sets_bytes(batch, cfg.train.eval_size)) *
                 members;
  return e;
}

BatchShape training_batch_shape(const RunConfig& cfg, const TaskData& data) {
  const auto eval_sets = static_cast<int64_t>(family_of(cfg).eval_set_names.size());
  if (cfg.train.batch_size == 0) {
    const Batch full = data.train_batch(0);
    return {full.size(), full.tokens.size(1), full.every_position(), eval_sets};
  }
  // One sequence tells the length and where the loss is, without drawing a batch of train.batch_size
  // (which may be the very size being refused).
  RunConfig one = cfg;
  one.train.batch_size = 1;
  const Batch first = make_task_data(one)->train_batch(0);
  return {cfg.train.batch_size, first.tokens.size(1), first.every_position(), eval_sets};
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
              " MB (CLAIMCHECK_TRAIN_MEMORY_MB raises it; a smaller batch, model, evaluation set or ensemble fits)");
}

}  // namespace cc::train
