#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""links.py SOURCE_ROOT: the links of README.md and docs/*.md hold (TAP).

- every relative link names a file of the tree, and its #anchor, in a
  Markdown file, a heading of that file (spelled as GitHub makes anchors:
  lower case, punctuation dropped, blanks as hyphens);
- docs/README.md, the index, links every other file of docs/.

The reference was split out of the README into docs/; a section that moves
again, or is renamed, must take its links with it.
"""
import glob
import os
import re
import sys

root = sys.argv[1]
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
results = []


def anchors(path):
    """The anchors GitHub gives the headings of a Markdown file."""
    seen, out = {}, set()
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            m = re.match(r"^#{1,6} (.*)", line)
            if not m or in_code:
                continue
            a = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else f"{a}-{n}")
    return out


files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
for path in files:
    rel = os.path.relpath(path, root)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    links = [m.group(2) for m in LINK.finditer(text)]
    bad = []
    for target in links:
        if re.match(r"^[a-z]+:", target):
            continue  # https:, mailto:
        name, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), name)) if name else path
        if not os.path.exists(dest):
            bad.append(f"{target}: no such file")
        elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
            bad.append(f"{target}: no heading with that anchor")
    results.append((not bad, f"{rel}: its {len(links)} links hold", "; ".join(bad)))

index = os.path.join(root, "docs", "README.md")
if os.path.exists(index):
    with open(index, encoding="utf-8") as f:
        linked = {m.group(2).partition("#")[0] for m in LINK.finditer(f.read())}
    for path in files[1:]:
        name = os.path.basename(path)
        if name != "README.md":
            results.append((name in linked, f"docs/README.md links {name}", ""))
else:
    results.append((False, "docs/README.md, the index, exists", ""))

print(f"1..{len(results)}")
for i, (ok, what, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {what}")
    if not ok and detail:
        print(f"# {detail}")
sys.exit(0 if all(ok for ok, _, _ in results) else 1)
