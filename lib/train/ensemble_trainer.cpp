#include "train/ensemble_trainer.h"

#include <torch/torch.h>

#include <filesystem>

#include "train/checkpoint.h"
#include "train/loss.h"
#include "train/memory_estimate.h"
#include "train/metrics_log.h"
#include "train/runtime.h"
#include "train/schedule.h"
#include "train/step_engine.h"
#include "util/error.h"
#include "util/heap.h"

namespace cc::train {
namespace fs = std::filesystem;
namespace {

// Members must share what the stacked model and the shared optimizer fix: architecture and schedule.
void check_compatible(const std::vector<RunConfig>& cfgs) {
  if (cfgs.empty()) throw Error("an ensemble needs at least one run");
  if (cfgs[0].train.engine != "libtorch")
    throw Error("an ensemble trains on the libtorch engine (stacked batched matmuls), not train.engine: " +
                cfgs[0].train.engine);
  // Stacked members share one optimizer: a global-norm clip would couple them.
  if (cfgs[0].train.warmup_steps > 0 || cfgs[0].train.max_grad_norm > 0)
    throw Error(
        "an ensemble trains without warmup and gradient clipping (train.warmup_steps, train.max_grad_norm): "
        "train these runs separately");
  for (size_t k = 1; k < cfgs.size(); ++k) {
    if (cfgs[k].model.to_json() != cfgs[0].model.to_json())
      throw Error("ensemble member " + std::to_string(k) + " has another model config than member 0");
    if (cfgs[k].train.to_json() != cfgs[0].train.to_json())
      throw Error("ensemble member " + std::to_string(k) + " has another training schedule than member 0");
  }
}

}  // namespace

EnsembleTrainer::EnsembleTrainer(std::vector<RunConfig> members, std::vector<std::string> out_dirs, TrainOptions opts)
    : cfgs_(std::move(members)), dirs_(std::move(out_dirs)), opts_(std::move(opts)), runtime_(runtime_info()) {
  check_compatible(cfgs_);
  const int64_t K = static_cast<int64_t>(cfgs_.size());
  if (dirs_.empty()) dirs_.assign(cfgs_.size(), "");
  if (dirs_.size() != cfgs_.size()) throw Error("an ensemble needs one output directory per member");
  const TrainConfig& tc = cfgs_[0].train;
  if (tc.optimizer != "adamw" || !tc.frozen.empty())
    throw Error("an ensemble trains every parameter with AdamW (train.optimizer " + tc.optimizer +
                (tc.frozen.empty() ? "" : ", train.frozen set") + "): train its members separately");

  for (const auto& c : cfgs_) data_.push_back(make_task_data(c));
  check_training_memory(cfgs_[0], training_batch_shape(cfgs_[0], *data_[0]), K);  // before the models allocate

  // Member k starts exactly where a separate run of cfgs_[k] starts, or at its resume point.
  ensemble_ = std::make_unique<model::Ensemble>(cfgs_[0].model, K);
  std::vector<int64_t> resume(K, 0);
  for (int64_t k = 0; k < K; ++k) {
    model::Transformer m(cfgs_[k].model);
    m.init(cfgs_[k].seed);
    ensemble_->set_member(k, m);
    if (!dirs_[k].empty()) {
      locks_.push_back(std::make_unique<FolderLock>(dirs_[k], "run folder"));
      resume[k] = find_resume_point(dirs_[k], cfgs_[k], opts_.resume);
    }
  }
  for (int64_t k = 1; k < K; ++k)
    if (resume[k] != resume[0])
      throw Error("ensemble members stopped at different steps (" + dirs_[0] + ": " + std::to_string(resume[0]) + ", " +
                  dirs_[k] + ": " + std::to_string(resume[k]) + "); resume them separately first");
  ensemble_->to(opts_.device);
  opt_ = make_adamw(tc, ensemble_->parameters());

  start_step_ = resume[0];
  if (start_step_ == 0) return;
  std::vector<std::map<std::string, AdamMoment>> moments;
  double wall_before = 0.0;  // the members trained together: the longest stands for all
  for (int64_t k = 0; k < K; ++k) {
    const std::string path = checkpoint_path(dirs_[k], start_step_);
    Checkpoint ck = load_checkpoint(path);
    ensemble_->set_member(k, *ck.model);
    moments.push_back(read_optimizer(path, *ck.model));
    wall_before = std::max(wall_before, ck.sidecar.value("train_wall_s", 0.0));
  }
  for (const auto& [name, p] : ensemble_->named_parameters()) {
    if (!moments[0].count(name)) continue;
    std::vector<torch::Tensor> m, v;
    for (const auto& mk : moments) {
      m.push_back(mk.at(name).exp_avg);
      v.push_back(mk.at(name).exp_avg_sq);
    }
    set_adam_state(*opt_, p, {torch::stack(m), torch::stack(v), moments[0].at(name).step});
  }
  clock_.resumed_after(wall_before);
}

EnsembleTrainer::~EnsembleTrainer() = default;

std::unique_ptr<model::Transformer> EnsembleTrainer::member(int64_t k) const {
  auto m = std::make_unique<model::Transformer>(cfgs_[static_cast<size_t>(k)].model);
  m->to(opts_.device);
  ensemble_->get_member(k, *m);
  return m;
}

torch::Tensor EnsembleTrainer::train_step(int64_t step) {
  const int B = cfgs_[0].train.batch_size;
  std::vector<torch::Tensor> tokens, targets;
  for (const auto& data : data_) {
    Batch batch = data->train_batch(step);
    if (batch.every_position())
      throw Error("an ensemble trains the loss at the last position only; this task's loss is at every position");
    tokens.push_back(batch.tokens);    // [B, T]
    targets.push_back(batch.targets);  // [B]
  }
  const int64_t K = members();
  auto logits = ensemble_->forward_last(torch::stack(tokens).to(opts_.device));  // [K, B, V]
  auto y = torch::stack(targets).to(opts_.device);                               // [K, B]
  // Each member's loss is its own batch mean, as in a separate run; their sum has the same
  // gradient for member k's weights as member k's loss alone.
  auto losses =
      cross_entropy(logits.reshape({K * B, -1}), y.reshape({-1}), cfgs_[0].train.loss_precision, LossReduction::PerRow)
          .view({K, B})
          .mean(1);  // [K]
  opt_->zero_grad();
  losses.sum().backward();
  opt_->step();
  return losses.detach();
}

void EnsembleTrainer::save(int64_t step, bool with_optimizer) {
  for (int64_t k = 0; k < members(); ++k) {
    if (dirs_[k].empty()) continue;
    const auto m = member(k);
    auto extra = sidecar_extra(opts_, runtime_, clock_.elapsed());
    extra["ensemble"] = {{"members", members()}, {"index", k}};
    save_checkpoint(dirs_[k], *m, cfgs_[k], step, extra);
    if (!with_optimizer) continue;
    std::vector<std::pair<std::string, AdamMoment>> moments;
    for (const auto& [name, p] : ensemble_->named_parameters()) {
      AdamMoment all;
      if (get_adam_state(*opt_, p, all))
        moments.emplace_back(name, AdamMoment{all.exp_avg[k], all.exp_avg_sq[k], all.step});
    }
    write_optimizer(checkpoint_path(dirs_[k], step), moments);
  }
}

void EnsembleTrainer::log_eval(int64_t step, const std::vector<double>& train_loss) {
  last_eval_.clear();
  for (int64_t k = 0; k < members(); ++k) {
    const auto m = member(k);
    last_eval_.push_back(evaluate(*m, eval_sets_[k], cfgs_[k].train.loss_precision));
    if (!metrics_[k] || logged_before_resume(*metrics_[k], step, start_step_)) continue;
    metrics_[k]->append(
        metrics_record(step, clock_.elapsed(), train_loss[k], last_eval_.back(), family_metrics(cfgs_[k], *m)));
  }
}

int64_t EnsembleTrainer::run() {
  const LargeBlocksMapped mapped;  // the memory estimate bounds a step only with these (util/heap.h)
  clock_.start();
  const TrainConfig& tc = cfgs_[0].train;
  const int64_t K = members();
  metrics_.resize(static_cast<size_t>(K));
  eval_sets_.resize(static_cast<size_t>(K));
  if (opts_.log_metrics)
    for (int64_t k = 0; k < K; ++k) {
      eval_sets_[k] = data_[k]->eval_sets(tc.eval_size, tc.eval_seed);
      if (!dirs_[k].empty()) metrics_[k] = open_metrics_log(dirs_[k], start_step_);
    }
  ScheduleHooks hooks;
  hooks.train_step = [this](int64_t step) { return train_step(step); };
  hooks.log_eval = [this](int64_t step, const std::vector<double>& mean_loss) { log_eval(step, mean_loss); };
  hooks.save = [this](int64_t step, bool resume_point) { save(step, resume_point); };
  hooks.drop_resume_point = [this](int64_t step) {
    for (int64_t k = 0; k < members(); ++k)
      if (!dirs_[k].empty()) drop_resume_point(dirs_[k], step, cfgs_[k]);
  };
  return run_schedule(tc, opts_, start_step_, K, hooks);
}

}  // namespace cc::train
