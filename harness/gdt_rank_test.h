/* The Mann-Whitney U test (Wilcoxon rank-sum) of two independent samples,
 * as google-benchmark's compare.py applies it to repetitions: does one
 * plan's time distribution sit above the other's?  `gdtune tables diff
 * --runs` runs it on the raw device-time samples of two journals.
 * Private to the harness. */
#ifndef GDT_RANK_TEST_H
#define GDT_RANK_TEST_H

#include <stdbool.h>

#include "gdtune/gdtune.h"

typedef struct gdt_rank_test {
    double u;   /* U of the first sample: pairs (a_i, b_j) with a_i > b_j, ties counted 1/2 */
    double z;   /* the normal deviate after the continuity correction (0 when |U - mean| <= 1/2) */
    double p;   /* two-sided p-value */
    bool exact; /* p from the exact null distribution, not the normal approximation */
} gdt_rank_test;

/* The exact test applies when the smaller sample has fewer values than
 * this and both together at most GDT_RANK_EXACT_MAX_N. */
#define GDT_RANK_EXACT_BELOW 8
#define GDT_RANK_EXACT_MAX_N 1000

/* Two-sided test.  When the smaller sample has fewer than
 * GDT_RANK_EXACT_BELOW values (and n1 + n2 <= GDT_RANK_EXACT_MAX_N), p is
 * exact: the smaller sample's rank sum is compared with its distribution
 * over every way of drawing that many of the pooled mid-ranks (with ties,
 * the permutation distribution given the ties; without, the classical
 * tables), p = min(1, 2 min(P(S <= s), P(S >= s))), as SciPy's
 * mannwhitneyu(method="exact").  Otherwise the normal approximation of U,
 * with the variance corrected for ties (sigma^2 = n1 n2/12 * ((n+1) -
 * sum(t^3 - t)/(n(n-1)))) and a continuity correction of 1/2, close to
 * exact from 8 per side.  All values tied: p = 1.  BAD_USAGE when a sample
 * is empty or holds a non-finite value, NO_MEMORY. */
gdt_status gdt_rank_test_mann_whitney(const double *a, int na, const double *b, int nb,
                                      gdt_rank_test *out, gdt_error *e);

#endif
