#include "train/family.h"

#include <map>
#include <mutex>

#include "train/builtin_task.h"
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
  f.by_name.emplace(family.name, std::move(family));
}

const TaskFamily* find_family(const std::string& name) {
  auto& f = families();
  std::lock_guard<std::mutex> lock(f.mu);
  auto it = f.by_name.find(name);
  return it == f.by_name.end() ? nullptr : &it->second;  // entries are never removed: stable
}

std::vector<std::string> family_names() {
  auto& f = families();
  std::lock_guard<std::mutex> lock(f.mu);
  std::vector<std::string> out;
  for (const auto& kv : f.by_name) out.push_back(kv.first);
  return out;
}

OperandGrid operand_grid(const RunConfig& cfg) {
  if (cfg.family.empty()) return builtin_operand_grid(cfg);
  const TaskFamily* family = find_family(cfg.family);
  if (!family || !family->operand_grid)
    throw Error("task family '" + cfg.family + "' gives no operand grid (train/family.h: TaskFamily::operand_grid)");
  return family->operand_grid(cfg);
}

}  // namespace cc::train
