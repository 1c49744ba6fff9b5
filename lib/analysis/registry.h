#pragma once
// The measurement registry: kind name -> {parameter schema, function}. A claim file names a
// kind and its parameters; adding a kind is one small file under lib/analysis plus one line
// in builtin_kinds.cpp, never a branch in the engine.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/measurement.h"
#include "analysis/sweep_series.h"
#include "train/checkpoint.h"
#include "util/yaml_json.h"

namespace cc::analysis {

struct MeasureInput {
  const train::Checkpoint& checkpoint;
  const nlohmann::json& params;  // as returned by the kind's parse_params
};

// What a claim measures: one checkpoint of a run, or one seed's series across a sweep.
enum class Subject { Checkpoint, Sweep };

struct SweepMeasureInput {
  const SweepSeries& series;
  const nlohmann::json& params;
};

struct MeasurementKind {
  std::string name;
  std::string description;
  Statistic statistic = Statistic::Scalar;
  // Reads and validates the parameters (ObjectReader errors carry FILE:LINE:COL), returning
  // them normalised with defaults filled in. Must call r.finish().
  std::function<nlohmann::json(ObjectReader r)> parse_params;
  std::function<Measurement(const MeasureInput&)> measure;  // Subject::Checkpoint
  std::string params_doc;  // one line per parameter, for `claimcheck explain` and claims/README.md
  Subject subject = Subject::Checkpoint;
  std::function<Measurement(const SweepMeasureInput&)> measure_sweep;  // Subject::Sweep
};

class Registry {
 public:
  void add(MeasurementKind kind);  // throws on a duplicate name
  const MeasurementKind* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, MeasurementKind> kinds_;
};

// The registry with every built-in kind.
const Registry& builtin_registry();

}  // namespace cc::analysis
