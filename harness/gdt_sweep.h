/* The sweep: spec loading and cells (spec.c, gdt_spec.h), the run loop
 * through the worker (sweep.c), and the compile-only check (compile_only.c).  Private to the
 * harness; `gdtune sweep` (cli_sweep.c) is its command line.  This process
 * never touches the CUDA runtime: the worker does (compile-only uses NVRTC
 * alone). */
#ifndef GDT_SWEEP_H
#define GDT_SWEEP_H

#include <limits.h>
#include <stdio.h>

#include "gdt_limits.h"
#include "gdt_measure.h"
#include "gdt_spec.h"
#include "gdtune/candidates.h"
#include "gdtune/gdtune.h"

#define GDT_SWEEP_SCHEMA "gdtune.sweep/1"

/* --shape: at most this many in one sweep. */
#define GDT_SWEEP_SHAPES_MAX 16
/* --gpus: at most this many workers, one per device. */
#define GDT_GPUS_MAX 16
/* The default's ceiling: one less than the online CPUs up to this many
 * (the cuDNN plans that take a second to finalize compile kernels, and a
 * prebuild overlaps nothing). */
#define GDT_BUILD_THREADS_DEFAULT 16
#define GDT_SHARD_SOURCE_MAX 512

/* `gdtune sweep`'s exit code when the run completed (journal and tables
 * written) but some plan was incorrect. */
#define GDT_SWEEP_EXIT_INCORRECT 4

/* `gdtune sweep FAMILY --shape ...` (spec_shape.c): a spec whose one grid
 * is the product of the shapes' keys, each "k=v,..." where v is a value, a
 * list continued after commas ("m=128,256,n=4096": m 128 and 256) or a
 * range LO:HI:xF (LO, LO*F, ... up to HI) or LO:HI:+S (LO, LO+S, ...);
 * repeated shapes merge their keys, a key given twice is refused.  Every
 * other field is the base spec's (path NULL: the embedded one), its
 * "quick" subset dropped.  BAD_USAGE naming the shape, key and value (a
 * value the family refuses with the family's own message); *text is the
 * spec (malloc'd), which the journal header keeps as any spec. */
#define GDT_SWEEP_SHAPE_SOURCE "--shape"
#define GDT_SWEEP_SHAPE_VALUES_MAX 256 /* values of one key */
#define GDT_SWEEP_SHAPE_CELLS_MAX 4096 /* cells of the product */
gdt_status gdt_sweep_spec_shapes(const char *family_arg, const char *path, const char *const *shapes,
                                 int nshapes, char **text, gdt_error *e);

typedef struct gdt_sweep_opts {
    const char *family;       /* the FAMILY argument */
    const char *spec_path;    /* NULL: embedded default */
    bool quick;
    const char *out_dir;      /* NULL: runs/<family>-<timestamp> */
    const char *resume_dir;   /* continue this run (its header's settings win) */
    const char *tables_dir;   /* NULL: ./tables */
    const char *prior_dir;    /* --prior: tables whose rankings order each cell's plans
                                 (gdt_prior.h); NULL: tables_dir */
    bool no_prior;            /* --no-prior: untimed order */
    int bursts[GDT_MAX_BURSTS];
    int nbursts;              /* 0: spec or GDT_BURSTS_DEFAULT */
    double target_rel;        /* 0: spec or GDT_TARGET_REL_DEFAULT */
    double max_plan_seconds;  /* 0: spec or GDT_PLAN_SECONDS_DEFAULT */
    double deadline;          /* per plan, seconds; 0: build + verify + cap + margin */
    int knob_cap;             /* -1: spec or 8 */
    int shard_i, shard_n;     /* n = 0: every cell */
    bool exhaustive;          /* every plan measured in full (no racing) */
    bool cupti;               /* one CUPTI-traced burst per verified plan not raced out */
    int rounds;               /* 0: off; else a cell's top plans in that many interleaved rounds */
    bool shard_auto;          /* --shard auto: I and N from the scheduler (gdt_sweep_shard_auto) */
    int shards;               /* --shards N: auto's count, or a check of it; 0: none */
    char shard_source[GDT_SHARD_SOURCE_MAX]; /* where I/N came from; "" unsharded */
    bool compile_only;
    int arch;                 /* 0: the device's */
    int jobs;                 /* compile-only threads; 0: online CPUs */
    int gpus;                 /* workers, one per device of the first's model; 0: every device */
    const char *worker_exe;   /* NULL: /proc/self/exe */
    /* --tuning-config FILE: the candidate rows measured are the defaults
     * with FILE's families in place of theirs (gdt_sweep_rows_load); NULL:
     * the defaults.  A resumed run measures its header's rows. */
    const char *tuning_config;
    /* The gdtune invocation as given ("gdtune", "sweep", ...; argc items):
     * the header of a new run keeps it, the resume record of a resumed one
     * (never compared with the header's); NULL: not recorded. */
    const char *const *argv;
    int argc;
    /* --shape (repeatable): the cells without a spec file; shape_spec is the
     * spec gdt_sweep_spec_shapes built from them (NULL: the spec file's, or
     * the embedded one, gdt_sweep_spec_of). */
    const char *shapes[GDT_SWEEP_SHAPES_MAX];
    int nshapes;
    char *shape_spec;
} gdt_sweep_opts;

