#include "util/json_input.h"

#include "util/error.h"

namespace cc {
namespace {

// Counts depth and the bytes the DOM would take, builds nothing; stops at the first bound passed or
// syntax error. The estimate, per value: its json slot (16 B, doubled for a vector's growth); a string's
// heap std::string (48 B with malloc's header) and its text past the short-string buffer; an object's
// std::map (64 B) and per key a tree node (96 B) and the key's text; an array's std::vector (32 B).
// Measured against max RSS: 14 MB of short-string objects took 164 MB, estimated 164 MB.
class ShapeCheck : public nlohmann::json_sax<nlohmann::json> {
 public:
  static constexpr size_t kMaxNumberLiteral = 64;
  explicit ShapeCheck(int64_t spent) : bytes_(spent) {}
  int64_t spent() const { return bytes_; }
  std::string too_big;  // why the text is refused, if it is
  bool syntax_error = false;

  bool null() override { return value(0); }
  bool boolean(bool) override { return value(0); }
  bool number_integer(number_integer_t) override { return value(0); }
  bool number_unsigned(number_unsigned_t) override { return value(0); }
  // A number's literal text is held whole while it is lexed and converted: a 16 MiB literal took
  // 313 MB. Nothing claimcheck writes needs more than ~25 characters for a number.
  bool number_float(number_float_t, const string_t& literal) override {
    if (literal.size() <= kMaxNumberLiteral) return value(0);
    too_big = "a number written with " + std::to_string(literal.size()) + " characters (at most " +
              std::to_string(kMaxNumberLiteral) + ")";
    return false;
  }
  bool string(string_t& s) override { return value(48 + text_bytes(s.size())); }
  bool binary(binary_t& b) override { return value(48 + text_bytes(b.size())); }
  bool start_object(std::size_t) override { return open(64); }
  bool key(string_t& k) override { return add(96 + text_bytes(k.size())); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(32); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    syntax_error = true;
    return false;
  }

 private:
  static int64_t text_bytes(size_t n) { return n > 15 ? static_cast<int64_t>(n) + 17 : 0; }
  bool add(int64_t bytes) {
    bytes_ += bytes;
    if (bytes_ <= kMaxJsonDomBytes) return true;
    too_big = "JSON whose parsed form would take more than " + std::to_string(kMaxJsonDomBytes >> 20) +
              " MiB (estimated; a document claimcheck writes takes at most ~11 MiB)";
    return false;
  }
  bool value(int64_t own) { return add(32 + own); }
  bool open(int64_t container) {
    if (++depth_ > kMaxJsonDepth) {
      too_big = "JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep";
      return false;
    }
    return value(container);
  }
  bool close() {
    --depth_;
    return true;
  }
  int depth_ = 0;
  int64_t bytes_;
};

}  // namespace

nlohmann::json parse_json(const std::string& text, const std::string& what, bool allow_exceptions, int64_t* dom_bytes) {
  ShapeCheck shape(dom_bytes ? *dom_bytes : 0);
  nlohmann::json::sax_parse(text, &shape);
  if (!shape.too_big.empty()) throw Error(what + ": " + shape.too_big);
  if (dom_bytes) *dom_bytes = shape.spent();
  // A syntax error is left to the parse below, which reports it as nlohmann does.
  return nlohmann::json::parse(text, nullptr, allow_exceptions);
}

}  // namespace cc
