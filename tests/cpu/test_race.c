/* Racing's bars (harness/race.c): no race while fewer than three plans of
 * the cell are measured in full, nor for a plan of an engine kind with
 * nothing measured in full; else the slower of the cell's third best and
 * the kind's best by GDT_RACE_TOP_MARGIN; through gdt_measure_raced_out,
 * what stops and what goes on. */
#include <math.h>

#include "gdt_race.h"
#include "gdt_test.h"

#define CUDNN GDT_ENGINE_CUDNN
#define NVRTC GDT_ENGINE_NVRTC
#define HAND GDT_ENGINE_HAND
#define LT GDT_ENGINE_CUBLASLT

/* Would a first estimate of est_us (spread 0.001) of this kind stop? */
static bool stops(const gdt_race_marks *m, gdt_engine_kind kind, double est_us)
{
    gdt_race_mark bar;
    double margin;
    return gdt_race_bar(m, kind, &bar, &margin) &&
           gdt_measure_raced_out(est_us, 0.001, bar.us, bar.noise, margin);
}

/* Is this kind's bar us with margin? */
static bool bar_is(const gdt_race_marks *m, gdt_engine_kind kind, double us, double margin)
{
    gdt_race_mark bar;
    double got;
    return gdt_race_bar(m, kind, &bar, &got) && bar.us == us && got == margin;
}

static void test_nothing_measured(void)
{
    gdt_race_marks m = {0};
    gdt_race_mark bar;
    double margin;
    CHECK(!gdt_race_bar(&m, CUDNN, &bar, &margin));
    gdt_race_note(&m, CUDNN, 0, 0.01);   /* not a time: ignored */
    gdt_race_note(&m, CUDNN, NAN, 0.01);
    gdt_race_note(&m, GDT_ENGINE_KIND_COUNT, 50, 0.01); /* no kind: ignored */
    CHECK(!gdt_race_bar(&m, CUDNN, &bar, &margin));
}

/* Fewer than three measured in full: no race, however slow the estimate
 * (it may be the cell's third best); the third sets the bar. */
static void test_fewer_than_three(void)
{
    gdt_race_marks m = {0};
    gdt_race_mark bar;
    double margin;
    gdt_race_note(&m, CUDNN, 100, 0.001);
    gdt_race_note(&m, CUDNN, 101, 0.001);
    CHECK(!gdt_race_bar(&m, CUDNN, &bar, &margin));
    CHECK(!stops(&m, CUDNN, 115)); /* raced out at the best's 10% until 2026-12-03 */
    gdt_race_note(&m, CUDNN, 115, 0.001);
    CHECK(bar_is(&m, CUDNN, 115, GDT_RACE_TOP_MARGIN));
    CHECK(!stops(&m, CUDNN, 112)); /* would be the third */
    CHECK(stops(&m, CUDNN, 120));
}

/* A kind with nothing measured in full is not raced, however slow its
 * estimate: it may be its kind's best, which `compare` and the tables
 * need measured in full.  Once it has a mark past the third best's line,
 * its plans race against that mark: one faster may be the kind's new best. */
static void test_kind_unmeasured(void)
{
    gdt_race_marks m = {0};
    gdt_race_mark bar;
    double margin;
    gdt_race_note(&m, CUDNN, 100, 0.001);
    gdt_race_note(&m, CUDNN, 101, 0.001);
    gdt_race_note(&m, CUDNN, 102, 0.001);
    CHECK(!gdt_race_bar(&m, HAND, &bar, &margin));
    CHECK(!stops(&m, HAND, 200));
    gdt_race_note(&m, HAND, 120, 0.001);
    CHECK(bar_is(&m, HAND, 120, GDT_RACE_TOP_MARGIN));
    CHECK(!stops(&m, HAND, 115)); /* faster than the hand best */
    CHECK(stops(&m, HAND, 125));
    CHECK(bar_is(&m, CUDNN, 102, GDT_RACE_TOP_MARGIN)); /* other kinds keep the cell's bar */
    CHECK(!gdt_race_bar(&m, NVRTC, &bar, &margin));
}

/* Three plans near-tied: a fourth 5% slower stops against the third best;
 * a kind's best out of the top three is its kind's bar. */
