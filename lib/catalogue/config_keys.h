#pragma once
// Editing a run config by dotted keys ("train.batch_size"), for the places in runs.yaml that change
// another run's config: a run's `base:` and a sweep's `set`, axes, variants and designs. Every error
// points at where the key or value was written.
#include <nlohmann/json.hpp>

#include <map>
#include <cstdint>
#include <string>
#include <vector>

#include "train/run_config.h"
#include "util/yaml_json.h"

namespace cc::catalogue {

std::string pointer_of(const std::string& key);  // "task.pair_fraction" -> "/task/pair_fraction"

// Errors about `key`'s value, or about its whole section (a cross-field check), point at `pos`.
void mark_value(std::map<std::string, SourcePos>& marks, const std::string& key, const SourcePos& pos);

// Checks that `key` names a field of `base` (a config as RunConfig::to_json(true)); fails at `where`.
void check_key(const std::string& key, const nlohmann::json& base, const SourcePos& where);

// A run's or a sweep's `seeds:` (default [0]): each in [0, 2^32] and listed once, at least one.
std::vector<uint64_t> read_seeds(ObjectReader& r);

// A run config built from `j`, with errors placed at the positions in `marks` (JSON pointer of the
// config -> where that value was written in `file`).
train::RunConfig config_from(const nlohmann::json& j, const std::string& file, std::map<std::string, SourcePos> marks);

}  // namespace cc::catalogue
