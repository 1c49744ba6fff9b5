#include "analysis/intervention.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

#include "analysis/common.h"
#include "analysis/subspace.h"
#include "train/task_data.h"
#include "util/error.h"

namespace cc::analysis {

const char* const kInterventionDoc =
    "intervene: a list of edits applied in every forward of the measurement (kinds marked 'intervenable')\n"
    "  hook: a TransformerLens hook of the model, e.g. blocks.0.attn.hook_pattern (required)\n"
    "  op: zero | mean | resample | pattern | patch | knockout | project (required)\n"
    "  positions: positions edited (the query's for scores and pattern; -1 the last); default every position\n"
    "  heads: heads edited (hooks with a head axis: q, k, v, z, attn_scores, pattern); default every head\n"
    "  set, size, eval_seed: mean/resample/patch: the clean set read (size default 1000)\n"
    "  seed: resample: which sequence replaces which (default 0)\n"
    "  target: pattern: uniform | previous (required for op pattern)\n"
    "  into: patch: the corrupted set, sequence i of it patched with the clean set's sequence i\n"
    "  keys: knockout: the key positions whose scores become -inf (hook_attn_scores only; -1 the last)\n"
    "  subspace: project: a subspace a paper module names along the hook's last axis (`claimcheck kinds`)\n"
    "  keep: project: subspace (the value's part in it) | complement (the value less that part)\n"
    "  random: project: true for a random subspace of the same rank instead, from `seed` (the matched control)";

namespace {

constexpr int64_t kMaxPosition = 4096;  // far above any n_ctx the engine trains; a typo, not a position

bool is_attention_grid(const std::string& hook) {  // [B, H, T, T]: head dim 1, query dim 2
  return hook.find("attn.hook_pattern") != std::string::npos || hook.find("attn.hook_attn_scores") != std::string::npos;
}
bool is_per_head(const std::string& hook) {  // [B, T, H, E]: head dim 2
  for (const char* h : {"attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_z"})
    if (hook.size() >= std::strlen(h) && hook.compare(hook.size() - std::strlen(h), std::string::npos, h) == 0)
      return true;
  return false;
}
bool has_heads(const std::string& hook) { return is_attention_grid(hook) || is_per_head(hook); }

// op: project: the subspace (one a module registered, in one of its hooks), which side is kept, and
// whether a random subspace of its rank stands in for it.
void read_projection(ObjectReader& r, const std::string& hook, nlohmann::json& e) {
  const std::string name = r.one_of("subspace", subspace_names());
  const auto& hooks = find_subspace(name).hooks;
  if (std::find(hooks.begin(), hooks.end(), hook) == hooks.end()) {
    std::string list;
    for (const auto& h : hooks) list += (list.empty() ? "" : ", ") + h;
    r.fail("hook", "subspace '" + name + "' lies along the last axis of " + list + ", not of " + hook);
  }
  e["subspace"] = name;
  e["keep"] = r.one_of("keep", {"subspace", "complement"});
  e["random"] = r.boolean("random", false);
  if (e["random"].get<bool>()) e["seed"] = r.integer_in("seed", 0, 0, int64_t{1} << 62);
}

nlohmann::json parse_one(ObjectReader r) {
  nlohmann::json e;
  const std::string hook = r.string("hook");
  e["hook"] = hook;
  const std::string op = r.one_of("op", {"zero", "mean", "resample", "pattern", "patch", "knockout", "project"});
  e["op"] = op;
  const auto positions = r.integers("positions", {});
  for (int64_t p : positions)
    if (p < -kMaxPosition || p >= kMaxPosition) r.fail("positions", "a position must lie in [-4096, 4096)");
  e["positions"] = positions;
  if (r.has("heads") && !has_heads(hook))
    r.fail("heads", "hook '" + hook + "' has no head axis (heads go with q, k, v, z, attn_scores and pattern)");
  const auto heads = r.integers("heads", {});
  for (int64_t h : heads)
    if (h < 0 || h >= 1024) r.fail("heads", "a head must lie in [0, 1024)");
  e["heads"] = heads;
  if (op == "mean" || op == "resample" || op == "patch") {
    e["set"] = read_set(r);
    e["size"] = read_size(r, 1000);
    e["eval_seed"] = read_eval_seed(r);
  }
  if (op == "resample") e["seed"] = r.integer_in("seed", 0, 0, int64_t{1} << 62);
  if (op == "patch") {
    r.string("into");
    e["into"] = r.one_of("into", train::known_eval_set_names(), "");
  }
  if (op == "pattern") {
    if (hook.find("attn.hook_pattern") == std::string::npos)
      r.fail("op", "op 'pattern' replaces an attention pattern: its hook is blocks.L.attn.hook_pattern");
    e["target"] = r.one_of("target", {"uniform", "previous"});
  }
  if (op == "knockout") {
    if (hook.find("attn.hook_attn_scores") == std::string::npos)
      r.fail("op", "op 'knockout' removes keys from the attention scores: its hook is blocks.L.attn.hook_attn_scores");
    const auto keys = r.integers("keys", {});
    if (keys.empty()) r.fail("keys", "knockout needs the key positions to remove (a non-empty list)");
    for (int64_t k : keys)
      if (k < -kMaxPosition || k >= kMaxPosition) r.fail("keys", "a key position must lie in [-4096, 4096)");
    e["keys"] = keys;
  }
  if (op == "project") read_projection(r, hook, e);
  r.finish();
  return e;
}

}  // namespace

nlohmann::json parse_interventions(ObjectReader& measure, const std::string& key) {
  const nlohmann::json& list = measure.raw(key);
  if (!list.is_array() || list.empty())
    measure.fail(key, "a list of one or more edits ({hook, op, ...}; docs/claim-files.md, \"Interventions\")");
  constexpr size_t kMaxEdits = 32;  // each runs in every forward; the most a committed claim makes: 1
  if (list.size() > kMaxEdits)
    measure.fail(key, std::to_string(list.size()) + " edits; at most " + std::to_string(kMaxEdits));
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) measure.fail(key, "entry " + std::to_string(i) + " is not a mapping {hook, op, ...}");
    out.push_back(
        parse_one(ObjectReader(measure.doc(), list[i], measure.pointer() + "/" + key + "/" + std::to_string(i))));
  }
  return out;
}

