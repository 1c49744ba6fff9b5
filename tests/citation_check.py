"""CITATION.cff parses as YAML, carries the keys the Citation File Format 1.2.0 requires, names the
paper claimcheck verifies, and states the version CMakeLists.txt builds; LICENSE is the MIT text;
CHANGELOG.md's newest release is that version, `claimcheck --version` prints it, and where the
checkout has the tag vVERSION (a shallow clone may have no tags), HEAD descends from it; a tag
CHANGELOG.md names exists (where the checkout has tags at all).
usage: citation_check.py SOURCE_DIR [CLAIMCHECK]"""
import re
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("SKIP: python3-yaml is not installed")
    sys.exit(77)

src = sys.argv[1]
cff = yaml.safe_load(open(f"{src}/CITATION.cff", encoding="utf-8"))
problems = []
for key in ("cff-version", "message", "title", "authors"):
    if key not in cff:
        problems.append(f"CITATION.cff: no '{key}' (CFF 1.2.0 requires it)")
if cff.get("cff-version") != "1.2.0":
    problems.append(f"CITATION.cff: cff-version {cff.get('cff-version')!r}, expected '1.2.0'")
version = re.search(r"project\(claimcheck VERSION ([0-9.]+)", open(f"{src}/CMakeLists.txt").read()).group(1)
if str(cff.get("version")) != version:
    problems.append(f"CITATION.cff: version {cff.get('version')!r}, CMakeLists.txt builds {version}")
ids = [i.get("value", "") for r in cff.get("references", []) for i in r.get("identifiers", [])]
if not any("2605.31497" in v for v in ids):
    problems.append("CITATION.cff: no reference with the paper's arXiv id 2605.31497")
if "MIT License" not in open(f"{src}/LICENSE").read():
    problems.append("LICENSE: not the MIT text")
changelog = open(f"{src}/CHANGELOG.md", encoding="utf-8").read()
releases = re.findall(r"^## ([0-9]+\.[0-9]+\.[0-9]+)\b", changelog, re.M)
if not releases or releases[0] != version:
    problems.append(f"CHANGELOG.md: its newest release is {releases[:1]}, CMakeLists.txt builds {version}")
if len(sys.argv) > 2:
    out = subprocess.run([sys.argv[2], "--version"], capture_output=True, text=True).stdout
    # VERSION itself at the release, VERSION+dev.N.gHASH between releases (cmake/BuildCommit.cmake).
    if not re.match(rf"claimcheck {re.escape(version)}(\+(dev\.([0-9]+\.)?g[0-9a-f]+(\.dirty)?|dirty))?\n", out):
        problems.append(f"claimcheck --version prints {out.splitlines()[:1]}, CMakeLists.txt builds {version}")
try:
    tags = subprocess.run(["git", "-C", src, "tag"], capture_output=True, text=True).stdout.split()
except OSError:
    tags = []
for named in sorted(set(re.findall(r"`(v[0-9]+\.[0-9]+\.[0-9]+)`", changelog))):
    if tags and named not in tags:
        problems.append(f"CHANGELOG.md names the tag {named}, which this repository does not have")
tag = f"v{version}"
try:
    tagged = subprocess.run(["git", "-C", src, "rev-parse", "-q", "--verify", f"refs/tags/{tag}"],
                            capture_output=True, text=True).returncode == 0
except OSError:
    tagged = False
if tagged:
    if subprocess.run(["git", "-C", src, "merge-base", "--is-ancestor", tag, "HEAD"]).returncode != 0:
        problems.append(f"git: HEAD does not descend from the tag {tag}")
else:
    print(f"note: no tag {tag} in this checkout (a shallow clone, or not yet released); not checked")
for p in problems:
    print("FAIL", p)
print(f"{0 if problems else 1} passed, {len(problems)} failed")
sys.exit(1 if problems else 0)
