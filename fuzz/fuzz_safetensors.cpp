// Fuzz target: any bytes as a safetensors checkpoint. The reader must return the tensors or throw
// cc::Error naming the problem; a crash, an out-of-bounds read or another exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "util/error.h"
#include "util/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    cc::parse_safetensors(std::string(reinterpret_cast<const char*>(data), size), "fuzz.safetensors");
  } catch (const cc::Error&) {
  }
  return 0;
}
