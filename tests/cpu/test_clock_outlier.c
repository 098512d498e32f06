/* Clock outliers (harness/metric_clock.c, gdt_metric_clock.h): a verified
 * series under GDT_CLOCK_OUTLIER x its cell's clock of its kind (0.89 of it
 * is one, 0.91 is not), metric series and racing's first estimates judged
 * apart, which of a plan's two series counts; and the journal's re-measure
 * (a result with clock_outlier) written and read back: the series that
 * counts in result[], the other in other[], the counts moved, both series'
 * time in the report's budget, and the reader's refusals.  And the tables'
 * time at the cell's clock: scaled in a compute-bound cell, a memory-bound
 * cell's own. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_budget.h"
#include "gdt_journal.h"
#include "gdt_json.h"
#include "gdt_metric_clock.h"
#include "gdt_plan_figures.h"
#include "gdt_run.h"
#include "gdt_run_write.h"
#include "gdt_util.h"
#include "gdt_test.h"

#define M GDT_SERIES_METRIC
#define E GDT_SERIES_ESTIMATE

/* A verified result whose largest burst ran at mhz (two samples), us per
 * call; raced: "" or ",\"raced_out\":true" and the like. */
static cJSON *result(const char *disp, double us, double mhz, const char *raced)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"disposition\":\"%s\",\"error\":\"\",\"bursts\":[{\"burst\":1,"
             "\"host_us\":[1],\"device_us\":[%g],\"total_us\":[1],\"clock_mhz\":[1980]},{\"burst\":4,"
             "\"host_us\":[1,1],\"device_us\":[%g,%g],\"total_us\":[1,1],\"clock_mhz\":[%g,%g]}],"
             "\"time_us\":%g,\"noise\":0.01,\"measure_s\":0.5%s}", disp, us, us, us, mhz, mhz, us, raced);
    cJSON *r = cJSON_Parse(text);
    CHECK(r != NULL);
    return r;
}

/* Eleven series at 1500 MHz and one at ratio x 1500: is that one an
 * outlier?  (The cell's clock is the median of all twelve: 1500.) */
static bool outlier_at(double ratio)
{
    gdt_series_clock s[12];
    double cell[GDT_SERIES_KINDS];
    for (int i = 0; i < 11; i++)
        s[i] = (gdt_series_clock){M, 1500};
    s[11] = (gdt_series_clock){M, ratio * 1500};
    gdt_cell_clocks(s, 12, cell);
    CHECK_NEAR(cell[M], 1500, 0);
    CHECK_NEAR(cell[E], 0, 0);
    return gdt_clock_outlier(s[11], cell);
}

static void test_threshold(void)
{
    CHECK_NEAR(GDT_CLOCK_OUTLIER, 0.9, 0);
    CHECK(outlier_at(0.89));
    CHECK(!outlier_at(0.91));
    CHECK(!outlier_at(0.9)); /* under it, not at it */
    CHECK(!outlier_at(1.2)); /* only a clock far below the rest */
    double cell[GDT_SERIES_KINDS] = {1500, 0};
    CHECK(!gdt_clock_outlier((gdt_series_clock){M, 0}, cell)); /* no clock read */
    CHECK(!gdt_clock_outlier((gdt_series_clock){E, 100}, cell)); /* no estimate to judge it by */
}

/* The median over an even count, and the kinds apart: heated metric series
 * at 1450 MHz are no outliers beside first estimates at the boost clock. */
