/* Interleaved rounds: k plans of one cell measured P1, P2, ..., Pk, P1, ...
 * in one process, through harness/trial.c (one trial cell: the same
 * buffers, the same reference, the same execute a sweep times), so that a
 * drift of the clocks over the run reaches them alike; each round's ratios
 * pair measurements taken next to each other.  `gdtune compare FAMILY
 * --plan A --plan B` is k = 2 (gdt_ab_run), `gdtune sweep --rounds` a
 * cell's top plans (the worker's "rounds" op).  The schedule and the
 * statistics are host code, testable without a GPU. */
#ifndef GDT_AB_H
#define GDT_AB_H

#include <stdint.h>

#include "gdt_measure.h"
#include "gdt_limits.h"
#include "gdt_trial.h"
#include "gdtune/gdtune.h"

#define GDT_AB_ROUNDS_MAX GDT_ROUNDS_MAX

/* The measurement order of k plans in rounds rounds: order[k * rounds],
 * 0, 1, ..., k-1 in every round. */
void gdt_rounds_schedule(int k, int rounds, int *order);

typedef struct gdt_rounds_stats {
    int k, rounds;
    double time_us[GDT_ROUNDS_PLANS_MAX];  /* median over the rounds of each plan's time */
    /* Per round, plan i's time over plan 0's: the median of those, its
     * relative spread (gdt_stats_rel_spread) and the extremes (plan 0's
     * are 1). */
    double ratio[GDT_ROUNDS_PLANS_MAX], ratio_spread[GDT_ROUNDS_PLANS_MAX];
    double lo[GDT_ROUNDS_PLANS_MAX], hi[GDT_ROUNDS_PLANS_MAX];
    /* Plan i's relative spread once each round's times are divided by
     * their geometric mean: what varies from round to round beyond the
     * drift common to all k.  For k = 2 the two sum to the ratio's spread
     * (to first order), as compare sums two plans' noise. */
    double noise[GDT_ROUNDS_PLANS_MAX];
} gdt_rounds_stats;

/* us[i][r]: plan i's time in round r; 2 <= k <= GDT_ROUNDS_PLANS_MAX,
 * rounds >= 1 (at most GDT_ROUNDS_MAX are read). */
void gdt_rounds_stats_compute(const double *const *us, int k, int rounds, gdt_rounds_stats *out);

/* Plan id replayed on a graph of its own (planned as the cell's mode-A
 * list, so that a backend plan resolves) and built on t.  *g is the
 * caller's to destroy, built or not. */
gdt_status gdt_rounds_plan_build(gdt_trial *t, const gdt_plan_id *id, gdt_graph **g, gdt_error *e);

/* g[0..k) measured in the schedule, one gdt_trial_measure of mo per plan
 * and round: us[i][r] receives plan i's device time per call in round r
 * (gdt_measure_best_us). */
gdt_status gdt_rounds_measure(gdt_trial *t, gdt_graph *const *g, int k, int rounds,
                              const gdt_measure_opts *mo, double *const *us, gdt_error *e);

/* The A/B's order: gdt_rounds_schedule with k = 2, 0 (A) first. */
void gdt_ab_schedule(int rounds, int *order);

typedef struct gdt_ab_stats {
    int rounds;
    double a_us, b_us;  /* median over the rounds of each plan's device time per call */
    /* Per round, A's time over B's (the ratio, docs/fields.md: < 1 when A
     * is faster); the median of those, the relative spread of that median
     * (gdt_stats_rel_spread) and the extremes. */
    double ratio, spread, lo, hi;
} gdt_ab_stats;

/* a_us[i] and b_us[i]: round i's times, rounds >= 1 (gdt_rounds_stats_compute
 * of the two). */
void gdt_ab_stats_compute(const double *a_us, const double *b_us, int rounds, gdt_ab_stats *out);

typedef struct gdt_ab_opts {
    gdt_problem problem;
    const char *plan[2];    /* names, as gdtune plans prints them */
    int rounds;
    gdt_measure_opts mo;    /* one round's measurement of one plan */
    uint64_t seed;
} gdt_ab_opts;

typedef struct gdt_ab_result {
    char reference[400];    /* the cell's reference plan, or "cpu-fp64" */
    double verify_err[2][4];
    int nerr;
    double a_us[GDT_AB_ROUNDS_MAX], b_us[GDT_AB_ROUNDS_MAX];
    gdt_ab_stats stats;
    char device[128];
} gdt_ab_result;

/* On device 0: the reference, both plans replayed, built and verified,
 * then the rounds.  Needs a GPU. */
gdt_status gdt_ab_run(const gdt_ab_opts *o, gdt_ab_result *out, gdt_error *e);

#endif
