#!/usr/bin/env bash
# Paths that are not regular files, or files too large, given wherever claimcheck reads input: a
# claim, --runs, --config, a checkpoint. Each must end at once in an error naming the path and the
# problem, with a non-zero exit and max RSS under 256 MB (GNU time). Before: a FIFO blocked until
# killed, /dev/zero grew to 6.5 GB, a 1 GB sparse checkpoint to 2.2 GB before being refused.
# Each command runs under `timeout 20`, so a hang names its case instead of hitting ctest's TIMEOUT.
# usage: special_files_cli.sh CLAIMCHECK RUNS_FILE CLAIM_TEMPLATE
set -uo pipefail
CC=$1 RUNS=$2 TEMPLATE=$3
command -v /usr/bin/time >/dev/null || { echo "SKIP: GNU time (package 'time') is not installed"; exit 77; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkfifo "$W/fifo.yaml" "$W/fifo.safetensors"
ln -s /dev/zero "$W/zero.yaml"
ln -s /dev/urandom "$W/urandom.yaml"
ln -s /dev/zero "$W/zero.safetensors"
truncate -s 1G "$W/sparse.safetensors"
# A checkpoint is read after its sidecar is found: give each a real one.
SIDECAR=$(dirname "$RUNS")/../../fixtures/default/seed0/step000000.json  # Assign and Add's fixtures (its paper.yaml)
for c in fifo zero sparse; do cp "$SIDECAR" "$W/$c.json"; done
# Just under the YAML cap (256 KiB): a flow list of 85000 one-digit values.
python3 -c "import sys; open(sys.argv[1], 'w').write('id: big\nlist: [' + ', '.join(['1'] * 85000) + ']\n')" "$W/near_cap.yaml"
fail=0
expect() {  # NAME REGEX CMD...
  local name=$1 regex=$2 out rc rss secs
  shift 2
  out=$(timeout 20 /usr/bin/time -f "%e %M" "$@" 2>&1)
  rc=$?
  read -r secs rss <<<"$(tail -1 <<<"$out")"
  if [ "$rc" -eq 124 ]; then echo "FAIL $name: still running after 20 s"; fail=1; return; fi
  if [ "$rc" -eq 0 ]; then echo "FAIL $name: exit 0"; echo "$out" | tail -3; fail=1; return; fi
  if ! grep -Eq "$regex" <<<"$out"; then echo "FAIL $name: no message matching: $regex"; echo "$out" | tail -3; fail=1; return; fi
  if [ "$rss" -ge 262144 ]; then echo "FAIL $name: max RSS $rss KB >= 256 MB"; fail=1; return; fi
  echo "ok   $name: exit $rc, ${secs} s, max RSS $((rss / 1024)) MB: $(grep -Eo "$regex.*" <<<"$out" | head -1 | cut -c1-120)"
}
R=(--report "$W/report")
expect claim_fifo "fifo.yaml: claim or run file is a FIFO" "$CC" verify "$W/fifo.yaml" --runs "$RUNS" "${R[@]}"
expect claim_dev_zero "zero.yaml: claim or run file is a character device" "$CC" verify "$W/zero.yaml" --runs "$RUNS" "${R[@]}"
expect claim_dev_urandom "urandom.yaml: claim or run file is a character device" "$CC" verify "$W/urandom.yaml" --runs "$RUNS" "${R[@]}"
expect claim_near_cap "near_cap.yaml:[0-9]+:[0-9]+: missing required field" "$CC" verify "$W/near_cap.yaml" --runs "$RUNS" "${R[@]}"
expect runs_fifo "fifo.yaml: claim or run file is a FIFO" "$CC" verify "$TEMPLATE" --runs "$W/fifo.yaml" "${R[@]}"
expect config_fifo "fifo.yaml: claim or run file is a FIFO" "$CC" train --config "$W/fifo.yaml" --out "$W/out"
expect config_dev_zero "zero.yaml: claim or run file is a character device" "$CC" train --config "$W/zero.yaml" --out "$W/out"
expect checkpoint_fifo "fifo.safetensors: .*is a FIFO" "$CC" eval "$W/fifo.safetensors"
expect checkpoint_dev_zero "zero.safetensors: .*is a character device" "$CC" eval "$W/zero.safetensors"
expect checkpoint_sparse_1g "sparse.safetensors: 1073741824 bytes; a checkpoint file is at most" "$CC" eval "$W/sparse.safetensors"
exit $fail
