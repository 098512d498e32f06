/* The journal's model: one strict reader of RUNDIR/journal.jsonl for
 * resume, `tables emit`, `merge`, `report` and raw.h5, with one set of
 * rules (sweeps/README.md "The run directory" documents the format).
 *
 * Every record is parsed by the strict JSON reader (exact-case keys, no
 * duplicate keys, no NUL byte, no text after the object) and checked
 * against its record type's field table, the one the writer checks too
 * (gdt_record.h: required fields, types, ranges, no unknown field, the
 * record-local rules), then against the run: the header comes first and
 * carries a spec that parses and matches its digest; a cell record names a
 * cell of that spec; plans follow their cell, results and attempts their
 * plans; one plan list per cell, one result per plan (and at most one
 * re-measure, a result with clock_outlier, after it: gdt_run_cell.other); a rounds record
 * follows its cell's last result and names plans measured in full.  Any damage before
 * the last record is BAD_INPUT "journal.jsonl:LINE: /json/path: expected
 * ..., got ...".  Only the last record may be torn (it does not parse:
 * a write cut short); it is left out and reported in torn_bytes, never
 * removed here.
 *
 * What the records hold comes out typed (gdt_run_result, gdt_run_rounds,
 * gdt_run_plan, gdt_run_device, gdt_run_prior, ...), read once here after
 * each record's checks: no reader outside run.c sees a record's JSON.
 * Private to the harness and reports. */
#ifndef GDT_RUN_H
#define GDT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdt_cupti.h"
#include "gdt_journal.h"
#include "gdt_measure.h"
#include "gdt_limits.h"
#include "gdt_spec.h"
#include "gdtune/gdtune.h"

/* What became of one plan: the worker's verdict (CUTLASS profiler's
 * dispositions). */
#define GDT_DISPOSITIONS(X)      \
    X(VERIFIED, "verified")      \
    X(INCORRECT, "incorrect")    \
    X(FAILED, "failed")          \
    X(DECLINED, "declined")

typedef enum gdt_disposition {
#define GDT_DISP_ENUM(id, name) GDT_DISP_##id,
    GDT_DISPOSITIONS(GDT_DISP_ENUM)
#undef GDT_DISP_ENUM
    GDT_DISP_COUNT
} gdt_disposition;

const char *gdt_disposition_name(gdt_disposition d);
/* false when s names no disposition (exact case). */
bool gdt_disposition_parse(const char *s, gdt_disposition *out);

/* The record types, in the order a run writes them. */
#define GDT_RECORD_TYPES(X)      \
    X(RUN, "run")                \
    X(RESUME, "resume")          \
    X(CELL, "cell")              \
    X(CELL_ERROR, "cell_error")  \
    X(PLANS, "plans")            \
    X(ATTEMPT, "attempt")        \
    X(RESULT, "result")          \
    X(ROUNDS, "rounds")

typedef enum gdt_record_type {
#define GDT_REC_ENUM(id, name) GDT_REC_##id,
    GDT_RECORD_TYPES(GDT_REC_ENUM)
#undef GDT_REC_ENUM
    GDT_REC_COUNT
} gdt_record_type;

const char *gdt_record_type_name(gdt_record_type t);

/* One plan of a cell's list, as journaled. */
typedef struct gdt_run_plan {
    gdt_plan_id id;
    const char *name, *tag; /* tag: A, B, FALLBACK, KNOB, OURS or LIBRARY */
    bool backend;
    int untimed;            /* its position in the untimed order */
} gdt_run_plan;

/* A result's traced burst (--cupti: gdt_cupti.h) as its record holds it;
 * recorded false: no trace (the record has no cupti object).  c.main.name
 * "": no main kernel recorded (no trace, or one from before 2026-12-02),
 * its figures then 0; a name is cut at GDT_CUPTI_NAME_MAX - 1 bytes, as
 * the tracer cuts it. */
typedef struct gdt_run_traced {
    bool recorded;          /* the record has a cupti object */
    int burst;              /* the traced burst's size */
    gdt_cupti_burst c;      /* its figures per call and main kernel (calls unset) */
} gdt_run_traced;

/* One burst of a result as journaled (gdt_wire.h's burst object): the
 * samples per call, NaN for a median the record left out. */
