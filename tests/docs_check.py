#!/usr/bin/env python3
"""ctest docs.links: the README stays a front door and its links lead somewhere.

- README.md is at most 150 lines;
- every page under docs/ is linked from the README;
- every relative link in README.md, CONTRIBUTING.md and docs/*.md names a file or folder that exists
  (anchors and web addresses are not followed).
Exit 0: all hold; 1: each problem printed.

usage: docs_check.py SOURCE_DIR
"""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
MAX_README_LINES = 150


def main():
    root = sys.argv[1]
    problems = []
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    lines = readme.count("\n")
    if lines > MAX_README_LINES:
        problems.append(f"README.md: {lines} lines, more than {MAX_README_LINES}")
    docs = sorted(f for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    linked = set(LINK.findall(readme))
    for d in docs:
        if f"docs/{d}" not in linked:
            problems.append(f"README.md: does not link docs/{d}")
    pages = ["README.md", "CONTRIBUTING.md"] + [f"docs/{d}" for d in docs]
    for page in pages:
        text = open(os.path.join(root, page), encoding="utf-8").read()
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(root, os.path.dirname(page), target.split("#")[0]))
            if not os.path.exists(path):
                problems.append(f"{page}: link to {target}: no such file")
    for p in problems:
        print("PROBLEM:", p)
    print(f"README.md: {lines} lines; {len(docs)} pages in docs/; {len(pages)} pages' links checked")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
