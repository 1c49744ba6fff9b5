#pragma once
// Named subspaces for the `project` intervention (analysis/intervention.h): a paper module names a set of
// directions along a hook's last axis that its paper gives a meaning (e.g. Nanda et al.'s key frequencies
// in the embedding), and a claim projects that hook's value onto them or off them. Registered like the
// measurement kinds (util/registry.h): by a module at start-up, once per name, frozen at the first read.
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "analysis/activation_store.h"
#include "train/checkpoint.h"

namespace cc::analysis {

struct Subspace {
  std::string name;
  std::string description;            // one line, for `claimcheck explain` and the docs
  std::vector<std::string> hooks;     // the hooks whose last axis it lives in (e.g. hook_embed)
  std::vector<std::string> families;  // the task families whose checkpoints it reads (empty: any)
  // Directions for this checkpoint, one a row: [k, dim] with dim the hook's last axis. They need not be
  // orthonormal (subspace_basis orthonormalises them), and k may be 0 where the checkpoint has none of
  // what the subspace names (e.g. no key frequencies at init): then `complement` leaves a value as it
  // is and `subspace` zeroes it, which is what removing or keeping nothing means.
  std::function<torch::Tensor(const train::Checkpoint&, ActivationStore*)> directions;
};

// Registers `s` from `origin` (papers/NAME/module). Where `s.families` is empty it reads the runs of
// `families()`, called at the first read (a module may register its families after its subspaces);
// without `families` (the engine's, or a test's) an empty `s.families` reads any run. cc::Error on a name
// that is not snake_case, a duplicate name (naming both origins), or after the first read; at the first
// read, on a module's subspace that reads no named family.
void add_subspace(Subspace s, const std::string& origin, std::function<std::vector<std::string>()> families = {});

// The subspace of that name (freezing the registry), or cc::Error listing the registered ones.
const Subspace& find_subspace(const std::string& name);
std::vector<std::string> subspace_names();             // freezes too
std::string subspace_origin(const std::string& name);  // where it was registered ("" for an unknown name)

// An orthonormal basis [r, dim] (float64) of the subspace's directions at this checkpoint, r its rank:
// Gram-Schmidt in double, in row order, a direction whose remainder is below 1e-9 of its norm dropped
// (r may be 0). cc::Error where the checkpoint is of a family the subspace does not read.
torch::Tensor subspace_basis(const Subspace& s, const train::Checkpoint& ck, ActivationStore* store);

// A random orthonormal basis [rank, dim] (float64): Gaussian rows from `seed` alone (splitmix64 and
// Box-Muller, no library generator, so the same bits everywhere), orthonormalised as above: the
// matched control of a projection (a subspace of the same rank, chosen without looking).
torch::Tensor random_basis(int64_t rank, int64_t dim, uint64_t seed);

}  // namespace cc::analysis
