#pragma once
// Full-batch AdamW training of the grokking paper's one-layer transformer (§3 of Nanda et al. 2023),
// read top to bottom in trainer.cpp. The model and AdamW are the engine's (model::Transformer,
// libtorch's AdamW); the loop is this paper's: every step sees the whole training split.
//   DIR/stepNNNNNN.safetensors + .json   kept checkpoints (TransformerLens names, sidecar with config)
//   DIR/stepNNNNNN.optim.safetensors     the latest resume point's AdamW moments
//   DIR/metrics.jsonl                    every eval_every steps: train/test loss and accuracy, Σ w²
// Deterministic on the CPU for a fixed thread setup; a resumed run equals an uninterrupted one.
#include <cstdint>
#include <string>

#include "papers/nanda_grokking/module/run_config.h"

namespace cc::nanda_grokking {

struct TrainResult {
  int64_t start_step = 0, stopped_at = 0;
  double train_loss = 0, test_loss = 0, train_accuracy = 0, test_accuracy = 0;
};

// Trains `cfg` into `dir`, resuming from its latest resume point when `resume` (a folder that holds
// another config's checkpoints is a cc::Error). `stop_after` >= 0 stops at that step (0: the
// initialisation only; a resume point is left at any later stop).
TrainResult train(const RunConfig& cfg, const std::string& dir, bool resume, const std::string& command,
                  int64_t stop_after = -1);

}  // namespace cc::nanda_grokking
