/* summary.md's "Where the time went" and the JSON "budget" of `gdtune
 * report`: on the fixture GEMM journal, against sums worked out apart from
 * gdtune, and on a synthetic journal (the typed writer, as test_compare.c)
 * holding every way a plan can end, a cuBLASLt plan tagged OURS as older
 * journals have it, and a rounds record. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_journal.h"
#include "gdt_run.h"
#include "gdt_run_write.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "gdt_worker.h"

static char out[1 << 17];

static void check_ok(gdt_status s, const gdt_error *e)
{
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "  status %d: %s\n", (int)s, e->msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
}

/* ------------------------------------------------------------ running */

/* `gdtune report DIR` and its summary.md (NULL when it failed). */
static char *summary_of(const char *dir)
{
    char md[PATH_MAX], *s = NULL;
    char *av[] = {(char *)gdt_test_exe(), "report", (char *)dir, NULL};
    CHECK_INT(gdt_test_spawn(av, NULL, out, sizeof out), ==, 0);
    snprintf(md, sizeof md, "%s/report/summary.md", dir);
    CHECK_INT(gdt_file_read(md, &s, NULL, NULL), ==, GDT_STATUS_OK);
    return s;
}

/* `gdtune report DIR --format json` (stderr notes may come before it). */
static cJSON *json_of(const char *dir)
{
    char *av[] = {(char *)gdt_test_exe(), "report", (char *)dir, "--format", "json", NULL};
    CHECK_INT(gdt_test_spawn(av, NULL, out, sizeof out), ==, 0);
    const char *start = strstr(out, "{\n\t\"schema\"");
    cJSON *doc = start ? cJSON_Parse(start) : NULL;
    if (!doc)
        fprintf(stderr, "no JSON document in:\n%s\n", out);
    return doc;
}

/* One row of the budget, as the JSON has it and the table prints it. */
typedef struct want_row {
    const char *side, *kind; /* JSON: side NULL is null (the rounds row) */
    int plans;
    double measure_s, build_s, heat_s;
} want_row;

static void check_row(const cJSON *o, const want_row *w, double tol)
{
    const cJSON *side = cJSON_GetObjectItemCaseSensitive(o, "side");
    if (w->side)
        CHECK_STR(cJSON_GetStringValue(side), w->side);
    else
        CHECK(cJSON_IsNull(side));
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "kind")), w->kind);
    CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "plans")), ==, w->plans);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "measure_s")), w->measure_s, tol);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "build_s")), w->build_s, tol);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "heat_s")), w->heat_s, tol);
}

/* The document's budget is want, row for row, then the total. */
static void check_json(const cJSON *doc, const want_row *want, int n, const want_row *total, double tol)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(doc, "budget");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, "budget_total");
    CHECK_INT(cJSON_GetArraySize(b), ==, n);
    for (int i = 0; i < n && i < cJSON_GetArraySize(b); i++)
        check_row(cJSON_GetArrayItem(b, i), &want[i], tol);
    CHECK_INT(cJSON_GetArraySize(t), ==, 4); /* plans, measure_s, build_s, heat_s: no side, no kind */
    CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "plans")), ==, total->plans);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "measure_s")), total->measure_s, tol);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "build_s")), total->build_s, tol);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "heat_s")), total->heat_s, tol);
}

/* The section sits after the declines and before the ceiling. */
static void check_place(const char *md)
{
    const char *dec = strstr(md, "\n## Declined plans by reason");
    const char *sec = strstr(md, "\n## Where the time went\n");
    const char *ceil = strstr(md, "\n## Fraction of the measured ceiling");
    CHECK(dec && sec && ceil && dec < sec && sec < ceil);
    CHECK_CONTAINS(md, "\n| side | how it ended | plans | measure s | of which heat-up s | build s |\n"
                       "|---|---|---:|---:|---:|---:|\n");
}

/* ------------------------------------------------------------ fixture */

/* The fixture's figures, worked out with python3 over the gunzipped
 * journal, apart from gdtune: per result record, the side from the plan's
 * name (cudnn.* the backend, gemm.cublaslt* the library, else ours), the
 * kind from disposition, raced_late, raced_out and converged (the fixture
 * predates racing: no raced_* keys), and sum(r.get("measure_s", 0)),
 * sum(r.get("build_s", 0)).  530 results, no rounds record. */
