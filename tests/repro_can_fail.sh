#!/usr/bin/env bash
# A repro claim run as ctest runs it can fail. BR2 (retraining simplified seed 0 reproduces the
# committed step 100 bitwise) is SKIPPED in the baseline, which is written at the fixture budget; ctest
# runs it at the cpu budget, where it is measured and must agree on its own (report/baseline.h: "not in
# the baseline"). On a copy of the Bietti paper (fixtures as hard links; a file is copied before it is
# changed), the committed checkpoint is changed and every hash beside it rewritten to match, as someone
# hiding the change would: the exact command of ctest's claim.bietti_birth.BR2 must then exit 3, not 0.
# A corrupted, un-rehashed checkpoint too (an ERROR is no recorded outcome). The untouched copy, run the
# same way, exits 0: the failures below are the change's.
# usage: repro_can_fail.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
CC=$1 SRC=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
P=$W/papers/bietti_birth
S=$P/fixtures/simplified/seed0
# shellcheck source=/dev/null  # tests/lib/paper_copy.sh, which ci/lint-shell checks on its own
. "$(dirname "$0")/lib/paper_copy.sh"
fresh() { rm -rf "$W/papers" && copy_paper "$SRC/papers/bietti_birth" "$W/papers"; }
# The ctest command of claim.bietti_birth.BR2 (cmake/ClaimTestsDiscover.cmake), on the copy.
br2() {
  CLAIMCHECK_BLAS_THREADS=1 "$CC" verify "$P/claims/repro/BR2.yaml" --budget cpu --baseline "$P/expected.json" \
    --report "$W/report" --cache "$W/cache" --jobs 1 2>&1
}
expect() {  # NAME RC REGEX OUTPUT-RC OUTPUT
  if [ "$4" -ne "$2" ] || ! grep -Eq "$3" <<<"$5"; then
    echo "FAIL $1: exit $4 (want $2), or no line matching: $3"
    tail -8 <<<"$5"
    fail=1
  else
    echo "ok   $1: exit $4: $(grep -Eo "$3.*" <<<"$5" | head -1 | cut -c1-160)"
  fi
}

fresh
out=$(br2); rc=$?
expect untouched 0 "PASS +BR2" "$rc" "$out"

# The weights of step 100 changed in one float, and the sidecar, run.json and MANIFEST.sha256 rewritten.
fresh
own "$S/step000100.safetensors" && own "$S/step000100.json"
python3 - "$S" <<'PY'
import hashlib, json, sys
seed = sys.argv[1]
w = f"{seed}/step000100.safetensors"
b = bytearray(open(w, "rb").read())
b[-8] ^= 0x01                                    # one bit of a mantissa in the last tensor
open(w, "wb").write(b)
side = json.load(open(f"{seed}/step000100.json"))
side["sha256"] = hashlib.sha256(b).hexdigest()  # the sidecar rewritten to match
json.dump(side, open(f"{seed}/step000100.json", "w"), indent=2)
PY
rehash "$P/fixtures" "$S/step000100.safetensors" "$S/step000100.json"   # run.json and the manifest too
out=$(br2); rc=$?
expect changed_rehashed 3 "CHANGED BR2 +not in the baseline" "$rc" "$out"

# The same change without the hashes: refused before measuring (ERROR), which is no outcome either.
fresh
own "$S/step000100.safetensors"
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[-8] ^= 1; open(sys.argv[1], "wb").write(b)' "$S/step000100.safetensors"
out=$(br2); rc=$?
expect corrupted 3 "CHANGED BR2 +not in the baseline +SKIPPED -> ERROR" "$rc" "$out"

exit $fail
