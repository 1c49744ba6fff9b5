// previous_token_attention and induction_attention: where a block's attention has its maximum, on the
// evaluation sequences (the family's `eval` draw of `size` sequences from `eval_seed`).
//   previous_token_attention: at every position t >= 1, the share whose maximum is at t - 1 (Figure 1:
//     "The first layer is a previous token head"); beside it, unjudged, the same share at the positions
//     right after a trigger only (the authors' probe reads those).
//   induction_attention: at every position t whose next token is a trigger's output seen before (the
//     in-context tokens), the share whose maximum is at a position j >= 1 with z_{j-1} = z_t: the token
//     after the current token's previous occurrence (the authors' probe; Figure 1's second layer).
#include <torch/torch.h>

#include "analysis/common.h"
#include "papers/bietti_birth/module/kinds.h"
#include "util/error.h"

namespace cc::bietti_birth {
namespace {

constexpr int kChunk = 64;  // sequences per forward pass: [64, 1, T, T] attention

nlohmann::json parse(ObjectReader r) {
  nlohmann::json p;
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

analysis::Measurement measure(const analysis::MeasureInput& in, bool induction) {
  torch::NoGradGuard no_grad;
  const auto& ck = in.checkpoint;
  const int block = block_of(in.params, ck);
  const Sequences s = eval_sequences(task_of(ck), in.params["size"], in.params["eval_seed"].get<uint64_t>());
  const std::string hook = "blocks." + std::to_string(block) + ".attn.hook_pattern";
  int64_t hits = 0, n = 0;
  int64_t after_hits = 0, after_n = 0;  // previous-token: at the positions right after a trigger only
  nlohmann::json pattern;               // the first sequence's first 32 positions, for the report's figure
  auto count = [&](const model::ActivationCache& cache, size_t first, size_t last) {
    const auto start = static_cast<int64_t>(first), end = static_cast<int64_t>(last);
    const auto tokens = s.tokens.slice(0, start, end);
    const auto top = cache[hook].select(1, 0).argmax(-1).to(torch::kCPU);  // [b, T]: the attended position
    if (start == 0) pattern = analysis::matrix_json(cache[hook][0][0].slice(0, 0, 32).slice(1, 0, 32));
    const int64_t T = tokens.size(1);
    const auto positions = torch::arange(T).unsqueeze(0).expand_as(top);
    if (!induction) {
      const auto from = positions >= 1;
      hits += ((top == positions - 1) & from).sum().item<int64_t>();
      n += from.sum().item<int64_t>();
      // The authors' probe reads only the positions whose previous token is a trigger (an output's).
      auto after = torch::zeros_like(from);
      after.slice(1, 1, T).copy_(s.occurrence.slice(0, start, end).slice(1, 0, T - 1) >= 1);
      after_hits += ((top == positions - 1) & after).sum().item<int64_t>();
      after_n += after.sum().item<int64_t>();
      return;
    }
    const auto at = s.occurrence.slice(0, start, end) >= 2;        // [b, T]
    const auto before = tokens.gather(1, (top - 1).clamp_min(0));  // z_{j-1}
    hits += ((before == tokens) & (top >= 1) & at).sum().item<int64_t>();
    n += at.sum().item<int64_t>();
  };
  analysis::for_each_cached(*ck.model, s.tokens, count, kChunk);
  analysis::Measurement m;
  m.n = n;
  m.successes = hits;
  m.value = n > 0 ? static_cast<double>(hits) / static_cast<double>(n) : 0.0;
  m.details["block"] = block + 1;
  if (!induction && after_n > 0) {
    const double share = static_cast<double>(after_hits) / static_cast<double>(after_n);
    m.details["after_a_trigger"] = share;  // reported, not judged (assumptions.md, B6's note)
    m.details["unthresholded"] = {{"share at the positions right after a trigger (the authors' probe)", share}};
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
  analysis::MeasurementKind prev(
      "previous_token_attention", analysis::Statistic::Proportion,
      [](const analysis::MeasureInput& in) { return measure(in, false); },
      "share of positions t >= 1 whose attention in the block has its maximum at t - 1");
  prev.parse_params = parse;
  prev.params_doc = doc;
  r.add(std::move(prev));
  analysis::MeasurementKind ind(
      "induction_attention", analysis::Statistic::Proportion,
      [](const analysis::MeasureInput& in) { return measure(in, true); },
      "share of in-context positions whose attention in the block has its maximum just after an earlier "
      "occurrence of the current token");
  ind.parse_params = parse;
  ind.params_doc = doc;
  r.add(std::move(ind));
}

}  // namespace cc::bietti_birth
