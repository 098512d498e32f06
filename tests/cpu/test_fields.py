#!/usr/bin/env python3
"""docs/fields.md against what gdtune emits, both ways.

Each document of docs/fields.md is a table after a line `<!-- fields: ID -->`;
its rows' first cells name field paths in backquotes (`cells[].best_ours.plan`:
`[]` an array's items, `<name>` any key).  The documents are emitted here,
without a GPU: the verbs run on the committed tables (tables/sm90) and
journals (runs/, tests/data/journals), on a run directory rebuilt from a
committed journal, and on two stand-in nights (test_nightly's worker);
the summaries of sweep, merge, tables emit and tables check on sweeps of
that stand-in (finished, cut short, resumed, sharded), committed runs and
tables, and one table made invalid; the bench document is assembled by test_bench_json's builders ("doc"), the
autotune document by test_autotune_json's ("doc").  A
versioned document is held against the table of the schema it carries, so
a version bumped in the code and not here fails.  Every
emitted path (every key, nested objects and arrays included) must match a
documented one, and every documented path must be emitted by at least one
input, except rows marked with a dagger (U+2020): written only where these
inputs cannot reach (a GPU, a failed trace).  Exit 0 when all hold, 1 naming
each path that differs, 2 on bad usage, 77 without python3's json (never).

usage: test_fields.py SOURCE_DIR GDTUNE_EXE STANDIN_WORKER BENCH_DOC_EXE AUTOTUNE_DOC_EXE
"""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

DAGGER = "\u2020"


def die_usage():
    print(__doc__.strip().splitlines()[-1], file=sys.stderr)
    sys.exit(2)


# ------------------------------------------------------------ the reference

