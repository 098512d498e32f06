/* Interleaved rounds of k plans (gdt_ab.h) and the sweep's rounds record:
 * the schedule and the statistics (drift common to the plans cancels out of
 * the ratios and the noise; the A/B is the k = 2 case); the journal's
 * reader refusing malformed rounds records with the line, the JSON path and
 * the values; emission ranking a cell's rounds plans by the rounds' times
 * (a committed journal with a rounds record that reverses its first two
 * entries flips the first entry). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_ab.h"
#include "gdt_emit.h"
#include "gdt_run.h"
#include "gdt_test.h"

#define JOURNAL_GZ GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz"
#define MAX_TEXT (8u << 20)

static void test_schedule(void)
{
    int order[9];
    gdt_rounds_schedule(3, 3, order);
    for (int i = 0; i < 9; i++)
        CHECK_INT(order[i], ==, i % 3);
    gdt_ab_schedule(2, order);
    CHECK_INT(order[0], ==, 0);
    CHECK_INT(order[1], ==, 1);
    CHECK_INT(order[2], ==, 0);
    CHECK_INT(order[3], ==, 1);
}

/* A clock that falls 10% over four rounds reaches the three plans alike:
 * the medians follow it, the ratios and the noise do not. */
static void test_stats(void)
{
    double p0[4], p1[4], p2[4];
    const double *us[3] = {p0, p1, p2};
    for (int r = 0; r < 4; r++) {
        double drift = 1.0 + 0.033 * r;
        p0[r] = 10.0 * drift;
        p1[r] = 10.5 * drift;
        p2[r] = 9.8 * drift;
    }
    gdt_rounds_stats st;
    gdt_rounds_stats_compute(us, 3, 4, &st);
    CHECK_INT(st.k, ==, 3);
    CHECK_INT(st.rounds, ==, 4);
    CHECK(fabs(st.time_us[0] - 10.0 * (1.033 + 1.066) / 2) < 1e-9);
    CHECK(fabs(st.ratio[1] - 1.05) < 1e-12);
    CHECK(fabs(st.ratio[2] - 0.98) < 1e-12);
    CHECK(fabs(st.ratio[0] - 1.0) < 1e-12);
    for (int i = 0; i < 3; i++) {
        CHECK(st.noise[i] < 1e-12);
        CHECK(st.ratio_spread[i] < 1e-12);
    }
    CHECK(gdt_stats_rel_spread(p1, 4) > 0.04); /* what the drift does to one plan's series */
    /* one round where plan 1 alone is 10% slower: its noise, not the others' much */
    p1[2] *= 1.10;
    gdt_rounds_stats_compute(us, 3, 4, &st);
    CHECK(st.noise[1] > 0.02);
    CHECK(st.noise[1] > 2 * st.noise[0]);
    CHECK(st.hi[1] > 1.05 * 1.09);
    CHECK(fabs(st.lo[1] - 1.05) < 1e-12);
    /* the A/B is the k = 2 case, B taken first: its ratio is A's time over B's */
    gdt_ab_stats ab;
    gdt_rounds_stats two;
    const double *ba[2] = {p0, p1};
    gdt_ab_stats_compute(p1, p0, 4, &ab);
    gdt_rounds_stats_compute(ba, 2, 4, &two);
    CHECK(ab.ratio == two.ratio[1] && ab.spread == two.ratio_spread[1]);
    CHECK(ab.a_us == two.time_us[1] && ab.b_us == two.time_us[0]);
    CHECK(ab.lo == two.lo[1] && ab.hi == two.hi[1]);
    /* for two plans the noises sum to the ratio's spread, to first order */
    CHECK(fabs(two.noise[0] + two.noise[1] - two.ratio_spread[1]) < 0.1 * two.ratio_spread[1]);
}

/* ------------------------------------------------ the journal's record */

static char *journal;   /* the committed journal, decompressed */
static size_t journal_len;
static int journal_lines;

static bool load_journal(void)
{
    char *argv[] = {"gunzip", "-c", JOURNAL_GZ, NULL};
    journal = malloc(MAX_TEXT);
    int rc = journal ? gdt_test_spawn(argv, NULL, journal, MAX_TEXT) : -1;
    CHECK_INT(rc, ==, 0);
    journal_len = journal ? strlen(journal) : 0;
    for (size_t i = 0; i < journal_len; i++)
        journal_lines += journal[i] == '\n';
    return rc == 0 && journal_len > 1000;
}

