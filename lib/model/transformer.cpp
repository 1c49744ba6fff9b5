#include "model/transformer.h"

#include <torch/torch.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <tuple>

#include "model/attention.h"
#include "model/param_layout.h"
#include "util/error.h"

namespace cc::model {

const torch::Tensor& ActivationCache::operator[](const std::string& name) const {
  auto it = acts_.find(name);
  if (it == acts_.end()) {
    std::string known;
    for (const auto& kv : acts_) known += (known.empty() ? "" : ", ") + kv.first;
    throw Error("activation '" + name + "' is not in the cache; recorded: " + known);
  }
  return it->second;
}

std::vector<std::string> ActivationCache::names() const {
  std::vector<std::string> out;
  for (const auto& kv : acts_) out.push_back(kv.first);
  return out;
}

Transformer::Transformer(const ModelConfig& cfg) : cfg_(cfg) {
  for (const auto& e : ParamLayout(cfg).entries)
    params_.emplace_back(e.name, torch::zeros(e.shape, torch::kFloat32).set_requires_grad(true));
}

void Transformer::init(uint64_t seed) {
  torch::NoGradGuard no_grad;
  for (const auto& override_entry : cfg_.init) {
    const std::string& name = override_entry.first;
    if (std::none_of(params_.begin(), params_.end(), [&](const auto& kv) { return kv.first == name; }))
      throw Error("model.init: the model has no parameter '" + name + "'");
  }
  auto gen = at::detail::createCPUGenerator(seed);
  for (auto& [name, p] : params_) {
    // Every parameter draws from the one stream in the same order, whatever its override, so an
    // override changes that parameter only.
    torch::Tensor w = torch::randn(p.sizes(), gen, torch::kFloat32);
    const auto over = cfg_.init.find(name);
    if (over == cfg_.init.end()) {
      w = w * cfg_.effective_init_std();
    } else if (over->second.is_string()) {  // "identity" (config.cpp accepts no other string)
      if (p.dim() != 3 || p.size(1) != p.size(2))
        throw Error("model.init: '" + name + "' is not square in each head (identity needs d_head = d_model)");
      w = torch::eye(p.size(1)).unsqueeze(0).expand(p.sizes()).contiguous();
    } else {
      w = w * over->second.get<double>();
    }
    p.copy_(w.to(p.device()));
  }
}

std::vector<torch::Tensor> Transformer::parameters() const {
  std::vector<torch::Tensor> out;
  for (const auto& kv : params_) out.push_back(kv.second);
  return out;
}

const torch::Tensor& Transformer::param(const std::string& name) const {
  for (const auto& kv : params_)
    if (kv.first == name) return kv.second;
  throw Error("model has no parameter '" + name + "'");
}

torch::Tensor Transformer::block(int layer, const std::string& name) const {
  return param("blocks." + std::to_string(layer) + "." + name);
}

int Transformer::mlp_layer(int layer) const {
  const int l = layer < 0 ? cfg_.last_mlp_layer() : layer;
  if (l < 0 || !cfg_.has_mlp(l))
    throw Error("block " + std::to_string(layer < 0 ? 0 : layer) +
                " of this model has no MLP (mlp_layers in the model config)");
  return l;
}

void Transformer::load(const std::map<std::string, torch::Tensor>& values) {
  torch::NoGradGuard no_grad;
  for (auto& kv : params_) {
    auto it = values.find(kv.first);
    if (it == values.end()) throw Error("checkpoint lacks tensor '" + kv.first + "'");
    if (it->second.sizes() != kv.second.sizes()) {
      std::ostringstream msg;
      msg << "tensor '" << kv.first << "' has shape " << it->second.sizes() << ", the model config needs "
          << kv.second.sizes();
      throw Error(msg.str());
    }
    kv.second.copy_(it->second);
  }
  for (const auto& kv : values) param(kv.first);  // an unexpected tensor is an error too
}

void Transformer::to(const torch::Device& device) {
  torch::NoGradGuard no_grad;
  for (auto& kv : params_) kv.second = kv.second.detach().to(device).set_requires_grad(true);
}

torch::Tensor Transformer::mlp_activation(const torch::Tensor& pre) const {
  return cfg_.activation == "gelu" ? torch::gelu(pre) : torch::relu(pre);
}

torch::Tensor Transformer::flat_in(int layer, const char* w) const {
  // [H, D, E] -> [D, H*E]: one matmul serves every head.
  const auto W = block(layer, std::string("attn.") + w);
  return W.permute({1, 0, 2}).reshape({cfg_.d_model, cfg_.n_heads * cfg_.d_head});
}

torch::Tensor Transformer::flat_out(int layer) const {
  return block(layer, "attn.W_O").reshape({cfg_.n_heads * cfg_.d_head, cfg_.d_model});  // [H*E, D]
}

std::string HookRead::key() const { return position < 0 ? hook : hook + "[:, " + std::to_string(position) + "]"; }

bool HookRead::operator<(const HookRead& o) const { return std::tie(hook, position) < std::tie(o.hook, o.position); }

namespace {

// The block a hook belongs to: N for "blocks.N.<name>", -1 for the embeddings.
int block_of(const std::string& hook) {
  const std::string prefix = "blocks.";
  if (hook.rfind(prefix, 0) != 0) return -1;
  int n = -1;
  std::from_chars(hook.data() + prefix.size(), hook.data() + hook.size(), n);
  return n;
}

// A tensor that holds only its own elements: a view into a larger one is copied, so that what a cache
// keeps is what it counts.
torch::Tensor own(const torch::Tensor& t) {
  return t.storage().nbytes() == t.nbytes() && t.is_contiguous() ? t : t.clone();
}

}  // namespace

// What the analysis path keeps, and so what it must compute: every hook at every position as
// computed (run_with_cache), or the reads of record().
struct Transformer::Recorder {
  ActivationCache& cache;
  const std::set<HookRead>* reads = nullptr;      // nullptr: every hook at every position, and the logits
  int last_block = 0;                             // the deepest block that runs
  const std::vector<NamedEdit>* edits = nullptr;  // with_edits: every block at every position, edited
  bool logits = false;                            // the unembedding too (a forward with edits)
  bool last_only = false;  // logits at the last position only: the last block's MLP runs there alone