/* The candidate rows a sweep measures (sweep_rows.c): the embedded
 * defaults, with the families of tuning_config (--tuning-config; NULL:
 * none) in place of theirs, through the override `gdtune candidates` and
 * `plans` apply (gdt_rows_override).  A file that does not load is
 * BAD_INPUT, its message "--tuning-config: FILE: JSON path: expected ...,
 * got ...". */
gdt_status gdt_sweep_rows_table(const char *tuning_config, gdt_row_table **out, gdt_error *e);

/* Those rows as the run header keeps them and every worker's hello carries
 * them: text is a rows file (the embedded defaults' own text when no
 * tuning_config, else gdt_rows_print's), digest gdt_rows_digest's. */
typedef struct gdt_sweep_rows {
    char *text; /* malloc'd; NULL: none (a resumed journal from before the header kept them) */
    char digest[65];
} gdt_sweep_rows;
gdt_status gdt_sweep_rows_load(const char *tuning_config, gdt_sweep_rows *out, gdt_error *e);
/* A resumed run's: the rows its header records (text NULL: none), whose
 * digest the caller checked (gdt_emit_check_candidates). */
gdt_status gdt_sweep_rows_of_header(const char *text, const char *digest, gdt_sweep_rows *out,
                                    gdt_error *e);
void gdt_sweep_rows_free(gdt_sweep_rows *r);

/* The spec a sweep runs: shape_spec's, else --spec's, else the embedded one. */
gdt_status gdt_sweep_spec_of(const gdt_sweep_opts *o, gdt_sweep_spec **out, gdt_error *e);

void gdt_sweep_opts_default(gdt_sweep_opts *o);

/* Measures every plan of every cell through the worker, journals it, then
 * emits the tables from the journal (gdt_emit.h).  *journal receives the
 * finished journal as the model read it (the caller destroys it; raw.h5 is
 * the reports' job: the CLI writes it from that).  NO_DEVICE with the
 * user-facing message when the worker finds no device; BAD_USAGE when
 * --arch names another arch than the device's. *run_dir (may be NULL)
 * receives the run directory; *emitted (may be NULL) what the emission
 * of the tables read and wrote (gdt_emit.h; the caller frees it). */
struct gdt_run;
struct gdt_emit_report;
gdt_status gdt_sweep_run(const gdt_sweep_opts *o, char *run_dir, size_t nrun_dir,
                         struct gdt_run **journal, struct gdt_emit_report *emitted, gdt_error *e);

/* --compile-only: in this process, NVRTC only.  Returns OK when every
 * surviving row compiles; NVRTC when some did not (each reported on out). */
gdt_status gdt_sweep_compile_only(const gdt_sweep_opts *o, FILE *out, gdt_error *e);

/* Of a journaled cell's top plans (the `top` fastest verified, by time_us),
 * how many converged (their largest burst reached target_rel: the result's
 * `converged`).  Returns how many plans that top holds (fewer verified
 * plans than top: all of them). */
struct gdt_run_cell;
int gdt_sweep_top_converged(const struct gdt_run_cell *c, int top, int *converged);

/* --shard auto (shard_auto.c): I and N from the environment of the scheduler
 * that started this process: a SLURM job array (SLURM_ARRAY_TASK_ID, N from
 * shards or GDTUNE_SHARDS, else from SLURM_ARRAY_TASK_COUNT or _MAX of an
 * array of 0..N-1 with N > 1), a Kubernetes Indexed Job
 * (JOB_COMPLETION_INDEX, N from shards or GDTUNE_SHARDS), an MPI launcher
 * (OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE).  shards (--shards N, 0: none)
 * and GDTUNE_SHARDS must agree with what the scheduler says; a SLURM array
 * with them may hold any indices below N (a resubmitted one: --array=3).
 * source receives the variables used ("SLURM job array: SLURM_ARRAY_TASK_ID=2
 * ...").  BAD_USAGE naming the variables when none are set, one is not a
 * count, or two disagree.  env looks a variable up (getenv; tests pass
 * their own). */
typedef const char *(*gdt_env_fn)(const char *name);
gdt_status gdt_sweep_shard_auto(gdt_env_fn env, int shards, int *i, int *n, char *source,
                                size_t nsource, gdt_error *e);

#endif