void check_interventions(const nlohmann::json& edits, const model::ModelConfig& cfg) {
  const auto names = model::hook_names(cfg);
  for (size_t i = 0; i < edits.size(); ++i) {
    const auto& e = edits[i];
    const std::string hook = e["hook"].get<std::string>();
    const std::string which =
        "intervention " + std::to_string(i) + " (" + e["op"].get<std::string>() + " at " + hook + ")";
    if (std::find(names.begin(), names.end(), hook) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      throw Error(which + ": the model has no hook '" + hook + "'; its hooks: " + known);
    }
    for (int64_t h : e["heads"].get<std::vector<int64_t>>())
      if (h >= cfg.n_heads)
        throw Error(which + ": the model has no head " + std::to_string(h) + " (it has " + std::to_string(cfg.n_heads) +
                    ")");
  }
}

namespace {

// A sequence's key, from its tokens alone (FNV-1a over the token ids, then splitmix64 with `seed`): which
// sequence replaces it (resample) or which clean sequence is its partner (patch) never depends on its batch.
uint64_t sequence_key(const int64_t* tokens, int64_t n, uint64_t seed) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t i = 0; i < n; ++i)
    for (int byte = 0; byte < 8; ++byte)
      h = (h ^ ((static_cast<uint64_t>(tokens[i]) >> (8 * byte)) & 0xff)) * 1099511628211ull;
  uint64_t z = h + seed + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
std::vector<uint64_t> sequence_keys(const torch::Tensor& tokens, uint64_t seed) {  // [B, T] -> B keys
  const auto t = tokens.to(torch::kCPU, torch::kLong).contiguous();
  std::vector<uint64_t> out(t.size(0));
  for (int64_t b = 0; b < t.size(0); ++b) out[b] = sequence_key(t.data_ptr<int64_t>() + b * t.size(1), t.size(1), seed);
  return out;
}

// The clean model's `hook` at every position on a set: its sequences' tokens [R, T] and values [R, ...].
struct CleanRows {
  torch::Tensor tokens, values;
};
CleanRows clean_rows(const train::Checkpoint& ck, ActivationStore* store, const std::string& set, int size,
                     uint64_t eval_seed, const std::string& hook) {
  const Activations acts = activations(store, ck, {set}, size, eval_seed, {HookRead{hook, -1}});
  std::vector<torch::Tensor> parts;
  acts.for_each([&](const model::ActivationCache& cache, size_t, size_t) { parts.push_back(cache[hook]); });
  return {acts.sets.front()->tokens, torch::cat(parts, 0)};
}

