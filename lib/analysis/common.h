#pragma once
// Helpers shared by the measurement families: cached forward passes in chunks, means with
// intervals, and parameter readers.
#include <torch/types.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "analysis/measurement.h"
#include "model/transformer.h"
#include "train/checkpoint.h"
#include "util/yaml_json.h"

namespace cc::analysis {

// run_with_cache over the rows of `tokens` [R, T] in chunks; fn(cache, begin, end) for rows [begin, end).
void for_each_cached(const model::Transformer& model, const torch::Tensor& tokens,
                     const std::function<void(const model::ActivationCache&, size_t begin, size_t end)>& fn,
                     int chunk = 500);  // keeps [chunk, T, d_mlp] under glibc's 32 MB mmap ceiling
// The same with only `reads` recorded and computed (Transformer::record): each under HookRead::key().
void for_each_recorded(const model::Transformer& model, const torch::Tensor& tokens,
                       const std::set<model::HookRead>& reads,
                       const std::function<void(const model::ActivationCache&, size_t begin, size_t end)>& fn,
                       int chunk = 500);

// One hook's activation at the last position for every row of `tokens` [R, T]: [R, d] as computed
// (the model's dtype and device), recorded in chunks of 2000 rows (bounded memory over a whole operand
// grid), computing only what it needs (Transformer::record).
torch::Tensor hook_at_last_position(const model::Transformer& model, const torch::Tensor& tokens,
                                    const std::string& hook);

// Mean of per-item values with a normal-approximation 95 % interval (mean ± 1.96 sd/√n): the kinds
// average over thousands of items, where it covers 95 % (tests/test_stats.cpp simulates n = 2000).
Measurement mean_measurement(const std::vector<double>& values);

// The jackknife standard error from the K leave-one-out values of a statistic.
double jackknife_se(const std::vector<double>& leave_one_out);
// The two-sided 95 % Student t quantile with `df` degrees of freedom: the half-width of a 95 %
// interval is this times a standard error estimated from df + 1 values (a jackknife over K = 8
// batches: 2.365; the normal 1.96 would cover about 91 %).
double t_critical_95(int64_t df);

// Readers for parameters several kinds share; each validates and names FILE:LINE:COL.
// `sets`: evaluation-set names (train::known_eval_set_names()), at least one.
std::vector<std::string> read_sets(ObjectReader& r, const std::vector<std::string>& fallback);
// `set`: one evaluation set, required (which sets there are is the run's task's).
std::string read_set(ObjectReader& r);
int read_size(ObjectReader& r, int fallback);
// `eval_seed`: the seed of a kind's sampled evaluation sets. Not given: the paper's `analysis_seed`
// (claims/defaults.yaml, claims/folder_defaults.h), else 0.
int64_t read_eval_seed(ObjectReader& r);

// A 2-D tensor as nested JSON rows, for figures (report/figures.h); NaN entries stay NaN.
nlohmann::json matrix_json(const torch::Tensor& m);

// Circuit matrices (float32, CPU).
torch::Tensor qk_matrix(const model::Transformer& m, int layer);  // W_Q W_K^T / sqrt(d_head) [D, D]
torch::Tensor ov_apply(const model::Transformer& m, int layer, const torch::Tensor& x);  // x W_V W_O

}  // namespace cc::analysis
