// claimcheck new-paper NAME: the skeleton of a paper's folder papers/NAME, the only place a new paper
// touches (CONTRIBUTING.md, "Add a paper"). The build finds its module (cmake/PaperModules.cmake), its
// tests (papers/NAME/tests) and ctest its claims (`list --ctest`) with no edit elsewhere.
//
// What it writes is a starting point that works as written: one tiny run of an existing task family
// (modular_addition, a + b mod 11, trained in seconds under `--budget cpu`) and one claim about it, both
// to be replaced by the paper's own; a module that registers nothing yet, with the calls it will make;
// a test that the module is linked. Nothing in it is a result of any paper.
#include <filesystem>
#include <iostream>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/yaml_json.h"

namespace cc::app {
namespace fs = std::filesystem;
namespace {

std::string substitute(std::string text, const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [key, value] : values)
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

// {path under papers/NAME, contents}; @NAME@, @TITLE@, @ARXIV@, @BINARY@ and @TESTS@ are filled in.
const std::vector<std::pair<std::string, std::string>>& skeleton() {
  static const std::vector<std::pair<std::string, std::string>> files = {
      {"README.md", R"~(# @TITLE@ on claimcheck's engine

A paper verified by claimcheck: everything it needs is in this folder (CONTRIBUTING.md, "Add a paper").
Written by `claimcheck new-paper @NAME@`; replace the example run and claim with the paper's own.

| file | what |
| --- | --- |
| `paper.yaml` | the paper, for the report's header |
| `assumptions.md` | what the paper leaves open, and each claim's reading and threshold (committed before measuring) |
| `runs.yaml` | the runs, every field spelled out |
| `claims/` | one YAML file per claim; `claims/defaults.yaml` what they all share |
| `module/` | the task family and the kinds only this paper needs (`cc::@NAME@`) |
| `tests/` | the module's tests (@TESTS@) |

```sh
@BINARY@ verify papers/@NAME@ --budget cpu --report reports/@NAME@
```
)~"},
      {"paper.yaml", R"~(# The paper this folder verifies; the report's header reads it.
paper:
  title: "@TITLE@"
  authors: "(the paper's authors)"
  arxiv: @ARXIV@
)~"},
      {"assumptions.md", R"~(# @TITLE@: assumptions

Committed before any claim is measured (git log shows the order).

## What the paper leaves open

| choice | value here | why |
| --- | --- | --- |

## Readings

One section per claim: the paper's words, the measurement that reads them, the threshold and why.
)~"},
      {"runs.yaml", R"~(# The runs the claims read. The example below is a tiny run of the modular_addition family
# (papers/nanda_grokking/module: a + b mod 11), which trains in seconds under --budget cpu; replace it
# with this paper's runs, read by the task family its module registers.
runs:
  example:
    seeds: [0, 1, 2]
    tier: cpu
    config:
      task: {family: modular_addition, modulus: 11, train_fraction: 0.5, split_seed: 0}
      model: {n_layers: 1, mlp_layers: [0], d_model: 32, n_heads: 2, d_head: 16, d_mlp: 64, activation: relu,
              output_vocab: numbers, init_std: 0.17677669529663687}
      train: {batch: full, steps: 300, lr: 1.0e-2, weight_decay: 0.0, beta1: 0.9, beta2: 0.98, eps: 1.0e-8,
              warmup_steps: 10, eval_every: 50, checkpoint_every: 100, resume_every: 100}
)~"},
      {"claims/defaults.yaml",
       R"~(# What every claim of this folder (and the folders below it) says unless it says otherwise
# (docs/claim-files.md, "Folder defaults").
paper:
  arxiv: @ARXIV@
tier: cpu
)~"},
      {"claims/E1.yaml", R"~(# An example claim of the scaffold, not the paper's: replace it with one file per claim.
id: E1
title: "The example run fits its training pairs"
paper: {section: "0", quote: "(the paper's words the claim rests on)"}
reported: {value: 0.9, text: "train accuracy above 90 %"}
subject: {run: example, checkpoint: final, seeds: all}
measure: {kind: accuracy, set: train}
expect: {op: ">", threshold: 0.9, seeds: each, min_seeds: 3}
control: {checkpoint: init}
)~"},
      {"module/CMakeLists.txt",
       R"~(# The module of @NAME@: found by cmake/PaperModules.cmake, linked into claimcheck, the tests and
# the benchmarks, and registered at start-up (lib/plugin/paper_module.h).
claimcheck_paper_module(SOURCES module.cpp)
)~"},
      {"module/module.cpp",
       R"~(// The module of @NAME@ (lib/plugin/paper_module.h says what a module registers and how). Its headers
// are included as "papers/@NAME@/module/x.h"; its code lives in namespace cc::@NAME@.
#include "plugin/paper_module.h"

namespace cc::@NAME@ {

void register_module(const plugin::ModuleRegistrar& r) {
  // The task family this paper's runs name (task.family), e.g.
  //   train::TaskFamily f;  f.name = "...";  f.read = ...;  f.data = ...;  r.add_family(std::move(f));
  // and the kinds only this paper needs, one small file each:
  //   r.add_kinds([](analysis::Registry& kinds) { register_my_kind(kinds); });
  (void)r;
}

}  // namespace cc::@NAME@
)~"},
      {"tests/test_module.cpp", R"~(// The tests of @NAME@'s module (built as @NAME@_tests, label paper:@NAME@).
#include <gtest/gtest.h>

#include <algorithm>

#include "plugin/paper_module.h"

TEST(@NAME@, TheModuleIsLinked) {
  const auto& papers = cc::plugin::linked_modules();
  EXPECT_NE(std::find(papers.begin(), papers.end(), "@NAME@"), papers.end());
}
)~"},
  };
  return files;
}

// {path under the project, contents} of `--project`: a project of its own around papers/NAME, built
// against claimcheck's installed package (CONTRIBUTING.md, "out of this tree").
const std::vector<std::pair<std::string, std::string>>& project_files() {
  static const std::vector<std::pair<std::string, std::string>> files = {
      {"CMakeLists.txt", R"~(# Papers verified by claimcheck's engine, built against its installed CMake package
# (written by `claimcheck new-paper @NAME@ --project`). Configure with -DCMAKE_PREFIX_PATH=PREFIX, the
# prefix claimcheck's `claimcheck` and `development` components are installed in.
cmake_minimum_required(VERSION 3.18)
project(@NAME@_claims CXX)
find_package(claimcheck REQUIRED)
claimcheck_add_paper_modules()               # papers/*/module, found as in claimcheck's tree
claimcheck_add_executable(@NAME@-claimcheck)  # every command; the installed papers and this project's
)~"},
      {"README.md", R"~(# @TITLE@: a claimcheck project

The paper's claims, verified by claimcheck's engine: `papers/@NAME@` (its README says what each file is),
built against claimcheck's installed package. With claimcheck installed in PREFIX
(`cmake --install BUILD --prefix PREFIX --component claimcheck` and `--component development`):

```sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=PREFIX
cmake --build build -j
build/@NAME@-claimcheck verify papers/@NAME@ --budget cpu --report reports/@NAME@
```
)~"},
  };
  return files;
}

bool is_module_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  return name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
}

// Names a paper cannot take although they are snake_case: they break the build it is added to. A C++
// keyword or a namespace of cc:: (its code is namespace cc::NAME), a name whose targets the tree has
// already (NAME_tests, cc_paper_NAME: "modules" is the generated registration's), and a few
// namespaces a module's code reaches (std, torch, ...). Why: `new-paper int` wrote a paper whose
// module did not compile.
std::string reserved_because(const std::string& name) {
  static const std::set<std::string> keywords = {
      "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
      "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
      "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
      "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
      "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
      "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
      "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
      "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
      "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
      "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
      "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
      "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
      "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
      "xor_eq"};
  static const std::set<std::string> taken = {"analysis", "app",   "catalogue", "claims", "model", "plugin", "report",
                                              "sweep",    "train", "verify",    "util",   "test",  "tests",  "gpu",
                                              "papers",   "task",  "modules",   "std",    "torch", "at",     "c10",
                                              "nlohmann", "boost", "yaml",      "fs",     "po"};
  if (keywords.count(name)) return "a C++ keyword";
  if (taken.count(name)) return "a name the engine's namespaces or build targets already use";
  return "";
}

// The paper's name, title and arXiv id checked: each would otherwise break the build or the loader.
void check_scaffold_names(const std::string& name, const std::string& title, const std::string& arxiv) {
  if (!is_module_name(name))
    throw po::error("paper name '" + name +
                    "': snake_case (a-z, 0-9, '_', the first a letter, at most 64): it names "
                    "a folder and a C++ namespace");
  if (const std::string why = reserved_because(name); !why.empty())
    throw po::error("paper name '" + name + "': " + why + " (it names a C++ namespace and build targets)");
  if (!std::regex_match(arxiv, std::regex("[0-9]{4}\\.[0-9]{4,5}v[0-9]+")))
    throw po::error("--arxiv '" + arxiv + "': an arXiv id with its version, e.g. 2306.00802v2");
  if (title.find_first_of("\"\\\n") != std::string::npos)
    throw po::error("--title: no quotes, backslashes or newlines");
}

// `files` written under `staging` with `values` filled in; each YAML file read back by the loader
// claimcheck will read it with: a title it would refuse (a control character, bad UTF-8, past the size
// cap) is refused now, before anything exists where it was asked for.
void write_staged(const fs::path& staging, const std::vector<std::pair<std::string, std::string>>& files,
                  const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [path, text] : files) {
    fs::create_directories((staging / path).parent_path());
    write_file_atomic((staging / path).string(), substitute(text, values));
  }
  for (const auto& [path, text] : files) {
    if (fs::path(path).extension() != ".yaml") continue;
    try {
      load_yaml_file((staging / path).string());
    } catch (const Error& e) {
      fs::remove_all(staging);
      throw po::error(std::string("--title: the scaffold's ") + path + " would not load: " + e.what());
    }
  }
}

}  // namespace

