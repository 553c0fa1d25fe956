#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write landrun's man pages (as scdoc) and shell completions from `landrun --help`.

    from-help.py man  --landrun EXE --datadir DIR --docdir DIR --output OUT TEMPLATE [PROFILE.conf...]
    from-help.py bash|zsh|fish --landrun EXE --output OUT TEMPLATE

The usage text of src/policy/cli.c is the one description of the options: the unit
test cli_usage.entry_for_every_option (tests/unit/test_cli.c) holds every
option of the table to an entry there, and this script turns those entries
into the man page's OPTIONS and the completions' option lists at build time,
so that an option added to the table reaches all of them.  In the TEMPLATE,
@OPTIONS@, @PROFILES@, @DATADIR@, @DOCDIR@ and @VERSION@ (man), or @OPTIONS@
(the completions) are replaced.

The usage's form, which this parser holds it to (and fails the build when a
line does not fit):

    Heading (a note on the section, which may go on
    over several lines):
      --name ARG                 help, from column 30 ...
                                 ... continued, indented
      --flag                     help
      --name=ARG / --name[=ARG]  (a value in the same word only)
"""
import argparse
import os
import re
import subprocess
import sys

ENTRY = re.compile(r"^  (--[a-z0-9][a-z0-9-]*)(\[=[^\]\s]+\]|=\S+| \S+)?(?:\s{2,}(\S.*))?$")

# How a value is completed, by the option's name first, then by the name of
# its argument in the usage.  Anything else takes a value that is not
# completed (a number, a duration, a port list...).
VALUES = {
    "on-unsupported": ["error", "warn", "ignore"],
    "log-level": ["error", "notice", "info", "debug"],
    "explain": ["text", "json"],
}
KIND_BY_OPTION = {"profile": "profile", "env": "variable", "env-prefix": "variable",
                  "user": "user"}
KIND_BY_ARG = {"PATHS": "paths", "PATH": "path", "FILE": "path", "DIR": "path",
               "DIRS": "paths"}
# How each kind of value is completed: bash (a function of
# completions/landrun.bash.in), zsh (an action of _arguments), fish (options
# of `complete`).  "values" and flags are the renderers' own.
COMPLETE = {
    "paths": ("_landrun_paths", "_sequence _files", "-x -a '(__landrun_paths)'"),
    "path": ("_landrun_path", "_files", "-r -F"),
    "profile": ("_landrun_profile", "_landrun_profiles", "-x -a '(__landrun_profiles)'"),
    "variable": ("_landrun_variable", "_parameters -g '*export*'", "-x -a '(set -n -x)'"),
    "user": ("_landrun_user", "_landrun_users", "-x -a '(__fish_complete_users)'"),
    "other": ("", " ", "-x"),
}


class Entry:
    def __init__(self, option, arg, help_text):
        self.option = option            # "--ro"
        self.name = option[2:]          # "ro"
        self.sep, self.arg = "", ""     # " " / "=" / "[=", and "PATHS"
        if arg:
            if arg.startswith("[="):
                self.sep, self.arg = "[=", arg[2:-1]
            else:
                self.sep, self.arg = arg[0], arg[1:]
        self.help = help_text

    @property
    def kind(self):
        if not self.sep:
            return "flag"
        if self.name in VALUES:
            return "values"
        return KIND_BY_OPTION.get(self.name) or KIND_BY_ARG.get(self.arg, "other")

    @property
    def optional(self):
        return self.sep == "[="

    def short_help(self, limit=70):
        """The help, cut at its first clause when that is long enough, for
        a completion menu."""
        s = self.help
        for sep in ("; ", " ("):
            i = s.find(sep)
            if 12 < i:
                s = s[:i]
        if len(s) > limit:
            s = s[:s.rfind(" ", 0, limit - 3)] + "..."
        return s


def parse(usage):
    """The usage -> [("heading", text) | ("text", text) | ("entry", Entry)]."""
    blocks, para = [], []

    def flush(heading):
        if para:
            blocks.append(("heading" if heading else "text", " ".join(para)))
            para.clear()

    for n, line in enumerate(usage.splitlines(), 1):
        if not line.strip():
            flush(False)
        elif line.startswith("  -"):
            m = ENTRY.match(line)
            if not m:
                sys.exit(f"from-help.py: --help line {n} is not an option entry: {line!r}")
            flush(True)
            blocks.append(("entry", Entry(m.group(1), m.group(2), m.group(3) or "")))
        elif line.startswith("   "):
            if not blocks or blocks[-1][0] != "entry" or para:
                sys.exit(f"from-help.py: --help line {n} continues no option: {line!r}")
            e = blocks[-1][1]
            e.help = (e.help + " " + line.strip()).strip()
        elif line.startswith(" "):
            sys.exit(f"from-help.py: --help line {n}: unexpected indentation: {line!r}")
        else:
            para.append(line.strip())
    flush(False)
    return blocks


def entries(blocks):
    return [b[1] for b in blocks if b[0] == "entry"]


def run_help(landrun):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL")}
    return subprocess.run([landrun, "--help"], check=True, capture_output=True, text=True,
                          env=env).stdout


# ------------------------------------------------------------------ man

def scd_escape(text):
    text = text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_")
    text = text.replace("[", "\\[").replace("|", "\\|")
    # option names, and what a profile's comment quotes with `...`, in bold
    text = re.sub(r"(?<![\w-])(--[a-z][a-z0-9-]*)", r"*\1*", text)
    text = re.sub(r"`([^`]+)`", r"*\1*", text)
    if text.startswith(".") or text.startswith("'"):
        # scdoc passes a leading dot to roff as a request: underline the word
        word, _, rest = text.partition(" ")
        text = f"_{word}_ {rest}"
    return text


def man_options(blocks):
    """The OPTIONS part: from the first heading to the last entry; what
    comes before (the synopsis) and after (environment, exit status) has
    sections of its own in the man page."""
    kinds = [b[0] for b in blocks]
    first, last = kinds.index("heading"), len(kinds) - 1 - kinds[::-1].index("entry")
    out = []
    for kind, value in blocks[first:last + 1]:
        if kind == "heading":
            title, note = value.rstrip(":"), ""
            m = re.match(r"^([^(]*?) \((.*)\)$", title)
            if m:
                title, note = m.group(1), m.group(2)
            out.append(f"## {title}\n")
            if note:
                out.append(scd_escape(note[0].upper() + note[1:].rstrip(".") + ".") + "\n")
        elif kind == "text":
            out.append(scd_escape(value) + "\n")
        else:
            e = value
            if e.optional:
                head = f"*{e.option}*\\[=_{e.arg}_\\]"
            elif e.sep:
                head = f"*{e.option}*{e.sep}_{e.arg}_"
            else:
                head = f"*{e.option}*"
            out.append(head + "\n\t" + scd_escape(e.help) + "\n")
    return "\n".join(out)


def man_profiles(paths):
    """- *NAME*: the first paragraph of the profile's leading comment."""
    out = []
    for path in sorted(paths, key=os.path.basename):
        name = os.path.basename(path)[:-len(".conf")]
        para = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.startswith("#") or not line[1:].strip():
                    break
                para.append(line[1:].strip())
        text = " ".join(para)
        if text.startswith(name + ":"):
            text = text[len(name) + 1:].strip()
        out.append(f"- *{name}*: {scd_escape(text)}" if text else f"- *{name}*")
    return "\n".join(out)


