#!/usr/bin/env bash
# Mistakes and corrupt inputs of reliability round five, each replayed as a user met it: a clear error
# naming the thing (an ERROR verdict, or a usage error), never SKIPPED (exit 77), never "internal
# error", never a verdict read from a value outside its range. Committed files are never changed: a
# paper is copied first (its fixtures as hard links; a file is copied before it is changed).
# usage: mistakes_cli.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
CC=$1 SRC=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
BR=$SRC/papers/bietti_birth
GR=$SRC/papers/nanda_grokking
# shellcheck source=/dev/null  # tests/lib/check_cmd.sh, which ci/lint-shell checks on its own
. "$(dirname "$0")/lib/check_cmd.sh"  # check NAME WANT-RC REGEX CMD...
# shellcheck source=/dev/null  # tests/lib/paper_copy.sh, which ci/lint-shell checks on its own
. "$(dirname "$0")/lib/paper_copy.sh"
# shellcheck disable=SC2317  # called through `check NAME RC REGEX bverify ...`, which shellcheck cannot follow
bverify() { "$CC" verify "$@" --report "$W/report" --cache "$W/cache" --fail-on error; }

# --- A kind that cannot compute on the claim's own subject: an ERROR, not SKIPPED -----------------
mkdir -p "$W/claims" && cp "$BR/claims/defaults.yaml" "$W/claims/"
sed 's/run: simplified/run: one_layer/' "$BR/claims/B9a.yaml" > "$W/claims/recall_one_layer.yaml"
check kind_on_wrong_model 1 "B9a +.*ERROR|ERROR +B9a.*cannot be computed on its own subject \(one_layer\)" \
  bverify "$W/claims/recall_one_layer.yaml" --runs "$BR/runs.yaml"
sed 's/layer: 1/layer: 3/' "$BR/claims/B6a.yaml" > "$W/claims/layer3.yaml"
check layer_the_model_lacks 1 "cannot be computed on its own subject \(two_layer\).*no block" \
  bverify "$W/claims/layer3.yaml" --runs "$BR/runs.yaml"
# --- A checkpoint step the run never keeps ---------------------------------------------------------
sed 's/checkpoint: final/checkpoint: 150/' "$BR/claims/B9a.yaml" > "$W/claims/step150.yaml"
check step_never_kept 1 "does not keep a checkpoint at step 150" bverify "$W/claims/step150.yaml" --runs "$BR/runs.yaml"
# --- --seeds naming no seed of the paper -----------------------------------------------------------
check seeds_none 1 "--seeds 7: no run or sweep of .*runs.yaml has seed 7 \(its seeds: 0, 1, 2" \
  bverify "$BR/claims/B9a.yaml" --seeds 7

# --- Metrics logs out of range, re-hashed: an ERROR naming file and line ---------------------------
copy_paper "$GR" "$W/papers"
M=$W/papers/nanda_grokking/fixtures/stated/seed0/metrics.jsonl
own "$M" && sed -i '3s/"test_accuracy":[0-9.e-]*/"test_accuracy":1.5/' "$M" && rehash "$W/papers/nanda_grokking/fixtures" "$M"
check grokking_accuracy_1_5 1 "stated/seed0/metrics.jsonl:3:1: test_accuracy is 1.5; expected a number in \[0, 1\]" \
  bverify "$W/papers/nanda_grokking/claims/N2.yaml"
copy_paper "$BR" "$W/papers"
M=$W/papers/bietti_birth/fixtures/simplified/seed0/metrics.jsonl
own "$M" && sed -i '2s/"W_K1":[0-9.e-]*/"W_K1":7/' "$M" && rehash "$W/papers/bietti_birth/fixtures" "$M"
check bietti_recall_7 1 "simplified/seed0/metrics.jsonl:2:1: memory_recall.W_K1 is 7; expected a number in \[0, 1\]" \
  bverify "$W/papers/bietti_birth/claims/B8.yaml"

# --- Finite weights that overflow the forward (3e38), re-hashed: no accuracy is read from NaN logits -
copy_paper "$BR" "$W/papers"
D=$W/papers/bietti_birth/fixtures/two_layer/seed0
F=$(find "$D" -name 'step*.safetensors' | sort | tail -1)
own "$F" && own "${F%.safetensors}.json"
python3 - "$F" "${F%.safetensors}.json" <<'PY'
import hashlib, json, struct, sys
w, side = sys.argv[1], sys.argv[2]
b = bytearray(open(w, "rb").read())
n = struct.unpack("<Q", b[:8])[0]
for i in range(8 + n, len(b), 4):
    b[i:i + 4] = struct.pack("<f", 3e38)   # every weight
