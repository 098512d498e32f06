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
    free(x);
    double n1 = na, n2 = nb, u = r1 - n1 * (n1 + 1) / 2, mean = n1 * n2 / 2;
    double var = n > 1 ? n1 * n2 / 12 * ((n + 1) - ties / ((double)n * (n - 1))) : 0;
    double dev = fabs(u - mean) - 0.5;
    out->u = u;
    out->z = var > 0 && dev > 0 ? dev / sqrt(var) : 0;
    out->p = erfc(out->z / sqrt(2.0));
    return GDT_STATUS_OK;
}