# ------------------------------------------------------------------ completions

def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def bash_options(es):
    names = sorted({e.option for e in es})
    with_value = sorted({e.option for e in es if e.sep in (" ", "=")})
    by_kind = {}
    for e in es:
        if e.sep:
            by_kind.setdefault(e.kind, set()).add(e.option)
    lines = [f"_landrun_options={sh_quote(' '.join(names))}",
             f"_landrun_with_value={sh_quote(' ' + ' '.join(with_value) + ' ')}",
             "_landrun_value() {",
             "\t# _landrun_value OPTION: complete the value of OPTION in $cur",
             '\tcase $1 in']
    for kind in sorted(by_kind):
        opts = "|".join(sorted(by_kind[kind]))
        if kind == "values":
            for o in sorted(by_kind[kind]):
                vals = " ".join(VALUES[o[2:]])
                lines.append(f"\t{o}) COMPREPLY=($(compgen -W {sh_quote(vals)} -- \"$cur\")) ;;")
        else:
            lines.append(f"\t{opts}) {COMPLETE[kind][0]} ;;")
    lines += ["\t*) return 1 ;;", "\tesac", "}"]
    return "\n".join(lines)


def zsh_spec(e):
    desc = e.short_help().replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    if e.kind == "values":
        action = "(" + " ".join(VALUES[e.name]) + ")"
    elif e.kind != "flag":
        action = COMPLETE[e.kind][1]
    arg = (e.arg.lower() or "value").replace(":", "\\:")
    exclusive = "(- *)" if e.name in ("help", "version") else "*"
    if e.kind == "flag":
        spec = f"{exclusive}{e.option}[{desc}]"
    elif e.optional:
        spec = f"{exclusive}{e.option}=-[{desc}]::{arg}:{action}"
    else:
        spec = f"{exclusive}{e.option}=[{desc}]:{arg}:{action}"
    return sh_quote(spec)


