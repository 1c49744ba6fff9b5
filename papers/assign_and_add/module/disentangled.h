#pragma once
// The §7 "disentangled" model, as read in the paper's §7 and Appendix C: orthonormal embeddings,
// layer 1 already done (each assignment constant carries its variable's tag Φ1 e_v, the '='
// position carries Φ1 e_{v*}), one trainable matrix W = W_KQ² and an idealised MLP that adds
// modulo N. No training: the kinds compute its population gradient at W_0 by Monte Carlo.
//
//   residual basis (one-hot, orthonormal), D = N + V + 1 + T + V:
//     e_n (numbers) | e_v (variables) | e_pad | p_t (positions) | Φ1 e_v (variable tags)
//   one-variable sequence, positions 0..T-1 (the paper's 1..T):
//     t in τ (k assignment slots among 0..T-4): p_t + e_{n_t} + Φ1 e_{v_t}
//     other t <= T-4: p_t + e_pad
//     T-3: p + e_{v*} (the operand variable)   T-2: p + e_m (the constant)   T-1: p + Φ1 e_{v*} ('=')
//     target y = (n_{t*} + m) mod N, t* the slot that assigns v*
//   F(X) = α M(Φ2 X softmax(X^T W x_T)), Φ2 e_n = (cos 2πfn/N, sin 2πfn/N)_{f=1..(N-1)/2}, Φ2 = 0 on the rest
//   M_k(z) = (1/N) Σ_f Re[c_f² e^{-2πi f k/N}], c_f = z_cos,f + i z_sin,f   ("fourier_square":
//     quadratic; for z = Φ2 e_a + Φ2 e_b its cross term peaks at k = a + b mod N)
//   W_0 = β (p_{T-3} + p_{T-2}) p_{T-1}^T + β Σ_n e_n p_{T-1}^T   (the 0-variable mechanism)
//   G*  = Σ_v Φ1 e_v (Φ1 e_v + p_{T-1})^T                       (the associative memory)
#include <torch/types.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace cc::assign_and_add::theory {

struct Sizes {
  int N = 59, V = 12, T = 16;
  int k_min = 1, k_max = 4;  // assignments per sequence (the task's assignments_min/max)
  double beta = 0;           // W_0's scale; <= 0 means ln(T), which makes ρ2 = Θ(1/T) as the paper assumes
  double alpha = 1e-3;       // the small output scale
  bool scrambled = false;    // negative control: each constant carries a random variable's tag
  bool unlinked = false;     // negative control: the label is (y + d) mod N, d uniform in 1..N-1
};

// Every x_t is the sum of two or three basis vectors, so a batch keeps their indices, not X: a product
// with X is a gather or a scatter over 3 B T entries instead of a pass over B T D mostly zero doubles
// (Model::dense builds X where a reference needs it).
struct Batch {
  torch::Tensor ids;     // [B, T, 3] int64: the basis vectors x_t sums, ascending; D (no vector) fills the rest
  torch::Tensor y;       // [B] target class
  torch::Tensor target;  // [B] t*, the position of the operand variable's assignment
  torch::Tensor slots;   // [B, T] bool: assignment positions (τ)
  torch::Tensor k;       // [B] number of assignments
};

// Appendix C's expansion of the gradient. M_k(z) = B_k(z, z) with B_k bilinear, z = Σ_t σ_t Φ2 x_t, so
//   dL/dW = α E[Σ_k (p̂_k − 1{y=k}) Σ_{t,t'} σ_t σ_t' c_k(t, t') (x_t − x̄) x_T^T],  c_k(t, t') = 2 B_k(Φ2 x_t, Φ2 x_t').
// The correct-label part (weight −1 at k = y) is split by which pairs hold t*, the position of the
// operand's assignment; T−2 (0-based) holds the constant m. Every matrix is in -dL/dW's sign, [D, D].
struct PairSplit {
  torch::Tensor expansion;     // -dL/dW rebuilt from every pair and every label (equals -gradient())
  torch::Tensor t_star;        // correct label, every pair (t*, t') or (t, t*)
  torch::Tensor t_star_twice;  // (t*, t*): Appendix C's ρ2² δ_{k,n,n} term
  torch::Tensor constructive;  // (t*, T−2) and (T−2, t*): the ρ1 ρ2 δ_{k,m,n} term
  torch::Tensor other_pairs;   // correct label, the pairs without t*
};

class Model {
 public:
  explicit Model(Sizes s);
  const Sizes& sizes() const { return s_; }
  int dim() const { return D_; }
  double beta() const { return beta_; }

  torch::Tensor W0() const;      // [D, D]
  torch::Tensor G_star() const;  // [D, D]
  Batch sample(int64_t n, uint64_t seed,
               uint64_t index) const;         // one-variable sequences: Rng(seed, "disentangled_s7", index)
  torch::Tensor dense(const Batch& b) const;  // [B, T, D] float64: X, the residual stream after layer 1

  torch::Tensor scores(const Batch& b, const torch::Tensor& W) const;                   // [B, T]: x_t^T W x_T
  torch::Tensor logits(const Batch& b, const torch::Tensor& W) const;                   // [B, N], differentiable in W
  torch::Tensor logits_from_scores(const Batch& b, const torch::Tensor& scores) const;  // [B, N] from [B, T]
  torch::Tensor loss(const Batch& b, const torch::Tensor& W) const;                     // mean cross-entropy
  torch::Tensor gradient(const Batch& b, const torch::Tensor& W) const;                 // dL/dW at W, [D, D]
  // dL/dW expanded as Appendix C writes it, by pairs (t, t') of the MLP's bilinear form (see PairSplit).
  PairSplit gradient_by_pair(const Batch& b, const torch::Tensor& W) const;
  // The same, from the table of every pair's coefficient σ_t σ_t' c(t, t') [B, T, T] with a mask per
  // class: Appendix C's sum as written, the reference gradient_by_pair is tested against (it is ~10x
  // slower: a 16 x 29 product per sequence and pair table).
  PairSplit gradient_by_pair_table(const Batch& b, const torch::Tensor& W) const;
  // dL/dW split by key position: s_t = x_t^T W x_T, so dL/dW = Σ_b Σ_t (∂L/∂s_bt) x_bt x_bT^T. Returns
  // {the whole sum, the terms with t = t* alone} (t*: the position of the operand's assignment).
  std::pair<torch::Tensor, torch::Tensor> gradient_by_key(const Batch& b, const torch::Tensor& W) const;

 private:
  Sizes s_;
  int D_;
  double beta_;
  torch::Tensor phi2_;       // [D, N-1]
  torch::Tensor cos_, sin_;  // [(N-1)/2, N]
  int num(int n) const { return n; }
  int var(int v) const { return s_.N + v; }
  int pad() const { return s_.N + s_.V; }
  int pos(int t) const { return s_.N + s_.V + 1 + t; }
  int tag(int v) const { return s_.N + s_.V + 1 + s_.T + v; }
};

// cos(a, b) and the share of |a|^2 along b (cos^2), on flattened matrices.
double cosine(const torch::Tensor& a, const torch::Tensor& b);

}  // namespace cc::assign_and_add::theory
