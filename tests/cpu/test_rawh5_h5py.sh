#!/bin/sh
# docs/formats.md's h5py example, run as written: the first ```python block
# of its "raw.h5" section, in a run directory whose raw.h5 `gdtune report`
# built from a committed journal (runs/sm90/tables/, the GEMM sweep the
# tables come from).  Then the table of plans is held against the per-plan
# groups: one row per plan_NNN, the same name, disposition, time and noise,
# and each verified row's (plan, burst) naming a burst group with `samples`
# samples; and the file's size stays under 12,000,000 bytes (13,335,608 when
# every group had a B-tree and a heap of its own).  Exit 0 when all hold, 1 naming what did not, 77 without python3,
# h5py or numpy (.ci/setup installs python3-h5py; the python3 on PATH is tried first, then
# Debian's /usr/bin/python3, which a pyenv or venv python3 on PATH can hide), 2 on bad usage.
# usage: test_rawh5_h5py.sh SOURCE_DIR GDTUNE_EXE
set -u
[ $# -eq 2 ] && [ -d "$1" ] && [ -x "$2" ] || { echo "usage: test_rawh5_h5py.sh SOURCE_DIR GDTUNE_EXE" >&2; exit 2; }
src=$1 exe=$2
py=
for p in python3 /usr/bin/python3; do
  "$p" -c 'import h5py, numpy' 2>/dev/null && { py=$p; break; }
done
if [ -z "$py" ]; then
  echo "test_rawh5_h5py: python3 with h5py and numpy not found (PATH's python3, /usr/bin/python3): skipped"
  exit 77
fi
tmp=$(mktemp -d /tmp/gdt_rawh5_h5py_XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
# The committed GEMM tables' journal, whatever its date (one file)
set -- "$src"/runs/sm90/tables/gemm-*.journal.jsonl.gz
[ $# -eq 1 ] && [ -f "$1" ] || { echo "test_rawh5_h5py: expected one runs/sm90/tables/gemm-*.journal.jsonl.gz, found: $*"; exit 1; }
journal=$1
gunzip -c "$journal" > "$tmp/journal.jsonl" || { echo "test_rawh5_h5py: gunzip -c $journal failed"; exit 1; }
PATH=/nonexistent "$exe" report "$tmp" > "$tmp/report.out" 2>&1 ||
  { echo "test_rawh5_h5py: $exe report $tmp failed:"; cat "$tmp/report.out"; exit 1; }

size=$(wc -c < "$tmp/raw.h5")
if [ "$size" -ge 12000000 ]; then
  echo "test_rawh5_h5py: $tmp/raw.h5: expected under 12000000 bytes for $journal, found $size"
  exit 1
fi

# The snippet: the first ```python block after "## raw.h5".
awk '/^## raw.h5/ { in_sec = 1 } in_sec && /^```python$/ { grab = 1; next }
     grab && /^```$/ { exit } grab { print }' "$src/docs/formats.md" > "$tmp/example.py"
[ -s "$tmp/example.py" ] || { echo "test_rawh5_h5py: docs/formats.md: expected a \`\`\`python block in its raw.h5 section, found none"; exit 1; }
(cd "$tmp" && "$py" example.py) > "$tmp/example.out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  echo "test_rawh5_h5py: docs/formats.md's example failed (exit $rc) on $journal:"
  cat "$tmp/example.py" "$tmp/example.out"
  exit 1
fi
echo "docs/formats.md example printed:"; cat "$tmp/example.out"

cd "$tmp" && "$py" - <<'PY'
import math, sys
import h5py

bad = []
def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b

with h5py.File("raw.h5", "r") as f:
    if f.attrs["layout"] != "gdtune.raw/4":
        bad.append(f"layout: expected gdtune.raw/4, found {f.attrs['layout']}")
    cells = [f"gemm/{c}" for c in f["gemm"]]
    for path in cells:
        cell = f[path]
        plans = cell["plans"][:]
        groups = sorted(k for k in cell if k.startswith("plan_"))
        if [p.decode() for p in plans["plan"]] != groups:
            bad.append(f"{path}/plans: expected one row per group {groups[:3]}..., found {list(plans['plan'][:3])}...")
            continue
        for row in plans:
            g = cell[row["plan"].decode()]
            for col in ("name", "disposition"):
                if row[col].decode() != g.attrs[col]:
                    bad.append(f"{path}/plans {row['plan']}: {col} {row[col]!r}, the group says {g.attrs[col]!r}")
            for col in ("time_us", "noise"):
                if not same(float(row[col]), float(g.attrs[col])):
                    bad.append(f"{path}/plans {row['plan']}: {col} {row[col]}, the group says {g.attrs[col]}")
            if row["disposition"] == b"verified":
                b = f"burst_{row['burst']}"
                if b not in g or len(g[b]["device_us"]) != row["samples"]:
                    bad.append(f"{path}/plans {row['plan']}: expected {b} with {row['samples']} samples")
            if row["kind"] not in (b"nvrtc", b"hand", b"cudnn", b"cublaslt", b"test"):
                bad.append(f"{path}/plans {row['plan']}: kind {row['kind']!r}")
    print(f"{len(cells)} cells' plans tables checked against their groups")
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
PY
