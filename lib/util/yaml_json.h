#pragma once
// YAML files are read into nlohmann::json, keeping the source position of every node under
// its JSON pointer ("/task/fraction"). All later validation works on plain JSON, and every
// error can still name FILE:LINE:COL. ObjectReader is the strict field reader used by every
// schema (run configs, claim files): wrong types, missing fields and unknown keys all fail.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "util/error.h"

namespace cc {

struct YamlDoc {
  std::string file;
  nlohmann::json value;
  std::map<std::string, SourcePos> marks;      // JSON pointer -> position of that node
  std::map<std::string, SourcePos> key_marks;  // JSON pointer -> position of the key that names it
  // Settings the document inherits from its folder rather than states (a claim's claims/defaults.yaml:
  // `analysis_seed`), which a schema reader may take as a default (analysis/common.h: read_eval_seed).
  nlohmann::json inherited = nlohmann::json::object();

  // Position of the node at `pointer`, or of its closest ancestor that has one.
  SourcePos at(const std::string& pointer) const;
  // Position of the key `key` of the mapping at `parent` (a name's own line, where an error about the
  // name belongs), else at(parent). The key is escaped as a JSON pointer token here.
  SourcePos key_at(const std::string& parent, const std::string& key) const;
};

// A mapping key as a JSON pointer token ('~' -> "~0", '/' -> "~1").
std::string escape_pointer_token(const std::string& key);

// Throws cc::Error("FILE:LINE:COL: YAML syntax error: ...") on parse errors and on what
// yaml-cpp would accept silently: duplicate mapping keys, a second document, explicit tags
// ("!!str 0.98"). Bounded in time and memory for any input: at most kMaxYamlBytes (256 KiB) of text, from a regular
// file, 100000 values after alias expansion, 64 levels of nesting, 65536 characters a string.
YamlDoc load_yaml_file(const std::string& path);
YamlDoc load_yaml_string(const std::string& text, const std::string& name);

// What a schema reads, as data (`claimcheck kinds --json`): filled by an ObjectReader in recording mode
// (ObjectReader::recording), from the same accessor calls that read a real file, so the description
// cannot disagree with the parser on the fields it reaches.
struct FieldSpec {
  std::string name;  // dotted path within the object read: "size", "reset"
  std::string type;  // number | integer | boolean | string | text | one_of | integers | strings | object | any
  bool required = false;
  nlohmann::json fallback;           // the default (null when required)
  std::vector<std::string> allowed;  // one_of's values
  nlohmann::json range;              // [low, high] of an integer_in, else null
  nlohmann::json placeholder;        // what a required field reads as while recording
  nlohmann::json to_json() const;
};
using FieldRecord = std::deque<FieldSpec>;  // stable references: a placeholder is returned by reference

// A JSON object being read against a schema. `pointer` is where it sits in the document.
class ObjectReader {
 public:
  ObjectReader(const YamlDoc& doc, std::string pointer);
  ObjectReader(const YamlDoc& doc, const nlohmann::json& obj, std::string pointer);

  // A reader of an empty object that records every field the schema reads into `record` (the first read
  // of a name describes it) and reads a missing required field as a placeholder of its type; finish()
  // accepts anything. A schema's own checks may still fail() on a placeholder: the fields read before are
  // recorded (the caller catches).
  static ObjectReader recording(FieldRecord& record);

  bool has(const std::string& key) const;
  const nlohmann::json& raw(const std::string& key);  // marks key as used; must exist

  double number(const std::string& key);
  double number(const std::string& key, double fallback);
  int64_t integer(const std::string& key);
  int64_t integer(const std::string& key, int64_t fallback);
  // An integer field with its sane range: a value outside it is an error naming the range.
  int64_t integer_in(const std::string& key, int64_t fallback, int64_t low, int64_t high);
  int64_t integer_in(const std::string& key, int64_t low, int64_t high);  // required
  bool boolean(const std::string& key, bool fallback);
  // One line of text: a newline or tab in it is an error (see prose).
  std::string string(const std::string& key);
  std::string string(const std::string& key, const std::string& fallback);
  // Prose (notes, reasons): newlines and tabs allowed. Other control characters are refused for
  // every string at load time, with FILE:LINE:COL.
  std::string prose(const std::string& key);
  std::string prose(const std::string& key, const std::string& fallback);
  std::string one_of(const std::string& key, const std::vector<std::string>& allowed, const std::string& fallback);
  std::string one_of(const std::string& key, const std::vector<std::string>& allowed);  // required
  std::vector<int64_t> integers(const std::string& key, std::vector<int64_t> fallback);
  std::vector<std::string> strings(const std::string& key, std::vector<std::string> fallback);
  std::vector<std::string> strings(const std::string& key);  // required, at least one entry
  ObjectReader object(const std::string& key);               // required sub-object
  ObjectReader object_or_empty(const std::string& key);

  // Fails on any key the schema did not read ("unknown field 'x'; expected one of ...").
  void finish() const;

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  // Whether this reader is describing a schema (recording) rather than reading a file: a schema's
  // rules across fields (exactly one of a, b; a goes with b) are not checked on placeholders then.
  bool describing() const { return record_ != nullptr; }
  std::string path(const std::string& key) const;  // dotted path for messages: task.fraction
  const YamlDoc& doc() const { return *doc_; }
  const std::string& pointer() const { return pointer_; }
  const nlohmann::json& json() const { return *obj_; }  // the object itself, as read

 private:
  const nlohmann::json& need(const std::string& key);
  // Recording mode: describes `key` (unless described already) and says whether it is absent, in which
  // case a required accessor returns the spec's placeholder.
  bool note(const std::string& key, FieldSpec spec);
  const nlohmann::json& placeholder(const std::string& key) const;
  ObjectReader sub_reader(const std::string& key, const nlohmann::json& obj) const;  // keeps the recording
  FieldRecord* record_ = nullptr;
  const YamlDoc* doc_;
  const nlohmann::json* obj_;
  std::string pointer_;
  std::vector<std::string> used_;
};

}  // namespace cc
