#!/usr/bin/env bash
# A user's own model verified (`claimcheck import`, export's inverse). The grokking paper's committed
# final checkpoints (the stated run and its no-weight-decay control, three seeds each) exported to
# TransformerLens's format and imported back are the same files, byte for byte; verified from the
# imported folder, every claim that reads them gives the committed verdict and value, bit for bit. A
# model written by another implementation (tests/other_grokking_impl.py: plain PyTorch, its own layout,
# split and init) gets verdicts, not errors. Mistakes (another shape, a nonzero bias, a file that would
# be replaced, a run that does not exist) are refused, naming what is wrong.
# usage: import_cli.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
CC=$1 SRC=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
# shellcheck source=/dev/null  # tests/lib/check_cmd.sh, which ci/lint-shell checks on its own
. "$(dirname "$0")/lib/check_cmd.sh"  # check NAME WANT-RC REGEX CMD...
P=$SRC/papers/nanda_grokking
F=$P/fixtures
for run in stated no_weight_decay; do
  for k in 0 1 2; do
    ck=$F/$run/seed$k/step020000.safetensors
    "$CC" export "$ck" --format transformer-lens --out "$W/tl-$run-$k" > /dev/null || { echo "FAIL: export $ck"; exit 1; }
    "$CC" import "$W/tl-$run-$k" --runs "$P/runs.yaml" --run "$run" --seed "$k" --out "$W/fx-$run" > /dev/null ||
      { echo "FAIL: import of $run seed $k"; exit 1; }
    cmp "$ck" "$W/fx-$run/$run/seed$k/step020000.safetensors" || { echo "FAIL: $run seed $k: not the same weights file"; fail=1; }
  done
done
[ "$fail" = 0 ] && echo "ok   round_trip: 6 checkpoints exported and imported, byte-identical weights files"
# The stated run's three imported checkpoints (no metrics log, no checkpoint along training; the folder
# started as the paper's fixtures without that run, so the trained controls are the paper's): the claims
# that read the final checkpoints give the committed verdicts and values, bit for bit; the others say
# what they lack (SKIPPED), none is an ERROR.
[ -e "$W/fx-stated/no_weight_decay/seed0/step020000.safetensors" ] || { echo "FAIL: the paper's control run not in the new folder"; fail=1; }
"$CC" fixtures verify "$W/fx-stated" --runs "$P/runs.yaml" > "$W/fv" 2>&1 ||
  { echo "FAIL: fixtures verify of the imported folder:"; tail -3 "$W/fv"; fail=1; }
"$CC" verify "$P" --fixtures "$W/fx-stated" --report "$W/r" --cache "$W/cache" --quiet > "$W/out" 2>&1
/usr/bin/env python3 - "$W/r/report.json" "$P/reports/fixtures/report.json" <<'PY' || fail=1
import json, sys
new = {c["id"]: c for c in json.load(open(sys.argv[1]))["claims"]}
old = {c["id"]: c for c in json.load(open(sys.argv[2]))["claims"]}
same = [i for i, c in new.items() if c["verdict"] not in ("SKIPPED", "ERROR")]
errors = [i for i, c in new.items() if c["verdict"] == "ERROR"]
moved = [i for i in same if (new[i]["verdict"], new[i].get("measured", {}).get("value"))
         != (old[i]["verdict"], old[i].get("measured", {}).get("value"))]
print(f"{'ok  ' if same and not errors and not moved else 'FAIL'} imported_verdicts: {len(same)} claim(s) measured "
      f"({', '.join(sorted(same))}), as committed but {moved}; errors: {errors}")
sys.exit(0 if same and not errors and not moved else 1)
PY
# Another implementation's model (a few training steps: it has not grokked): verdicts, no ERROR.
py=/usr/bin/python3
if "$py" -c "import torch" 2>/dev/null; then
  mkdir -p "$W/other"
  "$py" "$SRC/tests/other_grokking_impl.py" "$W/other" 30 > /dev/null || { echo "FAIL: other_grokking_impl.py"; exit 1; }
  check other_import 0 "imported .* as run stated seed 0 step 20000" \
    "$CC" import "$W/other" --runs "$P/runs.yaml" --run stated --seed 0 --out "$W/fx2"
  # One model: seed 0 alone (the run commits three; a missing committed seed is otherwise an ERROR).
  check other_verdicts 1 "(PASS|FAIL|INCONCLUSIVE) +N6 " \
    "$CC" verify "$P" --fixtures "$W/fx2" --seeds 0 --report "$W/r2" --cache "$W/cache" --quiet
  grep -q ' 0 ERROR' "$W/r2/REPORT.md" 2>/dev/null || python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["counts"]["ERROR"] != 0)' "$W/r2/report.json" ||
    { echo "FAIL: an ERROR for the other implementation's model"; fail=1; }
else
  echo "skip other_implementation: python3-torch is not installed"
fi
# Mistakes, each named.
T=$W/tl-stated-0
check exists 1 "exists; import writes a new checkpoint and never replaces one" \
  "$CC" import "$T" --runs "$P/runs.yaml" --run stated --seed 0 --out "$W/fx-stated"
check mixing 1 "holds a run that was not imported" \
  "$CC" import "$T" --runs "$P/runs.yaml" --run no_weight_decay --seed 0 --step 4000 --out "$W/fx-stated"
check no_run 2 "--run nope: no such run" "$CC" import "$T" --runs "$P/runs.yaml" --run nope --seed 0 --out "$W/fx3"
check step_past_end 2 "--step 40000: the run trains steps 0 to 20000" \
  "$CC" import "$T" --runs "$P/runs.yaml" --run stated --seed 0 --step 40000 --out "$W/fx3"
cp -r "$T" "$W/wide" && sed -i 's/"d_model": 128/"d_model": 256/' "$W/wide/config.json"
check other_shape 1 'config.json: "d_model" is 256, the run.s model has 128' \
  "$CC" import "$W/wide" --runs "$P/runs.yaml" --run stated --seed 0 --out "$W/fx3"
cp -r "$T" "$W/gated" && sed -i 's/"d_model": 128,/"d_model": 128, "gated_mlp": true,/' "$W/gated/config.json"
check gated 1 '"gated_mlp" is true: the run.s model has no such part' \
  "$CC" import "$W/gated" --runs "$P/runs.yaml" --run stated --seed 0 --out "$W/fx3"
if "$py" -c "import torch" 2>/dev/null; then
  mkdir -p "$W/bias" && cp "$W/other/config.json" "$W/bias/"
  "$py" - "$W/other/model.safetensors" "$W/bias/model.safetensors" <<'PY'
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
head = json.loads(raw[8:8 + n])
data = bytearray(raw[8 + n:])
begin = head["blocks.0.mlp.b_in"]["data_offsets"][0]
data[begin:begin + 4] = struct.pack("<f", 0.5)  # one bias made nonzero
open(sys.argv[2], "wb").write(raw[:8 + n] + bytes(data))
PY
  check nonzero_bias 1 "tensor 'blocks.0.mlp.b_in' is nonzero \(largest \|value\| 0.5" \
    "$CC" import "$W/bias" --runs "$P/runs.yaml" --run stated --seed 0 --out "$W/fx3"
fi
[ -e "$W/fx3" ] && [ -n "$(find "$W/fx3" -name '*.safetensors')" ] && { echo "FAIL: a refused import left a checkpoint"; fail=1; }
exit "$fail"
