#pragma once
// A run = task + model + training schedule + seed. Read from YAML (a run config file, or one
// entry of a paper's runs.yaml) by the run's task family (family.h), written to JSON into every
// checkpoint sidecar.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "util/yaml_json.h"

namespace cc::train {

// The schedule of a run. The optimizer's and the schedule's values have no engine default: a run's
// config states them (from_yaml requires them; a paper's module may offer its own, e.g.
// papers/assign_and_add/module/task_family.h: train_config()). The logging cadence has neutral defaults.
struct TrainConfig {
  int64_t steps = 0;
  int batch_size = 0;  // sequences per step (0: the batch is whatever the family's data gives, e.g. full batch)
  // The optimizer: "adamw" (torch::optim::AdamW: lr, weight_decay, beta1, beta2, eps) or "sgd"
  // (torch::optim::SGD with heavy-ball momentum and L2 weight decay: lr, weight_decay, momentum).
  // In the hash only when not adamw, so every AdamW run keeps its hash.
  std::string optimizer = "adamw";
  double lr = 0;
  double weight_decay = 0;
  double beta1 = 0, beta2 = 0;  // AdamW's
  double eps = 0;
  double momentum = 0;  // SGD's
  // Parameters the optimizer leaves at their initial values (TransformerLens names, e.g. embed.W_E):
  // a model whose embeddings are frozen at random, as a paper's simplified model can be. Each must
  // name a parameter of the run's model; in the hash only when set.
  std::vector<std::string> frozen;
  // Two knobs of TransformerLens's own trainer (HookedTransformerTrainConfig), neither stated by the
  // paper: a linear learning-rate warmup, lr × min(1, s / warmup_steps) at the s-th step (0-based,
  // so the first step has lr 0, as TransformerLens's LambdaLR gives), and clipping of the global
  // gradient norm to max_grad_norm before the step (clip_grad_norm_). 0 = off, TransformerLens's
  // default; like `engine`, in the hash only when set.
  int64_t warmup_steps = 0;
  double max_grad_norm = 0.0;
  int64_t eval_every = 100;               // metrics log cadence
  int eval_size = 1000;                   // sequences per evaluation set in the metrics log
  uint64_t eval_seed = 1234;              // evaluation sets are a function of this seed only
  std::vector<int64_t> checkpoint_steps;  // extra checkpoints (step 0 and the last are always kept)
  int64_t checkpoint_every = 0;           // 0: none beyond checkpoint_steps
  int64_t resume_every = 1000;            // optimizer state is saved this often, for resuming
  // How a step is computed: "libtorch" (autograd; every committed fixture, the GPU path) or "blas"
  // (model/blas_transformer.h: hand-written backward on direct BLAS calls, CPU only, ~2-3x faster;
  // the same function to float rounding, so its weights differ from libtorch's in the last bits).
  // It changes the trained weights, so it is part of the run's hash when it is not the default.
  std::string engine = "libtorch";
  // The precision of the training loss and of the metrics log's losses: "float32", or "float64" (the
  // logits cast to double before the cross-entropy: late in training a float32 loss near 1e-7 rounds
  // to a few values and its gradient turns to noise). libtorch engine only; in the hash when set.
  std::string loss_precision = "float32";

  static TrainConfig from_yaml(ObjectReader r);
  // every_field: also the fields written only when set (engine, warmup_steps, max_grad_norm), for
  // checking a key against the schema; without it, what a sidecar and the hash hold.
  nlohmann::json to_json(bool every_field = false) const;
  bool keeps_checkpoint(int64_t step) const;
  double lr_at(int64_t step) const;  // the learning rate of the step that starts at `step` (0-based)
};

// The optimizer's fields of a `train:` section: `optimizer` (adamw when absent) and its own, each
// required and checked. TrainConfig::from_yaml's.
void read_optimizer_fields(ObjectReader& r, TrainConfig& c);
// AdamW's fields of a `train:` section (lr, weight_decay, beta1, beta2, eps), each required and
// checked (errors name FILE:LINE:COL through `r`): TrainConfig::from_yaml's, and a paper's own
// `train:` format's (papers/nanda_grokking/module/run_config.cpp).
void read_adamw(ObjectReader& r, TrainConfig& c);

// The learning rate of the step that starts at `step` (0-based) under a linear warmup:
// lr × min(1, step / warmup_steps), so the first step has rate 0; warmup_steps <= 0 is none.
double warmup_lr(double lr, int64_t warmup_steps, int64_t step);
// Whether `step` is on a checkpoint grid: step 0, the last step, and every `every`-th step (0: none).
bool on_checkpoint_grid(int64_t step, int64_t last, int64_t every);

struct RunConfig {
  std::string name = "unnamed";  // a config file without `name:` (runs.yaml names each of its runs)
  uint64_t seed = 0;
  // The task family that read the run (family.h) and the task as that family writes it: part of the
  // sidecar and the hash, so a family keeps its JSON's keys and values.
  std::string family;
  nlohmann::json task;
  model::ModelConfig model;
  TrainConfig train;

  static RunConfig from_yaml(ObjectReader r);  // {name?, seed?, task?, model?, train?}
  static RunConfig from_file(const std::string& path);
  static RunConfig from_json(const nlohmann::json& j);
  // {name, seed, task, model, train}, in the engine's format or, for a family with its own
  // (TaskFamily::write), in that one.
  nlohmann::json to_json(bool every_field = false) const;
  // Hash of everything that changes the trained weights (not the logging cadence).
  std::string weights_hash() const;
};

// The choices the run's paper leaves open, with the values this config uses (its family's list):
// every report lists them.
struct UnstatedChoice {
  std::string key, value, note;
};
std::vector<UnstatedChoice> unstated_choices(const RunConfig& cfg);

}  // namespace cc::train
