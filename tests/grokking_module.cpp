// Linked into the test binaries that read papers/nanda_grokking's runs or kinds: the grokking module
// registers its task family and kinds before any test runs, as the claimcheck binary's
// app/paper_modules.cpp does at start-up (a family registered twice is an error, so once, here).
#include "family.h"  // papers/nanda_grokking/module

namespace {

const bool registered = [] {
  cc::grokking::register_module();
  return true;
}();

}  // namespace
