/* The Mann-Whitney U test (gdt_rank_test.h). */
#include <math.h>
#include <stdlib.h>

#include "gdt_rank_test.h"

typedef struct ranked {
    double v;
    int first; /* 1: from the first sample */
} ranked;

static int ranked_cmp(const void *pa, const void *pb)
{
    double a = ((const ranked *)pa)->v, b = ((const ranked *)pb)->v;
    return (a > b) - (a < b);
}

/* Twice each pooled value's mid-rank (an integer: ranks i+1..j of a group
 * of ties average to (i+1+j)/2) and twice the rank sum of the values of
 * sample `first` (1: the first). */
static long doubled_ranks(const ranked *x, int n, int first, int *r2)
{
    long sum = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && x[j].v == x[i].v) j++;
        for (int k = i; k < j; k++) {
            r2[k] = i + 1 + j;
            sum += x[k].first == first ? r2[k] : 0;
        }
        i = j;
    }
    return sum;
}

/* The exact two-sided p of a rank sum s (doubled) of k of the n doubled
 * ranks r2: ways[j][t] counts the j-subsets of the ranks seen so far whose
 * doubled sum is t (knapsack order, j and t downwards). */
static gdt_status exact_p(const int *r2, int n, int k, long s, double *p, gdt_error *e)
{
    size_t top = 2 * (size_t)n * (size_t)k + 1;
    double *ways = calloc((size_t)(k + 1) * top, sizeof *ways), lo = 0, hi = 0, all = 0;
    if (!ways) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "Mann-Whitney U: out of memory");
    ways[0] = 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1 < k ? i + 1 : k; j >= 1; j--)
            for (size_t t = top - 1; t >= (size_t)r2[i]; t--)
                ways[(size_t)j * top + t] += ways[(size_t)(j - 1) * top + t - (size_t)r2[i]];
    for (size_t t = 0; t < top; t++) {
        double w = ways[(size_t)k * top + t];
        all += w;
        lo += (long)t <= s ? w : 0;
        hi += (long)t >= s ? w : 0;
    }
    free(ways);
    *p = fmin(1.0, 2 * fmin(lo, hi) / all);
    return GDT_STATUS_OK;
}

/* Mid-ranks over the pooled sorted values: the first sample's rank sum and
 * sum(t^3 - t) over the groups of ties. */
static void rank_sums(const ranked *x, int n, double *r1, double *ties)
{
    *r1 = *ties = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && x[j].v == x[i].v) j++;
        double mid = (i + 1 + j) / 2.0, t = j - i; /* ranks i+1..j */
        for (int k = i; k < j; k++)
            if (x[k].first) *r1 += mid;
        *ties += t * t * t - t;
        i = j;
    }
}

gdt_status gdt_rank_test_mann_whitney(const double *a, int na, const double *b, int nb,
                                      gdt_rank_test *out, gdt_error *e)
{
    if (na < 1 || nb < 1)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "Mann-Whitney U: expected two non-empty "
                             "samples, got %d and %d values", na, nb);
    int n = na + nb;
    ranked *x = malloc((size_t)n * sizeof *x);
    if (!x) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "Mann-Whitney U: out of memory");
    for (int i = 0; i < n; i++) {
        x[i] = i < na ? (ranked){a[i], 1} : (ranked){b[i - na], 0};
        if (!isfinite(x[i].v)) {
            double v = x[i].v;
            free(x);
            return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "Mann-Whitney U: value %d of sample %s "
                                 "is %g (expected a finite number)", i < na ? i : i - na,
                                 i < na ? "a" : "b", v);
        }
    }
    qsort(x, (size_t)n, sizeof *x, ranked_cmp);
    double r1, ties;
    rank_sums(x, n, &r1, &ties);
    double n1 = na, n2 = nb, u = r1 - n1 * (n1 + 1) / 2, mean = n1 * n2 / 2;
    double var = n > 1 ? n1 * n2 / 12 * ((n + 1) - ties / ((double)n * (n - 1))) : 0;
    double dev = fabs(u - mean) - 0.5;
    out->u = u;
    out->z = var > 0 && dev > 0 ? dev / sqrt(var) : 0;
    out->p = erfc(out->z / sqrt(2.0));
    int k = na < nb ? na : nb, *r2 = NULL;
    out->exact = k < GDT_RANK_EXACT_BELOW && n <= GDT_RANK_EXACT_MAX_N;
    gdt_status s = GDT_STATUS_OK;
    if (out->exact && !(r2 = malloc((size_t)n * sizeof *r2)))
        s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "Mann-Whitney U: out of memory");
    else if (out->exact) /* the smaller sample's sum: the first's when na <= nb */
        s = exact_p(r2, n, k, doubled_ranks(x, n, na <= nb, r2), &out->p, e);
    free(r2);
    free(x);
    return s;
}
