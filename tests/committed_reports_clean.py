"""Every committed report.json was made by a binary built from a commit: its runtime.build_commit is a
full commit hash, not "-dirty" (uncommitted code) or "unknown" (no git). A report made by a dirty build
is tied to no code anyone can check out. The few older reports that cannot be regenerated here are
named in committed_reports_dirty_allowed.txt with why; no new one may join them silently (the list is
checked too: an entry whose report is clean now, or gone, is an error).
usage: committed_reports_clean.py SOURCE_DIR"""
import json
import re
import subprocess
import sys

src = sys.argv[1]
files = subprocess.run(["git", "-C", src, "ls-files", "*report.json"], capture_output=True, text=True)
if files.returncode != 0:
    print("SKIP: not a git checkout")
    sys.exit(77)
allowed = {}
for line in open(f"{src}/tests/committed_reports_dirty_allowed.txt", encoding="utf-8"):
    line = line.strip()
    if line and not line.startswith("#"):
        path, _, why = line.partition(" ")
        allowed[path] = why.strip()
problems, clean = [], 0
for path in files.stdout.split():
    report = json.load(open(f"{src}/{path}", encoding="utf-8"))
    commit = report.get("runtime", {}).get("build_commit", "")
    if re.fullmatch(r"[0-9a-f]{40}", commit):
        clean += 1
        if path in allowed:
            problems.append(f"{path}: built from {commit[:7]}, clean: remove it from the allowed list")
    elif path not in allowed:
        problems.append(f"{path}: built by {commit!r}, not a commit; regenerate it from a clean build")
for path in allowed:
    if path not in files.stdout.split():
        problems.append(f"committed_reports_dirty_allowed.txt: {path} is not a committed report")
for p in problems:
    print("FAIL:", p)
print(f"{clean} committed report(s) from a clean build, {len(allowed)} allowed otherwise")
sys.exit(1 if problems else 0)
