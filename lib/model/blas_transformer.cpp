#include "model/blas_transformer.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "util/error.h"

namespace cc::model {
namespace {

// C[m, n] = alpha * op(A) op(B) + beta * C, row-major; lda/ldb/ldc are row strides.
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
          int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
              static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
              static_cast<int>(ldc));
}

// In place over x[0, n): softmax.
void softmax(float* x, int64_t n) {
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) mx = std::max(mx, x[i]);
  float sum = 0.f;
  for (int64_t i = 0; i < n; ++i) sum += (x[i] = std::exp(x[i] - mx));
  const float inv = 1.f / sum;
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

// dS = P ∘ (dP − Σ_j P_j dP_j) over one row of length n, in place over dp.
void softmax_backward(const float* p, float* dp, int64_t n) {
  float dot = 0.f;
  for (int64_t i = 0; i < n; ++i) dot += p[i] * dp[i];
  for (int64_t i = 0; i < n; ++i) dp[i] = p[i] * (dp[i] - dot);
}

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;

}  // namespace

ParamLayout::ParamLayout(const ModelConfig& cfg) {
  const int64_t D = cfg.d_model, H = cfg.n_heads, E = cfg.d_head, M = cfg.d_mlp;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    int64_t size = 1;
    for (int64_t s : shape) size *= s;
    entries.push_back({name, std::move(shape), total, size});
    total += size;
  };
  // Transformer::Transformer's order (model/transformer.cpp).
  add("embed.W_E", {cfg.d_vocab, D});
  add("pos_embed.W_pos", {cfg.n_ctx, D});
  for (int l = 0; l < 2; ++l) {
    const std::string b = "blocks." + std::to_string(l) + ".attn.";
    add(b + "W_Q", {H, D, E});
    add(b + "W_K", {H, D, E});
    add(b + "W_V", {H, D, E});
    add(b + "W_O", {H, E, D});
  }
  add("blocks.1.mlp.W_in", {D, M});
  add("blocks.1.mlp.W_out", {M, D});
  add("unembed.W_U", {D, cfg.d_vocab_out});
}

const ParamLayout::Entry& ParamLayout::at(const std::string& name) const {
  for (const auto& e : entries)
    if (e.name == name) return e;
  throw Error("parameter layout has no tensor '" + name + "'");
}

BlasTransformer::BlasTransformer(const ModelConfig& cfg)
    : cfg_(cfg),
      layout_(cfg),
      D_(cfg.d_model),
      H_(cfg.n_heads),
      E_(cfg.d_head),
      HE_(cfg.n_heads * cfg.d_head),
      M_(cfg.d_mlp),
      V_(cfg.d_vocab),
      Vo_(cfg.d_vocab_out) {
  if (cfg.activation != "relu" && cfg.activation != "gelu")
    throw Error("the blas engine knows the activations relu and gelu, not '" + cfg.activation + "'");
}

void BlasTransformer::resize(int64_t B, int64_t T) {
  if (B == B_ && T == T_) return;
  B_ = B;
  T_ = T;
  tokens_.resize(static_cast<size_t>(B * T));
  qkv1_.resize(static_cast<size_t>(B * T * 3 * HE_));
  p1_.resize(static_cast<size_t>(B * H_ * T * T));
  z1_.resize(static_cast<size_t>(B * T * HE_));
  kv2_.resize(static_cast<size_t>(B * T * 2 * HE_));
  r1_.resize(static_cast<size_t>(B * D_));
  q2_.resize(static_cast<size_t>(B * HE_));
  p2_.resize(static_cast<size_t>(B * H_ * T));
  z2_.resize(static_cast<size_t>(B * HE_));
  mid_.resize(static_cast<size_t>(B * D_));
  pre_.resize(static_cast<size_t>(B * M_));
  post_.resize(static_cast<size_t>(B * M_));
  r2_.resize(static_cast<size_t>(B * D_));
  logits_.resize(static_cast<size_t>(B * Vo_));
}

