#pragma once
// "Assign and Add"'s module, registered with the engine by register_module(), which the claimcheck
// binary calls once at start-up (app/paper_modules.cpp): its task (task/) as the engine's default
// task family (task_family.h), and the kinds that read its sequence layout (the positions of '=', the
// operands and the assignments) and its §6–§7 analyses: attention patterns (§5.2), QK/OV circuits
// (§5.3), cosine similarities (§5.4), probes (§5.5), the training dynamics (§6) and §7's idealised
// model (disentangled.h) with the kinds that measure it. The kinds it shares with other papers
// (accuracy, Fourier fits, phases) are the engine's (lib/analysis).
#include "analysis/registry.h"

namespace cc::analysis {

void register_attention(Registry& r);     // attention.cpp (§5.2 attention patterns)
void register_circuits(Registry& r);      // circuits.cpp (§5.3 QK and OV circuits)
void register_cosine(Registry& r);        // cosine.cpp (§5.4 cosine similarities)
void register_probes(Registry& r);        // probes.cpp (§5.5 linear probes)
void register_dynamics(Registry& r);      // dynamics.cpp (§6 training dynamics)
void register_theory(Registry& r);        // theory.cpp (§7 disentangled model)
void register_theory_terms(Registry& r);  // theory_terms.cpp (§7: which terms carry the gradient)

}  // namespace cc::analysis

namespace cc::assign_and_add {

void register_module();

}  // namespace cc::assign_and_add
