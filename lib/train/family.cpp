#include "train/family.h"

#include <map>
#include <mutex>

#include "train/run_config.h"
#include "util/error.h"

namespace cc::train {
namespace {

struct Families {
  std::mutex mu;
  std::map<std::string, TaskFamily> by_name;
};

Families& families() {
  static Families f;
  return f;
}

}  // namespace

void register_family(TaskFamily family) {
  auto& f = families();
  std::lock_guard<std::mutex> lock(f.mu);
  if (f.by_name.count(family.name)) throw Error("task family '" + family.name + "' is registered twice");
  if (family.is_default)
    for (const auto& kv : f.by_name)
      if (kv.second.is_default)
        throw Error("task families '" + kv.first + "' and '" + family.name + "' both claim the runs that name none");
  f.by_name.emplace(family.name, std::move(family));
}

const TaskFamily* find_family(const std::string& name) {
  auto& f = families();
  std::lock_guard<std::mutex> lock(f.mu);
  auto it = f.by_name.find(name);
  return it == f.by_name.end() ? nullptr : &it->second;  // entries are never removed: stable
}

const TaskFamily* default_family() {
  auto& f = families();
  std::lock_guard<std::mutex> lock(f.mu);
  for (const auto& kv : f.by_name)
    if (kv.second.is_default) return &kv.second;
  return nullptr;
}

const TaskFamily& family_of(const RunConfig& cfg) {
  if (cfg.family.empty()) {
    if (const TaskFamily* d = default_family()) return *d;
    throw Error("run '" + cfg.name + "' names no task family and no paper module registered a default one");
  }
  if (const TaskFamily* family = find_family(cfg.family)) return *family;
  throw Error("run '" + cfg.name + "': task family '" + cfg.family + "' is not registered");
}

std::vector<std::string> family_names() {
  auto& f = families();
  std::lock_guard<std::mutex> lock(f.mu);
  std::vector<std::string> out;
  for (const auto& kv : f.by_name) out.push_back(kv.first);
  return out;
}

OperandGrid operand_grid(const RunConfig& cfg) {
  const TaskFamily& family = family_of(cfg);
  if (!family.operand_grid)
    throw Error("task family '" + family.name + "' gives no operand grid (train/family.h: TaskFamily::operand_grid)");
  return family.operand_grid(cfg);
}

}  // namespace cc::train
