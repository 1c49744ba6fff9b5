#pragma once
// Checkpoints: DIR/step000500.safetensors (weights, TransformerLens names) with a JSON sidecar
// DIR/step000500.json {config, seed, step, runtime (versions, commit, threads), sha256 of the
// weights, command}. Resume points add DIR/step000500.optim.safetensors (AdamW moments).
#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "model/transformer.h"
#include "train/run_config.h"
#include "util/safetensors.h"

namespace torch::optim {
class Optimizer;
}

namespace cc::train {

// A tensor as safetensors stores it: I64 and BOOL as they are, every other type as F32 (on the CPU,
// contiguous, little-endian as x86-64 and every GPU host is).
StTensor safetensors_tensor(const torch::Tensor& t);
// A stored weight tensor back as float32, refusing another dtype or a NaN or inf value (cc::Error
// naming PATH and the tensor).
torch::Tensor weights_tensor(const std::string& path, const std::string& name, const StTensor& t);

std::string checkpoint_path(const std::string& dir, int64_t step);  // DIR/step000500.safetensors
std::string sidecar_path(const std::string& weights_path);          // .safetensors -> .json
std::string optimizer_path(const std::string& weights_path);        // -> .optim.safetensors

// Writes weights + sidecar. `extra` is merged into the sidecar (command, wall time, ...).
void save_checkpoint(const std::string& dir, const model::Transformer& model, const RunConfig& cfg, int64_t step,
                     const nlohmann::json& extra);

struct Checkpoint {
  std::string path;
  RunConfig config;
  int64_t step = 0;
  nlohmann::json sidecar;
  std::shared_ptr<model::Transformer> model;
};

// Loads weights and sidecar, checks the sha256, the tensor names and shapes, and the dtype.
// Every failure is a cc::Error naming the file and the problem.
Checkpoint load_checkpoint(const std::string& weights_path, const torch::Device& device = torch::kCPU);

// AdamW state (exp_avg, exp_avg_sq, step) for every parameter, for exact resumption.
struct AdamMoment {
  torch::Tensor exp_avg, exp_avg_sq;
  int64_t step = 0;
};
bool get_adam_state(const torch::optim::Optimizer& opt, const torch::Tensor& p, AdamMoment& out);  // false: no step yet
void set_adam_state(torch::optim::Optimizer& opt, const torch::Tensor& p, const AdamMoment& m);
// DIR/stepNNNNNN.optim.safetensors: {name}.exp_avg / {name}.exp_avg_sq, metadata adam_step.
void write_optimizer(const std::string& weights_path, const std::vector<std::pair<std::string, AdamMoment>>& moments);
std::map<std::string, AdamMoment> read_optimizer(const std::string& weights_path, const model::Transformer& model);
void save_optimizer(const std::string& weights_path, const torch::optim::Optimizer& opt,
                    const model::Transformer& model);
void load_optimizer(const std::string& weights_path, torch::optim::Optimizer& opt, const model::Transformer& model);

// The latest step in `dir` with a resume point (weights + optimizer state), 0 if none. Throws if
// `dir` holds checkpoints of another config, or any at all when `resume` is false.
int64_t find_resume_point(const std::string& dir, const RunConfig& cfg, bool resume);
// Removes the optimizer state of an older resume point (and its weights, unless the config
// keeps that step as a checkpoint): one resume point per run is enough.
void drop_resume_point(const std::string& dir, int64_t step, const RunConfig& cfg);

// Steps that have a checkpoint in DIR, ascending.
std::vector<int64_t> list_checkpoints(const std::string& dir);

}  // namespace cc::train
