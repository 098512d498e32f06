/* `gdtune candidates gemm --journal RUN` over a synthetic journal written
 * with the typed writer: two GEMM cells (tests/data/sweeps/tiny_gemm.json)
 * and the three contraction rows of tests/data/candidates/wins_rows.json,
 * each row's plan named by materializing the row for the cell (so the
 * match by bound knobs is what is tested), beside a cuDNN plan.
 *
 *   cell 0: row 0 10.0, row 1 10.1 (within 2%), row 2 11.0, cuDNN 9.0
 *   cell 1: row 0 20.0, row 1 25.0, row 2 21.0 (5% off), cuDNN 30.0
 *
 * Row 0: best twice, within the cell's best once (cell 1); row 1 within
 * the best generated once, best ratio 1.01; row 2 dominated, best ratio
 * 1.05.  --within 6 makes row 2 "within" in cell 1.  --among-rows with
 * rows 1 and 2 alone (wins_rows_12.json): the best of their plans is the
 * reference, so row 2 is the best in cell 1 and row 1 in cell 0.  The
 * JSON, CSV and text forms; the refusals (--shape with --journal,
 * --within or --among-rows alone, a run directory twice, a missing
 * journal).  Last, the rows pruned from the defaults stay loadable:
 * tests/data/candidates/all_rows.json (the default rows before the
 * prune and every row added since) is a valid --tuning-config holding
 * every default row and more; so is staged_s37.json in its two families
 * (the defaults and the rows staged on 2026-12-07, for one sweep of
 * both), and staged_s38.json in contraction (the defaults, the two GEMM
 * rows to confirm with rounds and one staged on 2026-12-08), and
 * staged_s39.json (those and four EPILOGUE=1 rows). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_journal.h"
#include "gdt_run.h"
#include "gdt_run_write.h"
#include "gdt_test.h"
#include "gdtune/candidates.h"

#define ROWS GDT_TEST_DATA "/candidates/wins_rows.json"
#define ROWS_12 GDT_TEST_DATA "/candidates/wins_rows_12.json"

static const double times[2][4] = {{10.0, 10.1, 11.0, 9.0}, {20.0, 25.0, 21.0, 30.0}};
static char out[1 << 16];

static void check_ok(gdt_status s, const gdt_error *e)
{
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "  status %d: %s\n", (int)s, e->msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
}

/* The plan names the three rows bind for the cell's problem on sm90. */
static bool row_names(const gdt_row_table *t, const gdt_sweep_cell *c, char names[3][512])
{
    gdt_device_props dev;
    gdt_facts f;
    gdt_candidate *cand = NULL;
    gdt_error e = {0};
    int n = 0;
    CHECK(gdt_arch_limits(90, &dev));
    gdt_facts_analyze(&c->problem, &dev, &f);
    check_ok(gdt_candidates_materialize(t, gdt_manifest_find_name(NULL, "gemm.nvrtc"), &f, &cand, &n, &e), &e);
    CHECK_INT(n, ==, 3);
    bool ok = n == 3;
    for (int i = 0; ok && i < 3; i++) {
        CHECK(!cand[i].rejected && !cand[i].duplicate_of_earlier);
        gdt_plan_id_format(&cand[i].id, names[i], 512);
    }
    free(cand);
    return ok;
}

static cJSON *measured(double t)
{
    cJSON *o = cJSON_CreateObject(), *bursts = cJSON_CreateArray();
    double x[3] = {t, t, t}, err = 1e-3;
    cJSON_AddItemToObject(o, "verify_err", cJSON_CreateDoubleArray(&err, 1));
    cJSON_AddItemToArray(bursts, gdt_test_burst_json(4, x, 3));
    cJSON_AddItemToObject(o, "bursts", bursts);
    cJSON_AddBoolToObject(o, "raced_out", false);
    cJSON_AddNumberToObject(o, "time_us", t);
    cJSON_AddNumberToObject(o, "noise", 0.005);
    cJSON_AddNumberToObject(o, "measure_s", 0.25);
    cJSON_AddNumberToObject(o, "heat_s", 0.1); /* part of measure_s, not beside it */
    cJSON_AddStringToObject(o, "disposition", "verified");
    cJSON_AddStringToObject(o, "error", "");
    return o;
}

