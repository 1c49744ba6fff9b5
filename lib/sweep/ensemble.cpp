#include "sweep/ensemble.h"

#include <map>
#include <memory>

#include "sweep/point_files.h"
#include "train/ensemble_trainer.h"
#include "train/runtime.h"

namespace cc::sweep {

std::vector<PointGroup> ensemble_groups(const SweepOptions& o, const catalogue::SweepSpec& s, const PointGroup& points,
                                        int64_t k) {
  std::vector<PointGroup> groups;
  std::map<std::string, size_t> filling;  // what the members must share -> the group being filled
  for (const auto* p : points) {
    const std::string key = p->config.model.to_json().dump() + "|" + p->config.train.to_json().dump() + "|" +
                            std::to_string(point_state(o, s, *p).step);
    auto it = filling.find(key);
    if (it == filling.end() || static_cast<int64_t>(groups[it->second].size()) >= k) {
      groups.emplace_back();
      it = filling.insert_or_assign(key, groups.size() - 1).first;
    }
    groups[it->second].push_back(p);
  }
  return groups;
}

std::vector<PointOutcome> run_ensemble(const SweepOptions& o, const catalogue::SweepSpec& s, const PointGroup& group,
                                       const std::string& command) {
  std::vector<PointOutcome> out(group.size(), PointOutcome::Trained);
  std::vector<std::unique_ptr<PointLock>> locks;
  std::vector<size_t> member_of;  // position in `group` of each member
  std::vector<train::RunConfig> cfgs;
  std::vector<std::string> dirs;
  for (size_t i = 0; i < group.size(); ++i) {
    const std::string dir = point_dir(o, s, *group[i]);
    auto lock = std::make_unique<PointLock>(dir);
    if (!lock->held()) {
      out[i] = PointOutcome::Busy;
      continue;
    }
    if (final_eval_done(dir, group[i]->config.train.steps)) {
      out[i] = PointOutcome::AlreadyDone;
      continue;
    }
    locks.push_back(std::move(lock));
    member_of.push_back(i);
    cfgs.push_back(group[i]->config);
    dirs.push_back(dir);
  }
  if (cfgs.empty()) return out;
  // One process trains them all: every core's thread (on a GPU the host threads matter little).
  train::apply_threads(train::default_threads());
  train::TrainOptions t;
  t.device = o.device;
  t.progress = false;
  t.stop_after = o.stop_after;
  t.command = command;
  train::EnsembleTrainer ensemble(cfgs, dirs, t);
  const int64_t step = ensemble.run();
  for (size_t j = 0; j < cfgs.size(); ++j) {
    const size_t i = member_of[j];
    if (step < cfgs[j].train.steps) {
      out[i] = PointOutcome::Stopped;
      continue;
    }
    write_final_eval(dirs[j], s, *group[i]);
  }
  return out;
}

}  // namespace cc::sweep
