#include "util/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json_input.h"
#include "util/file_io.h"
#include "util/json_number.h"

namespace cc {
namespace {

constexpr uint64_t kMaxHeader = 100ull << 20;  // the reference implementation's limit

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
uint64_t get_u64(std::string_view s) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[static_cast<size_t>(i)]);
  return v;
}

}  // namespace

const StTensor* StFile::find(const std::string& name) const {
  for (const auto& kv : tensors)
    if (kv.first == name) return &kv.second;
  return nullptr;
}

size_t dtype_size(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL") return 1;
  return 0;
}

void write_safetensors(const std::string& path, const StFile& file) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  uint64_t offset = 0;
  for (const auto& [name, t] : file.tensors) {
    int64_t count = 1;
    for (int64_t d : t.shape) count *= d;
    if (static_cast<uint64_t>(count) * dtype_size(t.dtype) != t.bytes.size())
      throw Error(path + ": tensor '" + name + "' has " + std::to_string(t.bytes.size()) +
                  " bytes, which does not match its dtype and shape");
    header[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');  // align the data section to 8 bytes
  std::string out;
  put_u64(out, json.size());
  out += json;
  for (const auto& kv : file.tensors) out += kv.second.bytes;
  write_file_atomic(path, out);
}

StFile read_safetensors(const std::string& path) {
  const MappedFile mapped(path, kMaxCheckpointBytes, "checkpoint file");
  return parse_safetensors(mapped.bytes(), path);
}

namespace {

// The error every structural problem of `path` is reported as.
Error not_safetensors(const std::string& path, const std::string& what) {
  return Error(path + ": not a valid safetensors file: " + what);
}

// The JSON header of `data`, whose first 8 bytes give its length `n`.
nlohmann::json parse_header(std::string_view data, uint64_t n, const std::string& path) {
  nlohmann::json header;
  try {
    header =
        parse_json(std::string(data.begin() + 8, data.begin() + 8 + static_cast<std::ptrdiff_t>(n)), path + ": header");
  } catch (const nlohmann::json::exception& e) {
    throw not_safetensors(path, std::string("header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) throw not_safetensors(path, "header is not a JSON object");
  return header;
}

void read_metadata(const nlohmann::json& entry, StFile& file, const std::string& path) {
  if (!entry.is_object()) throw not_safetensors(path, "__metadata__ is not an object");
  for (const auto& [k, v] : entry.items()) {
    if (!v.is_string()) throw not_safetensors(path, "__metadata__ value for '" + k + "' is not a string");
    file.metadata[k] = v.get<std::string>();
  }
}

// One tensor's header entry, checked against the data section (`data_size` bytes); its bytes are
// not copied yet. Returns [begin, end) within the data section.
std::pair<uint64_t, uint64_t> read_tensor_entry(const std::string& name, const nlohmann::json& entry,
                                                uint64_t data_size, StTensor& t, const std::string& path) {
  const std::string where = "tensor '" + name + "'";
  if (!entry.is_object()) throw not_safetensors(path, "entry for " + where + " is not an object");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!entry.contains(key)) throw not_safetensors(path, "entry for " + where + " lacks '" + key + "'");
  const auto& dtype = entry["dtype"];
  const auto& shape = entry["shape"];
  const auto& offsets = entry["data_offsets"];
  if (!dtype.is_string()) throw not_safetensors(path, where + " dtype is not a string");
  if (!shape.is_array()) throw not_safetensors(path, where + " shape is not a list");
  if (!offsets.is_array() || offsets.size() != 2) throw not_safetensors(path, where + " data_offsets is not a pair");
  t.dtype = dtype.get<std::string>();
  const uint64_t item = dtype_size(t.dtype);
  if (item == 0) throw not_safetensors(path, where + " has unknown dtype '" + t.dtype + "'");
  const uint64_t begin = json_uint64(offsets[0], path + ": " + where + " data_offsets[0]");
  const uint64_t end = json_uint64(offsets[1], path + ": " + where + " data_offsets[1]");
  if (begin > end || end > data_size)
    throw not_safetensors(
        path, where + " data_offsets lie outside the " + std::to_string(data_size) + "-byte data section (truncated?)");
  // The byte count is computed without wrapping: a shape whose product overflows cannot
  // match any span, rather than matching a small one by accident.
  uint64_t bytes = item;
  for (const auto& d : shape) {
    const int64_t dim = json_int64(d, path + ": " + where + " shape");
    if (dim < 0) throw not_safetensors(path, where + " has a negative dimension");
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes))
      throw not_safetensors(path, where + " shape " + shape.dump() + " is too large");
    t.shape.push_back(dim);
  }
  if (bytes != end - begin)
    throw not_safetensors(path, where + " shape and dtype need " + std::to_string(bytes) +
                                    " bytes but its offsets span " + std::to_string(end - begin));
  return {begin, end};
}

// The format requires the data section to be covered exactly, without holes or overlaps.
void check_coverage(std::vector<std::pair<uint64_t, uint64_t>> spans, uint64_t data_size, const std::string& path) {
  std::sort(spans.begin(), spans.end());
  uint64_t expect = 0;
  for (const auto& s : spans) {
    if (s.first != expect)
      throw not_safetensors(path, "tensor data regions overlap or leave a gap at byte " + std::to_string(expect));
    expect = s.second;
  }
  if (expect != data_size)
    throw not_safetensors(
        path, "data section has " + std::to_string(data_size - expect) + " trailing bytes not owned by any tensor");
}

}  // namespace

StFile parse_safetensors(std::string_view data, const std::string& path) {
  if (data.size() < 8)
    throw not_safetensors(path,
                          "file is " + std::to_string(data.size()) + " bytes, shorter than the 8-byte header length");
  const uint64_t n = get_u64(data);
  if (n > kMaxHeader) throw not_safetensors(path, "header length " + std::to_string(n) + " is implausibly large");
  if (n > data.size() - 8)
    throw not_safetensors(path, "header length " + std::to_string(n) + " runs past the end of the file (truncated?)");
  const nlohmann::json header = parse_header(data, n, path);

  const uint64_t data_size = data.size() - 8 - n;
  StFile file;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  std::vector<std::pair<uint64_t, std::pair<std::string, StTensor>>> placed;  // (offset, tensor)
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      read_metadata(entry, file, path);
      continue;
    }
    StTensor t;
    const auto [begin, end] = read_tensor_entry(name, entry, data_size, t, path);
    t.bytes = std::string(data.substr(8 + n + begin, end - begin));
    spans.emplace_back(begin, end);
    placed.push_back({begin, {name, std::move(t)}});
  }
  check_coverage(spans, data_size, path);
  // Keep a stable order: by offset, i.e. the order the writer used.
  std::stable_sort(placed.begin(), placed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& p : placed) file.tensors.push_back(std::move(p.second));
  return file;
}

}  // namespace cc
