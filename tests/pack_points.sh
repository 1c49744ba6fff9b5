#!/usr/bin/env bash
# `claimcheck fixtures pack --sweep`, then `fixtures restore`, on a tiny grid in a scratch folder:
# every finished point is packed (run.json written by the program, the manifest updated), the
# restored points are "done" in a fresh cache with the trained files' exact bytes, a second pack adds
# nothing, a packed file changed afterwards is refused, and one run packed by itself gets a run.json
# that names its files and the command that recreates it.
# usage: pack_points.sh CLAIMCHECK SOURCE_DIR RUNS_FILE
set -euo pipefail
CC=$1 RUNS=$3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# A checkout with one paper, papers/tiny: `fixtures` finds its runs file and fixtures by itself.
mkdir -p "$W/repo/papers/tiny/claims" "$W/repo/papers/tiny/fixtures"
cp "$RUNS" "$W/repo/papers/tiny/runs.yaml"
cd "$W/repo"
F=papers/tiny/fixtures
"$CC" sweep run tiny_sweep --config papers/tiny/runs.yaml --cache "$W/cache" --jobs 2 >/dev/null
"$CC" fixtures pack --sweep tiny_sweep --cache "$W/cache"
shopt -s nullglob
points=("$F"/tiny_sweep/*/seed*)
[ "${#points[@]}" -eq 4 ] || { echo "FAIL: ${#points[@]} of 4 points packed"; exit 1; }
grep -q 'tiny_sweep/' "$F/MANIFEST.sha256" || { echo "FAIL: the manifest does not list the packed points"; exit 1; }
(cd "$F" && sha256sum --quiet -c MANIFEST.sha256) || { echo "FAIL: the manifest does not match the packed files"; exit 1; }
"$CC" fixtures pack --sweep tiny_sweep --cache "$W/cache" | grep -q "packed 0 point" || { echo "FAIL: a second pack added points"; exit 1; }

"$CC" fixtures restore tiny_sweep --cache "$W/restored"
done=$("$CC" sweep plan tiny_sweep --config papers/tiny/runs.yaml --cache "$W/restored" | grep -c $'\tdone$')
[ "$done" -eq 4 ] || { echo "FAIL: $done of 4 restored points are done"; exit 1; }
for f in "$W"/restored/*/seed*/*; do
  cmp -s "$f" "$W/cache/${f#"$W"/restored/}" || { echo "FAIL: $f differs from the trained file"; exit 1; }
done

one=${points[0]}
printf 'x' >>"$one/metrics.jsonl"
if "$CC" fixtures restore tiny_sweep --cache "$W/tampered" 2>"$W/err"; then
  echo "FAIL: a changed packed file was restored"; exit 1
fi
grep -Eq "does not match run.json|sha256 differs from .*MANIFEST.sha256" "$W/err" || { echo "FAIL: unexpected error:"; cat "$W/err"; exit 1; }
# The same change with the point's run.json rewritten to match it: the tree's manifest still refuses it.
python3 - "$one" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
run = json.load(open(f"{d}/run.json"))
run["sha256"]["metrics.jsonl"] = hashlib.sha256(open(f"{d}/metrics.jsonl", "rb").read()).hexdigest()
os.remove(f"{d}/run.json")
json.dump(run, open(f"{d}/run.json", "w"), indent=2)
PY
if "$CC" fixtures restore tiny_sweep --cache "$W/tampered2" 2>"$W/err"; then
  echo "FAIL: a point whose run.json was rewritten to match a changed file was restored"; exit 1
fi
grep -q "sha256 differs from .*MANIFEST.sha256" "$W/err" || { echo "FAIL: unexpected error:"; cat "$W/err"; exit 1; }
# ... and with the manifest deleted too: refused, not trusted to run.json alone.
mv "$F/MANIFEST.sha256" "$W/manifest.kept"
if "$CC" fixtures restore tiny_sweep --cache "$W/tampered3" 2>"$W/err"; then
  echo "FAIL: a tree without its manifest was restored from"; exit 1
fi
grep -q "MANIFEST.sha256: missing; restore reads packed points only" "$W/err" || { echo "FAIL: unexpected error:"; cat "$W/err"; exit 1; }
mv "$W/manifest.kept" "$F/MANIFEST.sha256"

# One run by itself: a recreate command with a double quote stays valid JSON.
src=$(dirname "$(find "$W/cache" -name final_eval.json | sort | head -1)")
"$CC" fixtures pack "$src" --out "$F/single/seed0" --steps 0 --recreate 'claimcheck train --note "q"' >/dev/null
python3 - "$F/single/seed0/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["format"] == "claimcheck-fixture/1", run
assert run["recreate"] == 'claimcheck train --note "q"', run["recreate"]
assert set(run["sha256"]) == {"step000000.safetensors", "step000000.json", "metrics.jsonl", "final_eval.json"}, run["sha256"]
assert run["final_sidecar"] == "step000000.json" and len(run["trained_with_commit"]) > 0, run
PY
if "$CC" fixtures pack "$src" --out "$F/single/seed1" --steps 0,999999 2>"$W/err"; then
  echo "FAIL: a missing step was packed"; exit 1
fi
grep -q "step999999.safetensors: missing, nothing packed" "$W/err" || { echo "FAIL: unexpected error:"; cat "$W/err"; exit 1; }
[ ! -e "$F/single/seed1" ] || { echo "FAIL: a refused pack left a folder"; exit 1; }
# A corrupted checkpoint (one byte of its weights changed) is refused, not packed with its new hash.
cp -a "$src" "$W/corrupt"
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[-3] ^= 1; open(sys.argv[1], "wb").write(b)' "$W/corrupt/step000000.safetensors"
if "$CC" fixtures pack "$W/corrupt" --out "$F/single/seed2" --steps 0 2>"$W/err"; then
  echo "FAIL: a corrupted checkpoint was packed"; exit 1
fi
grep -q "does not match the sidecar.*nothing packed" "$W/err" || { echo "FAIL: unexpected error:"; cat "$W/err"; exit 1; }
[ ! -e "$F/single/seed2" ] || { echo "FAIL: a refused pack left a folder"; exit 1; }
echo "PASS: 4 points packed and restored byte for byte; a changed one is refused, with its run.json rewritten too; a run packed alone has a valid run.json"
