/* The tables' time model: a fit on measurements that follow a known law
 * recovers the order on held-back shapes; the same cells give the same
 * bytes; the loader refuses a malformed model by its JSON path; the
 * committed tables' cross-validation figures are what the writer computes
 * from their own measurements; the planner orders an unswept shape by
 * prediction (ties within the model's error keep the given order) and
 * OPENSOURCE keeps the measured order of ours in a swept cell. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts_support.h"
#include "gdt_emit.h"
#include "gdt_json.h"
#include "gdt_predict.h"
#include "gdt_test.h"
#include "plan_support.h"
#include "gdt_util.h"
#include "gdtune/plan.h"

static char root[256];

static void provenance(gdt_provenance *v)
{
    memset(v, 0, sizeof *v);
    snprintf(v->device_name, sizeof v->device_name, "synthetic");
    v->arch = 90;
    snprintf(v->gdtune_version, sizeof v->gdtune_version, "%s", GDT_VERSION_STRING);
}

static gdt_plan_id our_plan(int64_t tm, int64_t tn)
{
    gdt_plan_id id = {.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, 0)};
    gdt_plan_id_set_knob(&id, GDT_KNOB_TILE_M, tm);
    gdt_plan_id_set_knob(&id, GDT_KNOB_TILE_N, tn);
    gdt_plan_id_set_knob(&id, GDT_KNOB_STAGES, 3);
    return id;
}

/* ------------------------------------------------------------ the law */

enum { NTILES = 4 };
static const int64_t tiles[NTILES][2] = {{128, 256}, {128, 128}, {64, 128}, {64, 64}};
static const double eff[NTILES] = {1.0, 0.8, 0.65, 0.5};

/* Device time of a tile shape: whole waves of tiles over 132 SMs, each
 * tile's work at the tile's efficiency, plus a launch floor. */
static double law(int t, int64_t m, int64_t n, int64_t k)
{
    int64_t nt = ((m + tiles[t][0] - 1) / tiles[t][0]) * ((n + tiles[t][1] - 1) / tiles[t][1]);
    double waves = (double)((nt + 131) / 132);
    return 3.0 + waves * 2.0 * (double)(tiles[t][0] * tiles[t][1]) * (double)k / (eff[t] * 4e5);
}

static gdt_measured_plan lawful(int t, int pos, int64_t m, int64_t n, int64_t k)
{
    return (gdt_measured_plan){.id = our_plan(tiles[t][0], tiles[t][1]), .mode = GDT_MODE_A,
                               .untimed_position = pos, .time_us = law(t, m, n, k), .noise = 0.002,
                               .host_us = 4, .samples = 10};
}

enum { NTRAIN = 8 };
static gdt_measured_plan plans[NTRAIN][NTILES + 1];
static gdt_measured_cell cells[NTRAIN];

static void law_cells(void)
{
    static const int64_t ms[] = {128, 512, 2048, 8192}, ns[] = {1024, 4096};
    gdt_error e;
    for (int i = 0; i < NTRAIN; i++) {
        char shape[64];
        int64_t m = ms[i % 4], n = ns[i / 4], k = 4096;
        snprintf(shape, sizeof shape, "m=%lld,n=%lld,k=%lld", (long long)m, (long long)n, (long long)k);
        CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, shape, &cells[i].problem, &e), ==, GDT_STATUS_OK);
        double best = INFINITY;
        for (int t = 0; t < NTILES; t++) {
            plans[i][t] = lawful(t, 1 + t, m, n, k);
            best = fmin(best, plans[i][t].time_us);
        }
        gdt_plan_id b = {.engine_id = 7};
        plans[i][NTILES] = (gdt_measured_plan){.id = b, .is_backend = true, .mode = GDT_MODE_A,
                                               .time_us = 0.8 * best, .noise = 0.002, .samples = 10};
        cells[i].plans = plans[i];
        cells[i].nplans = NTILES + 1;
    }
}

static void write_law(const char *sub)
{
    gdt_provenance prov;
    gdt_error e;
    char dir[512];
    provenance(&prov);
    snprintf(dir, sizeof dir, "%s/%s/sm90", root, sub);
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, cells, NTRAIN, &e), ==, GDT_STATUS_OK);
}

