/* The journal's writer (harness/run_write.c), in a header of its own so
 * that the reader (run.c, gdt_run.h) and the writer reach the record
 * tables (record.c) each, and never each other. */
#ifndef GDT_RUN_WRITE_H
#define GDT_RUN_WRITE_H

#include "gdt_run.h"

/* The journal's one writer (run_write.c): one function per record type,
 * each building its record from typed values with the names above and
 * appending it (gdt_journal_append: durable on return).  The keys are the
 * reader's, in the order sweeps have always written them; what the worker
 * measured is copied through as it sent it.  Any failure to build a record
 * is NO_MEMORY; a record its table refuses (gdt_record.h: what the reader
 * would refuse) is INTERNAL naming the JSON path; either way nothing is
 * appended. */

/* The gdtune invocation as given: v[0] "gdtune", v[1] the verb, then its
 * arguments (n of them in all); v NULL: not recorded (the key left out). */
typedef struct gdt_run_argv {
    const char *const *v;
    int n;
} gdt_run_argv;

/* The run header.  gdtune_version and source_digest are this build's. */
typedef struct gdt_run_header_rec {
    const char *started;            /* UTC, "YYYY-MM-DDTHH:MM:SSZ" */
    const char *family;             /* the FAMILY argument */
    bool quick;
    const gdt_sweep_spec *spec;     /* its source, digest and text */
    const char *candidates_digest;
    const char *candidates;         /* the candidate table's text; NULL: left out */
    int arch;
    const cJSON *device;            /* the first worker's hello device object */
    const char *const *gpus;        /* each worker's device UUID, in lane order */
    int ngpus;
    gdt_run_options options;
    const cJSON *prior;             /* gdt_prior_json: the prior order used, or JSON null */
    gdt_run_argv argv;              /* what started the run (the header's argv) */
} gdt_run_header_rec;

/* A plan's result.  measured is the worker's reply (NULL when the sweep
 * decided the plan failed without one): its fields are written in its
 * order but for "op" (the protocol's) and disposition and error, which
 * are the typed ones, written where the reply had them. */
/* A plan's second series, measured again for its clock (gdt_metric_clock.h):
 * its result record's clock_outlier. */
typedef struct gdt_run_clock_outlier {
    double first_mhz, cell_mhz;     /* the first series' median SM clock, its cell's */
    bool counts;                    /* this series counts, not the first */
} gdt_run_clock_outlier;

typedef struct gdt_run_result_rec {
    int cell, plan, gpu;            /* gpu: the lane that ran it */
    gdt_family family;
    const char *name;               /* the plan's */
    gdt_disposition disposition;
    const char *error;              /* "" when none */
    const cJSON *measured;
    const gdt_run_clock_outlier *clock_outlier; /* NULL: the plan's first result */
} gdt_run_result_rec;

gdt_status gdt_run_write_header(gdt_journal *j, const gdt_run_header_rec *h, gdt_error *e);
/* A resumed part: when it started, how many results the journal held,
 * its lanes' GPUs and the invocation that resumed it. */
gdt_status gdt_run_write_resume(gdt_journal *j, const char *started, int results_before,
                                const char *const *gpus, int ngpus, gdt_run_argv argv, gdt_error *e);
/* Records about cell ci of the spec (its family, shape and problem key). */
gdt_status gdt_run_write_cell(gdt_journal *j, int ci, const gdt_sweep_cell *c, gdt_error *e);
gdt_status gdt_run_write_cell_error(gdt_journal *j, int ci, const gdt_sweep_cell *c,
                                    const char *error, gdt_error *e);
/* The worker's prebuild of a cell (gdt_graph_prebuild): the threads asked,
 * the plans kept, its wall time. */
typedef struct gdt_run_prebuild {
    int threads, prebuilt;
    double seconds;
} gdt_run_prebuild;

/* plans: the worker's list, copied through (each identity written by the
 * codec, gdt_plan_json.h, and checked by the sweep when it came: a list in
 * another spelling never reaches here); reference: the reference
 * plan's name, reference_cpu: whether the fp64 CPU reference checked it,
 * prebuild: the cell's prebuild (each NULL where the worker did not say:
 * left out). */
gdt_status gdt_run_write_plans(gdt_journal *j, int ci, const gdt_sweep_cell *c, const cJSON *plans,
                               const char *reference, const bool *reference_cpu,
                               const gdt_run_prebuild *prebuild, gdt_error *e);
gdt_status gdt_run_write_attempt(gdt_journal *j, int ci, const gdt_sweep_cell *c, int plan,
                                 const char *name, gdt_error *e);
gdt_status gdt_run_write_result(gdt_journal *j, const gdt_run_result_rec *res, gdt_error *e);

/* A cell's rounds: which plans, how many rounds, and either what they
 * measured (error "") or why they did not (the arrays left out). */
typedef struct gdt_run_rounds_rec {
    int cell, gpu;
    const gdt_sweep_cell *spec;
    int plans[GDT_ROUNDS_PLANS_MAX], nplans;
    int rounds;
    const char *error;
    double time_us[GDT_ROUNDS_PLANS_MAX], noise[GDT_ROUNDS_PLANS_MAX];
    double ratios[GDT_ROUNDS_PLANS_MAX];
    const double *round_us[GDT_ROUNDS_PLANS_MAX]; /* rounds each */
    double seconds;
} gdt_run_rounds_rec;

gdt_status gdt_run_write_rounds(gdt_journal *j, const gdt_run_rounds_rec *r, gdt_error *e);

#endif
