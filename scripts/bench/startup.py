#!/usr/bin/env python3
"""startup.py - start-up cost as CPU time, from interleaved runs.

  startup.py compare RUNS OUT.json --floor NAME [--floor NAME] [--title TEXT] -- NAME CMD...
  startup.py scaling RUNS OUT.json LANDRUN WORKDIR POLICY

Each run is one posix_spawn and one wait4.  The figure is the child's CPU time,
user + system from wait4's rusage: the scheduler's own count of the time the
process ran, which other processes' load changes far less than the wall clock
(the split between user and system is sampled at ticks; their sum is exact to
the microsecond).  The wall clock is kept beside it.  Every round runs each
contender once, in a shuffled order, so that a change of load on shared cores
falls on all of them alike.

compare: CMD is split on spaces (no argument may hold one); leading NAME=VALUE
words are added to the environment of that contender only.  The table gives
each median, its interquartile range, and the ratio of CPU medians to each
--floor, with the lowest and highest ratio over ten blocks of consecutive
rounds: the spread a second session is expected to fall within.  --title
names what is measured ("start-up" by default: scripts/bench-runtime.sh
times whole workloads the same way).

scaling: landrun (LANDRUN, with the words of POLICY) as the work grows:
variables passed by --env-prefix, --ro grants of empty directories (made in
WORKDIR), a 1 MiB --env-file with every key selected.  Each case runs beside
/bin/true given the same environment; "added" is the difference of their CPU
medians, "per item" the growth of "added" over the case with nothing, divided
by the items.  With valgrind installed, landrun's user-space instructions
(callgrind, one run per case) give the same growth without timing noise.

Exit 0, 1 on a failed contender (it exited non-zero), 2 on bad usage.
"""
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


def spawn_once(c, devnull):
    """Run C once; returns (cpu seconds, wall seconds)."""
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
               (os.POSIX_SPAWN_DUP2, devnull, 2)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(c.path, c.argv, c.env, file_actions=actions)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        print(f"startup.py: {c.name} failed (status {os.waitstatus_to_exitcode(status)}): "
              f"{' '.join(c.argv[:8])}{' ...' if len(c.argv) > 8 else ''}", file=sys.stderr)
        sys.exit(1)
    return ru.ru_utime + ru.ru_stime, wall


def measure(contenders, runs):
    """WARMUP rounds, then RUNS rounds; each round every contender once, shuffled."""
    rng = random.Random(15)
    devnull = os.open(os.devnull, os.O_RDWR)
    order = list(contenders)
    for r in range(WARMUP + runs):
        rng.shuffle(order)
        for c in order:
            cpu, wall = spawn_once(c, devnull)
            if r >= WARMUP:
                c.cpu.append(cpu)
                c.wall.append(wall)
    os.close(devnull)


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
    floors = [opts[i + 1] for i in range(0, len(opts), 2) if opts[i] == "--floor"]
    titles = [opts[i + 1] for i in range(0, len(opts), 2) if opts[i] == "--title"]
    title = titles[-1] if titles else "start-up, CPU time (user + system) per start"
    if len(pairs) % 2 or not floors or runs < 2 * BLOCKS:
        sys.exit(__doc__)
    contenders = []
    for name, cmd in zip(pairs[0::2], pairs[1::2]):
        words, env = cmd.split(), dict(os.environ)
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            k, _, v = words.pop(0).partition("=")
            env[k] = v
        contenders.append(Contender(name, words, env))
    by_name = {c.name: c for c in contenders}
    for f in floors:
        if f not in by_name:
            sys.exit(f"startup.py: no contender named {f!r}")

    measure(contenders, runs)

    width = max(len(c.name) for c in contenders)
    print()
    print(f"{title}: medians of {runs} interleaved runs;")
    print(f"IQR the interquartile range; ratios of CPU medians, lowest-highest over {BLOCKS} blocks")
    print(f"of {runs // BLOCKS} consecutive rounds")
    head = f"| {'contender':<{width}} | {'CPU ms':>7} | {'IQR':>13} | {'wall ms':>7} | {'IQR':>13} |"
    rule = f"|{'-' * (width + 2)}|{'-' * 8}:|{'-' * 14}:|{'-' * 8}:|{'-' * 14}:|"
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
                f"| {wq[1] * 1e3:7.3f} | {wiqr:>13} |")
        result = {"command": c.name, "cpu": c.cpu, "wall": c.wall, "ratios": {}}
        for f in floors:
            ratio = cq[1] / statistics.median(by_name[f].cpu)
            blocks = block_ratios(c, by_name[f])
            line += f" {f'{ratio:.2f}x ({min(blocks):.2f}-{max(blocks):.2f})':>24} |"
            result["ratios"][f] = {"ratio": ratio, "blocks": blocks}
        print(line)
        record["results"].append(result)
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


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("compare", "scaling"):
        sys.exit(__doc__)
    return compare(sys.argv[2:]) if sys.argv[1] == "compare" else scaling(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
