// Linked into the test binaries that load claims through analysis::builtin_registry(): Assign and Add's
// module adds its kinds there before any test asks for the registry, as the claimcheck binary's
// app/paper_modules.cpp does at start-up.
#include "module.h"  // papers/assign_and_add/module

namespace {

const bool registered = [] {
  cc::assign_and_add::register_module();
  return true;
}();

}  // namespace
