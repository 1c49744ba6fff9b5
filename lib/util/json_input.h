#pragma once
// JSON from files (sidecars, run.json, metrics lines, summaries, baselines, reports) parsed with bounds
// on its shape. A 15 MB file of nested brackets is within the size cap (file_io.h) yet builds one heap
// node per bracket: 1.3 GB; a 16 MB list of empty objects builds 5.6 million (over 500 MB), 14 MB of
// short-string objects 164 MB. Nothing claimcheck writes nests deeper than 8 levels; the largest it
// writes, Assign and Add's report.json (9.7 MB, 295 000 values, mostly numbers), parses to ~11 MB.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace cc {

constexpr int kMaxJsonDepth = 64;
// What the parsed document may take in memory, as ShapeCheck estimates it (an upper bound of what glibc
// allocates for nlohmann's containers and strings): two documents at the bound, read one after the
// other as `diff` and `--baseline` do, stay within the 256 MB of max RSS docs/integrity.md states.
constexpr int64_t kMaxJsonDomBytes = int64_t{32} << 20;

// nlohmann::json::parse behind a linear first pass (a SAX reader that builds nothing) that checks the
// nesting depth and the memory the document would take: past kMaxJsonDepth or kMaxJsonDomBytes is a cc::Error naming
// `what`, whatever allow_exceptions says; other syntax errors behave as in nlohmann (a parse_error, or a
// discarded value when allow_exceptions is false). (nlohmann's parse with a callback would bound depth
// too, but takes time quadratic in the length of a list: 49 s for 300 000 empty objects.)
// `dom_bytes`: where several documents are kept together (the lines of a metrics log), the estimate
// so far, added to and checked against the same bound (a 16 MiB log of short lines took 632 MB).
// A number literal longer than 64 characters is refused as well.
nlohmann::json parse_json(const std::string& text, const std::string& what, bool allow_exceptions = true,
                          int64_t* dom_bytes = nullptr);

}  // namespace cc
