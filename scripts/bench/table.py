#!/usr/bin/env python3
"""table.py JSON FLOOR TITLE: hyperfine's --export-json as a table of medians,
with each median's ratio to the median of the contender named FLOOR."""
import json
import sys


def main():
    path, floor, title = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(path) as f:
        results = json.load(f)["results"]
    by_name = {r["command"]: r for r in results}
    if floor not in by_name:
        print(f"table.py: no result named {floor!r} in {path}", file=sys.stderr)
        return 1
    base = by_name[floor]["median"]
    width = max(len(r["command"]) for r in results)
    unit, scale = ("ms", 1e3) if base < 10 else ("s", 1)
    print()
    print(f"{title} (ratio: median / median of '{floor}')")
    print(f"| {'contender':<{width}} | {'median ' + unit:>10} | {'stddev':>8} | {'runs':>5} | {'ratio':>7} |")
    print(f"|{'-' * (width + 2)}|{'-' * 11}:|{'-' * 9}:|{'-' * 6}:|{'-' * 8}:|")
    for r in results:
        print(f"| {r['command']:<{width}} | {r['median'] * scale:10.3f} | {r['stddev'] * scale:8.3f} "
              f"| {len(r['times']):5d} | {r['median'] / base:6.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
