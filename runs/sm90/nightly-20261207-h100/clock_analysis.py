#!/usr/bin/env python3
"""The figures behind "time at the cell's clock" (docs/method.md), from this folder alone.

    python3 runs/sm90/nightly-20261207-h100/clock_analysis.py

Per family: (1) the spread between the three nights of each plan measured in full (or raced
late) on all three, largest over smallest less 1, of its series' own time and of time x clock
(the clock the series ran at: the median of its largest burst's clock samples); (2) for each
change the nightly confirmed in interleaved rounds (nights 2 and 3), the sweep's ratio of the
two plans against the rounds' ratio, mean abs log, with their own times and at one clock.
"""
import gzip
import json
import math
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def series(path):
    """{(cell key, plan): (time_us, clock MHz)}: verified metric series, the faster of two."""
    keys, out = {}, {}
    with gzip.open(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") == "cell":
                keys[r["cell"]] = r["key"]
            if r.get("type") != "result" or r.get("disposition") != "verified":
                continue
            if r.get("raced_out") and not r.get("raced_late"):
                continue  # a first estimate, not a metric series
            b = max(r["bursts"], key=lambda b: b["burst"])
            if not b.get("clock_mhz"):
                continue
            k = (keys[r["cell"]], r["name"])
            if k not in out or r["time_us"] < out[k][0]:
                out[k] = (r["time_us"], statistics.median(b["clock_mhz"]))
    return out


def quantile(v, q):
    v = sorted(v)
    return v[int(q * (len(v) - 1))]


def spread(nights):
    common = set(nights[0]).intersection(*nights[1:])
    own, cyc = [], []
    for k in common:
        t = [n[k][0] for n in nights]
        tc = [n[k][0] * n[k][1] for n in nights]
        own.append(max(t) / min(t) - 1)
        cyc.append(max(tc) / min(tc) - 1)
    return len(common), own, cyc


def rounds_agreement(pairs):
    own, cyc = [], []
    for night, confirm in pairs:
        seen = set()
        for c in confirm["changes"]:
            k = (c["key"], c["old_plan"], c["new_plan"])
            if c["what"] == "slowdown" or k in seen:
                continue
            seen.add(k)
            o, n = night.get((c["key"], c["old_plan"])), night.get((c["key"], c["new_plan"]))
            if not o or not n:
                continue
            own.append(abs(math.log(n[0] / o[0] / c["ratio"])))
            cyc.append(abs(math.log(n[0] * n[1] / (o[0] * o[1]) / c["ratio"])))
    return own, cyc


def main():
    for fam in ("gemm", "sdpa"):
        nights = [series(os.path.join(HERE, "%s-night%d.journal.jsonl.gz" % (fam, i))) for i in (1, 2, 3)]
        n, own, cyc = spread(nights)
        print("%s: %d plans on all three nights; spread median / p90: own time %.1f%% / %.1f%%, "
              "time x clock %.1f%% / %.1f%%" % (fam, n, 100 * quantile(own, 0.5), 100 * quantile(own, 0.9),
                                                100 * quantile(cyc, 0.5), 100 * quantile(cyc, 0.9)))
        pairs = []
        for i in (2, 3):
            with open(os.path.join(HERE, "%s-night%d.confirm.json" % (fam, i))) as f:
                pairs.append((nights[i - 1], json.load(f)))
        own, cyc = rounds_agreement(pairs)
        print("%s: %d confirmed changes; sweep ratio against the rounds', mean abs log: own time %.1f%%, "
              "at one clock %.1f%%" % (fam, len(own), 100 * sum(own) / len(own), 100 * sum(cyc) / len(cyc)))


if __name__ == "__main__":
    main()
