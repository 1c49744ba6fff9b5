#include "catalogue/config_keys.h"

#include <algorithm>
#include <vector>

#include "util/error.h"

namespace cc::catalogue {
namespace {

const std::vector<std::string> kSections = {"task", "model", "train"};

}  // namespace

std::string pointer_of(const std::string& key) {
  const size_t dot = key.find('.');
  return "/" + key.substr(0, dot) + "/" + key.substr(dot + 1);
}

void mark_value(std::map<std::string, SourcePos>& marks, const std::string& key, const SourcePos& pos) {
  const std::string ptr = pointer_of(key);
  marks[ptr] = pos;
  marks[ptr.substr(0, ptr.rfind('/'))] = pos;
}

void check_key(const std::string& key, const nlohmann::json& base, const SourcePos& where) {
  const size_t dot = key.find('.');
  const std::string section = dot == std::string::npos ? key : key.substr(0, dot);
  if (dot == std::string::npos || std::find(kSections.begin(), kSections.end(), section) == kSections.end())
    throw Error(where, "'" + key + "' is not a config key: expected task.X, model.X or train.X");
  const std::string field = key.substr(dot + 1);
  if (!base[section].contains(field)) {
    std::string known;
    for (const auto& kv : base[section].items()) known += (known.empty() ? "" : ", ") + kv.key();
    throw Error(where, "unknown config key '" + key + "' (" + section + " has: " + known + ")");
  }
}

std::vector<uint64_t> read_seeds(ObjectReader& r) {
  std::vector<uint64_t> seeds;
  for (int64_t s : r.integers("seeds", {0})) {
    if (s < 0 || s > (int64_t{1} << 32)) r.fail("seeds", "seeds must be in [0, 2^32]");
    if (std::find(seeds.begin(), seeds.end(), static_cast<uint64_t>(s)) != seeds.end())
      r.fail("seeds", "seed " + std::to_string(s) + " is listed twice");
    seeds.push_back(static_cast<uint64_t>(s));
  }
  if (seeds.empty()) r.fail("seeds", "needs at least one seed");
  return seeds;
}

train::RunConfig config_from(const nlohmann::json& j, const std::string& file, std::map<std::string, SourcePos> marks) {
  YamlDoc doc;
  doc.file = file;
  doc.value = j;
  doc.marks = std::move(marks);
  return train::RunConfig::from_yaml(ObjectReader(doc, ""));
}

}  // namespace cc::catalogue
