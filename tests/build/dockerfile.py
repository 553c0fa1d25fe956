#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dockerfile.py DOCKERFILE LANDRUN PROFILES_DIR: what can be checked of the
example image without a container engine (there is none on the machines
this is tested on), as TAP:

- every instruction is one Docker knows, continuation lines joined;
- the image is Debian slim with the Debian package installed by apt-get;
- ENTRYPOINT and CMD are JSON arrays (the exec form: landrun is PID 1, not a
  shell); the ENTRYPOINT is landrun, its options end with "--", each is an
  option of `landrun --help`, and its --profile is a shipped profile.

tests/e2e/supervise.sh runs the ENTRYPOINT itself as PID 1.
"""
import json
import os
import re
import subprocess
import sys

dockerfile, landrun, profiles = sys.argv[1:4]
results = []


def check(ok, what, detail=""):
    results.append((bool(ok), what, detail))


KNOWN = {"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME",
         "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"}
text = open(dockerfile, encoding="utf-8").read()
instructions = []
for line in re.sub(r"\\\n", " ", text).splitlines():
    line = line.strip()
    if line and not line.startswith("#"):
        word, _, rest = line.partition(" ")
        instructions.append((word.upper(), rest.strip()))
unknown = [w for w, _ in instructions if w not in KNOWN]
check(instructions and not unknown, "every instruction is a Docker instruction", f"{unknown}")

stages = [i for i, (w, _) in enumerate(instructions) if w == "FROM"]
final = instructions[stages[-1]:] if stages else []
check(final and final[0][1].split()[0] == "debian:12-slim", "the image is debian:12-slim",
      f"{final[:1]}")
check(any(w == "RUN" and re.search(r"apt-get install .*landrun_\*\.deb", r) for w, r in final),
      "the image installs the Debian package with apt-get")


def exec_form(name):
    values = [r for w, r in final if w == name]
    if len(values) != 1:
        return None, f"{len(values)} {name} instructions"
    try:
        v = json.loads(values[0])
    except ValueError as e:
        return None, f"{name} is not JSON: {e}"
    if not isinstance(v, list) or not v or not all(isinstance(a, str) for a in v):
        return None, f"{name} is not a JSON array of strings"
    return v, ""


ep, why = exec_form("ENTRYPOINT")
check(ep, "ENTRYPOINT is a JSON array", why)
cmd, why = exec_form("CMD")
check(cmd, "CMD is a JSON array", why)
if ep:
    check(ep[0] == "landrun" and ep[-1] == "--", "ENTRYPOINT is landrun OPTIONS... --", f"{ep}")
    usage = subprocess.run([landrun, "--help"], capture_output=True, text=True).stdout
    known = set(re.findall(r"^  (--[a-z0-9-]+)", usage, re.M))
    given = [a.split("=")[0] for a in ep[1:-1] if a.startswith("--")]
    check(given and set(given) <= known, "its options are landrun's",
          f"unknown: {sorted(set(given) - known)}")
    prof = [ep[i + 1] for i, a in enumerate(ep[:-1]) if a == "--profile"]
    check(all(os.path.exists(os.path.join(profiles, p + ".conf")) for p in prof),
          f"what its --profile names ships with landrun ({', '.join(prof) or 'none'})")

print(f"1..{len(results)}")
for i, (ok, what, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {what}" + ("" if ok else f": {detail}"))
sys.exit(0 if all(r[0] for r in results) else 1)
