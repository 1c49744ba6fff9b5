#pragma once
// The measurement registry: kind name -> {parameter schema, function}. A claim file names a
// kind and its parameters; adding a kind is one small file (under lib/analysis for the engine's kinds,
// papers/NAME/module for a paper's) registered by name, never a branch in the verifier.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/activation_store.h"
#include "analysis/measurement.h"
#include "analysis/sweep_series.h"
#include "train/checkpoint.h"
#include "util/error.h"
#include "util/registry.h"
#include "util/yaml_json.h"

namespace cc::analysis {

// A run's history up to the subject checkpoint, for kinds that read training dynamics: the
// metrics log (records with step <= the checkpoint's step) and the run's checkpoints at other
// steps, through the same store as every claim (fixtures, cache, or training if the budget
// allows). `checkpoint_at` throws Unavailable when the budget does not allow it.
struct RunHistory {
  std::vector<nlohmann::json> metrics;    // metrics.jsonl records, ascending step
  std::vector<int64_t> checkpoint_steps;  // steps the run's config keeps a checkpoint at, <= the subject step
  std::function<std::shared_ptr<const train::Checkpoint>(int64_t step)> checkpoint_at;
};

// A seed's data is not available under the budget: the verifier lists the seed as missing.
struct Unavailable : Error {
  using Error::Error;
};

// The kind cannot compute its statistic on this model at all, whatever the budget: e.g. a kind that
// reads a training history, on a checkpoint whose history ends at step 0. Thrown instead of returning
// a value fixed by construction; on a negative control the report says "control unavailable: why".
struct NotComputable : Unavailable {
  using Unavailable::Unavailable;
};

struct MeasureInput {
  const train::Checkpoint& checkpoint;
  const nlohmann::json& params;            // as returned by the kind's parse_params
  const RunHistory* history = nullptr;     // set for kinds with needs_history
  ActivationStore* activations = nullptr;  // forward passes shared across claims (nullptr: computed per call)
};

// What a claim measures: one checkpoint of a run, one seed's series across a sweep, or a
// model defined by the kind itself (the §7 theory: no training, `subject: {theory: NAME}`).
enum class Subject { Checkpoint, Sweep, Theory };

struct TheoryMeasureInput {
  const nlohmann::json& params;
  uint64_t seed;                     // the Monte Carlo seed
  ActivationStore* store = nullptr;  // values shared across claims (ActivationStore::derived); nullptr: per call
};

struct SweepMeasureInput {
  const SweepSeries& series;
  const nlohmann::json& params;
};

// The parse_params of a kind without parameters: any key under `params:` is an error.
nlohmann::json no_params(ObjectReader r);

// A kind is built from its name, statistic, measure function and description; the rest is set by
// name (`k.params_doc = ...`). The middle two have their own types, so moving one does not compile,
// and Registry::add refuses a name that is not snake_case, so a description in its place fails at
// start-up. The measure function's input type fixes the subject.
struct MeasurementKind {
  using CheckpointMeasure = std::function<Measurement(const MeasureInput&)>;
  using SweepMeasure = std::function<Measurement(const SweepMeasureInput&)>;
  using TheoryMeasure = std::function<Measurement(const TheoryMeasureInput&)>;
  MeasurementKind(std::string kind_name, Statistic stat, CheckpointMeasure m, std::string what)
      : MeasurementKind(std::move(kind_name), stat, Subject::Checkpoint, std::move(what)) {
    measure = std::move(m);
  }
  MeasurementKind(std::string kind_name, Statistic stat, SweepMeasure m, std::string what)
      : MeasurementKind(std::move(kind_name), stat, Subject::Sweep, std::move(what)) {
    measure_sweep = std::move(m);
  }
  MeasurementKind(std::string kind_name, Statistic stat, TheoryMeasure m, std::string what)
      : MeasurementKind(std::move(kind_name), stat, Subject::Theory, std::move(what)) {
    measure_theory = std::move(m);
  }

