#!/usr/bin/env python3
"""The `autotune-validate` step of .ci/device-run: `gdtune autotune` on every shape of the
validation specs (sweeps/validation/{gemm,sdpa}.json, issue 33), and the winners scored against
the validation journals' best measured plans.

usage: autotune-validate.py run GDTUNE LOG SPEC...   one `gdtune autotune FAMILY --shape SHAPE
                                                     --format json` per family and shape of each
                                                     spec; LOG gets one JSON line per shape
       autotune-validate.py --dry-run GDTUNE SPEC... print each command line, run nothing
       autotune-validate.py score LOG JOURNAL...     per shape, the sweep's time of autotune's
                                                     winner, of the list's first (tables-only
                                                     dispatch) and of the heuristic's first over
                                                     the cell's best; per family geo-mean / worst

Each run is an argument vector (no shell) with a timeout; a shape that fails is logged with its
exit status and stderr and the others go on.  `run` stops starting shapes once --budget seconds
(default 500, under a device call's 600) have passed and names those left.  The score reads the
sweep's own times (`time_us` of each verified result), so the three picks are compared on one
clock, the oracle's; autotune's own medians are printed beside them.  A shape whose cell the
sweep recorded as unmeasurable (a `cell_error`: no reference, say) has no oracle; it is named
with the sweep's reason and not scored.  Exit 0 when every shape ran (run) or was scored or had
no oracle (score), 1 when one was not, 2 on bad usage or a bad spec."""
import gzip
import itertools
import json
import math
import subprocess
import sys
import time

TIMEOUT_S = 300
BUDGET_S = 500
PICKS = ("winner", "first", "heuristic")


class SpecError(ValueError):
    pass


# ------------------------------------------------------------------ shapes

def axis_points(key, values, where):
    """One grid axis: "m,n,k": [[...], ...] or "dtype": [...], as a list of {name: value}."""
    names = key.split(",")
    if not isinstance(values, list) or not values:
        raise SpecError(f"{where}/{key}: expected a non-empty array")
    points = []
    for i, v in enumerate(values):
        v = v if len(names) > 1 else [v]
        if not isinstance(v, list) or len(v) != len(names):
            raise SpecError(f"{where}/{key}/{i}: expected {len(names)} values")
        points.append(dict(zip(names, v)))
    return points


def cells(path):
    """[(family, shape)] of a sweep spec: each grid entry's product, for each family."""
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    families, grid = spec.get("families"), spec.get("grid")
    if not isinstance(families, list) or not families:
        raise SpecError(f"{path}: /families: expected a non-empty array")
    if not isinstance(grid, list) or not grid:
        raise SpecError(f"{path}: /grid: expected a non-empty array")
    out = []
    for g, entry in enumerate(grid):
        if not isinstance(entry, dict):
            raise SpecError(f"{path}: /grid/{g}: expected an object")
        axes = [axis_points(k, v, f"{path}: /grid/{g}") for k, v in entry.items()]
        for combo in itertools.product(*axes):
            point = {k: v for p in combo for k, v in p.items()}
            shape = ",".join(f"{k}={v}" for k, v in point.items())
            out += [(fam, shape) for fam in families]
    return out


def autotune_argv(gdtune, family, shape):
    return [gdtune, "autotune", family, "--shape", shape, "--format", "json"]


# --------------------------------------------------------------------- run

