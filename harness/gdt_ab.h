/* `gdtune compare FAMILY --plan A --plan B`: two plans of one cell in one
 * process, through harness/trial.c (one trial cell: the same buffers, the
 * same reference, the same execute a sweep times).  Both are verified,
 * then measured in interleaved rounds A, B, A, B, ... so that a drift of
 * the clocks over the run reaches both alike; each round's ratio pairs the
 * two measurements taken next to each other.  The schedule and the
 * statistics are host code, testable without a GPU. */
#ifndef GDT_AB_H
#define GDT_AB_H

#include <stdint.h>

#include "gdt_measure.h"
#include "gdtune/gdtune.h"

#define GDT_AB_ROUNDS_MAX 100

/* The measurement order of rounds rounds: order[2 * rounds] of 0 (A) and
 * 1 (B), A first in every round. */
void gdt_ab_schedule(int rounds, int *order);

typedef struct gdt_ab_stats {
    int rounds;
    double a_us, b_us;  /* median over the rounds of each plan's device time per call */
    /* Per round, B's time over A's (A's throughput over B's: > 1 when A is
     * faster); the median of those, the relative spread of that median
     * (gdt_stats_rel_spread) and the extremes. */
    double ratio, spread, lo, hi;
} gdt_ab_stats;

/* a_us[i] and b_us[i]: round i's times, rounds >= 1. */
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