static gdt_tables *load(const char *dir)
{
    gdt_tables *t = NULL;
    gdt_error e;
    gdt_error_clear(&e);
    CHECK_INT(gdt_tables_load(dir, GDT_FAMILY_GEMM, 90, &t, &e), ==, GDT_STATUS_OK);
    if (e.msg[0]) fprintf(stderr, "%s\n", e.msg);
    return t;
}

/* Held-back shapes between the swept ones: the model's first plan is the
 * law's best, and every pair the law separates by more than 25% is in
 * the law's order. */
static void test_law_recovered(void)
{
    static const int64_t ms[] = {256, 1024, 4096}, ns[] = {2048, 3072};
    char dir[512];
    write_law("law");
    snprintf(dir, sizeof dir, "%s/law", root);
    gdt_tables *t = load(dir);
    gdt_plan_id ids[NTILES];
    for (int i = 0; i < NTILES; i++) ids[i] = our_plan(tiles[i][0], tiles[i][1]);
    for (int a = 0; t && a < 3; a++)
        for (int b = 0; b < 2; b++) {
            char shape[64];
            int order[NTILES];
            bool lead = true;
            gdt_facts f;
            snprintf(shape, sizeof shape, "m=%lld,n=%lld", (long long)ms[a], (long long)ns[b]);
            test_facts(GDT_FAMILY_GEMM, shape, 90, &f);
            CHECK(gdt_tables_predict_order(t, &f, ids, NTILES, order, &lead));
            CHECK(!lead); /* the backend runs 0.8x of our best everywhere */
            double lt[NTILES], best = INFINITY;
            for (int i = 0; i < NTILES; i++) best = fmin(best, lt[i] = law(i, ms[a], ns[b], 4096));
            CHECK(lt[order[0]] <= best * 1.05);
            for (int i = 0; i < NTILES; i++)
                for (int j = i + 1; j < NTILES; j++)
                    CHECK(!(lt[order[j]] * 1.25 < lt[order[i]]));
            gdt_plan_time pt;
            gdt_tables_plan_time(t, &f, &ids[order[0]], &pt);
            CHECK_INT(pt.source, ==, GDT_TIME_PREDICTED);
            CHECK(fabs(pt.time_us / lt[order[0]] - 1) < 0.25);
            CHECK_INT(pt.ncells, ==, NTRAIN);
        }
    gdt_model_cv cv;
    CHECK(gdt_tables_model_cv(t, &cv));
    CHECK_INT(cv.ncells, ==, NTRAIN);
    CHECK(cv.geomean[1] < 1.05);
    /* A swept shape gives the measurement, not the model. */
    gdt_facts f;
    gdt_plan_time pt;
    test_facts(GDT_FAMILY_GEMM, "m=512,n=1024,k=4096", 90, &f);
    gdt_tables_plan_time(t, &f, &ids[3], &pt);
    CHECK_INT(pt.source, ==, GDT_TIME_MEASURED);
    CHECK(fabs(pt.time_us - law(3, 512, 1024, 4096)) < 1e-3 * pt.time_us);
    gdt_tables_destroy(t);
}

static char *slurp(const char *path, size_t *n)
{
    char *text = NULL;
    gdt_error e;
    CHECK_INT(gdt_file_read(path, &text, n, &e), ==, GDT_STATUS_OK);
    return text;
}

static void test_deterministic(void)
{
    char a[600], b[600];
    size_t na = 0, nb = 0;
    write_law("d1");
    write_law("d2");
    snprintf(a, sizeof a, "%s/d1/sm90/gemm.placement.json", root);
    snprintf(b, sizeof b, "%s/d2/sm90/gemm.placement.json", root);
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    CHECK(x && y && na == nb && !memcmp(x, y, na));
    CHECK_CONTAINS(x, "\"model\": {\n    \"form\": \"log_linear\"");
    free(x);
    free(y);
}

/* ------------------------------------------------------------- refusals */

/* The placement table src with one substring replaced must be refused
 * naming want. */
