/* `gdtune compare RUNDIR...`: generated against handwritten plans, from the
 * sweep's own measurements (harness/compare_runs.c).
 *
 * Cells are matched by problem key across the run directories; per cell
 * and per side (generated: NVRTC engines; handwritten: hand engines; the
 * cuDNN backend; the cuBLASLt library) the best verified plan by device time per call at the
 * largest burst, and the side's candidate budget.  Every figure compared is
 * one execute of a plan timed by the sweep in one scope, so the model
 * refuses runs whose scope differs: another burst list, another device
 * model, or a key that names two different problems.  Private to the
 * harness and the CLI. */
#ifndef GDT_COMPARE_RUNS_H
#define GDT_COMPARE_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "gdt_run.h"
#include "gdtune/gdtune.h"

/* X(id, name in text and JSON, the engine kind it collects) */
#define GDT_SIDES(X)                                 \
    X(GENERATED, "generated", GDT_ENGINE_NVRTC)      \
    X(HAND, "handwritten", GDT_ENGINE_HAND)          \
    X(CUDNN, "cudnn", GDT_ENGINE_CUDNN)              \
    X(CUBLASLT, "cublaslt", GDT_ENGINE_CUBLASLT)

typedef enum gdt_side {
#define GDT_SIDE_ENUM(id, name, kind) GDT_SIDE_##id,
    GDT_SIDES(GDT_SIDE_ENUM)
#undef GDT_SIDE_ENUM
    GDT_SIDE_COUNT /* also: a plan of no side (a test engine, an id this build does not know) */
} gdt_side;

const char *gdt_side_name(gdt_side s);
/* The side of a journaled plan, through the manifest (NULL: the default). */
gdt_side gdt_side_of(const gdt_manifest *m, const gdt_run_plan *p);

/* A side's candidate budget in one cell (summed over the runs). */
typedef struct gdt_side_budget {
    int listed;              /* plans in the cell's lists */
    int tried;               /* with a result */
    int counts[GDT_DISP_COUNT];
    int raced_out;           /* verified, measured only to a first estimate */
    const char *why;         /* the first non-verified plan's error, NULL if none */
    const char *why_plan;
    int64_t why_engine_id;   /* its engine id */
} gdt_side_budget;

/* A side's winner: the verified plan of least time_us, its figures as the
 * tables take them (gdt_run_plan_figures: the cell's rounds' when it is in
 * them).  A plan in the cell's rounds wins over any plan out of them: the
 * rounds hold each kind's fastest, and a figure from them is only
 * comparable with another from them. */
typedef struct gdt_side_best {
    int run;                 /* index of its run (-1: no verified plan) */
    const gdt_run_plan *plan;
    const gdt_run_result *result; /* NULL: the side has no verified plan */
    double time_us, noise;
    double mhz;              /* the median SM clock of its series' largest burst (0: none recorded,
                                or its figures are its cell's rounds') */
    double cell_mhz;         /* the clock time_us is at (gdt_run_plan_clock; 0: its series' own time) */
    bool rounds;             /* time_us and noise are its cell's rounds' */
    bool raced_out;          /* its time is a first estimate only */
    double verify_err[4];    /* relative L2 error of each output, family order */
    int nerr;
} gdt_side_best;

typedef struct gdt_compare_cell {
    char key[512];
    gdt_problem problem;
    const char *shape;       /* the first run's text */
    const char *reference;   /* the first plans record's reference plan ("" if none) */
    int run, cell;           /* where it was first found */
    gdt_side_budget budget[GDT_SIDE_COUNT + 1]; /* the last: plans of no side */
    gdt_side_best best[GDT_SIDE_COUNT];
} gdt_compare_cell;

typedef struct gdt_comparison {
    unsigned families;       /* 1u << gdt_family kept */
    gdt_run **runs;
    char **dirs;
    int nruns;
    gdt_compare_cell *cells; /* in order of first appearance */
    int ncells, cap;
} gdt_comparison;

/* families: the --family mask (0: every family). */
gdt_status gdt_comparison_create(unsigned families, gdt_comparison **out, gdt_error *e);
void gdt_comparison_destroy(gdt_comparison *c);

/* Loads dir's journal (the strict reader) and adds its cells.  BAD_INPUT
 * naming both directories when its scope differs from the first run's
 * (bursts, device model) or a key of it names another problem than the
 * cell already held under that key; BAD_USAGE for a directory named
 * twice. */
gdt_status gdt_comparison_add(gdt_comparison *c, const char *dir, gdt_error *e);

/* Whether p, found in dir under have's key, may join have (first found in
 * have_dir); else BAD_INPUT naming what differs (family, dtype, shape). */
gdt_status gdt_compare_cell_match(const gdt_compare_cell *have, const char *have_dir, const char *dir,
                                  const gdt_problem *p, gdt_error *e);

/* The ratio of side to base: side's winner's time over base's (< 1 when
 * side's winner is faster, docs/fields.md) and its relative noise (the two plans' relative noise
 * summed, first order, as the tables' ratios; noise may be NULL).  False
 * unless both have a winner. */
bool gdt_compare_versus(const gdt_side_best *side, const gdt_side_best *base, double *ratio, double *noise);
/* The cell's ratio: handwritten time / generated time, by gdt_compare_versus. */
bool gdt_compare_ratio(const gdt_compare_cell *c, double *ratio, double *noise);

/* Whether a beats b beyond their combined noise (the tables' rule: faster
 * by more than noise_a * t_a + noise_b * t_b), and the verdict of the two
 * winners by it. */
bool gdt_compare_beats(const gdt_side_best *a, const gdt_side_best *b);
typedef enum gdt_verdict {
    GDT_VERDICT_NONE,        /* a side has no winner */
    GDT_VERDICT_GENERATED,   /* generated faster beyond noise */
    GDT_VERDICT_HAND,        /* handwritten faster beyond noise */
    GDT_VERDICT_TIED,        /* within noise */
} gdt_verdict;
gdt_verdict gdt_compare_verdict(const gdt_compare_cell *c);
const char *gdt_verdict_text(gdt_verdict v);

/* The roles the bound parameters are compared by: one knob each. */
typedef struct gdt_compare_role {
    const char *role;        /* "tile_m" */
    int knob;                /* GDT_KNOB_TILE_M */
    const char *meaning;
} gdt_compare_role;
extern const gdt_compare_role gdt_compare_roles[];
extern const int gdt_compare_nroles;
/* Knobs of p no role holds, as "K=V, K=V" ("" when none). */
void gdt_compare_other_knobs(const gdt_plan_id *p, char *buf, size_t n);

/* What one execute of the plan holds (the timing scope): its kernels in
 * launch order for NVRTC templates (from the template table) and hand
 * engines, cuDNN's execution plan otherwise.  Returns the kernel count (0:
 * decided by cuDNN). */
int gdt_compare_scope(const gdt_run_plan *p, char *buf, size_t n);

/* What a `--cupti` trace of the result saw (its `cupti` object), as text:
 * the kernels per call and the main kernel's name, grid, cluster and share
 * of the kernel time.  false (buf "") when the result has no trace or no
 * main kernel (journals before 2026-12-02, sweeps without --cupti). */
bool gdt_compare_traced(const gdt_run_result *r, char *buf, size_t n);

#endif