// Where an edit applies: a boolean mask broadcastable to the hook's value, true at the chosen positions
// (the position axis: dim 1, or the query's, dim 2, of [B, H, T, T]) and heads.
torch::Tensor edit_mask(const torch::Tensor& value, const std::string& hook, const nlohmann::json& e) {
  const bool grid = is_attention_grid(hook);
  const int64_t pos_dim = grid ? 2 : 1, head_dim = grid ? 1 : (is_per_head(hook) ? 2 : -1);
  const int64_t T = value.size(pos_dim);
  const auto opts = torch::TensorOptions().dtype(torch::kBool).device(value.device());
  auto axis = [&](const std::vector<int64_t>& chosen, int64_t n, int64_t dim, const char* what) {
    std::vector<int64_t> shape(value.dim(), 1);
    shape[dim] = n;
    if (chosen.empty()) return torch::ones(shape, opts);
    auto m = torch::zeros({n}, torch::TensorOptions().dtype(torch::kBool));
    for (int64_t c : chosen) {
      const int64_t i = c < 0 ? c + n : c;
      if (i < 0 || i >= n)
        throw Error("an intervention at " + hook + ": " + what + " " + std::to_string(c) + " is outside the " +
                    (what == std::string("position") ? "sequences' " + std::to_string(n) + " positions"
                                                     : "model's " + std::to_string(n) + " heads"));
      m[i] = true;
    }
    return m.view(shape).to(value.device());
  };
  auto mask = axis(e["positions"].get<std::vector<int64_t>>(), T, pos_dim, "position");
  if (head_dim >= 0) mask = mask & axis(e["heads"].get<std::vector<int64_t>>(), value.size(head_dim), head_dim, "head");
  return mask;
}

// The replacement pattern [T, T]: uniform over the positions a query may attend to, or the one before it.
torch::Tensor target_pattern(const std::string& target, int64_t T, const torch::TensorOptions& opts) {
  if (target == "uniform") {
    auto allowed = torch::ones({T, T}, opts).tril();
    return allowed / allowed.sum(-1, true);
  }
  auto prev = torch::zeros({T, T}, opts);
  for (int64_t p = 0; p < T; ++p) prev[p][std::max<int64_t>(p - 1, 0)] = 1.0;
  return prev;
}

// The value an edit puts in place of the hook's, for a batch: a function of the value and the tokens.
using Replacement = std::function<torch::Tensor(const torch::Tensor& value, const torch::Tensor& tokens)>;

// op: project: v Q^T Q (keep: subspace) or v - v Q^T Q (keep: complement), Q the subspace's orthonormal basis at this
// checkpoint (or a random one of its rank); computed in double, returned in the value's dtype.
Replacement projection(const train::Checkpoint& ck, ActivationStore* store, const nlohmann::json& e) {
  const std::string hook = e["hook"].get<std::string>(), name = e["subspace"].get<std::string>();
  torch::Tensor basis = subspace_basis(find_subspace(name), ck, store);  // [r, dim]
  if (e["random"].get<bool>()) basis = random_basis(basis.size(0), basis.size(1), e["seed"].get<uint64_t>());
  const bool onto = e["keep"].get<std::string>() == "subspace";
  return [basis, onto, hook, name](const torch::Tensor& v, const torch::Tensor&) {
    if (v.size(-1) != basis.size(1))
      throw Error("an intervention at " + hook + ": subspace '" + name + "' has directions of " +
                  std::to_string(basis.size(1)) + " entries, the hook's last axis " + std::to_string(v.size(-1)));
    const auto q = basis.to(v.device());
    const auto x = v.to(torch::kDouble);
    const auto part = x.matmul(q.t()).matmul(q);
    return (onto ? part : x - part).to(v.dtype());
  };
}