void BlasTransformer::prepare(const float* w, int64_t T) {
  const int64_t W5 = 5 * HE_;
  w_all_.resize(static_cast<size_t>(D_ * W5));
  w_q2_.resize(static_cast<size_t>(D_ * HE_));
  // [H, D, E] -> columns h*E.. of a [D, *] matrix: one matmul serves every head.
  auto place = [&](const char* name, float* dst, int64_t ld) {
    const float* src = w + layout_.at(name).offset;
    for (int64_t h = 0; h < H_; ++h)
      for (int64_t d = 0; d < D_; ++d) std::memcpy(dst + d * ld + h * E_, src + (h * D_ + d) * E_, sizeof(float) * E_);
  };
  place("blocks.0.attn.W_Q", w_all_.data(), W5);
  place("blocks.0.attn.W_K", w_all_.data() + HE_, W5);
  place("blocks.0.attn.W_V", w_all_.data() + 2 * HE_, W5);
  place("blocks.1.attn.W_K", w_all_.data() + 3 * HE_, W5);
  place("blocks.1.attn.W_V", w_all_.data() + 4 * HE_, W5);
  place("blocks.1.attn.W_Q", w_q2_.data(), HE_);

  tab_e_.resize(static_cast<size_t>(V_ * W5));
  tab_p_.resize(static_cast<size_t>(T * W5));
  w_okv_.resize(static_cast<size_t>(HE_ * 2 * HE_));
  gemm(false, false, V_, W5, D_, 1.f, w + layout_.at("embed.W_E").offset, D_, w_all_.data(), W5, 0.f, tab_e_.data(), W5);
  gemm(false, false, T, W5, D_, 1.f, w + layout_.at("pos_embed.W_pos").offset, D_, w_all_.data(), W5, 0.f, tab_p_.data(), W5);
  gemm(false, false, HE_, 2 * HE_, D_, 1.f, w + layout_.at("blocks.0.attn.W_O").offset, D_, w_all_.data() + 3 * HE_, W5, 0.f,
       w_okv_.data(), 2 * HE_);
}

