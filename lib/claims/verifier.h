#pragma once
// The verifier: runs claims (resolve checkpoints, measure, decide, check the negative control).
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "claims/claim.h"
#include "catalogue/run_store.h"
#include "claims/stats.h"
#include "util/work_pool.h"

namespace cc::claims {

enum class Verdict { Pass, Fail, Inconclusive, Skipped, Invalid, Error };
std::string verdict_name(Verdict v);  // "PASS", ...

// PASS if the whole interval is on the passing side of the threshold, FAIL if it is all on
// the other side, INCONCLUSIVE if it straddles it.
// For Comparison::Within the range is [threshold, high]: PASS inside, FAIL disjoint from it.
Verdict decide(Comparison op, double threshold, Interval ci, double high = 0);

struct SeedResult {
  uint64_t seed = 0;
  int64_t step = 0;
  analysis::Measurement m;
  Interval ci;
  Verdict verdict = Verdict::Inconclusive;
};

// One negative control's outcome: its seeds' rows, or why the kind could not compute its statistic on
// it (e.g. a training history that ends at step 0 has no phases): such a control decides nothing, and
// the report says so rather than show a value fixed by construction.
struct ControlResult {
  Control control;
  std::vector<SeedResult> seeds;
  std::string unavailable;  // non-empty: not measured, and why
};

struct ClaimResult {
  std::string file;
  bool loaded = false;
  Claim claim;     // valid when loaded
  std::string id;  // claim id, or the file name when it did not load
  Verdict verdict = Verdict::Error;
  std::string reason;  // why: the error, the skip, the failing seed, the control
  std::vector<SeedResult> seeds;
  std::vector<ControlResult> controls;
  // True when the claim names controls and none could be measured: its verdict rests on no control
  // (reported; INVALID under VerifyOptions::strict_controls).
  bool controls_unavailable = false;
  double measured = 0;  // per-seed value (1 seed) or the mean (the median under `seeds: median`)
  Interval measured_ci;
  // How measured_ci was made (claims/stats.h): "one seed" (that seed's own interval), "seed range",
  // "t 95 %" or "order statistics"; and the coverage that method states (0: none stated).
  std::string measured_interval;
  double measured_coverage = 0;
  // The rule's other evaluation draws (Rule::draws > 1; the first draw is `seeds` above): each draw's
  // eval_seed, its seeds' values and the verdict the rule gives on them.
  struct Draw {
    uint64_t eval_seed = 0;
    std::vector<SeedResult> seeds;
    Verdict verdict = Verdict::Error;
    double measured = 0;
  };
  std::vector<Draw> draws;
  // The reading's other values of each free constant (Claim::sensitivity), measured on the first draw's
  // seeds, each judged by the rule: Claim::sensitivity[constant].values[value].
  struct Reading {
    size_t constant = 0, value = 0;
    std::vector<SeedResult> seeds;
    Verdict verdict = Verdict::Error;
    double measured = 0;
  };
  std::vector<Reading> readings;
  // The rule's verdict on `seeds` alone (the committed reading, the first draw), before the other draws
  // and readings are weighed.
  Verdict first_verdict = Verdict::Error;
  // How far the measured value lies from the threshold, in units of its whole uncertainty (claim_margin):
  // positive on the passing side, >= 1 clear of the threshold; none where no uncertainty was measured.
  std::optional<double> margin;
  double seconds = 0;
};

// The measured value's signed distance from the rule's threshold (the nearer end of a `within` range)
// over its whole uncertainty: the seeds' interval half-width, the seeds' own evaluation intervals (their
// mean half-width) and the other evaluation draws (half the range of their values) combined in
// quadrature. Positive on the passing side; none when all three are 0 (an exact value).
std::optional<double> claim_margin(const Rule& rule, const ClaimResult& r);

struct VerifyOptions {
  std::vector<uint64_t> seeds;  // --seeds: restrict every claim to these seeds (empty: all)
  std::string run;              // --run: measure every claim on this run instead of its own
                                // (e.g. the same claims on an alternative config); "" = as written
  // --rung: every run a claim reads (its subject, its trained controls) that this maps is read as the
  // run it maps to (claims/ladder.h); the claim file is unchanged.
  std::map<std::string, std::string> run_as;
  std::map<std::string, std::string> sweep_as;  // --sweep-as: a sweep claim on sweep A reads sweep B
                                                // instead (the same grid under other choices)
  bool strict_controls = false;  // --strict-controls: a claim none of whose controls could be measured is INVALID
  int jobs = 1;                  // claims measured at once, one thread each (--jobs); the values do not depend on it
  // How long each claim file (lexically normal) took when last measured (report::claim_seconds): run_claims
  // starts the longest first. Empty: the files' order. The values do not depend on it.
  std::map<std::string, double> last_seconds;
  analysis::ActivationStore* activations = nullptr;  // shared forwards; nullptr: run_claims makes its own
  WorkPool* pool = nullptr;  // run_claims' threads, which also measure a claim's seeds at once (nullptr: in turn)
  // Called as each claim ends (from the worker that measured it, one call at a time), with the number
  // done so far and the total: `verify`'s progress line. Empty: nothing is called.
  std::function<void(const ClaimResult&, size_t done, size_t total)> on_done;
};

// The activation store's default byte budget. Every hook the built-in kinds read, on the test sets,
// takes about 25 MB a checkpoint: `verify claims` keeps 277 MB at its peak, while the attribution's
// hundreds of checkpoints fill the budget and evict the least recently used.
constexpr size_t kActivationStoreBytes = size_t{2} << 30;

ClaimResult run_claim(const std::string& file, const analysis::Registry& registry, const catalogue::Runs& runs,
                      catalogue::RunStore& store, const VerifyOptions& opts);

// Runs every file, opts.jobs at a time, results in the files' order; a second file with an
// already-used id is an ERROR. A thread with no file left helps the claims still running with their
// seeds (util/work_pool.h). Files are started longest first where opts.last_seconds knows them, as
// ctest orders tests by their last cost, so that a long claim does not start when the others are
// done and run on one core; the files it does not know start first, in their order.
std::vector<size_t> start_order(const std::vector<std::string>& files, const std::map<std::string, double>& seconds);
// A claim file's key in VerifyOptions::last_seconds: its path, lexically normal ("a/./b.yaml" is "a/b.yaml").
std::string last_seconds_key(const std::string& file);
std::vector<ClaimResult> run_claims(const std::vector<std::string>& files, const analysis::Registry& registry,
                                    const catalogue::Runs& runs, catalogue::RunStore& store, const VerifyOptions& opts);

// The exit status of a verification whose every claim was skipped (ctest's SKIP_RETURN_CODE); the
// statuses and the rule that gives them: report/outcome.h.
constexpr int kExitSkipped = 77;

nlohmann::json to_json(const ClaimResult& r);

}  // namespace cc::claims
