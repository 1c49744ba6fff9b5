// Training step, data generation, evaluation throughput and the sgemm ceiling they are
// compared with. Run: build/release/bench/claimcheck_bench (see reports/perf.md).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "analysis/fourier_fit.h"
#include "plugin/paper_module.h"
#include "papers/assign_and_add/module/task_family.h"
#include "train/ensemble_trainer.h"
#include "train/evaluate.h"
#include "train/run_config.h"
#include "train/runtime.h"
#include "train/trainer.h"

using namespace cc;
namespace task = cc::assign_and_add::task;  // the paper module whose runs these tests train

namespace {

// FLOPs of one training step of the default model, counted from the shapes of the training
// path (model/transformer.cpp, forward_last) at batch B, T = 16, D = E = 128, d_mlp = 512:
//   per sequence, forward: layer-2 k/v from z1: T*E*2D*2 = 1,048,576; layer-1 scores and
//   z1: 2 * T*T*E*2 = 131,072; last-position q2, W_O1, W_O2: 3 * D*D*2 = 98,304; layer-2
//   scores and z2: 2 * T*E*2 = 8,192; MLP: 2 * D*512*2 = 262,144; unembed: D*74*2 = 18,944.
//   per step: the tables W_E·W (74x128x640) and W_pos·W (16x128x640), 2*90*128*640 = 14.7M.
// Backward costs twice the forward (two matmuls per matmul).
double train_step_flops(int64_t B) {
  const double per_seq = 1048576 + 131072 + 98304 + 8192 + 262144 + 18944;
  const double forward = per_seq * static_cast<double>(B) + 14745600;
  return 3 * forward;
}

// Assign and Add's task family (the default one) reads and trains the runs below, as in claimcheck.
const bool registered = [] {
  plugin::register_linked_modules();
  return true;
}();

train::RunConfig default_run(int batch) {
  train::RunConfig c = assign_and_add::run_config();
  c.train.batch_size = batch;
  return c;
}

void BM_Sgemm(benchmark::State& state) {  // the ceiling: a large square sgemm on this machine
  train::apply_threads(train::default_threads());
  const int64_t n = state.range(0);
  auto a = torch::randn({n, n}), b = torch::randn({n, n});
  for (auto _ : state) benchmark::DoNotOptimize(a.mm(b));
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sgemm)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same count for the blas engine (model/blas_transformer.cpp), which never forms layer 2's keys
// and values: per sequence, forward: layer-1 scores and z1 131,072; W_O1 at the last position, q2,
// a = W_K q2, c = W_O1 a, W_O2: 5 * 32,768; layer-2 scores and weighted sums 4 * T*128*2 = 16,384;
// z2 = xbar W_V + zbar W_O1 W_V 65,536; MLP 262,144; unembed 18,944. Per step: the layer-1 tables
// 90x128x384 and W_O1·W_V2, 2*90*128*384 + 2*128^3 = 13.0M.
double blas_step_flops(int64_t B) {
  const double per_seq = 131072 + 5 * 32768 + 16384 + 65536 + 262144 + 18944;
  return 3 * (per_seq * static_cast<double>(B) + 13041664);
}

// One training step of the default run on `engine`; GFLOP/s from that engine's own FLOP count.
void train_step_bench(benchmark::State& state, const std::string& engine, double (*flops)(int64_t)) {
  train::apply_threads(train::default_threads());
  const int batch = static_cast<int>(state.range(0));
  auto o = train::TrainOptions::silent();
  auto cfg = default_run(batch);
  cfg.train.engine = engine;
  train::Trainer trainer(cfg, o);
  int64_t step = 0;
  for (auto _ : state) benchmark::DoNotOptimize(trainer.train_step(step++));
  state.counters["GFLOP/s"] = benchmark::Counter(flops(batch) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.counters["seq/s"] =
      benchmark::Counter(static_cast<double>(batch) * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_TrainStep(benchmark::State& state) { train_step_bench(state, "libtorch", train_step_flops); }
BENCHMARK(BM_TrainStep)->Arg(128)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same step on the blas engine (train.engine: blas, model/blas_transformer.h).
void BM_TrainStepBlas(benchmark::State& state) { train_step_bench(state, "blas", blas_step_flops); }
BENCHMARK(BM_TrainStepBlas)->Arg(128)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();

// K models at once (stacked weights, batched matmuls) against the same K models stepped one
// after another: one iteration = one step of all K, so the time ratio is the ensemble's gain.
std::vector<train::RunConfig> k_seeds(int64_t k, int batch) {
  std::vector<train::RunConfig> cfgs;
  for (int64_t i = 0; i < k; ++i) {
    cfgs.push_back(default_run(batch));
    cfgs.back().seed = static_cast<uint64_t>(i);
  }
  return cfgs;
}

void BM_EnsembleStep(benchmark::State& state) {
  train::apply_threads(train::default_threads());
  const int64_t k = state.range(0);
  const int batch = static_cast<int>(state.range(1));
  auto o = train::TrainOptions::silent();
  train::EnsembleTrainer ens(k_seeds(k, batch), {}, o);
  int64_t step = 0;
  for (auto _ : state) benchmark::DoNotOptimize(ens.train_step(step++));
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(k) * train_step_flops(batch) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EnsembleStep)->Args({8, 128})->Args({8, 512})->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SequentialSteps(benchmark::State& state) {
  train::apply_threads(train::default_threads());
  const int64_t k = state.range(0);
  const int batch = static_cast<int>(state.range(1));
  auto o = train::TrainOptions::silent();
  std::vector<std::unique_ptr<train::Trainer>> runs;
  for (const auto& cfg : k_seeds(k, batch)) runs.push_back(std::make_unique<train::Trainer>(cfg, o));
  int64_t step = 0;
  for (auto _ : state) {
    for (auto& r : runs) benchmark::DoNotOptimize(r->train_step(step));
    ++step;
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(k) * train_step_flops(batch) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SequentialSteps)->Args({8, 128})->Args({8, 512})->Unit(benchmark::kMillisecond)->UseRealTime();

// The analysis path: every position, every activation recorded (what the §5 claims run on).
void BM_CachedForward(benchmark::State& state) {
  train::apply_threads(train::default_threads());
  auto cfg = default_run(128);
  model::Transformer model(cfg.model);
  model.init(0);
  task::Sampler sampler(assign_and_add::task_config(cfg));
  const int64_t n = state.range(0);
  auto tokens = assign_and_add::tokens_tensor(sampler.train_batch(0, 0, static_cast<int>(n)));
  torch::NoGradGuard no_grad;
  for (auto _ : state) {
    model::ActivationCache cache;
    benchmark::DoNotOptimize(model.run_with_cache(tokens, cache));
  }
  state.counters["seq/s"] =
      benchmark::Counter(static_cast<double>(n) * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CachedForward)->Arg(500)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DataGeneration(benchmark::State& state) {
  task::Sampler sampler{task::TaskConfig{}};
  int64_t step = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sampler.train_batch(0, step++, 512));
  state.counters["seq/s"] = benchmark::Counter(512.0 * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DataGeneration)->Unit(benchmark::kMicrosecond)->UseRealTime();

// An initialised default model and 10000 test_2 sequences: what both evaluation benchmarks run on.
struct EvalCase {
  EvalCase() : model(default_run(512).model), sampler(assign_and_add::task_config(default_run(512))) {
    train::apply_threads(train::default_threads());
    model.init(0);
    set = assign_and_add::to_batch(task::make_eval_set(sampler, "test_2", 10000, 1));
  }
  model::Transformer model;
  task::Sampler sampler;
  train::NamedBatch set;  // tokens [10000, T], targets [10000]
};

void BM_Evaluate(benchmark::State& state) {
  EvalCase c;
  for (auto _ : state) benchmark::DoNotOptimize(train::evaluate_set(c.model, c.set));
  state.counters["seq/s"] = benchmark::Counter(10000.0 * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Evaluate)->Unit(benchmark::kMillisecond)->UseRealTime();

// Evaluation as it was before the blas engine: libtorch's forward_last, no autograd, chunks of
// 512, argmax and summed cross-entropy (the ratio to BM_Evaluate is the engine's gain).
void BM_EvaluateLibtorch(benchmark::State& state) {
  EvalCase c;
  const int64_t n = c.set.batch.size();
  torch::NoGradGuard no_grad;
  for (auto _ : state) {
    int64_t correct = 0;
    double loss = 0.0;
    for (int64_t start = 0; start < n; start += train::kEvalBatch) {
      const int64_t end = std::min(n, start + train::kEvalBatch);
      auto logits = c.model.forward_last(c.set.batch.tokens.slice(0, start, end));  // [b, d_vocab_out]
      auto targets = c.set.batch.targets.slice(0, start, end);                      // [b]
      correct += (logits.argmax(-1) == targets).sum().item<int64_t>();
      loss += torch::nn::functional::cross_entropy(
                  logits, targets, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                  .item<double>();
    }
    benchmark::DoNotOptimize(correct);
    benchmark::DoNotOptimize(loss);
  }
  state.counters["seq/s"] = benchmark::Counter(10000.0 * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EvaluateLibtorch)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

// The single-frequency fits of every neuron over grokking's grid (p = 113, 12 769 pairs, 512 neurons,
// float64): what each key-frequency reading and N5/N6/M8b's fits cost per checkpoint.
void BM_SingleFrequencyFit(benchmark::State& state) {
  train::apply_threads(train::default_threads());
  const int N = 113;
  const auto Y = torch::randn({N * N, 512}, torch::kDouble);
  for (auto _ : state) benchmark::DoNotOptimize(analysis::single_frequency_fit(Y, N, state.range(0) != 0).r2);
}
BENCHMARK(BM_SingleFrequencyFit)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
