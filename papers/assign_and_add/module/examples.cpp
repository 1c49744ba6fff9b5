#include "papers/assign_and_add/module/examples.h"

#include "papers/assign_and_add/module/task_family.h"

namespace cc::assign_and_add {

std::vector<task::Example> sample_examples(const train::Checkpoint& ck, const std::vector<std::string>& sets, int size,
                                           uint64_t seed) {
  task::Sampler sampler(assign_and_add::task_config(ck.config));
  std::vector<task::Example> out;
  for (const auto& name : sets) {
    auto set = task::make_eval_set(sampler, name, size, seed);
    out.insert(out.end(), set.examples.begin(), set.examples.end());
  }
  return out;
}

}  // namespace cc::assign_and_add
