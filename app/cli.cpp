#include "cli.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "util/atomic_file.h"
#include "util/error.h"

namespace cc::app {

std::string exit_codes_for(const std::string& command) {
  if (command == "verify") return kExitCodes;
  struct Row {
    int code;
    std::vector<std::string> commands;  // empty: every command but verify
    const char* text;
  };
  static const std::vector<Row> rows = {
      {0, {"diff"}, "no claim's verdict or measured value changed between the two"},
      {0, {}, "done"},
      {1, {"fixtures"}, "a fixture file is missing or differs (each named), or an input file is broken"},
      {1, {}, "an input file is broken (runs file, config, checkpoint, report): the message names it"},
      {2, {}, "usage: a wrong flag or flag value, or a path given that does not exist"},
      {3, {"diff"}, "a claim's verdict or value moved, or a claim was added or removed"},
      {4,
       {"train", "eval", "export", "import", "fixtures", "sweep", "new-paper"},
       "an output could not be written (a full disk, a file over the size limit): the message names it"},
      {75, {"sweep"}, "another process holds the sweep's lock"},
  };
  std::ostringstream os;
  os << "exit status:\n";
  int last = -1;
  for (const auto& r : rows) {
    const bool named = std::find(r.commands.begin(), r.commands.end(), command) != r.commands.end();
    if (r.code == last || (!r.commands.empty() && !named)) continue;  // a command's own row comes first
    os << "  " << r.code << std::string(r.code < 10 ? 3 : 2, ' ') << r.text << "\n";
    last = r.code;
  }
  return os.str();
}

bool parse(const std::string& command, const std::string& usage, po::options_description& desc,
           const po::positional_options_description& positional, const std::vector<std::string>& args,
           po::variables_map& vm) {
  desc.add_options()("help,h", "show this help");
  po::store(po::command_line_parser(args).options(desc).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: claimcheck " << command << " " << usage << "\n\n" << desc << "\n" << exit_codes_for(command);
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

uint64_t parse_seed(const std::string& text, const std::string& flag) {
  // Not po::value<uint64_t>: boost reads "-1" as 18446744073709551615.
  try {
    size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size() && v >= 0 && v <= kMaxSeed) return static_cast<uint64_t>(v);
  } catch (const std::exception&) {
  }
  throw po::error(flag + " '" + text + "': a seed is an integer in [0, " + std::to_string(kMaxSeed) + "]");
}

std::vector<int64_t> parse_integer_list(const std::string& flag, const std::string& text, const std::string& noun,
                                        int64_t max, size_t max_count, const std::string& example) {
  const std::string shown = flag + " '" + text.substr(0, 80) + (text.size() > 80 ? "...'" : "'");
  std::vector<int64_t> out;
  size_t begin = 0;
  while (true) {  // every item, the one after a trailing comma included (empty: refused)
    const size_t comma = text.find(',', begin);
    const std::string item = text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
    }
    if (item.empty() || used != item.size() || v < 0 || v > max || out.size() == max_count)
      throw po::error(shown + ": expected a comma-separated list of at most " + std::to_string(max_count) + " " + noun +
                      "s in [0, " + std::to_string(max) + "], e.g. " + example);
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw po::error(shown + ": " + noun + " " + item + " is listed twice");
    out.push_back(v);
    if (comma == std::string::npos) return out;
    begin = comma + 1;
  }
}

std::vector<uint64_t> parse_seed_list(const std::string& text) {
  const auto seeds = parse_integer_list("--seeds", text, "seed", kMaxSeed, kMaxSeedList, "0,1,2");
  return {seeds.begin(), seeds.end()};
}

}  // namespace cc::app

namespace cc::app {

int usable_cores() {
  if (const char* s = std::getenv("SLURM_CPUS_PER_TASK")) {
    const int n = std::atoi(s);
    if (n > 0) return n;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return 1;
}

int exit_status_for(const std::exception& e) {
  if (dynamic_cast<const po::error*>(&e)) return kExitUsage;
  if (dynamic_cast<const WriteError*>(&e)) return kExitWrite;
  return kExitFailure;
}

}  // namespace cc::app
