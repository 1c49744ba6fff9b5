#include "util/yaml_json.h"

#include "util/file_io.h"
#include "util/quoted_list.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <sstream>

namespace cc {

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

namespace {

SourcePos pos_of(const std::string& file, const YAML::Mark& m) {
  return SourcePos{file, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

// Limits that keep a hostile file small in time and memory: aliases let a few hundred bytes
// stand for billions of nodes ("billion laughs"), and every node here becomes a JSON value.
constexpr size_t kMaxNodes = 100000;
constexpr int kMaxDepth = 64;
constexpr size_t kMaxStringChars = 65536;

// Records where each document starts; parses nothing else.
struct DocumentStarts : YAML::EventHandler {
  std::vector<YAML::Mark> marks;
  void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

struct Budget {
  size_t nodes = 0;
};

// No explicit tags: "!!str 0.98" would otherwise read as whatever the schema expects, and a tag
// that says one type while the schema wants another is a mistake worth naming.
void check_tag(const YAML::Node& node, const std::string& file) {
  const std::string& tag = node.Tag();
  if (tag.empty() || tag == "?" || tag == "!") return;  // untagged (plain) or quoted
  std::string shown = tag;
  const std::string core = "tag:yaml.org,2002:";
  if (shown.rfind(core, 0) == 0) shown = "!!" + shown.substr(core.size());
  throw Error(pos_of(file, node.Mark()), "explicit YAML tag '" + shown + "' is not accepted: write the value plainly");
}

// Text from a claim or runs file reaches reports, figures (a gnuplot script) and terminals. Control
// characters have no place in it: a newline inside a one-line field could end a gnuplot command
// and start another, an escape sequence could rewrite a terminal, a bidirectional override could
// make a reviewer read other text than the program does. Refused here for every string; newline and
// tab stay for prose fields (ObjectReader::prose), which never reach a figure.
// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no surrogates,
// nothing past U+10FFFF), or 0. Reports, JUnit and report.json are UTF-8: a stray 0xFF read here
// would only fail when the report is written, after every claim was measured.
size_t utf8_length(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned c = b(i);
  const auto cont = [&](size_t k) { return (b(k) & 0xC0u) == 0x80u; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return b(i + 1) >= lo && b(i + 1) <= hi && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return b(i + 1) >= lo && b(i + 1) <= hi && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

void check_characters(const std::string& s, const SourcePos& at, const char* what) {
  for (size_t i = 0, n = 0; i < s.size(); i += n) {
    n = utf8_length(s, i);
    if (n == 0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned char>(s[i]));
      throw Error(at, std::string(what) + " is not valid UTF-8 (byte " + std::to_string(i + 1) + " is " + buf +
                          "): claim and runs files are UTF-8 text");
    }
  }
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::string name;
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "U+%04X", c);
      name = buf;
    } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      name = "a C1 control character";
    } else if (c == 0xe2 && i + 2 < s.size()) {
      const auto b = static_cast<unsigned char>(s[i + 1]), d = static_cast<unsigned char>(s[i + 2]);
      if (b == 0x80 && (d == 0xa8 || d == 0xa9)) name = "a Unicode line or paragraph separator";
      if ((b == 0x80 && d >= 0xaa && d <= 0xae) || (b == 0x81 && d >= 0xa6 && d <= 0xa9))
        name = "a bidirectional override";
    }
    if (!name.empty())
      throw Error(at, std::string(what) + " holds a control character (" + name + ") at byte " + std::to_string(i + 1) +
                          ": claim and runs files are plain text");
  }
}

// Plain scalars get YAML 1.2 core-schema types; quoted scalars stay strings.
nlohmann::json scalar_to_json(const YAML::Node& node, const std::string& file) {
  const std::string& s = node.Scalar();
  check_characters(s, pos_of(file, node.Mark()), "this value");
  if (s.size() > kMaxStringChars)
    throw Error(pos_of(file, node.Mark()), "a value of " + std::to_string(s.size()) + " characters (at most " +
                                               std::to_string(kMaxStringChars) + ")");
  if (node.Tag() == "!") return s;  // quoted
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  {
    std::istringstream in(s);
    long long i;
    if (in >> i && in.eof()) return static_cast<int64_t>(i);
  }
  {
    std::istringstream in(s);
    double d;
    if (in >> d && in.eof() && std::isfinite(d)) return d;
  }
  return s;
}

nlohmann::json convert(const YAML::Node& node, const std::string& pointer, YamlDoc& doc, Budget& budget, int depth) {
  if (++budget.nodes > kMaxNodes)
    throw Error(pos_of(doc.file, node.Mark()), "the document expands to more than " + std::to_string(kMaxNodes) +
                                                   " values (counting each alias as often as it is used)");
  if (depth > kMaxDepth)
    throw Error(pos_of(doc.file, node.Mark()), "nested more than " + std::to_string(kMaxDepth) + " levels deep");
  if (node.IsDefined()) check_tag(node, doc.file);
  doc.marks[pointer] = pos_of(doc.file, node.Mark());
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar_to_json(node, doc.file);
    case YAML::NodeType::Sequence: {
      nlohmann::json arr = nlohmann::json::array();
      for (size_t i = 0; i < node.size(); ++i)
        arr.push_back(convert(node[i], pointer + "/" + std::to_string(i), doc, budget, depth + 1));
      return arr;
    }
    case YAML::NodeType::Map: {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) throw Error(pos_of(doc.file, kv.first.Mark()), "mapping keys must be plain strings");
        const std::string key = kv.first.Scalar();
        check_characters(key, pos_of(doc.file, kv.first.Mark()), "this key");
        if (key.find_first_of("\n\t") != std::string::npos)
          throw Error(pos_of(doc.file, kv.first.Mark()), "a mapping key holds a newline or tab");
        if (obj.contains(key)) throw Error(pos_of(doc.file, kv.first.Mark()), "duplicate key '" + key + "'");
        const std::string child = pointer + "/" + escape_pointer_token(key);
        if (key.size() > 256)
          throw Error(pos_of(doc.file, kv.first.Mark()), "a mapping key longer than 256 characters");
        check_tag(kv.first, doc.file);
        doc.key_marks[child] = pos_of(doc.file, kv.first.Mark());
        obj[key] = convert(kv.second, child, doc, budget, depth + 1);
        // Point errors about a key at the key itself when the value has no better mark.
        if (!kv.second.IsDefined() || kv.second.IsNull()) doc.marks[child] = pos_of(doc.file, kv.first.Mark());
      }
      return obj;
    }
  }
  return nullptr;
}

