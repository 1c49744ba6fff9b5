#include "train/task_data.h"

#include "train/builtin_task.h"
#include "train/family.h"
#include "train/run_config.h"
#include "util/error.h"

namespace cc::train {

std::unique_ptr<TaskData> make_task_data(const RunConfig& cfg) {
  if (cfg.family.empty()) return builtin_task_data(cfg);
  const TaskFamily* family = find_family(cfg.family);
  if (!family) throw Error("run '" + cfg.name + "': task family '" + cfg.family + "' is not registered");
  if (!family->data)
    throw Error("run '" + cfg.name + "': task family '" + cfg.family +
                "' gives no batches or evaluation sets to the engine's trainer (it trains its runs itself)");
  return family->data(cfg);
}

}  // namespace cc::train
