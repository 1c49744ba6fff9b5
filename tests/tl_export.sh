#!/usr/bin/env bash
# ctest reference.transformerlens_export: `claimcheck export --format transformer-lens` loaded with
# strict=True into a model with TransformerLens's block structure (tests/tl_export_check.py), whose
# logits and activations must match claimcheck's on every evaluation set. Skipped (exit 77) without
# Debian's python3-torch. Usage: tl_export.sh CLAIMCHECK CHECKPOINT
set -euo pipefail
cc=$1 checkpoint=$2
# Debian's interpreter first: a pyenv or venv python3 earlier on PATH does not see python3-torch.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3 || true)
[ -n "$py" ] || { echo "SKIP: no python3"; exit 77; }
"$py" -c "import torch" 2>/dev/null || { echo "SKIP: python3-torch is not installed for $py (apt-get install python3-torch)"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-tlexport.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$cc" export "$checkpoint" --format transformer-lens --out "$dir/tl"
"$cc" eval "$checkpoint" --size 100 --cache-out "$dir/cache.safetensors" > "$dir/eval.txt"
exec "$py" "$(dirname "$0")/tl_export_check.py" "$dir/tl" "$dir/cache.safetensors" "$checkpoint"
