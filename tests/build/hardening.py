#!/usr/bin/env python3
# hardening.py LANDRUN LIBLANDRUN LINK CPU - check the hardening of the built
# landrun by reading the binary (readelf, objdump), not by trusting the
# compiler flags.  LINK is "static" or "dynamic" (as meson.build linked it),
# or "control": a dynamic binary built without any hardening, for which every
# check must fail.  CPU is meson's host cpu_family.  LIBLANDRUN, the static
# library of everything but main.c, holds landrun's own object files.  TAP.
import os
import re
import subprocess
import sys

landrun, lib, link, cpu = sys.argv[1:5]
static = link == "static"
control = link == "control"
results = []


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def check(ok, name, why="", hardening=True):
    if control and hardening:
        ok, name, why = not ok, "control fails: " + name, "the unhardened control passes"
    results.append((bool(ok), name, why))


def skip(name, why, platform=False):
    # strict (LANDRUN_TEST_STRICT=1, CI): a skip fails, but for one the
    # platform's C library imposes (PLATFORM; docs/development.md, Tests)
    if os.environ.get("LANDRUN_TEST_STRICT") == "1" and not platform:
        results.append((False, name, "LANDRUN_TEST_STRICT=1: a skip that names no missing "
                        "kernel feature: " + why))
    else:
        results.append((None, name, why))


header = run("readelf", "-hW", landrun)
segments = run("readelf", "-lW", landrun)
dynamic = run("readelf", "-dW", landrun)
symbols = run("readelf", "-sW", landrun)
notes = run("readelf", "-nW", landrun)

elf_type = re.search(r"^\s*Type:\s+(\S+)", header, re.M).group(1)
check(elf_type == "DYN", "position independent: ELF type DYN", f"type is {elf_type}")
if static:
    check("INTERP" not in segments, "static: no PT_INTERP (no dynamic loader)",
          "the binary asks for an interpreter")
    check(not re.search(r"\(NEEDED\)", dynamic), "static: no DT_NEEDED libraries",
          "the binary needs shared libraries")
else:
    check("INTERP" in segments, "dynamic: has PT_INTERP", "no interpreter", hardening=False)

check(re.search(r"^\s*GNU_RELRO\s", segments, re.M), "RELRO: a PT_GNU_RELRO segment", "none")
check(re.search(r"\(FLAGS\)\s+.*\bBIND_NOW\b", dynamic) or
      re.search(r"\(FLAGS_1\)\s+Flags:.*\bNOW\b", dynamic),
      "full RELRO: DT_FLAGS BIND_NOW (relocations resolved at start, then read-only)",
      "no BIND_NOW / NOW in the dynamic section")
stack = re.search(r"^\s*GNU_STACK\s.*$", segments, re.M)
check(stack and not re.search(r"\bRWE\b|\s[R ][W ]E\s", stack.group(0)),
      "PT_GNU_STACK present and not executable",
      stack.group(0).strip() if stack else "no PT_GNU_STACK: the stack would be executable")

names = {line.split()[7].split("@")[0] for line in symbols.splitlines()
         if len(line.split()) >= 8 and line.split()[0].endswith(":")}
chk = sorted(n for n in names if re.fullmatch(r"_*[a-z0-9_]+_chk", n) and n != "__stack_chk_fail")
check(len(chk) >= 3, "FORTIFY_SOURCE: fortified libc calls linked in (" +
      " ".join(chk[:6]) + (" ..." if len(chk) > 6 else "") + ")",
      "fewer than 3 __*_chk symbols")
check("__stack_chk_fail" in names, "stack protector: __stack_chk_fail referenced", "absent")

# stack clash: every frame over a page is allocated a page at a time, each page
# touched (sub $0x1000,%rsp; orq $0x0,(%rsp)); only landrun's own code counts
disasm = run("objdump", "-d", "--no-show-raw-insn", lib).splitlines()
unprobed, probed, fn = [], 0, "?"
for i, line in enumerate(disasm):
    m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
    if m:
        fn = m.group(1)
        continue
    m = re.search(r"\bsub\s+\$0x([0-9a-f]+),%rsp$", line)
    # a negative immediate (sub $-128: 0xffffffffffffff80) frees stack
    if m and 4096 <= int(m.group(1), 16) < 1 << 63:
        nxt = disasm[i + 1] if i + 1 < len(disasm) else ""
        if re.search(r"\bor[q]?\s+\$0x0,\(%rsp\)", nxt):
            probed += 1
        else:
            unprobed.append(fn)
check(not unprobed, f"stack clash: every frame over 4 KiB probed ({probed} probed)",
      "unprobed in " + ", ".join(sorted(set(unprobed))))

if cpu == "x86_64":
    own = run("readelf", "-nW", lib)
    members = len(re.findall(r"^File: ", own, re.M))
    marked = len(re.findall(r"x86 feature: IBT, SHSTK", own))
    check(members and marked == members,
          f"CET: all {members} of landrun's own objects marked IBT and SHSTK",
          f"only {marked} of {members} marked")
    in_binary = "x86 feature: IBT, SHSTK" in notes
    if in_binary:
        check(True, "CET: the binary is marked IBT and SHSTK")
    else:
        # The linker keeps the note only if every input has it, C library included.
        crt = run("cc", "-print-file-name=" + ("rcrt1.o" if static else "Scrt1.o")).strip()
        if "IBT, SHSTK" not in run("readelf", "-nW", crt) and not control:
            skip("CET: the binary is marked IBT and SHSTK",
                 f"the C library is not built for CET ({crt} is unmarked), so the linker "
                 "drops the note", platform=True)
        else:
            check(False, "CET: the binary is marked IBT and SHSTK",
                  "the C library is, but the binary is not")

print(f"1..{len(results)}")
for n, (ok, name, why) in enumerate(results, 1):
    if ok is None:
        print(f"ok {n} - {name} # SKIP {why}")
    else:
        print(f"{'ok' if ok else 'not ok'} {n} - {name}")
        if not ok:
            print(f"# {why}")
sys.exit(0 if all(ok is not False for ok, _, _ in results) else 1)