static void test_top_bar(void)
{
    gdt_race_marks m = {0};
    gdt_race_note(&m, CUDNN, 102, 0.001);
    gdt_race_note(&m, CUDNN, 100, 0.001);
    gdt_race_note(&m, LT, 101, 0.001);
    CHECK(bar_is(&m, CUDNN, 102, GDT_RACE_TOP_MARGIN));
    CHECK(m.top[0].us == 100 && m.top[1].us == 101 && m.top[2].us == 102);
    CHECK(stops(&m, CUDNN, 107));
    CHECK(!stops(&m, CUDNN, 103)); /* within the 2% of the third */
    CHECK(bar_is(&m, LT, 102, GDT_RACE_TOP_MARGIN));
    /* the generated kind's best at 105 (out of the top three) */
    gdt_race_note(&m, NVRTC, 105, 0.001);
    CHECK(bar_is(&m, NVRTC, 105, GDT_RACE_TOP_MARGIN));
    CHECK(!stops(&m, NVRTC, 104)); /* faster than its kind's best */
    CHECK(stops(&m, NVRTC, 108));
    /* a kind's best past the third's line: its own line is the bar */
    gdt_race_marks far = m;
    far.kind_best[LT] = (gdt_race_mark){120, 0.001};
    CHECK(bar_is(&far, LT, 120, GDT_RACE_TOP_MARGIN));
    CHECK(stops(&far, LT, 125));
    CHECK(!stops(&far, LT, 115));
    /* a faster plan pushes the third out */
    gdt_race_note(&m, NVRTC, 99, 0.001);
    CHECK(m.top[0].us == 99 && m.top[2].us == 101 && m.kind_best[NVRTC].us == 99);
    CHECK(stops(&m, CUDNN, 103.5));
}

/* A noisy third best: its spread widens the line (the plan past it is past
 * the third beyond both noises), and a third far behind the best is still
 * the bar: a plan between them may be the third. */
static void test_noisy_third(void)
{
    gdt_race_marks m = {0};
    gdt_race_note(&m, CUDNN, 100, 0.001);
    gdt_race_note(&m, CUDNN, 101, 0.001);
    gdt_race_note(&m, CUDNN, 102, 0.2);
    CHECK(bar_is(&m, CUDNN, 102, GDT_RACE_TOP_MARGIN));
    CHECK(!stops(&m, CUDNN, 120));
    CHECK(stops(&m, CUDNN, 130));
    gdt_race_marks far = {0};
    gdt_race_note(&far, CUDNN, 100, 0.001);
    gdt_race_note(&far, CUDNN, 101, 0.001);
    gdt_race_note(&far, CUDNN, 114, 0.001);
    CHECK(!stops(&far, CUDNN, 112)); /* past the best's 10%, yet faster than the third */
    CHECK(stops(&far, CUDNN, 118));
}

/* The rounds' plans: the three fastest measured in full, then each kind's
 * fastest (a raced-out or unmeasured plan, 0, never), fastest first. */
static void test_rounds_pick(void)
{
    /*                      0      1    2     3    4     5    6     7    8 */
    double us[] = {100, 101, 0, 102, 103, 140, 150, 120, 99};
    gdt_engine_kind kind[] = {CUDNN, LT, HAND, CUDNN, LT, HAND, HAND, NVRTC, CUDNN};
    int pick[GDT_ROUNDS_PLANS_MAX], n = gdt_rounds_pick(us, kind, 9, pick);
    /* top three: 8 (99), 0 (100), 1 (101); kinds' bests beyond: nvrtc 7
     * (120), hand 5 (140); cuDNN's and cuBLASLt's are in the top three */
    CHECK_INT(n, ==, 5);
    int want[] = {8, 0, 1, 7, 5};
    for (int i = 0; i < n && i < 5; i++)
        CHECK_INT(pick[i], ==, want[i]);
    /* ties go by index; a plan of no kind only as one of the top three */
    double tie[] = {10, 10, 10, 10, 30};
    gdt_engine_kind k2[] = {CUDNN, CUDNN, CUDNN, CUDNN, GDT_ENGINE_KIND_COUNT};
    n = gdt_rounds_pick(tie, k2, 5, pick);
    CHECK_INT(n, ==, 3);
    CHECK(pick[0] == 0 && pick[1] == 1 && pick[2] == 2);
    double one[] = {0, 5};
    CHECK_INT(gdt_rounds_pick(one, kind, 2, pick), ==, 1);
}

int main(void)
{
    test_nothing_measured();
    test_fewer_than_three();
    test_kind_unmeasured();
    test_top_bar();
    test_noisy_third();
    test_rounds_pick();
    return gdt_test_result("test_race");
}
