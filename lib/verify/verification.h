#pragma once
// A verification as one library call: a request (the claim files, the runs, the budget and what else
// to measure) in, one typed report out. `claimcheck verify` is option parsing around it; the main
// table, robustness, attribution (its three stages) and the comparison with a baseline happen here,
// so a program or a test gets the same report the CLI writes.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/activation_store.h"
#include "catalogue/run_store.h"
#include "claims/verifier.h"
#include "report/report.h"
#include "util/error.h"

namespace cc::verify {

// A request that cannot run as asked (a sweep or run the runs file does not have): the CLI reports it
// as a usage error.
struct RequestError : Error {
  using Error::Error;
};

struct Request {
  std::vector<std::string> claim_files;  // claims::find_claim_files of the paths given
  // -k / --claims: only the claims whose id matches one of these shell patterns (fnmatch; a file that
  // does not load is matched by its name); empty: every claim. A pattern matching none is a RequestError.
  std::vector<std::string> claim_patterns;
  std::string runs_path;  // the paper's runs.yaml; its paper.yaml beside it is read too
  catalogue::StoreOptions store;
  claims::VerifyOptions options;  // seeds, jobs, run, sweep_as, strict controls, on_done (activations: set here)
  size_t activation_bytes = claims::kActivationStoreBytes;  // activations kept for reuse across claims
  std::string robustness;                // a sweep of variants whose runs every run claim is measured on, or ""
  std::vector<std::string> attribution;  // sweeps whose variants attribute the claims the default fails
  std::string rung;                      // a rung of paper.yaml's ladder to measure every claim at, or ""
  std::string baseline_file;             // compared with when set (report::read_outcomes)
  std::string platform;                  // whose tolerance the comparison applies: cpu | cpu-unpinned | cuda...
  std::string command;                   // for the report's header
  std::string fail_on = "any";           // any | error: what counts against the exit status (report/outcome.h)
  std::string device = "cpu";            // as given (cpu | cuda | cuda:N), for the report's runtime
};

struct Result {
  report::Report report;
  analysis::ActivationStore::Stats activations;  // test-set forwards run, reused, evicted
  // What report.context points at (the runs' unstated choices, the store's provenance), kept alive
  // with the report until it is written.
  std::shared_ptr<const catalogue::Runs> runs;
  std::shared_ptr<catalogue::RunStore> store;
};

// Throws RequestError for a request that names what the runs file lacks, cc::Error for unreadable
// inputs (the runs file, paper.yaml, the baseline); a claim's own problem is its ERROR row instead.
Result verify(const Request& request);

}  // namespace cc::verify
