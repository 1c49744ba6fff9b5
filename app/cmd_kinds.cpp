// claimcheck kinds [--json]: every measurement kind a claim's `measure.kind` may name, what it
// measures, what it reads (a run's checkpoint, a sweep's summary, a theory model) and its parameters: as
// the kind's prose (`params`) and, in JSON, as typed fields read from the kind's own parser (`parameters`).
#include <iostream>
#include <sstream>

#include "analysis/intervention.h"
#include "analysis/registry.h"
#include "analysis/subspace.h"
#include "cli.h"

namespace cc::app {
namespace {

std::string subject_name(const analysis::MeasurementKind& k) {
  switch (k.subject) {
    case analysis::Subject::Sweep:
      return "sweep";
    case analysis::Subject::Theory:
      return "theory:" + k.theory;
    default:
      return "run";
  }
}

}  // namespace

int cmd_kinds(const std::vector<std::string>& args) {
  po::options_description desc("kinds options");
  bool json = false;
  desc.add_options()("json", po::bool_switch(&json), "one JSON array, an object per kind, instead of text");
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse("kinds", "[--json]", desc, pos, args, vm)) return kExitOk;
  const auto& registry = analysis::builtin_registry();
  nlohmann::json out = nlohmann::json::array();
  for (const auto& name : registry.names()) {
    const auto& k = *registry.find(name);
    const std::string statistic = k.statistic == analysis::Statistic::Proportion ? "proportion" : "scalar";
    if (json) {
      const analysis::ParameterFields fields = analysis::parameter_fields(k);
      out.push_back({{"kind", k.name},
                     {"subject", subject_name(k)},
                     {"statistic", statistic},
                     {"description", k.description},
                     {"params", k.params_doc},
                     {"parameters", fields.fields},
                     {"parameters_complete", fields.complete},
                     {"intervenable", k.intervenable},
                     {"origin", registry.origin(name)}});
      continue;
    }
    std::cout << k.name << "  (" << subject_name(k) << ", " << statistic << "; " << registry.origin(name) << ")\n  "
              << k.description << "\n";
    std::istringstream doc(k.params_doc);  // one parameter a line, indented
    for (std::string line; std::getline(doc, line);) std::cout << "    " << line << "\n";
    if (k.intervenable) std::cout << "    (intervenable: takes `intervene:` and `effect:`, docs/claim-files.md)\n";
  }
  // The fields every intervenable kind takes besides its own.
  if (!json) {
    std::istringstream doc(analysis::kInterventionDoc);
    std::cout << "\nInterventions, for the kinds marked intervenable:\n";
    for (std::string line; std::getline(doc, line);) std::cout << "  " << line << "\n";
    std::cout << "  effect: intervened (the measurement with the edits; default) | drop (clean less intervened)\n";
    std::cout << "\nSubspaces, for op: project:\n";
    for (const auto& name : analysis::subspace_names()) {
      const auto& s = analysis::find_subspace(name);
      std::string hooks;
      for (const auto& h : s.hooks) hooks += (hooks.empty() ? "" : ", ") + h;
      std::cout << "  " << name << "  (at " << hooks << "; " << analysis::subspace_origin(name) << ")\n    "
                << s.description << "\n";
    }
  }
  if (json) std::cout << out.dump(2) << "\n";
  return kExitOk;
}

}  // namespace cc::app