int cmd_new_paper(const std::vector<std::string>& args) {
  po::options_description desc("new-paper options");
  std::string name, root = ".", project, title, arxiv = "0000.00000v1";
  // clang-format off
  desc.add_options()
      ("name", po::value(&name)->required(), "the paper's folder and C++ namespace: snake_case, e.g. bietti_birth")
      ("root", po::value(&root), "the checkout to write papers/NAME into (default: .)")
      ("project", po::value(&project), "write a project of its own instead, at this new folder: papers/NAME, "
                                       "a CMakeLists.txt against the installed package, a README")
      ("title", po::value(&title), "the paper's title (default: NAME)")
      ("arxiv", po::value(&arxiv), "its arXiv id with version, e.g. 2306.00802v2 (default: 0000.00000v1)");
  // clang-format on
  po::positional_options_description pos;
  pos.add("name", 1);
  po::variables_map vm;
  if (!parse("new-paper", "NAME [options]", desc, pos, args, vm)) return kExitOk;
  if (vm.count("root") && vm.count("project")) throw po::error("--root and --project: give one");
  if (title.empty()) title = name;
  check_scaffold_names(name, title, arxiv);
  const bool own_project = !project.empty();
  std::vector<std::pair<std::string, std::string>> values = {{"@NAME@", name}, {"@TITLE@", title}, {"@ARXIV@", arxiv}};
  values.push_back({"@BINARY@", own_project ? "build/" + name + "-claimcheck" : "build/release/app/claimcheck"});
  values.push_back({"@TESTS@", own_project ? "tests in claimcheck's tree build as `" + name + "_tests`"
                                           : "the binary `" + name + "_tests`, label `paper:" + name + "`"});
  // Where it goes: papers/NAME in the checkout, or the whole new project folder.
  const fs::path papers = fs::path(root) / "papers";
  if (!own_project && !fs::is_directory(papers))
    throw Error(papers.string() + ": no papers/ folder here (give the checkout with --root, or --project DIR)");
  const fs::path dest = own_project ? fs::path(project) : papers / name;
  if (fs::exists(dest)) throw Error(dest.string() + " exists: new-paper writes a new folder and changes no file");
  const fs::path parent = fs::absolute(dest).parent_path();
  if (!fs::is_directory(parent)) throw Error(parent.string() + ": no such folder to write " + dest.string() + " into");
  // Written beside it, then moved in one rename: an interrupted scaffold leaves no half-made paper.
  const fs::path staging = parent / ("." + fs::absolute(dest).filename().string() + ".new");
  fs::remove_all(staging);
  const fs::path paper_dir = own_project ? staging / "papers" / name : staging;
  write_staged(paper_dir, skeleton(), values);
  if (own_project) write_staged(staging, project_files(), values);
  fs::rename(staging, dest);
  std::cout << "wrote " << dest.string() << " (" << skeleton().size() + (own_project ? project_files().size() : 0)
            << " files); next: ";
  if (own_project)
    std::cout << "its README.md (configure against the installed package, build, verify)\n";
  else
    std::cout << "re-run cmake, build, and\n  claimcheck verify " << dest.string() << " --budget cpu\n";
  return kExitOk;
}

}  // namespace cc::app
