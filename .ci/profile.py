#!/usr/bin/env python3
"""The `profile` step of .ci/device-run: Nsight Compute (ncu) on `gdtune bench` for each plan
of a profile spec (sweeps/checks/profile.json), so that a missed figure comes with what stands
between the kernel and the plan it trails: per kernel its duration, SM and memory throughput,
the tensor pipe's activity, occupancy and registers, issue efficiency, the warps' three largest stall
reasons, and the L2 and DRAM traffic.

usage: profile.py GDTUNE SPEC OUTDIR      run every profile: OUTDIR/<n>-<plan>.csv per plan (and
                                          -tensor.csv, -stalls.csv, -l2.csv and -fabric.csv),
                                          OUTDIR/summary.txt (also printed)
       profile.py --dry-run GDTUNE SPEC   print each ncu command line, run nothing
       profile.py --summary CSV...        the summary of ncu CSV files already written

Each plan is one ncu run (an argument vector, no shell): the clocks left alone (--clock-control
none, as every gdtune measurement), gdtune's clock probes never counted or profiled (a kernel
filter: with them counted, the probes took the profiled launches of the 2026-12-06 run, and
under ncu's replays the bench's time cap ended it before the plan's kernels came), the first
SKIP kernels passed over (the verification's plan and reference runs), then COUNT kernels
profiled, enough for two calls of a three-kernel
backward.  Four more runs add the tensor pipe's activity, the warps' stall reasons (the three
largest shown), the L2's sectors read, written and by atomics with its hit rate and DRAM's
bytes, and the sectors that crossed between the L2's two halves; a run's failure (a metric this ncu does not know) is reported and leaves the
others' figures.  A profile with "source": true adds one run per plan: PC sampling (the
SourceCounters section) on one launch, saved as a report and printed as its SASS source page
(-source.csv, the report then removed: per instruction, the warps sampled there and why), with the
instructions that hold the most samples in the summary: which load or wait a stall reason is.
Exit 0 when every plan was profiled,
1 when one was not (the others are still written), 2 on bad usage or a bad spec."""
import csv
import json
import os
import re
import shutil
import subprocess
import sys

SKIP = 10
COUNT = 6
# ncu's kernel filter (ECMAScript regex on the function's base name): all but the clock probe
NOT_PROBE = "regex:^(?!gdt_clock_probe$)"
TIMEOUT_S = 240
SECTIONS = ["SpeedOfLight", "Occupancy", "LaunchStats", "WarpStateStats"]
# The tensor pipe: ncu names Hopper's wgmma pipe one way or the other by version; the first
# that gives a value is shown (the 2026-12-06 run's gmma metric gave n/a on every kernel).
TENSOR = ["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
          "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"]
# Why warps did not issue: cycles stalled per issued instruction, by reason (WarpStateStats'
# breakdown); the summary shows the three largest.
STALL_REASONS = ["long_scoreboard", "short_scoreboard", "barrier", "membar", "lg_throttle", "mio_throttle",
                 "wait", "math_pipe_throttle", "sleeping", "dispatch_stall", "no_instruction"]