static void refuse_in(const char *src, const char *from, const char *to, const char *want)
{
    char dst[600];
    size_t n = 0;
    gdt_error e;
    snprintf(dst, sizeof dst, "%s/bad.placement.json", root);
    char *text = slurp(src, &n), *at = text ? strstr(text, from) : NULL;
    CHECK(at != NULL);
    if (!at) return free(text);
    char *out = malloc(n + strlen(to) + 1);
    size_t pre = (size_t)(at - text);
    memcpy(out, text, pre);
    strcpy(out + pre, to);
    strcat(out, at + strlen(from));
    CHECK_INT(gdt_file_write_atomic(dst, out, strlen(out), &e), ==, GDT_STATUS_OK);
    gdt_error_clear(&e);
    CHECK_INT(gdt_table_check_file(dst, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, want);
    free(out);
    free(text);
}

/* The written placement table with one substring replaced must be refused
 * naming want. */
static void refuse(const char *from, const char *to, const char *want)
{
    char src[600];
    snprintf(src, sizeof src, "%s/law/sm90/gemm.placement.json", root);
    refuse_in(src, from, to, want);
}

/* refuse() on the span from `start` through the first `end` after it. */
static void refuse_span(const char *start, char end, const char *to, const char *want)
{
    char src[600];
    size_t n = 0;
    snprintf(src, sizeof src, "%s/law/sm90/gemm.placement.json", root);
    char *text = slurp(src, &n), *a = text ? strstr(text, start) : NULL, *b = a ? strchr(a, end) : NULL;
    CHECK(b != NULL);
    if (b) {
        b[1] = 0;
        refuse(a, to, want);
    }
    free(text);
}

static void test_refusals(void)
{
    refuse_span("\"ratio\": {", '}', "\"ratio\": [0, 0, 0, 0, 0]",
                "/model/ratio: expected an object or null, got array");
    refuse("\"quadratic\": [", "\"quadratic\": [1, ",
           "/model/ratio/quadratic: expected 10 numbers (one per pair of features), got 11");
    refuse("\"linear\": [", "\"linear\": [1, ",
           "/model/ratio/linear: expected 5 numbers (the intercept, then one per feature), got 6");
    refuse_span("\"hi\": [", ']', "\"hi\": [-1e9, 1e9, 1e9, 1e9]", "/model/ratio/hi/0: expected hi >= lo");
    refuse("\"lo\": [", "\"low\": [", "/model/ratio/low: unknown field \"low\"");
    refuse("\"form\": \"log_linear\"", "\"form\": \"cubic\"",
           "/model/form: expected one of log_linear, got \"cubic\"");
    refuse("\"log_steps\"", "\"log_stages\"",
           "/model/features/1: expected \"log_steps\" (this release's feature 1), got \"log_stages\"");
    refuse("\"sm_count\": 132, ", "", "/model: missing required field \"sm_count\"");
    refuse("\"lead\": \"", "\"lead\": \"x", "/model/lead: expected one of ratio, direct, got \"x");
    refuse_span("\"lead\"", ',', "", "/model: missing required field \"lead\"");
    refuse("\"sm_count\": 132", "\"sm_count\": 132, \"extra\": 1", "/model/extra: unknown field \"extra\"");
    refuse("\"sm_count\": 132", "\"sm_count\": 0", "/model/sm_count: expected an integer in [1,");
    refuse("\"cv\": {\"cells\": 8, \"median_abs_error\": ", "\"cv\": {\"cells\": 8, \"median_abs_error\": -",
           "/model/cv/median_abs_error: expected an error >= 0");
    refuse("\"OPENSOURCE\": {\"geomean\": ", "\"OPENSOURCE\": {\"geomean\": 0.",
           "/model/cv/OPENSOURCE/geomean: expected a ratio >= 1");
    refuse("\"slope\": [", "\"slope\": [1, ", "/model/plans/0/slope: expected 4 numbers (one per feature), got 5");
    refuse("\"is_backend\": true, \"cells\"", "\"is_backend\": false, \"cells\"", "/model/plans/0/is_backend");
    refuse("\"model\": {", "\"modell\": {", "/modell: unknown field \"modell\"");
    /* sdpa's placement ratio has features of its own (the per-head work),
     * named and centred; gemm's is the model's */
    const char *fwd = GDT_SOURCE_DIR "/tables/sm90/sdpa_fwd.placement.json";
    refuse_in(fwd, "\"log_head_flops\"", "\"log_head\"",
              "/model/ratio/features/2: expected \"log_head_flops\" (this release's feature 2), got \"log_head\"");
    refuse_in(fwd, "\"features\": [\"log_steps\", \"log_flops\"", "\"names\": [\"log_steps\", \"log_flops\"",
              "/model/ratio/names: unknown field \"names\"");
    refuse_in(fwd, "\"log_gqa\"", "\"log_kv\"",
              "/model/ratio/features/3: expected \"log_gqa\" (this release's feature 3), got \"log_kv\"");
    refuse_in(fwd, "\"log_gqa\"], \"center\": [", "\"log_gqa\"], \"center\": [1, ",
              "/model/ratio/center: expected 4 numbers (one per feature), got 5");
    refuse_in(fwd, "\"linear\": [", "\"linear\": [1, ",
              "/model/ratio/linear: expected 5 numbers (the intercept, then one per feature), got 6");
    refuse("\"ratio\": {", "\"ratio\": {\"features\": [], ", "/model/ratio/features: unknown field \"features\"");
    refuse("\"ratio\": {\"lambda\": ", "\"ratio\": {\"lambda\": -", "/model/ratio/lambda: expected lambda >= 0, got -");
    refuse_span("\"ratio\": {\"lambda\"", ',', "\"ratio\": {", "/model/ratio: missing required field \"lambda\"");
}

/* ------------------------------------------------ the committed tables */

static gdt_mode mode_of(const char *s)
{
    gdt_mode m;
    return gdt_mode_parse(s, &m, NULL) == GDT_STATUS_OK ? m : GDT_MODE_COUNT;
}

/* One ranked entry of a tuning table back to the writer's input. */
static void measured_of(const cJSON *x, gdt_measured_plan *p)
{
    gdt_error e;
    memset(p, 0, sizeof *p);
    CHECK_INT(gdt_plan_id_parse(cJSON_GetStringValue(gdt_json_get(x, "plan")), &p->id, &e), ==, GDT_STATUS_OK);
    p->id.engine_id = (int64_t)gdt_json_num_or(x, "engine_id", 0);
    p->is_backend = cJSON_IsTrue(gdt_json_get(x, "is_backend"));
    p->mode = mode_of(cJSON_GetStringValue(gdt_json_get(x, "mode")));
    p->untimed_position = (int)gdt_json_num_or(x, "untimed_position", 0);
    p->time_us = gdt_json_num_or(x, "time_us", 0);
    p->noise = gdt_json_num_or(x, "noise", 0);
    p->host_us = gdt_json_num_or(x, "host_us", 0);
    p->samples = (int)gdt_json_num_or(x, "samples", 0);
}

static void read_prov(const cJSON *o, gdt_provenance *v)
{
    memset(v, 0, sizeof *v);
    snprintf(v->device_name, sizeof v->device_name, "%s", cJSON_GetStringValue(gdt_json_get(o, "device_name")));
    v->arch = (int)gdt_json_num_or(o, "arch", 0);
    v->driver_version = (int)gdt_json_num_or(o, "driver_version", 0);
    v->cuda_version = (int)gdt_json_num_or(o, "cuda_version", 0);
    v->cudnn_version = (int)gdt_json_num_or(o, "cudnn_version", 0);
    v->nvrtc_version = (int)gdt_json_num_or(o, "nvrtc_version", 0);
    snprintf(v->gdtune_version, sizeof v->gdtune_version, "%s", cJSON_GetStringValue(gdt_json_get(o, "gdtune_version")));
    snprintf(v->source_digest, sizeof v->source_digest, "%s", cJSON_GetStringValue(gdt_json_get(o, "source_digest")));
    snprintf(v->sweep_digest, sizeof v->sweep_digest, "%s", cJSON_GetStringValue(gdt_json_get(o, "sweep_digest")));
    snprintf(v->candidates_digest, sizeof v->candidates_digest, "%s",
             cJSON_GetStringValue(gdt_json_get(o, "candidates_digest")));
}

/* The figures of a placement table's model/cv, [cells, error, A geomean,
 * A worst, OPENSOURCE geomean, OPENSOURCE worst]. */
static void cv_of(const char *text, size_t n, double v[6])
{
    cJSON *r = NULL;
    gdt_error e;
    memset(v, 0, 6 * sizeof *v);
    CHECK_INT(gdt_json_parse(text, n, "placement", &r, &e), ==, GDT_STATUS_OK);
    const cJSON *cv = gdt_json_get(gdt_json_get(r, "model"), "cv");
    v[0] = gdt_json_num_or(cv, "cells", 0);
    v[1] = gdt_json_num_or(cv, "median_abs_error", 0);
    v[2] = gdt_json_num_or(gdt_json_get(cv, "A"), "geomean", 0);
    v[3] = gdt_json_num_or(gdt_json_get(cv, "A"), "worst", 0);
    v[4] = gdt_json_num_or(gdt_json_get(cv, "OPENSOURCE"), "geomean", 0);
    v[5] = gdt_json_num_or(gdt_json_get(cv, "OPENSOURCE"), "worst", 0);
    cJSON_Delete(r);
}

/* The committed gemm tuning table holds every verified measurement (times
 * to 6 digits): the writer given them again, with the validation sweep the
 * committed tables were emitted with (its figures weigh in the model's
 * choice), cross-validates to the committed placement table's figures. */
static void test_committed_figures(void)
{
    size_t n = 0, m = 0;
    char *text = slurp(GDT_SOURCE_DIR "/tables/sm90/gemm.tuning.json", &n);
    char *want = slurp(GDT_SOURCE_DIR "/tables/sm90/gemm.placement.json", &m);
    cJSON *root_j = NULL;
    gdt_error e;
    CHECK_INT(gdt_json_parse(text, n, "gemm.tuning.json", &root_j, &e), ==, GDT_STATUS_OK);
    const cJSON *cs = gdt_json_get(root_j, "cells");
    int nc = cJSON_GetArraySize(cs), i = 0;
    gdt_measured_cell *c = calloc((size_t)nc, sizeof *c);
    for (const cJSON *x = cs ? cs->child : NULL; x; x = x->next, i++) {
        const cJSON *r = gdt_json_get(x, "ranking"), *pr = gdt_json_get(x, "problem");
        char shape[256];
        snprintf(shape, sizeof shape, "m=%d,n=%d,k=%d", (int)gdt_json_num_or(pr, "m", 0),
                 (int)gdt_json_num_or(pr, "n", 0), (int)gdt_json_num_or(pr, "k", 0));
        CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, shape, &c[i].problem, &e), ==, GDT_STATUS_OK);
        c[i].plans = calloc((size_t)cJSON_GetArraySize(r), sizeof *c[i].plans);
        for (const cJSON *y = r->child; y; y = y->next) measured_of(y, &c[i].plans[c[i].nplans++]);
    }
    gdt_provenance prov;
    read_prov(gdt_json_get(root_j, "provenance"), &prov);
    char dir[512], got_path[600], vdir[512], vjournal[600];
    snprintf(vdir, sizeof vdir, "%s/val-gemm", root);
    snprintf(vjournal, sizeof vjournal, "%s/journal.jsonl", vdir);
    CHECK_INT(mkdir(vdir, 0700), ==, 0);
    CHECK_INT(gdt_test_gunzip_to(GDT_SOURCE_DIR "/runs/sm90/validation/gemm-validation.journal.jsonl.gz", vjournal),
              ==, 0);
    gdt_run_cells v = {0};
    const char *vdirs[] = {vdir};
    CHECK_INT(gdt_run_cells_load(vdirs, 1, &v, &e), ==, GDT_STATUS_OK);
    snprintf(dir, sizeof dir, "%s/committed/sm90", root);
    CHECK_INT(gdt_tables_write_validated(dir, GDT_FAMILY_GEMM, &prov, c, nc, v.cells[GDT_FAMILY_GEMM],
                                         v.n[GDT_FAMILY_GEMM], &e), ==, GDT_STATUS_OK);
    gdt_run_cells_free(&v);
    snprintf(got_path, sizeof got_path, "%s/gemm.placement.json", dir);
    size_t ng = 0;
    char *got = slurp(got_path, &ng);
    double a[6], b[6];
    cv_of(got, ng, a);
    cv_of(want, m, b);
    CHECK(a[0] == b[0] && b[0] >= GDT__PREDICT_MIN_CELLS); /* the committed grid's cells */
    for (int j = 1; j < 6; j++) CHECK(fabs(a[j] - b[j]) <= 1e-3 * b[j]);
    /* The figures as the loader reads them. */
    gdt_tables *t = load(GDT_SOURCE_DIR "/tables");
    gdt_model_cv cv;
    CHECK(gdt_tables_model_cv(t, &cv));
    CHECK_INT(cv.ncells, ==, (int)b[0]);
    CHECK(cv.geomean[0] >= 1 && cv.worst[0] >= cv.geomean[0] && cv.geomean[1] >= 1);
    CHECK(cv.median_abs_error > 0 && cv.median_abs_error < 0.2);
    gdt_tables_destroy(t);
    for (i = 0; i < nc; i++) free(c[i].plans);
    free(c);
    free(got);
    free(want);
    free(text);
    cJSON_Delete(root_j);
}