Replacement replacement(const train::Checkpoint& ck, ActivationStore* store, const nlohmann::json& e) {
  const std::string op = e["op"].get<std::string>(), hook = e["hook"].get<std::string>();
  if (op == "zero") return [](const torch::Tensor& v, const torch::Tensor&) { return torch::zeros_like(v); };
  if (op == "knockout") {  // the keys' scores at -inf: the query's softmax spreads over the other keys
    const auto keys = e["keys"].get<std::vector<int64_t>>();
    return [keys, hook](const torch::Tensor& v, const torch::Tensor&) {
      const int64_t T = v.size(-1);
      auto out = torch::zeros({T}, torch::kBool);
      for (int64_t k : keys) {
        const int64_t i = k < 0 ? k + T : k;
        if (i < 0 || i >= T)
          throw Error("an intervention at " + hook + ": key " + std::to_string(k) + " is outside the sequences' " +
                      std::to_string(T) + " positions");
        out[i] = true;
      }
      return v.masked_fill(out.view({1, 1, 1, T}).to(v.device()), -std::numeric_limits<float>::infinity());
    };
  }
  if (op == "project") return projection(ck, store, e);
  if (op == "pattern") {
    const std::string target = e["target"].get<std::string>();
    return [target](const torch::Tensor& v, const torch::Tensor&) {
      return target_pattern(target, v.size(-1), v.options()).expand_as(v);
    };
  }
  const auto clean =
      clean_rows(ck, store, e["set"].get<std::string>(), e["size"].get<int>(), e["eval_seed"].get<uint64_t>(), hook);
  auto same_shape = [hook](const torch::Tensor& v, const torch::Tensor& row, const std::string& set) {
    if (v.sizes().slice(1) != row.sizes())
      throw Error("an intervention at " + hook + " reads set '" + set + "', whose sequences have another length than " +
                  "the measured ones");
  };
  const std::string set = e["set"].get<std::string>();
  if (op == "mean") {
    const auto mean = clean.values.mean(0);  // per position (and head), over the set's sequences
    return [mean, same_shape, set](const torch::Tensor& v, const torch::Tensor&) {
      same_shape(v, mean, set);
      return mean.to(v.device()).unsqueeze(0).expand_as(v);
    };
  }
  if (op == "resample") {
    const uint64_t seed = e["seed"].get<uint64_t>();
    const auto pool = clean.values;
    return [pool, seed, same_shape, set](const torch::Tensor& v, const torch::Tensor& tokens) {
      same_shape(v, pool[0], set);
      std::vector<int64_t> rows;
      for (uint64_t k : sequence_keys(tokens, seed)) rows.push_back(static_cast<int64_t>(k % pool.size(0)));
      return pool.index_select(0, torch::tensor(rows, torch::kLong)).to(v.device());
    };
  }
  // patch: the corrupted set `into`, drawn as the clean one was; its sequence i takes clean sequence i's value.
  const std::string into = e["into"].get<std::string>();
  const auto corrupted =
      train::make_task_data(ck.config)->eval_set(into, e["size"].get<int>(), e["eval_seed"].get<uint64_t>());
  if (corrupted.batch.size() != clean.values.size(0))
    throw Error("an intervention at " + hook + ": patching needs sets of one size, but '" + into + "' has " +
                std::to_string(corrupted.batch.size()) + " sequences and '" + set + "' " +
                std::to_string(clean.values.size(0)));
  auto partner = std::make_shared<std::unordered_map<uint64_t, int64_t>>();
  const auto keys = sequence_keys(corrupted.batch.tokens, 0);
  for (size_t i = 0; i < keys.size(); ++i) partner->emplace(keys[i], static_cast<int64_t>(i));  // the first of twins
  const auto pool = clean.values;
  return [pool, partner, same_shape, set, into, hook](const torch::Tensor& v, const torch::Tensor& tokens) {
    same_shape(v, pool[0], set);
    std::vector<int64_t> rows;
    for (uint64_t k : sequence_keys(tokens, 0)) {
      auto it = partner->find(k);
      if (it == partner->end())
        throw Error("an intervention at " + hook + " patches from '" + set + "' into '" + into +
                    "', but a measured sequence is not one of '" + into + "'s: measure the set named by 'into'");
      rows.push_back(it->second);
    }
    return pool.index_select(0, torch::tensor(rows, torch::kLong)).to(v.device());
  };
}

}  // namespace

std::shared_ptr<model::Transformer> intervened_model(const train::Checkpoint& ck, const nlohmann::json& edits,
                                                     ActivationStore* store) {
  check_interventions(edits, ck.model->config());
  std::vector<model::NamedEdit> named;
  for (const auto& e : edits) {
    const std::string hook = e["hook"].get<std::string>();
    const Replacement with = replacement(ck, store, e);
    named.push_back({hook, [hook, e, with](const torch::Tensor& value, const torch::Tensor& tokens) {
                       auto out = torch::where(edit_mask(value, hook, e), with(value, tokens), value);
                       // A query left with no key to attend to has no pattern (softmax of -inf alone is NaN).
                       if (is_attention_grid(hook) && hook.find("hook_attn_scores") != std::string::npos &&
                           torch::isneginf(out).all(-1).any().item<bool>())
                         throw Error("an intervention at " + hook + " leaves a query with no key to attend to");
                       return out;
                     }});
  }
  return ck.model->with_edits(std::move(named));
}

}  // namespace cc::analysis
