#include "cli.h"

#include <iostream>

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

}  // namespace cc::app
