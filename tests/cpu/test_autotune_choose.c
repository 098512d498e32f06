/* Autotune's choice (engines/autotune_choose.c) on planted medians: the
 * list's first that ran stays unless another beats it by more than the
 * margin; a faster one beyond the margin wins; skipped candidates (declined,
 * failed, no median) are never chosen nor counted as the first; the
 * backend side's first that ran is reported; none ran is NOT_SUPPORTED
 * quoting the first reason; bad margins and counts are refused. */
#include <math.h>

#include "gdt_test.h"
#include "gdtune/autotune.h"

#define OURS GDT_PLAN_SIDE_OURS
#define BACKEND GDT_PLAN_SIDE_BACKEND
#define LIBRARY GDT_PLAN_SIDE_LIBRARY

/* A candidate at list position index; us NaN: declined. */
typedef struct planted {
    int index;
    gdt_plan_side side;
    double us;
} planted;

static gdt_status choose(const planted *p, int n, double margin, gdt_autotune_report *r, gdt_error *e)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    for (int i = 0; i < n; i++) {
        gdt_autotune_candidate *c = &r->c[i];
        c->index = p[i].index, c->side = p[i].side, c->median_us = p[i].us;
        c->id.engine_id = p[i].index;
        c->status = isnan(p[i].us) ? GDT_STATUS_NOT_SUPPORTED : GDT_STATUS_OK;
        if (isnan(p[i].us)) snprintf(c->why, sizeof c->why, "plan %d: declined: no kernel for it", p[i].index);
    }
    gdt_error_clear(e);
    return gdt_autotune_choose(r, margin, e);
}

/* The first within the margin stays: 1.9% faster is noise at 2%. */
static void test_first_kept_within_margin(void)
{
    planted p[] = {{0, OURS, 100.0}, {1, BACKEND, 98.1}, {2, BACKEND, 99.0}, {3, OURS, 101.0}};
    gdt_autotune_report r;
    gdt_error e;
    CHECK_INT(choose(p, 4, 0.02, &r, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.first, ==, 0);
    CHECK_INT(r.heuristic, ==, 1);
    CHECK_INT(r.winner, ==, 0);
    /* Exactly at the margin is not beyond it. */
    p[1].us = 100.0 / 1.02;
    CHECK_INT(choose(p, 4, 0.02, &r, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.winner, ==, 0);
    /* With no margin the fastest wins. */
    CHECK_INT(choose(p, 4, 0.0, &r, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.winner, ==, 1);
}

/* Beyond the margin the fastest wins, not merely one that beats the first. */
static void test_faster_beyond_margin_wins(void)
{
    planted p[] = {{0, BACKEND, 54.5}, {1, BACKEND, 50.0}, {2, BACKEND, 40.4}, {5, OURS, 45.0}};
    gdt_autotune_report r;
    gdt_error e;
    CHECK_INT(choose(p, 4, 0.02, &r, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.first, ==, 0);
    CHECK_INT(r.heuristic, ==, 0);
    CHECK_INT(r.winner, ==, 2);
    /* Equal medians: the earlier list position. */
    p[3].us = 40.4;
    CHECK_INT(choose(p, 4, 0.02, &r, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.winner, ==, 2);
    p[1].us = 40.4;
    CHECK_INT(choose(p, 4, 0.02, &r, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.winner, ==, 1);
}

/* A declined candidate is skipped: however "fast" its leftover figure, and
 * as the first: the next that ran is the first the margin protects. */
static void test_declined_skipped(void)
{
    planted p[] = {{0, OURS, NAN}, {1, LIBRARY, NAN}, {2, BACKEND, NAN}, {3, OURS, 30.0},
                   {4, BACKEND, 29.8}, {6, BACKEND, 20.0}};
    gdt_autotune_report r;
    gdt_error e;
    CHECK_INT(choose(p, 5, 0.02, &r, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.first, ==, 3);
    CHECK_INT(r.heuristic, ==, 4);
    CHECK_INT(r.winner, ==, 3);
    /* A failed one whose median was left behind is skipped too. */
    CHECK_INT(choose(p, 6, 0.02, &r, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.winner, ==, 5);
    r.c[5].status = GDT_STATUS_CUDA;
    CHECK_INT(gdt_autotune_choose(&r, 0.02, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.winner, ==, 3);
    /* No backend plan ran: no heuristic to compare with. */
    planted q[] = {{0, OURS, 10.0}, {1, BACKEND, NAN}};
    CHECK_INT(choose(q, 2, 0.02, &r, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.heuristic, ==, -1);
    CHECK_INT(r.winner, ==, 0);
    /* A library plan first (cuBLASLt) is the first, not the heuristic's. */
    planted l[] = {{0, LIBRARY, 10.0}, {1, OURS, 11.0}, {2, BACKEND, 12.0}};
    CHECK_INT(choose(l, 3, 0.02, &r, &e), ==, GDT_STATUS_OK);
    CHECK_INT(r.first, ==, 0);
    CHECK_INT(r.heuristic, ==, 2);
}

static void test_all_declined(void)
{
    planted p[] = {{0, OURS, NAN}, {2, BACKEND, NAN}};
    gdt_autotune_report r;
    gdt_error e;
    CHECK_INT(choose(p, 2, 0.02, &r, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_INT(r.winner, ==, -1);
    CHECK_CONTAINS(e.msg, "none of 2 candidates built and ran");
    CHECK_CONTAINS(e.msg, "plan 0: declined: no kernel for it");
    CHECK_INT(choose(p, 0, 0.02, &r, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "none of 0 candidates");
}

static void test_bad_usage(void)
{
    planted p[] = {{0, OURS, 1.0}};
    gdt_autotune_report r;
    gdt_error e;
    CHECK_INT(choose(p, 1, -0.01, &r, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "margin -0.01 outside 0..1");
    CHECK_INT(choose(p, 1, NAN, &r, &e), ==, GDT_STATUS_BAD_USAGE);
    r.n = GDT_AUTOTUNE_MAX + 1;
    CHECK_INT(gdt_autotune_choose(&r, 0.02, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "candidate count 50 outside 0..49");
}

/* The defaults the header and docs/commands.md state. */
static void test_defaults(void)
{
    gdt_autotune_opts o;
    gdt_autotune_opts_default(&o);
    CHECK_INT(o.backend, ==, 3);
    CHECK_INT(o.ours, ==, 3);
    CHECK_INT(o.library, ==, 3);
    CHECK_NEAR(o.margin, 0.01, 0);
    CHECK_INT(o.reps, >=, 1);
}

int main(void)
{
    test_first_kept_within_margin();
    test_faster_beyond_margin_wins();
    test_declined_skipped();
    test_all_declined();
    test_bad_usage();
    test_defaults();
    return gdt_test_result("test_autotune_choose");
}
