"""docs.readme_numbers: what README.md states about the committed results is what the committed reports
say, so the front page cannot drift from them: the result table (each paper's claims and verdict
counts, and the positive-control row), the seconds `verify` took (each report's wall_s, rounded, one per paper), and
the lines it quotes from verify's output (each claim's verdict, value and reason, and the counts line).
usage: readme_numbers.py SOURCE_DIR"""
import json
import os
import re
import sys

src = sys.argv[1]
readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
problems = []
VERDICTS = ["PASS", "FAIL", "INCONCLUSIVE", "INVALID", "SKIPPED"]

# The result table: | paper | claims | PASS | FAIL | INCONCLUSIVE | INVALID | SKIPPED | report |
rows = re.findall(r"^\| ([^|]+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| ([^|]+) \|$", readme, re.M)
reports = []  # in table order, the papers' own rows
for label, total, *counts, link in rows:
    counts = [int(c) for c in counts]
    m = re.search(r"\]\(([^)]+)/REPORT\.md\)", link)
    if m:
        path = os.path.join(src, m.group(1), "report.json")
        report = json.load(open(path))
        reports.append(report)
        want = [report["counts"][v] for v in VERDICTS]
        have_total = sum(report["counts"].values())
    else:  # "the same report": the positive controls of the report above
        report = reports[-1] if reports else {}
        pc = report.get("positive_control_counts", {})
        want = [pc.get(v, 0) for v in VERDICTS]
        have_total = sum(pc.values())
    if counts != want or int(total) != have_total:
        problems.append(f"README result row '{label.strip()}': {total} {counts}, the report says {have_total} {want}")
if len(reports) < 2:
    problems.append(f"README result table: {len(reports)} paper rows found, expected one per paper")

# "`verify` itself took N s, M s and K s for the three papers": one time per paper row, in table order.
m = re.search(r"`verify` itself took ([^`]*?) for the (\w+) papers", readme)
if not m:
    problems.append("README: no sentence giving verify's time per paper")
else:
    stated = [int(x) for x in re.findall(r"(\d+) s\b", m.group(1))]
    measured = [round(r["wall_s"]) for r in reports]
    if stated != measured:
        problems.append(f"README: verify took {stated} s, the committed reports say {measured} s")

# The quoted output: "VERDICT  ID  value ... reason [expected: ...]" and the counts line.
claims = {c["id"]: c for r in reports for c in r["claims"]}
for verdict, cid, rest in re.findall(r"^(PASS|FAIL|INCONCLUSIVE|INVALID|SKIPPED) +(\S+) +(.*)$", readme, re.M):
    c = claims.get(cid)
    if c is None:
        problems.append(f"README quotes claim {cid}, which no committed report has")
        continue
    if c["verdict"] != verdict:
        problems.append(f"README quotes {cid} as {verdict}, the report says {c['verdict']}")
    if c.get("reason") and c["verdict"] != "PASS" and c["reason"] not in rest:
        problems.append(f"README quotes {cid} without its reason '{c['reason']}'")
    value = c.get("measured")
    if isinstance(value, (int, float)):
        shown = re.match(r"([0-9.]+)(%?)", rest)
        if not shown or abs(float(shown.group(1)) / (100 if shown.group(2) else 1) - value) > 0.006 * max(1, abs(value)):
            problems.append(f"README quotes {cid}'s value as '{rest.split()[0]}', the report says {value}")
m = re.search(r"^(\d+) PASS, (\d+) FAIL, (\d+) INCONCLUSIVE, (\d+) SKIPPED, (\d+) INVALID, (\d+) ERROR", readme, re.M)
if m and reports:
    c = reports[0]["counts"]
    want = [c["PASS"], c["FAIL"], c["INCONCLUSIVE"], c["SKIPPED"], c["INVALID"], c["ERROR"]]
    if [int(x) for x in m.groups()] != want:
        problems.append(f"README's counts line {m.group(0)!r}, the first paper's report says {want}")

for p in problems:
    print("FAIL", p)
print(f"readme numbers: {'ok' if not problems else str(len(problems)) + ' problem(s)'}")
sys.exit(1 if problems else 0)