YamlDoc parse(const std::string& text, const std::string& name) {
  YamlDoc doc;
  doc.file = name;
  if (text.size() > kMaxYamlBytes)
    throw Error(name + ": " + std::to_string(text.size()) + " bytes; a claim or run file is at most " +
                std::to_string(kMaxYamlBytes) + " bytes");
  YAML::Node root;
  bool any_document = false;
  try {
    // Not YAML::LoadAll: yaml-cpp 0.7 loops forever on some malformed input (a lone ',': its
    // issue #1040, fixed upstream in PR #1319 after 0.8). Count the documents with the event
    // parser instead, stopping at the second; a "document" that starts where the previous one
    // did means the parser is stuck on input it cannot read.
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    while (starts.marks.size() < 2 && parser.HandleNextDocument(starts)) {
    }
    if (starts.marks.size() == 2) {
      const YAML::Mark& a = starts.marks[0];
      const YAML::Mark& b = starts.marks[1];
      if (a.pos == b.pos) throw Error(pos_of(name, b), "YAML syntax error: unexpected token");
      // the rest would be dropped without a word
      throw Error(pos_of(name, b), "a second YAML document ('---'): a file holds exactly one");
    }
    any_document = !starts.marks.empty();
    if (any_document) root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(pos_of(name, e.mark), "YAML syntax error: " + e.msg);
  }
  Budget budget;
  doc.value = any_document ? convert(root, "", doc, budget, 0) : nlohmann::json(nullptr);
  return doc;
}

const char* type_name(const nlohmann::json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number_integer()) return "an integer";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "a list";
  return "a mapping";
}

}  // namespace

