#pragma once
// One registration function per family file.
#include "analysis/registry.h"

namespace cc::analysis {

void register_accuracy(Registry& r);  // accuracy.cpp

}  // namespace cc::analysis
