#include "claims/folder_defaults.h"

#include <string>

#include "util/error.h"

namespace cc::claims {
namespace fs = std::filesystem;

namespace {

// Copies every mark of `from` at or below `pointer` into `to` (the node was copied whole).
void copy_marks(const std::map<std::string, SourcePos>& from, std::map<std::string, SourcePos>& to,
                const std::string& pointer) {
  for (auto it = from.lower_bound(pointer); it != from.end(); ++it) {
    const std::string& p = it->first;
    if (p.compare(0, pointer.size(), pointer) != 0) break;
    if (p.size() == pointer.size() || p[pointer.size()] == '/') to.emplace(p, it->second);
  }
}

// The keys of `defaults` at `pointer` that `claim` lacks, copied with their positions; mappings both
// have are merged key by key.
void fill(YamlDoc& claim, const YamlDoc& defaults, const std::string& pointer, nlohmann::json& into,
          const nlohmann::json& from) {
  for (const auto& [key, value] : from.items()) {
    const std::string child = pointer + "/" + escape_pointer_token(key);
    if (!into.contains(key)) {
      into[key] = value;
      copy_marks(defaults.marks, claim.marks, child);
      copy_marks(defaults.key_marks, claim.key_marks, child);
    } else if (into[key].is_object() && value.is_object()) {
      fill(claim, defaults, child, into[key], value);
    }
  }
}

void apply(YamlDoc& claim, const YamlDoc& defaults) {
  if (!defaults.value.is_object())
    throw Error(defaults.at(""), "a defaults file is a mapping of paper, tier, subject and analysis_seed");
  for (const auto& [key, value] : defaults.value.items()) {
    if (key != "paper" && key != "tier" && key != "subject" && key != "analysis_seed")
      throw Error(
          defaults.key_at("", key),
          "unknown field '" + key + "' in a defaults file; expected one of paper, tier, subject, analysis_seed");
    if (key == "analysis_seed" &&
        !(value.is_number_integer() && value.get<int64_t>() >= 0 && value.get<int64_t>() < (int64_t{1} << 62)))
      throw Error(defaults.at("/analysis_seed"), "field 'analysis_seed': an integer in [0, 2^62)");
    if (key == "paper" && !value.is_object()) throw Error(defaults.at("/paper"), "field 'paper': expected a mapping");
  }
  nlohmann::json top = nlohmann::json::object();
  for (const char* key : {"paper", "tier"})
    if (defaults.value.contains(key)) top[key] = defaults.value[key];
  fill(claim, defaults, "", claim.value, top);
  // The seed of the kinds' sampled evaluation sets: not a claim field, a default its kinds read.
  if (defaults.value.contains("analysis_seed") && !claim.inherited.contains("analysis_seed"))
    claim.inherited["analysis_seed"] = defaults.value["analysis_seed"];
  // The subject is one choice (run, sweep or theory, with its checkpoint and seeds): taken whole.
  if (defaults.value.contains("subject") && !claim.value.contains("subject")) {
    claim.value["subject"] = defaults.value["subject"];
    copy_marks(defaults.marks, claim.marks, "/subject");
    copy_marks(defaults.key_marks, claim.key_marks, "/subject");
  }
}

}  // namespace

std::vector<fs::path> defaults_files_for(const fs::path& claim_file) {
  std::error_code ec;
  fs::path dir = fs::absolute(claim_file, ec).parent_path();
  if (ec) return {};
  std::vector<fs::path> folders;  // nearest first, up to `claims`
  for (fs::path d = dir;; d = d.parent_path()) {
    folders.push_back(d);
    if (d.filename() == "claims") break;
    if (d == d.parent_path()) {  // no `claims` above: the claim's own folder only
      folders.resize(1);
      break;
    }
  }
  std::vector<fs::path> files;
  for (const auto& d : folders)
    if (fs::is_regular_file(d / kDefaultsFile, ec)) files.push_back(d / kDefaultsFile);
  return files;
}

void apply_folder_defaults(YamlDoc& claim) {
  if (!claim.value.is_object()) return;  // the claim's own error comes first
  for (const auto& file : defaults_files_for(claim.file)) apply(claim, load_yaml_file(file.string()));
}

}  // namespace cc::claims