void BlasTransformer::forward(const float* w, const int64_t* tokens, int64_t B, int64_t T, float* logits) {
  if (T < 1 || T > cfg_.n_ctx) throw Error("sequence length " + std::to_string(T) + " is outside [1, n_ctx]");
  for (int64_t i = 0; i < B * T; ++i)
    if (tokens[i] < 0 || tokens[i] >= V_) throw Error("token id " + std::to_string(tokens[i]) + " is outside the vocabulary");
  resize(B, T);
  prepare(w, T);
  std::memcpy(tokens_.data(), tokens, sizeof(int64_t) * static_cast<size_t>(B * T));
  const int64_t W5 = 5 * HE_, HE3 = 3 * HE_, HE2 = 2 * HE_;
  const float scale = 1.f / std::sqrt(static_cast<float>(E_));

  // Gather q1, k1, v1 and the x-part of k2, v2 from the tables: row (token, position).
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      const float* e = tab_e_.data() + tokens[b * T + t] * W5;
      const float* p = tab_p_.data() + t * W5;
      float* qkv = qkv1_.data() + (b * T + t) * HE3;
      float* kv = kv2_.data() + (b * T + t) * HE2;
      for (int64_t i = 0; i < HE3; ++i) qkv[i] = e[i] + p[i];
      for (int64_t i = 0; i < HE2; ++i) kv[i] = e[HE3 + i] + p[HE3 + i];
    }

  // Layer-1 causal attention, per sequence and head: P = softmax(mask(q k^T / sqrt(E))), z1 = P v.
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H_; ++h) {
      const float* q = qkv1_.data() + b * T * HE3 + h * E_;
      float* P = p1_.data() + (b * H_ + h) * T * T;
      gemm(false, true, T, T, E_, scale, q, HE3, q + HE_, HE3, 0.f, P, T);
      for (int64_t t = 0; t < T; ++t) {
        std::fill(P + t * T + t + 1, P + (t + 1) * T, 0.f);
        softmax(P + t * T, t + 1);
      }
      gemm(false, false, T, E_, T, 1.f, P, T, q + 2 * HE_, HE3, 0.f, z1_.data() + b * T * HE_ + h * E_, HE_);
    }

  // Layer-2 keys and values at every position: x-part (gathered above) + z1 · W_O1 · (W_K2 | W_V2).
  gemm(false, false, B * T, HE2, HE_, 1.f, z1_.data(), HE_, w_okv_.data(), HE2, 1.f, kv2_.data(), HE2);

  // The residual stream at the last position: x + z1 · W_O1.
  const float* W_E = w + layout_.at("embed.W_E").offset;
  const float* W_pos_last = w + layout_.at("pos_embed.W_pos").offset + (T - 1) * D_;
  for (int64_t b = 0; b < B; ++b) {
    const float* e = W_E + tokens[b * T + T - 1] * D_;
    for (int64_t d = 0; d < D_; ++d) r1_[b * D_ + d] = e[d] + W_pos_last[d];
  }
  gemm(false, false, B, D_, HE_, 1.f, z1_.data() + (T - 1) * HE_, T * HE_, w + layout_.at("blocks.0.attn.W_O").offset, D_,
       1.f, r1_.data(), D_);

  // Layer-2 attention, last query only.
  gemm(false, false, B, HE_, D_, 1.f, r1_.data(), D_, w_q2_.data(), HE_, 0.f, q2_.data(), HE_);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H_; ++h) {
      const float* k = kv2_.data() + b * T * HE2 + h * E_;
      const float* q = q2_.data() + b * HE_ + h * E_;
      float* p = p2_.data() + (b * H_ + h) * T;
      cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(T), static_cast<int>(E_), scale, k, static_cast<int>(HE2), q, 1,
                  0.f, p, 1);
      softmax(p, T);
      cblas_sgemv(CblasRowMajor, CblasTrans, static_cast<int>(T), static_cast<int>(E_), 1.f, k + HE_, static_cast<int>(HE2), p,
                  1, 0.f, z2_.data() + b * HE_ + h * E_, 1);
    }
  std::memcpy(mid_.data(), r1_.data(), sizeof(float) * static_cast<size_t>(B * D_));
  gemm(false, false, B, D_, HE_, 1.f, z2_.data(), HE_, w + layout_.at("blocks.1.attn.W_O").offset, D_, 1.f, mid_.data(), D_);

  // MLP and unembedding.
  gemm(false, false, B, M_, D_, 1.f, mid_.data(), D_, w + layout_.at("blocks.1.mlp.W_in").offset, M_, 0.f, pre_.data(), M_);
  const bool gelu = cfg_.activation == "gelu";
  for (int64_t i = 0; i < B * M_; ++i) {
    const float x = pre_[i];
    post_[i] = gelu ? 0.5f * x * (1.f + std::erf(x * kInvSqrt2)) : std::max(x, 0.f);
  }
  std::memcpy(r2_.data(), mid_.data(), sizeof(float) * static_cast<size_t>(B * D_));
  gemm(false, false, B, D_, M_, 1.f, post_.data(), M_, w + layout_.at("blocks.1.mlp.W_out").offset, D_, 1.f, r2_.data(), D_);
  gemm(false, false, B, Vo_, D_, 1.f, r2_.data(), D_, w + layout_.at("unembed.W_U").offset, Vo_, 0.f, logits_.data(), Vo_);
  std::memcpy(logits, logits_.data(), sizeof(float) * static_cast<size_t>(B * Vo_));
}