typedef struct gdt_run_burst {
    int burst;              /* calls per sample */
    int dropped;            /* samples dropped (0: not recorded) */
    const double *host_us, *device_us, *total_us;
    int nhost, ndevice, ntotal;
    const double *clock_mhz; /* the SM clock after each sample; NULL: not recorded */
    int nclock;
    double median_host_us, median_device_us, rel_spread; /* NaN: not recorded */
} gdt_run_burst;

/* What the clock probe saw while a plan was measured (NaN where not recorded). */
typedef struct gdt_run_clocks {
    bool recorded;          /* the record has a clocks object */
    double rated_mhz, min_mhz, max_mhz;
} gdt_run_clocks;

/* A plan's result; journaled false while the plan has none.  Every field
 * is the record's, read once by run.c after the record's table and rule
 * passed; nothing outside the codec reads the record itself. */
typedef struct gdt_run_result {
    bool journaled;         /* the plan has this result record */
    int line;
    gdt_disposition disposition;
    const char *error;
    double time_us, noise;  /* verified: device time per call at the largest burst, > 0 */
    double host_us;         /* host enqueue per call at the first burst (0: not measured) */
    int samples;            /* device samples at the largest burst */
    bool again;             /* a re-measure's (its record has clock_outlier) */
    bool raced_out;         /* verified: stopped by racing at an estimate */
    bool raced_late;        /* raced out after its metric was measured */
    bool converged;         /* verified: its metric series met the target */
    /* The worker's seconds (NaN: not recorded): building the plan, measuring
     * it, heating the GPU before it; and the SM clock the heat reached. */
    double build_s, measure_s, heat_s, heat_mhz;
    /* Relative errors per output, NaN where not finite; has_verify_err
     * false: the record has none (not verified against the reference). */
    const double *verify_err;
    int nerr;
    bool has_verify_err;
    const gdt_run_burst *bursts; /* in the record's order */
    int nbursts;
    const double *cold_us;  /* device time with L2 flushed; NULL: not recorded */
    int ncold;
    gdt_run_clocks clocks;
    gdt_run_traced traced;
} gdt_run_result;

/* A cell's rounds record (--rounds): its top plans measured again together
 * in interleaved rounds, after the cell's last result.  journaled is false when
 * the cell has none. */
typedef struct gdt_run_rounds {
    bool journaled;         /* the cell has its rounds record */
    int line;
    int plans[GDT_ROUNDS_PLANS_MAX], nplans; /* indices in the cell's list, fastest first */
    int rounds;
    const char *error;      /* "" when measured; else why not, and no times */
    double time_us[GDT_ROUNDS_PLANS_MAX], noise[GDT_ROUNDS_PLANS_MAX];
    double measure_s;       /* the rounds' seconds (NaN: not recorded) */
} gdt_run_rounds;

typedef struct gdt_run_cell {
    bool journaled;         /* its cell record was read */
    int line;               /* of the cell record */
    const gdt_sweep_cell *spec; /* the spec's cell: family, shape, problem */
    bool listed;            /* its plans record was read (plan, result, other) */
    const char *reference;  /* the plans record's reference plan ("" if none) */
    double prebuild_s;      /* the plans record's prebuild wall time (0: none, or not journaled) */
    int prebuilt;           /* the plans it prebuilt */
    gdt_run_plan *plan;
    gdt_run_result *result; /* nplans entries: the series that counts */
    /* nplans entries: of a plan measured again for its clock (a result
     * record with clock_outlier, gdt_metric_clock.h), the series that does
     * not count; journaled false where the plan was measured once. */
    gdt_run_result *other;
    int nplans, nresults;
    const char *error;      /* its cell_error, NULL if none */
    gdt_run_rounds rounds;
} gdt_run_cell;

/* The header's settings, checked with the command line's ranges. */
typedef struct gdt_run_options {
    int bursts[GDT_MAX_BURSTS];
    int nbursts;
    double target_rel, max_plan_seconds, deadline;
    int knob_cap, shard_i, shard_n;
    bool race;              /* plans raced (gdt_measure_raced_out); false: every plan in full */
    bool cupti;             /* --cupti: a traced burst per plan (absent in older journals: off) */
    int rounds;             /* --rounds (absent: 0, off) */
    /* Where the shard came from ("--shard 1/4", "SLURM job array: ..."); "" or
     * NULL: not recorded (unsharded, or a journal older than the field). */
    const char *shard_source;
    /* A planted slowdown (gdt_plant.h) in gdt_plant_format's text; "" or
     * NULL: none (absent from the header). */
    const char *planted;
} gdt_run_options;

