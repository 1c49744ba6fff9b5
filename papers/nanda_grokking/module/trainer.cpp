#include "papers/nanda_grokking/module/trainer.h"

#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "model/transformer.h"
#include "train/checkpoint.h"
#include "train/metrics_log.h"
#include "train/runtime.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_io.h"
#include "util/json_input.h"
#include "util/provenance.h"
#include "util/safetensors.h"
#include "util/sha256.h"

namespace cc::nanda_grokking {
namespace fs = std::filesystem;
namespace {

// Cross-entropy in float64, as the authors' code computes it: in float32, a loss near 1e-7 rounds to
// a few values and its gradient turns to noise late in training.
torch::Tensor loss_of(const torch::Tensor& logits, const torch::Tensor& targets) {
  return torch::nn::functional::cross_entropy(logits.to(torch::kDouble), targets);
}

double accuracy_of(const torch::Tensor& logits, const torch::Tensor& targets) {
  return logits.argmax(1).eq(targets).to(torch::kDouble).mean().item<double>();
}

double sum_of_squared_weights(const model::Transformer& m) {
  double s = 0;
  for (const auto& kv : m.named_parameters()) s += kv.second.detach().to(torch::kDouble).pow(2).sum().item<double>();
  return s;
}

void save_weights(const std::string& dir, const model::Transformer& m, const RunConfig& cfg, int64_t step,
                  const nlohmann::json& extra) {
  StFile file;
  file.metadata = {{"format", "pt"}, {"producer", "claimcheck"}, {"step", std::to_string(step)}};
  for (const auto& [name, t] : m.named_parameters()) file.tensors.emplace_back(name, train::safetensors_tensor(t));
  const std::string path = train::checkpoint_path(dir, step);
  write_safetensors(path, file);
  nlohmann::json side = {{"format", "claimcheck-checkpoint/1"},
                         {"weights", fs::path(path).filename().string()},
                         {"sha256", sha256_file(path)},
                         {"step", step},
                         {"seed", cfg.seed},
                         {"config", cfg.to_json()},
                         {"created", utc_now_iso8601()}};
  side.update(extra);
  write_file_atomic(train::sidecar_path(path), side.dump(2) + "\n");
}

void load_weights(const std::string& path, model::Transformer& m) {
  const StFile file = read_safetensors(path);
  std::map<std::string, torch::Tensor> values;
  for (const auto& [name, st] : file.tensors) values[name] = train::weights_tensor(path, name, st);
  m.load(values);
}

// The latest step with AdamW state in `dir`, 0 when none; a sidecar of another config is an error.
int64_t latest_resume_point(const std::string& dir, const RunConfig& cfg) {
  int64_t best = 0;
  for (int64_t step : train::list_checkpoints(dir)) {
    const std::string w = train::checkpoint_path(dir, step);
    const auto side =
        parse_json(read_regular_file(train::sidecar_path(w), kMaxJsonBytes, "sidecar"), train::sidecar_path(w));
    if (side.at("config") != cfg.to_json())
      throw Error(train::sidecar_path(w) + ": this folder holds another run's checkpoints (config differs)");
    if (fs::exists(train::optimizer_path(w))) best = std::max(best, step);
  }
  return best;
}

}  // namespace

TrainResult train(const RunConfig& cfg, const std::string& dir, bool resume, const std::string& command,
                  int64_t stop_after) {
  torch::manual_seed(0);  // nothing below draws from libtorch's generator; fixed all the same
  fs::create_directories(dir);
  const auto grid = all_pairs(cfg.task);  // every pair: tokens [p², 3], targets [p²]
  const auto parts = split(cfg.task);
  const auto train_tokens = grid.tokens.index_select(0, parts.train);  // [n_train, 3]
  const auto train_targets = grid.targets.index_select(0, parts.train);
  const auto test_tokens = grid.tokens.index_select(0, parts.test);
  const auto test_targets = grid.targets.index_select(0, parts.test);

  model::Transformer m(cfg.model);
  m.init(cfg.seed);
  torch::optim::AdamW opt(m.parameters(), torch::optim::AdamWOptions(cfg.train.lr)
                                              .betas({cfg.train.beta1, cfg.train.beta2})
                                              .eps(cfg.train.eps)
                                              .weight_decay(cfg.train.weight_decay));
  TrainResult result;
  if (!resume && !train::list_checkpoints(dir).empty())
    throw Error(dir + ": holds checkpoints already (pass --resume to continue that run)");
  if (resume) {
    result.start_step = latest_resume_point(dir, cfg);
    if (result.start_step > 0) {
      const std::string w = train::checkpoint_path(dir, result.start_step);
      load_weights(w, m);
      train::load_optimizer(w, opt, m);
    }
  }
  train::MetricsLog metrics(dir + "/metrics.jsonl", result.start_step);  // a resumed run logs from its step again
  const nlohmann::json extra = {{"runtime", train::runtime_info()}, {"command", command}};

  auto evaluate = [&](int64_t step) {
    torch::NoGradGuard no_grad;
    auto train_logits = m.forward_last(train_tokens), test_logits = m.forward_last(test_tokens);
    result.train_loss = loss_of(train_logits, train_targets).item<double>();
    result.test_loss = loss_of(test_logits, test_targets).item<double>();
    result.train_accuracy = accuracy_of(train_logits, train_targets);
    result.test_accuracy = accuracy_of(test_logits, test_targets);
    metrics.append({{"step", step},
                    {"train_loss", result.train_loss},
                    {"test_loss", result.test_loss},
                    {"train_accuracy", result.train_accuracy},
                    {"test_accuracy", result.test_accuracy},
                    {"sum_squared_weights", sum_of_squared_weights(m)}});
  };

  const int64_t last = stop_after >= 0 ? std::min(stop_after, cfg.train.steps) : cfg.train.steps;
  int64_t previous_resume = result.start_step;
  for (int64_t step = result.start_step;; ++step) {
    // `step` steps have been taken: log, keep a checkpoint, leave a resume point.
    if (step % cfg.train.eval_every == 0 || step == last) evaluate(step);
    const bool resume_point = step > result.start_step && (step % cfg.train.resume_every == 0 || step == last);
    if ((cfg.train.keeps_checkpoint(step) || resume_point) && !(step == result.start_step && step > 0))
      save_weights(dir, m, cfg, step, extra);
    if (resume_point) {
      const std::string w = train::checkpoint_path(dir, step);
      train::save_optimizer(w, opt, m);
      if (previous_resume > 0 && previous_resume != step) {  // one resume point is enough
        const std::string old = train::checkpoint_path(dir, previous_resume);
        fs::remove(train::optimizer_path(old));
        if (!cfg.train.keeps_checkpoint(previous_resume)) {
          fs::remove(old);
          fs::remove(train::sidecar_path(old));
        }
      }
      previous_resume = step;
    }
    if (step == last) break;

    auto logits = m.forward_last(train_tokens);  // [n_train, p]: the whole training split
    auto loss = loss_of(logits, train_targets);
    opt.zero_grad();
    loss.backward();
    static_cast<torch::optim::AdamWOptions&>(opt.param_groups()[0].options()).lr(cfg.train.lr_at(step));
    opt.step();
  }
  result.stopped_at = last;
  return result;
}

}  // namespace cc::nanda_grokking
