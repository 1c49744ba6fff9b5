// claimcheck eval CHECKPOINT [--size N] [--device] [--cache-out FILE]
#include <cstdio>
#include <iostream>

#include "cli.h"
#include "train/checkpoint.h"
#include "train/evaluate.h"
#include "train/runtime.h"
#include "util/error.h"
#include "util/safetensors.h"

namespace cc::app {

namespace {

// The first 64 sequences of every evaluation set, their logits and their activation cache.
void write_cache(const model::Transformer& model, const std::vector<train::NamedBatch>& sets, const std::string& path) {
  std::vector<torch::Tensor> firsts;
  for (const auto& s : sets)
    if (s.batch.size() > 0) firsts.push_back(s.batch.tokens.slice(0, 0, 64));
  if (firsts.empty()) throw Error("--cache-out: the evaluation sets are empty");
  torch::NoGradGuard no_grad;
  const auto tokens = torch::cat(firsts);  // [B, T]
  model::ActivationCache cache;
  const auto logits = model.run_with_cache(tokens.to(model.device()), cache);  // [B, T, vocab]
  StFile file;
  file.metadata = {{"producer", "claimcheck eval --cache-out"}};
  file.tensors.emplace_back("tokens", train::safetensors_tensor(tokens));
  file.tensors.emplace_back("logits", train::safetensors_tensor(logits));
  for (const auto& name : cache.names()) file.tensors.emplace_back(name, train::safetensors_tensor(cache[name]));
  write_safetensors(path, file);
  std::printf("cache: %s (%lld sequences, %zu activations)\n", path.c_str(), static_cast<long long>(tokens.size(0)),
              cache.names().size());
}

}  // namespace

int cmd_eval(const std::vector<std::string>& args) {
  po::options_description desc("eval options");
  std::string checkpoint, device = "cpu", cache_out;
  int size = 10000;
  uint64_t eval_seed = 0;
  // One option a line, as boost::program_options reads best; clang-format 14 would join them.
  // clang-format off
  desc.add_options()
      ("checkpoint", po::value(&checkpoint)->required(), "a stepNNNNNN.safetensors file (its .json sidecar beside it)")
      ("size", po::value(&size), "sequences per sampled evaluation set (default 10000)")
      ("eval-seed", po::value(&eval_seed), "seed of the evaluation sets (default: the run's train.eval_seed)")
      ("device", po::value(&device), "cpu | cuda | cuda:N")
      ("cache-out", po::value(&cache_out),
       "also write FILE (safetensors): `tokens` [B, T] (I64; the first 64 sequences of each evaluation set), their "
       "`logits` [B, 16, vocab] and every activation of run_with_cache under its TransformerLens hook name, for "
       "checking the forward pass against another implementation (tests/tl_reference.py)");
  // clang-format on
  po::positional_options_description pos;
  pos.add("checkpoint", 1);
  po::variables_map vm;
  if (!parse("eval", "CHECKPOINT [options]", desc, pos, args, vm)) return kExitOk;
  // Every evaluation set is built at this size and held (~1 KB per unit of --size over the ten
  // sets: 0.27 GB of RSS at 100000), so the cap keeps eval near 1 GB.
  if (size < 1 || size > 1000000) throw po::error("--size must be in [1, 1000000]");

  train::apply_threads(train::default_threads());
  const auto ck = train::load_checkpoint(checkpoint, train::parse_device(device));
  const uint64_t seed = vm.count("eval-seed") ? eval_seed : ck.config.train.eval_seed;
  const auto sets = train::make_task_data(ck.config)->eval_sets(size, seed);
  std::printf("%s  (run %s, seed %llu, step %lld)\n", checkpoint.c_str(), ck.config.name.c_str(),
              static_cast<unsigned long long>(ck.config.seed), static_cast<long long>(ck.step));
  std::printf("%-18s %8s %10s %8s\n", "set", "n", "accuracy", "loss");
  for (size_t i = 0; i < sets.size(); ++i) {
    const auto r = train::evaluate_set(*ck.model, sets[i], ck.config.train.loss_precision);
    if (r.n == 0) {
      std::printf("%-18s %8s %10s %8s\n", r.name.c_str(), "0", "n/a", "n/a");
      continue;
    }
    std::printf("%-18s %8lld %9.2f%% %8.4f\n", r.name.c_str(), static_cast<long long>(r.n), 100.0 * r.accuracy(),
                r.loss);
  }
  if (!cache_out.empty()) write_cache(*ck.model, sets, cache_out);
  return kExitOk;
}

}  // namespace cc::app
