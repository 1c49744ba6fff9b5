// kind `accuracy`: argmax accuracy at '=' on one named evaluation set.
#include <torch/torch.h>

#include "analysis/kinds.h"
#include "task/eval_sets.h"
#include "train/evaluate.h"

namespace cc::analysis {
namespace {

// Claims evaluate on sets drawn with their own seed, independent of the training-time log.
constexpr int64_t kDefaultClaimEvalSeed = 20260531;

nlohmann::json parse(ObjectReader r) {
  std::vector<std::string> sets;
  for (const auto& info : task::eval_set_catalog()) sets.push_back(info.name);
  nlohmann::json p;
  p["set"] = r.one_of("set", sets, "test_0");
  const int64_t size = r.integer("size", 10000);
  if (size < 1 || size > 10000000) r.fail("size", "must be in [1, 10000000]");
  p["size"] = size;
  p["eval_seed"] = r.integer_in("eval_seed", kDefaultClaimEvalSeed, 0, int64_t{1} << 62);
  r.finish();
  return p;
}

Measurement measure(const MeasureInput& in) {
  task::Sampler sampler(in.checkpoint.config.task);
  const auto set = task::make_eval_set(sampler, in.params["set"].get<std::string>(), in.params["size"].get<int>(),
                                       in.params["eval_seed"].get<uint64_t>());
  const auto r = train::evaluate_set(*in.checkpoint.model, set);
  Measurement m;
  m.n = r.n;
  m.successes = r.correct;
  m.value = r.accuracy();
  m.details = {{"set", set.name}, {"description", set.description}, {"exhaustive", set.exhaustive}, {"loss", r.loss}};
  return m;
}

}  // namespace

void register_accuracy(Registry& r) {
  r.add({"accuracy", "fraction of sequences of an evaluation set whose argmax at '=' is (x + y) mod N",
         Statistic::Proportion, parse, measure,
         "set: evaluation set name (test_0, heldout_pairs_1, var_restricted_2, all_pairs_0, ...)\n"
         "size: sequences to sample (default 10000; exhaustive sets ignore it)\n"
         "eval_seed: seed of the sampled set (default 20260531)"});
}

}  // namespace cc::analysis
