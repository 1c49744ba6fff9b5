#pragma once
// Packing trained runs into committed fixtures, and putting packed sweep points back into a cache:
// `claimcheck fixtures pack` and `fixtures restore`.
//
// A fixture folder holds the checkpoints kept (stepNNNNNN.safetensors + .json sidecar), the metrics
// log, final_eval.json for a sweep point, and run.json:
//   {"format": "claimcheck-fixture/1", "packed": UTC time, "final_sidecar": the last step's sidecar,
//    "trained_with_commit": the commit in step 0's sidecar (the code the run started with),
//    "recreate": the command that retrains it, "sha256": {file: sha256, ...}}
// Where packed sweep points go, one place for every caller:
//   a grid point:     FIXTURES/SWEEP/HASH/seedK     (HASH the point's config hash, as `sweep plan` prints)
//   a variant point:  FIXTURES/SWEEP/VARIANT/seedK  (the run SWEEP/VARIANT's fixture folder)
#include <cstdint>
#include <string>
#include <vector>

#include "catalogue/sweeps.h"
#include "sweep/runner.h"

namespace cc::sweep {

struct PackRequest {
  std::string src, dst;        // a run folder (a trainer's --out or a cache point), the fixture folder
  std::vector<int64_t> steps;  // the checkpoints to keep; the last one is the final sidecar
  std::string recreate;        // the command that retrains the run ("" leaves it out)
};

// Copies the files and writes DST/run.json; returns the files listed. Throws cc::Error naming a
// missing checkpoint or an unreadable sidecar, before anything is written to DST.
size_t pack_run(const PackRequest& r);

// The fixture folder of one point of a sweep (see above).
std::string packed_point_dir(const std::string& fixtures_dir, const catalogue::SweepSpec& s,
                             const catalogue::SweepPoint& p);

// Packs every done point of `s` from the cache that is not packed yet: a grid point with its step 0
// and final checkpoints and final_eval.json, a variant point with `variant_steps` (the final step
// when empty). Returns the points packed.
size_t pack_sweep(const SweepOptions& o, const catalogue::SweepSpec& s, const std::string& fixtures_dir,
                  const std::vector<int64_t>& variant_steps);

// Puts every packed point of a grid sweep back into the cache (CACHE/SWEEP-HASH/seedK) after checking
// each file against its run.json, so `sweep run` trains only the rest and `sweep collect` reads them
// all. A point the cache already has done is left alone. Returns the points restored; throws
// cc::Error naming a file that does not match, before copying anything of that point.
size_t restore_sweep(const SweepOptions& o, const catalogue::SweepSpec& s, const std::string& fixtures_dir);

}  // namespace cc::sweep
