#!/usr/bin/env python3
"""Sums a libtorch chrome trace (bench/profile_step.cpp) by op name: total time per op, its share,
and calls, top N. Inclusive times (an op that calls another counts both). Usage: profile_ops.py TRACE [N]"""
import collections
import json
import sys

events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
total = collections.Counter()
calls = collections.Counter()
for e in events:
    if e.get("ph") == "X":
        total[e["name"]] += e.get("dur", 0)
        calls[e["name"]] += 1
top_level = sum(d for n, d in total.items())
for name, dur in total.most_common(int(sys.argv[2]) if len(sys.argv) > 2 else 25):
    print(f"{dur / 1000:10.1f} ms  {calls[name]:6d} calls  {name}")
