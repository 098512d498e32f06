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
 * removed here.  Private to the harness and reports. */
#ifndef GDT_RUN_H
#define GDT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "gdt_journal.h"
#include "gdt_measure.h"
#include "gdt_limits.h"
#include "gdt_spec.h"
#include "gdtune/gdtune.h"
#include "gdtune/tables.h"

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
    const cJSON *json;      /* the plan object (engine_id, knobs, name, ...) */
    gdt_plan_id id;
    const char *name, *tag; /* tag: A, B, FALLBACK, KNOB, OURS or LIBRARY */
    bool backend;
    int untimed;            /* its position in the untimed order */
} gdt_run_plan;

/* A result's traced burst (--cupti: gdt_cupti.h) as its record holds it;
 * kernel NULL: no main kernel recorded (no trace, or one from before
 * 2026-12-02), the other figures then unset. */
typedef struct gdt_run_traced {
    int burst;              /* the traced burst's size */
    double kernels;         /* kernels per call */
    const char *kernel;     /* the main kernel's name */
    double share;           /* its share of the kernel time, 0..1 */
    int grid[3];            /* its launch grid, 1 where not recorded */
    int cluster[3];         /* its cluster shape; cluster[0] 0: no clusters */
} gdt_run_traced;

/* A plan's result; rec is NULL while the plan has none.  The typed fields
 * are the record's (run.c reads them; no reader outside it needs rec). */
typedef struct gdt_run_result {
    const cJSON *rec;
    int line;
    gdt_disposition disposition;
    const char *error;
    double time_us, noise;  /* verified: device time per call at the largest burst, > 0 */
    double host_us;         /* host enqueue per call at the first burst (0: not measured) */
    int samples;            /* device samples at the largest burst */
    bool again;             /* a re-measure's (its record has clock_outlier) */
    bool raced_out;         /* verified: stopped by racing at an estimate */
    bool converged;         /* verified: its metric series met the target */
    double verify_err[4];   /* relative errors per output, NaN where not finite */
    int nerr;               /* how many (0: not verified against the reference) */
    gdt_run_traced traced;
} gdt_run_result;

/* A cell's rounds record (--rounds): its top plans measured again together
 * in interleaved rounds, after the cell's last result.  rec is NULL when
 * the cell has none. */
typedef struct gdt_run_rounds {
    const cJSON *rec;
    int line;
    int plans[GDT_ROUNDS_PLANS_MAX], nplans; /* indices in the cell's list, fastest first */
    int rounds;
    const char *error;      /* "" when measured; else why not, and no times */
    double time_us[GDT_ROUNDS_PLANS_MAX], noise[GDT_ROUNDS_PLANS_MAX];
} gdt_run_rounds;

typedef struct gdt_run_cell {
    bool journaled;         /* its cell record was read */
    int line;               /* of the cell record */
    const gdt_sweep_cell *spec; /* the spec's cell: family, shape, problem */
    const cJSON *plans;     /* the plans array as journaled, NULL until listed */
    const char *reference;  /* the plans record's reference plan ("" if none) */
    double prebuild_s;      /* the plans record's prebuild wall time (0: none, or not journaled) */
    int prebuilt;           /* the plans it prebuilt */
    gdt_run_plan *plan;
    gdt_run_result *result; /* nplans entries: the series that counts */
    /* nplans entries: of a plan measured again for its clock (a result
     * record with clock_outlier, gdt_metric_clock.h), the series that does
     * not count; rec NULL where the plan was measured once. */
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
} gdt_run_device;

typedef struct gdt_run {
    char path[4096];        /* the journal file */
    const cJSON *header;    /* the run record */
    const char *family;     /* the FAMILY argument it swept ("gemm", "sdpa", ...) */
    const char *source_digest, *candidates_digest, *started, *gdtune_version;
    bool quick;
    int arch;
    const cJSON *device;    /* name, arch, uuid, versions, ... */
    gdt_run_device dev;     /* what of it the readers take, typed */
    const char *candidates; /* the candidate table's text; NULL: not kept (older journals) */
    gdt_run_options options;
    const cJSON *prior;     /* the header's prior order (gdt_prior.h); NULL: none (null with
                               --no-prior, absent in journals before it) */
    const cJSON *argv;      /* the header's argv: the invocation as given, an array of
                               strings ("gdtune", "sweep", ...); NULL: not recorded (older journals) */
    gdt_sweep_spec *spec;   /* the header's spec, its cells filtered by family and shard */
    gdt_run_cell *cells;    /* spec->ncells entries, in spec order */
    int ncells;
    int results, counts[GDT_DISP_COUNT];
    gdt_journal_tail tail;  /* where the whole records end; a torn record left out */
    cJSON **records;        /* every record read, owned */
    int nrecords;
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

/* Plan pi's time per call and noise as the tables and `compare` take
 * them: the cell's rounds' figures when the plan is in its measured rounds
 * (measured together, so drift over the sweep reached them alike), else its
 * result's.  True for a rounds figure. */
bool gdt_run_plan_figures(const gdt_run_cell *c, int pi, double *time_us, double *noise);

/* Plan pi as the tables take it (emit, and summary.md's decision): its
 * figures as above, the noise at least the spec's floor; the mode is the
 * emitter's to set. */
gdt_measured_plan gdt_run_plan_measured(const gdt_run_cell *c, int pi, double floor);


#endif
