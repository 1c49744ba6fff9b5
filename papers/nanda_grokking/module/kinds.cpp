#include "kinds.h"

#include <torch/torch.h>

#include "util/error.h"

namespace cc::grokking {

void register_kinds(analysis::Registry& r) {
  register_embedding(r);
  register_key_frequencies(r);
  register_training_curve(r);
  register_progress_order(r);
}

RunConfig config_of(const train::Checkpoint& ck) {
  if (ck.config.family != "modular_addition")
    throw Error(ck.path + ": this kind measures the grokking paper's models (task family modular_addition), not '" +
                (ck.config.family.empty() ? std::string("the default family's task") : ck.config.family) + "'");
  return RunConfig::from_json(ck.config.to_json());
}

torch::Tensor grid_logits(const train::Checkpoint& ck) {
  torch::NoGradGuard no_grad;
  const RunConfig cfg = config_of(ck);
  return ck.model->forward_last(all_pairs(cfg.task).tokens).to(torch::kCPU, torch::kDouble);  // [p², p]
}

}  // namespace cc::grokking
