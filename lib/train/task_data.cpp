#include "train/task_data.h"

#include <algorithm>

#include "train/family.h"
#include "train/run_config.h"
#include "util/error.h"

namespace cc::train {

std::vector<std::string> known_eval_set_names() {
  std::vector<std::string> names;
  const TaskFamily* first = default_family();
  if (first) names = first->eval_set_names;
  for (const auto& f : family_names())
    for (const auto& n : find_family(f)->eval_set_names)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  return names;
}

bool is_known_eval_set(const std::string& name) {
  const auto names = known_eval_set_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::unique_ptr<TaskData> make_task_data(const RunConfig& cfg) {
  const TaskFamily& family = family_of(cfg);
  if (!family.data)
    throw Error("run '" + cfg.name + "': task family '" + family.name +
                "' gives no batches or evaluation sets (train/family.h: TaskFamily::data)");
  return family.data(cfg);
}

}  // namespace cc::train
