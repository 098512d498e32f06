#!/usr/bin/env python3
""".ci/autotune-validate.py (the device-run `autotune-validate` step) without a GPU: the
validation specs expand to exactly the cells the committed validation journals swept (family and
shape, in order); `run` against a stand-in gdtune logs one line per shape, a failing shape with
its exit status and stderr, and exits 1 for it; a spent budget stops it naming the shapes left;
`score` on a log planted from a journal gives the best plan 1.000, the slowest plan its sweep
time over the best, and the per-family geo-mean / worst of each, and the measured winner / first
line; picks from another device than the journals' are said to be so; a key no journal holds is
not scored (exit 1); a cell the sweep recorded as unmeasurable is named with its reason and not
scored, without failing.  Exit 0 when all hold, 1 naming what failed.

usage: test_autotune_validate.py SOURCE_DIR"""
import gzip
import json
import math
import os
import stat
import sys
import tempfile

import ci_script

check = ci_script.Checks("test_autotune_validate")


def load(src):
    return ci_script.load(src, "autotune-validate.py", "autotune_validate")


def journal(src, family):
    return os.path.join(src, f"runs/sm90/validation/{family}-validation.journal.jsonl.gz")


def journal_shapes(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        recs = [json.loads(t) for t in f]
    return [(r["family"], r["shape"]) for r in recs if r["type"] == "cell"]


def test_cells(mod, src):
    for fam in ("gemm", "sdpa"):
        got = mod.cells(os.path.join(src, f"sweeps/validation/{fam}.json"))
        want = journal_shapes(journal(src, fam))
        check(got == want, f"{fam}: spec cells {got[:2]}... == journal cells {want[:2]}...")


STANDIN = """#!/usr/bin/env python3
import json, sys
shape = sys.argv[4]
if "m=64," in shape:
    sys.stderr.write("gdtune autotune: not supported: planted failure\\n")
    sys.exit(1)
print(json.dumps({"schema": "gdtune.autotune/1", "key": "k:" + shape, "winner": 0, "first": 0,
                  "heuristic": None, "winner_over_first": 1.0, "winner_over_heuristic": None,
                  "candidates": [{"plan": "p", "median_us": 1.5}]}))
"""


def test_run(mod, src, tmp):
    exe = os.path.join(tmp, "gdtune-standin")
    with open(exe, "x") as f:
        f.write(STANDIN)
    os.chmod(exe, stat.S_IRWXU)
    spec = os.path.join(src, "sweeps/validation/gemm.json")
    log = os.path.join(tmp, "run.jsonl")
    rc = mod.run(exe, log, [spec])
    with open(log) as f:
        lines = [json.loads(t) for t in f]
    check(rc == 1, f"run exits 1 with one shape failing (got {rc})")
    check(len(lines) == 10, f"one line per shape (got {len(lines)})")
    failed = [x for x in lines if x["rc"] != 0]
    check(len(failed) == 1 and "planted failure" in failed[0]["error"] and "doc" not in failed[0],
          "the failing shape logged with its stderr")
    check(all(x["doc"]["key"] == "k:" + x["shape"] for x in lines if x["rc"] == 0), "the documents kept")
    log2 = os.path.join(tmp, "run2.jsonl")
    check(mod.run(exe, log2, [spec], budget=-1) == 1, "a spent budget exits 1")
    with open(log2) as f:
        check(f.read() == "", "a spent budget runs nothing")


def planted_log(src, tmp):
    """One log line per journal cell: winner the best plan, first the slowest, heuristic cudnn.eng0."""
    cells, _, _ = load(src).read_journals([journal(src, "gemm")])
    keys = {}
    with gzip.open(journal(src, "gemm"), "rt") as f:
        for t in f:
            r = json.loads(t)
            if r["type"] == "cell":
                keys[r["key"]] = r["shape"]
    path = os.path.join(tmp, "planted.jsonl")
    worst = []
    with open(path, "x") as out:
        for key, times in cells.items():
            best, slow = min(times, key=times.get), max(times, key=times.get)
            worst.append(times[slow] / times[best])
            cands = [{"plan": slow}, {"plan": "cudnn.eng0"}, {"plan": best}]
            doc = {"key": key, "winner": 2, "first": 0, "heuristic": 1, "winner_over_first": 0.5, "candidates": cands,
                   "device": {"name": "Planted GPU", "arch": 90}}
            out.write(json.dumps({"family": "gemm", "shape": keys[key], "rc": 0, "doc": doc}) + "\n")
        out.write(json.dumps({"family": "gemm", "shape": "m=1", "rc": 0,
                              "doc": dict(doc, key="gemm:not-swept")}) + "\n")
    return path, worst


def test_score(mod, src, tmp, capsys_path):
    log, worst = planted_log(src, tmp)
    with open(capsys_path, "w") as f:
        old, sys.stdout = sys.stdout, f
        try:
            rc = mod.score(log, [journal(src, "gemm")])
        finally:
            sys.stdout = old
    with open(capsys_path) as f:
        text = f.read()
    check(rc == 1, f"score exits 1 for the key no journal holds (got {rc})")
    check("not scored (key gemm:not-swept in no journal)" in text, "the unscored shape named")
    geo = math.exp(sum(math.log(x) for x in worst) / len(worst))
    want = f"gemm: geo-mean / worst of pick / best: winner 1.000 / 1.000 ({len(worst)}); first {geo:.3f} / {max(worst):.3f}"
    check(want in text, f"summary line '{want}' in:\n{text}")
    n = len(worst)
    own = f"gemm: winner / the list's first, both timed here: geo-mean 0.500, best 0.500, worst 0.500 ({n})"
    check(own in text, f"the measured line '{own}' in:\n{text}")
    check("the picks ran on Planted GPU, the journals on NVIDIA H200" in text,
          f"another device than the journals' named in:\n{text}")


def test_score_no_oracle(mod, tmp):
    """A cell the sweep recorded as unmeasurable (cell_error) is named with its reason, not
    scored, and does not fail the score; the measured cell beside it is scored."""
    path = os.path.join(tmp, "oracle.jsonl")
    recs = [{"type": "run", "device": {"name": "NVIDIA H200"}},
            {"type": "cell", "cell": 0, "key": "sdpa_bwd:a"},
            {"type": "result", "cell": 0, "name": "p", "disposition": "verified", "time_us": 10.0},
            {"type": "cell", "cell": 1, "key": "sdpa_bwd:b"},
            {"type": "cell_error", "cell": 1, "key": "sdpa_bwd:b", "error": "no reference: planted"}]
    with open(path, "x") as f:
        f.write("".join(json.dumps(r) + "\n" for r in recs))
    log = os.path.join(tmp, "no-oracle.jsonl")
    with open(log, "x") as f:
        for key in ("sdpa_bwd:a", "sdpa_bwd:b"):
            doc = {"key": key, "winner": 0, "first": 0, "heuristic": None, "winner_over_first": 1.0,
                   "candidates": [{"plan": "p"}], "device": {"name": "NVIDIA H200", "arch": 90}}
            f.write(json.dumps({"family": "sdpa_bwd", "shape": key[9:], "rc": 0, "doc": doc}) + "\n")
    out = os.path.join(tmp, "no-oracle.txt")
    with open(out, "w") as f:
        old, sys.stdout = sys.stdout, f
        try:
            rc = mod.score(log, [path])
        finally:
            sys.stdout = old
    with open(out) as f:
        text = f.read()
    check(rc == 0, f"score exits 0 when the only unscored cell has no oracle (got {rc}):\n{text}")
    check("no oracle (the sweep could not measure the cell: no reference: planted): b" in text,
          f"the cell without an oracle named with the sweep's reason in:\n{text}")
    check("sdpa_bwd: geo-mean / worst of pick / best: winner 1.000 / 1.000 (1)" in text,
          f"the measured cell scored in:\n{text}")
    check("1 shape(s) without an oracle" in text, f"the count of shapes without an oracle in:\n{text}")


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src = sys.argv[1]
    mod = load(src)
    test_cells(mod, src)
    with tempfile.TemporaryDirectory(prefix="gdt_atv_") as tmp:
        test_run(mod, src, tmp)
        test_score(mod, src, tmp, os.path.join(tmp, "score.txt"))
        test_score_no_oracle(mod, tmp)
    print(f"test_autotune_validate: {'ok' if not check.failed else f'{len(check.failed)} failed'}")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
