// Fuzz target: any bytes as a claim file. The loader must answer every input with a claim or a
// cc::Error (FILE:LINE:COL and the problem), bounded in time and memory; anything else (another
// exception, a crash, a sanitizer report, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "claims/claim.h"
#include "plugin/paper_module.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool registered = [] {
    cc::plugin::register_linked_modules();
    return true;
  }();
  (void)registered;
  static const cc::catalogue::Runs runs = cc::catalogue::Runs::load(CLAIMCHECK_FUZZ_RUNS);
  try {
    cc::claims::load_claim_string(std::string(reinterpret_cast<const char*>(data), size), "claims/s4/fuzz.yaml",
                                  cc::analysis::builtin_registry(), runs);
  } catch (const cc::Error&) {
  }
  return 0;
}
