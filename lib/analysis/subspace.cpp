#include "analysis/subspace.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>

#include "util/error.h"
#include "util/quoted_list.h"
#include "util/registry.h"

namespace cc::analysis {
namespace {

struct Pending {
  Subspace subspace;
  std::string origin;
  std::function<std::vector<std::string>()> families;
};

struct Subspaces {
  std::mutex mu;
  std::vector<Pending> pending;
  bool built = false;
};

Subspaces& subspaces() {
  static Subspaces s;
  return s;
}

const NamedRegistry<Subspace>& registry() {
  static const NamedRegistry<Subspace>& r = []() -> const NamedRegistry<Subspace>& {
    static NamedRegistry<Subspace> built{"subspace"};
    auto& s = subspaces();
    std::lock_guard<std::mutex> lock(s.mu);
    // A module's subspace reads its module's families or those it names, never any run (as its kinds):
    // all are checked before any is added, so a refusal leaves the pending list whole.
    for (auto& p : s.pending) {
      if (p.subspace.families.empty() && p.families) p.subspace.families = p.families();
      if (p.families && p.subspace.families.empty())
        throw Error("subspace '" + p.subspace.name + "' from " + p.origin +
                    " reads checkpoints, but its module registers no task family and the subspace names none: "
                    "a paper module's subspace says which families' runs it reads (Subspace::families)");
    }
    for (auto& p : s.pending) {
      const std::string name = p.subspace.name;
      built.add(name, std::move(p.subspace), p.origin);
    }
    s.pending.clear();
    s.built = true;
    built.freeze("the subspaces were first read");
    return built;
  }();
  return r;
}

// Gram-Schmidt in double, twice per row (the second pass keeps the rows orthogonal to 1e-15 where the
// first leaves cancellation behind); rows whose remainder is below `drop` of their norm are left out.
std::vector<std::vector<double>> orthonormal_rows(const std::vector<std::vector<double>>& rows) {
  constexpr double kDrop = 1e-9;
  std::vector<std::vector<double>> basis;
  auto dot = [](const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  };
  for (auto r : rows) {
    const double norm = std::sqrt(dot(r, r));
    if (norm == 0) continue;
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& b : basis) {
        const double c = dot(r, b);
        for (size_t i = 0; i < r.size(); ++i) r[i] -= c * b[i];
      }
    const double left = std::sqrt(dot(r, r));
    if (left <= kDrop * norm) continue;
    for (double& x : r) x /= left;
    basis.push_back(std::move(r));
  }
  return basis;
}

torch::Tensor to_tensor(const std::vector<std::vector<double>>& rows, int64_t dim) {
  auto t = torch::zeros({static_cast<int64_t>(rows.size()), dim}, torch::kDouble);
  auto a = t.accessor<double, 2>();
  for (size_t i = 0; i < rows.size(); ++i)
    for (int64_t j = 0; j < dim; ++j) a[static_cast<int64_t>(i)][j] = rows[i][static_cast<size_t>(j)];
  return t;
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

void add_subspace(Subspace s, const std::string& origin, std::function<std::vector<std::string>()> families) {
  if (s.name.empty() || s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
    throw Error("subspace '" + s.name + "' from " + origin + ": a subspace's name is snake_case");
  if (s.hooks.empty() || !s.directions)
    throw Error("subspace '" + s.name + "' from " + origin + " names no hook or gives no directions");
  auto& all = subspaces();
  std::lock_guard<std::mutex> lock(all.mu);
  if (all.built)
    throw Error("subspace '" + s.name + "' from " + origin +
                " is registered after the registry was frozen (the subspaces were first read): a module registers "
                "at start-up, before any claim is read");
  for (const auto& p : all.pending)
    if (p.subspace.name == s.name)
      throw Error("subspace '" + s.name + "' is registered twice: by " + p.origin + " and by " + origin);
  all.pending.push_back({std::move(s), origin, std::move(families)});
}

const Subspace& find_subspace(const std::string& name) { return registry().get(name); }

std::vector<std::string> subspace_names() { return registry().names(); }

std::string subspace_origin(const std::string& name) { return registry().origin(name); }

torch::Tensor subspace_basis(const Subspace& s, const train::Checkpoint& ck, ActivationStore* store) {
  if (!s.families.empty() && std::find(s.families.begin(), s.families.end(), ck.config.family) == s.families.end()) {
    throw Error("subspace '" + s.name + "' reads runs of " + quoted_list(s.families) + ", not '" + ck.config.family +
                "' (" + ck.path + ")");
  }
  const auto d = s.directions(ck, store).to(torch::kCPU, torch::kDouble).contiguous();
  if (d.dim() != 2) throw Error("subspace '" + s.name + "' gives no [k, dim] directions for " + ck.path);
  std::vector<std::vector<double>> rows(static_cast<size_t>(d.size(0)), std::vector<double>(d.size(1)));
  auto a = d.accessor<double, 2>();
  for (int64_t i = 0; i < d.size(0); ++i)
    for (int64_t j = 0; j < d.size(1); ++j) rows[static_cast<size_t>(i)][static_cast<size_t>(j)] = a[i][j];
  return to_tensor(orthonormal_rows(rows), d.size(1));
}

torch::Tensor random_basis(int64_t rank, int64_t dim, uint64_t seed) {
  if (rank < 0 || rank > dim)
    throw Error("a random subspace of rank " + std::to_string(rank) + " in " + std::to_string(dim) + " dimensions");
  uint64_t state = seed;
  auto uniform = [&] { return (static_cast<double>(splitmix64(state) >> 11) + 0.5) * 0x1.0p-53; };  // (0, 1)
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  std::vector<std::vector<double>> rows;
  while (static_cast<int64_t>(rows.size()) < rank) {  // a dependent draw (probability 0) is drawn again
    std::vector<std::vector<double>> draw(static_cast<size_t>(rank), std::vector<double>(dim));
    for (auto& r : draw)
      for (double& x : r) x = std::sqrt(-2.0 * std::log(uniform())) * std::cos(kTwoPi * uniform());
    rows = orthonormal_rows(draw);
  }
  return to_tensor(rows, dim);
}

}  // namespace cc::analysis