  std::string name;
  std::string description;
  Statistic statistic;
  // Reads and validates the parameters (ObjectReader errors carry FILE:LINE:COL), returning
  // them normalised with defaults filled in. Must call r.finish().
  std::function<nlohmann::json(ObjectReader r)> parse_params = no_params;
  CheckpointMeasure measure;          // Subject::Checkpoint
  std::string params_doc = "(none)";  // one line per parameter, for `claimcheck explain` and docs/claim-files.md
  Subject subject = Subject::Checkpoint;
  SweepMeasure measure_sweep;    // Subject::Sweep
  bool needs_history = false;    // Subject::Checkpoint kinds that read the run's history
  std::string theory;            // Subject::Theory: the model's name, as the claim's subject names it
  TheoryMeasure measure_theory;  // Subject::Theory
  std::vector<HookRead> reads;   // what the kind reads through MeasureInput::activations, for any parameters
  // The kind reads the model only through its forwards (forward_last, forward, record, the activation
  // store), never its weights: a claim may give it an intervention (`intervene:`, analysis/intervention.h),
  // which the verifier applies to the model before the kind sees it.
  bool intervenable = false;
  // The task families whose runs the kind can read (train/family.h). Empty: any run (the engine's
  // kinds, which read a run only through its family's interface). A paper module's kinds get the
  // module's own families unless they name others; Registry::add makes `measure` refuse (cc::Error,
  // naming both) a checkpoint of any other family before it reads a byte of it.
  std::vector<std::string> families;

 private:
  MeasurementKind(std::string kind_name, Statistic stat, Subject kind_subject, std::string what)
      : name(std::move(kind_name)), description(std::move(what)), statistic(stat), subject(kind_subject) {}
};

class Registry;

// Kinds that are one measurement read different ways (attention, cosine, fourier): they share the
// measure function, the parameters and their reads, and `parse` records the mode a kind asks for.
struct KindMode {
  std::string kind;  // the kind's name; Registry::add rejects one that is not snake_case
  Statistic statistic;
  std::string mode;  // as `parse` expects it
  std::string description;
};
void add_modes(Registry& r, const MeasurementKind::CheckpointMeasure& measure,
               const std::function<nlohmann::json(ObjectReader, const char* mode)>& parse,
               const std::string& params_doc, const std::vector<HookRead>& reads, const std::vector<KindMode>& modes);

// The kinds by name (util/registry.h): a duplicate name is an error naming both origins, and a
// frozen registry takes no more.
class Registry {
 public:
  // Entries added from now on come from a paper module (`origin`: papers/NAME/module; before the first
  // call, the engine), and read the runs of `families` unless they name their own
  // (MeasurementKind::families). A module's kind that reads checkpoints must read named families: a
  // module that registers none names them on each kind, or the kind is refused (the engine's kinds
  // alone read any run, through the family's interface).
  void set_module(std::string origin, std::vector<std::string> families) {
    origin_ = std::move(origin);
    families_ = std::move(families);
    from_module_ = true;
  }
  // Throws on a name that is not snake_case, a duplicate, a module's checkpoint kind that reads no named
  // family, or when frozen.
  void add(MeasurementKind kind);
  const MeasurementKind* find(const std::string& name) const { return kinds_.find(name); }
  std::string unknown_message(const std::string& name) const { return kinds_.unknown_message(name); }
  std::string origin(const std::string& name) const { return kinds_.origin(name); }
  std::vector<std::string> names() const { return kinds_.names(); }
  std::vector<HookRead> activation_reads() const;  // every kind's reads, for ActivationStore::want
  void freeze(const std::string& why) { kinds_.freeze(why); }

 private:
  NamedRegistry<MeasurementKind> kinds_{"measurement kind"};
  std::string origin_ = "the engine (lib/analysis)";
  std::vector<std::string> families_;
  bool from_module_ = false;
};

// A kind's parameters as data, read from its own parse_params in recording mode (ObjectReader::recording):
// name, type, required, default, allowed values or range. `complete` is false where the kind's own checks
// refused the placeholders of its required fields before it had read every field.
struct ParameterFields {
  nlohmann::json fields = nlohmann::json::array();
  bool complete = true;
};
ParameterFields parameter_fields(const MeasurementKind& kind);

// The registry with the engine's kinds and every paper module's (add_module_kinds), built and frozen
// at its first use: a module that registers later is an error, never a kind silently missing.
const Registry& builtin_registry();
// A paper module's kinds (papers/NAME/module, origin names it): `add` is called on the registry when it
// is built. cc::Error once builtin_registry() has been built.
// `families`: the module's task families, read when the registry is built (so a module may register
// its families after its kinds); its kinds read those runs only (MeasurementKind::families).
void add_module_kinds(const std::string& origin, std::function<std::vector<std::string>()> families,
                      std::function<void(Registry&)> add);

}  // namespace cc::analysis