/* The journal with the records `extra` appended, parsed. */
static gdt_status parse_with(const char *extra, gdt_run **out, gdt_error *e)
{
    size_t n = strlen(extra);
    char *text = malloc(journal_len + n + 1);
    memcpy(text, journal, journal_len);
    memcpy(text + journal_len, extra, n + 1);
    gdt_status s = gdt_run_parse(text, journal_len + n, "journal.jsonl", out, e);
    free(text);
    return s;
}

/* A rounds record about cell 0: its keys, then body. */
static void rounds_record(char *buf, size_t n, const gdt_run_cell *c, const char *body)
{
    char key[512];
    gdt_problem_key(&c->spec->problem, key, sizeof key);
    snprintf(buf, n, "{\"type\":\"rounds\",\"cell\":0,\"family\":\"%s\",\"shape\":\"%s\",\"key\":\"%s\",%s}\n",
             gdt_family_name(c->spec->family), c->spec->shape, key, body);
}

/* Plan index of name in c, -1 for none. */
static int plan_index(const gdt_run_cell *c, const char *name)
{
    for (int pi = 0; pi < c->nplans; pi++)
        if (!strcmp(c->plan[pi].name, name))
            return pi;
    return -1;
}

/* The first two plans of cell 0's ranking in the tables dir/sm90 holds. */
static void ranking_of(const char *dir, const gdt_run_cell *c, char names[2][320])
{
    char path[600], key[512], *text = malloc(MAX_TEXT), *argv[] = {"cat", path, NULL};
    static const char at[] = "{\"plan\": \"";
    snprintf(path, sizeof path, "%s/sm90/gemm.tuning.json", dir);
    gdt_problem_key(&c->spec->problem, key, sizeof key);
    CHECK_INT(gdt_test_spawn(argv, NULL, text, MAX_TEXT), ==, 0);
    const char *p = strstr(text, key);
    for (int i = 0; i < 2; i++) {
        p = p ? strstr(p, at) : NULL;
        p = p ? p + strlen(at) : NULL;
        snprintf(names[i], 320, "%.*s", p ? (int)strcspn(p, "\"") : 0, p ? p : "");
    }
    free(text);
}

static void emit_to(gdt_run *r, const char *dir)
{
    gdt_error e = {0};
    gdt_status s = gdt_emit_runs(&r, 1, dir, NULL, &e);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "emit: %s\n", e.msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
}

typedef struct bad_case {
    const char *body;     /* printf format: %d the first plan, %d the second */
    const char *message;  /* after "journal.jsonl:LINE: " */
} bad_case;

static void test_refused(const gdt_run_cell *c, int a, int b, int unverified)
{
    static const bad_case cases[] = {
        {"\"plans\":[%d,%d],\"rounds\":1,\"error\":\"\",\"time_us\":[1,2],\"noise\":[0,0]",
         "/rounds: expected a value in [2, 100], got number 1"},
        {"\"plans\":[%d],\"rounds\":3,\"error\":\"\",\"time_us\":[1],\"noise\":[0]",
         "/plans: expected 2 to 8 plan indices, got array of 1"},
        {"\"plans\":[%d,%d],\"rounds\":3,\"error\":\"\",\"noise\":[0,0]",
         "/time_us: expected an array of 2 numbers (one per plan), got nothing (missing)"},
        {"\"plans\":[%d,%d],\"rounds\":3,\"error\":\"\",\"time_us\":[1,0],\"noise\":[0,0]",
         "/time_us/1: expected a time above 0 us, got number 0"},
        {"\"plans\":[%d,%d],\"rounds\":3,\"error\":\"\",\"time_us\":[1,2,3],\"noise\":[0,0]",
         "/time_us: expected an array of 2 numbers (one per plan), got array of 3"},
        {"\"plans\":[%d,%d],\"rounds\":3,\"error\":\"lost\",\"time_us\":[1,2]",
         "/time_us: expected nothing (the rounds failed: /error), got array of 2"},
        {"\"plans\":[%d,%d],\"rounds\":2,\"error\":\"\",\"time_us\":[1,2],\"noise\":[0,0],"
         "\"round_us\":[[1,1],[2]]",
         "/round_us/1: expected an array of 2 times above 0 us (one per round), got array of 1"},
        {"\"plans\":[%d,%d],\"rounds\":3,\"error\":\"\",\"time_us\":[1,2],\"noise\":[0,0],\"frob\":1",
         "/frob: unknown field \"frob\""},
    };
    char rec[4096], body[1024];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gdt_run *r = NULL;
        gdt_error e = {0};
        char want[512];
        snprintf(body, sizeof body, cases[i].body, a, b);
        rounds_record(rec, sizeof rec, c, body);
        CHECK_INT(parse_with(rec, &r, &e), ==, GDT_STATUS_BAD_INPUT);
        snprintf(want, sizeof want, "journal.jsonl:%d: %s", journal_lines + 1, cases[i].message);
        CHECK_CONTAINS(e.msg, want);
        gdt_run_destroy(r);
    }
    /* the plans: distinct, in the cell, with a metric series (a raced-out
     * plan's, the sweep's test_rounds_late) */
    static const char *const plan_cases[][2] = {
        {"[%d,%d]", "/plans/1: expected a plan not named before in /plans"},
        {"[%d,%d]", "/plans/1: expected a plan index below"},
        {"[%d,%d]", "/plans/1: expected a plan with a metric series (verified; measured in full, or raced out late)"},
    };
    int second[] = {a, c->nplans, unverified};
    for (int i = 0; i < 3; i++) {
        gdt_run *r = NULL;
        gdt_error e = {0};
        char plans[64];
        if (second[i] < 0)
            continue;
        snprintf(plans, sizeof plans, plan_cases[i][0], a, second[i]);
        snprintf(body, sizeof body, "\"plans\":%s,\"rounds\":3,\"error\":\"\",\"time_us\":[1,2],"
                 "\"noise\":[0,0]", plans);
        rounds_record(rec, sizeof rec, c, body);
        CHECK_INT(parse_with(rec, &r, &e), ==, GDT_STATUS_BAD_INPUT);
        CHECK_CONTAINS(e.msg, plan_cases[i][1]);
        gdt_run_destroy(r);
    }
}

