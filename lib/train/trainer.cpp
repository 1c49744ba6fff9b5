#include "train/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "train/checkpoint.h"
#include "train/metrics_log.h"
#include "train/runtime.h"
#include "train/schedule.h"
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
  std::vector<task::EvalSet> sets;
  if (opts_.log_metrics) {
    sets = task::make_eval_sets(sampler_, cfg_.train.eval_size, cfg_.train.eval_seed);
    if (!opts_.out_dir.empty()) metrics_ = std::make_unique<MetricsLog>(opts_.out_dir + "/metrics.jsonl", start_step_);
  }
  ScheduleHooks hooks;
  hooks.train_step = [this](int64_t step) { return train_step(step).reshape({1}); };
  hooks.log_eval = [this, &sets](int64_t step, const std::vector<double>& mean_loss) { log_eval(step, sets, mean_loss[0]); };
  hooks.save = [this](int64_t step, bool resume_point) { save(step, resume_point); };
  hooks.drop_resume_point = [this](int64_t step) {
    if (!opts_.out_dir.empty()) drop_resume_point(opts_.out_dir, step, cfg_);
  };
  return run_schedule(cfg_.train, opts_, start_step_, 1, hooks);
}

}  // namespace cc::train
