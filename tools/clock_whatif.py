#!/usr/bin/env python3
"""What if every plan's metric had been measured at the rated SM clock?

Reads a sweep journal (RUNDIR/journal.jsonl), scales each verified result's
largest-burst samples and time_us by (median clock / rated clock) ** BETA,
the median over the clocks the probe read after those samples (clock_mhz),
and writes the edited journal to OUTDIR/journal.jsonl, for `gdtune tables
emit OUTDIR --tables-dir T` and `gdtune tables check`.  A replay, not a
measurement: BETA (about 0.75-0.85) comes from one kernel measured twice in
the 2026-12-01T20:17Z SDPA journal (docs/time-model.md, "Clocks").

usage: clock_whatif.py RUNDIR OUTDIR [BETA]   (BETA defaults to 0.8)
"""
import json
import os
import statistics
import sys


def scaled(rec, beta):
    if rec.get("type") != "result" or rec.get("disposition") != "verified" or not rec.get("bursts"):
        return rec
    burst = max(rec["bursts"], key=lambda b: b["burst"])
    clocks = [c for c in burst.get("clock_mhz", []) if c > 0]
    rated = rec.get("clocks", {}).get("rated_mhz", 0)
    if not clocks or rated <= 0:
        return rec
    f = (statistics.median(clocks) / rated) ** beta
    burst["device_us"] = [d * f for d in burst["device_us"]]
    burst["median_device_us"] = statistics.median(burst["device_us"])
    rec["time_us"] *= f
    return rec


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[-1])
    beta = float(argv[3]) if len(argv) == 4 else 0.8
    os.makedirs(argv[2], exist_ok=True)
    with open(os.path.join(argv[1], "journal.jsonl")) as src, \
         open(os.path.join(argv[2], "journal.jsonl"), "x") as dst:
        for line in src:
            dst.write(json.dumps(scaled(json.loads(line), beta), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv)