open(w, "wb").write(b)
s = json.load(open(side)); s["sha256"] = hashlib.sha256(b).hexdigest(); json.dump(s, open(side, "w"), indent=2)
PY
rehash "$W/papers/bietti_birth/fixtures" "$F" "${F%.safetensors}.json"
check huge_weights.eval 1 "logits are not finite" "$CC" eval "$F" --size 64
check huge_weights.B4 1 "ERROR +B4 .*two_layer/seed0/step[0-9]+.safetensors: evaluation set .in_context_first.: the model.s logits are not finite" \
  bverify "$W/papers/bietti_birth/claims/B4.yaml" --seeds 0

# --- paper.yaml naming a fixtures folder that is none -----------------------------------------------
copy_paper "$BR" "$W/papers"
printf 'fixtures: /etc\n' >> "$W/papers/bietti_birth/paper.yaml"
check fixtures_etc 1 "paper.yaml: fixtures: /etc holds no MANIFEST.sha256" bverify "$W/papers/bietti_birth/claims/B9a.yaml"
# ... and `list` of a checkout with that broken paper still lists the others.
mkdir -p "$W/root" && cp -a "$W/papers" "$W/root/" && copy_paper "$GR" "$W/papers" && cp -a "$W/papers/nanda_grokking" "$W/root/papers/"
out=$(cd "$W/root" && "$CC" list 2>&1); rc=$?
if [ "$rc" -eq 1 ] && grep -q "fixtures: /etc holds no" <<<"$out" && grep -q "^N2 " <<<"$out"; then
  echo "ok   list_goes_on: exit 1, the broken paper said, the other listed"
else
  echo "FAIL list_goes_on: exit $rc"; tail -5 <<<"$out"; fail=1
fi

# --- Flags: usage errors (exit 2), never exit 1 or an internal error --------------------------------
check train_batch_0 2 "--batch must be >= 1" "$CC" train --config "$BR/runs.yaml" --run simplified --batch 0 --out "$W/t0"
check train_steps_before_kept 2 "--steps 40: the run keeps a checkpoint at step 100" \
  "$CC" train --config "$BR/runs.yaml" --run simplified --steps 40 --out "$W/t1"
check eval_size 2 "--size must be in \[1, 1000000\]" "$CC" eval "$F" --size 1000001
check recreate_until_negative 2 "--until -5: must be a step >= 0" \
  "$CC" fixtures recreate simplified --seed 0 --until -5 --runs "$BR/runs.yaml" --out "$W/r0"
check recreate_tolerance_nan 2 "--tolerance must be a finite number >= 0" \
  "$CC" fixtures recreate simplified --seed 0 --tolerance nan --runs "$BR/runs.yaml" --out "$W/r1"
check report_in_cache 2 "--report .*: lies in the cache" "$CC" verify "$BR/claims/B9a.yaml" --cache "$W/c" --report "$W/c/x"
check train_out_is_a_file 4 "/etc/passwd: cannot make the run folder there" \
  "$CC" train --config "$BR/runs.yaml" --run simplified --out /etc/passwd --stop-after 0
sed 's/lr: [0-9.e-]*/lr: 1e300/' "$BR/runs.yaml" > "$W/lr.yaml"
check lr_1e300 1 "field 'runs.simplified.*lr': must be in \(0, 1000\]|lr.*must be in \(0, 1000\]" \
  "$CC" train --config "$W/lr.yaml" --run simplified --out "$W/t2" --stop-after 0
check memory_budget_overflow 1 "CLAIMCHECK_TRAIN_MEMORY_MB='8796093022208': expected a number of megabytes in" \
  env CLAIMCHECK_TRAIN_MEMORY_MB=8796093022208 "$CC" train --config "$BR/runs.yaml" --run simplified --out "$W/t3" --stop-after 0
