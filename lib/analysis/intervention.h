#pragma once
// Interventions (a claim's `measure.intervene:`, docs/claim-files.md "Interventions"): edits at
// TransformerLens hooks that every forward of the measurement applies, so that a kind which reads the
// model only through its forwards (MeasurementKind::intervenable, e.g. `accuracy`) measures the model
// with a component removed or replaced. One edit:
//   hook       a hook of the model (blocks.0.attn.hook_pattern, blocks.1.hook_resid_mid, ...)
//   op         zero | mean | resample | pattern | patch | knockout | project
//   positions  the positions edited (the query's, for the attention scores and pattern); negative counts
//              from the end (-1: the last); default every position
//   heads      the heads edited, for hooks with a head axis (q, k, v, z, scores, pattern); default every head
//   set, size, eval_seed
//              mean: the set whose clean activations are averaged (per position, over its sequences);
//              resample: the set a replacement sequence is drawn from; patch: the clean set
//   seed       resample: which sequence replaces which (a hash of the sequence's tokens and the seed, so a
//              sequence's replacement never depends on its batch)
//   target     pattern: uniform (every allowed position alike) | previous (the position before; 0 keeps itself)
//   keys       knockout: the key positions whose attention scores become -inf (hook_attn_scores only)
//   into       patch: the corrupted set, drawn with the clean one's size and eval_seed: its sequence i gets
//              the clean sequence i's value (a measured sequence not in it is an error)
//   subspace, keep, random
//              project: the value onto (keep: subspace) or off (keep: complement) a subspace a paper module names
//              along the hook's last axis (analysis/subspace.h); random: true, a random subspace of its
//              rank from `seed` instead (the matched control)
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "analysis/activation_store.h"
#include "model/config.h"
#include "model/transformer.h"
#include "train/checkpoint.h"
#include "util/yaml_json.h"

namespace cc::analysis {

// Reads the list under `key` of a measure block into its normalised form (a JSON array of edits, defaults
// filled in); every problem a cc::Error with FILE:LINE:COL.
nlohmann::json parse_interventions(ObjectReader& measure, const std::string& key = "intervene");

// Each edit against a model of `cfg`, before anything runs: its hook one the model has, its heads ones it
// has. cc::Error naming the edit (by its index) and the problem.
void check_interventions(const nlohmann::json& edits, const model::ModelConfig& cfg);

// The checkpoint's model with `edits` in every forward (model::Transformer::with_edits), the weights shared.
// The clean activations a mean, resample or patch needs are read from the clean model (through `store`,
// nullptr: computed for this call). Positions are checked against each batch's length when it runs.
std::shared_ptr<model::Transformer> intervened_model(const train::Checkpoint& ck, const nlohmann::json& edits,
                                                     ActivationStore* store);

// `intervene:` for `claimcheck explain` and docs/claim-files.md: one line per field.
extern const char* const kInterventionDoc;

}  // namespace cc::analysis
