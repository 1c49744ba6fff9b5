// claimcheck train --config FILE --out DIR [--seed --steps --batch --device]
#include <iostream>

#include "claims/runs.h"
#include "cli.h"
#include "train/runtime.h"
#include "train/trainer.h"
#include "util/error.h"

namespace cc::app {

int cmd_train(const std::vector<std::string>& args) {
  po::options_description desc("train options");
  std::string config_path, run, out, device = "cpu";
  desc.add_options()
      ("config", po::value(&config_path)->required(), "a run config YAML, or claims/runs.yaml with --run")
      ("run", po::value(&run), "the run's name when --config is a runs file (e.g. default)")
      ("out", po::value(&out)->required(), "output directory: checkpoints, sidecars, metrics.jsonl")
      ("seed", po::value<uint64_t>(), "override the config's seed")
      ("steps", po::value<int64_t>(), "override train.steps")
      ("batch", po::value<int>(), "override train.batch_size")
      ("device", po::value(&device), "cpu | cuda | cuda:N (default cpu)")
      ("stop-after", po::value<int64_t>(), "stop at this step (resume later by running the same command)")
      ("no-progress", "no progress output");
  po::variables_map vm;
  if (!parse("train", "--config FILE [--run NAME] --out DIR [options]", desc, {}, args, vm)) return kExitOk;

  train::RunConfig cfg = claims::load_run_config(config_path, run);
  if (vm.count("seed")) cfg.seed = vm["seed"].as<uint64_t>();
  if (vm.count("steps")) {
    cfg.train.steps = vm["steps"].as<int64_t>();
    if (cfg.train.steps < 0) throw Error("--steps must be >= 0");
  }
  if (vm.count("batch")) {
    cfg.train.batch_size = vm["batch"].as<int>();
    if (cfg.train.batch_size < 1) throw Error("--batch must be >= 1");
  }
  train::apply_threads(train::default_threads());

  train::TrainOptions opts;
  opts.out_dir = out;
  opts.device = train::parse_device(device);
  opts.progress = !vm.count("no-progress");
  opts.command = join_command("train", args);
  if (vm.count("stop-after")) opts.stop_after = vm["stop-after"].as<int64_t>();

  train::Trainer trainer(cfg, opts);
  if (trainer.start_step() > 0) std::cerr << "resuming " << out << " from step " << trainer.start_step() << "\n";
  const int64_t step = trainer.run();
  std::cout << "trained " << cfg.name << " seed " << cfg.seed << " to step " << step << " -> " << out << "\n";
  for (const auto& r : trainer.last_eval())
    std::cout << "  " << r.name << std::string(18 - std::min<size_t>(17, r.name.size()), ' ') << r.accuracy() << "\n";
  return kExitOk;
}

}  // namespace cc::app