# Evaluation sets of 10^7 sequences held for the run (one 10.24 GB allocation failed, "internal error"):
# counted in the estimate, refused before anything is drawn.
sed 's/eval_size: [0-9]*/eval_size: 10000000/' "$BR/runs.yaml" > "$W/eval_size.yaml"
check eval_size_past_budget 1 "training would take about [0-9.]+ GB .*evaluation [0-9.]+ GB" \
  "$CC" train --config "$W/eval_size.yaml" --run simplified --out "$W/t6" --stop-after 0
# Round five's shapes past the old estimate (grokking at p = 1000 with 17 % of the pairs: estimated
# 7.9 GB, accepted, 11 GB used; Bietti et al. with 64 heads of 2 dimensions: 3.9 GB estimated, 4.6 GB
# used): refused at the default 8 GB budget now. Measured with the budget raised: 6.6 GB and 2.6 GB of
# max RSS against estimates of 10.7 GB and 10.3 GB (docs/integrity.md).
sed -e 's/modulus: 113 /modulus: 1000 /' -e 's/train_fraction: 0.3 /train_fraction: 0.17 /' "$GR/runs.yaml" > "$W/p1000.yaml"
check grokking_p1000_past_budget 1 "run 'stated': training would take about 1[0-9.]+ GB" \
  "$CC" train --config "$W/p1000.yaml" --run stated --out "$W/t7" --stop-after 0
sed -e 's/^        n_heads: 1$/        n_heads: 64/' -e 's/^        d_head: 128$/        d_head: 2/' "$BR/runs.yaml" > "$W/heads64.yaml"
check bietti_64_heads_past_budget 1 "run 'two_layer': training would take about 1[0-9.]+ GB" \
  "$CC" train --config "$W/heads64.yaml" --run two_layer --out "$W/t8" --stop-after 0
sed 's/seq_len: [0-9]*/seq_len: 2/' "$BR/runs.yaml" > "$W/short.yaml"
check seq_len_2_no_targets 1 "step [0-9]+: no position of the training batch has a target" \
  "$CC" train --config "$W/short.yaml" --run simplified --out "$W/t5" --stop-after 3 --no-progress
check unlisted_seed_said 0 "lists seeds 0, 1, 2 for run 'simplified'; seed 9 is trained as asked" \
  "$CC" train --config "$BR/runs.yaml" --run simplified --seed 9 --out "$W/t4" --stop-after 0 --no-progress

# --- new-paper: names that break the build, titles its own loader refuses --------------------------
mkdir -p "$W/np/papers"
check new_paper_keyword 2 "paper name 'int': a C\+\+ keyword" "$CC" new-paper int --root "$W/np"
check new_paper_target 2 "paper name 'modules': a name the engine" "$CC" new-paper modules --root "$W/np"
check new_paper_title 2 "--title: the scaffold's paper.yaml would not load: .*control character" \
  "$CC" new-paper fine_name --root "$W/np" --title "$(printf 'a\001b')"
if [ -z "$(ls -A "$W/np/papers")" ]; then echo "ok   new_paper: nothing left behind"; else echo "FAIL new_paper: left $(ls -A "$W/np/papers")"; fail=1; fi

# --- Lists longer than any measurement needs: refused when read, naming the key ----------------------
python3 - "$BR/claims/B8.yaml" "$W/claims" <<'PY'
import sys
b8, out = open(sys.argv[1]).read(), sys.argv[2]
many = ", ".join(["memory_recall.W_O2"] * 10000)  # 200 KB: within the file limit
open(f"{out}/many_metrics.yaml", "w").write(
    b8.replace("metrics: [memory_recall.W_O2, memory_recall.W_K2, memory_recall.W_K1]", f"metrics: [{many}]", 1))
controls = "".join("  - {checkpoint: %d}\n" % s for s in range(20, 20 * 1001, 20))
start = b8.index("control:\n") + len("control:\n")
end = b8.index("notes:")
open(f"{out}/many_controls.yaml", "w").write(b8[:start] + controls + b8[end:])
PY
check many_metrics 1 "many_metrics.yaml:[0-9]+:[0-9]+: .*metrics.: 10000 entries; at most 256" \
  bverify "$W/claims/many_metrics.yaml" --runs "$BR/runs.yaml"
check many_controls 1 "many_controls.yaml:[0-9]+:[0-9]+: .*1000 controls; at most 16" \
  bverify "$W/claims/many_controls.yaml" --runs "$BR/runs.yaml"

exit $fail
