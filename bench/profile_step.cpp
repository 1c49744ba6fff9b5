// Where a training step's time goes: runs N steps of one model (K = 0) or of a stacked ensemble
// of K models under libtorch's autograd profiler and writes a chrome trace; bench/profile_ops.py
// sums it by op. Usage: claimcheck_profile K BATCH STEPS TRACE.json   (see reports/perf.md)
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <string>

#include "plugin/paper_module.h"
#include "papers/assign_and_add/module/task_family.h"
#include "train/ensemble_trainer.h"
#include "train/run_config.h"
#include "train/runtime.h"
#include "train/trainer.h"

using namespace cc;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: claimcheck_profile K BATCH STEPS TRACE.json  (K = 0: one model)\n";
    return 2;
  }
  const int k = std::stoi(argv[1]), batch = std::stoi(argv[2]), steps = std::stoi(argv[3]);
  train::apply_threads(train::default_threads());
  plugin::register_linked_modules();  // its task family reads and trains the run, as in claimcheck
  train::RunConfig cfg = assign_and_add::run_config();
  cfg.train.batch_size = batch;
  auto o = train::TrainOptions::silent();
  std::unique_ptr<train::Trainer> single;
  std::unique_ptr<train::EnsembleTrainer> ensemble;
  if (k == 0) {
    single = std::make_unique<train::Trainer>(cfg, o);
  } else {
    std::vector<train::RunConfig> cfgs(static_cast<size_t>(k), cfg);
    for (int i = 0; i < k; ++i) cfgs[static_cast<size_t>(i)].seed = static_cast<uint64_t>(i);
    ensemble = std::make_unique<train::EnsembleTrainer>(cfgs, std::vector<std::string>{}, o);
  }
  auto step = [&](int s) { return single ? single->train_step(s) : ensemble->train_step(s); };
  for (int s = 0; s < 3; ++s) step(s);  // warm-up, outside the trace
  torch::autograd::profiler::RecordProfile guard(argv[4]);
  for (int s = 3; s < 3 + steps; ++s) step(s);
  return 0;
}