SourcePos YamlDoc::at(const std::string& pointer) const {
  std::string p = pointer;
  while (true) {
    auto it = marks.find(p);
    if (it != marks.end()) return it->second;
    if (p.empty()) return SourcePos{file, 0, 0};
    p = p.substr(0, p.rfind('/'));
  }
}

SourcePos YamlDoc::key_at(const std::string& parent, const std::string& key) const {
  const auto it = key_marks.find(parent + "/" + escape_pointer_token(key));
  return it != key_marks.end() ? it->second : at(parent);
}

YamlDoc load_yaml_file(const std::string& path) {
  return parse(read_regular_file(path, kMaxYamlBytes, "claim or run file"), path);
}

YamlDoc load_yaml_string(const std::string& text, const std::string& name) { return parse(text, name); }

// ---- ObjectReader -------------------------------------------------------------------------

ObjectReader::ObjectReader(const YamlDoc& doc, std::string pointer)
    : ObjectReader(doc, pointer.empty() ? doc.value : doc.value.at(nlohmann::json::json_pointer(pointer)), pointer) {}

ObjectReader::ObjectReader(const YamlDoc& doc, const nlohmann::json& obj, std::string pointer)
    : doc_(&doc), obj_(&obj), pointer_(std::move(pointer)) {
  if (!obj.is_object()) {
    std::string where = pointer_.empty() ? "the document" : "'" + path("") + "'";
    throw Error(doc.at(pointer_), where + " must be a mapping, got " + type_name(obj));
  }
}

std::string ObjectReader::path(const std::string& key) const {
  std::string p = pointer_;
  std::replace(p.begin(), p.end(), '/', '.');
  if (!p.empty() && p[0] == '.') p = p.substr(1);
  if (key.empty()) return p;
  return p.empty() ? key : p + "." + key;
}

void ObjectReader::fail(const std::string& key, const std::string& message) const {
  const std::string ptr = key.empty() ? pointer_ : pointer_ + "/" + escape_pointer_token(key);
  throw Error(doc_->at(ptr), "field '" + path(key) + "': " + message);
}

bool ObjectReader::has(const std::string& key) const { return obj_->contains(key) && !(*obj_)[key].is_null(); }

namespace {

FieldSpec field(std::string type, bool required, nlohmann::json fallback = nullptr,
                std::vector<std::string> allowed = {}, nlohmann::json range = nullptr,
                nlohmann::json placeholder = nullptr) {
  FieldSpec f;
  f.type = std::move(type);
  f.required = required;
  f.fallback = std::move(fallback);
  f.allowed = std::move(allowed);
  f.range = std::move(range);
  f.placeholder = std::move(placeholder);
  return f;
}

}  // namespace

nlohmann::json FieldSpec::to_json() const {
  nlohmann::json j = {{"name", name}, {"type", type}, {"required", required}};
  if (!required) j["default"] = fallback;
  if (!allowed.empty()) j["allowed"] = allowed;
  if (!range.is_null()) j["range"] = range;
  return j;
}

ObjectReader ObjectReader::recording(FieldRecord& record) {
  static const YamlDoc empty_doc = [] {
    YamlDoc d;
    d.file = "<parameters>";
    d.value = nlohmann::json::object();
    return d;
  }();
  ObjectReader r(empty_doc, "");
  r.record_ = &record;
  return r;
}

bool ObjectReader::note(const std::string& key, FieldSpec spec) {
  if (!record_) return false;
  spec.name = path(key);
  FieldSpec* described = nullptr;
  for (auto& f : *record_)
    if (f.name == spec.name) described = &f;
  if (described) {
    // Read again more precisely (read_set: string("set") for the message, then one_of): keep the first
    // reading's required flag, take the later one's allowed values or range.
    if (described->allowed.empty() && !spec.allowed.empty()) {
      described->type = spec.type;
      described->allowed = spec.allowed;
      described->placeholder = spec.allowed.front();
    }
    if (described->range.is_null() && !spec.range.is_null()) described->range = spec.range;
  } else {
    if (spec.placeholder.is_null()) {
      if (spec.type == "number" || spec.type == "integer") spec.placeholder = 0;
      if (spec.type == "string" || spec.type == "text") spec.placeholder = "x";
      if (spec.type == "one_of") spec.placeholder = spec.allowed.empty() ? "x" : spec.allowed.front();
      if (spec.type == "object" || spec.type == "any") spec.placeholder = nlohmann::json::object();
    }
    record_->push_back(std::move(spec));
  }
  const bool absent = !obj_->contains(key);
  if (absent) used_.push_back(key);
  return absent;
}

