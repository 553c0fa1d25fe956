#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-doc.py LR_OPTIONS LANDRUN LANDRUN.1 LANDRUN.CONF.5: --help and the
man pages agree with the option table (TAP).

- every option of the table (as tests/doc/lr-options prints it) has an entry
  in `landrun --help`, with the argument the table says it takes, and
  --help has no entry that is not in the table;
- landrun(1), as scdoc made it, has every entry of --help, spelled the same
  (--name, and the argument's name and form), and none that --help lacks;
- landrun.conf(5) names the options that are not policy settings.
"""
import re
import subprocess
import sys

lr_options, landrun, man1, man5 = sys.argv[1:5]
results = []


def check(ok, what, detail=""):
    results.append((ok, what, detail))


def roff_text(path):
    """The text of a man page, without font changes and escapes."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"\\f[BIRP]", "", text)
    return text.replace("\\&", "").replace("\\-", "-").replace("\\\\", "\\")


table = {}
for line in subprocess.run([lr_options], check=True, capture_output=True,
                           text=True).stdout.splitlines():
    name, arg, where = line.split("\t")
    table[name] = (arg, where)
check(len(table) > 20, f"the table has {len(table)} options")

# --help: "  --name ARG   help", "  --name=ARG", "  --name[=ARG]", "  --name"
usage = subprocess.run([landrun, "--help"], check=True, capture_output=True, text=True).stdout
entry = re.compile(r"^  --([a-z0-9-]+)(\[=[^\]\s]+\]|=\S+| \S+)?(?:  |$)")
help_entries = set()
for line in usage.splitlines():
    m = entry.match(line)
    if m:
        help_entries.add((m.group(1), m.group(2) or ""))
form = {"none": lambda a: a == "", "required": lambda a: a[:1] in (" ", "="),
        "optional": lambda a: a.startswith("[=")}
for name, (arg, _) in sorted(table.items()):
    spelled = sorted(a for n, a in help_entries if n == name)
    check(spelled and all(form[arg](a) for a in spelled),
          f"--help: --{name} ({arg})", f"entries: {spelled}")
for name, a in sorted(help_entries - {(n, a) for n, a in help_entries if n in table}):
    check(False, f"--help: --{name}{a} is in the table", "an entry of no option")

# landrun(1): the entry lines that scdoc made of "*--name* _ARG_", each
# followed by the indented help (".RS 4")
lines = roff_text(man1).splitlines()
man_entries = set()
for i, line in enumerate(lines[:-1]):
    m = re.match(r"^--([a-z0-9-]+)((?:\[=|=| )[^ ]+)?$", line)
    if m and lines[i + 1].startswith(".RS"):
        man_entries.add((m.group(1), m.group(2) or ""))
for name, a in sorted(help_entries):
    check((name, a) in man_entries, f"landrun(1) has --{name}{a} as --help spells it",
          f"landrun(1) has: {sorted(x for n, x in man_entries if n == name)}")
for name, a in sorted(man_entries - help_entries):
    check(False, f"landrun(1): --{name}{a} is in --help", "an entry --help does not have")

# landrun.conf(5): the command-line-only options are named as such
conf = roff_text(man5)
for name, (_, where) in sorted(table.items()):
    if where == "cli":
        check(f"--{name}" in conf, f"landrun.conf(5) names --{name} as command-line only")

print(f"1..{len(results)}")
for i, (ok, what, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {what}" + ("" if ok else f": {detail}"))
sys.exit(0 if all(r[0] for r in results) else 1)