  bool everything() const { return reads == nullptr; }
  bool editing() const { return edits != nullptr && !edits->empty(); }
  bool edits_any(std::initializer_list<std::string> hooks) const {
    if (!editing()) return false;
    for (const auto& e : *edits)
      if (std::find(hooks.begin(), hooks.end(), e.hook) != hooks.end()) return true;
    return false;
  }
  // `value` after every edit at `hook`, in order; each must keep its shape.
  torch::Tensor edit(const std::string& hook, torch::Tensor value, const torch::Tensor& tokens) const {
    if (!editing()) return value;
    for (const auto& e : *edits) {
      if (e.hook != hook) continue;
      auto out = e.edit(value, tokens);
      if (out.sizes() != value.sizes()) throw Error("an intervention at " + hook + " changed its shape");
      value = out;
    }
    return value;
  }

  // The reads of `hook`, in position order (-1, every position, first).
  std::vector<HookRead> reads_of(const std::string& hook) const {
    std::vector<HookRead> out;
    for (auto it = reads->lower_bound(HookRead{hook, std::numeric_limits<int>::min()});
         it != reads->end() && it->hook == hook; ++it)
      out.push_back(*it);
    return out;
  }

  // Block b's ("blocks.L.") query side: the hooks that need its queries, so its attention's output, its
  // MLP and the residual after them (k and v serve every query: they are computed at every position).
  // Its MLP's hooks are the last four.
  static constexpr const char* kQuerySide[] = {
      "attn.hook_q",    "attn.hook_attn_scores", "attn.hook_pattern", "attn.hook_z",  "hook_attn_out",
      "hook_resid_mid", "mlp.hook_pre",          "mlp.hook_post",     "hook_mlp_out", "hook_resid_post"};
  static constexpr size_t kFirstMlpHook = 6;
  // Whether one of `hooks` (of block b) is read at every position, and the positions they are read at.
  bool read_everywhere(const std::string& b, size_t first_hook = 0) const {
    if (everything()) return true;
    for (size_t i = first_hook; i < std::size(kQuerySide); ++i)
      if (reads->count(HookRead{b + kQuerySide[i], -1})) return true;
    return false;
  }
  std::set<int> positions_read(const std::string& b, size_t first_hook = 0) const {
    std::set<int> at;
    if (everything()) return at;
    for (size_t i = first_hook; i < std::size(kQuerySide); ++i)
      for (const auto& r : reads_of(b + kQuerySide[i]))
        if (r.position >= 0) at.insert(r.position);
    return at;
  }

