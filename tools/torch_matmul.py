#!/usr/bin/env python3
"""torch.matmul on every cell of a gdtune GEMM sweep spec, for comparison
with the sweep's best cuBLASLt plan (tools/README.md).

For each cell of the spec's grid (m x (n, k), each dtype), times
torch.matmul(A[m, k], B[k, n]) twice: with triton.testing.do_bench (its
warm-up, then the L2 flush it does before every call; the median), and
without a flush (the same warm-up, then back-to-back calls between CUDA
events, the median: the operands stay in L2 as in a sweep's bursts), and in
the sweep's own scope (bursts of 64 calls between two events from a drained
queue, per call, the median of 20).  Prints a header line (device, torch,
BLAS library), then one JSON line per cell: shape, dtype, and ms and TFLOP/s
of each.

    python3 tools/torch_matmul.py [sweeps/gemm.json] [--quick]
"""
import argparse
import itertools
import json
import sys

import torch
import triton.testing

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def cells(spec, quick):
    """(m, n, k, dtype) of every cell, in grid order."""
    grid = spec["quick"]["grid"] if quick else spec["grid"]
    for g in grid:
        for m, (n, k), dtype in itertools.product(g["m"], g["n,k"], g.get("dtype", ["bf16"])):
            yield m, n, k, dtype


def flushed_ms(fn):
    """do_bench's median: warm-up, then each call after an L2 flush."""
    return triton.testing.do_bench(fn, warmup=25, rep=100, quantiles=[0.5])


def warm_ms(fn, reps=100):
    """The median of back-to-back calls, each between two CUDA events, after
    do_bench's own warm-up count: nothing flushes L2 between them."""
    for _ in range(25):
        fn()
    start = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    end = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for s, e in zip(start, end):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return sorted(s.elapsed_time(e) for s, e in zip(start, end))[reps // 2]


def burst_ms(fn, burst=64, reps=20):
    """The sweep's timing scope: the median over reps of one burst of
    `burst` back-to-back calls between two CUDA events, divided by burst,
    from a drained queue (gdtune's decision metric at its largest burst)."""
    for _ in range(25):
        fn()
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(burst):
            fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / burst)
    return sorted(times)[reps // 2]


def bench(m, n, k, dtype):
    t = DTYPES[dtype]
    a = torch.randn(m, k, dtype=t, device="cuda")
    b = torch.randn(k, n, dtype=t, device="cuda")
    fn = lambda: torch.matmul(a, b)  # noqa: E731
    flops = 2.0 * m * n * k
    row = {"shape": f"m={m},n={n},k={k}", "dtype": dtype}
    for label, timer in (("flush_l2", flushed_ms), ("warm_l2", warm_ms), ("burst64", burst_ms)):
        ms = timer(fn)
        row[label] = {"ms": ms, "tflops": flops / (ms * 1e-3) / 1e12}
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", nargs="?", default="sweeps/gemm.json", help="a gdtune GEMM sweep spec")
    ap.add_argument("--quick", action="store_true", help="the spec's quick grid")
    args = ap.parse_args()
    with open(args.spec) as f:
        spec = json.load(f)
    if "gemm" not in spec.get("families", []):
        sys.exit(f"{args.spec}: /families: expected \"gemm\" in it, got {spec.get('families')}")
    if not torch.cuda.is_available():
        sys.exit("no CUDA device: torch.matmul is timed on the GPU")
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "cuda": torch.version.cuda, "triton": triton.__version__,
                      "blas": str(torch.backends.cuda.preferred_blas_library()), "spec": args.spec}),
          flush=True)
    for m, n, k, dtype in cells(spec, args.quick):
        print(json.dumps(bench(m, n, k, dtype)), flush=True)


if __name__ == "__main__":
    main()
