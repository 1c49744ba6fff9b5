// kind `accuracy`: argmax accuracy on one named evaluation set (at the last position, or at every position
// that has a target: train/task_data.h).
#include <torch/torch.h>

#include "analysis/clustered.h"
#include "analysis/common.h"
#include "analysis/kinds.h"
#include "train/evaluate.h"
#include "train/metrics_log.h"
#include "util/error.h"

#include <filesystem>

namespace cc::analysis {
namespace {

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
  p["set"] = read_set(r);
  const int64_t size = r.integer("size", 10000);
  // The set's sequences are held while it is evaluated (in chunks): ~100 bytes each, so 1e6 is ~0.1 GB.
  if (size < 1 || size > 1000000) r.fail("size", "must be in [1, 1000000]");
  p["size"] = size;
  p["eval_seed"] = read_eval_seed(r);
  r.finish();
  return p;
}

Measurement measure(const MeasureInput& in) {
  const auto set = train::make_task_data(in.checkpoint.config)
                       ->eval_set(in.params["set"].get<std::string>(), in.params["size"].get<int>(),
                                  in.params["eval_seed"].get<uint64_t>());
  train::SetResult r;
  try {
    r = train::evaluate_set(*in.checkpoint.model, set);
  } catch (const Error& e) {  // the checkpoint it was read from, named
    throw Error(in.checkpoint.path + ": " + e.what());
  }
  Measurement m;
  m.n = r.n;
  m.successes = r.correct;
  m.value = r.accuracy();
  m.details = {{"set", set.name}, {"description", set.description}, {"exhaustive", set.exhaustive}, {"loss", r.loss}};
  if (!r.sequence_n.empty()) record_sequences(m, r.sequence_n, r.sequence_correct);  // several targets a sequence
  // The set's accuracy along training, from the run's metrics log (1000 sequences
  // every eval_every steps), when the log sits next to the checkpoint; one line per seed.
  // A log that does not record this set (another family's trainer keeps its own keys) draws no figure.
  const std::string log = train::metrics_path_beside(in.checkpoint.path);
  nlohmann::json x = nlohmann::json::array(), y = nlohmann::json::array();
  if (std::filesystem::exists(log))
    for (const auto& rec : train::MetricsLog::read(log))
      if (rec.contains("acc") && rec["acc"].contains(set.name)) {
        x.push_back(rec["step"]);
        y.push_back(rec["acc"][set.name]);
      }
  if (!x.empty()) {
    // The paper's phase windows (its paper.yaml) are marked on it by the report: "mark_phase_windows".
    m.details["figures"] =
        nlohmann::json::array({{{"id", "training_curve"},
                                {"type", "lines"},
                                {"merge_seeds", true},
                                {"title", "accuracy on " + set.name + " during training (metrics log)"},
                                {"xlabel", "step"},
                                {"ylabel", "accuracy"},
                                {"yrange", {0, 1.02}},
                                {"mark_phase_windows", true},
                                {"value_axis", "y"},
                                {"series", nlohmann::json::array({{{"name", set.name}, {"x", x}, {"y", y}}})}}});
  }
  return m;
}

}  // namespace

void register_accuracy(Registry& r) {
  MeasurementKind k(
      "accuracy", Statistic::Proportion, measure,
      "argmax accuracy on an evaluation set's targets: the answer at the last position, or every position "
      "that has a target (tasks with a loss at every position)");
  k.parse_params = parse;
  k.intervenable = true;
  k.params_doc =
      "set: an evaluation set of the run's task (required)\n"
      "size: sequences to sample (default 10000; exhaustive sets ignore it)\n"
      "eval_seed: seed of the sampled set, independent of the training log (default: the paper's analysis_seed, "
      "claims/defaults.yaml, else 0)";
  r.add(std::move(k));
}

}  // namespace cc::analysis
