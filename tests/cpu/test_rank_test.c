/* The Mann-Whitney U test (harness/rank_test.c): exact below 8 values in
 * the smaller sample, against the classical tables of critical values
 * (two-sided, alpha 0.05: the largest U whose p is at most 0.05) and
 * p-values counted by hand; with ties, the permutation distribution of the
 * pooled mid-ranks; the normal approximation from 8 per side. */
#include <math.h>
#include <stdio.h>

#include "gdt_rank_test.h"
#include "gdt_test.h"

/* Two samples from the pooled values 1..n1+n2: a holds the positions
 * given (ascending), b the rest, so U = sum over a of the b values below. */
static void split(const int *pos, int n1, int n2, double *a, double *b)
{
    for (int v = 1, i = 0, j = 0; v <= n1 + n2; v++)
        if (i < n1 && pos[i] == v) a[i++] = v;
        else b[j++] = v;
}

static double p_of(const double *a, int na, const double *b, int nb, double u_expected)
{
    gdt_rank_test r;
    gdt_error e = {0};
    CHECK_INT(gdt_rank_test_mann_whitney(a, na, b, nb, &r, &e), ==, GDT_STATUS_OK);
    CHECK_NEAR(r.u, u_expected, 0);
    return r.p;
}

/* The critical value tables: the U at the table's value has p <= 0.05,
 * one more has p > 0.05, each p as the enumeration of C(n, n1) orders
 * gives it. */
static void test_tables(void)
{
    static const struct {
        int n1, n2, pos_crit[7], pos_next[7];
        double u_crit, p_crit, p_next;
    } rows[] = {
        /* 5 and 5: critical U 2, P(U <= 2) = 4/252 */
        {5, 5, {1, 2, 3, 4, 7}, {1, 2, 3, 4, 8}, 2, 8.0 / 252, 14.0 / 252},
        /* 4 and 6: critical U 2, P(U <= 2) = 4/210 */
        {4, 6, {1, 2, 3, 6}, {1, 2, 3, 7}, 2, 8.0 / 210, 14.0 / 210},
        /* 6 and 6: critical U 5, P(U <= 5) = 19/924 */
        {6, 6, {1, 2, 3, 4, 5, 11}, {1, 2, 3, 4, 5, 12}, 5, 38.0 / 924, 60.0 / 924},
        /* 7 and 7: critical U 8, P(U <= 8) = 130/3432 */
        {7, 7, {1, 2, 3, 4, 5, 9, 12}, {1, 2, 3, 4, 5, 10, 12}, 8, 130.0 / 3432, 182.0 / 3432},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double a[7], b[7];
        split(rows[i].pos_crit, rows[i].n1, rows[i].n2, a, b);
        double p = p_of(a, rows[i].n1, b, rows[i].n2, rows[i].u_crit);
        CHECK_NEAR(p, rows[i].p_crit, 1e-12);
        CHECK(p <= 0.05);
        split(rows[i].pos_next, rows[i].n1, rows[i].n2, a, b);
        p = p_of(a, rows[i].n1, b, rows[i].n2, rows[i].u_crit + 1);
        CHECK_NEAR(p, rows[i].p_next, 1e-12);
        CHECK(p > 0.05);
    }
}

static void test_exact_values(void)
{
    gdt_rank_test r;
    gdt_error e = {0};
    /* Complete separation, 3 and 3: 2 of the 20 orders are as extreme. */
    const double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    CHECK_NEAR(p_of(a, 3, b, 3, 0), 0.1, 1e-15);
    CHECK_NEAR(p_of(b, 3, a, 3, 9), 0.1, 1e-15);
    /* Ties: {1,2,2} against {2,3,4}: mid-ranks 1, 3, 3, 3, 5, 6; the first
     * sample's sum 7 is the least of the 20 draws of three, reached by 3. */
    const double c[] = {1, 2, 2}, d[] = {2, 3, 4};
    CHECK_NEAR(p_of(c, 3, d, 3, 1), 0.3, 1e-15);
    /* A small sample beside a large one (the smaller side's sum is used):
     * 3 against 20, complete separation, 2 of C(23, 3) = 1771. */
    double big[20], small[] = {1, 2, 3};
    for (int i = 0; i < 20; i++) big[i] = 4 + i;
    CHECK_NEAR(p_of(small, 3, big, 20, 0), 2.0 / 1771, 1e-15);
    CHECK_NEAR(p_of(big, 20, small, 3, 60), 2.0 / 1771, 1e-15);
    CHECK_INT(gdt_rank_test_mann_whitney(big, 20, small, 3, &r, &e), ==, GDT_STATUS_OK);
    CHECK(r.exact);
    /* All tied: every draw has the same sum, p = 1. */
    const double t[] = {2, 2, 2};
    CHECK_NEAR(p_of(t, 3, t, 2, 3), 1, 0);
}

/* From 8 values per side: the normal approximation with the tie and
 * continuity corrections. */
static void test_normal(void)
{
    gdt_rank_test r;
    gdt_error e = {0};
    const double s[] = {5, 1, 4, 2, 3, 6, 8, 7};
    CHECK_INT(gdt_rank_test_mann_whitney(s, 8, s, 8, &r, &e), ==, GDT_STATUS_OK);
    CHECK(!r.exact);
    CHECK_NEAR(r.u, 32, 0);
    CHECK_NEAR(r.p, 1, 0);
    double a[8], b[8];
    for (int i = 0; i < 8; i++) a[i] = i + 1, b[i] = i + 9;
    CHECK_INT(gdt_rank_test_mann_whitney(a, 8, b, 8, &r, &e), ==, GDT_STATUS_OK);
    /* U = 0, mean 32, variance 64 * 17 / 12: z = 31.5 / sqrt(90.667) */
    CHECK_NEAR(r.p, erfc(31.5 / sqrt(64.0 * 17 / 12) / sqrt(2.0)), 1e-12);
    CHECK_INT(gdt_rank_test_mann_whitney(a, 0, b, 3, &r, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "got 0 and 3 values");
}

int main(void)
{
    test_tables();
    test_exact_values();
    test_normal();
    return gdt_test_result("test_rank_test");
}
