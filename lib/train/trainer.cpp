#include "train/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "train/checkpoint.h"
#include "train/metrics_log.h"
#include "train/progress.h"
#include "train/runtime.h"
#include "util/error.h"

namespace cc::train {
namespace fs = std::filesystem;
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Trainer::Trainer(RunConfig cfg, TrainOptions opts)
    : cfg_(std::move(cfg)), opts_(std::move(opts)), sampler_(cfg_.task), runtime_(runtime_info()) {
  model_ = std::make_unique<model::Transformer>(cfg_.model);
  model_->init(cfg_.seed);
  model_->to(opts_.device);
  auto options = torch::optim::AdamWOptions(cfg_.train.lr)
                     .betas({cfg_.train.beta1, cfg_.train.beta2})
                     .eps(cfg_.train.eps)
                     .weight_decay(cfg_.train.weight_decay);
  opt_ = std::make_unique<torch::optim::AdamW>(model_->parameters(), options);

  if (opts_.out_dir.empty()) return;
  fs::create_directories(opts_.out_dir);
  const int64_t resume = find_resume_point(opts_.out_dir, cfg_, opts_.resume);
  if (resume > 0) {
    const std::string path = checkpoint_path(opts_.out_dir, resume);
    Checkpoint ck = load_checkpoint(path, opts_.device);
    std::map<std::string, torch::Tensor> values;
    for (const auto& kv : ck.model->named_parameters()) values[kv.first] = kv.second;
    model_->load(values);
    load_optimizer(path, *opt_, *model_);
    start_step_ = resume;
    wall_before_ = ck.sidecar.value("train_wall_s", 0.0);
  }
}

Trainer::~Trainer() = default;

nlohmann::json Trainer::sidecar_extra(int64_t) const {
  return {{"command", opts_.command},
          {"runtime", runtime_},
          {"device", opts_.device.str()},
          {"train_wall_s", wall_before_ + (now_s() - wall_start_)}};
}

void Trainer::save(int64_t step, bool with_optimizer) {
  if (opts_.out_dir.empty()) return;
  save_checkpoint(opts_.out_dir, *model_, cfg_, step, sidecar_extra(step));
  if (with_optimizer) save_optimizer(checkpoint_path(opts_.out_dir, step), *opt_, *model_);
}

void Trainer::log_eval(int64_t step, const std::vector<task::EvalSet>& sets, double train_loss) {
  last_eval_ = evaluate(*model_, sets);
  if (!metrics_) return;
  nlohmann::json rec = {{"step", step}, {"wall_s", wall_before_ + (now_s() - wall_start_)}};
  if (train_loss >= 0) rec["train_loss"] = train_loss;
  for (const auto& r : last_eval_) {
    rec["acc"][r.name] = r.accuracy();
    rec["loss"][r.name] = r.loss;
    rec["n"][r.name] = r.n;
  }
  metrics_->append(rec);
}

torch::Tensor Trainer::train_step(int64_t step) {
  const auto batch = sampler_.train_batch(cfg_.seed, step, cfg_.train.batch_size);
  auto tokens = tokens_tensor(batch).to(opts_.device);    // [B, T]
  auto targets = targets_tensor(batch).to(opts_.device);  // [B]
  auto logits = model_->forward_last(tokens);             // [B, d_vocab_out]
  auto loss = torch::nn::functional::cross_entropy(logits, targets);
  opt_->zero_grad();
  loss.backward();
  opt_->step();
  return loss.detach();
}

int64_t Trainer::run() {
  wall_start_ = now_s();
  const int64_t end = (opts_.stop_after >= 0 && opts_.stop_after < cfg_.train.steps) ? opts_.stop_after : cfg_.train.steps;
  std::vector<task::EvalSet> sets;
  if (opts_.log_metrics) {
    sets = task::make_eval_sets(sampler_, cfg_.train.eval_size, cfg_.train.eval_seed);
    if (!opts_.out_dir.empty()) metrics_ = std::make_unique<MetricsLog>(opts_.out_dir + "/metrics.jsonl", start_step_);
  }
  Progress progress(start_step_, end, opts_.progress);
  torch::Tensor loss_sum = torch::zeros({}, torch::TensorOptions().device(opts_.device));
  int64_t loss_count = 0;
  double last_loss = 0.0;
  int64_t last_resume_point = start_step_;

  for (int64_t step = start_step_;; ++step) {
    if (opts_.log_metrics && (step % cfg_.train.eval_every == 0 || step == end)) {
      const double mean_loss = loss_count > 0 ? loss_sum.item<double>() / static_cast<double>(loss_count) : -1.0;
      if (loss_count > 0) last_loss = mean_loss;
      log_eval(step, sets, mean_loss);
      loss_sum.zero_();
      loss_count = 0;
    }
    const bool resume_point = step > start_step_ && (step % cfg_.train.resume_every == 0 || step == end);
    if ((cfg_.train.keeps_checkpoint(step) && (step > start_step_ || step == 0)) || resume_point) {
      save(step, resume_point);
      // Keep one resume point: drop the previous one's optimizer state (and its weights if
      // that step is not a checkpoint the config keeps).
      if (resume_point && !opts_.out_dir.empty() && last_resume_point > 0 && last_resume_point != step)
        drop_resume_point(opts_.out_dir, last_resume_point, cfg_);
      if (resume_point) last_resume_point = step;
    }
    if (step >= end) {
      progress.finish(step, last_loss);
      return step;
    }
    loss_sum += train_step(step);
    ++loss_count;
    progress.update(step + 1, last_loss);
  }
}

}  // namespace cc::train
