#!/usr/bin/env python3
"""startup.py - start-up cost as CPU time, from interleaved runs.

  startup.py compare RUNS OUT.json --floor NAME [--floor NAME] [--title TEXT]
             [--env NAME=VALUE]... [--cwd DIR] [--goal 'NAME / FLOOR <= X']... -- NAME CMD...
  startup.py scaling RUNS OUT.json LANDRUN WORKDIR POLICY
  startup.py counts OUT.json [--env NAME=VALUE]... [--cwd DIR] -- NAME CMD...

Each run is one posix_spawn and one wait4.  The figure is the child's CPU time,
user + system from wait4's rusage: the scheduler's own count of the time the
process ran, which other processes' load changes far less than the wall clock
(the split between user and system is sampled at ticks; their sum is exact to
the microsecond).  This harness is a subreaper (PR_SET_CHILD_SUBREAPER): what a
contender leaves running (a daemon, a broker that outlives its parent) is
waited for too and its CPU time added to the run's, so that no process of a
contender's is left out of its count.  The wall clock is kept beside it (up to
the contender's own exit).  Every round runs each contender once, in a
shuffled order, so that a change of load on shared cores falls on all of them
alike.  The minor page faults of each run (ru_minflt, the same sum) are kept
too: a count that load does not change.

Every contender starts with the same environment: an empty one, plus the
--env NAME=VALUE given (to all alike), plus its own leading NAME=VALUE words;
never the caller's (a LANG there makes a dynamically linked floor load its
locale, and changes the ratios).  --cwd DIR runs every contender there.

compare: CMD is split on spaces (no argument may hold one); leading NAME=VALUE
words are added to the environment of that contender only.  The table gives
each median, its interquartile range, and the ratio of CPU medians to each
--floor, with the lowest and highest ratio over ten blocks of consecutive
rounds: the spread a second session is expected to fall within.  --title
names what is measured ("start-up" by default: scripts/bench-runtime.sh
times whole workloads the same way).  Each --goal 'NAME / FLOOR <= X' (any two
contenders) adds a line to a last table: the ratio of their CPU medians, its
spread over the blocks, the goal, and whether the ratio meets it.  The load
average is printed before and after the session, with the table.

scaling: landrun (LANDRUN, with the words of POLICY) as the work grows:
variables passed by --env-prefix, --ro grants of empty directories (made in
WORKDIR), a 1 MiB --env-file with every key selected.  Each case runs beside
/bin/true given the same environment; "added" is the difference of their CPU
medians, "per item" the growth of "added" over the case with nothing, divided
by the items.  With valgrind installed, landrun's user-space instructions
(callgrind, one run per case) give the same growth without timing noise.

counts: what load does not change, one run of each contender under strace -f
-c: the system calls of every process it starts, and how many of them failed.
A system call costs about a microsecond or more on a VM's cores, so the count
is a first reading of a start's kernel time (a Landlock rule or a seccomp
filter's load costs more than one).

Exit 0, 1 on a failed contender (it exited non-zero), 2 on bad usage.
"""
import ctypes
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

BLOCKS = 10
WARMUP = 10
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Orphans of a contender's are re-parented here, and counted."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"startup.py: prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")


class Contender:
    def __init__(self, name, argv, env):
        self.name = name
        self.argv = argv
        self.env = env
        self.path = argv[0] if "/" in argv[0] else shutil.which(argv[0])
        if not self.path:
            sys.exit(f"startup.py: {name}: {argv[0]} not found")
        self.cpu = []   # seconds, one per round
        self.wall = []
        self.minflt = []


