#!/usr/bin/env bash
# Sourced by the tests that change a paper's committed files on a copy (never the committed tree):
#   copy_paper PAPER_DIR DEST   DEST/NAME: the paper's files copied, its fixtures as hard links
#   own FILE                    break FILE's hard link before changing it
#   rehash FIXTURES FILE...     each FILE's line in FIXTURES/MANIFEST.sha256 and its run.json entry
#                               rewritten to match, as someone hiding a change would
copy_paper() {
  local name
  name=$(basename "$1")
  rm -rf "${2:?}/$name" && mkdir -p "$2"
  cp -a "$1" "$2/" && rm -rf "$2/$name/fixtures" && cp -al "$1/fixtures" "$2/$name/fixtures"
}
own() { cp "$1" "$1.own" && mv "$1.own" "$1"; }
rehash() {
  python3 - "$@" <<'PY'
import hashlib, json, os, sys
root, files = sys.argv[1], sys.argv[2:]
h = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
for f in list(files):
    run = os.path.join(os.path.dirname(f), "run.json")
    if os.path.exists(run) and os.path.basename(f) != "run.json":
        r = json.load(open(run)); r["sha256"][os.path.basename(f)] = h(f)
        os.remove(run); json.dump(r, open(run, "w"), indent=2); files.append(run)
lines = open(f"{root}/MANIFEST.sha256").read().splitlines()
for f in files:
    rel = os.path.relpath(f, root)
    lines = [f"{h(f)}  {rel}" if l.split("  ", 1)[1] == rel else l for l in lines]
os.remove(f"{root}/MANIFEST.sha256")
open(f"{root}/MANIFEST.sha256", "w").write("\n".join(lines) + "\n")
PY
}
