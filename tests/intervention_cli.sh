#!/usr/bin/env bash
# Interventions as a claim author meets them (docs/claim-files.md, "Interventions"): each mistake an
# ERROR naming the file, line and problem before anything is measured, and a causal claim that can
# fail: B6b-necessary's edit swapped for its matched control's FAILs on the committed checkpoints.
# Committed files are never changed: claims are written to a scratch folder.
# usage: intervention_cli.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
CC=$1 SRC=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
BR=$SRC/papers/bietti_birth
# shellcheck source=/dev/null  # tests/lib/check_cmd.sh, which ci/lint-shell checks on its own
. "$(dirname "$0")/lib/check_cmd.sh"  # check NAME WANT-RC REGEX CMD...
# shellcheck disable=SC2317  # called through `check NAME RC REGEX bverify ...`, which shellcheck cannot follow
bverify() { "$CC" verify "$@" --runs "$BR/runs.yaml" --report "$W/report" --cache "$W/cache" --fail-on error; }
mkdir -p "$W/claims" && cp "$BR/claims/defaults.yaml" "$W/claims/"
NEC=$BR/claims/B6b-necessary.yaml
write() { sed "$2" "$NEC" > "$W/claims/$1.yaml"; }

# --- Mistakes: each an ERROR with FILE:LINE before anything runs ------------------------------------
write no_hook 's/hook: blocks.0.attn.hook_pattern, op: pattern, target: uniform/hook: blocks.0.mlp.hook_post, op: zero/'
check hook_the_model_lacks 1 "no_hook.yaml:[0-9]+:[0-9]+: .*the model has no hook 'blocks.0.mlp.hook_post'" \
  bverify "$W/claims/no_hook.yaml"
write head_one 's/op: pattern, target: uniform}/op: pattern, target: uniform, heads: [1]}/'
check head_the_model_lacks 1 "head_one.yaml:[0-9]+:[0-9]+: .*the model has no head 1 \(it has 1\)" \
  bverify "$W/claims/head_one.yaml"
write unknown_op 's/op: pattern, target: uniform}/op: scramble}/'
check unknown_op 1 "unknown_op.yaml:[0-9]+:[0-9]+: .*op.*scramble" bverify "$W/claims/unknown_op.yaml"
write effect_alone '/intervene:/,/hook_pattern, op: pattern, target: uniform}/d'
check effect_without_intervene 1 "effect_alone.yaml:[0-9]+:[0-9]+: .*give .intervene:. with it" \
  bverify "$W/claims/effect_alone.yaml"
sed 's/  kind: memory_recall/  kind: memory_recall\n  intervene: [{hook: blocks.0.attn.hook_pattern, op: zero}]/' \
  "$BR/claims/B9b.yaml" > "$W/claims/weights_kind.yaml"
check kind_reads_weights 1 "weights_kind.yaml:[0-9]+:[0-9]+: .*kind 'memory_recall' reads more of the model than its forwards" \
  bverify "$W/claims/weights_kind.yaml"
write control_run '/  - intervene: .*# matched/{N;s/.*/  - {run: two_layer, intervene: [{hook: blocks.0.attn.hook_z, op: zero}]}/}'
check control_on_another_run 1 "control_run.yaml:[0-9]+:[0-9]+: .*an intervention control is on the claim's own run" \
  bverify "$W/claims/control_run.yaml"
write no_subspace 's/hook: blocks.0.attn.hook_pattern, op: pattern, target: uniform}/hook: hook_embed, op: project, subspace: fourier, keep: complement}/'
check unknown_subspace 1 "no_subspace.yaml:[0-9]+:[0-9]+: .*fourier.*key_frequencies" bverify "$W/claims/no_subspace.yaml"
write subspace_hook 's/hook: blocks.0.attn.hook_pattern, op: pattern, target: uniform}/hook: blocks.0.hook_resid_post, op: project, subspace: key_frequencies, keep: complement}/'
check subspace_at_another_hook 1 "subspace_hook.yaml:[0-9]+:[0-9]+: .*lies along the last axis of hook_embed" \
  bverify "$W/claims/subspace_hook.yaml"
# Another paper's subspace is refused when the first checkpoint is read: an ERROR naming both families.
write subspace_family 's/hook: blocks.0.attn.hook_pattern, op: pattern, target: uniform}/hook: hook_embed, op: project, subspace: key_frequencies, keep: complement}/'
check subspace_of_another_paper 1 "ERROR.*subspace 'key_frequencies' reads runs of 'modular_addition', not 'trigger_bigrams'" \
  bverify "$W/claims/subspace_family.yaml" --seeds 0
# reference: only with effect: drop, and checked against the model as intervene is.
write reference_alone 's/  effect: drop/  reference: [{hook: blocks.0.attn.hook_pattern, op: pattern, target: previous}]/'
check reference_without_drop 1 "reference_alone.yaml:[0-9]+:[0-9]+: .*give .effect: drop." bverify "$W/claims/reference_alone.yaml"
write reference_hook 's/  effect: drop/  effect: drop\n  reference: [{hook: blocks.0.mlp.hook_post, op: zero}]/'
check reference_hook_the_model_lacks 1 "reference_hook.yaml:[0-9]+:[0-9]+: .*the model has no hook 'blocks.0.mlp.hook_post'" \
  bverify "$W/claims/reference_hook.yaml"
# A position outside the sequences (T = 128) is found when the first batch runs: an ERROR, no value.
write position_200 's/op: pattern, target: uniform}/op: pattern, target: uniform, positions: [200]}/'
check position_outside 1 "ERROR.*position 200 is outside the sequences. 128 positions" bverify "$W/claims/position_200.yaml" --seeds 0

# --- The causal rule can fail: the matched control's edit as the claim FAILs ------------------------
write matched 's/op: pattern, target: uniform}/op: pattern, target: previous}/'
check matched_edit_fails 0 "FAIL +B6b-necessary" bverify "$W/claims/matched.yaml" --seeds 0
# A drop measured from the same edits it measures is 0 exactly (both forwards are one computation), so
# the claim that uniform attention costs >= 0.25 beyond itself FAILs: the reference is what is subtracted.
write self_reference 's/  effect: drop/  effect: drop\n  reference: [{hook: blocks.0.attn.hook_pattern, op: pattern, target: uniform}]/'
check drop_from_itself_is_zero 0 "FAIL +B6b-necessary 0(\.0+)? " bverify "$W/claims/self_reference.yaml" --seeds 0
# --- Every committed companion_of names a claim of its paper ----------------------------------------
for paper in "$SRC"/papers/*/; do
  while read -r id; do
    if grep -rqx "id: $id" "$paper/claims"; then echo "ok   companion_of $id in $(basename "$paper")"
    else echo "FAIL companion_of names '$id', no claim of $(basename "$paper")"; fail=1; fi
  done < <(grep -rh '^companion_of:' "$paper/claims" | sed 's/#.*//; s/^companion_of: *\[//; s/\].*//' | tr ',' '\n' | tr -d ' ' | sort -u)
done
exit $fail
