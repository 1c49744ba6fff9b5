#include "model/blas_transformer.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "util/error.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CC_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CC_VECTOR_CLONES
#endif

namespace cc::model {
namespace {

// C[m, n] = alpha * op(A) op(B) + beta * C, row-major; lda/ldb/ldc are row strides.
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
          int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
              static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta,
              c, static_cast<int>(ldc));
}

void resize_all(std::initializer_list<std::vector<float>*> buffers, int64_t n) {
  for (std::vector<float>* v : buffers) v->resize(static_cast<size_t>(n));
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
  if (!cfg.is_two_layer_mlp_last())
    throw Error("the blas engine computes the paper's shape only (2 blocks, an MLP in block 1); this model has " +
                std::to_string(cfg.n_layers) + " block(s): use train.engine libtorch");
  if (cfg.activation != "relu" && cfg.activation != "gelu")
    throw Error("the blas engine knows the activations relu and gelu, not '" + cfg.activation + "'");
}

// The activations of a forward of B sequences of length T. Kept between calls and resized only when
// the shape changes: fresh large blocks cost page faults and zero-fills that were measured to exceed
// the arithmetic.
void BlasTransformer::resize(int64_t B, int64_t T) {
  if (B == B_ && T == T_) return;
  B_ = B;
  T_ = T;
  tokens_.resize(static_cast<size_t>(B * T));
  resize_all({&x_}, B * T * D_);
  resize_all({&qkv1_}, B * T * 3 * HE_);
  resize_all({&p1_}, B * H_ * T * T);
  resize_all({&z1_}, B * T * HE_);
  resize_all({&r1_, &mid_, &r2_}, B * D_);
  resize_all({&q2_, &z2_}, B * HE_);
  resize_all({&a2_, &xbar_}, B * H_ * D_);
  resize_all({&c2_, &zbar_}, B * H_ * HE_);
  resize_all({&p2_}, B * H_ * T);
  resize_all({&pre_, &post_}, B * M_);
  resize_all({&logits_}, B * Vo_);
}

// The backward's scratch for the last forward's shape: the gradients of the activations, the same
// sizes, and of the weight products. Sized by the first backward after a change of shape, so a
// forward-only user (evaluation) never allocates it.
void BlasTransformer::resize_backward() {
  if (B_ == grad_B_ && T_ == grad_T_) return;
  const int64_t B = grad_B_ = B_, T = grad_T_ = T_;
  resize_all({&d_x_}, B * T * D_);
  resize_all({&d_qkv1_}, B * T * 3 * HE_);
  resize_all({&d_z1_}, B * T * HE_);
  resize_all({&d_r1_, &d_r2_}, B * D_);
  resize_all({&d_q2_, &d_z2_}, B * HE_);
  resize_all({&d_a2_, &d_xbar_}, B * H_ * D_);
  resize_all({&d_c2_, &d_zbar_}, B * H_ * HE_);
  resize_all({&d_post_}, B * M_);
  resize_all({&d_logits_}, B * Vo_);
  resize_all({&d_s_}, T);
  resize_all({&d_p_}, T * T);
  resize_all({&d_tab_e_}, V_ * 3 * HE_);
  resize_all({&d_tab_p_}, T * 3 * HE_);
  resize_all({&d_w_all_}, D_ * 3 * HE_);
  resize_all({&d_wq2_, &d_wv2_}, D_ * HE_);
  resize_all({&d_wokv_}, HE_ * HE_);
}

