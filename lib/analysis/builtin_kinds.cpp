#include "analysis/kinds.h"

namespace cc::analysis {

const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    register_accuracy(r);
    register_attention(r);
    register_circuits(r);
    register_cosine(r);
    register_fourier(r);
    register_probes(r);
    register_reproducibility(r);
    register_sweep(r);
    register_theory(r);
    register_dynamics(r);
    return r;
  }();
  return registry;
}

}  // namespace cc::analysis
