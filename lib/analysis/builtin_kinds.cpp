#include <mutex>
#include <utility>
#include <vector>

#include "analysis/kinds.h"

namespace cc::analysis {
namespace {

struct ModuleKinds {
  std::mutex mu;
  struct Adder {
    std::string origin;
    std::function<std::vector<std::string>()> families;
    std::function<void(Registry&)> add;
  };
  std::vector<Adder> adders;
  bool built = false;
};

ModuleKinds& module_kinds() {
  static ModuleKinds m;
  return m;
}

Registry& build() {
  static Registry r;
  register_accuracy(r);
  register_first_steps(r);
  register_fourier(r);
  register_reset_ablation(r);
  register_reproducibility(r);
  register_sweep(r);
  auto& m = module_kinds();
  std::lock_guard<std::mutex> lock(m.mu);
  for (const auto& a : m.adders) {
    r.set_module(a.origin, a.families());
    a.add(r);
  }
  m.built = true;
  r.freeze("the kinds were first read");
  return r;
}

}  // namespace

void add_module_kinds(const std::string& origin, std::function<std::vector<std::string>()> families,
                      std::function<void(Registry&)> add) {
  auto& m = module_kinds();
  std::lock_guard<std::mutex> lock(m.mu);
  if (m.built)
    throw Error("measurement kinds from " + origin +
                " are registered after the registry was frozen (the kinds were first read): a module registers "
                "at start-up, before any claim is read");
  m.adders.push_back({origin, std::move(families), std::move(add)});
}

const Registry& builtin_registry() {
  static const Registry& registry = build();
  return registry;
}

}  // namespace cc::analysis