static void test_kinds(void)
{
    gdt_series_clock s[] = {{M, 1450}, {M, 1460}, {E, 1900}, {E, 1980}, {E, 1700}, {E, 1600},
                            {M, 0}};
    double cell[GDT_SERIES_KINDS];
    gdt_cell_clocks(s, 7, cell);
    CHECK_NEAR(cell[M], 1455, 1e-9);
    CHECK_NEAR(cell[E], 1800, 1e-9); /* (1700 + 1900) / 2 */
    CHECK(!gdt_clock_outlier(s[0], cell));
    CHECK(!gdt_clock_outlier(s[4], cell)); /* 0.944 */
    CHECK(gdt_clock_outlier(s[5], cell));  /* 0.889 */
    cJSON *full = result("verified", 10, 1450, ""), *early = result("verified", 10, 1600, ",\"raced_out\":true");
    cJSON *late = result("verified", 10, 1300, ",\"raced_out\":true,\"raced_late\":true");
    cJSON *bad = result("incorrect", 10, 1300, "");
    gdt_series_clock f = gdt_series_clock_of(full), r = gdt_series_clock_of(early);
    gdt_series_clock l = gdt_series_clock_of(late), b = gdt_series_clock_of(bad);
    CHECK(f.kind == M && f.mhz == 1450); /* the largest burst's, not burst 1's 1980 */
    CHECK(r.kind == E && r.mhz == 1600);
    CHECK(l.kind == M && l.mhz == 1300); /* raced late: its metric series */
    CHECK_NEAR(b.mhz, 0, 0);              /* not verified: no clock to judge */
    cJSON_Delete(full);
    cJSON_Delete(early);
    cJSON_Delete(late);
    cJSON_Delete(bad);
}

/* Which series counts: the re-measure at a clock no longer an outlier,
 * slower or not; still an outlier, the faster; incorrect, always; failed,
 * never. */
