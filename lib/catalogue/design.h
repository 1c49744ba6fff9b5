#pragma once
// A two-level fractional factorial design (Box, Hunter & Hunter, ch. 6), declared in a sweep:
//   design:
//     factors:                          # name: a config key, its low and its high level
//       batch: {key: train.batch_size, low: 128, high: 256, tag: b256}
//       warmup: {key: train.warmup_steps, low: 0, high: 500, tag: wu500}
//       sv: {low: {task.restricted_first: [a, b], ...}, high: {...}, tag: sv6}   # several keys at once
//       ...
//     generators:                       # a generated factor's level is the product of these
//       warmup: [batch, beta2, init]    # factors' levels (coded -1 low, +1 high), negated for a
//                                       # generator of even length: the fraction holds the all-low row
// The factors that are not generated form a full 2^k factorial (in name order, the first varying
// fastest);
// each generated factor adds no run. Each row becomes a variant of the sweep, named by the tags of
// its high factors joined by '-' ("base" when every factor is low), whose changes set the high
// levels: the low levels must be the base run's own, so "base" is the base run itself.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "util/yaml_json.h"

namespace cc::catalogue {

struct DesignFactor {
  std::string name, tag;
  nlohmann::json low, high;            // {config key: value}: one key (`key:` in the file) or several
  std::vector<std::string> generator;  // empty: a base factor
  SourcePos where;
};

struct DesignRow {
  std::string variant;
  std::map<std::string, int> levels;  // factor -> -1 | +1
  nlohmann::json changes;             // {config key: high value} for the factors at +1
};

struct Design {
  std::vector<DesignFactor> factors;
  std::vector<DesignRow> rows;
  // Reads `design:` at `r`; `base_config` (the base run's config as JSON) must hold every low level.
  static Design from_yaml(ObjectReader r, const nlohmann::json& base_config);
  // {"factors": [{name, key, tag, low, high, generator}], "rows": [{variant, levels}]}
  nlohmann::json to_json() const;
};

}  // namespace cc::catalogue
