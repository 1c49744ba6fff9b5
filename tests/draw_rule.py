#!/usr/bin/env python3
"""The evaluation-draw rule (docs/claim-files.md, "How large an evaluation set") on the committed reports.

A claim whose kind draws its evaluation set (its measure takes `eval_seed`) and whose value is a
proportion must declare `expect.draws: 5` when any measured seed's first-draw value lies within
4.3 standard errors of one draw of its threshold. Each paper's main committed report is read (its
report.json names every claim's kind, parameters, seeds and draws). The rule is first applied to a
made-up claim that breaks it, so that a reading that flags nothing cannot pass.

usage: draw_rule.py REPO_ROOT
"""
import glob
import json
import math
import os
import sys

Z_MIN = 4.3     # (z - 1.96) / sqrt(2) >= 1.645: a second draw keeps the seed's verdict with p >= 0.95
DRAWS = 5


def draw_se(value, n):
    """One draw's standard error of a proportion, Agresti-Coull so that 0 and 1 keep an error."""
    k = value * n
    p = (k + 2) / (n + 4)
    return math.sqrt(p * (1 - p) / (n + 4))


def closest_seed(claim):
    """The measured seed nearest the threshold, in standard errors of one draw: (z, seed), or None."""
    threshold = claim.get("threshold") or {}
    if "value" not in threshold:
        return None
    nearest = None
    for seed in claim.get("seeds") or []:
        value = seed.get("value")
        if value is None or seed.get("verdict") in ("SKIPPED", "ERROR"):
            continue
        n = (seed.get("details") or {}).get("effective_n") or seed.get("n")
        if not n:
            continue
        z = abs(value - threshold["value"]) / draw_se(value, n)
        if nearest is None or z < nearest[0]:
            nearest = (z, seed.get("seed"))
    return nearest


def breaches(report):
    """Each claim of the report the rule asks to declare draws and that does not: (id, z, seed)."""
    found = []
    for claim in report.get("claims", []):
        params = (claim.get("measure") or {}).get("params") or {}
        if "eval_seed" not in params or not claim.get("measured_is_proportion"):
            continue
        nearest = closest_seed(claim)
        if nearest is None or nearest[0] >= Z_MIN:
            continue
        if len(claim.get("draws") or []) + 1 < DRAWS:
            found.append((claim["id"], nearest[0], nearest[1]))
    return found


def self_check():
    """A claim 2 se from its threshold with one draw must be flagged; with its 4 more, not."""
    n, value = 10000, 0.983
    value_at_2se = 0.98 + 2 * draw_se(value, n)
    claim = {"id": "X", "measured_is_proportion": True,
             "measure": {"kind": "accuracy", "params": {"eval_seed": 1, "size": n}},
             "threshold": {"op": ">", "value": 0.98},
             "seeds": [{"seed": 0, "value": value_at_2se, "n": n, "verdict": "PASS"}]}
    assert breaches({"claims": [claim]}), "the rule flags nothing on a claim 2 se from its threshold"
    claim["draws"] = [{}] * (DRAWS - 1)
    assert not breaches({"claims": [claim]}), "the rule flags a claim that declares its draws"


def main(root):
    self_check()
    reports = [os.path.join(root, "reports/fixtures/report.json")]
    reports += sorted(glob.glob(os.path.join(root, "papers/*/reports/fixtures/report.json")))
    failed = False
    for path in reports:
        with open(path) as f:
            report = json.load(f)
        for claim_id, z, seed in breaches(report):
            failed = True
            print(f"{os.path.relpath(path, root)}: {claim_id}: seed {seed} is {z:.1f} standard errors of one "
                  f"draw from its threshold (< {Z_MIN}) and the claim measures fewer than {DRAWS} draws: "
                  f"declare `expect.draws: {DRAWS}` (docs/claim-files.md, \"How large an evaluation set\")")
    if failed:
        return 1
    print(f"draw rule: ok ({len(reports)} reports)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
