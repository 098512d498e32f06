#!/usr/bin/env python3
"""Prints a GDTUNE_PLANT_SLOWDOWN spec for the `plant` step of .ci/device-run:
the committed winners (each cell's fastest measured plan, as `gdtune tables
diff` has it) of three distinct cells of a tuning table, slowed by 3%, 5% and
10%.  Plans that win a single cell go first, so that each planted slowdown
names one cell; the chosen cells go to stderr.

usage: plant-spec.py TABLES/sm90/gemm.tuning.json [FRACTION...]"""
import json
import sys


def winners(path):
    with open(path) as f:
        doc = json.load(f)
    out = []
    for cell in doc.get("cells", []):
        ranked = [p for p in cell.get("ranking", []) if isinstance(p.get("time_us"), (int, float))]
        if ranked:
            best = min(ranked, key=lambda p: (p["time_us"], p.get("untimed_position", 0)))
            out.append((cell["key"], best["plan"]))
    return out


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    fractions = [float(x) for x in argv[2:]] or [0.03, 0.05, 0.10]
    cells = winners(argv[1])
    wins = {}
    for _, plan in cells:
        wins[plan] = wins.get(plan, 0) + 1
    picked, seen = [], set()
    for key, plan in sorted(cells, key=lambda kp: wins[kp[1]]):  # stable: table order within a count
        if plan not in seen and len(picked) < len(fractions):
            picked.append((key, plan))
            seen.add(plan)
    if len(picked) < len(fractions):
        sys.exit(f"{argv[1]}: {len(picked)} distinct winners, {len(fractions)} needed")
    for (key, plan), f in zip(picked, fractions):
        print(f"plant-spec: {f:g} on {plan} (winner of {key}; wins {wins[plan]} cells)", file=sys.stderr)
    print(";".join(f"{plan}={f:g}" for (_, plan), f in zip(picked, fractions)))


if __name__ == "__main__":
    main(sys.argv)
