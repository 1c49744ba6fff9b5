#include "train/trainer.h"

#include <torch/torch.h>

#include <filesystem>

#include "train/checkpoint.h"
#include "train/memory_estimate.h"
#include "train/runtime.h"
#include "train/schedule.h"
#include "train/step_engine.h"
#include "util/error.h"
#include "util/heap.h"

namespace cc::train {
namespace fs = std::filesystem;

Trainer::Trainer(RunConfig cfg, TrainOptions opts)
    : cfg_(std::move(cfg)), opts_(std::move(opts)), data_(make_task_data(cfg_)), runtime_(runtime_info()) {
  check_training_memory(cfg_, training_batch_shape(cfg_, *data_));  // before the model and optimizer allocate
  if (!opts_.out_dir.empty()) out_lock_ = std::make_unique<FolderLock>(opts_.out_dir, "run folder");
  model_ = std::make_unique<model::Transformer>(cfg_.model);
  model_->init(cfg_.seed);
  model_->to(opts_.device);
  opt_ = make_optimizer(cfg_.train, trainable_parameters(cfg_.train, *model_));
  if (!opts_.out_dir.empty()) resume_from(opts_.out_dir);
  engine_ = make_step_engine(cfg_.train, *model_, *opt_, opts_.device);  // takes over the restored state
}

Trainer::~Trainer() = default;

void Trainer::resume_from(const std::string& dir) {
  fs::create_directories(dir);
  const int64_t resume = find_resume_point(dir, cfg_, opts_.resume);
  if (resume == 0) return;
  const std::string path = checkpoint_path(dir, resume);
  Checkpoint ck = load_checkpoint(path, opts_.device);
  std::map<std::string, torch::Tensor> values;
  for (const auto& kv : ck.model->named_parameters()) values[kv.first] = kv.second;
  model_->load(values);
  load_optimizer(path, *opt_, *model_);
  start_step_ = resume;
  clock_.resumed_after(ck.sidecar.value("train_wall_s", 0.0));
}

const model::Transformer& Trainer::model() const {
  engine_->publish();
  return *model_;
}

void Trainer::save(int64_t step, bool with_optimizer) {
  if (opts_.out_dir.empty()) return;
  engine_->publish();
  save_checkpoint(opts_.out_dir, *model_, cfg_, step, sidecar_extra(opts_, runtime_, clock_.elapsed()));
  if (with_optimizer) save_optimizer(checkpoint_path(opts_.out_dir, step), *opt_, *model_);
}

void Trainer::log_eval(int64_t step, const std::vector<NamedBatch>& sets, double train_loss) {
  if (metrics_ && logged_before_resume(*metrics_, step, start_step_)) return;
  last_eval_ = evaluate(model(), sets, cfg_.train.loss_precision);
  if (metrics_)
    metrics_->append(metrics_record(step, clock_.elapsed(), train_loss, last_eval_, family_metrics(cfg_, model())));
}

torch::Tensor Trainer::train_step(int64_t step) {
  Batch batch = data_->train_batch(step);
  // A loss at every position reads only the positions with a target: a batch without any has no loss
  // (its mean is 0/0), which would read as a diverged run. Said as what it is.
  if (batch.every_position() && !(batch.targets != kNoTarget).any().item<bool>())
    throw Error("run '" + cfg_.name + "' step " + std::to_string(step) +
                ": no position of the training batch has a target, so the step has no loss (the task's "
                "sequences are too short for where its loss is read, e.g. seq_len against loss_on)");
  return engine_->step(step, batch);
}

int64_t Trainer::run() {
  const LargeBlocksMapped mapped;  // the memory estimate bounds a step only with these (util/heap.h)
  clock_.start();
  std::vector<NamedBatch> sets;
  if (opts_.log_metrics) {
    sets = data_->eval_sets(cfg_.train.eval_size, cfg_.train.eval_seed);
    if (!opts_.out_dir.empty()) metrics_ = open_metrics_log(opts_.out_dir, start_step_);
  }
  ScheduleHooks hooks;
  hooks.train_step = [this](int64_t step) { return train_step(step).reshape({1}); };
  hooks.log_eval = [this, &sets](int64_t step, const std::vector<double>& mean_loss) {
    log_eval(step, sets, mean_loss[0]);
  };
  hooks.save = [this](int64_t step, bool resume_point) { save(step, resume_point); };
  hooks.drop_resume_point = [this](int64_t step) {
    if (!opts_.out_dir.empty()) drop_resume_point(opts_.out_dir, step, cfg_);
  };
  const int64_t stopped = run_schedule(cfg_.train, opts_, start_step_, 1, hooks);
  engine_->publish();  // model() is read after run()
  return stopped;
}

}  // namespace cc::train
