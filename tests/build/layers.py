#!/usr/bin/env python3
# layers.py SOURCE_ROOT - check that the code includes only downward, in the
# order of src/meson.build: a file of src/F/ or include/landrun/F/ may include
# landrun/G/ only if G comes before F (or is F), and never one of the three
# sides over sandbox/ another: the command's side (confine/), the supervisor
# and the helper (egress/) share only sandbox/ and what is below it; the pure
# parsers (policy/) reach nothing that runs.  The build-time generator
# (tools/) may include up to sandbox/ (seccomp.h).  src/main.c and src/run/
# (the executable's pipeline and its steps) may include every folder.  TAP.
import os
import re
import sys

ORDER = ["lib", "policy", "plan", "sandbox", "confine", "supervisor", "egress"]
# confine/ (the command's side), supervisor/ and egress/ (the helper, and
# landrun's side of it) are three sides over sandbox/: in the order of the
# libraries one comes after another, but none uses another.
APART = {"supervisor": ("confine",), "egress": ("confine", "supervisor")}

root = sys.argv[1]
inc = re.compile(r'^\s*#\s*include\s+"landrun/([a-z]+)/([A-Za-z0-9_.-]+)"', re.M)
results = []
files = 0


def check(path, folder, limit):
    global files
    files += 1
    text = open(os.path.join(root, path)).read()
    for m in inc.finditer(text):
        to, name = m.group(1), m.group(1) + "/" + m.group(2)
        if to not in ORDER:
            results.append((False, f"{path}: includes {name}", "no such folder"))
        elif to in APART.get(folder, ()):
            results.append((False, f"{path}: includes {name}",
                            f"{folder}/ uses nothing of {to}/"))
        elif ORDER.index(to) > limit:
            results.append((False, f"{path}: includes {name}",
                            f"{folder}/ may use only {', '.join(ORDER[:limit + 1])}"))


for top, depth in (("src", 1), ("include/landrun", 2), ("tools", 1)):
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        rel = os.path.relpath(dirpath, root)
        parts = rel.split(os.sep)
        for n in sorted(names):
            if not n.endswith((".c", ".h")):
                continue
            path = rel + "/" + n
            if top == "tools":
                check(path, "tools", ORDER.index("sandbox"))
            elif top == "src" and len(parts) > 1 and parts[1] == "run":
                continue  # the executable's steps (src/run/run.h): they may use all
            elif len(parts) > depth and parts[depth] in ORDER:
                folder = parts[depth]
                check(path, folder, ORDER.index(folder))
            elif path != "src/main.c":
                results.append((False, f"{path}: in no folder of {ORDER}", ""))

results.insert(0, (files > 50, f"{files} files of src/, include/landrun/ and tools/ read", ""))
if len(results) == 1:
    results.append((True, "every #include of ours points downward", ""))
print(f"1..{len(results)}")
for i, (ok, name, why) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}" + ("" if ok or not why else f" # {why}"))
sys.exit(0 if all(ok for ok, _, _ in results) else 1)
