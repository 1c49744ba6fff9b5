#pragma once
// Per-folder defaults of claim files, in LLVM lit's manner (a folder's lit.local.cfg, refined below it):
// a `defaults.yaml` in a claim's folder or any folder above it, up to the paper's `claims/` folder,
// gives the claim the keys it does not write itself. Nearer files refine farther ones. A defaults
// file may set `paper` (e.g. `paper: {arxiv: 2301.05217v3}`, merged key by key with the claim's),
// `tier` and `subject` (taken whole, when the claim has none), and `analysis_seed`, the seed of the
// sampled evaluation sets of every kind whose claim gives no `eval_seed` (YamlDoc::inherited; the
// engine's default is 0); any other key is an error naming the file, line and column. A value taken from a defaults
// file keeps that file's position, so an error about it names defaults.yaml, not the claim.
#include <filesystem>
#include <vector>

#include "util/yaml_json.h"

namespace cc::claims {

inline constexpr const char* kDefaultsFile = "defaults.yaml";

// The defaults files that apply to `claim_file`, nearest first: its folder and each one above it up to
// the nearest enclosing folder named `claims`; only its own folder when there is none.
std::vector<std::filesystem::path> defaults_files_for(const std::filesystem::path& claim_file);

// Fills `claim` (a claim file's document, read from `claim.file`) from its folders' defaults files.
void apply_folder_defaults(YamlDoc& claim);

}  // namespace cc::claims