void BlasTransformer::prepare(const float* w, int64_t T) {
  const int64_t W3 = 3 * HE_;
  size_t n = static_cast<size_t>(D_ * HE_);
  w_all_.resize(3 * n);
  w_q2_.resize(n);
  w_v2_.resize(n);
  // [H, D, E] -> columns h*E.. of a [D, *] matrix: one matmul serves every head.
  auto place = [&](const char* name, float* dst, int64_t ld) {
    const float* src = w + layout_.at(name).offset;
    for (int64_t h = 0; h < H_; ++h)
      for (int64_t d = 0; d < D_; ++d) std::memcpy(dst + d * ld + h * E_, src + (h * D_ + d) * E_, sizeof(float) * E_);
  };
  place("blocks.0.attn.W_Q", w_all_.data(), W3);
  place("blocks.0.attn.W_K", w_all_.data() + HE_, W3);
  place("blocks.0.attn.W_V", w_all_.data() + 2 * HE_, W3);
  place("blocks.1.attn.W_Q", w_q2_.data(), HE_);
  place("blocks.1.attn.W_V", w_v2_.data(), HE_);

  tab_e_.resize(static_cast<size_t>(V_ * W3));
  tab_p_.resize(static_cast<size_t>(T * W3));
  w_okv_.resize(static_cast<size_t>(HE_ * HE_));
  gemm(false, false, V_, W3, D_, 1.f, w + layout_.at("embed.W_E").offset, D_, w_all_.data(), W3, 0.f, tab_e_.data(),
       W3);
  gemm(false, false, T, W3, D_, 1.f, w + layout_.at("pos_embed.W_pos").offset, D_, w_all_.data(), W3, 0.f,
       tab_p_.data(), W3);
  gemm(false, false, HE_, HE_, D_, 1.f, w + layout_.at("blocks.0.attn.W_O").offset, D_, w_v2_.data(), HE_, 0.f,
       w_okv_.data(), HE_);
}

// Layer 2 at the last query, without its keys and values at every position. With x_t the
// embedding (token + position) and z1_t layer 1's z, k2_t = x_t W_K + z1_t W_O1 W_K, so
//   score_t = k2_t · q2 = x_t · a + z1_t · c,        a = W_K q2,  c = W_O1 a;
//   z2 = Σ_t p_t v2_t = xbar W_V + zbar (W_O1 W_V),  xbar = Σ_t p_t x_t,  zbar = Σ_t p_t z1_t.
// Per sequence that is O(T·D + D·E) instead of the O(T·HE·2HE) of materialising k2 and v2, the
// largest term of the libtorch training path.
CC_VECTOR_CLONES
void BlasTransformer::forward(const float* w, const int64_t* tokens, int64_t B, int64_t T, float* logits) {
  if (T < 1 || T > cfg_.n_ctx) throw Error("sequence length " + std::to_string(T) + " is outside [1, n_ctx]");
  for (int64_t i = 0; i < B * T; ++i)
    if (tokens[i] < 0 || tokens[i] >= V_)
      throw Error("token id " + std::to_string(tokens[i]) + " is outside the vocabulary");
  resize(B, T);
  prepare(w, T);
  std::memcpy(tokens_.data(), tokens, sizeof(int64_t) * static_cast<size_t>(B * T));
  embed(w);
  attention1();
  attention2(w);
  mlp_unembed(w);
  std::memcpy(logits, logits_.data(), sizeof(float) * static_cast<size_t>(B * Vo_));
}

// x = W_E[token] + W_pos[t]; layer-1 q, k, v gathered from the tables: row (token, position).
CC_VECTOR_CLONES
void BlasTransformer::embed(const float* w) {
  const int64_t B = B_, T = T_, W3 = 3 * HE_;
  const float* W_E = w + off("embed.W_E");
  const float* W_pos = w + off("pos_embed.W_pos");
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      const int64_t tok = tokens_[b * T + t];
      float* x = x_.data() + (b * T + t) * D_;
      for (int64_t d = 0; d < D_; ++d) x[d] = W_E[tok * D_ + d] + W_pos[t * D_ + d];
      const float* e = tab_e_.data() + tok * W3;
      const float* p = tab_p_.data() + t * W3;
      float* qkv = qkv1_.data() + (b * T + t) * W3;
      for (int64_t i = 0; i < W3; ++i) qkv[i] = e[i] + p[i];
    }
}

// Layer-1 causal attention, per sequence and head: P = softmax(mask(q k^T / sqrt(E))), z1 = P v.
CC_VECTOR_CLONES
void BlasTransformer::attention1() {
  const int64_t B = B_, T = T_, W3 = 3 * HE_;
  const float scale = 1.f / std::sqrt(static_cast<float>(E_));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H_; ++h) {
      const float* q = qkv1_.data() + b * T * W3 + h * E_;
      float* P = p1_.data() + (b * H_ + h) * T * T;
      gemm(false, true, T, T, E_, scale, q, W3, q + HE_, W3, 0.f, P, T);
      for (int64_t t = 0; t < T; ++t) {
        std::fill(P + t * T + t + 1, P + (t + 1) * T, 0.f);
        softmax(P + t * T, t + 1);
      }
      gemm(false, false, T, E_, T, 1.f, P, T, q + 2 * HE_, W3, 0.f, z1_.data() + b * T * HE_ + h * E_, HE_);
    }
}