def spawn_once(c, devnull):
    """Run C once; returns (cpu seconds, wall seconds, minor faults), the CPU
    time and faults of every process it left behind included (subreaper)."""
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
               (os.POSIX_SPAWN_DUP2, devnull, 2)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(c.path, c.argv, c.env, file_actions=actions)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    cpu, minflt = ru.ru_utime + ru.ru_stime, ru.ru_minflt
    while True:  # what it left running: re-parented to us
        try:
            _, _, left = os.wait4(-1, 0)
        except ChildProcessError:
            break
        cpu, minflt = cpu + left.ru_utime + left.ru_stime, minflt + left.ru_minflt
    if os.waitstatus_to_exitcode(status) != 0:
        print(f"startup.py: {c.name} failed (status {os.waitstatus_to_exitcode(status)}): "
              f"{' '.join(c.argv[:8])}{' ...' if len(c.argv) > 8 else ''}", file=sys.stderr)
        sys.exit(1)
    return cpu, wall, minflt


def measure(contenders, runs):
    """WARMUP rounds, then RUNS rounds; each round every contender once, shuffled."""
    rng = random.Random(15)
    devnull = os.open(os.devnull, os.O_RDWR)
    order = list(contenders)
    become_subreaper()
    for r in range(WARMUP + runs):
        rng.shuffle(order)
        for c in order:
            cpu, wall, minflt = spawn_once(c, devnull)
            if r >= WARMUP:
                c.cpu.append(cpu)
                c.wall.append(wall)
                c.minflt.append(minflt)
    os.close(devnull)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def parse_goal(text):
    """'NAME / FLOOR <= X' -> (NAME, FLOOR, X)."""
    m = re.match(r"^(.+?) / (.+?) <= ([0-9.]+)$", text)
    if not m:
        sys.exit(f"startup.py: --goal {text!r}: not 'NAME / FLOOR <= X'")
    return m.group(1), m.group(2), float(m.group(3))


def quartiles(v):
    q = statistics.quantiles(v, n=4)
    return q[0], statistics.median(v), q[2]


def block_ratios(c, floor):
    """The ratio of CPU medians in each of BLOCKS runs of consecutive rounds."""
    n = len(c.cpu) // BLOCKS
    return [statistics.median(c.cpu[i * n:(i + 1) * n]) /
            statistics.median(floor.cpu[i * n:(i + 1) * n]) for i in range(BLOCKS)]


def save(path, record):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(record, f)