/* -------------------------------------------------------------- planner */

/* Predicted gaps within the error keep the given order; beyond it the
 * faster goes first. */
static void test_rank_rule(void)
{
    const double t[] = {10.0, 9.8, 5.0, 9.9};
    int order[4];
    gdt__predict_rank(t, 4, 0.05, order);
    CHECK_INT(order[0], ==, 2);
    CHECK_INT(order[1], ==, 0);
    CHECK_INT(order[2], ==, 1);
    CHECK_INT(order[3], ==, 3);
    gdt__predict_rank(t, 4, 0.0, order);
    CHECK_INT(order[1], ==, 1);
    CHECK(gdt__predict_beats(5, 10, 0.05) && !gdt__predict_beats(9.8, 10, 0.05));
}

static gdt_graph *planned(const char *shape, gdt_mode mode, const gdt_tables *t)
{
    gdt_plan_options o = {.tables = t, .modes = {mode}, .nmodes = 1};
    return test_planned_gemm(shape, &o);
}

/* An unswept shape: ours follow the predicted order (consecutive entries
 * out of predicted order only within the ranking rule's width, noise x
 * the model's error), the backend's
 * block placed once among them by the predicted ratio. */
static void test_planner_unswept(void)
{
    gdt_tables *t = load(GDT_SOURCE_DIR "/tables");
    gdt_model_cv cv;
    CHECK(gdt_tables_model_cv(t, &cv));
    gdt_graph *g = planned("m=2048,n=8192,k=4096", GDT_MODE_A, t);
    double prev = 0;
    int n = gdt_graph_plan_count(g), predicted = 0, markers = 0;
    for (int i = 0; i < n; i++) {
        gdt_plan_time pt;
        const gdt_plan_entry *x = gdt_graph_plan_at(g, i);
        if (x->is_marker) {
            markers++;
            continue;
        }
        gdt_tables_plan_time(t, gdt_graph_facts(g), &x->id, &pt);
        if (pt.source != GDT_TIME_PREDICTED) continue;
        CHECK_STR(x->why, "predicted time");
        if (predicted++) CHECK(pt.time_us >= prev * (1 - fmax(1, cv.noise) * cv.median_abs_error));
        prev = fmax(prev, pt.time_us);
    }
    CHECK(predicted > 10);
    CHECK_INT(markers, ==, 1);
    gdt_graph_destroy(g);
    gdt_tables_destroy(t);
}