static void write_cell(gdt_journal *j, const gdt_row_table *t, int ci, const gdt_sweep_cell *c)
{
    char names[4][512];
    gdt_error e = {0};
    if (!row_names(t, c, names))
        return;
    snprintf(names[3], sizeof names[3], "cudnn.eng0");
    cJSON *plans = cJSON_CreateArray();
    for (int i = 0; i < 4; i++)
        cJSON_AddItemToArray(plans, gdt_test_plan_json(names[i], i == 3 ? "A" : "OURS", i));
    check_ok(gdt_run_write_cell(j, ci, c, &e), &e);
    check_ok(gdt_run_write_plans(j, ci, c, plans, "cudnn.eng0", NULL, NULL, &e), &e);
    for (int i = 0; i < 4; i++) {
        cJSON *m = measured(times[ci][i]);
        gdt_run_result_rec res = {.cell = ci, .plan = i, .family = GDT_FAMILY_GEMM, .name = names[i],
                                  .disposition = GDT_DISP_VERIFIED, .error = "", .measured = m};
        check_ok(gdt_run_write_result(j, &res, &e), &e);
        cJSON_Delete(m);
    }
    cJSON_Delete(plans);
}

static void write_run(const char *dir, const gdt_sweep_spec *spec, const gdt_row_table *t)
{
    gdt_run_options o = {.bursts = {1, 4}, .nbursts = 2, .target_rel = 0.02, .max_plan_seconds = 0.2,
                         .knob_cap = 1, .race = true};
    gdt_journal *j = gdt_test_journal_begin(dir, spec, "Stand-in GPU", "2026-12-06T10:00:00Z", &o);
    if (j) {
        write_cell(j, t, 0, &spec->cells[0]);
        write_cell(j, t, 1, &spec->cells[1]);
    }
    gdt_journal_close(j);
}

/* ------------------------------------------------------------ running */

static int candidates(const char *const *args, int n)
{
    char *argv[16] = {(char *)gdt_test_exe(), "candidates", "gemm", "--tuning-config", ROWS};
    for (int i = 0; i < n && i < 10; i++)
        argv[i + 5] = (char *)args[i];
    return gdt_test_spawn(argv, NULL, out, sizeof out);
}

/* The same over ROWS_12 (rows 1 and 2 of ROWS). */
static int candidates_12(const char *const *args, int n)
{
    char *argv[16] = {(char *)gdt_test_exe(), "candidates", "gemm", "--tuning-config", ROWS_12};
    for (int i = 0; i < n && i < 10; i++)
        argv[i + 5] = (char *)args[i];
    return gdt_test_spawn(argv, NULL, out, sizeof out);
}

static const cJSON *row_of(const cJSON *doc, int i)
{
    const cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "families"), 0);
    return cJSON_GetArrayItem(cJSON_GetObjectItem(f, "rows"), i);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    if (!cJSON_IsNumber(v))
        fprintf(stderr, "  %s: not a number\n", key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void check_row(const cJSON *doc, int i, int best, int gen, int cell, double ratio, const char *verdict)
{
    const cJSON *r = row_of(doc, i);
    CHECK_INT(num(r, "row"), ==, i);
    CHECK_INT(num(r, "listed"), ==, 2);
    CHECK_INT(num(r, "measured"), ==, 2);
    CHECK_INT(num(r, "best"), ==, best);
    CHECK_INT(num(r, "within_generated"), ==, gen);
    CHECK_INT(num(r, "within_cell"), ==, cell);
    CHECK_NEAR(num(r, "best_ratio"), ratio, 1e-12);
    CHECK_NEAR(num(r, "seconds"), 0.5, 1e-12);
    CHECK_NEAR(num(r, "seconds_per_plan"), 0.25, 1e-12);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "verdict")), verdict);
}

