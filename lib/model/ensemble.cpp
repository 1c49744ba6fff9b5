#include "model/ensemble.h"

#include <torch/torch.h>

#include "model/attention.h"
#include "util/error.h"

namespace cc::model {

Ensemble::Ensemble(const ModelConfig& cfg, int64_t members) : cfg_(cfg), members_(members) {
  if (members < 1) throw Error("an ensemble needs at least one member");
  if (!cfg.is_two_layer_mlp_last())  // forward_last below is the paper's two-block shape
    throw Error("the stacked ensemble trains the paper's shape only (2 blocks, an MLP in block 1)");
  const Transformer shape(cfg);  // the single model defines names, order and shapes
  for (const auto& [name, t] : shape.named_parameters()) {
    std::vector<int64_t> s = {members};
    s.insert(s.end(), t.sizes().begin(), t.sizes().end());
    params_.emplace_back(name, torch::zeros(s, torch::kFloat32).set_requires_grad(true));
  }
}

void Ensemble::set_member(int64_t k, const Transformer& m) {
  torch::NoGradGuard no_grad;
  for (auto& [name, t] : params_) t[k].copy_(m.param(name));
}

void Ensemble::get_member(int64_t k, Transformer& m) const {
  std::map<std::string, torch::Tensor> values;
  for (const auto& [name, t] : params_) values[name] = t[k].detach();
  m.load(values);
}

std::vector<torch::Tensor> Ensemble::parameters() const {
  std::vector<torch::Tensor> out;
  for (const auto& kv : params_) out.push_back(kv.second);
  return out;
}

const torch::Tensor& Ensemble::param(const std::string& name) const {
  for (const auto& kv : params_)
    if (kv.first == name) return kv.second;
  throw Error("ensemble has no parameter '" + name + "'");
}

void Ensemble::to(const torch::Device& device) {
  torch::NoGradGuard no_grad;
  for (auto& kv : params_) kv.second = kv.second.detach().to(device).set_requires_grad(true);
}

torch::Tensor Ensemble::flat_in(int layer, const char* w) const {
  const auto W = param("blocks." + std::to_string(layer) + ".attn." + w);  // [K, H, D, E]
  return W.permute({0, 2, 1, 3}).reshape({members_, cfg_.d_model, cfg_.n_heads * cfg_.d_head});
}

torch::Tensor Ensemble::flat_out(int layer) const {
  return param("blocks." + std::to_string(layer) + ".attn.W_O")
      .reshape({members_, cfg_.n_heads * cfg_.d_head, cfg_.d_model});
}

// Transformer::forward_last with a leading member axis; see transformer.cpp for the algebra.
torch::Tensor Ensemble::forward_last(const torch::Tensor& tokens) const {
  const int64_t K = members_, B = tokens.size(1), T = tokens.size(2), V = cfg_.d_vocab, D = cfg_.d_model;
  const int64_t H = cfg_.n_heads, E = cfg_.d_head, HE = H * E;
  if (tokens.size(0) != K)
    throw Error("ensemble of " + std::to_string(K) + " got tokens for " + std::to_string(tokens.size(0)));
  if (T > cfg_.n_ctx) throw Error("sequence length " + std::to_string(T) + " exceeds n_ctx");
  auto ids = tokens.to(device(), torch::kLong);  // [K, B, T]
  const auto W_E = param("embed.W_E"), W_pos = param("pos_embed.W_pos");

  auto W_kv2 = torch::cat({flat_in(1, "W_K"), flat_in(1, "W_V")}, 2);                            // [K, D, 2HE]
  auto W_all = torch::cat({flat_in(0, "W_Q"), flat_in(0, "W_K"), flat_in(0, "W_V"), W_kv2}, 2);  // [K, D, 5HE]
  auto table = (W_E.bmm(W_all).unsqueeze(2) + W_pos.slice(1, 0, T).bmm(W_all).unsqueeze(1))
                   .reshape({K * V * T, 5 * HE});  // [K*V*T, 5HE]
  auto member = torch::arange(K, ids.options()).view({K, 1, 1});
  auto row = (member * V + ids) * T + torch::arange(T, ids.options()).view({1, 1, T});  // [K, B, T]
  auto proj = table.index_select(0, row.reshape({-1})).view({K * B, T, 5 * HE});
  auto parts = proj.split(HE, -1);  // q1, k1, v1, k2 (x-part), v2 (x-part), each [K*B, T, HE]

  auto z1 = causal_attention(parts[0].view({K * B, T, H, E}), parts[1].view({K * B, T, H, E}),
                             parts[2].view({K * B, T, H, E}))
                .z.reshape({K, B * T, HE});  // [K, B*T, HE]
  auto kv2 =
      torch::cat({parts[3], parts[4]}, -1).view({K, B * T, 2 * HE}) + z1.bmm(flat_out(0).bmm(W_kv2));  // [K, B*T, 2HE]
  auto k2 = kv2.narrow(-1, 0, HE).reshape({K * B, T, H, E});
  auto v2 = kv2.narrow(-1, HE, HE).reshape({K * B, T, H, E});

  auto last = (member.view({K, 1}) * V + ids.select(2, T - 1)).reshape({-1});  // [K*B]
  auto x_last = W_E.reshape({K * V, D}).index_select(0, last).view({K, B, D}) + W_pos.select(1, T - 1).unsqueeze(1);
  auto resid1 = x_last + z1.reshape({K, B, T, HE}).select(2, T - 1).bmm(flat_out(0));  // [K, B, D]
  auto q2 = resid1.bmm(flat_in(1, "W_Q")).view({K * B, H, E});
  auto z2 = last_query_attention(q2, k2, v2).reshape({K, B, HE});
  auto mid = resid1 + z2.bmm(flat_out(1));  // [K, B, D]
  auto pre = mid.bmm(param("blocks.1.mlp.W_in"));
  auto post = cfg_.activation == "gelu" ? torch::gelu(pre) : torch::relu(pre);
  auto resid2 = mid + post.bmm(param("blocks.1.mlp.W_out"));
  return resid2.bmm(param("unembed.W_U"));  // [K, B, d_vocab_out]
}

}  // namespace cc::model
