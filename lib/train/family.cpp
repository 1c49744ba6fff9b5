#include "train/family.h"

#include <map>
#include <mutex>

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

}  // namespace cc::train
