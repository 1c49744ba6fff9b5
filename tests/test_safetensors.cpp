// safetensors: exact round trip; truncated and corrupted files fail with a clear message.
#include <gtest/gtest.h>

#include "test_helpers.h"

#include <cstdio>
#include <fstream>

#include "util/error.h"
#include "util/json_input.h"
#include "util/safetensors.h"

using namespace cc;

namespace {

std::string tmp_path(const std::string& name) { return cc::test::test_path(name); }

StFile sample() {
  StFile f;
  StTensor a{"F32", {2, 3}, std::string(24, '\0')};
  for (int i = 0; i < 24; ++i) a.bytes[static_cast<size_t>(i)] = static_cast<char>(i * 7);
  f.tensors.emplace_back("embed.W_E", a);
  f.tensors.emplace_back("blocks.0.attn.W_Q", StTensor{"F32", {1, 2, 2}, std::string(16, 'x')});
  f.metadata["step"] = "5";
  return f;
}

std::string read_all(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_all(const std::string& p, const std::string& s) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << s;
}

std::string error_of(const std::string& p) {
  try {
    read_safetensors(p);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Safetensors, RoundTripIsExact) {
  const auto p = tmp_path("rt.safetensors");
  write_safetensors(p, sample());
  auto back = read_safetensors(p);
  ASSERT_EQ(back.tensors.size(), 2u);
  EXPECT_EQ(back.tensors[0].first, "embed.W_E");
  EXPECT_EQ(back.tensors[0].second.bytes, sample().tensors[0].second.bytes);
  EXPECT_EQ(back.tensors[1].second.shape, (std::vector<int64_t>{1, 2, 2}));
  EXPECT_EQ(back.metadata.at("step"), "5");
  // Header length is a multiple of 8 (data section aligned).
  const auto bytes = read_all(p);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]) % 8, 0);
}

TEST(Safetensors, TruncatedFileIsRejected) {
  const auto p = tmp_path("tr.safetensors");
  write_safetensors(p, sample());
  const auto bytes = read_all(p);
  write_all(p, bytes.substr(0, bytes.size() - 5));
  EXPECT_NE(error_of(p).find("data_offsets lie outside"), std::string::npos) << error_of(p);
  write_all(p, bytes.substr(0, 20));
  EXPECT_NE(error_of(p).find("runs past the end of the file"), std::string::npos) << error_of(p);
  write_all(p, bytes.substr(0, 3));
  EXPECT_NE(error_of(p).find("shorter than the 8-byte header length"), std::string::npos);
}

TEST(Safetensors, CorruptHeaderIsRejected) {
  const auto p = tmp_path("bad.safetensors");
  write_safetensors(p, sample());
  auto bytes = read_all(p);
  bytes[8] = '#';  // the header's opening brace
  write_all(p, bytes);
  EXPECT_NE(error_of(p).find("header is not valid JSON"), std::string::npos) << error_of(p);
  EXPECT_NE(error_of(tmp_path("missing.safetensors")).find("cannot open"), std::string::npos);
}

TEST(Safetensors, TrailingBytesAreRejected) {
  const auto p = tmp_path("trail.safetensors");
  write_safetensors(p, sample());
  write_all(p, read_all(p) + "junk");
  EXPECT_NE(error_of(p).find("trailing bytes"), std::string::npos) << error_of(p);
}

namespace {
// A file with the given header JSON and `data` bytes, parsed from memory; returns the error.
std::string header_error(const std::string& header, size_t data = 0) {
  std::string bytes;
  for (int i = 0; i < 8; ++i) bytes += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  bytes += header + std::string(data, '\0');
  try {
    parse_safetensors(bytes, "h.safetensors");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// Found by fuzz.safetensors: a float where an integer belongs used to reach nlohmann's
// double -> integer cast (undefined behaviour); a shape whose byte count wraps around 2^64
// used to match a zero-byte span.
TEST(Safetensors, NumbersMustBeIntegersInRange) {
  EXPECT_NE(
      header_error(R"({"a":{"dtype":"F32","shape":[1e300],"data_offsets":[0,0]}})").find("shape: expected an integer"),
      std::string::npos);
  EXPECT_NE(header_error(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[-1.5e300,0]}})").find("data_offsets[0]"),
            std::string::npos);
  EXPECT_NE(header_error(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[-1,0]}})").find("is negative"),
            std::string::npos);
  EXPECT_NE(
      header_error(R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}})").find("too large"),
      std::string::npos);
  EXPECT_NE(header_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})").find("not a pair"),
            std::string::npos);
  EXPECT_NE(header_error(R"({"a":[1,2]})").find("not an object"), std::string::npos);
  EXPECT_EQ(header_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8), "");
}

// JSON read from files is parsed with a nesting limit: 15 MB of brackets would otherwise build one
// heap node per bracket (1.3 GB), inside every size cap.
TEST(JsonInput, NestingPastTheLimitIsAnErrorNamingTheInput) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    parse_json(deep, "nested.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nested.json: JSON nested more than 64 levels deep"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_json(deep, "nested.json", /*allow_exceptions=*/false), Error);
  const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(parse_json(ok, "ok.json").is_array());
  EXPECT_TRUE(parse_json("{\"a\": [1, 2", "cut.json", false).is_discarded());
}

// A wide list inside the size cap: parsed in linear time (nlohmann's parse with a callback took 49 s for
// 300 000 empty objects, and a 16 MB list of them ran past 300 s), and refused where its DOM would take
// more than the bound (the 16 MB list: over 500 MB).
TEST(JsonInput, AWideListParsesInLinearTimeAndOneTooLargeInMemoryIsAnError) {
  auto list_of = [](int64_t n) {
    std::string s = "{\"claims\":[";
    for (int64_t i = 0; i < n; ++i) s += i ? ",{}" : "{}";
    return s + "]}";
  };
  EXPECT_EQ(parse_json(list_of(300000), "wide.json")["claims"].size(), 300000u);
  try {
    parse_json(list_of(kMaxJsonDomBytes / 96 + 1), "wider.json", /*allow_exceptions=*/false);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wider.json: JSON whose parsed form would take more than 32 MiB"),
              std::string::npos)
        << e.what();
  }
}

// Several documents kept together (a metrics log's lines) share one bound: each line small, the log's
// records together past it (a 16 MiB log of short lines took 632 MB). And a number's literal is bounded
// (a 16 MiB literal took 313 MB while it was lexed).
TEST(JsonInput, DocumentsKeptTogetherShareTheBoundAndANumberLiteralIsBounded) {
  int64_t spent = 0;
  EXPECT_EQ(parse_json("{\"a\":1}", "line 1", true, &spent)["a"], 1);
  EXPECT_GT(spent, 0);
  spent = kMaxJsonDomBytes - 10;
  try {
    parse_json("{\"a\":1}", "log.jsonl:7", true, &spent);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("log.jsonl:7: JSON whose parsed form would take more than 32 MiB"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(parse_json("[1.2345678901234567e-300]", "short.json")[0], 1.2345678901234567e-300);
  const std::string long_literal = "[1" + std::string(100, '0') + "]";
  try {
    parse_json(long_literal, "long.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("long.json: a number written with 101 characters (at most 64)"),
              std::string::npos)
        << e.what();
  }
}
