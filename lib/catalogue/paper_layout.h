#pragma once
// Where a paper's files are. Each paper is a folder papers/NAME/ with runs.yaml (its runs and sweeps),
// claims/ (its claim files), an optional paper.yaml (its facts) and its committed fixtures: the
// folder paper.yaml's `fixtures:` names (relative to paper.yaml), else fixtures/ beside runs.yaml.
// The engine knows papers only through this layout: no paper's name or path is written in lib/ or app/.
#include <filesystem>
#include <optional>
#include <vector>

namespace cc::catalogue {

// A paper's folder: one with a runs.yaml and a claims/ folder.
bool is_paper_folder(const std::filesystem::path& dir);

// The checkout the working directory lies in: the nearest of it and the folders above it that has a
// papers/NAME paper folder (as git finds .git), relative to the working directory ("." there, "../.."
// two levels down); "." when there is none.
std::filesystem::path checkout_root();

// Every paper of the checkout at ROOT: each ROOT/papers/NAME that is_paper_folder, sorted.
std::vector<std::filesystem::path> paper_folders(const std::filesystem::path& root = checkout_root());

// The committed fixtures of the paper whose runs file this is (see above). The folder need not exist.
std::filesystem::path fixtures_beside(const std::filesystem::path& runs_file);

// The folder of the paper's committed report (paper.yaml's `report:`, relative to it), or none: the
// claims that report says took longest start first in a verification whose report folder has no
// report of its own yet (a fresh clone's first `verify`). A `report:` that is not a string is an Error
// naming paper.yaml's line.
std::optional<std::filesystem::path> committed_report_beside(const std::filesystem::path& runs_file);

// The runs file whose fixtures this folder is: the paper of the checkout whose fixtures_beside() is
// this folder, else DIR/../runs.yaml where that exists; nullopt when neither.
std::optional<std::filesystem::path> runs_beside(const std::filesystem::path& fixtures_dir,
                                                 const std::filesystem::path& root = checkout_root());

}  // namespace cc::catalogue