static void test_counts(void)
{
    double cell[GDT_SERIES_KINDS] = {1500, 1900};
    struct { const char *disp; double us, mhz; const char *raced; bool counts; } cases[] = {
        {"verified", 12, 1500, "", true},   /* normal clock: counts though slower than 11 */
        {"verified", 10, 1300, "", true},   /* still an outlier, faster */
        {"verified", 12, 1300, "", false},  /* still an outlier, slower: the first */
        {"verified", 12, 1400, "", true},   /* 0.933: no longer an outlier */
        {"verified", 30, 1900, ",\"raced_out\":true", true}, /* an estimate at its kind's clock */
        {"incorrect", 0, 0, "", true},
        {"failed", 0, 0, "", false},
        {"declined", 0, 0, "", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *again = result(cases[i].disp, cases[i].us, cases[i].mhz, cases[i].raced);
        if (gdt_clock_again_counts(11, again, cell) != cases[i].counts)
            fprintf(stderr, "  case %zu: %s %g us at %g MHz\n", i, cases[i].disp, cases[i].us, cases[i].mhz);
        CHECK(gdt_clock_again_counts(11, again, cell) == cases[i].counts);
        cJSON_Delete(again);
    }
    CHECK(!gdt_clock_again_counts(11, NULL, cell)); /* no reply: the first */
}

/* ------------------------------------------------------------ journal */

static const char plans_json[] =
    "[{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{},\"backend\":true,\"tag\":\"A\",\"untimed\":0},"
    "{\"plan\":\"cudnn.eng1\",\"engine_id\":1,\"knobs\":{},\"backend\":true,\"tag\":\"B\",\"untimed\":1},"
    "{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":{\"TILE_M\":128},\"backend\":false,"
    "\"tag\":\"OURS\",\"untimed\":2}]";
static const char *const names[] = {"cudnn.eng0", "cudnn.eng1", "gemm.nvrtc[TILE_M=128]"};
static const char *const gpus[] = {"GPU-x"};

static void ok(gdt_status s, const gdt_error *e)
{
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "  status %d: %s\n", (int)s, e->msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
}

/* ------------------------------------------------------------ time at the cell's clock */

/* A verified result of one burst of two samples at mhz (0: no clock read). */
static gdt_run_result typed(double us, double mhz, bool raced_out, double clk[2], gdt_run_burst *b)
{
    clk[0] = clk[1] = mhz;
    *b = (gdt_run_burst){.burst = 4, .clock_mhz = mhz > 0 ? clk : NULL, .nclock = 2};
    return (gdt_run_result){.journaled = true, .disposition = GDT_DISP_VERIFIED, .time_us = us,
                            .noise = 0.01, .raced_out = raced_out, .bursts = b, .nbursts = 1};
}

/* Four plans: 100 us at 1500 MHz, 95 us at 1700, 110 us at 1300 (the cell's
 * clock, the median of the three metric series, is 1500) and a first
 * estimate of 90 us at the boost clock 1980; and a fifth without a clock.
 * m = n = k = 4096 is compute-bound (1365 FLOPs a byte): each time is
 * scaled to 1500 MHz, so 95 us at 1700 is 107.7 and 110 us at 1300 is 95.3,
 * the fastest; the estimate 118.8.  At m = 128 (120 FLOPs a byte) the
 * times are the series' own. */
static void test_cell_clock(void)
{
    gdt_sweep_cell cell = {.family = GDT_FAMILY_GEMM};
    gdt_error e = {0};
    ok(gdt_problem_parse(GDT_FAMILY_GEMM, "m=4096,n=4096,k=4096,dtype=bf16", &cell.problem, &e), &e);
    double clk[5][2];
    gdt_run_burst b[5];
    gdt_run_result res[5] = {typed(100, 1500, false, clk[0], &b[0]), typed(95, 1700, false, clk[1], &b[1]),
                             typed(110, 1300, false, clk[2], &b[2]), typed(90, 1980, true, clk[3], &b[3]),
                             typed(120, 0, false, clk[4], &b[4])};
    gdt_run_plan plan[5];
    memset(plan, 0, sizeof plan);
    gdt_run_cell c = {.spec = &cell, .plan = plan, .result = res, .nplans = 5, .nresults = 5};
    const double want[] = {100, 95 * 1700 / 1500., 110 * 1300 / 1500., 90 * 1980 / 1500., 120};
    CHECK_NEAR(gdt_run_cell_mhz(&c), 1500, 0);
    for (int pi = 0; pi < 5; pi++) {
        double t, noise;
        CHECK(!gdt_run_plan_figures(&c, pi, &t, &noise));
        CHECK_NEAR(t, want[pi], 1e-9);
        CHECK_NEAR(noise, 0.01, 0);
        CHECK_NEAR(gdt_run_plan_measured(&c, pi, 0.02).time_us, want[pi], 1e-9);
    }
    ok(gdt_problem_parse(GDT_FAMILY_GEMM, "m=128,n=4096,k=4096,dtype=bf16", &cell.problem, &e), &e);
    CHECK_NEAR(gdt_run_cell_mhz(&c), 0, 0);
    for (int pi = 0; pi < 5; pi++)
        CHECK_NEAR(gdt_run_plan_measured(&c, pi, 0).time_us, res[pi].time_us, 0);
    CHECK_NEAR(gdt_problem_flops(&cell.problem) / gdt_problem_bytes(&cell.problem), 120.47, 0.005);
}

static void write_result(gdt_journal *j, int pi, const char *disp, double us, double mhz,
                         const gdt_run_clock_outlier *co, gdt_error *e)
{
    cJSON *m = result(disp, us, mhz, "");
    gdt_disposition d = GDT_DISP_VERIFIED;
    CHECK(gdt_disposition_parse(disp, &d));
    gdt_run_result_rec res = {.cell = 1, .plan = pi, .family = GDT_FAMILY_GEMM, .name = names[pi],
                              .disposition = d, .error = "", .measured = m, .clock_outlier = co};
    ok(gdt_run_write_result(j, &res, e), e);
    cJSON_Delete(m);
}

/* Cell 1 of tiny_gemm: eng0 10 us at 1500 MHz; eng1 14 us at 1200, again
 * 12 us at 1500 (counts); ours 9 us at 1250, again 9.5 us at 1300 (the
 * first counts); then rounds when asked. */
static void write_journal(const char *dir, const gdt_sweep_spec *spec, bool rounds)
{
    gdt_journal *j = NULL;
    gdt_error e = {0};
    cJSON *device = cJSON_Parse("{\"name\":\"X\",\"arch\":90}"), *plans = cJSON_Parse(plans_json);
    gdt_run_header_rec h = {.started = "2026-01-02T03:04:05Z", .family = "gemm", .spec = spec,
                            .candidates_digest = "00", .arch = 90, .device = device, .gpus = gpus,
                            .ngpus = 1, .options = {.bursts = {1, 4}, .nbursts = 2, .target_rel = 0.02,
                                                    .max_plan_seconds = 0.2, .race = true}};
    gdt_run_clock_outlier eng1 = {1200, 1500, true}, ours = {1250, 1500, false};
    ok(gdt_journal_open(dir, false, &j, &e), &e);
    ok(gdt_run_write_header(j, &h, &e), &e);
    ok(gdt_run_write_cell(j, 1, &spec->cells[1], &e), &e);
    ok(gdt_run_write_plans(j, 1, &spec->cells[1], plans, NULL, NULL, NULL, &e), &e);
    write_result(j, 0, "verified", 10, 1500, NULL, &e);
    write_result(j, 1, "verified", 14, 1200, NULL, &e);
    write_result(j, 2, "verified", 9, 1250, NULL, &e);
    write_result(j, 1, "verified", 12, 1500, &eng1, &e);
    write_result(j, 2, "verified", 9.5, 1300, &ours, &e);
    gdt_run_rounds_rec ro = {.cell = 1, .spec = &spec->cells[1], .plans = {2, 0}, .nplans = 2,
                             .rounds = 2, .error = "the worker refused"};
    if (rounds)
        ok(gdt_run_write_rounds(j, &ro, &e), &e);
    gdt_journal_close(j);
    cJSON_Delete(device);
    cJSON_Delete(plans);
}

/* The record at a line of dir's journal as written (l keeps it); NULL
 * when there is none. */
static const cJSON *record_at(const char *dir, int line, gdt_journal_lines *l)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, GDT_JOURNAL_NAME);
    if (gdt_journal_read(path, l, NULL) != GDT_STATUS_OK)
        return NULL;
    return line >= 1 && line <= l->n ? l->rec[line - 1] : NULL;
}