def compare(args):
    if "--" not in args or len(args) < 3:
        sys.exit(__doc__)
    runs, out = int(args[0]), args[1]
    opts, pairs = args[2:args.index("--")], args[args.index("--") + 1:]
    if len(opts) % 2 or any(o not in ("--floor", "--title", "--env", "--cwd", "--goal")
                            for o in opts[0::2]):
        sys.exit(__doc__)
    given = lambda o: [opts[i + 1] for i in range(0, len(opts), 2) if opts[i] == o]
    floors, titles, cwds = given("--floor"), given("--title"), given("--cwd")
    goals = [parse_goal(g) for g in given("--goal")]
    title = titles[-1] if titles else "start-up, CPU time (user + system) per start"
    if len(pairs) % 2 or not floors or runs < 2 * BLOCKS:
        sys.exit(__doc__)
    common = {}
    for e in given("--env"):
        k, eq, v = e.partition("=")
        if not eq or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k):
            sys.exit(f"startup.py: --env {e!r}: not NAME=VALUE")
        common[k] = v
    contenders = []
    for name, cmd in zip(pairs[0::2], pairs[1::2]):
        words, env = cmd.split(), dict(common)
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            k, _, v = words.pop(0).partition("=")
            env[k] = v
        contenders.append(Contender(name, words, env))
    by_name = {c.name: c for c in contenders}
    for f in floors + [n for g in goals for n in g[:2]]:
        if f not in by_name:
            sys.exit(f"startup.py: no contender named {f!r}")
    if cwds:
        os.chdir(cwds[-1])

    load_before = loadavg()
    measure(contenders, runs)
    load_after = loadavg()

    width = max(len(c.name) for c in contenders)
    print()
    print(f"{title}: medians of {runs} interleaved runs;")
    print(f"IQR the interquartile range; ratios of CPU medians, lowest-highest over {BLOCKS} blocks")
    print(f"of {runs // BLOCKS} consecutive rounds; faults: minor page faults per run (median);")
    print(f"environment: empty{' but ' + ', '.join(sorted(common)) if common else ''}, the same "
          f"for every contender; load average {load_before} before, {load_after} after")
    head = (f"| {'contender':<{width}} | {'CPU ms':>7} | {'IQR':>13} | {'wall ms':>7} | {'IQR':>13} "
            f"| {'faults':>6} |")
    rule = f"|{'-' * (width + 2)}|{'-' * 8}:|{'-' * 14}:|{'-' * 8}:|{'-' * 14}:|{'-' * 7}:|"
    for f in floors:
        head += f" {'/ ' + f:>24} |"
        rule += f"{'-' * 25}:|"
    print(head)
    print(rule)
    record = {"runs": runs, "blocks": BLOCKS, "floors": floors, "results": []}
    for c in contenders:
        cq, wq = quartiles(c.cpu), quartiles(c.wall)
        ciqr = f"{cq[0] * 1e3:.3f}-{cq[2] * 1e3:.3f}"
        wiqr = f"{wq[0] * 1e3:.3f}-{wq[2] * 1e3:.3f}"
        line = (f"| {c.name:<{width}} | {cq[1] * 1e3:7.3f} | {ciqr:>13} "
                f"| {wq[1] * 1e3:7.3f} | {wiqr:>13} | {statistics.median(c.minflt):6.0f} |")
        result = {"command": c.name, "cpu": c.cpu, "wall": c.wall, "minflt": c.minflt,
                  "ratios": {}}
        for f in floors:
            ratio = cq[1] / statistics.median(by_name[f].cpu)
            blocks = block_ratios(c, by_name[f])
            line += f" {f'{ratio:.2f}x ({min(blocks):.2f}-{max(blocks):.2f})':>24} |"
            result["ratios"][f] = {"ratio": ratio, "blocks": blocks}
        print(line)
        record["results"].append(result)
    if goals:
        gw = max(len(f"{n} / {f}") for n, f, _ in goals)
        print()
        print(f"goals: ratios of CPU medians (lowest-highest over {BLOCKS} blocks)")
        print(f"| {'ratio':<{gw}} | {'CPU':>19} | {'goal':>8} | {'met':>3} |")
        print(f"|{'-' * (gw + 2)}|{'-' * 20}:|{'-' * 9}:|{'-' * 4}:|")
        record["goals"] = []
        for n, f, limit in goals:
            ratio = statistics.median(by_name[n].cpu) / statistics.median(by_name[f].cpu)
            blocks = block_ratios(by_name[n], by_name[f])
            met = ratio <= limit
            print(f"| {f'{n} / {f}':<{gw}} | {f'{ratio:.2f}x ({min(blocks):.2f}-{max(blocks):.2f})':>19} "
                  f"| {f'<= {limit:.2f}x':>8} | {'yes' if met else 'no':>3} |")
            record["goals"].append({"name": n, "floor": f, "goal": limit, "ratio": ratio,
                                    "blocks": blocks, "met": met})
    record.update({"environment": sorted(common), "load_before": load_before,
                   "load_after": load_after})
    save(out, record)
    return 0


def callgrind_instructions(argv, env, workdir):
    """landrun's user-space instructions, counted by callgrind up to its execve.

    Valgrind prints no count for a process that execs, so the command given is
    an empty file marked executable: everything of landrun's start runs, then
    execve fails (ENOEXEC) and landrun exits 126.  Under valgrind landrun finds
    neither Landlock nor seccomp (valgrind does not know their system calls);
    that changes every case by the same amount, so the growth per item holds.
    """
    if not shutil.which("valgrind"):
        return None
    empty = os.path.join(workdir, "empty-command")
    with open(empty, "w"):
        pass
    os.chmod(empty, 0o755)
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] +
                       argv[:-1] + [empty], env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    return int(m.group(1)) if p.returncode == 126 and m else None