  // `all` [B, T, ...]: the hook at every position; keeps each of its reads (the query's row, dim 2, of
  // the attention scores and pattern [B, H, T, T]).
  void keep(const std::string& hook, const torch::Tensor& all) {
    if (everything()) return cache.put(hook, all);
    const bool row =
        hook.find("attn.hook_pattern") != std::string::npos || hook.find("attn.hook_attn_scores") != std::string::npos;
    for (const auto& r : reads_of(hook))
      cache.put(r.key(), own(r.position < 0 ? all : all.select(row ? 2 : 1, r.position)));
  }
  // Only its read at every position, if any (the read at one position is computed apart); with edits,
  // every read, since nothing is computed apart.
  void keep_everywhere(const std::string& hook, const torch::Tensor& all) {
    if (everything()) return cache.put(hook, all);
    if (editing()) return keep(hook, all);
    if (reads->count(HookRead{hook, -1})) cache.put(hook, own(all));
  }
  // `at` [B, ...]: the hook at `position`, computed for that position alone.
  void keep_at(const std::string& hook, int position, const torch::Tensor& at) {
    const HookRead r{hook, position};
    if (reads->count(r)) cache.put(r.key(), own(at));
  }
};

// The analysis path: plain, position by position, every activation recorded.
torch::Tensor Transformer::run_with_cache(const torch::Tensor& tokens, ActivationCache& cache) const {
  Recorder rec{cache, nullptr, cfg_.n_layers - 1, &edits_};
  return run_recording(tokens, rec);
}

ActivationCache Transformer::record(const torch::Tensor& tokens, const std::set<HookRead>& reads) const {
  const auto names = hook_names();
  const int64_t T = tokens.size(1);
  int last_block = -1;
  for (const auto& r : reads) {
    if (std::find(names.begin(), names.end(), r.hook) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      throw Error("activation '" + r.hook + "' is not a hook of this model; its hooks: " + known);
    }
    if (r.position < -1 || r.position >= T)
      throw Error("activation '" + r.hook + "' read at position " + std::to_string(r.position) +
                  ": the sequences have " + std::to_string(T) + " positions");
    last_block = std::max(last_block, block_of(r.hook));
  }
  ActivationCache cache;
  Recorder rec{cache, &reads, last_block, &edits_};
  run_recording(tokens, rec);
  return cache;
}

std::shared_ptr<Transformer> Transformer::with_edits(std::vector<NamedEdit> edits) const {
  const auto names = hook_names();
  for (const auto& e : edits)
    if (std::find(names.begin(), names.end(), e.hook) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      throw Error("an intervention at '" + e.hook + "': not a hook of this model; its hooks: " + known);
    }
  auto out = std::make_shared<Transformer>(*this);  // the parameter tensors are shared, not copied
  out->edits_.insert(out->edits_.end(), std::make_move_iterator(edits.begin()), std::make_move_iterator(edits.end()));
  return out;
}

torch::Tensor Transformer::forward_edited(const torch::Tensor& tokens, bool last_only) const {
  ActivationCache none;
  const std::set<HookRead> no_reads;
  Recorder rec{none, &no_reads, cfg_.n_layers - 1, &edits_, true, last_only};
  auto logits = run_recording(tokens, rec);  // [B, T, V], or [B, 1, V] when the last block's MLP ran at the end only
  return last_only ? logits.select(1, logits.size(1) - 1) : logits;
}

std::vector<std::string> Transformer::hook_names() const { return model::hook_names(cfg_); }

std::vector<std::string> hook_names(const ModelConfig& cfg_) {
  std::vector<std::string> out = {"hook_embed", "hook_pos_embed"};
  for (int layer = 0; layer < cfg_.n_layers; ++layer) {
    const std::string b = "blocks." + std::to_string(layer) + ".";
    for (const char* h : {"hook_resid_pre", "attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_attn_scores",
                          "attn.hook_pattern", "attn.hook_z", "hook_attn_out"})
      out.push_back(b + h);
    if (cfg_.has_mlp(layer))
      for (const char* h : {"hook_resid_mid", "mlp.hook_pre", "mlp.hook_post", "hook_mlp_out"}) out.push_back(b + h);
    out.push_back(b + "hook_resid_post");
  }
  return out;
}

torch::Tensor Transformer::run_recording(const torch::Tensor& tokens, Recorder& rec) const {
  const int64_t B = tokens.size(0), T = tokens.size(1), D = cfg_.d_model, H = cfg_.n_heads, E = cfg_.d_head;
  if (T > cfg_.n_ctx) throw Error("sequence length " + std::to_string(T) + " exceeds n_ctx");
  auto ids = tokens.to(device(), torch::kLong);
  auto embed = rec.edit("hook_embed", W_E().index_select(0, ids.reshape({-1})).view({B, T, D}), ids);  // [B, T, D]
  auto pos = rec.edit("hook_pos_embed", W_pos().slice(0, 0, T).unsqueeze(0).expand({B, T, D}), ids);   // [B, T, D]
  // Block 0's projections come from a table of W_E[token] + W_pos[t] unless an edit changes its input.
  const bool edited_input = rec.edits_any({"hook_embed", "hook_pos_embed", "blocks.0.hook_resid_pre"});
  rec.keep("hook_embed", embed);
  rec.keep("hook_pos_embed", pos);

  torch::Tensor resid = embed + pos;  // blocks.0.hook_resid_pre
  // Block 0's input W_E[token] + W_pos[t] takes V·T values: every one of them, and each position's row.
  const auto inputs = (W_E().unsqueeze(1) + W_pos().slice(0, 0, T).unsqueeze(0)).reshape({-1, D});  // [V*T, D]
  const auto input_row = (ids * T + torch::arange(T, ids.options()).unsqueeze(0)).reshape({-1});    // token*T + t
  for (int layer = 0; layer <= rec.last_block; ++layer) {
    const std::string b = "blocks." + std::to_string(layer) + ".";
    const torch::Tensor pre = rec.edit(b + "hook_resid_pre", resid, ids);  // [B, T, D]
    rec.keep(b + "hook_resid_pre", pre);
    // pre · W [B, T, H, E] at every position. In block 0 it is rows of a small [V·T, HE] product (the same
    // sums: the rows are the same vectors), taken per token and position: a sequence's values depend on
    // its tokens alone, never on its batch.
    auto project = [&](const char* w) {
      if (layer > 0 || edited_input) return pre.matmul(flat_in(layer, w)).view({B, T, H, E});
      return inputs.matmul(flat_in(0, w)).index_select(0, input_row).view({B, T, H, E});
    };
    const auto k = rec.edit(b + "attn.hook_k", project("W_K"), ids),
               v = rec.edit(b + "attn.hook_v", project("W_V"), ids);
    rec.keep(b + "attn.hook_k", k);
    rec.keep(b + "attn.hook_v", v);
    // x [..., D] -> blocks.L.hook_resid_post [..., D], handing each of the MLP's hooks to `keep`.
    auto mlp = [&](const torch::Tensor& x, const std::function<void(const std::string&, const torch::Tensor&)>& keep) {
      auto pre_act = rec.edit(b + "mlp.hook_pre", x.matmul(W_in(layer)), ids);  // [..., d_mlp]
      auto post = rec.edit(b + "mlp.hook_post", mlp_activation(pre_act), ids);
      auto mlp_out = rec.edit(b + "hook_mlp_out", post.matmul(W_out(layer)), ids);
      keep(b + "mlp.hook_pre", pre_act);
      keep(b + "mlp.hook_post", post);
      keep(b + "hook_mlp_out", mlp_out);
      auto out = rec.edit(b + "hook_resid_post", x + mlp_out, ids);
      keep(b + "hook_resid_post", out);
      return out;
    };
    // The query side over every position when the next block needs it or one of its hooks is read there;
    // at each position one is read at, on its own (record: a value never depends on what else is read).
    if (rec.everything() || rec.editing() || layer < rec.last_block || rec.read_everywhere(b)) {
      auto everywhere = [&](const std::string& h, const torch::Tensor& t) { rec.keep_everywhere(h, t); };
      const auto q = rec.edit(b + "attn.hook_q", project("W_Q"), ids);
      // causal_attention in its halves, so that an edit of the scores or the pattern reaches z.
      const auto scores = rec.edit(b + "attn.hook_attn_scores", causal_scores(q, k), ids);
      const auto pattern = rec.edit(b + "attn.hook_pattern", torch::softmax(scores, -1), ids);
      const auto z = rec.edit(b + "attn.hook_z", attend(pattern, v), ids);
      auto attn_out =
          rec.edit(b + "hook_attn_out", z.reshape({B, T, H * E}).matmul(flat_out(layer)), ids);  // [B, T, D]
      everywhere(b + "attn.hook_q", q);
      everywhere(b + "attn.hook_attn_scores", scores);
      everywhere(b + "attn.hook_pattern", pattern);
      everywhere(b + "attn.hook_z", z);
      everywhere(b + "hook_attn_out", attn_out);
      if (!cfg_.has_mlp(layer)) {  // the paper removes the layer-1 MLP
        resid = rec.edit(b + "hook_resid_post", pre + attn_out, ids);
        everywhere(b + "hook_resid_post", resid);
      } else {
        resid = rec.edit(b + "hook_resid_mid", pre + attn_out, ids);
        everywhere(b + "hook_resid_mid", resid);
        // Only the last position's logits wanted and no edit in this (last) block's MLP: it runs on that
        // position alone (an MLP acts on each position apart), [B, 1, D].
        if (rec.last_only && layer == cfg_.n_layers - 1 &&
            !rec.edits_any({b + "mlp.hook_pre", b + "mlp.hook_post", b + "hook_mlp_out", b + "hook_resid_post"}))
          resid = resid.narrow(1, T - 1, 1);
        if (rec.everything() || rec.editing() || layer < rec.last_block ||
            rec.read_everywhere(b, Recorder::kFirstMlpHook))
          resid = mlp(resid, everywhere);
      }
    }
    if (rec.everything() || rec.editing()) continue;
    const auto mlp_positions = rec.positions_read(b, Recorder::kFirstMlpHook);
    for (int p : rec.positions_read(b)) {
      auto at = [&](const std::string& h, const torch::Tensor& t) { rec.keep_at(h, p, t); };
      const auto x = pre.select(1, p);                                          // [B, D]
      const auto q = x.matmul(flat_in(layer, "W_Q")).view({B, H, E});           // [B, H, E]
      const auto att = query_attention(q, k, v, p);                             // scores, pattern [B, H, T]
      const auto attn_out = att.z.reshape({B, H * E}).matmul(flat_out(layer));  // [B, D]
      const auto mid = x + attn_out;
      at(b + "attn.hook_q", q);
      at(b + "attn.hook_attn_scores", att.scores);
      at(b + "attn.hook_pattern", att.pattern);
      at(b + "attn.hook_z", att.z);
      at(b + "hook_attn_out", attn_out);
      if (!cfg_.has_mlp(layer)) {
        at(b + "hook_resid_post", mid);
        continue;
      }
      at(b + "hook_resid_mid", mid);
      if (mlp_positions.count(p)) mlp(mid, at);
    }
  }
  if (!rec.everything() && !rec.logits) return {};
  return resid.matmul(W_U());  // [B, T, d_vocab_out]
}

// The training path: the same function as run_with_cache(tokens)[:, -1], rearranged by
// associativity so that no d_model x d_model matmul runs over all B*T positions (a 2.5x
// smaller FLOP count; tests check both paths agree to 1e-5):
//  * layer-1 q, k, v and the x-part of layer-2 k, v are linear in x = E[tok] + P[pos], so
//    they are rows of the small tables W_E·W and W_pos·W, gathered per token and position;
//  * the attention part of layer-2 k, v is z1·(W_O1·W_K2 | W_O1·W_V2): the layer-1 output
//    z1·W_O1 itself is only needed at the last position.
torch::Tensor Transformer::forward_last(const torch::Tensor& tokens) const {
  if (edited()) return forward_edited(tokens, true);
  return cfg_.is_two_layer_mlp_last() ? forward_last_two_layer(tokens) : forward_last_general(tokens);
}

torch::Tensor Transformer::forward_last_two_layer(const torch::Tensor& tokens) const {
  const int64_t B = tokens.size(0), T = tokens.size(1), H = cfg_.n_heads, E = cfg_.d_head, HE = H * E;
  if (T > cfg_.n_ctx) throw Error("sequence length " + std::to_string(T) + " exceeds n_ctx");
  auto ids = tokens.to(device(), torch::kLong);

  auto W_kv2 = torch::cat({flat_in(1, "W_K"), flat_in(1, "W_V")}, 1);                            // [D, 2HE]
  auto W_all = torch::cat({flat_in(0, "W_Q"), flat_in(0, "W_K"), flat_in(0, "W_V"), W_kv2}, 1);  // [D, 5HE]
  // One table row per (token, position): [V*T, 5HE] is small (1184 rows), and gathering from
  // it writes each projection once instead of a gather plus a broadcast add over B*T rows.
  auto table = (W_E().matmul(W_all).unsqueeze(1) + W_pos().slice(0, 0, T).matmul(W_all).unsqueeze(0))
                   .reshape({-1, 5 * HE});                                    // [V*T, 5HE]
  auto row = ids * T + torch::arange(T, ids.options()).unsqueeze(0);          // [B, T]
  auto proj = table.index_select(0, row.reshape({-1})).view({B, T, 5 * HE});  // [B, T, 5HE]
  auto parts = proj.split(HE, -1);  // q1, k1, v1, k2 (x-part), v2 (x-part), each [B, T, HE]

  auto z1 = causal_attention(parts[0].view({B, T, H, E}), parts[1].view({B, T, H, E}), parts[2].view({B, T, H, E}))
                .z.reshape({B, T, HE});                                                    // [B, T, HE]
  auto kv2 = torch::cat({parts[3], parts[4]}, -1) + z1.matmul(flat_out(0).matmul(W_kv2));  // [B, T, 2HE]
  auto k2 = kv2.narrow(-1, 0, HE).view({B, T, H, E});
  auto v2 = kv2.narrow(-1, HE, HE).view({B, T, H, E});

  auto x_last = W_E().index_select(0, ids.select(1, T - 1)) + W_pos()[T - 1];  // [B, D]
  auto resid1 = x_last + z1.select(1, T - 1).matmul(flat_out(0));              // blocks.1.hook_resid_pre[:, -1]
  auto q2 = resid1.matmul(flat_in(1, "W_Q")).view({B, H, E});
  auto z2 = last_query_attention(q2, k2, v2).reshape({B, HE});
  auto mid = resid1 + z2.matmul(flat_out(1));  // blocks.1.hook_resid_mid[:, -1]
  auto resid2 = mid + mlp_activation(mid.matmul(W_in())).matmul(W_out());
  return resid2.matmul(W_U());  // [B, d_vocab_out]
}

torch::Tensor Transformer::embed_tokens(const torch::Tensor& tokens) const {
  const int64_t B = tokens.size(0), T = tokens.size(1), D = cfg_.d_model;
  if (T > cfg_.n_ctx) throw Error("sequence length " + std::to_string(T) + " exceeds n_ctx");
  auto ids = tokens.to(device(), torch::kLong);
  return W_E().index_select(0, ids.reshape({-1})).view({B, T, D}) + W_pos().slice(0, 0, T).unsqueeze(0);
}

torch::Tensor Transformer::block_forward(int layer, const torch::Tensor& resid) const {
  const int64_t B = resid.size(0), T = resid.size(1), H = cfg_.n_heads, E = cfg_.d_head;
  auto q = resid.matmul(flat_in(layer, "W_Q")).view({B, T, H, E});
  auto k = resid.matmul(flat_in(layer, "W_K")).view({B, T, H, E});
  auto v = resid.matmul(flat_in(layer, "W_V")).view({B, T, H, E});
  auto out = resid + causal_attention(q, k, v).z.reshape({B, T, H * E}).matmul(flat_out(layer));
  if (cfg_.has_mlp(layer)) out = out + mlp_activation(out.matmul(W_in(layer))).matmul(W_out(layer));
  return out;  // [B, T, D]
}

torch::Tensor Transformer::forward(const torch::Tensor& tokens) const {
  if (edited()) return forward_edited(tokens, false);
  auto resid = embed_tokens(tokens);
  for (int layer = 0; layer < cfg_.n_layers; ++layer) resid = block_forward(layer, resid);
  return resid.matmul(W_U());  // [B, T, d_vocab_out]
}

// Any other shape: the blocks before the last at every position, as run_with_cache computes them;
// the last block's query, its MLP and the unembedding at the last position only.
torch::Tensor Transformer::forward_last_general(const torch::Tensor& tokens) const {
  const int64_t B = tokens.size(0), T = tokens.size(1), H = cfg_.n_heads, E = cfg_.d_head;
  auto resid = embed_tokens(tokens);
  const int last = cfg_.n_layers - 1;
  for (int layer = 0; layer < last; ++layer) resid = block_forward(layer, resid);  // [B, T, D]
  auto k = resid.matmul(flat_in(last, "W_K")).view({B, T, H, E});
  auto v = resid.matmul(flat_in(last, "W_V")).view({B, T, H, E});
  auto x = resid.select(1, T - 1);                          // [B, D]
  auto q = x.matmul(flat_in(last, "W_Q")).view({B, H, E});  // the last query only
  auto mid = x + last_query_attention(q, k, v).reshape({B, H * E}).matmul(flat_out(last));
  if (cfg_.has_mlp(last)) mid = mid + mlp_activation(mid.matmul(W_in(last))).matmul(W_out(last));
  return mid.matmul(W_U());  // [B, d_vocab_out]
}

}  // namespace cc::model

namespace cc::model {

double max_abs_diff(const Transformer& a, const Transformer& b) {
  torch::NoGradGuard no_grad;
  double worst = 0.0;
  for (const auto& [name, t] : a.named_parameters()) {
    const auto& u = b.param(name);
    if (t.sizes() != u.sizes()) throw Error("max_abs_diff: parameter '" + name + "' differs in shape");
    worst = std::max(worst, (t.to(torch::kCPU) - u.to(torch::kCPU)).abs().max().item<double>());
  }
  return worst;
}

}  // namespace cc::model