const nlohmann::json& ObjectReader::placeholder(const std::string& key) const {
  const std::string name = path(key);
  for (const auto& f : *record_)
    if (f.name == name) return f.placeholder;
  throw Error("internal: no recorded field '" + name + "'");
}

const nlohmann::json& ObjectReader::need(const std::string& key) {
  used_.push_back(key);
  if (!obj_->contains(key)) {
    throw Error(doc_->at(pointer_), "missing required field '" + path(key) + "'");
  }
  return (*obj_)[key];
}

const nlohmann::json& ObjectReader::raw(const std::string& key) {
  if (record_ && note(key, field("any", true))) return placeholder(key);
  return need(key);
}

double ObjectReader::number(const std::string& key) {
  if (record_ && note(key, field("number", true))) return 0;
  const auto& v = need(key);
  if (!v.is_number()) fail(key, std::string("expected a number, got ") + type_name(v));
  return v.get<double>();
}
double ObjectReader::number(const std::string& key, double fallback) {
  if (record_) note(key, field("number", false, fallback));
  used_.push_back(key);
  return has(key) ? number(key) : fallback;
}
int64_t ObjectReader::integer(const std::string& key) {
  if (record_ && note(key, field("integer", true))) return 0;
  const auto& v = need(key);
  if (!v.is_number_integer()) fail(key, std::string("expected an integer, got ") + type_name(v));
  return v.get<int64_t>();
}
int64_t ObjectReader::integer_in(const std::string& key, int64_t fallback, int64_t low, int64_t high) {
  if (record_) note(key, field("integer", false, fallback, {}, {low, high}));
  const int64_t v = integer(key, fallback);
  if (v < low || v > high)
    fail(key, std::to_string(v) + " is outside [" + std::to_string(low) + ", " + std::to_string(high) + "]");
  return v;
}
int64_t ObjectReader::integer_in(const std::string& key, int64_t low, int64_t high) {
  if (record_ && note(key, field("integer", true, nullptr, {}, {low, high}, low))) return low;
  need(key);
  return integer_in(key, 0, low, high);
}
int64_t ObjectReader::integer(const std::string& key, int64_t fallback) {
  if (record_) note(key, field("integer", false, fallback));
  used_.push_back(key);
  return has(key) ? integer(key) : fallback;
}
bool ObjectReader::boolean(const std::string& key, bool fallback) {
  if (record_) note(key, field("boolean", false, fallback));
  used_.push_back(key);
  if (!has(key)) return fallback;
  const auto& v = (*obj_)[key];
  if (!v.is_boolean()) fail(key, std::string("expected true or false, got ") + type_name(v));
  return v.get<bool>();
}
std::string ObjectReader::prose(const std::string& key) {
  if (record_ && note(key, field("text", true))) return "x";
  const auto& v = need(key);
  if (!v.is_string()) fail(key, std::string("expected a string, got ") + type_name(v));
  if (v.get_ref<const std::string&>().size() > kMaxStringChars)
    fail(key, "longer than " + std::to_string(kMaxStringChars) + " characters");
  return v.get<std::string>();
}
std::string ObjectReader::prose(const std::string& key, const std::string& fallback) {
  if (record_) note(key, field("text", false, fallback));
  used_.push_back(key);
  return has(key) ? prose(key) : fallback;
}
std::string ObjectReader::string(const std::string& key) {
  if (record_ && note(key, field("string", true))) return "x";
  std::string s = prose(key);
  if (s.find_first_of("\n\t") != std::string::npos)
    fail(key,
         "a one-line field holds a newline or tab (a folded '>' or literal '|' block is for prose fields such as "
         "notes)");
  return s;
}
std::string ObjectReader::string(const std::string& key, const std::string& fallback) {
  if (record_) note(key, field("string", false, fallback));
  used_.push_back(key);
  return has(key) ? string(key) : fallback;
}
std::string ObjectReader::one_of(const std::string& key, const std::vector<std::string>& allowed) {
  if (record_ && note(key, field("one_of", true, nullptr, allowed))) return allowed.empty() ? "x" : allowed.front();
  need(key);
  return one_of(key, allowed, "");
}
std::string ObjectReader::one_of(const std::string& key, const std::vector<std::string>& allowed,
                                 const std::string& fallback) {
  if (record_ && note(key, field("one_of", false, fallback, allowed)) &&
      std::find(allowed.begin(), allowed.end(), fallback) == allowed.end())
    return allowed.empty() ? fallback : allowed.front();  // a fallback outside `allowed`: required in effect
  std::string v = string(key, fallback);
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    fail(key, "'" + v + "' is not one of: " + list);
  }
  return v;
}
namespace {
// Entries of any one list a file gives (steps, metrics, sets, keys): the longest committed list has 12.
// Each entry is measured or trained on, so a list of thousands is a mistake that would cost minutes and
// gigabytes (20 000 metrics of first_step_order: 132 s, 1.8 GB, a 480 MB report), refused when read.
constexpr size_t kMaxListEntries = 256;
}  // namespace

