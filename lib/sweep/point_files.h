#pragma once
// The files of a sweep point beside its run (inside the sweep layer): the lock that keeps two
// processes from training one point, and final_eval.json, which marks a point done.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "catalogue/sweeps.h"

namespace cc::sweep {

constexpr const char* kFinalEval = "final_eval.json";

// An exclusive flock on DIR/.lock, held while this object lives. The kernel drops it when the
// process dies, however it dies, so a killed run never leaves a stale lock behind.
class PointLock {
 public:
  explicit PointLock(const std::string& dir);
  ~PointLock();
  PointLock(const PointLock&) = delete;
  PointLock& operator=(const PointLock&) = delete;
  bool held() const { return held_; }

 private:
  int fd_ = -1;
  bool held_ = false;
};

bool lock_is_held_elsewhere(const std::string& dir);

nlohmann::json read_json(const std::string& path);

// Whether DIR's final_eval.json is there for the point's last step.
bool final_eval_done(const std::string& dir, int64_t steps);
// Evaluates the point's last checkpoint on the sweep's final evaluation sets into final_eval.json.
void write_final_eval(const std::string& dir, const catalogue::SweepSpec& s, const catalogue::SweepPoint& p);

}  // namespace cc::sweep
