#pragma once
// What the kinds over the §7 disentangled model share (theory.cpp, theory_terms.cpp): the parameters
// every one of them takes, the bound on their work, and the Monte Carlo batching.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "papers/assign_and_add/module/disentangled.h"
#include "analysis/registry.h"

namespace cc::assign_and_add::theory {

// sizes, assignments, beta, alpha, samples, batches, phi1 (each kind adds its own and calls finish()),
// and their documentation for `claimcheck kinds`.
nlohmann::json parse_common(ObjectReader& r);
extern const char* const kCommonParamsDoc;
// Refuses (r.fail on "samples") work that would run for minutes or past the memory bound.
void check_work(ObjectReader& r, const nlohmann::json& p, int64_t eval_size);
Sizes sizes_at(const nlohmann::json& p, size_t i);  // the i-th size with the common parameters
std::string size_label(const Sizes& s);             // "N=59 V=12 T=16"
// The name under which a kind's computation at sizes[i] for `seed` is shared across claims
// (ActivationStore::derived): the kind and its parameters less `value`, which only picks what is read
// of the computation (T1d/T1e, T1b/T1b-acc).
std::string shared_name(const std::string& kind, const nlohmann::json& p, size_t i, uint64_t seed);
int64_t chunk_for(const Model& model);  // sequences per chunk of work
// The Monte Carlo sequences of batch b, chunk by chunk: fn(batch, weight of the chunk in the batch mean).
template <typename Fn>
void for_each_chunk(const Model& model, const nlohmann::json& p, uint64_t seed, int64_t b, Fn&& fn) {
  const int64_t per_batch = p["samples"].get<int64_t>() / p["batches"].get<int64_t>();
  const int64_t chunk = chunk_for(model);
  for (int64_t done = 0; done < per_batch; done += chunk) {
    const int64_t n = std::min(chunk, per_batch - done);
    fn(model.sample(n, seed, static_cast<uint64_t>(b * 1000000 + done)),
       static_cast<double>(n) / static_cast<double>(per_batch));
  }
}

}  // namespace cc::assign_and_add::theory
