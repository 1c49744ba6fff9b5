// claimcheck fixtures verify [DIR]: every file listed in each fixtures/<run>/seed<k>/run.json
// still has its recorded sha256 (claim R3's check, in seconds).
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "util/error.h"
#include "util/sha256.h"

namespace cc::app {
namespace fs = std::filesystem;

int cmd_fixtures(const std::vector<std::string>& args) {
  po::options_description desc("fixtures options");
  std::string action, dir = "fixtures";
  desc.add_options()
      ("action", po::value(&action)->required(), "verify: check the sha256 of every committed fixture file")
      ("dir", po::value(&dir), "fixtures directory (default: fixtures)");
  po::positional_options_description pos;
  pos.add("action", 1).add("dir", 1);
  po::variables_map vm;
  if (!parse("fixtures", "verify [DIR]", desc, pos, args, vm)) return kExitOk;
  if (action != "verify") throw Error("unknown fixtures action '" + action + "' (verify)");
  if (!fs::is_directory(dir)) {
    std::cout << "no fixtures directory at " << dir << "\n";
    return kExitOk;
  }
  int runs = 0, files = 0, bad = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().filename() != "run.json") continue;
    ++runs;
    const fs::path run_dir = entry.path().parent_path();
    nlohmann::json run;
    try {
      run = nlohmann::json::parse(std::ifstream(entry.path()));
    } catch (const nlohmann::json::exception& e) {
      std::cout << "BAD  " << entry.path().string() << ": not valid JSON: " << e.what() << "\n";
      ++bad;
      continue;
    }
    const nlohmann::json hashes = run.value("sha256", nlohmann::json::object());  // items() needs an lvalue
    for (const auto& [name, want] : hashes.items()) {
      ++files;
      const fs::path f = run_dir / name;
      if (!fs::exists(f)) {
        std::cout << "MISSING " << f.string() << "\n";
        ++bad;
      } else if (sha256_file(f.string()) != want.get<std::string>()) {
        std::cout << "BAD  " << f.string() << ": sha256 differs from run.json\n";
        ++bad;
      }
    }
  }
  std::cout << runs << " fixture run(s), " << files << " file(s) checked, " << bad << " problem(s)\n";
  return bad ? kExitFailure : kExitOk;
}

}  // namespace cc::app