static const want_row fixture_rows[] = {
    {"ours", "converged", 89, 14.7447, 0.1004, 0},
    {"ours", "not_converged", 127, 116.8679, 0.1608, 0},
    {"backend", "converged", 65, 10.0988, 19.2700, 0},
    {"backend", "not_converged", 170, 97.2298, 49.6182, 0},
    {"backend", "declined", 79, 0.0, 0.0113, 0},
};
static const want_row fixture_total = {NULL, NULL, 530, 238.9412, 69.1607, 0};

static void test_fixture(const char *root)
{
    char dir[PATH_MAX], journal[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/fixture", root);
    snprintf(journal, sizeof journal, "%s/journal.jsonl", dir);
    gdt_error e = {0};
    check_ok(gdt_mkdirs(dir, &e), &e);
    CHECK_INT(gdt_test_gunzip_to(GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz", journal), ==, 0);
    char *md = summary_of(dir);
    check_place(md);
    CHECK_CONTAINS(md, "\n| ours | measured in full, converged | 89 | 14.7 | 0.0 | 0.1 |\n"
                       "| ours | measured in full, not converged (time cap) | 127 | 116.9 | 0.0 | 0.2 |\n"
                       "| cuDNN | measured in full, converged | 65 | 10.1 | 0.0 | 19.3 |\n");
    CHECK_CONTAINS(md, "\n| cuDNN | declined | 79 | 0.0 | 0.0 | 0.0 |\n"
                       "| **total** | | **530** | **238.9** | **0.0** | **69.2** |\n"); /* before the heat-up */
    CHECK_CONTAINS(md, "\nPer side: ours 216 plans, measure 131.6 s, build 0.3 s; cuDNN 314 plans, "
                       "measure 107.3 s, build 68.9 s.\n");
    /* rows only for what the run has: no library plan, no racing, no rounds */
    CHECK(!strstr(md, "\n| cuBLASLt |") && !strstr(md, "| raced out ") && !strstr(md, "| rounds (--rounds) |"));
    CHECK(!strstr(md, "\nPrebuild: ")); /* a journal from before the prebuild */
    CHECK_CONTAINS(md, "harness/measure.c");
    free(md);
    cJSON *doc = json_of(dir);
    check_json(doc, fixture_rows, (int)(sizeof fixture_rows / sizeof *fixture_rows), &fixture_total, 1e-4);
    CHECK(!cJSON_GetObjectItemCaseSensitive(doc, "budget_prebuild"));
    cJSON_Delete(doc);
}

/* ------------------------------------------------------------ synthetic */

typedef enum ending { CONV, NOT_CONV, RACED, LATE, DECLINED, INCORRECT, FAILED } ending;

/* One plan and what its result journals; a negative second counts as
 * absent from the record. */
typedef struct plan_row {
    const char *name, *tag;
    ending how;
    double measure_s, build_s;
    double heat_s; /* 0: none journaled */
} plan_row;

#define GEN(cfg) "gemm.nvrtc[GROUP_M=8, MMA=1, STAGES=4, TILEK=64, " cfg ", WARPS_M=8, WARPS_N=1]"

/* Seconds are sums of powers of two, so that the expected sums are exact,
 * and no sum is a tie at one decimal (printf rounds those to even). */
static const plan_row cell0[] = {
    {"cudnn.eng0", "A", CONV, 2.0, 1.5, 0.25},
    {"cudnn.eng1[KERNEL_CFG=3]", "B", RACED, 0.375, 0.5, 0},
    {GEN("TILE_M=128, TILE_N=128"), "OURS", CONV, 1.0, 0.25, 0},
    {GEN("TILE_M=64, TILE_N=128"), "OURS", NOT_CONV, 3.0, 0.25, 0},
    {GEN("TILE_M=128, TILE_N=64"), "OURS", LATE, 1.5, 0.125, 0.5},
    {GEN("TILE_M=64, TILE_N=64"), "OURS", RACED, 0.125, 0.125, 0},
    {GEN("TILE_M=256, TILE_N=64"), "OURS", INCORRECT, -1, 0.5, 0},
    {GEN("TILE_M=64, TILE_N=256"), "OURS", FAILED, -1, -1, 0}, /* no reply: nothing journaled */
    {GEN("TILE_M=128, TILE_N=256"), "OURS", DECLINED, -1, 0.0625, 0},
    {"gemm.hand[GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]", "OURS", CONV, 1.0, -1, 0},
    {"gemm.cublaslt[ALGO=66, TILE_SIZE=20]", "LIBRARY", NOT_CONV, 2.5, 0.0625, 0},
    {"gemm.cublaslt[ALGO=31, SPLIT_K=2, TILE_SIZE=20]", "OURS", CONV, 0.5, -1, 0}, /* the library's all the same */
};
#define NCELL0 ((int)(sizeof cell0 / sizeof *cell0))
/* The rounds record: plans 0, 2 and 9 (measured in full), 4.5 s. */
static const int rounds_plans[] = {0, 2, 9};
#define ROUNDS_S 4.5

static const want_row synthetic_rows[] = {
    {"ours", "converged", 2, 2.0, 0.25, 0},    {"ours", "not_converged", 1, 3.0, 0.25, 0},
    {"ours", "raced_out", 1, 0.125, 0.125, 0}, {"ours", "raced_late", 1, 1.5, 0.125, 0.5},
    {"ours", "declined", 1, 0, 0.0625, 0},     {"ours", "incorrect", 1, 0, 0.5, 0},
    {"ours", "failed", 1, 0, 0, 0},            {"backend", "converged", 1, 2.0, 1.5, 0.25},
    {"backend", "raced_out", 1, 0.375, 0.5, 0}, {"library", "converged", 1, 0.5, 0, 0},
    {"library", "not_converged", 1, 2.5, 0.0625, 0}, {NULL, "rounds", 3, ROUNDS_S, 0, 0},
};
/* Every plan once (12), the rounds' seconds in: 12.0 + 4.5 s, 3.375 s;
 * heat-ups 0.75 s. */
static const want_row synthetic_total = {NULL, NULL, 12, 16.5, 3.375, 0.75};

/* The measurement a worker would send: one burst of 8, the flags of p's
 * ending (raced_late comes with raced_out, as measure.c writes it). */
static void add_measured(cJSON *o, const plan_row *p)
{
    double x[3] = {10, 10, 10};
    cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "bursts"), gdt_test_burst_json(8, x, 3));
    cJSON_AddBoolToObject(o, "converged", p->how == CONV);
    cJSON_AddBoolToObject(o, "raced_out", p->how == RACED || p->how == LATE);
    if (p->how == LATE)
        cJSON_AddTrueToObject(o, "raced_late");
    cJSON_AddNumberToObject(o, "measure_s", p->measure_s);
    if (p->heat_s > 0)
        cJSON_AddNumberToObject(o, "heat_s", p->heat_s);
    cJSON_AddNumberToObject(o, "time_us", 10);
    cJSON_AddNumberToObject(o, "noise", 0.01);
}

static gdt_disposition disposition_of(ending how)
{
    return how == DECLINED ? GDT_DISP_DECLINED
         : how == INCORRECT ? GDT_DISP_INCORRECT
         : how == FAILED    ? GDT_DISP_FAILED
                            : GDT_DISP_VERIFIED;
}

/* NULL for a plan whose worker sent nothing. */
static cJSON *measured(const plan_row *p)
{
    if (p->how == FAILED)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    double err = 1e-3;
    if (p->how != DECLINED)
        cJSON_AddItemToObject(o, "verify_err", cJSON_CreateDoubleArray(&err, 1));
    if (disposition_of(p->how) == GDT_DISP_VERIFIED)
        add_measured(o, p);
    if (p->build_s >= 0)
        cJSON_AddNumberToObject(o, "build_s", p->build_s);
    return o;
}

static void write_results(gdt_journal *j, const gdt_sweep_cell *c)
{
    gdt_error e = {0};
    cJSON *plans = cJSON_CreateArray();
    for (int i = 0; i < NCELL0; i++)
        cJSON_AddItemToArray(plans, gdt_test_plan_json(cell0[i].name, cell0[i].tag, i));
    check_ok(gdt_run_write_cell(j, 0, c, &e), &e);
    const gdt_run_prebuild pb = {.threads = 4, .prebuilt = 2, .seconds = 0.75};
    check_ok(gdt_run_write_plans(j, 0, c, plans, "cudnn.eng0", NULL, &pb, &e), &e);
    for (int i = 0; i < NCELL0; i++) {
        gdt_disposition d = disposition_of(cell0[i].how);
        cJSON *m = measured(&cell0[i]);
        gdt_run_result_rec res = {.cell = 0, .plan = i, .family = GDT_FAMILY_GEMM, .name = cell0[i].name,
                                  .disposition = d, .error = d == GDT_DISP_VERIFIED ? "" : "stand-in",
                                  .measured = m};
        check_ok(gdt_run_write_result(j, &res, &e), &e);
        cJSON_Delete(m);
    }
    cJSON_Delete(plans);
}

static void write_rounds(gdt_journal *j, const gdt_sweep_cell *c)
{
    static const double per_round[3] = {10, 10, 10};
    gdt_run_rounds_rec r = {.cell = 0, .spec = c, .nplans = 3, .rounds = 3, .error = "", .seconds = ROUNDS_S};
    gdt_error e = {0};
    for (int i = 0; i < 3; i++) {
        r.plans[i] = rounds_plans[i];
        r.time_us[i] = 10;
        r.noise[i] = 0.01;
        r.ratios[i] = 1;
        r.round_us[i] = per_round;
    }
    check_ok(gdt_run_write_rounds(j, &r, &e), &e);
}

static void write_run(const char *dir, const gdt_sweep_spec *spec)
{
    gdt_run_options o = {.bursts = {8}, .nbursts = 1, .target_rel = 0.01, .max_plan_seconds = 0.5,
                         .knob_cap = 1, .race = true, .rounds = 3};
    gdt_journal *j = gdt_test_journal_begin(dir, spec, "Stand-in GPU", "2026-12-02T10:00:00Z", &o);
    if (j) {
        write_results(j, &spec->cells[0]);
        write_rounds(j, &spec->cells[0]);
    }
    gdt_journal_close(j);
}

static void test_synthetic(const char *root)
{
    char dir[PATH_MAX];
    gdt_sweep_spec *spec = NULL;
    gdt_error e = {0};
    snprintf(dir, sizeof dir, "%s/synthetic", root);
    check_ok(gdt_sweep_spec_load("gemm", GDT_TEST_DATA "/sweeps/tiny_gemm.json", false, &spec, &e), &e);
    if (!spec)
        return;
    write_run(dir, spec);
    gdt_sweep_spec_destroy(spec);
    char *md = summary_of(dir);
    check_place(md);
    CHECK_CONTAINS(md, "\n| ours | raced out at the first estimate | 1 | 0.1 | 0.0 | 0.1 |\n"
                       "| ours | raced out late (largest burst) | 1 | 1.5 | 0.5 | 0.1 |\n"
                       "| ours | declined | 1 | 0.0 | 0.0 | 0.1 |\n| ours | incorrect | 1 | 0.0 | 0.0 | 0.5 |\n"
                       "| ours | failed | 1 | 0.0 | 0.0 | 0.0 |\n"
                       "| cuDNN | measured in full, converged | 1 | 2.0 | 0.2 | 1.5 |\n");
    CHECK_CONTAINS(md, "\n| cuBLASLt | measured in full, converged | 1 | 0.5 | 0.0 | 0.0 |\n"
                       "| cuBLASLt | measured in full, not converged (time cap) | 1 | 2.5 | 0.0 | 0.1 |\n"
                       "| — | rounds (--rounds) | 3 | 4.5 | — | — |\n"
                       "| **total** | | **12** | **16.5** | **0.8** | **3.4** |\n");
    CHECK_CONTAINS(md, "\nPer side: ours 8 plans, measure 6.6 s, build 1.3 s; cuDNN 2 plans, measure 2.4 s, "
                       "build 2.0 s; cuBLASLt 2 plans, measure 3.0 s, build 0.1 s; rounds apart.\n");
    CHECK_CONTAINS(md, "rounds apart.\n\nPrebuild: 2 cuDNN plans built ahead in 1 cells, 0.8 s of wall time "
                       "(their build times, summed over the threads, are in the build column).\n");
    CHECK_CONTAINS(md, "with parallel prebuild the build column sums thread time");
    free(md);
    cJSON *doc = json_of(dir);
    check_json(doc, synthetic_rows, (int)(sizeof synthetic_rows / sizeof *synthetic_rows), &synthetic_total, 0);
    const cJSON *pb = cJSON_GetObjectItemCaseSensitive(doc, "budget_prebuild");
    CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(pb, "cells")), ==, 1);
    CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(pb, "plans")), ==, 2);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(pb, "prebuild_s")), 0.75, 0);
    cJSON_Delete(doc);
}

int main(void)
{
    char root[] = "/tmp/gdt_report_budget_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    test_fixture(root);
    test_synthetic(root);
    if (!gdt_test_failures)
        CHECK_INT(gdt_test_remove_tree(root), ==, 0);
    return gdt_test_result("test_report_budget");
}