double BlasTransformer::backward(const float* w, const int64_t* targets, float* grad) {
  const int64_t B = B_, T = T_, W5 = 5 * HE_, HE3 = 3 * HE_, HE2 = 2 * HE_;
  if (B == 0) throw Error("BlasTransformer::backward before forward");
  const float scale = 1.f / std::sqrt(static_cast<float>(E_));
  auto off = [&](const char* name) { return layout_.at(name).offset; };
  std::fill(grad, grad + layout_.total, 0.f);

  // Cross-entropy, mean over the batch: dlogits = (softmax − onehot) / B.
  std::vector<float> dlogits(logits_);
  double loss = 0.0;
  for (int64_t b = 0; b < B; ++b) {
    float* row = dlogits.data() + b * Vo_;
    const int64_t y = targets[b];
    if (y < 0 || y >= Vo_) throw Error("target " + std::to_string(y) + " is outside the output vocabulary");
    const float mx = *std::max_element(row, row + Vo_);
    double sum = 0.0;
    for (int64_t i = 0; i < Vo_; ++i) sum += std::exp(static_cast<double>(row[i] - mx));
    loss += std::log(sum) - static_cast<double>(row[y] - mx);
    softmax(row, Vo_);
    row[y] -= 1.f;
    for (int64_t i = 0; i < Vo_; ++i) row[i] /= static_cast<float>(B);
  }
  loss /= static_cast<double>(B);

  // Unembedding and MLP: r2 = mid + act(mid W_in) W_out, logits = r2 W_U.
  std::vector<float> dr2(static_cast<size_t>(B * D_)), dpost(static_cast<size_t>(B * M_));
  gemm(true, false, D_, Vo_, B, 1.f, r2_.data(), D_, dlogits.data(), Vo_, 0.f, grad + off("unembed.W_U"), Vo_);
  gemm(false, true, B, D_, Vo_, 1.f, dlogits.data(), Vo_, w + off("unembed.W_U"), Vo_, 0.f, dr2.data(), D_);
  gemm(true, false, M_, D_, B, 1.f, post_.data(), M_, dr2.data(), D_, 0.f, grad + off("blocks.1.mlp.W_out"), D_);
  gemm(false, true, B, M_, D_, 1.f, dr2.data(), D_, w + off("blocks.1.mlp.W_out"), D_, 0.f, dpost.data(), M_);
  const bool gelu = cfg_.activation == "gelu";
  for (int64_t i = 0; i < B * M_; ++i) {  // dpre, in place
    const float x = pre_[i];
    dpost[i] *= gelu ? 0.5f * (1.f + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5f * x * x)
                     : (x > 0.f ? 1.f : 0.f);
  }
  std::vector<float>& dmid = dr2;  // the residual passes dr2 through; the MLP adds its part
  gemm(true, false, D_, M_, B, 1.f, mid_.data(), D_, dpost.data(), M_, 0.f, grad + off("blocks.1.mlp.W_in"), M_);
  gemm(false, true, B, D_, M_, 1.f, dpost.data(), M_, w + off("blocks.1.mlp.W_in"), M_, 1.f, dmid.data(), D_);

  // Layer-2 attention: mid = r1 + z2 W_O2.
  std::vector<float> dz2(static_cast<size_t>(B * HE_)), dq2(static_cast<size_t>(B * HE_));
  std::vector<float> dkv2(static_cast<size_t>(B * T * HE2), 0.f), ds(static_cast<size_t>(T));
  gemm(true, false, HE_, D_, B, 1.f, z2_.data(), HE_, dmid.data(), D_, 0.f, grad + off("blocks.1.attn.W_O"), D_);
  gemm(false, true, B, HE_, D_, 1.f, dmid.data(), D_, w + off("blocks.1.attn.W_O"), D_, 0.f, dz2.data(), HE_);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H_; ++h) {
      const float* k = kv2_.data() + b * T * HE2 + h * E_;
      const float* q = q2_.data() + b * HE_ + h * E_;
      const float* p = p2_.data() + (b * H_ + h) * T;
      const float* dz = dz2.data() + b * HE_ + h * E_;
      float* dk = dkv2.data() + b * T * HE2 + h * E_;
      const int iT = static_cast<int>(T), iE = static_cast<int>(E_), ld = static_cast<int>(HE2);
      cblas_sgemv(CblasRowMajor, CblasNoTrans, iT, iE, 1.f, k + HE_, ld, dz, 1, 0.f, ds.data(), 1);  // dp = v dz
      cblas_sger(CblasRowMajor, iT, iE, 1.f, p, 1, dz, 1, dk + HE_, ld);                             // dv = p ⊗ dz
      softmax_backward(p, ds.data(), T);                                                             // ds
      cblas_sgemv(CblasRowMajor, CblasTrans, iT, iE, scale, k, ld, ds.data(), 1, 0.f, dq2.data() + b * HE_ + h * E_, 1);
      cblas_sger(CblasRowMajor, iT, iE, scale, ds.data(), 1, q, 1, dk, ld);  // dk = ds ⊗ q / sqrt(E)
    }

  // q2 = r1 W_Q2; r1 = x_last + z1[:, T-1] W_O1. dr1 = dmid + dq2 W_Q2^T.
  std::vector<float> dwq2(static_cast<size_t>(D_ * HE_)), dr1(dmid);
  gemm(true, false, D_, HE_, B, 1.f, r1_.data(), D_, dq2.data(), HE_, 0.f, dwq2.data(), HE_);
  gemm(false, true, B, D_, HE_, 1.f, dq2.data(), HE_, w_q2_.data(), HE_, 1.f, dr1.data(), D_);
  float* dWO1 = grad + off("blocks.0.attn.W_O");
  std::vector<float> dz1(static_cast<size_t>(B * T * HE_));
  gemm(true, false, HE_, D_, B, 1.f, z1_.data() + (T - 1) * HE_, T * HE_, dr1.data(), D_, 0.f, dWO1, D_);

  // kv2 = x-part + z1 W_okv, W_okv = W_O1 (W_K2 | W_V2).
  std::vector<float> dwokv(static_cast<size_t>(HE_ * HE2));
  gemm(true, false, HE_, HE2, B * T, 1.f, z1_.data(), HE_, dkv2.data(), HE2, 0.f, dwokv.data(), HE2);
  gemm(false, true, B * T, HE_, HE2, 1.f, dkv2.data(), HE2, w_okv_.data(), HE2, 0.f, dz1.data(), HE_);
  gemm(false, true, B, HE_, D_, 1.f, dr1.data(), D_, w + off("blocks.0.attn.W_O"), D_, 1.f, dz1.data() + (T - 1) * HE_,
       T * HE_);
  gemm(false, true, HE_, D_, HE2, 1.f, dwokv.data(), HE2, w_all_.data() + 3 * HE_, W5, 1.f, dWO1, D_);

  // Layer-1 attention backward, per sequence and head -> dqkv1.
  std::vector<float> dqkv1(static_cast<size_t>(B * T * HE3)), dP(static_cast<size_t>(T * T));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H_; ++h) {
      const float* q = qkv1_.data() + b * T * HE3 + h * E_;
      const float* P = p1_.data() + (b * H_ + h) * T * T;
      const float* dz = dz1.data() + b * T * HE_ + h * E_;
      float* dq = dqkv1.data() + b * T * HE3 + h * E_;
      gemm(false, true, T, T, E_, 1.f, dz, HE_, q + 2 * HE_, HE3, 0.f, dP.data(), T);       // dP = dz v^T
      gemm(true, false, T, E_, T, 1.f, P, T, dz, HE_, 0.f, dq + 2 * HE_, HE3);              // dv = P^T dz
      for (int64_t t = 0; t < T; ++t) {
        softmax_backward(P + t * T, dP.data() + t * T, t + 1);
        std::fill(dP.data() + t * T + t + 1, dP.data() + (t + 1) * T, 0.f);  // masked scores get no gradient
      }
      gemm(false, false, T, E_, T, scale, dP.data(), T, q + HE_, HE3, 0.f, dq, HE3);      // dq = dS k / sqrt(E)
      gemm(true, false, T, E_, T, scale, dP.data(), T, q, HE3, 0.f, dq + HE_, HE3);       // dk = dS^T q / sqrt(E)
    }

  // The gathers: every row (token, position) sends its gradient to both tables.
  std::vector<float> dtab_e(static_cast<size_t>(V_ * W5), 0.f), dtab_p(static_cast<size_t>(T * W5), 0.f);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      float* de = dtab_e.data() + tokens_[b * T + t] * W5;
      float* dp = dtab_p.data() + t * W5;
      const float* dqkv = dqkv1.data() + (b * T + t) * HE3;
      const float* dkv = dkv2.data() + (b * T + t) * HE2;
      for (int64_t i = 0; i < HE3; ++i) {
        de[i] += dqkv[i];
        dp[i] += dqkv[i];
      }
      for (int64_t i = 0; i < HE2; ++i) {
        de[HE3 + i] += dkv[i];
        dp[HE3 + i] += dkv[i];
      }
    }
  // tab_e = W_E w_all, tab_p = W_pos[:T] w_all, W_okv = W_O1 (W_K2 | W_V2); r1 also reads
  // W_E[token at T-1] + W_pos[T-1].
  std::vector<float> dw_all(static_cast<size_t>(D_ * W5));
  const float* W_E = w + off("embed.W_E");
  const float* W_pos = w + off("pos_embed.W_pos");
  gemm(true, false, D_, W5, V_, 1.f, W_E, D_, dtab_e.data(), W5, 0.f, dw_all.data(), W5);
  gemm(true, false, D_, W5, T, 1.f, W_pos, D_, dtab_p.data(), W5, 1.f, dw_all.data(), W5);
  gemm(true, false, D_, HE2, HE_, 1.f, w + off("blocks.0.attn.W_O"), D_, dwokv.data(), HE2, 1.f, dw_all.data() + 3 * HE_, W5);
  float* dWE = grad + off("embed.W_E");
  float* dWpos = grad + off("pos_embed.W_pos");
  gemm(false, true, V_, D_, W5, 1.f, dtab_e.data(), W5, w_all_.data(), W5, 0.f, dWE, D_);
  gemm(false, true, T, D_, W5, 1.f, dtab_p.data(), W5, w_all_.data(), W5, 0.f, dWpos, D_);
  for (int64_t b = 0; b < B; ++b) {
    float* de = dWE + tokens_[b * T + T - 1] * D_;
    for (int64_t d = 0; d < D_; ++d) {
      de[d] += dr1[b * D_ + d];
      dWpos[(T - 1) * D_ + d] += dr1[b * D_ + d];
    }
  }
  // Back from [D, heads side by side] to [H, D, E].
  auto unplace = [&](const char* name, const float* src, int64_t ld) {
    float* dst = grad + off(name);
    for (int64_t h = 0; h < H_; ++h)
      for (int64_t d = 0; d < D_; ++d) {
        float* row = dst + (h * D_ + d) * E_;
        const float* s = src + d * ld + h * E_;
        for (int64_t e = 0; e < E_; ++e) row[e] += s[e];
      }
  };
  unplace("blocks.0.attn.W_Q", dw_all.data(), W5);
  unplace("blocks.0.attn.W_K", dw_all.data() + HE_, W5);
  unplace("blocks.0.attn.W_V", dw_all.data() + 2 * HE_, W5);
  unplace("blocks.1.attn.W_K", dw_all.data() + 3 * HE_, W5);
  unplace("blocks.1.attn.W_V", dw_all.data() + 4 * HE_, W5);
  unplace("blocks.1.attn.W_Q", dwq2.data(), HE_);
  return loss;
}

