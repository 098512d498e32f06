#!/usr/bin/env python3
""".ci/profile.py (the device-run `profile` step) without a GPU or ncu: the committed spec
(sweeps/checks/profile.json) and every other profile*.json there load, each of their gdtune
plans is one `gdtune plans` lists for its shape (a cuDNN plan is named cudnn.engN[...]), and
each plan of the default spec becomes one ncu command line over `gdtune bench ... --plan PLAN`
with the clocks left alone; a spec missing a field is refused naming its JSON path (exit 2);
and the summary of an ncu CSV (the details page's rows, lines before the header skipped) puts
each kernel's metrics in order, a duration in nanoseconds turned into microseconds, L2 sectors
into MB; a profile's "source" flag adds a PC-sampling run whose source page's instructions are
ranked by their samples.  Exit 0 when all hold, 1 naming what failed.

usage: test_profile_script.py SOURCE_DIR GDTUNE_EXE"""
import json
import os
import re
import subprocess
import sys
import tempfile

import ci_script

check = ci_script.Checks("test_profile_script")


def load(src):
    return ci_script.load(src, "profile.py", "profile")


CSV = '''==PROF== Connected to process 1 (gdtune)
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","nsecond","195,104"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Compute (SM) Throughput","%","71.5"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Registers Per Thread","register/thread","168"
"1","1","gdtune","h","gdt_post","1","7","(128, 1, 1)","(64, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","usecond","3.20"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active","","n/a"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active","%","80.25"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio","","1.50"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","","4.25"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","smsp__average_warps_issue_stalled_membar_per_issue_active.ratio","","2,000.5"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","smsp__average_warps_issue_stalled_wait_per_issue_active.ratio","","0.75"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","lts__t_sectors_op_read.sum","sector","8,375,000"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","lts__t_sectors_op_write.sum","sector","531,250"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","lts__t_sectors_op_atom.sum","sector","0"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","lts__t_sector_hit_rate.pct","%","87.25"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","40,200,000"
"0","1","gdtune","h","gdt_hand_gemm_bf16","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_write.sum","byte","4,100,000"
'''

SOURCE_CSV = '''"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","stall_long_sb","stall_wait"
"0x7f00","HMMA.16816.F32 R0, R4, R8, R0","10","8","0","2"
"0x7f10","SYNCS.PHASECHK.TRANS64 P0, [UR4+0x8], R3","60","55","50","5"
"0x7f20","LDG.E.128 R12, desc[UR6][R2.64]","30","30","30","0"
"0x7f30","EXIT","n/a","n/a","0","0"
'''