def make_grants(workdir, n):
    d = os.path.join(workdir, "grants")
    os.makedirs(d, exist_ok=True)
    paths = [os.path.join(d, f"d{i:05d}") for i in range(n)]
    for p in paths:
        os.makedirs(p, exist_ok=True)
    return paths


def make_dotenv(workdir, limit=1024 * 1024):
    """A .env of at most LIMIT bytes: K_<n>=<32 characters>, as many lines as fit."""
    path = os.path.join(workdir, "big.env")
    keys, size, lines = {}, 0, []
    rng = random.Random(15)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    while True:
        k = f"K_{len(lines):06d}"
        v = "".join(rng.choice(alphabet) for _ in range(32))
        line = f"{k}={v}\n"
        if size + len(line) > limit:
            break
        lines.append(line)
        keys[k] = v
        size += len(line)
    with open(path, "w") as f:
        f.write("".join(lines))
    return path, keys, size


def scaling(args):
    if len(args) != 5:
        sys.exit(__doc__)
    runs, out, landrun, workdir, policy = int(args[0]), args[1], args[2], args[3], args[4].split()
    os.makedirs(workdir, exist_ok=True)
    base_env = {"PATH": "/usr/bin:/bin"}
    true = ["/bin/true"]
    cases = []  # (label, items, landrun argv, env)

    def variables(n):
        env = dict(base_env)
        env.update({f"X_{i:05d}": f"value-{i:05d}-abcdefghijklmnopqrstuv" for i in range(n)})
        return env

    cases.append(("nothing", 0, [landrun] + policy + ["--", "/bin/true"], base_env))
    for n in (1000, 5000, 20000):
        cases.append((f"{n:,} variables (--env-prefix)", n,
                      [landrun, "--env-prefix", "X_"] + policy + ["--", "/bin/true"], variables(n)))
    grants = make_grants(workdir, 5000)
    for n in (10, 1000, 5000):
        argv = [landrun] + policy
        for p in grants[:n]:
            argv += ["--ro", p]
        cases.append((f"{n:,} --ro grants", n, argv + ["--", "/bin/true"], base_env))
    path, keys, size = make_dotenv(workdir)
    env = dict(base_env)
    env.update(keys)  # what the command is given: the unconfined twin gets it too
    cases.append((f"{size / 1048576:.0f} MiB --env-file, {len(keys):,} keys selected", len(keys),
                  [landrun, "--env-file", path, "--env-prefix", "K_"] + policy + ["--", "/bin/true"],
                  env))

    pairs = []
    for label, items, argv, env in cases:
        # the environment the command receives; landrun itself starts with the
        # caller's, which holds the variables only for the --env-prefix cases
        caller = env if "--env-file" not in argv else base_env
        pairs.append((Contender(label, argv, caller), Contender("/bin/true, " + label, true, env)))
    measure([c for p in pairs for c in p], runs)

    base_added = None
    base_instr = None
    rows = []
    for (label, items, argv, env), (lr, tw) in zip(cases, pairs):
        lr_cpu, tw_cpu = statistics.median(lr.cpu), statistics.median(tw.cpu)
        added = lr_cpu - tw_cpu
        instr = callgrind_instructions(argv, lr.env, workdir)
        if base_added is None:
            base_added, base_instr = added, instr
        per_item = (added - base_added) / items if items else None
        per_instr = ((instr - base_instr) / items if items and instr is not None
                     and base_instr is not None else None)
        rows.append({"case": label, "items": items, "landrun_cpu": lr_cpu, "true_cpu": tw_cpu,
                     "added_cpu": added, "per_item_cpu": per_item, "instructions": instr,
                     "per_item_instructions": per_instr, "cpu": lr.cpu, "true_cpu_runs": tw.cpu})

    width = max(len(r["case"]) for r in rows)
    print()
    print(f"scaling: landrun's start as the work grows, CPU medians of {runs} interleaved runs;")
    print("'added' = landrun minus /bin/true given the same environment; 'per item' = growth of")
    print("'added' (and of landrun's user-space instructions) over the case with nothing, per item")
    print(f"| {'case':<{width}} | {'landrun ms':>10} | {'true ms':>7} | {'added ms':>8} "
          f"| {'per item us':>11} | {'instructions':>12} | {'per item':>8} |")
    print(f"|{'-' * (width + 2)}|{'-' * 11}:|{'-' * 8}:|{'-' * 9}:|{'-' * 12}:|{'-' * 13}:|{'-' * 9}:|")
    for r in rows:
        per = f"{r['per_item_cpu'] * 1e6:11.2f}" if r["per_item_cpu"] is not None else f"{'':>11}"
        ins = f"{r['instructions']:12,}" if r["instructions"] is not None else f"{'-':>12}"
        pin = (f"{r['per_item_instructions']:8,.0f}" if r["per_item_instructions"] is not None
               else f"{'':>8}")
        print(f"| {r['case']:<{width}} | {r['landrun_cpu'] * 1e3:10.3f} | {r['true_cpu'] * 1e3:7.3f} "
              f"| {r['added_cpu'] * 1e3:8.3f} | {per} | {ins} | {pin} |")
    if not shutil.which("valgrind"):
        print("(no valgrind: instructions not counted)")
    save(out, {"runs": runs, "rows": rows})
    return 0


