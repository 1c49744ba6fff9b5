#pragma once
// Training the points of a sweep, and collecting them into a summary.
//
// A point is an ordinary run: it trains with the ordinary trainer into the run cache,
// CACHE/<sweep>-<config hash>/seed<k>/, resumes from its latest resume point, and is finished
// when final_eval.json (every evaluation set on the last checkpoint) has been written. A lock
// file per point (flock, released by the kernel even on kill -9) keeps two processes, e.g. two
// Slurm array tasks or two `sweep run` invocations, from training one point at once.
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "catalogue/runs.h"
#include "catalogue/sweep_results.h"

namespace cc::sweep {

struct PointState {
  enum Kind { Missing, Partial, Done, Running } kind = Missing;
  int64_t step = 0;  // Partial: the step it would resume from; Done: the final step
  std::string dir;
  std::string describe() const;  // "done", "partial at step 1500", "missing", "running (partial at …)"
};

struct SweepOptions {
  std::string cache_dir = "cache";
  std::string runs_path;  // the paper's runs file (recorded in every command the sweep writes)
  torch::Device device = torch::kCPU;
  int64_t stop_after = -1;  // stop each point at this step (tests; resume later)
};

std::string point_dir(const SweepOptions& o, const catalogue::SweepSpec& s, const catalogue::SweepPoint& p);
PointState point_state(const SweepOptions& o, const catalogue::SweepSpec& s, const catalogue::SweepPoint& p);
// The command that trains (or resumes) exactly this point.
std::string point_command(const SweepOptions& o, const catalogue::SweepSpec& s, const catalogue::SweepPoint& p);

enum class PointOutcome { Trained, Stopped, AlreadyDone, Busy };
// The exit status of `sweep run` (and of a `--point` child) when a point is being trained by another
// process (its lock is held): the sweep is not finished, so not 0; not a failure either (EX_TEMPFAIL).
constexpr int kExitBusy = 75;
// Trains one point in this process with 1 libtorch + 1 BLAS thread (the setup that makes every
// point bitwise the same whichever scheduler runs it), then writes final_eval.json.
PointOutcome run_point(const SweepOptions& o, const catalogue::SweepSpec& s, const catalogue::SweepPoint& p);

// What a `sweep run` over `todo` leaves behind: points another process still holds (busy, by index)
// and points neither done nor held (unfinished, "INDEX (state)": the process that held them stopped
// first). With o.stop_after >= 0 a point stopped early counts as finished.
struct ShardLeft {
  std::vector<size_t> busy;
  std::vector<std::string> unfinished;
};
ShardLeft left_behind(const SweepOptions& o, const catalogue::SweepSpec& s,
                      const std::vector<const catalogue::SweepPoint*>& todo);

// Runs `points` in child processes, at most `jobs` at once; `child_args(p)` is each child's
// claimcheck argument list, its output goes to the point's log.txt. `report` gets one line per
// event. Returns the number of points whose process failed; a child that exits kExitBusy is reported
// as busy and not counted.
int run_parallel(const SweepOptions& o, const catalogue::SweepSpec& s,
                 const std::vector<const catalogue::SweepPoint*>& points, int jobs,
                 const std::function<std::vector<std::string>(const catalogue::SweepPoint&)>& child_args,
                 const std::function<void(const std::string&)>& report);

// Reads every point (all must be done) into the summary's records, in plan order.
std::vector<catalogue::PointResult> gather(const SweepOptions& o, const catalogue::SweepSpec& s, int64_t metrics_every);
// Writes OUT/summary.jsonl and OUT/manifest.json (sha256 of every point's files, the command
// that recreates it). Returns the number of points written.
size_t collect(const SweepOptions& o, const catalogue::SweepSpec& s, const std::string& out_dir, int64_t metrics_every);

}  // namespace cc::sweep
