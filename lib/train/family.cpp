#include "train/family.h"

#include "train/run_config.h"
#include "util/error.h"
#include "util/registry.h"

namespace cc::train {
namespace {

NamedRegistry<TaskFamily>& families() {
  static NamedRegistry<TaskFamily> f("task family");
  return f;
}

// The first lookup freezes the registry: a family registered after a run was read would be missed by it.
NamedRegistry<TaskFamily>& frozen_families() {
  auto& f = families();
  f.freeze("a run was read");
  return f;
}

const TaskFamily* default_family_unfrozen() {
  for (const TaskFamily* f : families().values())
    if (f->is_default) return f;
  return nullptr;
}

}  // namespace

void register_family(TaskFamily family, const std::string& origin) {
  if (family.is_default)
    if (const TaskFamily* other = default_family_unfrozen())
      throw Error("task families '" + other->name + "' and '" + family.name + "' both claim the runs that name none");
  const std::string name = family.name;
  families().add(name, std::move(family), origin);
}

const TaskFamily* find_family(const std::string& name) { return frozen_families().find(name); }

std::string unknown_family_message(const std::string& name) { return frozen_families().unknown_message(name); }

const TaskFamily* default_family() {
  frozen_families();
  return default_family_unfrozen();
}

const TaskFamily& family_of(const RunConfig& cfg) {
  if (cfg.family.empty()) {
    if (const TaskFamily* d = default_family()) return *d;
    throw Error("run '" + cfg.name + "' names no task family and no paper module registered a default one");
  }
  if (const TaskFamily* family = find_family(cfg.family)) return *family;
  throw Error("run '" + cfg.name + "': " + unknown_family_message(cfg.family));
}

std::vector<std::string> family_names() { return frozen_families().names(); }

OperandGrid operand_grid(const RunConfig& cfg) {
  const TaskFamily& family = family_of(cfg);
  if (!family.operand_grid)
    throw Error("task family '" + family.name + "' gives no operand grid (train/family.h: TaskFamily::operand_grid)");
  return family.operand_grid(cfg);
}

}  // namespace cc::train