static void check_json(const char *dir)
{
    const char *args[] = {"--journal", dir, "--format", "json"};
    CHECK_INT(candidates(args, 4), ==, 0);
    cJSON *doc = cJSON_Parse(out);
    CHECK(doc != NULL);
    if (!doc)
        return fprintf(stderr, "%s\n", out), (void)0;
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "schema")), "gdtune.candidates.wins/1");
    CHECK_NEAR(num(doc, "within"), 0.02, 1e-12); /* the spec sets no noise floor */
    const cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "families"), 0);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(f, "row_family")), "contraction");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(f, "rows_from")), ROWS);
    CHECK_INT(num(f, "cells"), ==, 2);
    CHECK_INT(num(f, "plans"), ==, 6);
    CHECK_INT(num(f, "dominated"), ==, 1);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(row_of(doc, 0), "values")), "[128,128,64,2,2,3,8,0,0,1,2,0,0,0,0,0]");
    check_row(doc, 0, 2, 2, 1, 1.0, "best");
    check_row(doc, 1, 0, 1, 0, 10.1 / 10.0, "within");
    check_row(doc, 2, 0, 0, 0, 21.0 / 20.0, "dominated");
    cJSON_Delete(doc);

    const char *wide[] = {"--journal", dir, "--within", "6", "--format", "json"};
    CHECK_INT(candidates(wide, 6), ==, 0);
    doc = cJSON_Parse(out);
    CHECK(doc != NULL);
    if (doc) {
        CHECK_NEAR(num(doc, "within"), 0.06, 1e-12);
        check_row(doc, 2, 0, 1, 1, 21.0 / 20.0, "within");
    }
    cJSON_Delete(doc);
}

static void check_among_rows(const char *dir)
{
    const char *args[] = {"--journal", dir, "--among-rows", "--format", "json"};
    CHECK_INT(candidates_12(args, 5), ==, 0);
    cJSON *doc = cJSON_Parse(out);
    CHECK(doc != NULL);
    if (doc) {
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(doc, "among_rows")));
        /* cell 0: 10.1 best of {10.1, 11.0}; cell 1: 21.0 best of {25.0, 21.0} */
        check_row(doc, 0, 1, 1, 0, 1.0, "best");
        check_row(doc, 1, 1, 1, 0, 1.0, "best");
    }
    cJSON_Delete(doc);
    const char *all[] = {"--journal", dir, "--format", "json"}; /* every NVRTC plan: row 0's too */
    CHECK_INT(candidates_12(all, 4), ==, 0);
    doc = cJSON_Parse(out);
    CHECK(doc != NULL);
    if (doc) {
        CHECK(cJSON_IsFalse(cJSON_GetObjectItem(doc, "among_rows")));
        check_row(doc, 1, 0, 0, 0, 21.0 / 20.0, "dominated");
    }
    cJSON_Delete(doc);
}

static void check_text_csv(const char *dir)
{
    const char *text[] = {"--journal", dir};
    CHECK_INT(candidates(text, 2), ==, 0);
    CHECK(strstr(out, "within 2% (the first journal's spec sets no noise floor), 1 journal; best generated: of every NVRTC plan\n") != NULL);
    CHECK(strstr(out, "contraction: 1 best, 1 within, 1 dominated, 0 unmeasured; dominated rows: 2\n") != NULL);
    const char *csv[] = {"--journal", dir, "--format", "csv"};
    CHECK_INT(candidates(csv, 4), ==, 0);
    CHECK(strstr(out, "row_family,slot,row,values,listed,measured,best,within_generated,within_cell,"
                      "best_ratio,seconds,seconds_per_plan,verdict\r\n") != NULL);
    CHECK(strstr(out, ",dominated\r\n") != NULL);
}

