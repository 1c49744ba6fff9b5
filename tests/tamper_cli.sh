#!/usr/bin/env bash
# Tampering with committed results, on a copy of fixtures/ (hard links; a file is copied before it
# is changed, so the committed tree is never touched). Each change must be caught: by
# `claimcheck fixtures verify` (exit 1, naming the file) and by `claimcheck verify` before it
# measures (the claim is an ERROR naming the file, not a verdict on tampered data).
# usage: tamper_cli.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
CC=$1 SRC=$2
RUNS=$SRC/papers/assign_and_add/runs.yaml
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
fresh() { rm -rf "$W/f"; cp -al "$SRC/fixtures" "$W/f"; }          # a tree of hard links
# shellcheck source=/dev/null  # tests/lib/paper_copy.sh, which ci/lint-shell checks on its own
. "$(dirname "$0")/lib/paper_copy.sh"  # own FILE, rehash ROOT FILE...
check() {  # NAME REGEX CMD... : exit non-zero and a line matching REGEX
  local name=$1 regex=$2 out rc
  shift 2
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -eq 0 ]; then echo "FAIL $name: exit 0"; echo "$out" | tail -3; fail=1; return; fi
  if ! grep -Eq "$regex" <<<"$out"; then echo "FAIL $name: no line matching: $regex"; echo "$out" | tail -5; fail=1; return; fi
  echo "ok   $name: exit $rc: $(grep -Eo "$regex.*" <<<"$out" | head -1 | cut -c1-140)"
}
fverify() { "$CC" fixtures verify "$W/f" --runs "$RUNS"; }
# shellcheck disable=SC2317  # called through `check NAME REGEX verify ...` below, which shellcheck cannot follow
verify() { "$CC" verify "$@" --runs "$RUNS" --fixtures "$W/f" --cache "$W/cache" --report "$W/report" --fail-on error; }

# Control: the untouched copy passes, so every failure below is the change's.
fresh
if out=$(fverify 2>&1); then echo "ok   untouched copy: $(tail -1 <<<"$out")"; else echo "FAIL untouched copy:"; echo "$out" | tail -5; fail=1; fi

# A sweep summary: two numbers edited (this turned G6 from INCONCLUSIVE to PASS, unnoticed).
fresh
S=$W/f/sweeps/pair_fraction/summary.jsonl
own "$S" && sed -i '1s/"correct":[0-9]*/"correct":3000/; 2s/"correct":[0-9]*/"correct":3000/' "$S"
check summary.fixtures_verify "summary.jsonl: sha256 differs from MANIFEST.sha256" fverify
check summary.verify_G6 "G6 .*ERROR|summary.jsonl: sha256 differs" verify "$SRC/papers/assign_and_add/claims/s4_sweeps/G6.yaml"

# A metrics log: one line edited (this flipped D1 from PASS to FAIL).
fresh
M=$W/f/default/seed0/metrics.jsonl
own "$M" && sed -i '50s/"test_1":0\.[0-9]*/"test_1":0.001/' "$M"
check metrics.fixtures_verify "default/seed0/metrics.jsonl: sha256 differs" fverify
check metrics.verify_D1 "metrics.jsonl: sha256 differs from" verify "$SRC/papers/assign_and_add/claims/s6_dynamics/D1.yaml"

# A robustness point: run.json deleted, then its weights noised with the sidecar's sha256 rewritten.
fresh
P=$W/f/robustness/batch512/seed3
rm "$P/run.json"
check run_json_deleted "robustness/batch512/seed3: missing \(runs.yaml commits run 'robustness/batch512' seed 3" fverify
check run_json_deleted.verify_G1 "seed3/run.json: missing \(listed in" verify "$SRC/papers/assign_and_add/claims/s4_generalization/G1.yaml" --run robustness/batch512 --seeds 3
# ... and with run.json in place, weights noised and every hash beside them rewritten to match
# (this took G1 on robustness/batch512 seed 3 from 99.80 % to 31.31 %, unnoticed).
fresh
own "$P/step030000.safetensors" && own "$P/step030000.json" && own "$P/run.json"
python3 - "$P/step030000.safetensors" "$P/step030000.json" "$P/run.json" <<'PY'
import hashlib, json, sys
w, side, run = sys.argv[1], sys.argv[2], sys.argv[3]
b = bytearray(open(w, "rb").read())
for i in range(len(b) - 4000, len(b), 4):   # noise in the last tensor's data
    b[i + 3] ^= 0x01
