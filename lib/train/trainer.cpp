#include "train/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/blas_bridge.h"
#ifdef CLAIMCHECK_BLAS_ENGINE
#include "model/blas_transformer.h"
#endif
#include "train/checkpoint.h"
#include "train/metrics_log.h"
#include "train/runtime.h"
#include "train/schedule.h"
#include "util/error.h"

namespace cc::train {
namespace fs = std::filesystem;
namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

// Engine "blas": the step runs on flat buffers (ParamLayout order); model_ and opt_ receive the
// weights and moments only when they are read (evaluation, checkpoints, the end of run()).
struct Trainer::BlasState {
#ifdef CLAIMCHECK_BLAS_ENGINE
  explicit BlasState(const model::ModelConfig& cfg) : engine(cfg) {}
  model::BlasTransformer engine;
#endif
  std::vector<float> w, grad, exp_avg, exp_avg_sq, logits;
  int64_t adam_step = 0;
};

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

  if (!opts_.out_dir.empty()) resume_from(opts_.out_dir);
  if (cfg_.train.engine == "blas") init_blas();
}

void Trainer::resume_from(const std::string& dir) {
  fs::create_directories(dir);
  const int64_t resume = find_resume_point(dir, cfg_, opts_.resume);
  if (resume > 0) {
    const std::string path = checkpoint_path(dir, resume);
    Checkpoint ck = load_checkpoint(path, opts_.device);
    std::map<std::string, torch::Tensor> values;
    for (const auto& kv : ck.model->named_parameters()) values[kv.first] = kv.second;
    model_->load(values);
    load_optimizer(path, *opt_, *model_);
    start_step_ = resume;
    wall_before_ = ck.sidecar.value("train_wall_s", 0.0);
  }
}

void Trainer::init_blas() {
#ifdef CLAIMCHECK_BLAS_ENGINE
  if (!opts_.device.is_cpu())
    throw Error("train.engine: blas runs on the CPU; use engine libtorch with --device " + opts_.device.str());
  blas_ = std::make_unique<BlasState>(cfg_.model);
  blas_->w = model::flat_parameters(*model_);
  const auto n = blas_->w.size();
  blas_->grad.assign(n, 0.f);
  blas_->exp_avg.assign(n, 0.f);
  blas_->exp_avg_sq.assign(n, 0.f);
  for (const auto& [name, p] : model_->named_parameters()) {  // a resumed run's moments
    AdamMoment m;
    if (!get_adam_state(*opt_, p, m)) continue;
    const auto& e = blas_->engine.layout().at(name);
    auto a = m.exp_avg.to(torch::kCPU).contiguous(), b = m.exp_avg_sq.to(torch::kCPU).contiguous();
    std::memcpy(blas_->exp_avg.data() + e.offset, a.data_ptr<float>(), sizeof(float) * static_cast<size_t>(e.size));
    std::memcpy(blas_->exp_avg_sq.data() + e.offset, b.data_ptr<float>(), sizeof(float) * static_cast<size_t>(e.size));
    blas_->adam_step = m.step;
  }
#else
  throw Error(
      "train.engine: blas is not built into this claimcheck (no CBLAS found at configure time: "
      "install libblas-dev and reconfigure)");
#endif
}

void Trainer::sync_model() {
#ifdef CLAIMCHECK_BLAS_ENGINE
  if (!blas_) return;
  model::load_flat_parameters(*model_, blas_->w.data());
  if (blas_->adam_step == 0) return;
  for (const auto& [name, p] : model_->named_parameters()) {
    const auto& e = blas_->engine.layout().at(name);
    auto m = torch::from_blob(blas_->exp_avg.data() + e.offset, p.sizes(), torch::kFloat32).clone();
    auto v = torch::from_blob(blas_->exp_avg_sq.data() + e.offset, p.sizes(), torch::kFloat32).clone();
    set_adam_state(*opt_, p, {m, v, blas_->adam_step});
  }
#endif
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
  sync_model();
  save_checkpoint(opts_.out_dir, *model_, cfg_, step, sidecar_extra(step));
  if (with_optimizer) save_optimizer(checkpoint_path(opts_.out_dir, step), *opt_, *model_);
}

void Trainer::log_eval(int64_t step, const std::vector<task::EvalSet>& sets, double train_loss) {
  if (metrics_ && step == start_step_ && start_step_ > 0 && metrics_->has(step)) return;  // logged before the resume
  sync_model();
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
#ifdef CLAIMCHECK_BLAS_ENGINE
  if (blas_) {                                                            // the same step as below, on the blas engine
    auto tokens = tokens_tensor(batch), targets = targets_tensor(batch);  // [B, T], [B]
    auto& s = *blas_;
    s.logits.resize(static_cast<size_t>(tokens.size(0) * cfg_.model.d_vocab_out));
    s.engine.forward(s.w.data(), tokens.data_ptr<int64_t>(), tokens.size(0), tokens.size(1), s.logits.data());
    const double loss = s.engine.backward(s.w.data(), targets.data_ptr<int64_t>(), s.grad.data());
    const auto& tc = cfg_.train;
    const auto n = static_cast<int64_t>(s.grad.size());
    if (tc.max_grad_norm > 0) model::clip_grad_norm(tc.max_grad_norm, n, s.grad.data());
    model::adamw_step({tc.lr_at(step), tc.beta1, tc.beta2, tc.eps, tc.weight_decay}, ++s.adam_step,
                      static_cast<int64_t>(s.w.size()), s.w.data(), s.grad.data(), s.exp_avg.data(),
                      s.exp_avg_sq.data());
    return torch::tensor(static_cast<float>(loss));
  }
#endif
  auto tokens = tokens_tensor(batch).to(opts_.device);    // [B, T]
  auto targets = targets_tensor(batch).to(opts_.device);  // [B]
  auto logits = model_->forward_last(tokens);             // [B, d_vocab_out]
  auto loss = torch::nn::functional::cross_entropy(logits, targets);
  opt_->zero_grad();
  loss.backward();
  const auto& tc = cfg_.train;
  if (tc.max_grad_norm > 0) torch::nn::utils::clip_grad_norm_(model_->parameters(), tc.max_grad_norm);
  // A warmup sets this step's rate; without one it stays the constructor's (a resumed optimizer's
  // state carries no learning rate: the step alone decides it).
  if (tc.warmup_steps > 0)
    static_cast<torch::optim::AdamWOptions&>(opt_->param_groups()[0].options()).lr(tc.lr_at(step));
  opt_->step();
  return loss.detach();
}

int64_t Trainer::run() {
  wall_start_ = now_s();
  std::vector<task::EvalSet> sets;
  if (opts_.log_metrics) {
    sets = task::make_eval_sets(sampler_, cfg_.train.eval_size, cfg_.train.eval_seed);
    // Resumed at s > 0: the record at s stays (MetricsLog::has), the later ones are logged again.
    if (!opts_.out_dir.empty())
      metrics_ = std::make_unique<MetricsLog>(metrics_path(opts_.out_dir), start_step_ > 0 ? start_step_ + 1 : 0);
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
  sync_model();  // model() is read after run()
  return stopped;
}

}  // namespace cc::train
