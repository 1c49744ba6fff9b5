#include "papers/assign_and_add/module/module.h"

#include "papers/assign_and_add/module/task_family.h"

namespace cc::assign_and_add {

void register_module(const plugin::ModuleRegistrar& r) {
  r.add_family(task_family());
  r.add_kinds([](analysis::Registry& kinds) {
    register_attention(kinds);
    register_circuits(kinds);
    register_cosine(kinds);
    register_probes(kinds);
    register_dynamics(kinds);
    register_theory(kinds);
    register_theory_terms(kinds);
  });
}

}  // namespace cc::assign_and_add