STALLS = [f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio" for r in STALL_REASONS]
# Where the memory traffic goes: L2 sectors read, written and by atomics (32 bytes each), L2's
# hit rate, and DRAM bytes, in MB in the summary ("L2 work twice its twin's" is then bytes or
# requests, and hits or misses); and apart, since an ncu may lack it, the sectors that crossed
# between the two halves of the L2 (the fabric).
L2 = ["lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum", "lts__t_sectors_op_atom.sum",
      "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum", "dram__bytes_write.sum"]
FABRIC = ["lts__t_sectors_srcunit_ltcfabric.sum"]
# The runs after the sections' own, each a file of its own (-NAME.csv): a metric this ncu does
# not know fails only its run.
EXTRA = [("tensor", TENSOR), ("stalls", STALLS), ("l2", L2), ("fabric", FABRIC)]
# (label, metric name as the details page prints it) in the summary's order
SUMMARY = [
    ("us", "Duration"),
    ("SM %", "Compute (SM) Throughput"),
    ("mem %", "Memory Throughput"),
    ("DRAM %", "DRAM Throughput"),
    ("occ %", "Achieved Occupancy"),
    ("regs", "Registers Per Thread"),
    ("cyc/issue", "Warp Cycles Per Issued Instruction"),
]


def bench_argv(gdtune, family, shape, plan):
    return [gdtune, "bench", family, "--shape", shape, "--plan", plan, "--bursts", "1",
            "--max-seconds", "0.5"]


def ncu_argv(ncu, bench, metrics):
    argv = [ncu, "--clock-control", "none", "--target-processes", "all", "--kernel-name-base", "function",
            "--kernel-name", NOT_PROBE, "--launch-skip", str(SKIP),
            "--launch-count", str(COUNT), "--csv", "--page", "details"]
    for s in SECTIONS:
        argv += ["--section", s]
    if metrics:
        argv += ["--metrics", ",".join(metrics)]
    return argv + bench


def load_spec(path):
    """The spec's (family, shape, plan) triples; ValueError names the JSON path."""
    with open(path) as f:
        doc = json.load(f)
    profiles = doc.get("profiles")
    if not isinstance(profiles, list) or not profiles:
        raise ValueError(f"{path}: /profiles: expected a non-empty array")
    out = []
    for i, p in enumerate(profiles):
        for key in ("family", "shape"):
            if not isinstance(p.get(key), str) or not p[key]:
                raise ValueError(f"{path}: /profiles/{i}/{key}: expected a non-empty string, got {p.get(key)!r}")
        plans = p.get("plans")
        if not isinstance(plans, list) or not plans or not all(isinstance(x, str) and x for x in plans):
            raise ValueError(f"{path}: /profiles/{i}/plans: expected a non-empty array of plan names")
        source = p.get("source", False)
        if not isinstance(source, bool):
            raise ValueError(f"{path}: /profiles/{i}/source: expected true or false, got {source!r}")
        out += [(p["family"], p["shape"], plan, source) for plan in plans]
    return out


def file_name(n, plan):
    return f"{n:02d}-" + re.sub(r"[^A-Za-z0-9_.=-]+", "_", plan).strip("_")[:80] + ".csv"


def rows_of(text):
    """ncu's CSV rows (a dict per metric row), past any lines ncu prints before the header."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    return [] if start is None else list(csv.DictReader(lines[start:]))


def summarize(rows):
    """Per profiled kernel (in launch order): its name and the SUMMARY metrics' values."""
    kernels = {}
    for r in rows:
        k = kernels.setdefault(r.get("ID", ""), {"name": r.get("Kernel Name", "?"), "grid": r.get("Grid Size", ""),
                                                "block": r.get("Block Size", "")})
        k[r.get("Metric Name", "")] = (r.get("Metric Value", ""), r.get("Metric Unit", ""))
    out = []
    for _, k in sorted(kernels.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0):
        vals = []
        for label, metric in SUMMARY:
            v, unit = k.get(metric, ("-", ""))
            v = v.replace(",", "")
            if metric == "Duration" and unit in ("nsecond", "ns", "msecond", "ms"):
                v = f"{float(v) * (1e-3 if unit in ('nsecond', 'ns') else 1e3):.1f}"
            vals.append(f"{label} {v}")
        vals.append(f"tensor % {tensor_of(k)}")
        stalls = stalls_of(k)
        if stalls:
            vals.append(f"stalls {stalls}")
        traffic = traffic_of(k)
        if traffic:
            vals.append(traffic)
        out.append(f"  {k['name'][:60]} grid {k['grid']} block {k['block']}: " + ", ".join(vals))
    return out


def number(k, metric):
    """A metric's value as a float; None when absent or not a number (n/a)."""
    try:
        return float(k.get(metric, ("", ""))[0].replace(",", ""))
    except ValueError:
        return None


def tensor_of(k):
    """The first tensor-pipe metric with a value, else n/a."""
    v = next((x for x in (number(k, m) for m in TENSOR) if x is not None), None)
    return "n/a" if v is None else f"{v:.2f}"


def stalls_of(k):
    """The three largest stall reasons (cycles per issued instruction), or ""."""
    got = [(v, r) for v, r in ((number(k, m), r) for m, r in zip(STALLS, STALL_REASONS)) if v is not None]
    return " ".join(f"{r} {v:.2f}" for v, r in sorted(got, reverse=True)[:3])


def traffic_of(k):
    """L2 sectors read / written / atomic and the fabric's, DRAM read / written, in MB, and L2's hit
    rate; the parts ncu gave, or ""."""
    mb = lambda v, scale: "-" if v is None else f"{v * scale / 1e6:.1f}"
    r, w, a, hit, dr, dw = (number(k, m) for m in L2)
    fabric = number(k, FABRIC[0])
    if all(v is None for v in (r, w, a, hit, dr, dw, fabric)):
        return ""
    return (f"L2 MB read {mb(r, 32)} written {mb(w, 32)} atomic {mb(a, 32)} hit % "
            f"{'-' if hit is None else f'{hit:.1f}'} fabric {mb(fabric, 32)}, DRAM MB read {mb(dr, 1)} "
            f"written {mb(dw, 1)}")


def profile_one(ncu, gdtune, n, family, shape, plan, outdir):
    """ok: the sections' run gave rows (each EXTRA run may add its metrics'); its CSVs written."""
    bench = bench_argv(gdtune, family, shape, plan)
    path = os.path.join(outdir, file_name(n, plan))
    rows, ok = [], False
    for name, metrics in [("", [])] + EXTRA:
        try:
            r = subprocess.run(ncu_argv(ncu, bench, metrics), capture_output=True, text=True,
                               timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            print(f"profile: {plan} ({shape}): ncu ran past {TIMEOUT_S} s", file=sys.stderr)
            break
        got = rows_of(r.stdout)
        if r.returncode != 0 or not got:
            tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
            print(f"profile: {plan} ({shape}): ncu {'with the ' + name + ' metrics ' if name else ''}exit "
                  f"{r.returncode}, {len(got)} rows: {' | '.join(tail)}", file=sys.stderr)
            continue
        rows += [x for x in got if not metrics or x.get("Metric Name") in metrics]
        ok = ok or not metrics
        with open(path[:-4] + f"-{name}.csv" if name else path, "w") as f:
            f.write(r.stdout)
    return ok, rows


SOURCE_TOP = 12


def source_argv(ncu, bench, report):
    """One launch with PC sampling into report (.ncu-rep), past the same SKIP kernels."""
    return [ncu, "--clock-control", "none", "--target-processes", "all", "--kernel-name-base", "function",
            "--kernel-name", NOT_PROBE, "--launch-skip", str(SKIP), "--launch-count", "1",
            "--section", "SourceCounters", "--export", report, "--force-overwrite"] + bench


def source_page_argv(ncu, report):
    return [ncu, "--import", report, "--page", "source", "--csv", "--print-source", "sass"]


def source_top(text, top=SOURCE_TOP):
    """The instructions with the most warp samples: '  SAMPLES  ADDRESS  SASS  [reason n, ...]' lines,
    from the source page's CSV (its columns found by name: ncu versions differ), or a line saying
    what was missing."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if "Source" in l and "Address" in l), None)
    if start is None:
        return ["  source page: no header with Address and Source columns"]
    rows = list(csv.DictReader(lines[start:]))
    cols = rows[0].keys() if rows else []
    total = next((c for c in cols if "Warp Stall Sampling (All" in c), None)
    if total is None:
        return ["  source page: no 'Warp Stall Sampling (All Samples)' column"]
    reasons = [c for c in cols if c != total and "stall" in c.lower() and "Sampling" not in c]

    def num(r, c):
        try:
            return float((r.get(c) or "0").replace(",", ""))
        except ValueError:  # n/a
            return 0.0
    all_samples = sum(num(r, total) for r in rows) or 1
    out = []
    for r in sorted(rows, key=lambda r: num(r, total), reverse=True)[:top]:
        why = sorted(((num(r, c), c) for c in reasons if num(r, c) > 0), reverse=True)[:3]
        out.append(f"  {100 * num(r, total) / all_samples:5.1f}%  {r.get('Address', r.get('# Address', '?'))}  "
                   f"{(r.get('Source') or '').strip()[:70]}" + ("  [" + ", ".join(f"{c} {v:.0f}" for v, c in why) + "]"
                                                                 if why else ""))
    return out


def profile_source(ncu, gdtune, n, family, shape, plan, outdir):
    """The PC-sampling run and its source page; summary lines (empty when it failed: reported)."""
    base = os.path.join(outdir, file_name(n, plan))[:-4] + "-source"
    try:
        r = subprocess.run(source_argv(ncu, bench_argv(gdtune, family, shape, plan), base),
                           capture_output=True, text=True, timeout=TIMEOUT_S)
        if r.returncode != 0 or not os.path.exists(base + ".ncu-rep"):
            tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
            print(f"profile: {plan} ({shape}): ncu's sampling run exit {r.returncode}: {' | '.join(tail)}",
                  file=sys.stderr)
            return []
        page = subprocess.run(source_page_argv(ncu, base + ".ncu-rep"), capture_output=True, text=True,
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print(f"profile: {plan} ({shape}): ncu's sampling run past {TIMEOUT_S} s", file=sys.stderr)
        return []
    with open(base + ".csv", "w") as f:
        f.write(page.stdout)
    os.remove(base + ".ncu-rep")  # its source page is what comes back (no ncu here to read it)
    if page.returncode != 0:
        print(f"profile: {plan} ({shape}): ncu's source page exit {page.returncode}: "
              f"{' | '.join(page.stderr.strip().splitlines()[-3:])}", file=sys.stderr)
        return []
    return ["  where the warps were sampled (share of samples, SASS address, instruction, top reasons):"] + \
        source_top(page.stdout)


def main(argv):
    if len(argv) >= 2 and argv[1] == "--summary":
        for p in argv[2:]:
            with open(p) as f:
                print(p)
                print("\n".join(summarize(rows_of(f.read()))))
        return 0
    dry = len(argv) == 4 and argv[1] == "--dry-run"
    if not dry and len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    gdtune, spec = argv[-2:] if dry else argv[1:3]
    try:
        plans = load_spec(spec)
    except (OSError, ValueError) as e:
        print(f"profile: {e}", file=sys.stderr)
        return 2
    ncu = shutil.which("ncu") or "ncu"
    if dry:
        for family, shape, plan, source in plans:
            print(" ".join(json.dumps(a) for a in ncu_argv(ncu, bench_argv(gdtune, family, shape, plan), [])))
            if source:
                print(" ".join(json.dumps(a) for a in source_argv(ncu, bench_argv(gdtune, family, shape, plan),
                                                                   "OUTDIR/REPORT")))
        return 0
    if not shutil.which("ncu"):
        print("profile: ncu (Nsight Compute) is not on PATH", file=sys.stderr)
        return 1
    outdir = argv[3]
    os.makedirs(outdir, exist_ok=True)
    lines, failed = [], 0
    for n, (family, shape, plan, source) in enumerate(plans):
        ok, rows = profile_one(ncu, gdtune, n, family, shape, plan, outdir)
        failed += not ok
        lines += [f"{family} {shape}: {plan}"] + (summarize(rows) if ok else ["  not profiled (profile.log)"])
        if source:
            lines += profile_source(ncu, gdtune, n, family, shape, plan, outdir)
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
