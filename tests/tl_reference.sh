#!/usr/bin/env bash
# The forward pass against TransformerLens's conventions (Debian's python3-torch; skipped, exit 77,
# where it is missing). Usage: tl_reference.sh CLAIMCHECK CHECKPOINT [export]
#   ctest reference.transformerlens: claimcheck's forward pass and activations against
#     tests/tl_reference.py, a plain PyTorch module written from TransformerLens's conventions;
#   ctest reference.transformerlens_export (with `export`): `claimcheck export --format
#     transformer-lens` loaded with strict=True into TransformerLens's module tree
#     (tests/tl_export_check.py), logits and activations equal to claimcheck's on every evaluation set.
set -euo pipefail
cc=$1 checkpoint=$2 mode=${3:-forward}
# Debian's interpreter first: a pyenv or venv python3 earlier on PATH does not see python3-torch.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3 || true)
[ -n "$py" ] || { echo "SKIP: no python3"; exit 77; }
"$py" -c "import torch" 2>/dev/null || { echo "SKIP: python3-torch is not installed for $py (apt-get install python3-torch)"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-tlref.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$cc" eval "$checkpoint" --size 100 --cache-out "$dir/cache.safetensors" > "$dir/eval.txt"
if [ "$mode" = export ]; then
  "$cc" export "$checkpoint" --format transformer-lens --out "$dir/tl"
  "$py" "$(dirname "$0")/tl_export_check.py" "$dir/tl" "$dir/cache.safetensors" "$checkpoint"
  exit  # its status; not `exec`, so that the trap removes $dir
fi
"$py" "$(dirname "$0")/tl_reference.py" "$checkpoint" "$dir/cache.safetensors"  # not exec: the trap runs
