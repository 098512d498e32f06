/* Racing's bars (harness/race.c): the cell's best by GDT_RACE_MARGIN until
 * three plans and one of the side's are measured in full, then the slower
 * of the third best and the side's best by GDT_RACE_TOP_MARGIN when that
 * line is lower; through gdt_measure_raced_out, what stops and what goes on. */
#include <math.h>

#include "gdt_race.h"
#include "gdt_test.h"

#define OURS GDT_PLAN_SIDE_OURS
#define BACKEND GDT_PLAN_SIDE_BACKEND
#define LIBRARY GDT_PLAN_SIDE_LIBRARY

/* Would a first estimate of est_us (spread 0.001) of this side stop? */
static bool stops(const gdt_race_marks *m, gdt_plan_side side, double est_us)
{
    gdt_race_mark bar;
    double margin;
    return gdt_race_bar(m, side, &bar, &margin) &&
           gdt_measure_raced_out(est_us, 0.001, bar.us, bar.noise, margin);
}

/* Is this side's bar us with margin? */
static bool bar_is(const gdt_race_marks *m, gdt_plan_side side, double us, double margin)
{
    gdt_race_mark bar;
    double got;
    return gdt_race_bar(m, side, &bar, &got) && bar.us == us && got == margin;
}

static void test_nothing_measured(void)
{
    gdt_race_marks m = {0};
    gdt_race_mark bar;
    double margin;
    CHECK(!gdt_race_bar(&m, OURS, &bar, &margin));
    gdt_race_note(&m, OURS, 0, 0.01);   /* not a time: ignored */
    gdt_race_note(&m, OURS, NAN, 0.01);
    CHECK(!gdt_race_bar(&m, OURS, &bar, &margin));
}

/* Fewer than three measured: only the best's 10% bar. */
static void test_best_bar(void)
{
    gdt_race_marks m = {0};
    gdt_race_note(&m, BACKEND, 100, 0.001);
    gdt_race_note(&m, BACKEND, 101, 0.001);
    CHECK(bar_is(&m, BACKEND, 100, GDT_RACE_MARGIN));
    CHECK(!stops(&m, BACKEND, 105));
    CHECK(stops(&m, BACKEND, 115));
}

/* Three backend plans near-tied: a fourth 5% slower stops against the
 * third best; a plan of a side with nothing measured goes on (it may be its
 * side's best) until its side has a mark. */
static void test_top_bar(void)
{
    gdt_race_marks m = {0};
    gdt_race_note(&m, BACKEND, 102, 0.001);
    gdt_race_note(&m, BACKEND, 100, 0.001);
    gdt_race_note(&m, LIBRARY, 101, 0.001);
    CHECK(bar_is(&m, BACKEND, 102, GDT_RACE_TOP_MARGIN));
    CHECK(m.top[0].us == 100 && m.top[1].us == 101 && m.top[2].us == 102);
    CHECK(stops(&m, BACKEND, 107));
    CHECK(!stops(&m, BACKEND, 103)); /* within the 2% of the third */
    CHECK(!stops(&m, OURS, 107));    /* ours has no mark yet */
    CHECK(bar_is(&m, OURS, 100, GDT_RACE_MARGIN));
    /* ours' best at 105 (out of the top three): ours race against it */
    gdt_race_note(&m, OURS, 105, 0.001);
    CHECK(bar_is(&m, OURS, 105, GDT_RACE_TOP_MARGIN));
    CHECK(!stops(&m, OURS, 104)); /* faster than ours' best: may be the new side best */
    CHECK(stops(&m, OURS, 108));
    /* a side best past the best's 10% line: the best's bar is the lower */
    gdt_race_marks far = m;
    far.side_best[LIBRARY] = (gdt_race_mark){120, 0.001};
    CHECK(bar_is(&far, LIBRARY, 100, GDT_RACE_MARGIN));
    CHECK(stops(&far, LIBRARY, 115));
    /* a faster plan pushes the third out */
    gdt_race_note(&m, OURS, 99, 0.001);
    CHECK(m.top[0].us == 99 && m.top[2].us == 101 && m.side_best[OURS].us == 99);
    CHECK(stops(&m, BACKEND, 103.5));
}

/* A noisy third best: its line above the best's 10% line keeps the best's. */
static void test_noisy_third(void)
{
    gdt_race_marks m = {0};
    gdt_race_note(&m, BACKEND, 100, 0.001);
    gdt_race_note(&m, BACKEND, 101, 0.001);
    gdt_race_note(&m, BACKEND, 102, 0.2);
    CHECK(bar_is(&m, BACKEND, 100, GDT_RACE_MARGIN));
}

int main(void)
{
    test_nothing_measured();
    test_best_bar();
    test_top_bar();
    test_noisy_third();
    return gdt_test_result("test_race");
}
