#include "papers/assign_and_add/module/theory_common.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "util/yaml_json.h"

namespace cc::assign_and_add::theory {
using namespace cc::analysis;

// The work of one Monte Carlo seed, in one-hot token slots: sequences × T × (N + V + 3), summed over
// the sizes (the gradient's samples plus `eval_size` test sequences). Capped so that no claim within
// the ranges runs for minutes or past the memory bound: one batch (samples / batches sequences of
// the largest size) at most kMaxBatchSlots, and one seed at most kMaxSeedSlots. Both were measured
// when a batch held X densely (~250 MB of RSS for T1a's 4.85e6 slots; ~25 s for 4e8 at T1a-grid's rate
// then); a batch now holds X's indices and costs less, so they are bounds with room, not estimates.
constexpr double kMaxBatchSlots = 5e6;
constexpr double kMaxSeedSlots = 4e8;

void check_work(ObjectReader& r, const nlohmann::json& p, int64_t eval_size) {
  double per_sequence = 0, largest = 0;  // summed and largest T × (N + V + 3) over the sizes
  for (const auto& s : p["sizes"]) {
    const double slots = static_cast<double>(s[2].get<int64_t>() * (s[0].get<int64_t>() + s[1].get<int64_t>() + 3));
    per_sequence += slots;
    largest = std::max(largest, slots);
  }
  const double samples = static_cast<double>(p["samples"].get<int64_t>());
  const double batch = samples / static_cast<double>(p["batches"].get<int64_t>()) * largest;
  const double seed = (samples + static_cast<double>(eval_size)) * per_sequence;
  std::ostringstream why;
  if (batch > kMaxBatchSlots)
    why << "one batch is " << batch
        << " token slots (samples / batches × T × (N + V + 3) at the largest size); at most " << kMaxBatchSlots
        << ": raise batches or lower samples";
  else if (seed > kMaxSeedSlots)
    why << "one seed is " << seed
        << " token slots ((samples + eval_size) × T × (N + V + 3), summed over sizes); at most " << kMaxSeedSlots
        << ": fewer samples or sizes";
  if (!why.str().empty()) r.fail("samples", why.str());
}

const char* const kCommonParamsDoc =
    "sizes: [[N, V, T], ...], the first is the one judged (the paper's: [59, 12, 16])\n"
    "assignments: [min, max] assignments per sequence (default [1, 4])\n"
    "beta: W_0's scale (default 0: ln T, so that ρ2 = Θ(1/T))\nalpha: output scale (default 1e-3)\n"
    "samples: Monte Carlo sequences per size (default 32768)\nbatches: jackknife batches (default 8)\n"
    "phi1: identity | scrambled (the control: constants carry a random variable's tag)\n";

nlohmann::json parse_common(ObjectReader& r) {
  nlohmann::json p;
  // Described (kinds --json) with one example size, so that the fields after it are reached.
  static const nlohmann::json example = nlohmann::json::array({{59, 12, 16}});
  const nlohmann::json& read = r.raw("sizes");
  const nlohmann::json& sizes = r.describing() ? example : read;
  if (!sizes.is_array() || sizes.empty() || sizes.size() > 16)
    r.fail("sizes", "expected a list of 1 to 16 [N, V, T] triples");
  for (const auto& s : sizes) {
    if (!s.is_array() || s.size() != 3 || !s[0].is_number_integer() || !s[1].is_number_integer() ||
        !s[2].is_number_integer())
      r.fail("sizes", "each size is [N, V, T], three integers");
    const int64_t N = s[0].get<int64_t>(), V = s[1].get<int64_t>(), T = s[2].get<int64_t>();
    if (N < 3 || N > 257 || N % 2 == 0) r.fail("sizes", "N must be odd, in [3, 257]");
    if (V < 1 || V > 64) r.fail("sizes", "V must be in [1, 64]");
    if (T < 5 || T > 128) r.fail("sizes", "T must be in [5, 128]");
    p["sizes"].push_back({N, V, T});
  }
  const auto k = r.integers("assignments", {1, 4});
  if (k.size() != 2 || k[0] < 1 || k[1] < k[0] || k[1] > 64)
    r.fail("assignments", "expected [min, max] with 1 <= min <= max");
  for (const auto& s : p["sizes"])
    if (k[1] > s[1].get<int64_t>() || k[1] > s[2].get<int64_t>() - 3)
      r.fail("assignments", "max must be <= V and <= T - 3 at every size");
  p["assignments"] = k;
  p["beta"] = r.number("beta", 0);  // 0: ln T
  if (!std::isfinite(p["beta"].get<double>()) || p["beta"].get<double>() < 0 || p["beta"].get<double>() > 50)
    r.fail("beta", "must be in [0, 50] (0: ln T)");
  p["alpha"] = r.number("alpha", 1e-3);
  if (!(p["alpha"].get<double>() > 0 && p["alpha"].get<double>() <= 1)) r.fail("alpha", "must be in (0, 1]");
  p["samples"] = r.integer_in("samples", 32768, 256, 1 << 20);
  p["batches"] = r.integer_in("batches", 8, 2, 64);
  p["phi1"] = r.one_of("phi1", {"identity", "scrambled"}, "identity");
  return p;
}

Sizes sizes_at(const nlohmann::json& p, size_t i) {
  Sizes s;
  s.N = p["sizes"][i][0].get<int>();
  s.V = p["sizes"][i][1].get<int>();
  s.T = p["sizes"][i][2].get<int>();
  s.k_min = p["assignments"][0].get<int>();
  s.k_max = p["assignments"][1].get<int>();
  s.beta = p["beta"].get<double>();
  s.alpha = p["alpha"].get<double>();
  s.scrambled = p["phi1"] == "scrambled";
  s.unlinked = p.value("label", "linked") == "unlinked";
  return s;
}

std::string shared_name(const std::string& kind, const nlohmann::json& p, size_t i, uint64_t seed) {
  nlohmann::json key = p;
  key.erase("value");
  return "assign_and_add." + kind + " " + key.dump() + " size " + std::to_string(i) + " seed " + std::to_string(seed);
}

std::string size_label(const Sizes& s) {
  return "N=" + std::to_string(s.N) + " V=" + std::to_string(s.V) + " T=" + std::to_string(s.T);
}

// Sequences per chunk: as many as kept a dense X near 8M doubles (64 MB). The Monte Carlo draws depend on
// it (Model::sample is seeded per chunk), so it stays although X is no longer built.
int64_t chunk_for(const Model& model) {
  return std::max<int64_t>(64, (int64_t{8} << 20) / (model.sizes().T * model.dim()));
}

}  // namespace cc::assign_and_add::theory