def check_plans(prof, spec, gdtune):
    """Every plan of the profile spec SPEC is one `gdtune plans` lists for its shape."""
    plans = prof.load_spec(spec)
    check(len(plans) >= 2, f"{spec}: {len(plans)} plans")
    with open(spec) as f:
        doc = json.load(f)
    for p in doc["profiles"]:
        check(p["family"] in ("gemm", "sdpa_fwd", "sdpa_bwd"), f"family {p['family']}")
        listed = subprocess.run([gdtune, "plans", p["family"], "--shape", p["shape"]], capture_output=True,
                                text=True)
        for plan in p["plans"]:
            if plan.startswith("cudnn."):
                check(re.fullmatch(r"cudnn\.eng\d+(\[[A-Z_]+=-?\d+(, [A-Z_]+=-?\d+)*\])?", plan), f"cuDNN plan {plan}")
            else:
                check(listed.returncode == 0 and plan in listed.stdout, f"{plan} not listed by gdtune plans "
                      f"{p['family']} --shape {p['shape']} (exit {listed.returncode})")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, gdtune = argv[1], argv[2]
    prof = load(src)
    checks = os.path.join(src, "sweeps", "checks")
    specs = sorted(os.path.join(checks, n) for n in os.listdir(checks) if re.fullmatch(r"profile.*\.json", n))
    spec = os.path.join(checks, "profile.json")
    check(spec in specs, f"{spec}: the default spec is there")
    for s in specs:
        check_plans(prof, s, gdtune)
    plans = prof.load_spec(spec)
    out = subprocess.run([sys.executable, os.path.join(src, ".ci", "profile.py"), "--dry-run", "GDT", spec],
                         capture_output=True, text=True)
    lines = out.stdout.splitlines()
    lines = [l for l in lines if '"--export"' not in l]  # the sampling runs' lines
    check(out.returncode == 0 and len(lines) == len(plans), f"--dry-run: exit {out.returncode}, {len(lines)} lines")
    for line, (family, shape, plan, _) in zip(lines, plans):
        words = prof.ncu_argv("ncu", prof.bench_argv("GDT", family, shape, plan), [])
        check(line == " ".join(json.dumps(w) for w in words), f"--dry-run line for {plan}")
        check(words[words.index("--plan") + 1] == plan and words[words.index("--shape") + 1] == shape,
              f"the bench argv of {plan}")
        check("--clock-control" in words and words[words.index("--clock-control") + 1] == "none",
              "ncu leaves the clocks alone")
        name = words[words.index("--kernel-name") + 1] if "--kernel-name" in words else ""
        pattern = name[len("regex:"):] if name.startswith("regex:") else None
        check(pattern is not None and words[words.index("--kernel-name-base") + 1] == "function",
              "ncu filters kernels by a regex on the function name")
        if pattern is not None:  # Python's re reads this lookahead as ECMAScript (ncu's) does
            check(not re.search(pattern, "gdt_clock_probe"), "the clock probe is never profiled")
            for k in ("gdt_hand_gemm_n128_streamk_bf16_km", "nvjet_sm90_tst_128x256", "gdt_clock_probe_x"):
                check(re.search(pattern, k), f"{k} is profiled")
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.json")
        with open(bad, "w") as f:
            json.dump({"profiles": [{"family": "gemm", "shape": "m=64", "plans": []}]}, f)
        r = subprocess.run([sys.executable, os.path.join(src, ".ci", "profile.py"), "--dry-run", "GDT", bad],
                           capture_output=True, text=True)
        check(r.returncode == 2 and "/profiles/0/plans" in r.stderr, f"bad spec: exit {r.returncode}, {r.stderr!r}")
        with open(bad, "w") as f:
            json.dump({"profiles": [{"family": "gemm", "shape": "m=64", "plans": ["x"], "source": "yes"}]}, f)
        r = subprocess.run([sys.executable, os.path.join(src, ".ci", "profile.py"), "--dry-run", "GDT", bad],
                           capture_output=True, text=True)
        check(r.returncode == 2 and "/profiles/0/source" in r.stderr, f"bad source: exit {r.returncode}, {r.stderr!r}")
        with open(bad, "w") as f:
            json.dump({"profiles": [{"family": "gemm", "shape": "m=64", "plans": ["x", "y"], "source": True}]}, f)
        r = subprocess.run([sys.executable, os.path.join(src, ".ci", "profile.py"), "--dry-run", "GDT", bad],
                           capture_output=True, text=True)
        runs = r.stdout.splitlines()
        check(r.returncode == 0 and len(runs) == 4 and all('"--export"' in l and '"SourceCounters"' in l and
                                                            '"--launch-count" "1"' in l for l in runs[1::2]),
              f"source: one sampling run of one launch after each plan's: {runs}")
    top = prof.source_top(SOURCE_CSV, top=2)
    check(len(top) == 2 and "60.0%" in top[0] and "SYNCS.PHASECHK" in top[0] and
          "stall_long_sb 50" in top[0] and top[0].index("stall_long_sb") < top[0].index("stall_wait") and
          "30.0%" in top[1] and "LDG" in top[1], f"source page: the top instructions by samples: {top}")
    check(prof.source_top('"Address","Source"\n"0x10","NOP"') ==
          ["  source page: no 'Warp Stall Sampling (All Samples)' column"], "source page without the samples")
    got = prof.summarize(prof.rows_of(CSV))
    check(len(got) == 2, f"summary: {len(got)} kernels")
    check(got and got[0].startswith("  gdt_hand_gemm_bf16 grid (132, 1, 1) block (384, 1, 1): us 195.1, SM % 71.5,"),
          f"summary line 0: {got[:1]}")
    check(got and "regs 168" in got[0] and "DRAM % -" in got[0], f"summary line 0 fields: {got[:1]}")
    check(len(got) > 1 and "gdt_post" in got[1] and "us 3.20" in got[1], f"summary line 1: {got[1:]}")
    check(got and "tensor % 80.25" in got[0], f"the tensor pipe: the metric with a value, past the n/a one: {got[:1]}")
    check(got and "stalls membar 2000.50 long_scoreboard 4.25 barrier 1.50, L2" in got[0],
          f"the three largest stall reasons, largest first: {got[:1]}")
    check(got and got[0].endswith("L2 MB read 268.0 written 17.0 atomic 0.0 hit % 87.2 fabric -, "
                                  "DRAM MB read 40.2 written 4.1"),
          f"the L2 and DRAM traffic, sectors as 32 bytes, the fabric's absent: {got[:1]}")
    check(len(got) > 1 and "tensor % n/a" in got[1] and "stalls" not in got[1] and "L2" not in got[1],
          f"no metrics: {got[1:]}")
    extra = dict(prof.EXTRA)
    check(set(extra) == {"tensor", "stalls", "l2", "fabric"} and extra["tensor"] == prof.TENSOR and
          extra["stalls"] == prof.STALLS and extra["l2"] == prof.L2 and extra["fabric"] == prof.FABRIC,
          "the tensor, stall, L2 and fabric metrics each have a run of their own")
    print("test_profile_script: " + ("FAILED" if check.failed else "passed"))
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