open(w, "wb").write(b)
s = json.load(open(side))
s["sha256"] = hashlib.sha256(b).hexdigest()  # the sidecar rewritten to match
json.dump(s, open(side, "w"), indent=2)
r = json.load(open(run))                      # and run.json too
for name in ("step030000.safetensors", "step030000.json"):
    r["sha256"][name] = hashlib.sha256(open(f"{w.rsplit('/', 1)[0]}/{name}", "rb").read()).hexdigest()
json.dump(r, open(run, "w"), indent=2)
PY
check noised_weights.fixtures_verify "seed3/step030000.safetensors: sha256 differs from MANIFEST.sha256" fverify
check noised_weights.verify_G1 "seed3/(run.json|step030000.safetensors|step030000.json): sha256 differs from" verify "$SRC/papers/assign_and_add/claims/s4_generalization/G1.yaml" --run robustness/batch512 --seeds 3

# A file added beside the committed ones, and the manifest itself deleted.
fresh
touch "$W/f/default/seed1/step009999.safetensors"
check unlisted_file "step009999.safetensors: not listed in" verify "$SRC/papers/assign_and_add/claims/s4_generalization/G1.yaml" --seeds 1
fresh
rm "$W/f/MANIFEST.sha256"
check manifest_deleted "MANIFEST.sha256: missing" verify "$SRC/papers/assign_and_add/claims/s4_generalization/G1.yaml" --seeds 1
check manifest_deleted.fixtures_verify "MANIFEST.sha256: missing" fverify
# Deletions are errors, never "not available": a checkpoint, a seed's folder, a sweep summary
# (these turned D2a FAIL -> PASS, 26 claims INCONCLUSIVE and G6 SKIPPED, each with exit 0).
fresh
rm "$W/f/default/seed2/step030000.safetensors"
check deleted_checkpoint.verify_D2a "seed2/step030000.safetensors: missing \(listed in" verify "$SRC/papers/assign_and_add/claims/s6_dynamics/D2a.yaml"
fresh
rm -r "$W/f/default/seed1"
check deleted_seed.verify_G1 "default/seed1/[a-z0-9.]+: missing \(listed in" verify "$SRC/papers/assign_and_add/claims/s4_generalization/G1.yaml"
fresh
rm "$W/f/sweeps/pair_fraction/summary.jsonl"
check deleted_summary.verify_G6 "pair_fraction/summary.jsonl: missing \(listed in" verify "$SRC/papers/assign_and_add/claims/s4_sweeps/G6.yaml"

# The same deletions with their manifest lines deleted too: runs.yaml still commits them (this
# turned D2a FAIL -> PASS with exit 0, and G6 SKIPPED).
fresh
own "$W/f/MANIFEST.sha256" && sed -i '/default\/seed2\//d' "$W/f/MANIFEST.sha256" && rm -r "$W/f/default/seed2"
check unlisted_seed.verify_D2a "default/seed2: missing: .*commits run 'default' seed 2" verify "$SRC/papers/assign_and_add/claims/s6_dynamics/D2a.yaml"
fresh
own "$W/f/MANIFEST.sha256" && sed -i '/sweeps\/pair_fraction\/summary.jsonl/d' "$W/f/MANIFEST.sha256"
rm "$W/f/sweeps/pair_fraction/summary.jsonl"
check unlisted_summary.verify_G6 "summary.jsonl: missing \(runs.yaml commits sweep 'pair_fraction'\)" verify "$SRC/papers/assign_and_add/claims/s4_sweeps/G6.yaml"

