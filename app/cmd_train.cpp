// claimcheck train --config FILE --out DIR [--seed --steps --batch --device]
// claimcheck train --config FILE --seeds 0,1,2 [--ensemble] --out DIR   (DIR/seed<k> per seed)
#include <algorithm>
#include <iostream>

#include "catalogue/runs.h"
#include "cli.h"
#include "train/runtime.h"
#include "train/ensemble_trainer.h"
#include "train/trainer.h"
#include "util/error.h"

namespace cc::app {

constexpr size_t kMaxEnsembleMembers = 32;

namespace {

void print_eval(const std::vector<train::SetResult>& results) {
  for (const auto& r : results)
    std::cout << "  " << r.name << std::string(18 - std::min<size_t>(17, r.name.size()), ' ') << r.accuracy() << "\n";
}

// --seed, --steps, --batch and --engine over the run's config.
void apply_overrides(train::RunConfig& cfg, const po::variables_map& vm) {
  if (vm.count("seed")) cfg.seed = parse_seed(vm["seed"].as<std::string>(), "--seed");
  if (vm.count("steps")) {
    cfg.train.steps = vm["steps"].as<int64_t>();
    if (cfg.train.steps < 1) throw po::error("--steps must be >= 1");
    // The run's config, as its sidecars record it, must load again: a kept step past the new end
    // would make every checkpoint it writes one that claimcheck refuses to read.
    for (const int64_t s : cfg.train.checkpoint_steps)
      if (s > cfg.train.steps)
        throw po::error("--steps " + std::to_string(cfg.train.steps) + ": the run keeps a checkpoint at step " +
                        std::to_string(s) + " (train.checkpoint_steps), past the new end");
  }
  if (vm.count("batch")) {
    cfg.train.batch_size = vm["batch"].as<int>();
    if (cfg.train.batch_size < 1) throw po::error("--batch must be >= 1");
  }
  if (vm.count("engine")) {
    cfg.train.engine = vm["engine"].as<std::string>();
    if (cfg.train.engine != "libtorch" && cfg.train.engine != "blas")
      throw po::error("--engine must be libtorch or blas, not '" + cfg.train.engine + "'");
  }
}

// A seed the runs file does not list is trained as asked (an experiment), but said: no claim reads it,
// and `verify` will not find it where the run's seeds are looked for.
void note_unlisted_seeds(const std::string& runs_file, const std::string& run, const std::vector<uint64_t>& asked) {
  const catalogue::Runs runs = catalogue::Runs::load(runs_file);
  const catalogue::RunSpec* spec = runs.find(run);
  if (!spec) return;
  std::string listed;
  for (const uint64_t s : spec->seeds) listed += (listed.empty() ? "" : ", ") + std::to_string(s);
  for (const uint64_t seed : asked)
    if (std::find(spec->seeds.begin(), spec->seeds.end(), seed) == spec->seeds.end())
      std::cerr << "note: " << runs_file << " lists seeds " << listed << " for run '" << run << "'; seed " << seed
                << " is trained as asked, but no claim of the paper reads it\n";
}

// --seeds: one run each in OUT/seed<k>, one after another (each resumable on its own) or, with
// --ensemble, at once as one stacked model.
int train_seeds(const train::RunConfig& cfg, train::TrainOptions opts, const std::vector<uint64_t>& seeds,
                bool ensemble) {
  // A stacked model holds every member's weights, moments and activations at once (~35 MB a member
  // of the default run: 128 members reached 4.7 GB); separate runs hold one at a time.
  if (ensemble && seeds.size() > kMaxEnsembleMembers)
    throw po::error("--ensemble trains at most " + std::to_string(kMaxEnsembleMembers) + " seeds as one model (" +
                    std::to_string(seeds.size()) + " given); split them over several commands");
  const std::string out = opts.out_dir;
  std::vector<train::RunConfig> cfgs;
  std::vector<std::string> dirs;
  for (uint64_t seed : seeds) {
    cfgs.push_back(cfg);
    cfgs.back().seed = seed;
    dirs.push_back(out + "/seed" + std::to_string(seed));
  }
  if (!ensemble) {
    for (size_t k = 0; k < cfgs.size(); ++k) {
      opts.out_dir = dirs[k];
      train::Trainer trainer(cfgs[k], opts);
      const int64_t step = trainer.run();
      std::cout << "trained " << cfg.name << " seed " << cfgs[k].seed << " to step " << step << " -> " << dirs[k]
                << "\n";
      print_eval(trainer.last_eval());
    }
    return kExitOk;
  }
  train::EnsembleTrainer stacked(cfgs, dirs, opts);
  if (stacked.start_step() > 0)
    std::cerr << "resuming the ensemble in " << out << " from step " << stacked.start_step() << "\n";
  const int64_t step = stacked.run();
  for (size_t k = 0; k < cfgs.size(); ++k) {
    std::cout << "trained " << cfg.name << " seed " << cfgs[k].seed << " to step " << step << " -> " << dirs[k] << "\n";
    print_eval(stacked.last_eval()[k]);
  }
  return kExitOk;
}

}  // namespace

int train_run(const train::RunConfig& cfg, const train::TrainOptions& opts) {
  train::Trainer trainer(cfg, opts);
  if (trainer.start_step() > 0)
    std::cerr << "resuming " << opts.out_dir << " from step " << trainer.start_step() << "\n";
  const int64_t step = trainer.run();
  std::cout << "trained " << cfg.name << " seed " << cfg.seed << " to step " << step << " -> " << opts.out_dir << "\n";
  print_eval(trainer.last_eval());
  return kExitOk;
}

int cmd_train(const std::vector<std::string>& args) {
  po::options_description desc("train options");
  std::string config_path, run, out, device = "cpu";
  // One option a line, as boost::program_options reads best; clang-format 14 would join them.
  // clang-format off
  desc.add_options()
      ("config", po::value(&config_path)->required(), "a run config YAML, or a paper's runs.yaml with --run")
      ("run", po::value(&run), "the run's name when --config is a runs file (e.g. default)")
      ("out", po::value(&out)->required(), "output directory: checkpoints, sidecars, metrics.jsonl")
      ("seed", po::value<std::string>(), "override the config's seed (0 .. 2^32)")
      ("seeds", po::value<std::string>(), "several seeds, e.g. 0,1,2: one run each, in --out/seed<k>")
      ("ensemble", "with --seeds: train them at once as one stacked model (batched matmuls)")
      ("steps", po::value<int64_t>(), "override train.steps")
      ("batch", po::value<int>(), "override train.batch_size")
      ("device", po::value(&device), "cpu | cuda | cuda:N (default cpu)")
      ("engine", po::value<std::string>(), "override train.engine: libtorch | blas (CPU fast path; docs/performance.md)")
      ("stop-after", po::value<int64_t>(), "stop at this step (resume later by running the same command)")
      ("quiet", "no progress output (as verify's --quiet)")
      ("no-progress", "the old spelling of --quiet");
  // clang-format on
  po::variables_map vm;
  if (!parse("train", "--config FILE [--run NAME] --out DIR [options]", desc, {}, args, vm)) return kExitOk;

  train::RunConfig cfg = catalogue::load_run_config(config_path, run);
  apply_overrides(cfg, vm);
  if (!run.empty()) {
    const std::vector<uint64_t> asked =
        vm.count("seeds") ? parse_seed_list(vm["seeds"].as<std::string>()) : std::vector<uint64_t>{cfg.seed};
    note_unlisted_seeds(config_path, run, asked);
  }
  train::apply_threads(train::default_threads());
  train::TrainOptions opts;
  opts.out_dir = out;
  opts.device = train::parse_device(device);
  opts.progress = !vm.count("quiet") && !vm.count("no-progress");
  opts.command = join_command("train", args);
  if (vm.count("stop-after")) opts.stop_after = vm["stop-after"].as<int64_t>();
  if (vm.count("stop-after") && opts.stop_after < 0)
    throw po::error("--stop-after " + std::to_string(opts.stop_after) + ": a step is >= 0");
  if (vm.count("ensemble") && !vm.count("seeds")) throw po::error("--ensemble needs --seeds");
  if (!vm.count("seeds")) return train_run(cfg, opts);
  const std::vector<uint64_t> seeds = parse_seed_list(vm["seeds"].as<std::string>());  // a usage error if bad
  return train_seeds(cfg, opts, seeds, vm.count("ensemble") > 0);
}

}  // namespace cc::app
