#pragma once
// Shared plumbing for the subcommands: option parsing with --help, uniform error exits.
#include <boost/program_options.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cc::train {
struct RunConfig;
struct TrainOptions;
}  // namespace cc::train

namespace cc::app {

namespace po = boost::program_options;

// The exit statuses of every command (kExitCodes below is the table --help prints, and the README's):
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // the command ran and found a problem (a failed claim, a broken input file)
constexpr int kExitUsage = 2;    // wrong flags or flag values, a path given that does not exist
// 3: report::kExitBaselineChanged; 75: sweep::kExitBusy (report/outcome.h, sweep/runner.h)
constexpr int kExitWrite = 4;  // an output could not be written (util/atomic_file.h: WriteError)
constexpr int kExitSkip = 77;  // nothing could be checked here (ctest's SKIP_RETURN_CODE)
constexpr const char* kExitCodes =
    "exit status:\n"
    "  0   done: every claim holds, or matches the baseline (expected findings included)\n"
    "  1   a claim failed or could not be judged (without --baseline; --fail-on error: ERROR and INVALID "
    "only),\n"
    "      or an input file is broken (runs file, checkpoint, report): the message names it\n"
    "  2   usage: a wrong flag or flag value, or a path given that does not exist\n"
    "  3   with --baseline (and diff): an outcome moved from the baseline, a claim's meaning changed, a claim\n"
    "      was added or removed, or one the baseline skipped did not PASS\n"
    "  4   an output could not be written (a full disk, a file over the size limit): the message names it,\n"
    "      and the file that was there is unchanged\n"
    "  75  sweep: another process holds the sweep's lock\n"
    "  77  every claim was skipped (ctest's SKIP_RETURN_CODE)\n";

// The exit statuses `command --help` prints: verify's are kExitCodes (every status); each other
// command's are the ones it can return, in its own words (`claimcheck --help` prints kExitCodes).
std::string exit_codes_for(const std::string& command);

struct Subcommand {
  std::string name;
  std::string summary;
  std::function<int(const std::vector<std::string>& args)> run;
  // Trains or measures, so runs on the reference kernels (main pins them, re-executing itself when
  // OpenBLAS chose another); a command that only reads and writes files does not pay that second start.
  bool computes = true;
};

// Parses args against `desc` (+ positional). Returns false and prints help if --help was given.
// Throws po::error on bad flags (main turns it into exit code 2 with the message).
bool parse(const std::string& command, const std::string& usage, po::options_description& desc,
           const po::positional_options_description& positional, const std::vector<std::string>& args,
           po::variables_map& vm);

std::string join_command(const std::string& sub, const std::vector<std::string>& args);

// The cores this process may use: Slurm's allocation, else the affinity mask (the default of
// `sweep run --jobs` and `verify --jobs`).
int usable_cores();

// The exit status an exception that ends a command stands for: a usage error (boost's po::error) 2, an
// output that could not be written (WriteError) 4, anything else 1. One mapping for main, verify's
// junit.xml on every exit, and verify of every paper.
int exit_status_for(const std::exception& e);

// Seeds as runs.yaml takes them: [0, 2^32]. A list holds at most kMaxSeedList (a stacked ensemble of
// thousands of models would take gigabytes before its first step).
constexpr long long kMaxSeed = 1LL << 32;
constexpr size_t kMaxSeedList = 128;
// A comma-separated list of distinct integers in [0, max], at most max_count of them ("0,1,2"). An empty
// item (a trailing comma too) is refused; errors are usage errors (exit 2) naming the flag and the text.
std::vector<int64_t> parse_integer_list(const std::string& flag, const std::string& text, const std::string& noun,
                                        int64_t max, size_t max_count, const std::string& example);
// --seeds of verify and train: parse_integer_list over [0, kMaxSeed], at most kMaxSeedList.
std::vector<uint64_t> parse_seed_list(const std::string& text);
// One seed flag's value; throws po::error (a usage error) for a negative or out-of-range one.
uint64_t parse_seed(const std::string& text, const std::string& flag);

// Trains one run into opts.out_dir (resuming where it stopped) and prints where and its last evaluation:
// `train` and `fixtures recreate` both.
int train_run(const train::RunConfig& cfg, const train::TrainOptions& opts);

int cmd_train(const std::vector<std::string>& args);
int cmd_diff(const std::vector<std::string>& args);
int cmd_eval(const std::vector<std::string>& args);
int cmd_verify(const std::vector<std::string>& args);
int cmd_list(const std::vector<std::string>& args);
int cmd_explain(const std::vector<std::string>& args);
int cmd_kinds(const std::vector<std::string>& args);
int cmd_fixtures(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_export(const std::vector<std::string>& args);
int cmd_import(const std::vector<std::string>& args);
int cmd_new_paper(const std::vector<std::string>& args);
// `list --ctest` (ctest_list.cpp): the claim tests of every paper of the checkout at `root`.
int list_ctest(const std::filesystem::path& root, const std::string& budget);

}  // namespace cc::app