def counts(args):
    if "--" not in args or len(args) < 2 or not shutil.which("strace"):
        sys.exit(__doc__ if shutil.which("strace") else "startup.py counts: no strace")
    out = args[0]
    opts, pairs = args[1:args.index("--")], args[args.index("--") + 1:]
    if len(opts) % 2 or len(pairs) % 2 or any(o not in ("--env", "--cwd") for o in opts[0::2]):
        sys.exit(__doc__)
    env = dict(o.partition("=")[::2] for k, o in zip(opts[0::2], opts[1::2]) if k == "--env")
    cwds = [o for k, o in zip(opts[0::2], opts[1::2]) if k == "--cwd"]
    if cwds:
        os.chdir(cwds[-1])
    rows = []
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    for name, cmd in zip(pairs[0::2], pairs[1::2]):
        words, cenv = cmd.split(), dict(env)
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            k, _, v = words.pop(0).partition("=")
            cenv[k] = v
        report = os.path.join(os.path.dirname(os.path.abspath(out)), "strace-counts.txt")
        p = subprocess.run(["strace", "-f", "-c", "-o", report] + words, env=cenv,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        calls = errors = None
        with open(report) as f:
            for line in f:
                w = line.split()
                if w and w[-1] == "total":
                    nums = [x for x in w[:-1] if x.isdigit()]
                    calls, errors = int(nums[-2 if len(nums) > 2 else -1]), (
                        int(nums[-1]) if len(nums) > 2 else 0)
        rows.append({"command": name, "status": p.returncode, "syscalls": calls,
                     "errors": errors})
    width = max([len("contender")] + [len(r["command"]) for r in rows])
    print()
    print("system calls per start (strace -f -c, one run, every process of the contender)")
    print(f"| {'contender':<{width}} | {'calls':>6} | {'failed':>6} |")
    print(f"|{'-' * (width + 2)}|{'-' * 7}:|{'-' * 7}:|")
    for r in rows:
        calls = f"{r['syscalls']:6d}" if r["syscalls"] is not None else f"{'-':>6}"
        errors = f"{r['errors']:6d}" if r["errors"] is not None else f"{'-':>6}"
        print(f"| {r['command']:<{width}} | {calls} | {errors} |")
    save(out, {"rows": rows})
    return 0


def main():
    modes = {"compare": compare, "scaling": scaling, "counts": counts}
    if len(sys.argv) < 2 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    return modes[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