/* The header's device as the tables' provenance, summary.md and compare
 * name it: "" and 0 where the journal left a field out. */
typedef struct gdt_run_device {
    const char *name, *uuid;
    int arch;               /* the device object's (required) */
    int sm_count;           /* 0: not recorded */
    int driver_version, cuda_version, cudnn_version, nvrtc_version;
    int64_t l2_bytes, sm_clock_khz, mem_clock_khz; /* 0: not recorded */
} gdt_run_device;

/* One table of the header's prior order (gdt_prior.h): used then, with its
 * digest, or not, with the note why. */
typedef struct gdt_run_prior_table {
    gdt_family family;
    const char *path;
    const char *sha256;     /* NULL: not used (note says why) */
    const char *note;       /* "" when used */
} gdt_run_prior_table;

typedef struct gdt_run_prior {
    bool recorded;          /* false: none (null with --no-prior, absent in journals before it) */
    const char *dir;
    gdt_run_prior_table tables[GDT_FAMILY_COUNT];
    int ntables;
} gdt_run_prior;

typedef struct gdt_run {
    char path[4096];        /* the journal file */
    const char *family;     /* the FAMILY argument it swept ("gemm", "sdpa", ...) */
    const char *source_digest, *candidates_digest, *started, *gdtune_version;
    const char *spec_source, *spec_digest, *spec_text; /* the header's spec as journaled */
    bool quick;
    int arch;
    gdt_run_device dev;     /* the header's device, typed */
    const char *candidates; /* the candidate table's text; NULL: not kept (older journals) */
    gdt_run_options options;
    gdt_run_prior prior; /* the header's prior, typed */
    /* The header's argv, the invocation as given ("gdtune", "sweep", ...);
     * argc 0: not recorded (journals before 2026-12-06). */
    const char *const *args;
    int argc;
    gdt_sweep_spec *spec;   /* the header's spec, its cells filtered by family and shard */
    gdt_run_cell *cells;    /* spec->ncells entries, in spec order */
    int ncells;
    int results, counts[GDT_DISP_COUNT];
    gdt_journal_tail tail;  /* where the whole records end; a torn record left out */
    /* Every record read and the typed fields' arrays, owned; private to
     * run.c (the typed fields' strings point into the records). */
    struct gdt_run_store *store;
} gdt_run;

/* Reads and checks <dir>/journal.jsonl.  NOT_FOUND-like failures (no such
 * directory or journal) are BAD_INPUT naming the path. */
gdt_status gdt_run_load(const char *dir, gdt_run **out, gdt_error *e);
/* The same from text; name is the journal's path in messages.  (The fuzz
 * target's entry.) */
gdt_status gdt_run_parse(const char *text, size_t len, const char *name, gdt_run **out,
                         gdt_error *e);
/* gdt_run_load for the writer's own journal (a sweep's, once it ends):
 * what the reader refuses there is the writer's failure, INTERNAL (exit
 * 1), the reader's message "<path>:LINE: /json/path: ..." kept. */
gdt_status gdt_run_readback(const char *dir, gdt_run **out, gdt_error *e);
void gdt_run_destroy(gdt_run *r);

/* The cell's plans that have a result, and whether every plan has one (a
 * cell a killed sweep cut short is incomplete). */
bool gdt_run_cell_complete(const gdt_run_cell *c);

/* Plan pi's first series: its first result, whichever of its series counts. */
const gdt_run_result *gdt_run_first_series(const gdt_run_cell *c, int pi);

/* The result's burst of the largest size (the metric's; the first of
 * equals), NULL when it has none. */
const gdt_run_burst *gdt_run_largest_burst(const gdt_run_result *res);

/* The header's value at a JSON pointer of one or two levels
 * ("/options/rounds") as compact JSON text into *json (the caller frees
 * it), NULL when the header has none there: for checks that runs share
 * header values field by field (tables merge) without reading the
 * header's JSON.  NO_MEMORY only. */
gdt_status gdt_run_header_value(const gdt_run *r, const char *pointer, char **json, gdt_error *e);


#endif
