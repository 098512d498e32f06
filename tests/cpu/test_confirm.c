/* The confirmation's model (gdt_confirm.h) without a worker: the changes a
 * diff's JSON names (decision sides mapped to their best plans, added and
 * removed cells counted, a malformed document refused with its JSON
 * path), the rule on a pair's rounds (the noise floor, the rounds' own
 * noise, the direction), and the exit status. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gdt_confirm.h"
#include "gdt_test.h"

static const char diff_json[] =
    "{\"schema\":\"gdtune.tables_diff/1\",\"cells\":["
    "{\"key\":\"gemm:b1,m512\",\"family\":\"gemm\",\"arch\":\"sm90\",\"status\":\"beyond_noise\","
    "\"regret\":{\"winner\":{\"plan\":\"ours.a\",\"base\":\"cudnn.eng1\",\"measured\":true,\"beyond_noise\":true},"
    "\"first_entry\":{\"plan\":\"ours.a\",\"base\":\"cudnn.eng1\",\"measured\":true,\"beyond_noise\":false},"
    "\"decision\":{\"plan\":\"ours.b\",\"base\":\"cudnn.eng1\",\"measured\":true,\"beyond_noise\":true,"
    "\"accepted\":0.05}},"
    "\"slowdown\":{\"plan\":\"cudnn.eng1\",\"base\":\"ours.a\",\"base_us\":8,\"measured\":true,\"beyond_noise\":true},"
    /* plan moves are detail: a winner shift beyond noise decides nothing */
    "\"winner\":{\"old\":\"ours.a\",\"new\":\"cudnn.eng1\",\"changed\":true,\"beyond_noise\":true}},"
    "{\"key\":\"gemm:b1,m256\",\"family\":\"gemm\",\"arch\":\"sm90\",\"status\":\"within_noise\","
    "\"regret\":{\"winner\":{\"plan\":\"x\",\"base\":\"y\",\"measured\":true,\"beyond_noise\":true}}},"
    "{\"key\":\"gemm:b1,m32\",\"family\":\"gemm\",\"arch\":\"sm90\",\"status\":\"beyond_noise\","
    "\"best_ours\":{\"old\":\"ours.c\",\"new\":\"ours.c\"},\"best_backend\":{\"old\":\"cudnn.eng3\",\"new\":\"cudnn.eng3\"},"
    "\"slowdown\":{\"plan\":\"cudnn.eng3\",\"base\":\"cudnn.eng3\",\"base_us\":5,\"measured\":true,\"beyond_noise\":true}},"
    "{\"key\":\"gemm:b1,m64\",\"family\":\"gemm\",\"arch\":\"sm90\",\"status\":\"added\"}]}";

