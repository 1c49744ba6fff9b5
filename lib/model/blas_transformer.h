#pragma once
// The training path of Transformer::forward_last (model/transformer.h) written on BLAS calls, with a
// hand-written backward, the way karpathy/llm.c writes GPT-2: the CPU fast path for training
// (train.engine: blas) and for evaluation. Float32, CPU only, torch-free (it compiles in seconds).
//
// Transformer, through libtorch autograd, stays the reference and the GPU path:
// tests/test_blas_engine.cpp checks this forward and its gradients against it, and
// tests/test_train.cpp a 200-step trajectory. The arithmetic is the same function, rearranged further
// by associativity (layer-1 q/k/v from tables W_E·W and W_pos·W as in the libtorch path; layer 2's
// keys and values never materialised: see blas_transformer.cpp), so the summation order differs and
// results agree to float rounding, not bitwise. The libtorch engine stays selectable, and is the one
// every committed fixture was trained with.
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/param_layout.h"

namespace cc::model {

class BlasTransformer {
 public:
  explicit BlasTransformer(const ModelConfig& cfg);
  const ParamLayout& layout() const { return layout_; }
  const ModelConfig& config() const { return cfg_; }

  // tokens [B, T] (row-major, values < d_vocab, T <= n_ctx) -> logits [B, d_vocab_out], with
  // parameters w (layout()). Keeps what backward() needs.
  void forward(const float* w, const int64_t* tokens, int64_t B, int64_t T, float* logits);

  // The mean cross-entropy of the last forward's logits against targets [B], and its gradient
  // with respect to every parameter, written (not added) to grad (layout()).
  double backward(const float* w, const int64_t* targets, float* grad);

  // Forward only, in chunks of `chunk` sequences so memory stays bounded: tokens [N, T] -> logits
  // [N, d_vocab_out].
  void logits(const float* w, const int64_t* tokens, int64_t N, int64_t T, float* out, int64_t chunk = 256);

 private:
  void prepare(const float* w, int64_t T);  // the per-step weight products (tables, W_O1·W_V2)
  void resize(int64_t B, int64_t T);
  void resize_backward();
  int64_t off(const char* name) const { return layout_.at(name).offset; }  // a parameter's place in w
  // The forward's stages, in order (blas_transformer.cpp), on the batch resize() set up.
  void embed(const float* w);
  void attention1();
  void attention2(const float* w);
  void mlp_unembed(const float* w);
  // The backward's, in order: each adds its weights' gradients to grad and leaves its input's in d_*.
  double loss_backward(const int64_t* targets);
  void mlp_unembed_backward(const float* w, float* grad);
  void value2_backward(const float* w, float* grad);
  void pattern2_backward();
  void query2_backward(const float* w, float* grad);
  void attention1_backward();
  void embed_backward(const float* w, float* grad);

  ModelConfig cfg_;
  ParamLayout layout_;
  int64_t D_, H_, E_, HE_, M_, V_, Vo_;
  int64_t B_ = 0, T_ = 0;            // the last forward's shape
  int64_t grad_B_ = 0, grad_T_ = 0;  // the shape the backward's scratch is sized for
  // Weight products, recomputed by every forward.
  std::vector<float> w_all_;  // [D, 3HE]: W_Q1 | W_K1 | W_V1, heads side by side
  std::vector<float> tab_e_;  // [V, 3HE] = W_E · w_all
  std::vector<float> tab_p_;  // [T, 3HE] = W_pos[:T] · w_all
  std::vector<float> w_q2_;   // [D, HE]
  std::vector<float> w_v2_;   // [D, HE]
  std::vector<float> w_okv_;  // [HE, HE] = W_O1 · W_V2
  // Activations of the last forward (B sequences).
  std::vector<int64_t> tokens_;  // [B, T]
  std::vector<float> x_;         // [B, T, D] W_E[token] + W_pos[t]
  std::vector<float> qkv1_;      // [B, T, 3HE] layer-1 q | k | v
  std::vector<float> p1_;        // [B, H, T, T] layer-1 pattern
  std::vector<float> z1_;        // [B, T, HE]
  std::vector<float> r1_;        // [B, D] blocks.1.hook_resid_pre at the last position
  std::vector<float> q2_;        // [B, HE]
  std::vector<float> a2_;        // [B, H, D] W_K2 q2: the layer-2 score of x_t is x_t · a
  std::vector<float> c2_;        // [B, H, HE] W_O1 a: the score of z1_t is z1_t · c
  std::vector<float> p2_;        // [B, H, T] layer-2 pattern of the last query
  std::vector<float> xbar_;      // [B, H, D] Σ_t p_t x_t
  std::vector<float> zbar_;      // [B, H, HE] Σ_t p_t z1_t
  std::vector<float> z2_;        // [B, HE]
  std::vector<float> mid_;       // [B, D] blocks.1.hook_resid_mid
  std::vector<float> pre_;       // [B, M] blocks.1.mlp.hook_pre
  std::vector<float> post_;      // [B, M] blocks.1.mlp.hook_post
  std::vector<float> r2_;        // [B, D] blocks.1.hook_resid_post
  std::vector<float> logits_;    // [B, Vo]
  // Backward scratch (d_x_: the gradient with respect to x_), kept between steps.
  std::vector<float> d_logits_, d_r2_, d_post_, d_z2_, d_xbar_, d_zbar_, d_a2_, d_c2_, d_s_, d_q2_, d_r1_, d_x_, d_z1_,
      d_qkv1_, d_p_, d_tab_e_, d_tab_p_, d_w_all_, d_wq2_, d_wokv_, d_wv2_;
};

// AdamW as torch::optim::AdamW computes it (decoupled weight decay, bias correction), over one
// flat buffer: one pass instead of one per parameter tensor.
struct AdamWConfig {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 1e-2;
};
void adamw_step(const AdamWConfig& c, int64_t step, int64_t n, float* w, const float* grad, float* exp_avg,
                float* exp_avg_sq);
// torch::nn::utils::clip_grad_norm_ over one flat buffer: when the gradient's 2-norm exceeds
// max_norm, scale it by max_norm / (norm + 1e-6). Returns the norm before clipping.
double clip_grad_norm(double max_norm, int64_t n, float* grad);

}  // namespace cc::model
