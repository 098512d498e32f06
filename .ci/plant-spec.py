#!/usr/bin/env python3
"""Prints a GDTUNE_PLANT_SLOWDOWN spec for the `plant` step of .ci/device-run:
the committed winners (each cell's fastest measured plan, as `gdtune tables
diff` has it) of three distinct cells of a tuning table, slowed by 3%, 5% and
10%.  Plans that win a single cell go first, so that each planted slowdown
names one cell, and a fraction f goes only on a winner of at least 6 us / f
(the spin's launch); the chosen cells go to stderr.

usage: plant-spec.py TABLES/sm90/gemm.tuning.json [FRACTION...]"""
import json
import sys


# The planted spin is a kernel launched after each call: its launch alone adds about 2 us
# (1.8-2.1 us on an H100, 2026-12-06), so a fraction f is planted as asked only on a plan of
# at least LAUNCH_US / f, and this asks for three times that.
LAUNCH_US = 2.0


def winners(path):
    with open(path) as f:
        doc = json.load(f)
    out = []
    for cell in doc.get("cells", []):
        ranked = [p for p in cell.get("ranking", []) if isinstance(p.get("time_us"), (int, float))]
        if ranked:
            best = min(ranked, key=lambda p: (p["time_us"], p.get("untimed_position", 0)))
            out.append((cell["key"], best["plan"], best["time_us"]))
    return out


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    fractions = [float(x) for x in argv[2:]] or [0.03, 0.05, 0.10]
    cells = winners(argv[1])
    wins = {}
    for _, plan, _ in cells:
        wins[plan] = wins.get(plan, 0) + 1
    picked, seen = [], set()
    for f in sorted(fractions):  # the smallest fraction needs the longest plan: it picks first
        for key, plan, us in sorted(cells, key=lambda c: wins[c[1]]):  # stable: table order within a count
            if plan not in seen and us >= 3 * LAUNCH_US / f:
                picked.append((key, plan, f))
                seen.add(plan)
                break
    if len(picked) < len(fractions):
        sys.exit(f"{argv[1]}: {len(picked)} distinct winners long enough for the fractions "
                 f"{fractions} (at least {3 * LAUNCH_US:g} us / fraction), {len(fractions)} needed")
    for key, plan, f in picked:
        print(f"plant-spec: {f:g} on {plan} (winner of {key}; wins {wins[plan]} cells)", file=sys.stderr)
    print(";".join(f"{plan}={f:g}" for _, plan, f in picked))


if __name__ == "__main__":
    main(sys.argv)