static void test_from_diff(void)
{
    gdt_confirm c;
    gdt_error e = {0};
    CHECK_INT(gdt_confirm_from_diff(diff_json, &c, &e), ==, GDT_STATUS_OK);
    CHECK_INT(c.n, ==, 4); /* the first entry's regret is within noise, the second cell too */
    CHECK_INT(c.added, ==, 1);
    CHECK_STR(c.v[0].what, "winner"); /* the committed choice against NEW's best */
    CHECK_STR(c.v[0].old_plan, "ours.a");
    CHECK_STR(c.v[0].new_plan, "cudnn.eng1");
    CHECK_STR(c.v[1].what, "decision"); /* the committed side's best in NEW */
    CHECK_STR(c.v[1].old_plan, "ours.b");
    CHECK_STR(c.v[1].new_plan, "cudnn.eng1");
    CHECK_NEAR(c.v[1].accepted, 0.05, 1e-12); /* the regret the committed tables held */
    CHECK_NEAR(c.v[0].accepted, 0, 1e-12);
    CHECK_STR(c.v[2].what, "slowdown"); /* the committed and tonight's winner against the committed time */
    CHECK_STR(c.v[2].old_plan, "ours.a");
    CHECK_STR(c.v[2].new_plan, "cudnn.eng1");
    CHECK_NEAR(c.v[2].base_us, 8, 1e-12);
    CHECK_STR(c.v[2].why, "not measured yet");
    CHECK_STR(c.v[3].what, "slowdown"); /* one plan slower: another of the cell's beside it */
    CHECK_STR(c.v[3].old_plan, "cudnn.eng3");
    CHECK_STR(c.v[3].new_plan, "cudnn.eng3");
    CHECK_STR(c.v[3].partner, "ours.c");
    CHECK_INT(c.v[1].verdict, ==, GDT_CONFIRM_UNCONFIRMED);
    CHECK_INT(gdt_confirm_exit(&c), ==, 3);
    gdt_confirm_free(&c);

    static const struct { const char *doc, *msg; } bad[] = {
        {"{\"cells\":{}}", "tables diff JSON: /cells: expected an array"},
        {"not json", "/cells: expected an array (the document does not parse)"},
        {"{\"cells\":[{\"key\":\"k\"}]}", "tables diff JSON: /cells/0/status: expected a string"},
        {"{\"cells\":[{\"status\":\"beyond_noise\",\"family\":\"gemm\",\"arch\":\"sm90\",\"key\":\"k\","
         "\"regret\":{\"winner\":{\"plan\":\"a\",\"beyond_noise\":true}}}]}",
         "tables diff JSON: /cells/0/regret/winner/base: expected a string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gdt_error be = {0};
        CHECK_INT(gdt_confirm_from_diff(bad[i].doc, &c, &be), ==, GDT_STATUS_BAD_INPUT);
        CHECK_CONTAINS(be.msg, bad[i].msg);
    }
}

/* old and new plans' rounds: old at 1 us, new at ratio, each round off by
 * jitter in turn (+, 0, -). */
static gdt_confirm_verdict decide(double ratio, double jitter, double floor, gdt_confirm_change *c)
{
    double o[8], n[8];
    for (int r = 0; r < 8; r++) {
        o[r] = 1.0;
        n[r] = ratio * (1 + jitter * ((r % 3) - 1));
    }
    memset(c, 0, sizeof *c);
    gdt_confirm_decide(c, o, n, 8, floor);
    return c->verdict;
}

/* A slowdown: the faster of the committed and tonight's winner in the
 * rounds against the committed 10 us. */
static void test_slowdown_rule(void)
{
    gdt_confirm_change c = {.what = "slowdown", .base_us = 10, .old_plan = "committed", .new_plan = "tonight"};
    double slow[6] = {11, 11.01, 10.99, 11, 11, 11}, back[6] = {10.2, 10.21, 10.19, 10.2, 10.2, 10.2};
    double slower[6] = {12, 12, 12, 12, 12, 12};
    gdt_confirm_decide_slowdown(&c, slow, slow, 6, 0.02);
    CHECK_INT(c.verdict, ==, GDT_CONFIRM_HELD); /* 10% slower: beyond 2% + 2% */
    CHECK_NEAR(c.ratio, 1.1, 1e-3);
    CHECK_NEAR(c.lo, 1.099, 1e-12); /* its rounds' range over the committed time */
    CHECK_NEAR(c.hi, 1.101, 1e-12);
    gdt_confirm_decide_slowdown(&c, back, back, 6, 0.02);
    CHECK_INT(c.verdict, ==, GDT_CONFIRM_DISSOLVED); /* 2%: within the floors */
    gdt_confirm_decide_slowdown(&c, back, back, 6, 0.0);
    CHECK_INT(c.verdict, ==, GDT_CONFIRM_HELD); /* with no floor, 2% is beyond the rounds' noise */
    gdt_confirm_decide_slowdown(&c, back, slower, 6, 0.02);
    CHECK_INT(c.verdict, ==, GDT_CONFIRM_DISSOLVED); /* the committed winner is still at 10.2 */
    CHECK_NEAR(c.new_us, 10.2, 1e-9);
    CHECK_STR(c.faster, "committed"); /* the report names the plan behind new_us */
    gdt_confirm_decide_slowdown(&c, slower, slow, 6, 0.02);
    CHECK_INT(c.verdict, ==, GDT_CONFIRM_HELD); /* the faster of the two, 11, is 10% slower */
    CHECK_STR(c.faster, "tonight");
}

static void test_rule(void)
{
    gdt_confirm_change c;
    CHECK_INT(decide(0.90, 0.001, 0.02, &c), ==, GDT_CONFIRM_HELD);
    CHECK_NEAR(c.ratio, 0.90, 1e-9);
    CHECK_INT(c.rounds, ==, 8);
    CHECK_NEAR(c.old_noise, 0.02, 1e-12); /* floored */
    /* 3% ahead: within the two floors (2% + 2%), beyond the rounds' own noise */
    CHECK_INT(decide(0.97, 0.001, 0.02, &c), ==, GDT_CONFIRM_DISSOLVED);
    CHECK_INT(decide(0.97, 0.001, 0.0, &c), ==, GDT_CONFIRM_HELD);
    /* the rounds' own noise, larger than the floor, dissolves it too */
    CHECK_INT(decide(0.93, 0.08, 0.0, &c), ==, GDT_CONFIRM_DISSOLVED);
    CHECK(c.new_noise > 0.02);
    /* the new plan slower than the committed one: dissolved */
    CHECK_INT(decide(1.10, 0.001, 0.02, &c), ==, GDT_CONFIRM_DISSOLVED);
}

/* A regret the committed tables already held (accepted): the committed
 * plan 5% behind the new one when they were committed.  The rounds must
 * show more than that, beyond noise, for the change to hold. */
static void test_rule_accepted(void)
{
    double o[8], n[8];
    const struct { double ratio; gdt_confirm_verdict v; } cases[] = {
        {1 / 1.05, GDT_CONFIRM_DISSOLVED}, /* as committed: nothing changed */
        {1 / 1.08, GDT_CONFIRM_DISSOLVED}, /* 2.9% over it: within the floors */
        {1 / 1.12, GDT_CONFIRM_HELD},      /* 6.7% over it: beyond 2% + 2% */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (int r = 0; r < 8; r++) o[r] = 1.0, n[r] = cases[i].ratio;
        gdt_confirm_change c = {.what = "first_entry", .accepted = 0.05};
        gdt_confirm_decide(&c, o, n, 8, 0.02);
        CHECK_INT(c.verdict, ==, cases[i].v);
    }
}

static void test_exit(void)
{
    gdt_confirm_change v[2] = {{.verdict = GDT_CONFIRM_DISSOLVED}, {.verdict = GDT_CONFIRM_DISSOLVED}};
    gdt_confirm c = {.v = v, .n = 2};
    CHECK_INT(gdt_confirm_exit(&c), ==, 0);
    v[1].verdict = GDT_CONFIRM_UNCONFIRMED;
    CHECK_INT(gdt_confirm_exit(&c), ==, 3);
    v[1].verdict = GDT_CONFIRM_HELD;
    CHECK_INT(gdt_confirm_exit(&c), ==, 3);
    v[1].verdict = GDT_CONFIRM_DISSOLVED;
    c.removed = 1;
    CHECK_INT(gdt_confirm_exit(&c), ==, 3);
}

int main(void)
{
    test_from_diff();
    test_rule();
    test_rule_accepted();
    test_slowdown_rule();
    test_exit();
    return gdt_test_result("test_confirm");
}