/* OPENSOURCE in a swept cell: the measured order of ours, best first. */
static void test_opensource_measured(void)
{
    gdt_tables *t = load(GDT_SOURCE_DIR "/tables");
    gdt_graph *g = planned("m=128,n=4096,k=4096", GDT_MODE_OPENSOURCE, t);
    gdt_cell_decision d;
    CHECK(gdt_tables_lookup(t, gdt_graph_facts(g), &d) && d.measured);
    int k = 0;
    for (int i = 0; i < d.nranked; i++) {
        if (gdt_engine_side(NULL, d.ranked[i].engine_id) != GDT_PLAN_SIDE_OURS) continue;
        const gdt_plan_entry *x = gdt_graph_plan_at(g, k++);
        CHECK(x && gdt_plan_id_equal(&x->id, &d.ranked[i]));
        if (x) CHECK_STR(x->why, "measured rank");
    }
    CHECK(k > 0);
    /* The first is the best measured plan of ours there: none beats it
     * beyond the combined noise (the tables' ranking rule). */
    gdt_plan_time pt, other;
    gdt_tables_plan_time(t, gdt_graph_facts(g), &gdt_graph_plan_at(g, 0)->id, &pt);
    CHECK_INT(pt.source, ==, GDT_TIME_MEASURED);
    for (int i = 0; i < d.nranked; i++) {
        if (gdt_engine_side(NULL, d.ranked[i].engine_id) != GDT_PLAN_SIDE_OURS) continue;
        gdt_tables_plan_time(t, gdt_graph_facts(g), &d.ranked[i], &other);
        CHECK(other.source == GDT_TIME_MEASURED &&
              !(pt.time_us - other.time_us > pt.error * pt.time_us + other.error * other.time_us));
    }
    gdt_graph_destroy(g);
    /* An unswept shape in OPENSOURCE: the prediction. */
    g = planned("m=384,n=4096,k=4096", GDT_MODE_OPENSOURCE, t);
    CHECK_STR(gdt_graph_plan_at(g, 0)->why, "predicted time");
    gdt_graph_destroy(g);
    gdt_tables_destroy(t);
}