// The residual stream at the last position, r1 = x + z1 W_O1, the layer-2 attention of its query
// (a = W_K q2, c = W_O1 a per head; scores x·a + z1·c, pattern p, sums xbar and zbar: see above),
// z2 = xbar W_V + zbar W_O1 W_V, and mid = r1 + z2 W_O2.
CC_VECTOR_CLONES
void BlasTransformer::attention2(const float* w) {
  const int64_t B = B_, T = T_, HD = H_ * D_, HHE = H_ * HE_;
  const int iT = static_cast<int>(T), iD = static_cast<int>(D_), iHE = static_cast<int>(HE_);
  const float scale = 1.f / std::sqrt(static_cast<float>(E_));
  const float* W_O1 = w + off("blocks.0.attn.W_O");
  const float* W_K2 = w + off("blocks.1.attn.W_K");
  const float* W_V2 = w + off("blocks.1.attn.W_V");
  for (int64_t b = 0; b < B; ++b)
    std::memcpy(r1_.data() + b * D_, x_.data() + (b * T + T - 1) * D_, sizeof(float) * D_);
  gemm(false, false, B, D_, HE_, 1.f, z1_.data() + (T - 1) * HE_, T * HE_, W_O1, D_, 1.f, r1_.data(), D_);
  gemm(false, false, B, HE_, D_, 1.f, r1_.data(), D_, w_q2_.data(), HE_, 0.f, q2_.data(), HE_);
  for (int64_t h = 0; h < H_; ++h) {
    gemm(false, true, B, D_, E_, 1.f, q2_.data() + h * E_, HE_, W_K2 + h * D_ * E_, E_, 0.f, a2_.data() + h * D_, HD);
    gemm(false, true, B, HE_, D_, 1.f, a2_.data() + h * D_, HD, W_O1, D_, 0.f, c2_.data() + h * HE_, HHE);
  }
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H_; ++h) {
      const float* X = x_.data() + b * T * D_;
      const float* Z = z1_.data() + b * T * HE_;
      const int64_t bh = b * H_ + h;
      float* p = p2_.data() + bh * T;
      cblas_sgemv(CblasRowMajor, CblasNoTrans, iT, iD, scale, X, iD, a2_.data() + bh * D_, 1, 0.f, p, 1);
      cblas_sgemv(CblasRowMajor, CblasNoTrans, iT, iHE, scale, Z, iHE, c2_.data() + bh * HE_, 1, 1.f, p, 1);
      softmax(p, T);
      cblas_sgemv(CblasRowMajor, CblasTrans, iT, iD, 1.f, X, iD, p, 1, 0.f, xbar_.data() + bh * D_, 1);
      cblas_sgemv(CblasRowMajor, CblasTrans, iT, iHE, 1.f, Z, iHE, p, 1, 0.f, zbar_.data() + bh * HE_, 1);
    }
  for (int64_t h = 0; h < H_; ++h) {  // z2 = xbar W_V + zbar W_O1 W_V
    gemm(false, false, B, E_, D_, 1.f, xbar_.data() + h * D_, HD, W_V2 + h * D_ * E_, E_, 0.f, z2_.data() + h * E_,
         HE_);
    gemm(false, false, B, E_, HE_, 1.f, zbar_.data() + h * HE_, HHE, w_okv_.data() + h * E_, HE_, 1.f,
         z2_.data() + h * E_, HE_);
  }
  std::memcpy(mid_.data(), r1_.data(), sizeof(float) * static_cast<size_t>(B * D_));
  gemm(false, false, B, D_, HE_, 1.f, z2_.data(), HE_, w + off("blocks.1.attn.W_O"), D_, 1.f, mid_.data(), D_);
}