static void test_journal(const char *dir, const gdt_sweep_spec *spec)
{
    gdt_run *r = NULL;
    gdt_error e = {0};
    gdt_journal_lines l = {0};
    write_journal(dir, spec, true);
    ok(gdt_run_load(dir, &r, &e), &e);
    const gdt_run_cell *c = r ? &r->cells[1] : NULL;
    if (c) {
        CHECK(gdt_run_cell_complete(c));
        CHECK_INT(c->nresults, ==, 3);
        CHECK_INT(r->results, ==, 3);
        CHECK_INT(r->counts[GDT_DISP_VERIFIED], ==, 3);
        CHECK(!c->other[0].journaled && !c->result[0].again);
        CHECK_NEAR(c->result[1].time_us, 12, 0); /* the re-measure counts */
        CHECK(c->result[1].again);
        CHECK_NEAR(c->other[1].time_us, 14, 0);
        CHECK_NEAR(gdt_run_first_series(c, 1)->time_us, 14, 0);
        CHECK_NEAR(c->result[2].time_us, 9, 0); /* the first counts */
        CHECK(!c->result[2].again && c->other[2].again);
        CHECK_NEAR(c->other[2].time_us, 9.5, 0);
        CHECK_NEAR(gdt_run_first_series(c, 2)->time_us, 9, 0);
        CHECK_NEAR(gdt_run_plan_measured(c, 1, 0).time_us, 12, 0); /* what the tables take */
        const cJSON *co = gdt_json_get(record_at(dir, c->result[1].line, &l), "clock_outlier");
        CHECK_NEAR(gdt_json_num_or(co, "limit", 0), GDT_CLOCK_OUTLIER, 0);
        CHECK_NEAR(gdt_json_num_or(co, "first_mhz", 0), 1200, 0);
        CHECK_NEAR(gdt_json_num_or(co, "cell_mhz", 0), 1500, 0);
        gdt_budget b;
        gdt_budget_row all = {0};
        gdt_budget_of(r, &b);
        for (int side = 0; side < GDT_PLAN_SIDE_COUNT; side++)
            for (int k = 0; k < GDT_BUDGET_KIND_COUNT; k++)
                all.plans += b.by[side][k].plans, all.measure_s += b.by[side][k].measure_s;
        CHECK_INT(all.plans, ==, 3);
        CHECK_NEAR(all.measure_s, 2.5, 1e-12); /* five series of 0.5 s */
    }
    CHECK(r != NULL);
    gdt_journal_lines_free(&l);
    gdt_run_destroy(r);
}

