// claimcheck: trains and measures the models of a paper and verifies its claims, written as YAML files
// (papers/NAME/claims: one folder per paper).
#include <algorithm>
#include <csignal>
#include <iostream>

#include "cli.h"
#include "plugin/paper_module.h"
#include "train/runtime.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/heap.h"
#include "util/platform.h"
#include "util/registry.h"

namespace {

const std::vector<cc::app::Subcommand>& subcommands() {
  static const std::vector<cc::app::Subcommand> subs = {
      {"train", "train a run from a config file (resumable)", cc::app::cmd_train},
      {"eval", "accuracy of a checkpoint on every evaluation set", cc::app::cmd_eval},
      {"verify", "run claim files and write the report (REPORT.md, report.json, junit.xml)", cc::app::cmd_verify},
      {"list", "the claims, their tier, and whether their checkpoints are present", cc::app::cmd_list, false},
      {"explain", "what a claim measures, its rule and the paper's words", cc::app::cmd_explain, false},
      {"kinds", "every measurement kind a claim may name, with its parameters (--json)", cc::app::cmd_kinds, false},
      {"fixtures", "verify: sha256 of every fixture file; recreate: retrain one and compare", cc::app::cmd_fixtures},
      {"sweep", "plan, run (local cores, a shard of a Slurm array) and collect a sweep of runs", cc::app::cmd_sweep},
      {"diff", "the claims whose verdict or value changed between two reports (markdown; exit 3 if any)",
       cc::app::cmd_diff, false},
      {"export", "a checkpoint as a TransformerLens HookedTransformer state dict and config", cc::app::cmd_export},
      {"import", "a TransformerLens state dict and config as a checkpoint of a paper's run (export's inverse)",
       cc::app::cmd_import, false},
      {"new-paper", "the skeleton of a new paper's folder papers/NAME (its module, runs, claims, tests)",
       cc::app::cmd_new_paper, false},
  };
  return subs;
}

// `claimcheck --version`: what a bug report or a provenance note needs to name this binary.
void version(std::ostream& os) {
  const nlohmann::json rt = cc::train::runtime_info();
  os << "claimcheck " << rt["claimcheck"].get<std::string>() << "\n"
     << "commit " << rt["build_commit"].get<std::string>() << " (built), " << rt["git_commit"].get<std::string>()
     << " (source tree now)\n"
     << "build type " << CLAIMCHECK_BUILD_TYPE << "\n"
     << "libtorch " << rt["libtorch"].get<std::string>() << "\n"
     << rt["blas"].get<std::string>() << " (kernel " << rt["blas_kernel"].dump() << ")\n";
  // A binary built against the installed package links papers of its own beside claimcheck's.
  os << "paper modules";
  for (const auto& paper : cc::plugin::linked_modules()) os << " " << paper;
  os << "\n";
}

void usage(std::ostream& os) {
  os << "usage: claimcheck <command> [options]   (claimcheck <command> --help for its options)\n\ncommands:\n";
  for (const auto& s : subcommands()) os << "  " << s.name << std::string(10 - s.name.size(), ' ') << s.summary << "\n";
  os << "\n  --version version, commit, build type, libtorch and BLAS of this binary\n\n" << cc::app::kExitCodes;
}

// Runs on the reference kernels (util/platform.h), so that training and measuring give the same bits on
// any x86-64 CPU with AVX2, whatever kernel OpenBLAS would pick; where OpenBLAS picked another when it
// loaded, pinning re-executes the process, loading libtorch a second time (≈ 0.4 s). Only what trains,
// measures or reports the kernel pays it: not a help text, a listing or a diff.
void pin_kernels() {
  std::string why;
  if (!cc::pin_platform(cc::reference_platform(), why))
    std::cerr << "claimcheck: note: running on this CPU's own kernels (" << why
              << "); results may differ from the fixtures' in the last bits, and bitwise claims are skipped\n";
}

bool asks_for_help(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--help") != args.end() ||
         std::find(args.begin(), args.end(), "-h") != args.end();
}

}  // namespace

int main(int argc, char** argv) {
  cc::remember_argv(argv);  // before any library work: pinning may re-execute the process
  // Past a file-size limit (ulimit -f) a write fails with EFBIG, which the writers report as an output
  // that could not be written (exit 4, the old file kept), instead of SIGXFSZ killing the process
  // silently (exit 153) between two files of a report.
  std::signal(SIGXFSZ, SIG_IGN);
  cc::plugin::register_linked_modules();
  if (argc < 2) {
    usage(std::cerr);
    return cc::app::kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(std::cout);
    return cc::app::kExitOk;
  }
  if (name == "--version" || name == "version") {
    pin_kernels();  // it reports the kernel commands run on
    version(std::cout);
    return cc::app::kExitOk;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& s : subcommands()) {
    if (s.name != name) continue;
    if (s.computes && !asks_for_help(args)) {
      pin_kernels();
      cc::keep_freed_memory();  // large tensors freed and allocated again are not page-faulted anew
    }
    try {
      return s.run(args);
    } catch (const boost::program_options::error& e) {
      std::cerr << "claimcheck " << name << ": error: " << e.what() << " (see claimcheck " << name << " --help)\n";
      return cc::app::exit_status_for(e);
    } catch (const cc::Error& e) {  // a WriteError (an output, not an input) has its own status
      std::cerr << "claimcheck " << name << ": error: " << e.what() << "\n";
      return cc::app::exit_status_for(e);
    } catch (const std::exception& e) {
      std::cerr << "claimcheck " << name << ": internal error: " << e.what() << "\n";
      return cc::app::exit_status_for(e);
    }
  }
  std::vector<std::string> names;
  for (const auto& s : subcommands()) names.push_back(s.name);
  std::cerr << "claimcheck: unknown command '" << name << "'" << cc::did_you_mean(name, names) << "\n";
  usage(std::cerr);
  return cc::app::kExitUsage;
}