// MLP and unembedding: r2 = mid + act(mid W_in) W_out, logits = r2 W_U.
CC_VECTOR_CLONES
void BlasTransformer::mlp_unembed(const float* w) {
  const int64_t B = B_;
  gemm(false, false, B, M_, D_, 1.f, mid_.data(), D_, w + off("blocks.1.mlp.W_in"), M_, 0.f, pre_.data(), M_);
  const bool gelu = cfg_.activation == "gelu";
  for (int64_t i = 0; i < B * M_; ++i) {
    const float x = pre_[i];
    post_[i] = gelu ? 0.5f * x * (1.f + std::erf(x * kInvSqrt2)) : std::max(x, 0.f);
  }
  std::memcpy(r2_.data(), mid_.data(), sizeof(float) * static_cast<size_t>(B * D_));
  gemm(false, false, B, D_, M_, 1.f, post_.data(), M_, w + off("blocks.1.mlp.W_out"), D_, 1.f, r2_.data(), D_);
  gemm(false, false, B, Vo_, D_, 1.f, r2_.data(), D_, w + off("unembed.W_U"), Vo_, 0.f, logits_.data(), Vo_);
}

// The backward runs the forward's stages in reverse; each writes the gradients of its own weights
// (accumulating into grad) and leaves the gradient of its input in the d_* scratch for the next.
CC_VECTOR_CLONES
double BlasTransformer::backward(const float* w, const int64_t* targets, float* grad) {
  if (B_ == 0) throw Error("BlasTransformer::backward before forward");
  resize_backward();
  std::fill(grad, grad + layout_.total, 0.f);  // every gemm below accumulates into grad (beta = 1)
  const double loss = loss_backward(targets);
  mlp_unembed_backward(w, grad);
  value2_backward(w, grad);
  pattern2_backward();
  query2_backward(w, grad);
  attention1_backward();
  embed_backward(w, grad);
  return loss;
}

// Cross-entropy, mean over the batch: dlogits = (softmax − onehot) / B.
CC_VECTOR_CLONES
double BlasTransformer::loss_backward(const int64_t* targets) {
  const int64_t B = B_;
  std::vector<float>& dlogits = d_logits_;
  dlogits.assign(logits_.begin(), logits_.end());
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
  return loss / static_cast<double>(B);
}

// Unembedding and MLP (r2 = mid + act(mid W_in) W_out, logits = r2 W_U), then mid = r1 + z2 W_O2:
// leaves dmid in d_r2_ and dz2 in d_z2_.
CC_VECTOR_CLONES
void BlasTransformer::mlp_unembed_backward(const float* w, float* grad) {
  const int64_t B = B_;
  std::vector<float>&dlogits = d_logits_, &dr2 = d_r2_, &dpost = d_post_;
  gemm(true, false, D_, Vo_, B, 1.f, r2_.data(), D_, dlogits.data(), Vo_, 1.f, grad + off("unembed.W_U"), Vo_);
  gemm(false, true, B, D_, Vo_, 1.f, dlogits.data(), Vo_, w + off("unembed.W_U"), Vo_, 0.f, dr2.data(), D_);
  gemm(true, false, M_, D_, B, 1.f, post_.data(), M_, dr2.data(), D_, 1.f, grad + off("blocks.1.mlp.W_out"), D_);
  gemm(false, true, B, M_, D_, 1.f, dr2.data(), D_, w + off("blocks.1.mlp.W_out"), D_, 0.f, dpost.data(), M_);
  const bool gelu = cfg_.activation == "gelu";
  for (int64_t i = 0; i < B * M_; ++i) {  // dpre, in place
    const float x = pre_[i];
    dpost[i] *= gelu ? 0.5f * (1.f + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5f * x * x)
                     : (x > 0.f ? 1.f : 0.f);
  }
  std::vector<float>& dmid = dr2;  // the residual passes dr2 through; the MLP adds its part
  gemm(true, false, D_, M_, B, 1.f, mid_.data(), D_, dpost.data(), M_, 1.f, grad + off("blocks.1.mlp.W_in"), M_);
  gemm(false, true, B, D_, M_, 1.f, dpost.data(), M_, w + off("blocks.1.mlp.W_in"), M_, 1.f, dmid.data(), D_);
  gemm(true, false, HE_, D_, B, 1.f, z2_.data(), HE_, dmid.data(), D_, 1.f, grad + off("blocks.1.attn.W_O"), D_);
  gemm(false, true, B, HE_, D_, 1.f, dmid.data(), D_, w + off("blocks.1.attn.W_O"), D_, 0.f, d_z2_.data(), HE_);
}

