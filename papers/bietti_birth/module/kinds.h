#pragma once
// The measurement kinds only this paper needs (analysis/registry.h), one small file each. Its accuracy
// claims use the engine's `accuracy` on this family's sets (in_context, in_context_first, global); the
// order and ratio of first steps the engine's `first_step_order` / `first_step_ratio` on the metrics
// log (this family logs memory_recall there); the causal claim the engine's `reset_accuracy_drop`.
//   previous_token_attention, induction_attention   the two heads' attention (kind_attention.cpp)
//   memory_recall                                   one matrix's stored associations (kind_memory_recall.cpp)
#include "analysis/registry.h"
#include "papers/bietti_birth/module/trigger_task.h"
#include "train/checkpoint.h"

namespace cc::bietti_birth {

void register_kinds(analysis::Registry& r);
void register_attention(analysis::Registry& r);
void register_memory_recall(analysis::Registry& r);

// The task of a checkpoint of this paper's runs; cc::Error when it is another family's.
TaskConfig task_of(const train::Checkpoint& ck);
// The tokens the W_K^2 probe reads as triggers (memory_recall.h).
std::vector<int> probe_triggers(const TaskConfig& task);

}  // namespace cc::bietti_birth
