#pragma once
// The model's parameters: TransformerLens names and shapes, in one order. Transformer creates its
// tensors from it, and the blas engine lays them out back to back in one flat float buffer.
// Torch-free.
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"

namespace cc::model {

// Every parameter's name and shape, in Transformer::named_parameters() order, and where it lives in
// one flat float buffer (row-major, back to back).
struct ParamLayout {
  struct Entry {
    std::string name;
    std::vector<int64_t> shape;
    int64_t offset = 0, size = 0;
  };
  explicit ParamLayout(const ModelConfig& cfg);
  const Entry& at(const std::string& name) const;  // throws cc::Error for an unknown name
  std::vector<Entry> entries;
  int64_t total = 0;
};

}  // namespace cc::model
