#pragma once
namespace cc::app {
// Registers every linked paper module's task family and kinds (idempotent); main() calls it first.
void register_paper_modules();
}  // namespace cc::app