/* The journal's lines 1 to n, then extra (a line or ""). */
static char *lines_then(const char *dir, int n, const char *extra)
{
    char path[PATH_MAX], *text = NULL;
    size_t len = 0;
    gdt_error e = {0};
    snprintf(path, sizeof path, "%s/%s", dir, GDT_JOURNAL_NAME);
    ok(gdt_file_read(path, &text, &len, &e), &e);
    char *p = text;
    for (int i = 0; p && i < n; i++)
        if ((p = strchr(p, '\n')))
            p++;
    size_t keep = p ? (size_t)(p - text) : len;
    char *out = malloc(keep + strlen(extra) + 2);
    if (out && text)
        snprintf(out, keep + strlen(extra) + 2, "%.*s%s", (int)keep, text, extra);
    free(text);
    return out;
}

/* The journal's line n (1-based) into buf. */
static void line_of(const char *dir, int n, char *buf, size_t nbuf)
{
    char *head = lines_then(dir, n, ""), *last = head ? head + strlen(head) - 1 : NULL;
    buf[0] = 0;
    while (last && last > head && last[-1] != '\n')
        last--;
    if (last)
        snprintf(buf, nbuf, "%s", last);
    free(head);
}

static void refused(const char *text, const char *want)
{
    gdt_run *r = NULL;
    gdt_error e = {0};
    CHECK_INT(gdt_run_parse(text, strlen(text), "j", &r, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, want);
    gdt_run_destroy(r);
}

/* A re-measure only once, after its plan's verified result and before the
 * cell's rounds; its clock_outlier checked against its table. */
static void test_refusals(const char *dir, const gdt_sweep_spec *spec)
{
    char again[4096], edited[4096], *text;
    write_journal(dir, spec, true);
    line_of(dir, 7, again, sizeof again); /* eng1's re-measure */
    text = lines_then(dir, 8, again);
    refused(text, "j:9: /clock_outlier: plan 1 of cell 1 was re-measured already (line 7)");
    free(text);
    text = lines_then(dir, 9, again);
    refused(text, "j:10: /clock_outlier: a re-measure of plan 1 of cell 1 after the cell's rounds (line 9)");
    free(text);
    text = lines_then(dir, 4, again); /* before eng1's result */
    refused(text, "j:5: /clock_outlier: a re-measure of plan 1 of cell 1, which has no verified result "
                  "before it");
    free(text);
    struct { const char *from, *to, *want; } edits[] = {
        {",\"counts\":true", "", "j:7: /clock_outlier/counts: expected a boolean, got nothing"},
        {"\"limit\":0.9", "\"limit\":2", "j:7: /clock_outlier/limit: expected a value in [0, 1], got"},
        {"\"counts\":true", "\"counts\":true,\"why\":1", "j:7: /clock_outlier/why: unknown field"},
        {"\"first_mhz\":1200", "\"first_mhz\":\"1200\"", "j:7: /clock_outlier/first_mhz: expected a number"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        char *at = strstr(again, edits[i].from);
        CHECK(at != NULL);
        if (!at)
            continue;
        snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - again), again, edits[i].to,
                 at + strlen(edits[i].from));
        text = lines_then(dir, 6, edited);
        refused(text, edits[i].want);
        free(text);
    }
}

int main(void)
{
    char dir[] = "/tmp/gdt_clock_outlier_XXXXXX", one[600], two[600];
    gdt_sweep_spec *spec = NULL;
    gdt_error e = {0};
    test_threshold();
    test_kinds();
    test_counts();
    test_cell_clock();
    CHECK(mkdtemp(dir) != NULL);
    ok(gdt_sweep_spec_load("gemm", GDT_TEST_DATA "/sweeps/tiny_gemm.json", false, &spec, &e), &e);
    if (spec) {
        snprintf(one, sizeof one, "%s/one", dir);
        snprintf(two, sizeof two, "%s/two", dir);
        test_journal(one, spec);
        test_refusals(two, spec);
    }
    gdt_sweep_spec_destroy(spec);
    if (!gdt_test_failures)
        CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    return gdt_test_result("test_clock_outlier");
}