def documented(md_path):
    """{doc id: {path: optional}} from docs/fields.md."""
    docs, cur = {}, None
    with open(md_path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*<!-- fields: (\S+) -->", line)
            if m:
                cur = docs.setdefault(m.group(1), {})
                continue
            if line.startswith("#"):
                cur = None
            if cur is None or not line.startswith("|"):
                continue
            cell = line.split("|")[1]
            if set(cell.strip()) <= set("-: "):
                continue
            for path, dagger in re.findall(r"`([^`]+)`(\s*" + DAGGER + ")?", cell):
                cur[path] = bool(dagger)
    return docs


def pattern(path):
    """A documented path as a regular expression over emitted paths."""
    out = []
    for part in re.split(r"(<[^>]+>)", path):
        out.append("[^.\\[\\]]+" if part.startswith("<") else re.escape(part))
    return re.compile("^" + "".join(out) + "$")


# ------------------------------------------------------------ what is emitted

def paths(v, prefix, out):
    """Every key path below v (arrays' items as `[]`), containers too."""
    if isinstance(v, dict):
        for k, x in v.items():
            p = prefix + "." + k if prefix else k
            out.add(p)
            paths(x, p, out)
    elif isinstance(v, list):
        for x in v:
            paths(x, prefix + "[]", out)


def run(argv, env=None, ok=(0,), stdin=None):
    r = subprocess.run(argv, capture_output=True, text=True, env=env, stdin=stdin)
    if r.returncode not in ok:
        print(f"test_fields: {' '.join(argv)}: exit {r.returncode}, expected {ok}:\n{r.stderr}{r.stdout}")
        sys.exit(1)
    return r.stdout


def doc_of(argv, **kw):
    text = run(argv, **kw)
    try:
        return json.loads(text)
    except ValueError as e:
        print(f"test_fields: {' '.join(argv)}: stdout is not one JSON document ({e}):\n{text[:400]}")
        sys.exit(1)


def csv_header(argv, **kw):
    return run(argv, **kw).splitlines()[0].split(",")  # text mode: CRLF read as one line end


def journal_records(path, emitted):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            s = emitted.setdefault("journal:" + rec.get("type", "?"), set())
            paths(rec, "", s)


def committed_journal(src, family):
    """The committed FAMILY tables' journal under runs/sm90/tables, whatever its date (one file)."""
    d = os.path.join(src, "runs", "sm90", "tables")
    found = sorted(n for n in os.listdir(d) if n.startswith(family + "-") and n.endswith(".journal.jsonl.gz"))
    if len(found) != 1:
        raise SystemExit("test_fields: expected one %s/%s-*.journal.jsonl.gz, found %s" % (d, family, found))
    return os.path.join("runs", "sm90", "tables", found[0])


def unpack(src, journal_gz, run_dir):
    """A committed journal as RUN_DIR/journal.jsonl: a run directory."""
    os.mkdir(run_dir)
    with gzip.open(os.path.join(src, journal_gz), "rb") as f, \
            open(os.path.join(run_dir, "journal.jsonl"), "wb") as o:
        o.write(f.read())
    return run_dir


def copy_cut(run_dir, to):
    """RUN_DIR's journal up to its first result, as TO's: a sweep killed there."""
    os.mkdir(to)
    with open(os.path.join(run_dir, "journal.jsonl")) as f:
        lines = f.readlines()
    first = next(i for i, line in enumerate(lines) if '"type":"result"' in line)
    with open(os.path.join(to, "journal.jsonl"), "w") as o:
        o.writelines(lines[:first + 1])
    return to


def sweep_summaries(src, g, worker, tmp, add):
    """The stand-in's tiny GEMM sweep: finished; cut after its first result
    (emit leaves the cell out), resumed without a worker (stopped,
    resumable) and with it (finished, a resume record); two shards.  The
    run directories, for their journals."""
    env = dict(os.environ, GDTUNE_WORKER_EXE=worker)
    gone = dict(os.environ, GDTUNE_WORKER_EXE="/nonexistent/gdtune-worker")
    tabs = os.path.join(tmp, "sweep_tables")
    sweep = g + ["sweep", "gemm", "--spec", os.path.join(src, "tests/data/sweeps/tiny_gemm.json"),
                 "--tables-dir", tabs, "--deadline", "1", "--format", "json"]
    whole = os.path.join(tmp, "sweep")
    add(doc_of(sweep + ["--out", whole], env=env))
    cut = copy_cut(whole, os.path.join(tmp, "sweep_cut"))
    add(doc_of(g + ["tables", "emit", cut, "--tables-dir", os.path.join(tmp, "cut_tables"), "--format", "json"]))
    resume = g + ["sweep", "--resume", cut, "--tables-dir", tabs, "--format", "json"]
    add(doc_of(resume, env=gone, ok=(1,)))
    add(doc_of(resume, env=env))
    shards = [os.path.join(tmp, f"shard{i}") for i in range(2)]
    for i, d in enumerate(shards):
        add(doc_of(sweep + ["--out", d, "--shard", f"{i}/2"], env=env))
    return [whole, cut] + shards


def summaries(src, g, worker, tmp, add):
    """sweep, merge, tables emit and tables check as JSON: merge of two
    shards, the second cut short (a cell left out), of one shard twice
    (refused: a conflict), of a small committed
    run with a validation run (a time model); check of the committed tables
    and of one whose arch is wrong (the error's parts).  The stand-in sweeps'
    run directories."""
    runs = sweep_summaries(src, g, worker, tmp, add)
    merged = os.path.join(tmp, "merged")
    cut = copy_cut(runs[3], os.path.join(tmp, "shard1_cut"))
    add(doc_of(g + ["merge", runs[2], cut, "--tables-dir", merged, "--format", "json"]))
    for verb in (["merge"], ["tables", "emit"]):
        add(doc_of(g + verb + [runs[3], runs[3], "--tables-dir", merged, "--format", "json"], ok=(2,)))
    heat = [unpack(src, f"runs/sm90/heat/sdpa_fwd-heat{n}.journal.jsonl.gz", os.path.join(tmp, f"heat{n}"))
            for n in (2, 0)]
    for verb in (["merge"], ["tables", "emit"]):
        add(doc_of(g + verb + [heat[0], "--validation", heat[1], "--tables-dir", os.path.join(tmp, "heat_tables"),
                               "--format", "json"]))
    committed = os.path.join(src, "tables/sm90")
    files = [os.path.join(committed, n) for n in sorted(os.listdir(committed)) if not n.endswith(".pair.json")]
    bad = os.path.join(tmp, "bad.tuning.json")
    with open(os.path.join(committed, "gemm.tuning.json")) as f, open(bad, "x") as o:
        o.write(f.read().replace('"arch": "sm90"', '"arch": "sm80"', 1))
    add(doc_of(g + ["tables", "check"] + files + [bad, "--format", "json"], ok=(2,)))
    return runs


def emit_all(src, exe, worker, bench_doc, autotune_doc, tmp):
    emitted = {}

    def add(doc):
        """A document under its own schema string: a version bumped in the code
        without its table here fails."""
        paths(doc, "", emitted.setdefault(doc.get("schema", "(no schema)"), set()))

    def add_csv(doc_id, header):
        emitted.setdefault(doc_id, set()).update(header)

    g = [exe]
    tables = os.path.join(src, "tables")
    # list, candidates, plans
    add(doc_of(g + ["list", "--format", "json"]))
    for args in (["gemm", "--arch", "sm90"], ["gemm", "--arch", "sm80"], ["sdpa", "--arch", "sm90"],
                 ["gemm", "--shape", "m=48,n=64,k=32"]):
        add(doc_of(g + ["candidates"] + args + ["--format", "json"]))
        add_csv("csv:candidates", csv_header(g + ["candidates"] + args + ["--format", "csv"]))
    for args in (["gemm", "--shape", "m=4096"], ["gemm", "--shape", "m=2048,n=8192"],
                 ["gemm", "--shape", "m=128", "--mode", "A", "--mode", "B", "--mode", "FALLBACK"],
                 ["sdpa", "--shape", "b=2,h=8,s=1000,d=128"]):
        add(doc_of(g + ["plans"] + args + ["--tables", tables, "--format", "json"]))
        add_csv("csv:plans", csv_header(g + ["plans"] + args + ["--tables", tables, "--format", "csv"]))
    # report and compare on a run rebuilt from the committed GEMM sweep
    run_dir = unpack(src, committed_journal(src, "gemm"), os.path.join(tmp, "run"))
    env = dict(os.environ, PATH="/nonexistent")  # no gnuplot: no figures, same documents
    add(doc_of(g + ["report", run_dir, "--format", "json"], env=env))
    add_csv("csv:report", csv_header(g + ["report", run_dir, "--format", "csv"], env=env))
    add(doc_of(g + ["compare", run_dir, "--format", "json"], env=env))
    add(doc_of(g + ["candidates", "gemm", "--journal", run_dir, "--format", "json"]))
    add_csv("csv:candidates_wins", csv_header(g + ["candidates", "gemm", "--journal", run_dir, "--format", "csv"]))
    add_csv("csv:compare", csv_header(g + ["compare", run_dir, "--format", "csv"], env=env))
    # tables diff: a re-run's tables against the committed ones, with the runs' samples;
    # the frozen nightly fixture (other provenance, fewer cells) against the committed ones
    rerun = unpack(src, "runs/sm90/default/gemm-20261203T0559Z-rerun.journal.jsonl.gz", os.path.join(tmp, "rerun"))
    emitted_tables = os.path.join(tmp, "rerun_tables")
    add(doc_of(g + ["tables", "emit", rerun, "--tables-dir", emitted_tables, "--format", "json"]))
    for args in ([tables, emitted_tables, "--family", "gemm", "--runs", run_dir, rerun],
                 [os.path.join(src, "tests/data/nightly"), tables, "--family", "gemm"]):
        add(doc_of(g + ["tables", "diff"] + args + ["--format", "json"], ok=(0, 3)))
        add_csv("csv:tables_diff", csv_header(g + ["tables", "diff"] + args + ["--format", "csv"], ok=(0, 3)))
    # the committed tables
    for name in sorted(os.listdir(os.path.join(tables, "sm90"))):
        with open(os.path.join(tables, "sm90", name)) as f:
            doc = json.load(f)
        if name.endswith((".tuning.json", ".placement.json")):
            add(doc)
    # two stand-in nights: the first fills TABLES, the second holds a change in rounds
    root, night_tables = os.path.join(tmp, "root"), os.path.join(tmp, "night_tables")
    night = g + ["nightly", "--root", root, "--tables", night_tables, "--family", "gemm", "--arch", "sm90",
                 "--spec", os.path.join(src, "tests/data/sweeps/tiny_gemm.json"), "--format", "json"]
    env = dict(os.environ, GDTUNE_WORKER_EXE=worker)
    add(doc_of(night + ["--date", "20261201", "--update"], env=env, ok=(3,)))
    env.update(GDT_TEST_SLOW_CELL="m=512", GDT_TEST_OURS_US="12", GDT_TEST_ROUNDS="confirm",
               FAKE_DEVICE="Other GPU")  # another device than the first night's: device_changed
    second = doc_of(night + ["--date", "20261202"], env=env, ok=(3,))
    add(second)
    with open(second["confirm_json"]) as f:
        add(json.load(f))
    # the summaries of sweep, merge, tables emit and tables check
    runs = summaries(src, g, worker, tmp, add)
    # the journals: every committed one, the nights' and the stand-in sweeps'
    for base in ("runs", "tests/data/journals"):
        for d, _, files in os.walk(os.path.join(src, base)):
            for name in sorted(files):
                if ".jsonl" in name:
                    journal_records(os.path.join(d, name), emitted)
    for top in [os.path.join(root, "runs")] + runs:
        for d, _, files in os.walk(top):
            for name in files:
                if name == "journal.jsonl":
                    journal_records(os.path.join(d, name), emitted)
    # bench, assembled from its builders (no GPU here)
    add(doc_of([bench_doc, "doc"]))
    # autotune, assembled from its builder (no GPU here)
    add(doc_of([autotune_doc, "doc"]))
    return emitted


# ------------------------------------------------------------ the comparison

def compare(docs, emitted):
    bad = []
    for doc_id in sorted(set(docs) | set(emitted)):
        if doc_id not in docs:
            bad.append(f"{doc_id}: emitted, but docs/fields.md has no <!-- fields: {doc_id} --> table")
            continue
        if doc_id not in emitted:
            if not all(docs[doc_id].values()):
                bad.append(f"{doc_id}: documented, but no input of this test emits it")
            continue
        pats = [(p, pattern(p), opt) for p, opt in docs[doc_id].items()]
        seen = set()
        for e in sorted(emitted[doc_id]):
            hit = [p for p, rx, _ in pats if rx.match(e)]
            if not hit:
                bad.append(f"{doc_id}: /{e}: emitted, not documented")
            seen.update(hit)
        for p, _, opt in pats:
            if p not in seen and not opt:
                bad.append(f"{doc_id}: /{p}: documented, not emitted (mark it {DAGGER} if only a GPU or a "
                           "failure writes it)")
    return bad


def main():
    if len(sys.argv) != 6 or not os.path.isdir(sys.argv[1]):
        die_usage()
    src, exe, worker, bench_doc, autotune_doc = sys.argv[1:]
    docs = documented(os.path.join(src, "docs/fields.md"))
    with tempfile.TemporaryDirectory(prefix="gdt_fields_") as tmp:
        emitted = emit_all(src, exe, worker, bench_doc, autotune_doc, tmp)
    bad = compare(docs, emitted)
    for b in bad:
        print("test_fields: docs/fields.md: " + b)
    n = sum(len(v) for v in docs.values())
    print(f"test_fields: {len(docs)} documents, {n} documented paths, {len(bad)} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
