#!/usr/bin/env python3
"""Summarises sweep runs: for each run directory's metrics.jsonl, the first step at which each
phase is reached (0-var: test_0 >= 0.9; binding: test_1 and test_2 >= 0.9; restricted:
var_restricted_1 >= 0.9) and the final accuracies. Usage: summarise.py DIR...  (run directories, e.g. a sweep's points: cache/batch_seeds-*/seed*)"""
import json
import sys


def first(rows, pred):
    for r in rows:
        if pred(r["acc"]):
            return r["step"]
    return None


for d in sys.argv[1:]:
    try:
        rows = [json.loads(l) for l in open(f"{d}/metrics.jsonl")]
    except FileNotFoundError:
        continue
    last = rows[-1]
    phases = {
        "0var": first(rows, lambda a: a["test_0"] >= 0.9),
        "binding": first(rows, lambda a: a["test_1"] >= 0.9 and a["test_2"] >= 0.9),
        "restricted": first(rows, lambda a: a["var_restricted_1"] >= 0.9),
    }
    acc = {k: round(last["acc"][k], 3) for k in ("test_0", "test_1", "test_2", "var_restricted_1")}
    print(f"{d}\tstep {last['step']}\t" + "\t".join(f"{k}@{v}" for k, v in phases.items()) + f"\t{acc}")
