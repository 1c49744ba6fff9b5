#pragma once
// "Assign and Add"'s module: §7's idealised model (disentangled.h) and the kinds that measure it
// (theory.cpp: theory_one_step and its grid; theory_terms.cpp: which terms of the gradient carry it),
// registered with the engine's kinds by register_module(), which the claimcheck binary calls once at
// start-up (app/paper_modules.cpp). The paper's task, its evaluation sets and its other kinds are
// still the engine's built-in ones (lib/task, lib/analysis).
#include "analysis/registry.h"

namespace cc::analysis {

void register_theory(Registry& r);        // theory.cpp (§7 disentangled model)
void register_theory_terms(Registry& r);  // theory_terms.cpp (§7: which terms carry the gradient)

}  // namespace cc::analysis

namespace cc::assign_and_add {

void register_module();

}  // namespace cc::assign_and_add
