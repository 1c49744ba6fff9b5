// Linked into every test binary that reads, trains or measures a paper's runs: the paper modules
// register their task families and kinds before any test runs, as claimcheck's main() does at start-up
// (lib/plugin/paper_module.h).
#include "plugin/paper_module.h"

namespace {

const bool registered = [] {
  cc::plugin::register_linked_modules();
  return true;
}();

}  // namespace
