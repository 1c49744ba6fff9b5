#include "analysis/kinds.h"

#include <vector>

namespace cc::analysis {
namespace {

std::vector<std::function<void(Registry&)>>& module_kinds() {
  static std::vector<std::function<void(Registry&)>> adders;
  return adders;
}

}  // namespace

void add_module_kinds(std::function<void(Registry&)> add) { module_kinds().push_back(std::move(add)); }

const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    register_accuracy(r);
    register_fourier(r);
    register_reproducibility(r);
    register_sweep(r);
    for (const auto& add : module_kinds()) add(r);
    return r;
  }();
  return registry;
}

}  // namespace cc::analysis
