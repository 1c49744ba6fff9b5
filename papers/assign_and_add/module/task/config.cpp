#include "papers/assign_and_add/module/task/config.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace cc::assign_and_add::task {

std::string Vocab::name(int t) const {
  if (is_number(t)) return std::to_string(t);
  if (is_variable(t)) return std::string(1, static_cast<char>('a' + (t - n)));
  if (t == pad()) return "PAD";
  if (t == plus()) return "+";
  if (t == equals()) return "=";
  return "?" + std::to_string(t);
}

int Vocab::variable_index(const std::string& letter) const {
  if (letter.size() != 1) return -1;
  int i = letter[0] - 'a';
  return (i >= 0 && i < v) ? i : -1;
}

TaskConfig TaskConfig::from_yaml(ObjectReader r) {
  TaskConfig c;
  // A run may name this task's family (train/family.h) though it is the default one; the name is
  // not part of the config, so such a run has the hash of one that names none.
  r.one_of("family", {"assign_and_add"}, "assign_and_add");
  c.modulus = static_cast<int>(r.integer_in("modulus", c.modulus, 2, 1000));
  c.n_variables = static_cast<int>(r.integer_in("n_variables", c.n_variables, 2, 26));
  c.pair_fraction = r.number("pair_fraction", c.pair_fraction);
  c.pair_seed =
      static_cast<uint64_t>(r.integer_in("pair_seed", static_cast<int64_t>(c.pair_seed), 0, int64_t{1} << 62));
  c.restricted_first = r.strings("restricted_first", c.restricted_first);
  c.restricted_second = r.strings("restricted_second", c.restricted_second);
  c.ratio_2var_to_0var = r.number("ratio_2var_to_0var", c.ratio_2var_to_0var);
  c.weight_1var = r.number("weight_1var", c.weight_1var);
  c.assignments_min = static_cast<int>(r.integer_in("assignments_min", c.assignments_min, 1, 6));
  c.assignments_max = static_cast<int>(r.integer_in("assignments_max", c.assignments_max, 1, 6));
  c.allow_same_variable = r.boolean("allow_same_variable", c.allow_same_variable);
  r.finish();
  try {
    c.validate();
  } catch (const Error& e) {
    throw Error(r.doc().at(r.pointer()), std::string("invalid task config: ") + e.what());
  }
  return c;
}

void TaskConfig::validate() const {
  if (modulus < 2 || modulus > 1000) throw Error("modulus must be in [2, 1000]");
  if (n_variables < 2 || n_variables > 26) throw Error("n_variables must be in [2, 26]");
  if (!(pair_fraction > 0.0 && pair_fraction <= 1.0)) throw Error("pair_fraction must be in (0, 1]");
  if (!(ratio_2var_to_0var >= 0.0) || !(weight_1var >= 0.0))
    throw Error("ratio_2var_to_0var and weight_1var must be >= 0");
  if (assignments_min < 1 || assignments_max > kAssignSlots / 2 || assignments_min > assignments_max)
    throw Error("need 1 <= assignments_min <= assignments_max <= 6");
  if (assignments_max < 2) throw Error("assignments_max must be >= 2 (a 2-var addition assigns two variables)");
  Vocab vocab(*this);
  for (const auto* list : {&restricted_first, &restricted_second})
    for (const auto& name : *list)
      if (vocab.variable_index(name) < 0)
        throw Error("'" + name + "' is not a variable name (a.." +
                    std::string(1, static_cast<char>('a' + n_variables - 1)) + ")");
}

nlohmann::json TaskConfig::to_json() const {
  return {{"modulus", modulus},
          {"n_variables", n_variables},
          {"pair_fraction", pair_fraction},
          {"pair_seed", pair_seed},
          {"restricted_first", restricted_first},
          {"restricted_second", restricted_second},
          {"ratio_2var_to_0var", ratio_2var_to_0var},
          {"weight_1var", weight_1var},
          {"assignments_min", assignments_min},
          {"assignments_max", assignments_max},
          {"allow_same_variable", allow_same_variable}};
}

TaskConfig TaskConfig::from_json(const nlohmann::json& j) {
  YamlDoc doc;
  doc.file = "<task config json>";
  doc.value = j;
  return from_yaml(ObjectReader(doc, ""));
}

}  // namespace cc::assign_and_add::task
