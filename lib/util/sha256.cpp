#include "util/sha256.h"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>

#include "util/error.h"
#include "util/file_io.h"

namespace cc {
namespace {

struct Digest {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
  Digest() { EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr); }
  void update(const char* data, size_t n) { EVP_DigestUpdate(ctx.get(), data, n); }
  std::string hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx.get(), md, &len);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
      out += digits[md[i] >> 4];
      out += digits[md[i] & 15];
    }
    return out;
  }
};

}  // namespace

std::string sha256_hex(const std::string& bytes) {
  Digest d;
  d.update(bytes.data(), bytes.size());
  return d.hex();
}

std::string sha256_file(const std::string& path) {
  require_regular_file(path, "file to hash");  // a FIFO would block, /dev/zero never end
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open file for hashing");
  Digest d;
  std::array<char, 1 << 16> buf;
  while (in) {
    in.read(buf.data(), buf.size());
    d.update(buf.data(), static_cast<size_t>(in.gcount()));
  }
  return d.hex();
}

}  // namespace cc
