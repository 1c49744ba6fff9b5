// claimcheck eval CHECKPOINT [--size N] [--device]
#include <cstdio>
#include <iostream>

#include "cli.h"
#include "train/checkpoint.h"
#include "train/evaluate.h"
#include "train/runtime.h"
#include "util/error.h"

namespace cc::app {

int cmd_eval(const std::vector<std::string>& args) {
  po::options_description desc("eval options");
  std::string checkpoint, device = "cpu";
  int size = 10000;
  uint64_t eval_seed = 0;
  desc.add_options()
      ("checkpoint", po::value(&checkpoint)->required(), "a stepNNNNNN.safetensors file (its .json sidecar beside it)")
      ("size", po::value(&size), "sequences per sampled evaluation set (default 10000)")
      ("eval-seed", po::value(&eval_seed), "seed of the evaluation sets (default: the run's train.eval_seed)")
      ("device", po::value(&device), "cpu | cuda | cuda:N");
  po::positional_options_description pos;
  pos.add("checkpoint", 1);
  po::variables_map vm;
  if (!parse("eval", "CHECKPOINT [options]", desc, pos, args, vm)) return kExitOk;
  if (size < 1) throw Error("--size must be >= 1");

  train::apply_threads(train::default_threads());
  const auto ck = train::load_checkpoint(checkpoint, train::parse_device(device));
  const uint64_t seed = vm.count("eval-seed") ? eval_seed : ck.config.train.eval_seed;
  task::Sampler sampler(ck.config.task);
  const auto sets = task::make_eval_sets(sampler, size, seed);
  std::printf("%s  (run %s, seed %llu, step %lld)\n", checkpoint.c_str(), ck.config.name.c_str(),
              static_cast<unsigned long long>(ck.config.seed), static_cast<long long>(ck.step));
  std::printf("%-18s %8s %10s %8s\n", "set", "n", "accuracy", "loss");
  for (size_t i = 0; i < sets.size(); ++i) {
    const auto r = train::evaluate_set(*ck.model, sets[i]);
    if (r.n == 0) {
      std::printf("%-18s %8s %10s %8s\n", r.name.c_str(), "0", "n/a", "n/a");
      continue;
    }
    std::printf("%-18s %8lld %9.2f%% %8.4f\n", r.name.c_str(), static_cast<long long>(r.n), 100.0 * r.accuracy(), r.loss);
  }
  return kExitOk;
}

}  // namespace cc::app
