#include "module.h"

namespace cc::assign_and_add {

void register_module() {
  analysis::add_module_kinds([](analysis::Registry& r) {
    analysis::register_theory(r);
    analysis::register_theory_terms(r);
  });
}

}  // namespace cc::assign_and_add