void BlasTransformer::logits(const float* w, const int64_t* tokens, int64_t N, int64_t T, float* out, int64_t chunk) {
  for (int64_t start = 0; start < N; start += chunk) {
    const int64_t b = std::min(chunk, N - start);
    forward(w, tokens + start * T, b, T, out + start * Vo_);
  }
}

void adamw_step(const AdamWConfig& c, int64_t step, int64_t n, float* w, const float* grad, float* exp_avg,
                float* exp_avg_sq) {
  // torch::optim::AdamW (1.13): p *= 1 − lr·wd; m = β1 m + (1−β1) g; v = β2 v + (1−β2) g²;
  // p −= lr / (1−β1^t) · m / (sqrt(v) / sqrt(1−β2^t) + eps).
  const float decay = static_cast<float>(1.0 - c.lr * c.weight_decay);
  const float b1 = static_cast<float>(c.beta1), b2 = static_cast<float>(c.beta2);
  const float one_b1 = static_cast<float>(1.0 - c.beta1), one_b2 = static_cast<float>(1.0 - c.beta2);
  const float step_size = static_cast<float>(c.lr / (1.0 - std::pow(c.beta1, static_cast<double>(step))));
  const float sqrt_bc2 = static_cast<float>(std::sqrt(1.0 - std::pow(c.beta2, static_cast<double>(step))));
  const float eps = static_cast<float>(c.eps);
  for (int64_t i = 0; i < n; ++i) {
    const float g = grad[i];
    w[i] *= decay;
    exp_avg[i] = b1 * exp_avg[i] + one_b1 * g;
    exp_avg_sq[i] = b2 * exp_avg_sq[i] + one_b2 * g * g;
    w[i] -= step_size * exp_avg[i] / (std::sqrt(exp_avg_sq[i]) / sqrt_bc2 + eps);
  }
}

}  // namespace cc::model
