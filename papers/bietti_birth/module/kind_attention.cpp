// previous_token_attention and induction_attention: where a block's attention has its maximum, on the
// evaluation sequences (the family's `eval` draw of `size` sequences from `eval_seed`).
//   previous_token_attention: at every position t >= 1, the share whose maximum is at t - 1 (Figure 1:
//     "The first layer is a previous token head"); beside it, unjudged, the same share at the positions
//     right after a trigger only. `positions: after_first_trigger` judges the probe the authors' code
//     prints (score_start_acc: the positions right after a trigger's first occurrence in the sequence),
//     `after_trigger` the one it computes beside it (score_acc: after any occurrence).
//   induction_attention: at every position t whose next token is a trigger's output seen before (the
//     in-context tokens), the share whose maximum is at a position j >= 1 with z_{j-1} = z_t: the token
//     after the current token's previous occurrence (the authors' probe; Figure 1's second layer).
#include <torch/torch.h>

#include "analysis/clustered.h"
#include "analysis/common.h"
#include "papers/bietti_birth/module/kinds.h"
#include "util/error.h"

namespace cc::bietti_birth {
namespace {

constexpr int kChunk = 64;  // sequences per forward pass: [64, 1, T, T] attention

// The positions previous_token_attention judges; "all" is left out of the parameters.
const std::vector<std::string> kPositions = {"all", "after_trigger", "after_first_trigger"};

nlohmann::json parse(ObjectReader r, bool previous_token) {
  nlohmann::json p;
  if (previous_token) {
    const std::string positions = r.one_of("positions", kPositions, "all");
    if (positions != "all") p["positions"] = positions;
  }
  const std::string layer = r.has("layer") && r.raw("layer").is_string() ? r.string("layer") : "";
  if (layer == "last") {
    p["layer"] = "last";
  } else if (layer.empty()) {
    p["layer"] = r.integer_in("layer", 1, 16);
  } else {
    r.fail("layer", "a block, counted from 1 as the paper does, or 'last'");
  }
  p["size"] = analysis::read_size(r, 256);
  p["eval_seed"] = analysis::read_eval_seed(r);
  r.finish();
  return p;
}

int block_of(const nlohmann::json& params, const train::Checkpoint& ck) {
  const int n = ck.config.model.n_layers;
  const int block = params["layer"].is_string() ? n : params["layer"].get<int>();
  if (block > n)
    throw analysis::NotComputable(ck.path + ": the model has " + std::to_string(n) + " block(s), no block " +
                                  std::to_string(block));
  return block - 1;
}

// Hits among a set of positions, in all and per sequence (the sequences are the independent units:
// analysis/clustered.h).
struct Counts {
  int64_t hits = 0, n = 0;
  std::vector<int64_t> sequence_hits, sequence_n;
  void add(const torch::Tensor& hit, const torch::Tensor& at) {  // [b, T] bool each
    const auto k = (hit & at).sum(1).to(torch::kInt64).contiguous(), t = at.sum(1).to(torch::kInt64).contiguous();
    sequence_hits.insert(sequence_hits.end(), k.data_ptr<int64_t>(), k.data_ptr<int64_t>() + k.numel());
    sequence_n.insert(sequence_n.end(), t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
    hits += k.sum().item<int64_t>();
    n += t.sum().item<int64_t>();
  }
  double share() const { return n > 0 ? static_cast<double>(hits) / static_cast<double>(n) : 0.0; }
};

analysis::Measurement measure(const analysis::MeasureInput& in, bool induction) {
  torch::NoGradGuard no_grad;
  const auto& ck = in.checkpoint;
  const int block = block_of(in.params, ck);
  const Sequences s = eval_sequences(task_of(ck), in.params["size"], in.params["eval_seed"].get<uint64_t>());
  const std::string hook = "blocks." + std::to_string(block) + ".attn.hook_pattern";
  Counts all;              // previous-token: every t >= 1; induction: every in-context position
  Counts after;            // previous-token: the positions right after a trigger only
  Counts after_first;      // ... right after a trigger's first occurrence
  nlohmann::json pattern;  // the first sequence's first 32 positions, for the report's figure
  auto count = [&](const model::ActivationCache& cache, size_t first, size_t last) {
    const auto start = static_cast<int64_t>(first), end = static_cast<int64_t>(last);
    const auto tokens = s.tokens.slice(0, start, end);
    const auto top = cache[hook].select(1, 0).argmax(-1).to(torch::kCPU);  // [b, T]: the attended position
    if (start == 0) pattern = analysis::matrix_json(cache[hook][0][0].slice(0, 0, 32).slice(1, 0, 32));
    const int64_t T = tokens.size(1);
    const auto positions = torch::arange(T).unsqueeze(0).expand_as(top);
    const auto occurrence = s.occurrence.slice(0, start, end);  // [b, T]
    if (!induction) {
      const auto previous = top == positions - 1;
      all.add(previous, positions >= 1);
      // The authors' probes read only the positions whose previous token is a trigger (an output's).
      auto at = torch::zeros_like(previous), at_first = torch::zeros_like(previous);
      at.slice(1, 1, T).copy_(occurrence.slice(1, 0, T - 1) >= 1);
      at_first.slice(1, 1, T).copy_(occurrence.slice(1, 0, T - 1) == 1);
      after.add(previous, at);
      after_first.add(previous, at_first);
      return;
    }
    const auto before = tokens.gather(1, (top - 1).clamp_min(0));  // z_{j-1}
    all.add((before == tokens) & (top >= 1), occurrence >= 2);
  };
  analysis::for_each_cached(*ck.model, s.tokens, count, kChunk);
  const std::string judged = in.params.value("positions", "all");
  const Counts& c = judged == "after_trigger" ? after : judged == "after_first_trigger" ? after_first : all;
  const int64_t hits = c.hits, n = c.n, after_n = after.n;
  const double share_all = all.share();
  analysis::Measurement m;
  m.n = n;
  m.successes = hits;
  m.value = n > 0 ? static_cast<double>(hits) / static_cast<double>(n) : 0.0;
  m.details["block"] = block + 1;
  analysis::record_sequences(m, c.sequence_n, c.sequence_hits);
  if (judged != "all") {
    m.details["positions"] = judged;
    m.details["unthresholded"] = {{"share at every position t >= 1 (B6's reading)", share_all}};
  } else if (!induction && after_n > 0) {
    const double share = after.share();
    m.details["after_a_trigger"] = share;  // reported, not judged (assumptions.md, B6's note)
    m.details["unthresholded"] = {
        {"share at the positions right after any occurrence of a trigger (the authors' score_acc)", share}};
  }
  m.details["figures"] = nlohmann::json::array(
      {{{"id", induction ? "induction_pattern" : "previous_token_pattern"},
        {"paper_figure", "Figure 1"},
        {"type", "heatmap"},
        {"title", "block " + std::to_string(block + 1) + " attention, one evaluation sequence (rows: query position)"},
        {"matrix", pattern},
        {"cblabel", "attention"},
        {"cbrange", {0, 1}}}});
  return m;
}

}  // namespace

void register_attention(analysis::Registry& r) {
  const std::string doc =
      "layer: the block, counted from 1 as the paper does, or last (default 1)\n"
      "size: evaluation sequences (default 256)\n"
      "eval_seed: seed of the family's evaluation draw";
  const std::string prev_doc =
      doc +
      "\npositions: all (default: every t >= 1) | after_trigger | after_first_trigger (the authors' printed probe)";
  analysis::MeasurementKind prev(
      "previous_token_attention", analysis::Statistic::Proportion,
      [](const analysis::MeasureInput& in) { return measure(in, false); },
      "share of positions t >= 1 whose attention in the block has its maximum at t - 1");
  prev.parse_params = [](ObjectReader r) { return parse(std::move(r), true); };
  prev.params_doc = prev_doc;
  r.add(std::move(prev));
  analysis::MeasurementKind ind(
      "induction_attention", analysis::Statistic::Proportion,
      [](const analysis::MeasureInput& in) { return measure(in, true); },
      "share of in-context positions whose attention in the block has its maximum just after an earlier "
      "occurrence of the current token");
  ind.parse_params = [](ObjectReader r) { return parse(std::move(r), false); };
  ind.params_doc = doc;
  r.add(std::move(ind));
}

}  // namespace cc::bietti_birth