def zsh_options(es):
    seen, specs = set(), []
    for e in es:
        if e.option not in seen:
            seen.add(e.option)
            specs.append(zsh_spec(e))
    return " \\\n\t\t".join(specs)


def cond_eq(option):
    return f"string match -q -- '{option}=*' (commandline -ct)"


def fish_options(es):
    seen, lines = set(), []
    with_value = sorted({e.option for e in es if e.sep in (" ", "=")})
    lines.append(f"set -g __landrun_with_value {' '.join(with_value)}")
    for e in es:
        if e.option in seen:
            continue
        seen.add(e.option)
        options = "complete -c landrun -n 'not __landrun_command_started'"
        if e.optional:
            # --name=VALUE only: fish would take the next word as its value
            values = " ".join(f"{e.option}={v}" for v in VALUES.get(e.name, []))
            lines.append(f"{options} -f -l {e.name} -d {sh_quote(e.short_help())}")
            if values:
                lines.append(f"complete -c landrun -n {sh_quote(cond_eq(e.option))} -f -a "
                             + sh_quote(values))
            continue
        action = "-f" if e.kind == "flag" else COMPLETE.get(e.kind, ("", "", ""))[2]
        if e.kind == "values":
            # the values without the option's description
            lines.append(f"{options} -l {e.name} -x -a {sh_quote(' '.join(VALUES[e.name]))}")
            action = "-x"
        lines.append(f"{options} -l {e.name} {action} -d {sh_quote(e.short_help())}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["man", "bash", "zsh", "fish", "list"])
    ap.add_argument("--landrun", required=True)
    ap.add_argument("--datadir", default="")
    ap.add_argument("--docdir", default="")
    ap.add_argument("--version", default="")
    ap.add_argument("--output", default="-")
    ap.add_argument("template", nargs="?")
    ap.add_argument("profiles", nargs="*")
    a = ap.parse_intermixed_args()

    blocks = parse(run_help(a.landrun))
    es = entries(blocks)
    if a.what == "list":
        # for the tests: what this script read, one entry a line
        text = "".join(f"{e.option}\t{e.sep}\t{e.arg}\t{e.kind}\n" for e in es)
    else:
        with open(a.template, encoding="utf-8") as f:
            text = f.read()
        if a.what == "man":
            subst = {"@OPTIONS@": man_options(blocks), "@PROFILES@": man_profiles(a.profiles),
                     "@DATADIR@": a.datadir, "@DOCDIR@": a.docdir, "@VERSION@": a.version}
        else:
            subst = {"@OPTIONS@": {"bash": bash_options, "zsh": zsh_options,
                                   "fish": fish_options}[a.what](es)}
        for key, value in subst.items():
            text = text.replace(key, value)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
