#pragma once
// Training a sweep's points K at a time in one process, as one stacked model
// (train/ensemble_trainer.h): `sweep run --ensemble K`, the path for a GPU, where one point alone
// leaves the device mostly idle. Each point still gets its own run folder, resume points, metrics
// log and final_eval.json, so `plan`, `collect` and `fixtures pack` treat it as any other point.
// A stacked point equals its separate run up to summation order (tests: 1e-5), not bitwise; its
// sidecars say so ("ensemble": members and index) and name the command that trained it.
#include <string>
#include <vector>

#include "catalogue/sweeps.h"
#include "sweep/runner.h"

namespace cc::sweep {

using PointGroup = std::vector<const catalogue::SweepPoint*>;

// `points` in groups that one stacked model can train: the same model and training config (the
// points differ in their task and seed) and the same resume step (0: not started); at most k a
// group, in plan order.
std::vector<PointGroup> ensemble_groups(const SweepOptions& o, const catalogue::SweepSpec& s, const PointGroup& points,
                                        int64_t k);

// Trains one group in this process, then writes each finished point's final_eval.json. Every
// point's lock is held throughout; a point locked by another process is left to it (Busy), one
// already done is skipped. `command` goes into the sidecars. Returns each point's outcome, in the
// group's order. cc::Error where the config cannot be stacked (train.engine blas, warmup, clipping).
std::vector<PointOutcome> run_ensemble(const SweepOptions& o, const catalogue::SweepSpec& s, const PointGroup& group,
                                       const std::string& command);

}  // namespace cc::sweep
