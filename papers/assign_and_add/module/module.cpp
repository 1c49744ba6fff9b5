#include "module.h"

#include "task_family.h"

namespace cc::assign_and_add {

void register_module() {
  register_family();
  analysis::add_module_kinds([](analysis::Registry& r) {
    analysis::register_attention(r);
    analysis::register_circuits(r);
    analysis::register_cosine(r);
    analysis::register_probes(r);
    analysis::register_dynamics(r);
    analysis::register_theory(r);
    analysis::register_theory_terms(r);
  });
}

}  // namespace cc::assign_and_add