static void check_refusals(const char *dir)
{
    const char *shape[] = {"--journal", dir, "--shape", "m=64"};
    CHECK_INT(candidates(shape, 4), ==, 2);
    CHECK(strstr(out, "--journal takes each cell's problem") != NULL);
    const char *alone[] = {"--within", "3"};
    CHECK_INT(candidates(alone, 2), ==, 2);
    CHECK(strstr(out, "--within needs --journal") != NULL);
    const char *among[] = {"--among-rows"};
    CHECK_INT(candidates(among, 1), ==, 2);
    CHECK(strstr(out, "--among-rows needs --journal") != NULL);
    const char *twice[] = {"--journal", dir, "--journal", dir};
    CHECK_INT(candidates(twice, 4), ==, 2);
    CHECK(strstr(out, "the run directory again") != NULL);
    const char *missing[] = {"--journal", "/nonexistent/gdt_wins"};
    CHECK_INT(candidates(missing, 2), ==, 2);
    CHECK(strstr(out, "/nonexistent/gdt_wins") != NULL);
}

/* ------------------------------------------------------------ the prune */

static cJSON *read_json(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    cJSON *doc = cJSON_Parse(buf);
    if (!doc)
        fprintf(stderr, "  %s: not JSON\n", path);
    return doc;
}

static bool holds_row(const cJSON *rows, const cJSON *row)
{
    for (const cJSON *r = rows ? rows->child : NULL; r; r = r->next)
        if (cJSON_Compare(r, row, true))
            return true;
    return false;
}

/* The rows file at before_path loads as a --tuning-config and holds, in
 * each of its nfam families, every default row and more. */
static void check_holds_defaults(const char *before_path, const char *const *families, int nfam)
{
    gdt_row_table *t = NULL;
    gdt_error e = {0};
    check_ok(gdt_rows_load_file(before_path, &t, &e), &e);
    gdt_rows_destroy(t);
    cJSON *now = read_json(GDT_SOURCE_DIR "/tables/candidates/nvrtc.json"), *before = read_json(before_path);
    for (int f = 0; now && before && f < nfam; f++) {
        const cJSON *a = cJSON_GetObjectItem(cJSON_GetObjectItem(now, "nvrtc"), families[f]);
        const cJSON *b = cJSON_GetObjectItem(cJSON_GetObjectItem(before, "nvrtc"), families[f]);
        CHECK_INT(cJSON_GetArraySize(b), >, cJSON_GetArraySize(a));
        for (const cJSON *r = a ? a->child : NULL; r; r = r->next)
            if (!holds_row(b, r)) {
                char *txt = cJSON_PrintUnformatted(r);
                fprintf(stderr, "  %s row %s: not in %s\n", families[f], txt ? txt : "?", before_path);
                CHECK(false);
                free(txt);
            }
    }
    CHECK(now && before);
    cJSON_Delete(now);
    cJSON_Delete(before);
}

int main(void)
{
    char root[] = "/tmp/gdt_wins_XXXXXX", dir[600];
    gdt_sweep_spec *spec = NULL;
    gdt_row_table *t = NULL;
    gdt_error e = {0};
    CHECK(mkdtemp(root) != NULL);
    check_ok(gdt_sweep_spec_load("gemm", GDT_TEST_DATA "/sweeps/tiny_gemm.json", false, &spec, &e), &e);
    check_ok(gdt_rows_load_file(ROWS, &t, &e), &e);
    if (spec && spec->ncells == 2 && t) {
        snprintf(dir, sizeof dir, "%s/run", root);
        write_run(dir, spec, t);
        check_json(dir);
        check_among_rows(dir);
        check_text_csv(dir);
        check_refusals(dir);
    }
    CHECK(spec && spec->ncells == 2);
    static const char *const all[] = {"contraction", "attention_fwd", "attention_bwd"};
    check_holds_defaults(GDT_TEST_DATA "/candidates/all_rows.json", all, 3);
    check_holds_defaults(GDT_TEST_DATA "/candidates/staged_s37.json", all, 2);
    check_holds_defaults(GDT_TEST_DATA "/candidates/staged_s38.json", all, 1);
    check_holds_defaults(GDT_TEST_DATA "/candidates/staged_s39.json", all, 1);
    gdt_rows_destroy(t);
    gdt_sweep_spec_destroy(spec);
    if (!gdt_test_failures)
        CHECK_INT(gdt_test_remove_tree(root), ==, 0);
    return gdt_test_result("test_candidates_wins");
}
