#pragma once
// One registration function per family file.
#include "analysis/registry.h"

namespace cc::analysis {

void register_accuracy(Registry& r);         // accuracy.cpp
void register_attention(Registry& r);        // attention.cpp
void register_circuits(Registry& r);         // circuits.cpp
void register_cosine(Registry& r);           // cosine.cpp
void register_fourier(Registry& r);          // fourier.cpp
void register_probes(Registry& r);           // probes.cpp
void register_reproducibility(Registry& r);  // reproducibility.cpp
void register_sweep(Registry& r);            // sweep.cpp
void register_dynamics(Registry& r);         // dynamics.cpp (§6 training dynamics)

}  // namespace cc::analysis
