#include "train/schedule.h"

#include <torch/torch.h>

#include "train/progress.h"
#include "util/error.h"

namespace cc::train {

int64_t run_schedule(const TrainConfig& tc, const TrainOptions& opts, int64_t start, int64_t members,
                     const ScheduleHooks& hooks) {
  const int64_t end = (opts.stop_after >= 0 && opts.stop_after < tc.steps) ? opts.stop_after : tc.steps;
  Progress progress(start, end, opts.progress);
  torch::Tensor loss_sum = torch::zeros({members}, torch::TensorOptions().device(opts.device));  // [K]
  int64_t loss_count = 0;
  double last_loss = 0.0;  // the members' mean, for the progress line
  int64_t last_resume_point = start;
  int64_t last_saved = start;

  // A diverged run stops with an error instead of training on and saving non-finite weights: checked
  // where the summed losses are read anyway (an evaluation) and before anything is saved.
  auto check_finite = [&](int64_t step) {
    if (loss_count == 0 || torch::isfinite(loss_sum).all().item<bool>()) return;
    throw Error("training diverged: the training loss of the steps before step " + std::to_string(step) +
                " is not finite (nan or inf); nothing from those steps was saved, the last checkpoint is at step " +
                std::to_string(last_saved) + " (a smaller learning rate, or clipping: train.max_grad_norm)");
  };
  for (int64_t step = start;; ++step) {
    if (opts.log_metrics && (step % tc.eval_every == 0 || step == end)) {
      check_finite(step);
      std::vector<double> mean(static_cast<size_t>(members), -1.0);
      if (loss_count > 0) {
        // Summed in float on the device as the steps came; averaged in double.
        const auto sums = loss_sum.to(torch::kCPU, torch::kDouble);
        last_loss = 0.0;
        for (int64_t k = 0; k < members; ++k) {
          mean[static_cast<size_t>(k)] = sums[k].item<double>() / static_cast<double>(loss_count);
          last_loss += mean[static_cast<size_t>(k)] / static_cast<double>(members);
        }
      }
      hooks.log_eval(step, mean);
      loss_sum.zero_();
      loss_count = 0;
    }
    const bool resume_point = step > start && (step % tc.resume_every == 0 || step == end);
    if ((tc.keeps_checkpoint(step) && (step > start || step == 0)) || resume_point) {
      check_finite(step);
      hooks.save(step, resume_point);
      last_saved = step;
      // One resume point per run is enough: drop the previous one's optimizer state (and its
      // weights if the config does not keep that step as a checkpoint).
      if (resume_point && last_resume_point > 0 && last_resume_point != step)
        hooks.drop_resume_point(last_resume_point);
      if (resume_point) last_resume_point = step;
    }
    if (step >= end) {
      progress.finish(step, last_loss);
      return step;
    }
    loss_sum += hooks.train_step(step);
    ++loss_count;
    progress.update(step + 1, last_loss);
  }
}

}  // namespace cc::train
