#pragma once
// The grokking paper's module as the engine sees it: its task family ("modular_addition", train/family.h)
// and its measurement kinds (analysis/registry.h). register_module() is called once at start-up by the
// program that links the module (app/paper_modules.cpp).
namespace cc::grokking {

void register_module();

}  // namespace cc::grokking
