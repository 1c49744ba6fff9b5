// memory_recall: one of the three recall probes of memory_recall.h at the checkpoint (Figure 4's
// curves, read at one step; the metrics log holds them along training).
#include "papers/bietti_birth/module/kinds.h"
#include "papers/bietti_birth/module/memory_recall.h"

namespace cc::bietti_birth {
namespace {

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
  p["matrix"] = r.one_of("matrix", {"W_O2", "W_K2", "W_K1"});
  // The authors' W_K1 variant over the first positions only (test_wk0(cutoff=64)); 0: every position,
  // left out of the parameters (a claim without it reads as it always did).
  const int64_t positions = r.integer_in("positions", 0, 0, 100000);
  if (positions != 0 && !r.describing()) {
    if (positions < 2) r.fail("positions", "at least 2 (a query and the key before it)");
    if (p["matrix"] != "W_K1") r.fail("positions", "only the W_K1 probe reads positions");
    p["positions"] = positions;
  }
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
  if (in.params.contains("positions")) {
    const int64_t positions = in.params["positions"], T = ck.config.model.n_ctx;
    if (positions > T)
      throw analysis::NotComputable(ck.path + ": the model has " + std::to_string(T) + " positions, not " +
                                    std::to_string(positions));
    m.value = w_k1_recall(*ck.model, positions);
    m.details["recall"]["W_K1 over the first " + std::to_string(positions) + " positions"] = m.value;
  }
  return m;
}

}  // namespace

void register_memory_recall(analysis::Registry& r) {
  analysis::MeasurementKind k("memory_recall", analysis::Statistic::Scalar, measure,
                              "the share of the associations one matrix of the induction head stores (the "
                              "authors' memory-recall probes: W_O2 token -> token, W_K2 trigger -> its "
                              "previous-token remapping, W_K1 position -> previous position)");
  k.parse_params = parse;
  k.params_doc =
      "matrix: W_O2 | W_K2 | W_K1\n"
      "positions: W_K1 over the first positions only (the authors' test_wk0(cutoff=64)); 0 (default): every position";
  r.add(std::move(k));
}

void register_kinds(analysis::Registry& r) {
  register_attention(r);
  register_memory_recall(r);
}

}  // namespace cc::bietti_birth
