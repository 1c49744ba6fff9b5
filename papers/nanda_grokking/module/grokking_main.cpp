// grokking: trains the runs of papers/nanda_grokking/runs.yaml (Nanda et al. 2023) with claimcheck's
// transformer and libtorch's AdamW, on the same pinned numeric platform as claimcheck.
//   grokking train --runs papers/nanda_grokking/runs.yaml --run stated --seed 0 --out DIR [--resume]
#include <boost/program_options.hpp>

#include <algorithm>
#include <iostream>

#include "train/runtime.h"
#include "papers/nanda_grokking/module/trainer.h"
#include "util/error.h"
#include "util/platform.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  cc::remember_argv(argv);
  std::string why;
  if (!cc::pin_platform(cc::reference_platform(), why))
    std::cerr << "grokking: note: running on this CPU's own kernels (" << why << ")\n";
  std::string runs, run, out;
  int64_t seed = 0, stop_after = -1;
  po::options_description desc("grokking train");
  desc.add_options()("help", "this help")("runs", po::value(&runs)->required(), "runs.yaml of the paper")(
      "run", po::value(&run)->required(), "run name in runs.yaml")("seed", po::value(&seed)->required(),
                                                                   "one of the run's seeds")(
      "out", po::value(&out)->required(), "checkpoint folder")("resume", "continue from the folder's resume point")(
      "stop-after", po::value(&stop_after), "stop at this step (a resume point is left)");
  try {
    if (argc < 2 || std::string(argv[1]) != "train") {
      std::cerr << "usage: grokking train [options]\n" << desc;
      return 2;
    }
    po::variables_map vm;
    po::store(po::parse_command_line(argc - 1, argv + 1, desc), vm);
    if (vm.count("help")) {
      std::cout << desc;
      return 0;
    }
    po::notify(vm);
    const auto seeds = cc::nanda_grokking::run_seeds(runs, run);
    if (std::find(seeds.begin(), seeds.end(), seed) == seeds.end())
      throw cc::Error(runs + ": run '" + run + "' does not list seed " + std::to_string(seed));
    cc::train::apply_threads({1, 1});  // one core per run: the fixtures' setup, recorded in each sidecar
    const auto cfg = cc::nanda_grokking::read_run(runs, run, static_cast<uint64_t>(seed));
    std::string command = "grokking";
    for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
    const auto r = cc::nanda_grokking::train(cfg, out, vm.count("resume") > 0, command, stop_after);
    std::cout << run << " seed " << seed << ": steps " << r.start_step << " -> " << r.stopped_at << ", train loss "
              << r.train_loss << " (accuracy " << r.train_accuracy << "), test loss " << r.test_loss << " (accuracy "
              << r.test_accuracy << ")\n";
    return 0;
  } catch (const po::error& e) {
    std::cerr << "grokking: error: " << e.what() << "\n";
    return 2;
  } catch (const cc::Error& e) {
    std::cerr << "grokking: error: " << e.what() << "\n";
    return 1;
  }
}