std::vector<int64_t> ObjectReader::integers(const std::string& key, std::vector<int64_t> fallback) {
  if (record_) note(key, field("integers", false, fallback));
  used_.push_back(key);
  if (!has(key)) return fallback;
  const auto& v = (*obj_)[key];
  if (!v.is_array()) fail(key, std::string("expected a list of integers, got ") + type_name(v));
  if (v.size() > kMaxListEntries)
    fail(key, std::to_string(v.size()) + " entries; at most " + std::to_string(kMaxListEntries));
  std::vector<int64_t> out;
  for (const auto& e : v) {
    if (!e.is_number_integer()) fail(key, std::string("expected a list of integers, found ") + type_name(e));
    out.push_back(e.get<int64_t>());
  }
  return out;
}
std::vector<std::string> ObjectReader::strings(const std::string& key, std::vector<std::string> fallback) {
  if (record_) note(key, field("strings", false, fallback));
  used_.push_back(key);
  if (!has(key)) return fallback;
  const auto& v = (*obj_)[key];
  if (!v.is_array()) fail(key, std::string("expected a list of strings, got ") + type_name(v));
  if (v.size() > kMaxListEntries)
    fail(key, std::to_string(v.size()) + " entries; at most " + std::to_string(kMaxListEntries));
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (!e.is_string()) fail(key, std::string("expected a list of strings, found ") + type_name(e));
    if (e.get_ref<const std::string&>().find_first_of("\n\t") != std::string::npos)
      fail(key, "an entry holds a newline or tab");
    out.push_back(e.get<std::string>());
  }
  return out;
}
std::vector<std::string> ObjectReader::strings(const std::string& key) {
  if (record_ && note(key, field("strings", true, nullptr, {}, nullptr, nlohmann::json::array({"x"})))) return {"x"};
  need(key);
  auto out = strings(key, {});
  if (out.empty()) fail(key, "expected at least one entry");
  return out;
}
ObjectReader ObjectReader::object(const std::string& key) {
  if (record_ && note(key, field("object", true))) return sub_reader(key, placeholder(key));
  return sub_reader(key, need(key));
}
ObjectReader ObjectReader::object_or_empty(const std::string& key) {
  static const nlohmann::json empty = nlohmann::json::object();
  if (record_) note(key, field("object", false, nlohmann::json::object()));
  used_.push_back(key);
  if (!has(key)) return sub_reader(key, empty);
  return object(key);
}

ObjectReader ObjectReader::sub_reader(const std::string& key, const nlohmann::json& obj) const {
  ObjectReader r(*doc_, obj, pointer_ + "/" + escape_pointer_token(key));
  r.record_ = record_;
  return r;
}

void ObjectReader::finish() const {
  if (record_) return;  // recording: the object is empty, every read is described
  for (const auto& kv : obj_->items()) {
    if (std::find(used_.begin(), used_.end(), kv.key()) != used_.end()) continue;
    fail(kv.key(), "unknown field; expected one of " + quoted_list(used_));
  }
}

}  // namespace cc
