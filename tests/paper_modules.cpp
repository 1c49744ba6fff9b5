// Linked into the test binaries that read, train or measure Assign and Add's runs: its module registers
// its task family (the default one, which reads every run whose task names none) and its kinds before
// any test runs, as the claimcheck binary's app/paper_modules.cpp does at start-up.
#include "module.h"  // papers/assign_and_add/module

namespace {

const bool registered = [] {
  cc::assign_and_add::register_module();
  return true;
}();

}  // namespace