# A checkpoint and its sidecar deleted with their manifest lines, run.json kept (it still lists them):
# this turned D2a FAIL -> PASS with exit 0 (the step read as one the run "does not keep").
fresh
own "$W/f/MANIFEST.sha256" && sed -i '/default\/seed2\/step030000\./d' "$W/f/MANIFEST.sha256"
rm "$W/f/default/seed2/step030000.safetensors" "$W/f/default/seed2/step030000.json"
check unlisted_checkpoint.verify_D2a "seed2/step030000.(safetensors|json): missing from .*MANIFEST.sha256 but listed in .*seed2/run.json" verify "$SRC/papers/assign_and_add/claims/s6_dynamics/D2a.yaml"

# A symlink loop in place of run.json is listed as a problem, not an "internal error" abort.
fresh
rm "$W/f/default/seed0/run.json" && ln -s run.json "$W/f/default/seed0/run.json"
check symlink_loop.fixtures_verify "default/seed0/run.json: not a regular file" fverify

# Consistent re-hashing (MANIFEST.sha256, run.json and sidecars rewritten to match) is caught where
# a second record exists: the sweep's own manifest.json, the folder a checkpoint stands in, finite
# weights. rehash ROOT FILE... (tests/lib/paper_copy.sh): rewrites each file's MANIFEST.sha256 line and
# its run.json entry.
fresh
S=$W/f/sweeps/pair_fraction/summary.jsonl
own "$S" && sed -i '1s/"correct":[0-9]*/"correct":3000/' "$S" && rehash "$W/f" "$S"
check rehashed_summary.verify_G6 "summary.jsonl: sha256 [0-9a-f]+ differs from the summary_sha256" verify "$SRC/papers/assign_and_add/claims/s4_sweeps/G6.yaml"
fresh
D=$W/f/default
for f in step030000.safetensors step030000.json; do rm "$D/seed0/$f"; cp "$D/seed2/$f" "$D/seed0/$f"; done
rehash "$W/f" "$D/seed0/step030000.safetensors" "$D/seed0/step030000.json"
check other_seeds_checkpoint.verify_G1 "seed0/step030000.safetensors: its sidecar says seed 2, but it stands in the folder of seed 0" verify "$SRC/papers/assign_and_add/claims/s4_generalization/G1.yaml" --seeds 0
fresh
own "$D/seed0/step030000.safetensors" && own "$D/seed0/step030000.json"
python3 - "$D/seed0/step030000.safetensors" "$D/seed0/step030000.json" <<'PY'
import hashlib, json, struct, sys
w, side = sys.argv[1], sys.argv[2]
b = bytearray(open(w, "rb").read())
n = struct.unpack("<Q", b[:8])[0]
b[8 + n:8 + n + 4] = struct.pack("<f", float("nan"))   # the first weight of the first tensor
open(w, "wb").write(b)
s = json.load(open(side)); s["sha256"] = hashlib.sha256(b).hexdigest(); json.dump(s, open(side, "w"), indent=2)
PY
rehash "$W/f" "$D/seed0/step030000.safetensors" "$D/seed0/step030000.json"
check nan_weights.verify_G1 "step030000.safetensors: tensor '[a-z_.A-Z0-9]+' holds 1 non-finite value" verify "$SRC/papers/assign_and_add/claims/s4_generalization/G1.yaml" --seeds 0

# fixtures recreate trusts nothing it has not checked: a run.json edited without the manifest, and a
# recorded command that would train another run (--steps 1 "compared 1 checkpoint, 0 differ", exit 0),
# its manifest line rewritten to match. Both are refused before anything is trained.
# shellcheck disable=SC2317  # called through `check NAME REGEX recreate ...`
recreate() { "$CC" fixtures recreate default --seed 0 --until 500 --runs "$RUNS" --dir "$W/f" --out "$W/recreated-$1"; }
fresh
own "$W/f/default/seed0/run.json"
sed -i 's/--seed 0 --out/--seed 0 --steps 1 --out/' "$W/f/default/seed0/run.json"
check recreate.run_json_edited "seed0/run.json: sha256 differs from .*MANIFEST.sha256" recreate edited
rehash "$W/f" "$W/f/default/seed0/run.json"   # the manifest line rewritten to match (rehash unlinks it first)
check recreate.other_run "the recreate command has '--steps'; it may name only" recreate steps
exit $fail
