#pragma once
// The safetensors file format (https://github.com/huggingface/safetensors), torch-free:
//   [u64 little-endian header length N][N bytes of JSON header][raw little-endian data]
// The header maps tensor names to {dtype, shape, data_offsets: [begin, end)} relative to the
// data section, plus an optional "__metadata__" string map. Reading validates everything a
// truncated or corrupted file could break and names the file and the problem.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cc {

struct StTensor {
  std::string dtype;  // "F32", "F64", "I64", "I32", "F16", "BF16", "U8", ...
  std::vector<int64_t> shape;
  std::string bytes;  // raw little-endian data
};

struct StFile {
  std::vector<std::pair<std::string, StTensor>> tensors;  // file order
  std::map<std::string, std::string> metadata;
  const StTensor* find(const std::string& name) const;
};

size_t dtype_size(const std::string& dtype);  // 0 for an unknown dtype

// Writes to PATH.tmp, then renames: a crash mid-write never leaves a half file at PATH.
void write_safetensors(const std::string& path, const StFile& file);
StFile read_safetensors(const std::string& path);                           // throws cc::Error naming path and problem
StFile parse_safetensors(std::string_view bytes, const std::string& name);  // the same, from memory

}  // namespace cc
