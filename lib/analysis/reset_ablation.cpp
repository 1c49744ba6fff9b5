// kind `reset_accuracy_drop`: what a learned matrix carries, causally. The accuracy on an evaluation
// set of the checkpoint's model, minus that of the same model with the named parameters put back to
// their values at initialisation (the run's seed: Transformer::init), the rest as trained.
#include <torch/torch.h>

#include <algorithm>

#include "analysis/clustered.h"
#include "analysis/common.h"
#include "analysis/kinds.h"
#include "train/evaluate.h"
#include "train/task_data.h"

namespace cc::analysis {
namespace {

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
  const auto reset = r.strings("reset");  // required, at least one (e.g. [blocks.0.attn.W_K])
  p["reset"] = reset;
  p["set"] = read_set(r);
  const int64_t size = r.integer_in("size", 1000, 1, 1000000);
  p["size"] = size;
  p["eval_seed"] = read_eval_seed(r);
  r.finish();
  return p;
}

Measurement measure(const MeasureInput& in) {
  const auto& ck = in.checkpoint;
  model::Transformer init(ck.config.model), reset(ck.config.model);
  init.init(ck.config.seed);
  std::map<std::string, torch::Tensor> values;
  for (const auto& [name, t] : ck.model->named_parameters()) values[name] = t.detach().to(torch::kCPU);
  for (const auto& name : in.params["reset"].get<std::vector<std::string>>()) {
    if (!values.count(name)) throw Error(ck.path + ": reset_accuracy_drop: the model has no parameter '" + name + "'");
    values[name] = init.param(name);
  }
  reset.load(values);
  reset.to(ck.model->device());
  const auto set = train::make_task_data(ck.config)->eval_set(
      in.params["set"].get<std::string>(), in.params["size"].get<int>(), in.params["eval_seed"].get<uint64_t>());
  const auto trained = train::evaluate_set(*ck.model, set), ablated = train::evaluate_set(reset, set);
  Measurement m;
  m.n = trained.n;
  m.value = trained.accuracy() - ablated.accuracy();
  m.details["accuracy"] = trained.accuracy();
  m.details["accuracy_reset"] = ablated.accuracy();
  m.details["set"] = set.name;
  m.details["unthresholded"] = {{"accuracy", trained.accuracy()},
                                {"accuracy with the parameters reset", ablated.accuracy()}};
  if (!trained.sequence_n.empty()) {  // several targets a sequence: the drop's interval over sequences
    const auto ci = paired_drop_interval(trained.sequence_n, trained.sequence_correct, ablated.sequence_correct);
    m.ci_low = ci.first;
    m.ci_high = ci.second;
    m.details["sequences"] = static_cast<int64_t>(trained.sequence_n.size());
  }
  return m;
}

}  // namespace

void register_reset_ablation(Registry& r) {
  MeasurementKind k("reset_accuracy_drop", Statistic::Scalar, measure,
                    "accuracy on an evaluation set minus that of the same model with `reset` put back to their values "
                    "at initialisation (what those learned parameters carry); on a set with several targets a "
                    "sequence, with a 95 % interval over the paired sequences (analysis/clustered.h)");
  k.parse_params = parse;
  k.params_doc =
      "reset: parameter names (TransformerLens names, e.g. blocks.0.attn.W_K)\n"
      "set: an evaluation set of the run's task (required)\n"
      "size: sequences (default 1000)\n"
      "eval_seed: seed of the sampled set";
  r.add(std::move(k));
}

}  // namespace cc::analysis
