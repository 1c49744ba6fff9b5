#pragma once
// Where a run lives in a run cache, for the run store (claims) and the sweep runner alike:
//   CACHE/PREFIX-HASH/seedK   PREFIX the run's name (or its sweep's), HASH its config's weights hash
// (a sweep point's config_hash), so two runs with the same weights share a folder name only when
// they are the same training.
#include <cstdint>
#include <string>

namespace cc::catalogue {

inline std::string cache_folder(const std::string& cache_dir, const std::string& prefix, const std::string& hash,
                                uint64_t seed) {
  return cache_dir + "/" + prefix + "-" + hash + "/seed" + std::to_string(seed);
}

}  // namespace cc::catalogue