/* SDPA's time features count the tiles' work in fractional waves: our
 * attention kernels are persistent and draw tiles from a counter, so a
 * partial last wave costs its share, not a whole wave.  b2 h32 s2048 d64:
 * 1024 tiles of 128 rows, 704 of 192 (11 per head); whole waves on 132 SMs
 * would be 8 and 6 (ratio 0.75), fractional 7.76 and 5.33 (704 / 1024).
 * Less than one wave still counts as one. */
static void test_sdpa_waves(void)
{
    gdt_facts f;
    double p128[8], p192[8];
    gdt_plan_id a = {.engine_id = gdt_engine_id(GDT_FAMILY_SDPA_FWD, 0)}, b = a;
    gdt_plan_id_set_knob(&a, GDT_KNOB_TILE_M, 128);
    gdt_plan_id_set_knob(&b, GDT_KNOB_TILE_M, 192);
    test_facts(GDT_FAMILY_SDPA_FWD, "b=2,h_q=32,h_kv=32,s=2048,d=64,causal=0", 90, &f);
    gdt__predict_features(GDT_FAMILY_SDPA_FWD, &f, &a, 132, p128);
    gdt__predict_features(GDT_FAMILY_SDPA_FWD, &f, &b, 132, p192);
    CHECK(fabs(exp(p192[1] - p128[1]) - 704.0 / 1024.0) < 1e-9); /* log_steps */
    test_facts(GDT_FAMILY_SDPA_FWD, "b=1,h_q=2,h_kv=2,s=128,d=64,causal=0", 90, &f);
    gdt__predict_features(GDT_FAMILY_SDPA_FWD, &f, &a, 132, p128);
    CHECK(fabs(exp(p128[1]) - 1.0) < 1e-9); /* two tiles, one key block: one wave */
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/gdt_test_predict.XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    law_cells();
    test_law_recovered();
    test_deterministic();
    test_refusals();
    test_committed_figures();
    test_rank_rule();
    test_planner_unswept();
    test_opensource_measured();
    test_sdpa_waves();
    if (!gdt_test_failures && gdt_test_remove_tree(root) != 0) fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("test_predict");
}
