#!/usr/bin/env bash
# A claim measured on a quantity that moves with the evaluation draw cannot PASS or FAIL on one lucky
# draw (expect.draws, claims::Rule::draws). Bietti et al.'s B11a (accuracy >= 0.9 on triggers the model
# never trained on, 256 sequences) PASSes on its second draw alone; under its rule of 5 independent
# draws it is INCONCLUSIVE, saying so (two draws straddle 0.9). B1, far from its threshold, keeps its
# PASS on every draw. A kind that draws no evaluation set cannot take `draws` (an error at its line).
# usage: draws_cli.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
CC=$1 SRC=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
C=$SRC/papers/bietti_birth/claims
check() {  # NAME WANT-RC REGEX FILE
  local out rc
  out=$("$CC" verify "$4" --runs "$SRC/papers/bietti_birth/runs.yaml" --report "$W/report" --cache "$W/cache" 2>&1)
  rc=$?
  if [ "$rc" -ne "$2" ] || ! grep -Eq -- "$3" <<<"$out"; then
    echo "FAIL $1: exit $rc (want $2), or no line matching: $3"
    tail -4 <<<"$out"
    fail=1
  else
    echo "ok   $1: exit $rc: $(grep -Eo -- "$3.*" <<<"$out" | head -1 | cut -c1-160)"
  fi
}
mkdir -p "$W/c" && cp "$C/defaults.yaml" "$W/c/"
grep -q '^  draws: 5' "$C/B11a.yaml" || { echo "FAIL: B11a no longer declares draws: 5"; exit 1; }
# Its second draw alone (eval_seed one past the folder's analysis_seed, 20260531), at its committed
# threshold alone (its threshold readings, `sensitivity:`, are another test's: cli.sensitivity).
sed -e '/^  draws: /d' -e 's/^  size: 256$/  size: 256\n  eval_seed: 20260532/' -e '/^sensitivity:/,/^control:/{/^control:/!d}' \
  "$C/B11a.yaml" > "$W/c/b11a_one_draw.yaml"
check one_lucky_draw_passes 0 "PASS +B11a " "$W/c/b11a_one_draw.yaml"
check five_draws_inconclusive 1 "INCONCLUSIVE +B11a .*depends on the evaluation draw: INCONCLUSIVE [0-9.]+, PASS [0-9.]+, .* on 5 independent draws" "$C/B11a.yaml"
check far_from_threshold 0 "PASS +B1 .*the same on each of 5 evaluation draws" "$C/B1.yaml"
sed 's/^  min_seeds: 3$/  min_seeds: 3\n  draws: 3/' "$C/B9a.yaml" > "$W/c/b9a_draws.yaml"
check draws_without_eval_set 1 "b9a_draws.yaml:[0-9]+:[0-9]+: field 'expect.draws': the measurement 'memory_recall' draws no evaluation set" "$W/c/b9a_draws.yaml"
exit $fail
