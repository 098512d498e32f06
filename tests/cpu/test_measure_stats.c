/* The measurement statistics and stopping logic, without a GPU: the median,
 * the relative spread (half-width of the median's ~95% order-statistic
 * interval over the median), the stop/converge rule and the clock gate. */
#include <math.h>

#include "gdt_measure.h"
#include "gdt_test.h"

#define CHECK_NEAR(a, b, tol)                                                              \
    do {                                                                                   \
        double x_ = (a), y_ = (b);                                                         \
        if (!(fabs(x_ - y_) <= (tol))) {                                                   \
            fprintf(stderr, "%s:%d: CHECK_NEAR(%s, %s) failed: %.17g vs %.17g\n", __FILE__, \
                    __LINE__, #a, #b, x_, y_);                                             \
            gdt_test_failures++;                                                           \
        }                                                                                  \
    } while (0)

static void test_median(void)
{
    CHECK_NEAR(gdt_stats_median((double[]){4, 1, 3, 2}, 4), 2.5, 0);
    CHECK_NEAR(gdt_stats_median((double[]){9, 1, 5}, 3), 5, 0);
    CHECK_NEAR(gdt_stats_median((double[]){7}, 1), 7, 0);
    CHECK(isnan(gdt_stats_median(NULL, 0)));
}

static void test_rel_spread(void)
{
    /* n=5: ranks floor(2.5-2.19)=0 -> 1 and ceil(4.69)=5: (5-1)/2 / 3 */
    CHECK_NEAR(gdt_stats_rel_spread((double[]){3, 5, 1, 4, 2}, 5), 2.0 / 3.0, 1e-15);
    /* 1..100: ranks 40 and 60, half-width 10 over the median 50.5 */
    double x[100];
    for (int i = 0; i < 100; i++)
        x[i] = 100 - i;
    CHECK_NEAR(gdt_stats_rel_spread(x, 100), 10 / 50.5, 1e-15);
    /* one wild outlier in twenty leaves the median's interval untouched */
    for (int i = 0; i < 20; i++)
        x[i] = i == 7 ? 1000 : 10;
    CHECK_NEAR(gdt_stats_rel_spread(x, 20), 0.0, 0);
    CHECK(isinf(gdt_stats_rel_spread(x, 1)));
    CHECK(isinf(gdt_stats_rel_spread((double[]){0, 0, 0}, 3)));
}

static void test_should_stop(void)
{
    gdt_measure_opts o;
    gdt_measure_opts_default(&o);
    CHECK_INT(o.nbursts, ==, 4);
    CHECK_INT(o.bursts[3], ==, 64);
    CHECK_NEAR(o.target_rel, 0.005, 0);
    bool conv;
    CHECK(!gdt_measure_should_stop(4, 0.0, 10.0, 1.0, &o, &conv)); /* below min_samples */
    CHECK(conv);
    CHECK(gdt_measure_should_stop(5, 0.004, 0.1, 1.0, &o, &conv));
    CHECK(conv);
    CHECK(!gdt_measure_should_stop(5, 0.01, 0.1, 1.0, &o, &conv));
    CHECK(!conv);
    CHECK(gdt_measure_should_stop(5, 0.01, 1.0, 1.0, &o, &conv)); /* time share spent */
    CHECK(!conv);
    CHECK(gdt_measure_should_stop(GDT_MAX_SAMPLES, INFINITY, 0.0, 1.0, &o, &conv));
    CHECK(!conv);
}

/* Deterministic noise in [-1, 1). */
static double noise(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / 8388608.0 - 1.0;
}

/* Runs the stopping rule over synthetic samples 100 * (1 + amp * noise);
 * returns the count at which it stopped. */
static int simulate(double amp, bool *conv)
{
    gdt_measure_opts o;
    gdt_measure_opts_default(&o);
    double x[GDT_MAX_SAMPLES];
    unsigned s = 12345;
    int n = 0;
    for (;;) {
        x[n] = 100 * (1 + amp * noise(&s));
        n++;
        if (gdt_measure_should_stop(n, gdt_stats_rel_spread(x, n), 0.0, 1.0, &o, conv))
            return n;
    }
}

static void test_convergence(void)
{
    bool conv;
    int n = simulate(0.01, &conv); /* +-1%: the median settles within 0.5% quickly */
    CHECK(conv);
    CHECK_INT(n, >=, 5);
    CHECK_INT(n, <=, 60);
    n = simulate(0.6, &conv); /* +-60%: never within 0.5%, stops at the sample cap */
    CHECK(!conv);
    CHECK_INT(n, ==, GDT_MAX_SAMPLES);
    n = simulate(0.0, &conv);
    CHECK(conv);
    CHECK_INT(n, ==, 5);
}

static void test_clock_gate(void)
{
    CHECK(!gdt_clock_ok(1700, 1980, 0.9));
    CHECK(gdt_clock_ok(1782, 1980, 0.9));
    CHECK(gdt_clock_ok(1500, 0, 0.9)); /* no rated clock known: nothing to compare with */
    CHECK_NEAR(GDT_CLOCK_THRESHOLD, 0.90, 0);
}

/* Bad options are refused before any device work, naming the value. */
static void test_bad_opts(void)
{
    gdt_measure_opts o;
    gdt_measure_opts_default(&o);
    gdt_measure_result *r = calloc(1, sizeof *r);
    gdt_error e;
    o.nbursts = 0;
    CHECK_INT(gdt_measure(NULL, NULL, &o, r, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "measure: 0 burst sizes, expected 1..8");
    gdt_measure_opts_default(&o);
    o.bursts[2] = 0;
    CHECK_INT(gdt_measure(NULL, NULL, &o, r, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "measure: burst size 0 (index 2) outside 1..100000");
    gdt_measure_opts_default(&o);
    o.min_samples = 0;
    CHECK_INT(gdt_measure(NULL, NULL, &o, r, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "measure: min_samples 0 outside 1..200");
    free(r);
}

int main(void)
{
    test_median();
    test_rel_spread();
    test_should_stop();
    test_convergence();
    test_clock_gate();
    test_bad_opts();
    return gdt_test_result("test_measure_stats");
}
