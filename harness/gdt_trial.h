/* One cell on the device, as the sweep's worker and `gdtune bench` both run
 * it: the problem's buffers (random inputs from a seed, poisoned outputs,
 * trial state), a stream, and the cell's reference; then, per plan, build,
 * verify and measure through libgdtune's graph API (gdt_graph_build,
 * gdt_graph_execute: the path a user's call takes, operand checks
 * included).  One reference policy for both:
 *
 *   - shapes up to GDT_TRIAL_CPU_REFERENCE_FLOPS also get the fp64 CPU
 *     reference;
 *   - the reference is the first mode-A backend entry of the graph's list
 *     that builds, runs and (when there is a CPU reference) agrees with it,
 *     kept in the outputs' device format (a large GEMM's C is 235M elements);
 *   - with no such entry, the CPU reference alone; with neither, the cell
 *     has no reference (NOT_SUPPORTED).
 *
 * Runs only where there is a GPU. */
#ifndef GDT_TRIAL_H
#define GDT_TRIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gdt_measure.h"
#include "gdt_verify.h"
#include "gdtune/plan.h"

/* Above this the fp64 CPU reference takes more than a few seconds on one
 * core. */
#define GDT_TRIAL_CPU_REFERENCE_FLOPS 2e9
/* Graphs of one trial a slowdown may be planted on at once. */
#define GDT_TRIAL_SLOW_MAX 16

typedef struct gdt_trial {
    gdt_problem problem;
    gdt_device_props dev;
    gdt_buffers *buf;
    void *stream;              /* cudaStream_t, non-blocking */
    const char *who;           /* prefix of the notes on stderr ("gdtune worker") */
    /* the reference, once gdt_trial_reference succeeded */
    gdt_verifier *ref;
    char ref_name[400];        /* the backend plan's name, or "cpu-fp64" */
    bool ref_is_cpu;           /* the fp64 CPU reference itself */
    bool ref_cpu_checked;      /* a backend reference that agreed with the CPU's */
    /* Planted slowdowns (gdt_plant.h): gdt_trial_measure of slow_g[i]
     * follows each call with a spin of slow_cycles[i] SM cycles (-1: not yet
     * calibrated), which makes it slow_f[i] slower (gdt_trial_slow). */
    const gdt_graph *slow_g[GDT_TRIAL_SLOW_MAX];
    double slow_f[GDT_TRIAL_SLOW_MAX];
    long long slow_cycles[GDT_TRIAL_SLOW_MAX];
    int nslow;
    gdt_clock_probe *spin; /* the spin's kernel, made at the first planted measurement */
} gdt_trial;

gdt_status gdt_trial_create(const gdt_problem *p, const gdt_device_props *dev, uint64_t seed,
                            const char *who, gdt_trial **out, gdt_error *e);
void gdt_trial_destroy(gdt_trial *t);

/* An entry the reference may come from: the backend's own mode-A entries. */
bool gdt_trial_reference_candidate(const gdt_plan_entry *x);

/* Finds the cell's reference among g's entries (policy above).  g's
 * selection is left pinned on the reference plan. */
gdt_status gdt_trial_reference(gdt_trial *t, gdt_graph *g, gdt_error *e);

/* gdt_graph_prebuild of every plan of g's list on up to `threads` threads,
 * with the options gdt_trial_build uses (threads <= 1: nothing). */
gdt_status gdt_trial_prebuild(gdt_trial *t, gdt_graph *g, int threads, int *prebuilt, gdt_error *e);

/* gdt_graph_build of g as selected, pinned or replayed (build walks the
 * list otherwise), then the workspace grown to what the plan asks.
 * *build_s: wall time of the build (of a prebuilt plan: its build on its
 * builder thread). */
gdt_status gdt_trial_build(gdt_trial *t, gdt_graph *g, int *built_index, double *build_s,
                           gdt_error *e);

/* Runs g's built plan once on poisoned outputs and compares them with the
 * reference: INCORRECT names the operand, the error and the bound.  err[i]
 * is output i's relative L2 error (family order), *nerr the outputs. */
gdt_status gdt_trial_verify(gdt_trial *t, gdt_graph *g, double err[4], int *nerr, gdt_error *e);

/* One execute of g's built plan on the trial's stream (not drained). */
gdt_status gdt_trial_execute(gdt_trial *t, gdt_graph *g, gdt_error *e);

/* Measures g's built plan from a drained queue (gdt_measure_trials), every
 * sample from the same buffer contents.  o->l2_bytes is the device's. */
gdt_status gdt_trial_measure(gdt_trial *t, gdt_graph *g, const gdt_measure_opts *o,
                             gdt_measure_result *r, gdt_measure_clocks *clocks, gdt_error *e);

/* Plants a slowdown of fraction on g's timed executes (a spin after each
 * call of gdt_trial_measure, calibrated on g's plan at its first
 * measurement; verification is never slowed); 0 removes it.
 * Call it for a graph before it is destroyed or rebuilt as another plan.
 * INTERNAL when GDT_TRIAL_SLOW_MAX graphs are slowed already. */
gdt_status gdt_trial_slow(gdt_trial *t, const gdt_graph *g, double fraction, gdt_error *e);

#endif