// z2 = xbar W_V + zbar W_okv (W_okv = W_O1 W_V), per head: dxbar, dzbar, dW_okv and W_V's part.
CC_VECTOR_CLONES
void BlasTransformer::value2_backward(const float* w, float* grad) {
  const int64_t B = B_, HD = H_ * D_, HHE = H_ * HE_;
  const float* W_V2 = w + off("blocks.1.attn.W_V");
  float* dWV2 = grad + off("blocks.1.attn.W_V");
  std::fill(d_wokv_.begin(), d_wokv_.end(), 0.f);
  for (int64_t h = 0; h < H_; ++h) {
    const float* dz = d_z2_.data() + h * E_;
    gemm(true, false, D_, E_, B, 1.f, xbar_.data() + h * D_, HD, dz, HE_, 1.f, dWV2 + h * D_ * E_, E_);
    gemm(true, false, HE_, E_, B, 1.f, zbar_.data() + h * HE_, HHE, dz, HE_, 0.f, d_wokv_.data() + h * E_, HE_);
    gemm(false, true, B, D_, E_, 1.f, dz, HE_, W_V2 + h * D_ * E_, E_, 0.f, d_xbar_.data() + h * D_, HD);
    gemm(false, true, B, HE_, E_, 1.f, dz, HE_, w_okv_.data() + h * E_, HE_, 0.f, d_zbar_.data() + h * HE_, HHE);
  }
}

// The attention of the last query, per sequence and head: scores x·a + z1·c, pattern p, and the
// weighted sums xbar, zbar. d_x_ and d_z1_ start collecting the gradient of every position's x and z1;
// d_a2_ and d_c2_ get the scores' gradient with respect to a and c.
CC_VECTOR_CLONES
void BlasTransformer::pattern2_backward() {
  const int64_t B = B_, T = T_;
  const int iT = static_cast<int>(T), iD = static_cast<int>(D_), iHE = static_cast<int>(HE_);
  const float scale = 1.f / std::sqrt(static_cast<float>(E_));
  std::vector<float>&dxbar = d_xbar_, &dzbar = d_zbar_, &da = d_a2_, &dc = d_c2_, &ds = d_s_;
  std::fill(d_x_.begin(), d_x_.end(), 0.f);
  std::fill(d_z1_.begin(), d_z1_.end(), 0.f);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H_; ++h) {
      const float* X = x_.data() + b * T * D_;
      const float* Z = z1_.data() + b * T * HE_;
      float* dX = d_x_.data() + b * T * D_;
      float* dZ = d_z1_.data() + b * T * HE_;
      const int64_t bh = b * H_ + h;
      const float* p = p2_.data() + bh * T;
      cblas_sgemv(CblasRowMajor, CblasNoTrans, iT, iD, 1.f, X, iD, dxbar.data() + bh * D_, 1, 0.f, ds.data(), 1);
      cblas_sgemv(CblasRowMajor, CblasNoTrans, iT, iHE, 1.f, Z, iHE, dzbar.data() + bh * HE_, 1, 1.f, ds.data(), 1);
      cblas_sger(CblasRowMajor, iT, iD, 1.f, p, 1, dxbar.data() + bh * D_, 1, dX, iD);
      cblas_sger(CblasRowMajor, iT, iHE, 1.f, p, 1, dzbar.data() + bh * HE_, 1, dZ, iHE);
      softmax_backward(p, ds.data(), T);
      cblas_sgemv(CblasRowMajor, CblasTrans, iT, iD, scale, X, iD, ds.data(), 1, 0.f, da.data() + bh * D_, 1);
      cblas_sgemv(CblasRowMajor, CblasTrans, iT, iHE, scale, Z, iHE, ds.data(), 1, 0.f, dc.data() + bh * HE_, 1);
      cblas_sger(CblasRowMajor, iT, iD, scale, ds.data(), 1, a2_.data() + bh * D_, 1, dX, iD);
      cblas_sger(CblasRowMajor, iT, iHE, scale, ds.data(), 1, c2_.data() + bh * HE_, 1, dZ, iHE);
    }
}