/* The committed journal's cell 0 with a rounds record that reverses its
 * first two entries: the reader takes it, emission ranks by it, and a
 * second record for the cell is refused. */
static void test_record(void)
{
    gdt_run *r = NULL;
    gdt_error e = {0};
    char tmp[] = "/tmp/gdt_test_rounds_XXXXXX", before[600], after[600], names[2][320], flipped[2][320];
    CHECK(mkdtemp(tmp) != NULL);
    CHECK_INT(parse_with("", &r, &e), ==, GDT_STATUS_OK);
    if (!r)
        return;
    const gdt_run_cell *c = &r->cells[0];
    snprintf(before, sizeof before, "%s/before", tmp);
    emit_to(r, before);
    ranking_of(before, c, names);
    int a = plan_index(c, names[0]), b = plan_index(c, names[1]), unverified = -1;
    CHECK(a >= 0 && b >= 0);
    for (int pi = 0; pi < c->nplans && unverified < 0; pi++)
        if (c->result[pi].disposition != GDT_DISP_VERIFIED)
            unverified = pi;
    if (a < 0 || b < 0)
        return;
    test_refused(c, a, b, unverified);
    double ta = c->result[a].time_us, tb = c->result[b].time_us;
    char rec[4096], body[1024], two[8192];
    snprintf(body, sizeof body, "\"plans\":[%d,%d],\"rounds\":4,\"error\":\"\",\"time_us\":[%.6g,%.6g],"
             "\"noise\":[0.001,0.001],\"ratios\":[1,%.6g],\"measure_s\":1.5,\"gpu\":0", a, b, tb * 1.2,
             ta * 0.8, ta * 0.8 / (tb * 1.2));
    rounds_record(rec, sizeof rec, c, body);
    gdt_run_destroy(r);
    r = NULL;
    CHECK_INT(parse_with(rec, &r, &e), ==, GDT_STATUS_OK);
    if (!r)
        return;
    c = &r->cells[0];
    CHECK_INT(c->rounds.nplans, ==, 2);
    CHECK_INT(c->rounds.rounds, ==, 4);
    CHECK_INT(c->rounds.line, ==, journal_lines + 1);
    snprintf(after, sizeof after, "%s/after", tmp);
    emit_to(r, after);
    ranking_of(after, c, flipped);
    CHECK_STR(flipped[0], names[1]);
    gdt_run_destroy(r);
    r = NULL;
    snprintf(two, sizeof two, "%s%s", rec, rec);
    CHECK_INT(parse_with(two, &r, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "/cell: cell 0 has a rounds record already (line");
    gdt_run_destroy(r);
    CHECK_INT(gdt_test_remove_tree(tmp), ==, 0);
}

int main(void)
{
    test_schedule();
    test_stats();
    if (load_journal())
        test_record();
    free(journal);
    return gdt_test_result("test_rounds");
}
