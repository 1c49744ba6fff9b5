#pragma once
// One registration function per family file.
#include "analysis/registry.h"

namespace cc::analysis {

void register_accuracy(Registry& r);         // accuracy.cpp
void register_first_steps(Registry& r);      // first_steps.cpp
void register_fourier(Registry& r);          // fourier.cpp
void register_reset_ablation(Registry& r);   // reset_ablation.cpp
void register_reproducibility(Registry& r);  // reproducibility.cpp
void register_sweep(Registry& r);            // sweep.cpp

}  // namespace cc::analysis
