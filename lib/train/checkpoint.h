#pragma once
// Checkpoints: DIR/step000500.safetensors (weights, TransformerLens names) with a JSON sidecar
// DIR/step000500.json {config, seed, step, runtime (versions, commit, threads), sha256 of the
// weights, command}. Resume points add DIR/step000500.optim.safetensors (AdamW moments).
#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/transformer.h"
#include "train/run_config.h"

namespace torch::optim {
class Optimizer;
}

namespace cc::train {

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
void save_optimizer(const std::string& weights_path, const torch::optim::Optimizer& opt, const model::Transformer& model);
void load_optimizer(const std::string& weights_path, torch::optim::Optimizer& opt, const model::Transformer& model);

// Steps that have a checkpoint in DIR, ascending.
std::vector<int64_t> list_checkpoints(const std::string& dir);

}  // namespace cc::train
