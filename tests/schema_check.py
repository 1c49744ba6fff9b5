#!/usr/bin/env python3
"""Validates every committed claim file, baseline and report.json against schemas/ (ctest docs.schemas).

Usage: schema_check.py REPO_ROOT. Skips (exit 77) where python3-jsonschema or python3-yaml is missing."""
import glob
import json
import os
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # ctest maps 77 to a skip
    print(f"skipped: {e} (Debian: python3-jsonschema, python3-yaml)")
    sys.exit(77)

root = sys.argv[1]


def schema(name):
    with open(os.path.join(root, "schemas", name)) as f:
        s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


def defaults_files(path):
    """The defaults.yaml files that apply to a claim file, nearest first (lib/claims/folder_defaults.h)."""
    folders = []
    d = os.path.dirname(os.path.abspath(path))
    while True:
        folders.append(d)
        if os.path.basename(d) == "claims":
            break
        if os.path.dirname(d) == d:
            folders = folders[:1]
            break
        d = os.path.dirname(d)
    return [os.path.join(d, "defaults.yaml") for d in folders if os.path.isfile(os.path.join(d, "defaults.yaml"))]


def fill(into, defaults):
    for key, value in defaults.items():
        if key not in into:
            into[key] = value
        elif isinstance(into[key], dict) and isinstance(value, dict):
            fill(into[key], value)


def with_defaults(path, doc):
    """A claim as the engine reads it: its folders' defaults fill what it leaves out (subject whole)."""
    if not isinstance(doc, dict):
        return doc
    for f in defaults_files(path):
        with open(f) as fh:
            d = yaml.safe_load(fh) or {}
        fill(doc, {k: v for k, v in d.items() if k in ("paper", "tier")})
        if "subject" in d and "subject" not in doc:
            doc["subject"] = d["subject"]
    return doc


claim_files = sorted(glob.glob(f"{root}/papers/*/claims/**/*.yaml", recursive=True))
checks = [
    (schema("claim.schema.json"), [p for p in claim_files if os.path.basename(p) != "defaults.yaml"]),
    (schema("claim-defaults.schema.json"), [p for p in claim_files if os.path.basename(p) == "defaults.yaml"]),
    (schema("baseline.schema.json"), sorted(glob.glob(f"{root}/papers/*/expected.json"))),
    (schema("report.schema.json"), sorted(glob.glob(f"{root}/reports/**/report.json", recursive=True)
                                          + glob.glob(f"{root}/papers/*/reports/**/report.json", recursive=True))),
]
failed = 0
counted = 0
for validator, files in checks:
    for path in files:
        if os.path.basename(path) in ("runs.yaml", "paper.yaml"):
            continue
        with open(path) as f:
            doc = yaml.safe_load(f) if path.endswith(".yaml") else json.load(f)
        if path.endswith(".yaml") and os.path.basename(path) != "defaults.yaml":
            doc = with_defaults(path, doc)
        counted += 1
        if path.endswith("report.json") and "format" not in doc:
            print(f"{os.path.relpath(path, root)}: predates claimcheck-report/1 (no format key): "
                  "only its basic fields are checked; regenerate it to check the rest")
        for err in validator.iter_errors(doc):
            failed += 1
            where = "/".join(str(p) for p in err.absolute_path) or "(top)"
            print(f"{os.path.relpath(path, root)}: {where}: {err.message}")
# The schemas can fail: a committed report and a committed baseline, each with one verdict misspelt,
# are rejected.
reports = [p for p in checks[3][1] if "format" in json.load(open(p))]
if reports:
    with open(reports[0]) as f:
        bad = json.load(f)
    bad["claims"][0]["verdict"] = "MOSTLY"
    if not list(checks[3][0].iter_errors(bad)):
        failed += 1
        print(f"report.schema.json accepts a verdict MOSTLY ({os.path.relpath(reports[0], root)})")
# ...and the attribution section's verdicts too, where a committed report has one.
with_attribution = [p for p in reports if json.load(open(p)).get("attribution", {}).get("claims")]
if with_attribution:
    with open(with_attribution[0]) as f:
        bad = json.load(f)
    bad["attribution"]["claims"][0]["default_verdict"] = "MOSTLY"
    if not list(checks[3][0].iter_errors(bad)):
        failed += 1
        print(f"report.schema.json accepts an attribution verdict MOSTLY ({os.path.relpath(with_attribution[0], root)})")
if checks[2][1]:
    with open(checks[2][1][0]) as f:
        bad = json.load(f)
    bad["claims"][0]["verdict"] = "MOSTLY"
    if not list(checks[2][0].iter_errors(bad)):
        failed += 1
        print("baseline.schema.json accepts a verdict MOSTLY")
print(f"{counted} files checked, {failed} problem(s)")
sys.exit(1 if failed else 0)
