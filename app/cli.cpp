#include "cli.h"

#include <iostream>
#include <sstream>

#include "util/error.h"

namespace cc::app {

bool parse(const std::string& command, const std::string& usage, po::options_description& desc,
           const po::positional_options_description& positional, const std::vector<std::string>& args,
           po::variables_map& vm) {
  desc.add_options()("help,h", "show this help");
  po::store(po::command_line_parser(args).options(desc).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: claimcheck " << command << " " << usage << "\n\n" << desc << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

std::string join_command(const std::string& sub, const std::vector<std::string>& args) {
  std::string s = "claimcheck " + sub;
  for (const auto& a : args) {
    const bool quote = a.find_first_of(" \t'\"$") != std::string::npos;
    s += " " + (quote ? "'" + a + "'" : a);
  }
  return s;
}

std::vector<uint64_t> parse_seed_list(const std::string& text) {
  std::vector<uint64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      const long long v = std::stoll(item, &used);
      if (used != item.size() || v < 0) throw std::invalid_argument(item);
      out.push_back(static_cast<uint64_t>(v));
    } catch (const std::exception&) {
      throw Error("--seeds '" + text + "': expected a comma-separated list of seeds, e.g. 0,1,2");
    }
  }
  return out;
}

}  // namespace cc::app
