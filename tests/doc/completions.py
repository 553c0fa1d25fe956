#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""completions.py LR_OPTIONS LANDRUN BASH_FILE ZSH_FILE FISH_FILE ZSH_COMPLETE: the
completions, run in bash (with bash-completion), zsh and fish (TAP).

For each shell, what it offers at the end of a command line:
- every option of the table (tests/doc/lr-options) after "landrun --";
- the profiles landrun lists itself, a user's own among them, after --profile;
- the values landrun names when given a bad one ("is not one of a, b"), for
  every option that names them;
- files after --ro, also after a comma, and after --config;
- variables after --env, users after --user;
- COMMAND, after the options or after "--", and COMMAND's own arguments
  (completed as that command's).
A shell that is not installed is a failure, not a skip: scripts/deps.sh
installs all three.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

lr_options, landrun, bash_file, zsh_file, fish_file, zsh_complete = map(
    os.path.abspath, sys.argv[1:7])
results = []
work = tempfile.mkdtemp(prefix="lr-completions.")
env = {
    "PATH": os.path.dirname(landrun) + ":/usr/bin:/bin",
    "HOME": os.path.join(work, "home"),
    "XDG_CONFIG_HOME": os.path.join(work, "xdg"),
    "XDG_DATA_DIRS": os.path.join(work, "share"),   # no installed completions
    "LANG": "C.UTF-8",
    "TERM": "dumb",
    "TMPDIR": work,
    "LANDRUN_COMPLETION_TEST": "1",
}
for d in ("home", "share", "xdg/landrun/profiles", "proj/dir/sub"):
    os.makedirs(os.path.join(work, d), exist_ok=True)
with open(os.path.join(work, "xdg/landrun/profiles/mine.conf"), "w") as f:
    f.write("include = base\n")
for name in ("proj/dir/file1", "proj/dir/file2", "proj/agent.conf"):
    open(os.path.join(work, name), "w").close()
proj = os.path.join(work, "proj")


def check(ok, what, detail=""):
    results.append((ok, what, detail))


# ------------------------------------------------------------------ shells

def bash_words(line):
    """COMP_WORDS as readline splits LINE: at blanks, and at = and : (which
    make words of their own)."""
    words = []
    for w in line.split():
        words += re.findall(r"[=:]+|[^=:]+", w)
    if line.endswith(" ") or not words:
        words.append("")
    return words


def bash(line):
    words = bash_words(line)
    script = "\n".join([
        "source /usr/share/bash-completion/bash_completion",
        f"source {sh(bash_file)}",
        "COMP_WORDS=(" + " ".join(sh(w) for w in words) + ")",
        f"COMP_CWORD={len(words) - 1}",
        f"COMP_LINE={sh(line)}",
        "COMP_POINT=${#COMP_LINE}",
        '_landrun landrun "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"',
        "printf '%s\\n' \"${COMPREPLY[@]}\"",
    ])
    out = run(["bash", "--norc", "--noprofile", "-c", script])
    return set(l.strip() for l in out.splitlines() if l.strip())


def zsh(line):
    out = run(["zsh", "-f", zsh_complete, os.path.dirname(zsh_file), line])
    return set(l for l in out.splitlines() if l)


def fish(line):
    out = run(["fish", "-c", f"source {sh(fish_file)}; complete -C {sh(line)}"])
    return set(l.split("\t")[0] for l in out.splitlines() if l)


def sh(s):
    return "'" + s.replace("'", "'\\''") + "'"


def run(argv):
    try:
        p = subprocess.run(argv, cwd=proj, env=env, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return ""
    return p.stdout


# ------------------------------------------------------------------ what to expect

table = [l.split("\t") for l in subprocess.run(
    [lr_options], check=True, capture_output=True, text=True).stdout.splitlines()]
options = {"--" + t[0] for t in table}


def landrun_says(*args):
    p = subprocess.run([landrun, *args], env=env, capture_output=True, text=True)
    return p.stderr


m = re.search(r"\(available: (.*)\)$", landrun_says("--profile", "landrun-no-such-profile"))
profiles = set(m.group(1).split(", ")) if m else set()
check({"base", "mine"} <= profiles, "landrun lists the profiles, a user's own among them",
      f"{profiles}")

# the options whose bad value landrun answers with the good ones
values = {}
for name, arg, _ in table:
    if arg == "none":
        continue
    m = re.search(r"is not one of (.*)$", landrun_says(f"--{name}=landrun-no-such-value"))
    if m:
        values[name] = set(re.split(r", | or ", m.group(1)))
check({"on-unsupported", "log-level", "explain"} <= set(values),
      "landrun names the values of --on-unsupported, --log-level, --explain", f"{values}")

shells = {"bash": bash, "zsh": zsh, "fish": fish}
for shell, complete in shells.items():
    if not shutil.which(shell) or (shell == "bash" and not os.path.exists(
            "/usr/share/bash-completion/bash_completion")):
        check(False, f"{shell}: installed (scripts/deps.sh installs it)")
        continue

    def expect(line, want, what, exact=False):
        got = complete(line)
        ok = got == want if exact else want <= got
        check(ok, f"{shell}: {what}",
              f"'{line}' gave {sorted(got)[:20]}, want {'exactly ' if exact else ''}{sorted(want)}")

    got = complete("landrun --")
    check(options <= got, f"{shell}: every option of the table after 'landrun --'",
          f"missing {sorted(options - got)}")
    check(got <= options, f"{shell}: no option the table lacks", f"extra {sorted(got - options)}")
    expect("landrun --profile ", profiles, "the profiles landrun lists, after --profile",
           exact=True)
    for name, vals in sorted(values.items()):
        arg = [a for n, a, _ in table if n == name][0]
        line = f"landrun --{name}=" if arg == "optional" else f"landrun --{name} "
        if shell != "zsh":
            vals = {f"--{name}={v}" for v in vals} if arg == "optional" and shell == "fish" \
                else vals
        expect(line, vals, f"the values of --{name}", exact=True)
    # files: zsh offers the names in the directory, the others the paths
    names = (lambda *p: {os.path.basename(x.rstrip("/")) for x in p}) if shell == "zsh" \
        else (lambda *p: set(p))
    expect("landrun --ro dir/", names("dir/file1", "dir/file2", "dir/sub/" if shell == "fish"
                                      else "dir/sub"), "files after --ro")
    expect("landrun --rw /nonexistent,dir/f",
           names("dir/file1", "dir/file2") if shell == "zsh"
           else {"/nonexistent,dir/file1", "/nonexistent,dir/file2"},
           "files after a comma in --rw's list")
    expect("landrun --config age", names("agent.conf"), "files after --config")
    expect("landrun --env LANDRUN_COMPLETION_T", {"LANDRUN_COMPLETION_TEST"},
           "variables after --env")
    expect("landrun --user roo", {"root"}, "users after --user")
    expect("landrun --ro /usr ech", {"echo"}, "COMMAND after the options")
    expect("landrun --ro /usr -- ech", {"echo"}, "COMMAND after --")
    expect("landrun --ldd cat dir/fi", names("dir/file1", "dir/file2"),
           "COMMAND's arguments, as COMMAND's")
    got = complete("landrun --ldd cat --r")
    check(not (got & {"--ro", "--rox"}), f"{shell}: no landrun option after COMMAND",
          f"{sorted(got)[:10]}")

shutil.rmtree(work, ignore_errors=True)
print(f"1..{len(results)}")
for i, (ok, what, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {what}" + ("" if ok else f": {detail}"))
sys.exit(0 if all(r[0] for r in results) else 1)
