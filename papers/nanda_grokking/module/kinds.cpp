#include "papers/nanda_grokking/module/kinds.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "analysis/common.h"
#include "analysis/neuron_grid.h"
#include "analysis/phases.h"
#include "util/error.h"

namespace cc::nanda_grokking {

void register_kinds(analysis::Registry& r) {
  register_embedding(r);
  register_key_frequencies(r);
  register_training_curve(r);
  register_progress_order(r);
  register_neurons(r);
  register_logits(r);
  register_fourier_gini(r);
}

TaskConfig task_of(const train::Checkpoint& ck) { return task_of(ck.config); }  // which checks the family

torch::Tensor grid_logits(const train::Checkpoint& ck, analysis::ActivationStore* store) {
  // Kept as computed (float32 on the model's device): half the bytes, and float64 for each reader.
  const auto logits = analysis::derived<torch::Tensor>(store, ck, "nanda_grokking.grid_logits", [&] {
    torch::NoGradGuard no_grad;
    auto t = ck.model->forward_last(all_pairs(task_of(ck)).tokens);  // [p², p]
    return analysis::Derived<torch::Tensor>{t, t.nbytes()};
  });
  return logits->to(torch::kCPU, torch::kDouble);
}

torch::Tensor neuron_activations(const train::Checkpoint& ck, analysis::ActivationStore* store) {
  torch::NoGradGuard no_grad;
  task_of(ck);  // this paper's checkpoint, or an error saying whose it is
  // The engine's grid is this task's all_pairs (family.cpp: operand_grid); its forward is shared with
  // the Fourier kinds (N5, N6). ReLU of the float64 copy of float32 values: what hook_post holds.
  return ck.model->mlp_activation(analysis::grid_preactivations(ck, store, /*eval_seed=*/0).pre);
}

torch::Tensor neuron_logit_map(const train::Checkpoint& ck) {
  torch::NoGradGuard no_grad;
  const auto W_out = ck.model->W_out().detach().to(torch::kCPU, torch::kDouble);  // [d_mlp, d_model]
  const auto W_U = ck.model->W_U().detach().to(torch::kCPU, torch::kDouble);      // [d_model, p]
  return W_out.matmul(W_U).t().contiguous();                                      // [p, d_mlp]
}

torch::Tensor frequency_energy(const torch::Tensor& X) {
  const int64_t p = X.size(0);
  auto i = torch::arange(p, torch::kDouble);
  std::vector<torch::Tensor> energy;
  for (int64_t k = 1; k <= (p - 1) / 2; ++k) {
    auto c = (2 * M_PI * k * i / p).cos(), s = (2 * M_PI * k * i / p).sin();
    c = c / c.norm();
    s = s / s.norm();
    energy.push_back(c.matmul(X).pow(2).sum() + s.matmul(X).pow(2).sum());
  }
  return torch::stack(energy);
}

void require_training(const analysis::RunHistory& h, const train::Checkpoint& ck) {
  if (h.metrics.size() < 2)
    throw analysis::NotComputable("the training history ends at step " + std::to_string(ck.step) +
                                  ": there are no phases of training to read");
}

std::vector<nlohmann::json> metrics_log(const analysis::RunHistory& h, const std::vector<std::string>& required) {
  std::vector<nlohmann::json> log;
  for (const auto& rec : h.metrics) {
    nlohmann::json r = rec;
    if (rec.contains("test_accuracy")) {  // this module's own trainer's record (see kinds.h)
      auto field = [&](const char* key) { return rec.value(key, nlohmann::json()); };
      r = {{"step", field("step")},
           {"acc", {{"train", field("train_accuracy")}, {"test", field("test_accuracy")}}},
           {"loss", {{"train", field("train_loss")}, {"test", field("test_loss")}}},
           {"sum_squared_weights", field("sum_squared_weights")}};
    }
    for (const std::string& at : required) {
      const nlohmann::json::json_pointer ptr(at);
      if (!r.contains(ptr) || !r[ptr].is_number())
        throw Error("metrics record at step " + rec.value("step", nlohmann::json()).dump() + " lacks '" + at.substr(1) +
                    "'");
    }
    log.push_back(std::move(r));
  }
  return log;
}

int64_t drop_step(const analysis::RunHistory& h, double level) {
  return analysis::first_reaching(metrics_log(h, {"/step", "/acc/test"}), "test", level).value_or(-1);
}

int64_t judged_step(int64_t drop, int64_t last, int64_t every, const std::string& where) {
  const int64_t judged = drop < 0 ? last : std::min(last, (drop - 1) / every * every);
  if (judged % every != 0)  // the subject is off the grid and the level was never reached
    throw Error(where + ": the checkpoint judged must be on the " + std::to_string(every) + "-step grid; step " +
                std::to_string(last) + " is not on it");
  return judged;
}

}  // namespace cc::nanda_grokking
