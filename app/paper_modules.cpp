// The paper modules this binary links (papers/NAME/module): each registers its task family and its
// measurement kinds once, before any run config or claim is read. Adding a paper is one line here and
// one add_subdirectory in the top-level CMakeLists.txt (CONTRIBUTING.md, "Add a paper").
#include "paper_modules.h"

#include "family.h"  // papers/nanda_grokking/module
#include "module.h"  // papers/assign_and_add/module

namespace cc::app {

void register_paper_modules() {
  static const bool once = [] {
    assign_and_add::register_module();
    grokking::register_module();
    return true;
  }();
  (void)once;
}

}  // namespace cc::app
