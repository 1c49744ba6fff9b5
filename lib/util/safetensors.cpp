#include "util/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "util/atomic_file.h"
#include "util/error.h"

namespace cc {
namespace {

constexpr uint64_t kMaxHeader = 100ull << 20;  // the reference implementation's limit

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
uint64_t get_u64(const std::string& s) {
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open checkpoint file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_safetensors(ss.str(), path);
}

StFile parse_safetensors(const std::string& data, const std::string& path) {
  auto bad = [&](const std::string& what) { return Error(path + ": not a valid safetensors file: " + what); };

  if (data.size() < 8) throw bad("file is " + std::to_string(data.size()) + " bytes, shorter than the 8-byte header length");
  const uint64_t n = get_u64(data);
  if (n > kMaxHeader) throw bad("header length " + std::to_string(n) + " is implausibly large");
  if (n > data.size() - 8) throw bad("header length " + std::to_string(n) + " runs past the end of the file (truncated?)");

  nlohmann::json header;
  try {
    header = nlohmann::json::parse(data.begin() + 8, data.begin() + 8 + static_cast<std::ptrdiff_t>(n));
  } catch (const nlohmann::json::exception& e) {
    throw bad(std::string("header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) throw bad("header is not a JSON object");

  const uint64_t data_size = data.size() - 8 - n;
  StFile file;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) throw bad("__metadata__ is not an object");
      for (const auto& [k, v] : entry.items()) {
        if (!v.is_string()) throw bad("__metadata__ value for '" + k + "' is not a string");
        file.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    try {
      StTensor t;
      t.dtype = entry.at("dtype").get<std::string>();
      t.shape = entry.at("shape").get<std::vector<int64_t>>();
      auto off = entry.at("data_offsets").get<std::vector<uint64_t>>();
      if (dtype_size(t.dtype) == 0) throw bad("tensor '" + name + "' has unknown dtype '" + t.dtype + "'");
      if (off.size() != 2 || off[0] > off[1] || off[1] > data_size)
        throw bad("tensor '" + name + "' data_offsets lie outside the " + std::to_string(data_size) +
                  "-byte data section (truncated?)");
      uint64_t count = 1;
      for (int64_t d : t.shape) {
        if (d < 0) throw bad("tensor '" + name + "' has a negative dimension");
        count *= static_cast<uint64_t>(d);
      }
      if (count * dtype_size(t.dtype) != off[1] - off[0])
        throw bad("tensor '" + name + "' shape and dtype need " + std::to_string(count * dtype_size(t.dtype)) +
                  " bytes but its offsets span " + std::to_string(off[1] - off[0]));
      t.bytes = data.substr(8 + n + off[0], off[1] - off[0]);
      spans.emplace_back(off[0], off[1]);
      file.tensors.emplace_back(name, std::move(t));
    } catch (const nlohmann::json::exception& e) {
      throw bad("entry for tensor '" + name + "' is malformed: " + e.what());
    }
  }
  // The format requires the data section to be covered exactly, without holes or overlaps.
  std::sort(spans.begin(), spans.end());
  uint64_t expect = 0;
  for (const auto& s : spans) {
    if (s.first != expect) throw bad("tensor data regions overlap or leave a gap at byte " + std::to_string(expect));
    expect = s.second;
  }
  if (expect != data_size) throw bad("data section has " + std::to_string(data_size - expect) + " trailing bytes not owned by any tensor");
  // Keep a stable order: by offset, i.e. the order the writer used.
  std::sort(file.tensors.begin(), file.tensors.end(), [&](const auto& a, const auto& b) {
    return header[a.first]["data_offsets"][0].template get<uint64_t>() < header[b.first]["data_offsets"][0].template get<uint64_t>();
  });
  return file;
}

}  // namespace cc
