#include "analysis/registry.h"

#include <set>

#include "util/error.h"

namespace cc::analysis {

void Registry::add(MeasurementKind kind) {
  const std::string name = kind.name;
  if (!kinds_.emplace(name, std::move(kind)).second) throw Error("measurement kind '" + name + "' registered twice");
}

const MeasurementKind* Registry::find(const std::string& name) const {
  auto it = kinds_.find(name);
  return it == kinds_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& kv : kinds_) out.push_back(kv.first);
  return out;
}

std::vector<HookRead> Registry::activation_reads() const {
  std::set<HookRead> all;
  for (const auto& kv : kinds_) all.insert(kv.second.reads.begin(), kv.second.reads.end());
  return {all.begin(), all.end()};
}

}  // namespace cc::analysis
