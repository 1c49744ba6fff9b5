#include "papers/assign_and_add/module/disentangled.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "papers/assign_and_add/module/task/rng.h"
#include "util/error.h"

namespace cc::assign_and_add::theory {

Model::Model(Sizes s) : s_(s) {
  if (s_.N < 3 || s_.N % 2 == 0) throw Error("disentangled model: N must be an odd number >= 3");
  if (s_.V < 1 || s_.T < 5 || s_.k_min < 1 || s_.k_max < s_.k_min || s_.k_max > s_.V || s_.k_max > s_.T - 3)
    throw Error("disentangled model: need 1 <= k_min <= k_max <= min(V, T - 3) and T >= 5");
  D_ = s_.N + s_.V + 1 + s_.T + s_.V;
  beta_ = s_.beta > 0 ? s_.beta : std::log(static_cast<double>(s_.T));
  const int F = (s_.N - 1) / 2;
  auto opts = torch::TensorOptions().dtype(torch::kFloat64);
  phi2_ = torch::zeros({D_, 2 * F}, opts);
  cos_ = torch::zeros({F, s_.N}, opts);
  sin_ = torch::zeros({F, s_.N}, opts);
  auto p2 = phi2_.accessor<double, 2>();
  auto c = cos_.accessor<double, 2>();
  auto sn = sin_.accessor<double, 2>();
  for (int f = 1; f <= F; ++f)
    for (int n = 0; n < s_.N; ++n) {
      const double a = 2 * M_PI * f * n / s_.N;
      p2[num(n)][f - 1] = std::cos(a);
      p2[num(n)][F + f - 1] = std::sin(a);
      c[f - 1][n] = std::cos(a);  // the same angle read as f·k for the output class k = n
      sn[f - 1][n] = std::sin(a);
    }
}

torch::Tensor Model::W0() const {
  auto W = torch::zeros({D_, D_}, torch::kFloat64);
  const int eq = pos(s_.T - 1);
  W.index_put_({pos(s_.T - 3), eq}, beta_);
  W.index_put_({pos(s_.T - 2), eq}, beta_);
  for (int n = 0; n < s_.N; ++n) W.index_put_({num(n), eq}, beta_);
  return W;
}

torch::Tensor Model::G_star() const {
  auto G = torch::zeros({D_, D_}, torch::kFloat64);
  for (int v = 0; v < s_.V; ++v) {
    G.index_put_({tag(v), tag(v)}, 1.0);
    G.index_put_({tag(v), pos(s_.T - 1)}, 1.0);
  }
  return G;
}

Batch Model::sample(int64_t n, uint64_t seed, uint64_t index) const {
  const int T = s_.T;
  task::Rng rng(seed, task::stream_id("disentangled_s7"), index);
  // The control's label offsets come from a stream of their own: the sequences stay those of `rng`.
  task::Rng unlink(seed, task::stream_id("disentangled_s7_unlinked"), index);
  auto ids = torch::full({n, T, 3}, D_, torch::kLong);
  auto y = torch::zeros({n}, torch::kLong), target = torch::zeros({n}, torch::kLong),
       k = torch::zeros({n}, torch::kLong);
  auto slots = torch::zeros({n, T}, torch::kBool);
  auto x = ids.accessor<int64_t, 3>();
  auto ya = y.accessor<int64_t, 1>(), ta = target.accessor<int64_t, 1>(), ka = k.accessor<int64_t, 1>();
  auto sa = slots.accessor<bool, 2>();
  auto put = [&](int64_t i, int t, std::vector<int> basis) {  // x_t = Σ e_basis, kept ascending
    std::sort(basis.begin(), basis.end());
    for (size_t j = 0; j < basis.size(); ++j) x[i][t][static_cast<int64_t>(j)] = basis[j];
  };
  std::vector<int> vars(static_cast<size_t>(s_.V)), places(static_cast<size_t>(T - 3));
  for (int64_t i = 0; i < n; ++i) {
    const int kk = s_.k_min + static_cast<int>(rng.below(s_.k_max - s_.k_min + 1));
    std::iota(vars.begin(), vars.end(), 0);
    std::iota(places.begin(), places.end(), 0);
    for (int j = 0; j < kk; ++j) {  // partial Fisher-Yates: kk distinct variables and slots
      std::swap(vars[static_cast<size_t>(j)], vars[static_cast<size_t>(j + rng.below(s_.V - j))]);
      std::swap(places[static_cast<size_t>(j)], places[static_cast<size_t>(j + rng.below(T - 3 - j))]);
    }
    const int which = static_cast<int>(rng.below(kk));  // the operand's assignment
    const int v_star = vars[static_cast<size_t>(which)];
    const int m = static_cast<int>(rng.below(s_.N));
    for (int t = 0; t < T - 3; ++t) put(i, t, {pos(t), pad()});
    int n_star = 0;
    for (int j = 0; j < kk; ++j) {
      const int t = places[static_cast<size_t>(j)], v = vars[static_cast<size_t>(j)];
      const int c = static_cast<int>(rng.below(s_.N));
      const int carried = s_.scrambled ? static_cast<int>(rng.below(s_.V)) : v;
      put(i, t, {pos(t), num(c), tag(carried)});
      sa[i][t] = true;
      if (j == which) {
        n_star = c;
        ta[i] = t;
      }
    }
    put(i, T - 3, {pos(T - 3), var(v_star)});
    put(i, T - 2, {pos(T - 2), num(m)});
    put(i, T - 1, {pos(T - 1), tag(v_star)});
    ya[i] = (n_star + m) % s_.N;
    if (s_.unlinked) ya[i] = (ya[i] + 1 + unlink.below(s_.N - 1)) % s_.N;
    ka[i] = kk;
  }
  return {ids, y, target, slots, k};
}

namespace {

// Products with X from its indices (Batch::ids [B, T, 3], D where x_t has no third vector): each reads
// 3 B T entries. A column D of zeros takes the filler's share.

// idx [..., 3] -> [..., D]: the rows of X those indices make (the filler's column D dropped).
torch::Tensor rows_from(const torch::Tensor& idx, int64_t D) {
  auto sizes = idx.sizes().vec();
  sizes.back() = D + 1;
  return torch::zeros(sizes, torch::kFloat64).scatter_(-1, idx, 1.0).narrow(-1, 0, D).contiguous();
}

torch::Tensor rows_dot(const torch::Tensor& ids, int64_t D, const torch::Tensor& v) {  // v [B, D] -> [B, T]: x_bt · v_b
  const int64_t B = ids.size(0), T = ids.size(1);
  const auto padded = torch::cat({v, torch::zeros({B, 1}, v.options())}, 1);  // [B, D + 1]
  return padded.gather(1, ids.view({B, T * 3})).view({B, T, 3}).sum(2);
}

torch::Tensor weighted_rows(const torch::Tensor& ids, int64_t D,
                            const torch::Tensor& w) {  // w [B, T] -> [B, D]: Σ_t w_bt x_bt
  const int64_t B = ids.size(0), T = ids.size(1);
  const auto each = w.unsqueeze(2).expand({B, T, 3}).reshape({B, T * 3});  // x_t's weight on each of its vectors
  return torch::zeros({B, D + 1}, w.options()).scatter_add(1, ids.view({B, T * 3}), each).narrow(1, 0, D);
}

torch::Tensor row_at(const torch::Tensor& ids, int64_t D, const torch::Tensor& t) {  // t [B] -> [B, D]: x_{b, t_b}
  const int64_t B = ids.size(0);
  return rows_from(ids.gather(1, t.view({B, 1, 1}).expand({B, 1, 3})).squeeze(1), D);
}

torch::Tensor last_row(const torch::Tensor& ids, int64_t D) {  // [B, D]: x_T, the '=' position
  return row_at(ids, D, torch::full({ids.size(0)}, ids.size(1) - 1, torch::kLong));
}

}  // namespace

torch::Tensor Model::dense(const Batch& b) const { return rows_from(b.ids, D_); }  // [B, T, D]

torch::Tensor Model::scores(const Batch& b, const torch::Tensor& W) const {
  return rows_dot(b.ids, D_, last_row(b.ids, D_).matmul(W.t()));  // [B, T]: x_t^T (W x_T)
}

torch::Tensor Model::logits(const Batch& b, const torch::Tensor& W) const {
  return logits_from_scores(b, scores(b, W));
}

torch::Tensor Model::logits_from_scores(const Batch& b, const torch::Tensor& scores) const {
  auto attn = torch::softmax(scores, 1);        // [B, T]
  auto mixed = weighted_rows(b.ids, D_, attn);  // [B, D]: X σ
  auto z = mixed.matmul(phi2_);                 // [B, 2F]
  const int F = (s_.N - 1) / 2;
  auto re = z.slice(1, 0, F), im = z.slice(1, F, 2 * F);                            // c_f = re + i im
  auto M = ((re * re - im * im).matmul(cos_) + (2 * re * im).matmul(sin_)) / s_.N;  // [B, N]: Re[c_f² e^{-iθ}]
  return s_.alpha * M;
}

torch::Tensor Model::loss(const Batch& b, const torch::Tensor& W) const {
  return torch::nn::functional::cross_entropy(logits(b, W), b.y);
}

torch::Tensor Model::gradient(const Batch& b, const torch::Tensor& W) const {
  auto w = W.detach().clone().set_requires_grad(true);
  auto l = loss(b, w);
  l.backward();
  return w.grad().detach();
}

std::pair<torch::Tensor, torch::Tensor> Model::gradient_by_key(const Batch& b, const torch::Tensor& W) const {
  auto s = scores(b, W).detach().set_requires_grad(true);  // [B, T]
  torch::nn::functional::cross_entropy(logits_from_scores(b, s), b.y).backward();
  const auto g = s.grad().detach();                                           // [B, T]: ∂L/∂s_bt
  const auto query = last_row(b.ids, D_);                                     // [B, D]: x_T
  const auto keys = weighted_rows(b.ids, D_, g);                              // [B, D]: Σ_t g_bt x_bt
  const auto at_target = row_at(b.ids, D_, b.target);                         // [B, D]: x_bt*
  const auto g_target = g.gather(1, b.target.unsqueeze(1));                   // [B, 1]
  return {keys.t().matmul(query), (g_target * at_target).t().matmul(query)};  // [D, D] each
}

namespace {

// Σ_t coef_bt (x_bt − x̄_b) x_bT^T over the batch, [D, D]: the matrix a pair sum with per-key weights makes.
// query: x_T [B, D] (last_row).
torch::Tensor key_sum(const Batch& b, int64_t D, const torch::Tensor& coef, const torch::Tensor& mean_x,
                      const torch::Tensor& query) {
  const auto vec = weighted_rows(b.ids, D, coef) - coef.sum(1, true) * mean_x;  // [B, D]
  return vec.t().matmul(query);
}

}  // namespace

// The same sums as gradient_by_pair_table, without its [B, T, T] tables (and their per-sequence 16 x 29
// products, most of §7's time): c_w is bilinear and symmetric in (t, t'),
//   c_w(t, t') = (2/N) Σ_f [re_tf (cw_f re_t'f + sw_f im_t'f) + im_tf (sw_f re_t'f − cw_f im_t'f)]
// (cw = w cosᵀ, sw = w sinᵀ), so a sum over t' with weights a, Σ_t' a_t' c_w(t, t'), is U_t against the
// a-weighted sum of U. Every class of pairs is such a sum for each key t: the whole row (weights σ), the
// pair with t* (weights e_t*), or both restricted to the keys the class allows. U_t = Φ2 x_t is linear in
// x_t, so neither U nor X is built: a sum of U is Φ2 of the sum of x, and U_t · d is x_t · (Φ2ᵀ d).
PairSplit Model::gradient_by_pair(const Batch& b, const torch::Tensor& W) const {
  const int T = s_.T, F = (s_.N - 1) / 2;
  const int64_t B = b.ids.size(0);
  const auto s = scores(b, W);                                         // [B, T]
  const auto sigma = torch::softmax(s, 1);                             // [B, T]
  const auto mean_x = weighted_rows(b.ids, D_, sigma);                 // [B, D]: x̄
  const auto query = last_row(b.ids, D_);                              // [B, D]: x_T
  const auto p_hat = torch::softmax(logits_from_scores(b, s), 1);      // [B, N]
  const auto one_hot = torch::one_hot(b.y, s_.N).to(torch::kFloat64);  // [B, N]
  // Σ_t' a_t' c_w(t, t') for every t, from v = Σ_t' a_t' U_t' [B, 2F]: [B, T].
  auto against = [&](const torch::Tensor& w, const torch::Tensor& v) {
    const auto cw = w.matmul(cos_.t()), sw = w.matmul(sin_.t());  // [B, F]
    const auto vr = v.slice(1, 0, F), vi = v.slice(1, F, 2 * F);  // [B, F]
    const auto dual = torch::cat({cw * vr + sw * vi, sw * vr - cw * vi}, 1);
    return rows_dot(b.ids, D_, dual.matmul(phi2_.t())) * (2.0 / s_.N);  // U_t · dual
  };
  const auto at = torch::one_hot(b.target, T).to(torch::kFloat64);  // [B, T]: t = t*
  auto at_m = torch::zeros({B, T}, torch::kFloat64);                // [B, T]: t = T−2, the constant m
  at_m.select(1, T - 2).fill_(1);
  const auto sigma_star = (sigma * at).sum(1, true);              // [B, 1]: σ_t*
  const auto U_mean = mean_x.matmul(phi2_);                       // [B, 2F]: Σ_t' σ_t' U_t'
  const auto U_star = row_at(b.ids, D_, b.target).matmul(phi2_);  // [B, 2F]: U_t*
  const auto with_t_star = against(one_hot, U_star);              // [B, T]: c_y(t, t*)
  const auto c_m_star = (with_t_star * at_m).sum(1, true);        // [B, 1]: c_y(T−2, t*)
  const auto sigma_m = (sigma * at_m).sum(1, true);               // [B, 1]: σ_{T−2}
  // The per-key weights coef_t = σ_t Σ_{t' : (t, t') in the class} σ_t' c(t, t'), then (α/B) Σ_b Σ_t
  // coef_t (x_t − x̄) x_T^T (key_sum). With w = 1{k=y} − p̂ and every pair it is -dL/dW; with w = 1{k=y},
  // the correct label's part of it.
  auto term = [&](const torch::Tensor& coef) {
    return key_sum(b, D_, coef, mean_x, query) * (s_.alpha / static_cast<double>(B));
  };
  const auto pair_with_t_star = sigma * sigma_star * with_t_star;  // σ_t σ_t* c(t, t*)
  PairSplit r;
  r.expansion = term(sigma * against(one_hot - p_hat, U_mean));
  // Key t*: its whole row (t*, t'); every other key t: its pair (t, t*).
  r.t_star = term(sigma * against(one_hot, U_mean) * at + pair_with_t_star * (1 - at));
  r.t_star_twice = term(pair_with_t_star * at);
  // (t*, T−2) on key t* and (T−2, t*) on key T−2: one value c(T−2, t*), counted once where t* = T−2.
  r.constructive = term(sigma_star * sigma_m * c_m_star * (at + at_m).clamp_max(1));
  // The keys t ≠ t* with the pairs t' ≠ t*.
  r.other_pairs = term(sigma * against(one_hot, U_mean - sigma_star * U_star) * (1 - at));
  return r;
}

PairSplit Model::gradient_by_pair_table(const Batch& b, const torch::Tensor& W) const {
  const int T = s_.T, F = (s_.N - 1) / 2;
  const auto X = dense(b);  // [B, T, D]
  const int64_t B = X.size(0);
  const auto s = scores(b, W);                                         // [B, T]
  const auto sigma = torch::softmax(s, 1);                             // [B, T]
  const auto mean_x = torch::bmm(sigma.unsqueeze(1), X).squeeze(1);    // [B, D]: x̄
  const auto query = last_row(b.ids, D_);                              // [B, D]: x_T
  const auto U = X.matmul(phi2_);                                      // [B, T, 2F]: Φ2 x_t
  const auto re = U.slice(2, 0, F), im = U.slice(2, F, 2 * F);         // [B, T, F]
  const auto p_hat = torch::softmax(logits_from_scores(b, s), 1);      // [B, N]
  const auto one_hot = torch::one_hot(b.y, s_.N).to(torch::kFloat64);  // [B, N]
  // c_w(t, t') = Σ_k w_k c_k(t, t') for per-sequence label weights w [B, N]; B_k(u, v) = (1/N) Σ_f
  // [(u_re v_re − u_im v_im) cos(2πfk/N) + (u_re v_im + u_im v_re) sin(2πfk/N)], so c_w is quadratic in U.
  auto pair_coefficients = [&](const torch::Tensor& w) {                                    // [B, T, T]
    const auto cw = w.matmul(cos_.t()).unsqueeze(1), sw = w.matmul(sin_.t()).unsqueeze(1);  // [B, 1, F]
    return 2.0 / s_.N *
           (torch::bmm(re * cw, re.transpose(1, 2)) - torch::bmm(im * cw, im.transpose(1, 2)) +
            torch::bmm(re * sw, im.transpose(1, 2)) + torch::bmm(im * sw, re.transpose(1, 2)));
  };
  const auto sigma2 = sigma.unsqueeze(2) * sigma.unsqueeze(1);  // [B, T, T]: σ_t σ_t'
  // (α/B) Σ_b Σ_{(t,t') in mask} σ_t σ_t' c_w(t, t') (x_t − x̄) x_T^T; with w = 1{k=y} − p̂ and every pair it
  // is -dL/dW, with w = 1{k=y} the correct label's part of it.
  // The weighted pair coefficients σ_t σ_t' c_w(t, t') [B, T, T] are computed once per w: the correct
  // label's serve the four masks below.
  auto weighted = [&](const torch::Tensor& w) { return sigma2 * pair_coefficients(w); };
  auto pairs = [&](const torch::Tensor& weighted_pairs, const torch::Tensor& mask) {
    const auto coef = (weighted_pairs * mask).sum(2);  // [B, T]: summed over t'
    return key_sum(b, D_, coef, mean_x, query) * (s_.alpha / static_cast<double>(B));
  };
  const auto at = torch::one_hot(b.target, T).to(torch::kBool);  // [B, T]: t = t*
  auto at_m = torch::zeros({B, T}, torch::kBool);                // [B, T]: t = T−2, the constant m
  at_m.select(1, T - 2).fill_(true);
  const auto star_row = at.unsqueeze(2), star_col = at.unsqueeze(1);  // [B, T, 1], [B, 1, T]
  const auto with_star = star_row.logical_or(star_col);               // [B, T, T]
  const auto twice = star_row.logical_and(star_col);
  const auto constructive = star_row.logical_and(at_m.unsqueeze(1)).logical_or(at_m.unsqueeze(2).logical_and(star_col));
  const auto all = torch::ones({B, T, T}, torch::kBool);
  PairSplit r;
  r.expansion = pairs(weighted(one_hot - p_hat), all);
  const auto correct = weighted(one_hot);
  r.t_star = pairs(correct, with_star);
  r.t_star_twice = pairs(correct, twice);
  r.constructive = pairs(correct, constructive);
  r.other_pairs = pairs(correct, with_star.logical_not());
  return r;
}

double cosine(const torch::Tensor& a, const torch::Tensor& b) {
  const double na = a.norm().item<double>(), nb = b.norm().item<double>();
  if (na == 0 || nb == 0) return 0;
  return (a * b).sum().item<double>() / (na * nb);
}

}  // namespace cc::assign_and_add::theory
