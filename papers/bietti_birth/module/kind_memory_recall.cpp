// memory_recall: one of the three recall probes of memory_recall.h at the checkpoint (Figure 4's
// curves, read at one step; the metrics log holds them along training).
#include "papers/bietti_birth/module/kinds.h"
#include "papers/bietti_birth/module/memory_recall.h"

namespace cc::bietti_birth {
namespace {

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
  p["matrix"] = r.one_of("matrix", {"W_O2", "W_K2", "W_K1"});
  r.finish();
  return p;
}

analysis::Measurement measure(const analysis::MeasureInput& in) {
  const auto& ck = in.checkpoint;
  if (ck.config.model.n_layers < 2)
    throw analysis::NotComputable(ck.path + ": memory recall reads blocks 1 and 2; the model has one");
  const MemoryRecall r = memory_recall(*ck.model, probe_triggers(task_of(ck)));
  analysis::Measurement m;
  const std::string which = in.params["matrix"];
  m.value = which == "W_O2" ? r.W_O2 : which == "W_K2" ? r.W_K2 : r.W_K1;
  m.details["recall"] = {{"W_O2", r.W_O2}, {"W_K2", r.W_K2}, {"W_K1", r.W_K1}};
  return m;
}

}  // namespace

void register_memory_recall(analysis::Registry& r) {
  analysis::MeasurementKind k("memory_recall", analysis::Statistic::Scalar, measure,
                              "the share of the associations one matrix of the induction head stores (the "
                              "authors' memory-recall probes: W_O2 token -> token, W_K2 trigger -> its "
                              "previous-token remapping, W_K1 position -> previous position)");
  k.parse_params = parse;
  k.params_doc = "matrix: W_O2 | W_K2 | W_K1";
  r.add(std::move(k));
}

void register_kinds(analysis::Registry& r) {
  register_attention(r);
  register_memory_recall(r);
}

}  // namespace cc::bietti_birth
