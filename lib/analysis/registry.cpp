#include "analysis/registry.h"

#include <algorithm>
#include <set>

#include "train/family.h"
#include "util/error.h"
#include "util/quoted_list.h"

namespace cc::analysis {
namespace {

// `kind`'s measure, refusing a checkpoint whose task family the kind does not read: a kind written for
// one paper's task would otherwise index that task's positions and vocabulary in another's model.
MeasurementKind::CheckpointMeasure refusing_other_families(const MeasurementKind& kind, const std::string& origin) {
  return [inner = kind.measure, families = kind.families, name = kind.name, origin](const MeasureInput& in) {
    const std::string family = train::family_of(in.checkpoint.config).name;
    if (std::find(families.begin(), families.end(), family) == families.end()) {
      throw Error(in.checkpoint.path + ": measurement kind '" + name + "' (" + origin + ") reads runs of task family " +
                  quoted_list(families) + "; run '" + in.checkpoint.config.name + "' is of task family '" + family +
                  "'");
    }
    return inner(in);
  };
}

}  // namespace

nlohmann::json no_params(ObjectReader r) {
  r.finish();
  return nlohmann::json::object();
}

void add_modes(Registry& r, const MeasurementKind::CheckpointMeasure& measure,
               const std::function<nlohmann::json(ObjectReader, const char* mode)>& parse,
               const std::string& params_doc, const std::vector<HookRead>& reads, const std::vector<KindMode>& modes) {
  for (const KindMode& m : modes) {
    MeasurementKind k(m.kind, m.statistic, measure, m.description);
    k.parse_params = [parse, mode = m.mode](ObjectReader o) { return parse(std::move(o), mode.c_str()); };
    k.params_doc = params_doc;
    k.reads = reads;
    r.add(std::move(k));
  }
}

void Registry::add(MeasurementKind kind) {
  const std::string name = kind.name;
  // A name is what claim files write after `kind:`; a description passed in its place fails here.
  if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
    throw Error("measurement kind '" + name + "' from " + origin_ + ": a kind's name is snake_case");
  if (kind.subject == Subject::Theory && kind.theory.empty())
    throw Error("theory kind '" + name + "' from " + origin_ + " names no model");
  if (kind.families.empty()) kind.families = families_;
  if (from_module_ && kind.families.empty() && kind.measure)
    throw Error("measurement kind '" + name + "' from " + origin_ +
                " reads checkpoints, but its module registers no task family and the kind names none: a paper "
                "module's kind says which families' runs it reads (MeasurementKind::families)");
  if (!kind.families.empty() && kind.measure) kind.measure = refusing_other_families(kind, origin_);
  kinds_.add(name, std::move(kind), origin_);
}

ParameterFields parameter_fields(const MeasurementKind& kind) {
  FieldRecord record;
  ParameterFields out;
  try {
    kind.parse_params(ObjectReader::recording(record));
  } catch (const std::exception&) {
    out.complete = false;
  }
  for (const auto& f : record) out.fields.push_back(f.to_json());
  return out;
}

std::vector<HookRead> Registry::activation_reads() const {
  std::set<HookRead> all;
  for (const MeasurementKind* k : kinds_.values()) all.insert(k->reads.begin(), k->reads.end());
  return {all.begin(), all.end()};
}

}  // namespace cc::analysis