// c = W_O1 a, a = W_K q2 (per head), W_okv = W_O1 W_V; then q2 = r1 W_Q2 and r1 = x[T-1] + z1[T-1] W_O1
// (dr1 = dmid + dq2 W_Q2^T): W_O1's, W_K2's, W_Q2's and W_V2's parts, and the last position's dx, dz1.
CC_VECTOR_CLONES
void BlasTransformer::query2_backward(const float* w, float* grad) {
  const int64_t B = B_, T = T_, HD = H_ * D_, HHE = H_ * HE_;
  const float* W_O1 = w + off("blocks.0.attn.W_O");
  const float* W_K2 = w + off("blocks.1.attn.W_K");
  float* dWO1 = grad + off("blocks.0.attn.W_O");
  std::vector<float>&da = d_a2_, &dc = d_c2_, &dq2 = d_q2_, &dwokv = d_wokv_;
  for (int64_t h = 0; h < H_; ++h) {
    gemm(true, false, HE_, D_, B, 1.f, dc.data() + h * HE_, HHE, a2_.data() + h * D_, HD, 1.f, dWO1, D_);
    gemm(false, false, B, D_, HE_, 1.f, dc.data() + h * HE_, HHE, W_O1, D_, 1.f, da.data() + h * D_, HD);
    gemm(true, false, D_, E_, B, 1.f, da.data() + h * D_, HD, q2_.data() + h * E_, HE_, 1.f,
         grad + off("blocks.1.attn.W_K") + h * D_ * E_, E_);
    gemm(false, false, B, E_, D_, 1.f, da.data() + h * D_, HD, W_K2 + h * D_ * E_, E_, 0.f, dq2.data() + h * E_, HE_);
  }
  gemm(false, true, HE_, D_, HE_, 1.f, dwokv.data(), HE_, w_v2_.data(), HE_, 1.f, dWO1, D_);
  gemm(true, false, D_, HE_, HE_, 1.f, W_O1, D_, dwokv.data(), HE_, 0.f, d_wv2_.data(), HE_);

  std::vector<float>&dwq2 = d_wq2_, &dr1 = d_r1_;
  dr1.assign(d_r2_.begin(), d_r2_.end());  // dmid
  gemm(true, false, D_, HE_, B, 1.f, r1_.data(), D_, dq2.data(), HE_, 0.f, dwq2.data(), HE_);
  gemm(false, true, B, D_, HE_, 1.f, dq2.data(), HE_, w_q2_.data(), HE_, 1.f, dr1.data(), D_);
  gemm(true, false, HE_, D_, B, 1.f, z1_.data() + (T - 1) * HE_, T * HE_, dr1.data(), D_, 1.f, dWO1, D_);
  gemm(false, true, B, HE_, D_, 1.f, dr1.data(), D_, W_O1, D_, 1.f, d_z1_.data() + (T - 1) * HE_, T * HE_);
  for (int64_t b = 0; b < B; ++b) {
    float* dX = d_x_.data() + (b * T + T - 1) * D_;
    for (int64_t d = 0; d < D_; ++d) dX[d] += dr1[b * D_ + d];
  }
}

// Layer-1 attention backward, per sequence and head: dz1 -> d_qkv1_.
CC_VECTOR_CLONES
void BlasTransformer::attention1_backward() {
  const int64_t B = B_, T = T_, W3 = 3 * HE_;
  const float scale = 1.f / std::sqrt(static_cast<float>(E_));
  std::vector<float>& dP = d_p_;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H_; ++h) {
      const float* q = qkv1_.data() + b * T * W3 + h * E_;
      const float* P = p1_.data() + (b * H_ + h) * T * T;
      const float* dz = d_z1_.data() + b * T * HE_ + h * E_;
      float* dq = d_qkv1_.data() + b * T * W3 + h * E_;
      gemm(false, true, T, T, E_, 1.f, dz, HE_, q + 2 * HE_, W3, 0.f, dP.data(), T);  // dP = dz v^T
      gemm(true, false, T, E_, T, 1.f, P, T, dz, HE_, 0.f, dq + 2 * HE_, W3);         // dv = P^T dz
      for (int64_t t = 0; t < T; ++t) {
        softmax_backward(P + t * T, dP.data() + t * T, t + 1);
        std::fill(dP.data() + t * T + t + 1, dP.data() + (t + 1) * T, 0.f);  // masked scores get no gradient
      }
      gemm(false, false, T, E_, T, scale, dP.data(), T, q + HE_, W3, 0.f, dq, W3);  // dq = dS k / sqrt(E)
      gemm(true, false, T, E_, T, scale, dP.data(), T, q, W3, 0.f, dq + HE_, W3);   // dk = dS^T q / sqrt(E)
    }
}