def run_one(gdtune, family, shape):
    """The log line of one shape."""
    line = {"family": family, "shape": shape}
    try:
        p = subprocess.run(autotune_argv(gdtune, family, shape), capture_output=True, text=True,
                           timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return dict(line, rc=124, error=f"timed out after {TIMEOUT_S} s")
    line["rc"] = p.returncode
    if p.returncode == 0:
        try:
            line["doc"] = json.loads(p.stdout)
        except json.JSONDecodeError as x:
            line.update(rc=1, error=f"stdout is not one JSON document: {x}")
    else:
        line["error"] = p.stderr[-2000:]
    return line


def say(line):
    doc = line.get("doc")
    if not doc:
        print(f"{line['family']} {line['shape']}: exit {line['rc']}: {line['error'].strip()[-300:]}")
        return
    w = doc["candidates"][doc["winner"]]
    print(f"{line['family']} {line['shape']}: {w['plan']} {w['median_us']:.2f} us, "
          f"over the list's first {doc['winner_over_first']:.3f}")


def run(gdtune, log, specs, budget=BUDGET_S):
    todo = [c for s in specs for c in cells(s)]
    t0, bad = time.monotonic(), 0
    with open(log, "x", encoding="utf-8") as out:
        for i, (family, shape) in enumerate(todo):
            if time.monotonic() - t0 > budget:
                left = ", ".join(f"{f} {s}" for f, s in todo[i:])
                print(f"autotune-validate: budget of {budget} s spent; not run: {left}")
                return 1
            line = run_one(gdtune, family, shape)
            out.write(json.dumps(line) + "\n")
            out.flush()
            say(line)
            bad += line["rc"] != 0
    return 1 if bad else 0


# ------------------------------------------------------------------- score

def open_text(path):
    return gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")


def read_journals(paths):
    """One pass over the journals: {key: {plan name: best verified time_us}}, the device names
    their run headers give and {key: why} for the cells the sweep could not measure (a
    `cell_error` record: no reference, say)."""
    out, names, errors = {}, set(), {}
    for path in paths:
        keys = {}
        with open_text(path) as f:
            for text in f:
                r = json.loads(text)
                if r.get("type") == "run":
                    names.add(r.get("device", {}).get("name", "?"))
                elif r.get("type") == "cell":
                    keys[r["cell"]] = r["key"]
                    out.setdefault(r["key"], {})
                elif r.get("type") == "cell_error":
                    errors[r["key"]] = r.get("error", "?")
                elif r.get("type") == "result" and r.get("disposition") == "verified" and r.get("time_us", 0) > 0:
                    times = out.setdefault(keys[r["cell"]], {})
                    times[r["name"]] = min(r["time_us"], times.get(r["name"], math.inf))
    return out, names, errors


def pick_ratios(doc, times):
    """{pick: sweep time of its plan / the cell's best} (None: no such pick, or not measured)."""
    best = min(times.values())
    out = {}
    for pick in PICKS:
        idx = doc.get(pick)
        name = doc["candidates"][idx]["plan"] if idx is not None and idx >= 0 else None
        out[pick] = times[name] / best if name in times else None
    return out


def summary(family, rows):
    parts = []
    for pick in PICKS:
        v = [r[pick] for r in rows if r[pick] is not None]
        if v:
            geo = math.exp(sum(math.log(x) for x in v) / len(v))
            parts.append(f"{pick} {geo:.3f} / {max(v):.3f} ({len(v)})")
        else:
            parts.append(f"{pick} -")
    return f"{family}: geo-mean / worst of pick / best: " + "; ".join(parts)


def own_summary(family, own):
    """The figure the run itself measured: the winner's time over the list's first's."""
    geo = math.exp(sum(math.log(x) for x in own) / len(own))
    return f"{family}: winner / the list's first, both timed here: geo-mean {geo:.3f}, best {min(own):.3f}, " \
           f"worst {max(own):.3f} ({len(own)})"


def score(log, journals):
    cells_, journal_names, errors = read_journals(journals)
    per_family, own, run_names, bad, unscorable = {}, {}, set(), 0, 0
    print(f"{'family':9} {'winner':>7} {'first':>7} {'heur':>7} {'own':>7}  shape")
    with open(log, encoding="utf-8") as f:
        for text in f:
            line = json.loads(text)
            doc = line.get("doc")
            times = cells_.get(doc["key"]) if doc else None
            if not times and doc and doc["key"] in errors:
                print(f"{line['family']:9} no oracle (the sweep could not measure the cell: "
                      f"{errors[doc['key']]}): {line['shape']}")
                unscorable += 1
                continue
            if not times:
                why = "no document" if not doc else f"key {doc['key']} in no journal"
                print(f"{line['family']:9} not scored ({why}): {line['shape']}")
                bad += 1
                continue
            r = pick_ratios(doc, times)
            per_family.setdefault(line["family"], []).append(r)
            own.setdefault(line["family"], []).append(doc["winner_over_first"])
            run_names.add(doc.get("device", {}).get("name", "?"))
            cols = " ".join(f"{r[p]:7.3f}" if r[p] is not None else f"{'-':>7}" for p in PICKS)
            print(f"{line['family']:9} {cols} {doc['winner_over_first']:7.3f}  {line['shape']}")
    for family, rows in sorted(per_family.items()):
        print(summary(family, rows))
    for family, ratios in sorted(own.items()):
        print(own_summary(family, ratios))
    if unscorable:
        print(f"autotune-validate: {unscorable} shape(s) without an oracle: the validation sweep recorded "
              "why it could not measure them (above); they are not scored")
    if run_names - journal_names:
        print(f"autotune-validate: the picks ran on {', '.join(sorted(run_names))}, the journals on "
              f"{', '.join(sorted(journal_names))}: the pick / best columns score one device's choices by "
              "another's times (and the journals' build); only the winner / the list's first lines are "
              "measured on one device")
    return 1 if bad else 0


def main(argv):
    try:
        if len(argv) >= 4 and argv[1] == "run":
            return run(argv[2], argv[3], argv[4:])
        if len(argv) >= 4 and argv[1] == "--dry-run":
            for family, shape in (c for s in argv[3:] for c in cells(s)):
                print(" ".join(autotune_argv(argv[2], family, shape)))
            return 0
        if len(argv) >= 4 and argv[1] == "score":
            return score(argv[2], argv[3:])
    except (SpecError, OSError, json.JSONDecodeError) as x:
        print(f"autotune-validate: {x}", file=sys.stderr)
        return 2
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