// The gathers: every (token, position) sends its q1/k1/v1 gradient to both tables, and its x
// gradient to W_E and W_pos directly; the tables (tab_e = W_E w_all, tab_p = W_pos[:T] w_all) send
// theirs to W_E, W_pos and w_all, which goes back to the heads' W_Q1, W_K1, W_V1 (with W_Q2's and
// W_V2's collected above).
CC_VECTOR_CLONES
void BlasTransformer::embed_backward(const float* w, float* grad) {
  const int64_t B = B_, T = T_, W3 = 3 * HE_;
  std::vector<float>&dtab_e = d_tab_e_, &dtab_p = d_tab_p_;
  std::fill(dtab_e.begin(), dtab_e.end(), 0.f);
  std::fill(dtab_p.begin(), dtab_p.end(), 0.f);
  float* dWE = grad + off("embed.W_E");
  float* dWpos = grad + off("pos_embed.W_pos");
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      const int64_t tok = tokens_[b * T + t];
      float* de = dtab_e.data() + tok * W3;
      float* dp = dtab_p.data() + t * W3;
      const float* dqkv = d_qkv1_.data() + (b * T + t) * W3;
      for (int64_t i = 0; i < W3; ++i) {
        de[i] += dqkv[i];
        dp[i] += dqkv[i];
      }
      const float* dX = d_x_.data() + (b * T + t) * D_;
      for (int64_t d = 0; d < D_; ++d) {
        dWE[tok * D_ + d] += dX[d];
        dWpos[t * D_ + d] += dX[d];
      }
    }
  std::vector<float>& dw_all = d_w_all_;
  gemm(true, false, D_, W3, V_, 1.f, w + off("embed.W_E"), D_, dtab_e.data(), W3, 0.f, dw_all.data(), W3);
  gemm(true, false, D_, W3, T, 1.f, w + off("pos_embed.W_pos"), D_, dtab_p.data(), W3, 1.f, dw_all.data(), W3);
  gemm(false, true, V_, D_, W3, 1.f, dtab_e.data(), W3, w_all_.data(), W3, 1.f, dWE, D_);
  gemm(false, true, T, D_, W3, 1.f, dtab_p.data(), W3, w_all_.data(), W3, 1.f, dWpos, D_);

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
  unplace("blocks.0.attn.W_Q", dw_all.data(), W3);
  unplace("blocks.0.attn.W_K", dw_all.data() + HE_, W3);
  unplace("blocks.0.attn.W_V", dw_all.data() + 2 * HE_, W3);
  unplace("blocks.1.attn.W_Q", d_wq2_.data(), HE_);
  unplace("blocks.1.attn.W_V", d_wv2_.data(), HE_);
}

void BlasTransformer::logits(const float* w, const int64_t* tokens, int64_t N, int64_t T, float* out, int64_t chunk) {
  for (int64_t start = 0; start < N; start += chunk) {
    const int64_t b = std::min(chunk, N - start);
    forward(w, tokens + start * T, b, T, out + start * Vo_);
  }
}

// Built twice, for the x86-64 baseline (SSE2, 4 lanes) and for AVX2 (8 lanes), chosen when the
// program loads (GCC's function multi-versioning), so the binary runs on any x86-64. Every operation
// here is elementwise and correctly rounded (no FMA: AVX2 alone does not enable it, and sqrt and
// division are exact in IEEE arithmetic at any width), so both builds give the same bits.
// Vectorising sqrt needs -fno-math-errno (set for this file in lib/model/CMakeLists.txt).
CC_VECTOR_CLONES
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

double clip_grad_norm(double max_norm, int64_t n, float* grad) {
  double sum_sq = 0.0;  // in double: libtorch sums per tensor in float; the two agree to rounding
  for (int64_t i = 0; i < n; ++i) sum_sq += static_cast<double>(grad[i]) * grad[i];
  const double norm = std::sqrt(sum_sq);
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0) {
    const float c = static_cast<float>(coef);
    for (int64_t i = 0; i < n; ++i) grad[i] *= c;
  }
  return norm;
}

}  // namespace cc::model
