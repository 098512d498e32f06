/* The time model's cross-validation: the figures `gdtune tables check`
 * prints for tables emitted from a real journal are the figures the fit
 * computes from that journal's verified measurements; the per-cell picks
 * (`--cells`) are the ones those figures count, and name the plans the
 * held-out models put first; a model fitted to a roofline-like law
 * (compute + memory + a cost per wave) ranks held-back shapes in the
 * law's order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_predict.h"
#include "gdt_run.h"
#include "gdt_test.h"
#include "gdt_util.h"

static char root[256];

/* ------------------------------------------------- figures of a journal */

static void unpack_journal(const char *run)
{
    static char text[8 << 20];
    char *argv[] = {"gunzip", "-c", GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz", NULL};
    char path[600];
    gdt_error e;
    CHECK_INT(gdt_test_spawn(argv, NULL, text, sizeof text), ==, 0);
    CHECK_INT(mkdir(run, 0700), ==, 0);
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    CHECK_INT(gdt_file_write_atomic(path, text, strlen(text), &e), ==, GDT_STATUS_OK);
}

static int cell_key_cmp(const void *a, const void *b)
{
    char x[256], y[256];
    gdt_problem_key(&((const gdt__train_cell *)a)->facts.problem, x, sizeof x);
    gdt_problem_key(&((const gdt__train_cell *)b)->facts.problem, y, sizeof y);
    return strcmp(x, y);
}

/* The verified plans of one journaled cell, as the tables writer takes them. */
static int verified(const gdt_run_cell *c, gdt_measured_plan *out)
{
    int n = 0;
    for (int i = 0; i < c->nplans; i++) {
        gdt_mode m = GDT_MODE_OPENSOURCE;
        if (c->result[i].disposition != GDT_DISP_VERIFIED) continue;
        if (c->plan[i].backend && gdt_mode_parse(c->plan[i].tag, &m, NULL) != GDT_STATUS_OK) m = GDT_MODE_COUNT;
        out[n++] = (gdt_measured_plan){.id = c->plan[i].id, .is_backend = c->plan[i].backend, .mode = m,
                                       .untimed_position = c->plan[i].untimed,
                                       .time_us = c->result[i].time_us, .noise = c->result[i].noise};
    }
    return n;
}

/* The lines `tables check` prints for a model with these figures. */
static void expected_lines(const gdt__predictor *m, char *out, size_t n)
{
    snprintf(out, n,
             "leave-one-cell-out over %d cells, median |error| of predicted times %.1f%%\n"
             "    mode A          first plan / best measured: geomean %.4g, worst %.4g\n"
             "    mode OPENSOURCE first plan / best measured: geomean %.4g, worst %.4g\n",
             m->cv.ncells, 100 * m->cv.err, m->cv.geomean[0], m->cv.worst[0], m->cv.geomean[1], m->cv.worst[1]);
}

/* The picks at the model's lambda and width give its figures exactly. */
static void check_picks(const gdt__train_cell *c, int n, int arch, const gdt__predictor *m)
{
    gdt__pred_pick pk[64];
    double err = 0, logsum[2] = {0, 0}, worst[2] = {1, 1};
    gdt_error e;
    CHECK_INT(gdt__predictor_picks(GDT_FAMILY_GEMM, arch, c, n, m->lambda, m->noise, m->lead, m->interval.quantile, pk, &err, &e), ==, GDT_STATUS_OK);
    CHECK_NEAR(err, m->cv.err, 1e-12);
    for (int i = 0; i < n; i++) {
        CHECK(pk[i].best >= 0 && pk[i].best_ours >= 0 && pk[i].mode_a >= 0 && pk[i].ours >= 0);
        CHECK(!c[i].plans[pk[i].ours].is_backend);
        CHECK_INT(pk[i].mode_a, ==, pk[i].lead ? pk[i].ours : pk[i].first.ranked ? pk[i].backend : pk[i].heuristic);
        double r[2] = {c[i].plans[pk[i].mode_a].time_us / c[i].plans[pk[i].best].time_us,
                       c[i].plans[pk[i].ours].time_us / c[i].plans[pk[i].best_ours].time_us};
        for (int k = 0; k < 2; k++) logsum[k] += log(r[k]), worst[k] = fmax(worst[k], r[k]);
    }
    for (int k = 0; k < 2; k++) {
        CHECK_NEAR(exp(logsum[k] / n), m->cv.geomean[k], 1e-9);
        CHECK_NEAR(worst[k], m->cv.worst[k], 1e-9);
    }
}

/* `tables check --cells` prints every cell with the plans its held-out
 * model puts first, and figures recomputed from the tuning table (times
 * to 6 digits) within 1e-3 of the fit's. */
static void check_cells_printed(const char *placement, const gdt__train_cell *c, int n, int arch,
                                const gdt__predictor *m)
{
    static char got[1 << 18];
    char *argv[] = {(char *)gdt_test_exe(), "tables", "check", "--cells", (char *)placement, NULL};
    CHECK_INT(gdt_test_spawn(argv, NULL, got, sizeof got), ==, 0);
    gdt__pred_pick pk[64];
    double err;
    gdt_error e;
    CHECK_INT(gdt__predictor_picks(GDT_FAMILY_GEMM, arch, c, n, m->lambda, m->noise, m->lead, m->interval.quantile, pk, &err, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < n; i++) {
        char key[256], plan[512], want[1024];
        gdt_problem_key(&c[i].facts.problem, key, sizeof key);
        const char *at = strstr(got, key), *a = at ? strstr(at, "    A          ") : NULL;
        CHECK(at && a);
        if (!a) continue;
        gdt_plan_id_format(&c[i].plans[pk[i].mode_a].id, plan, sizeof plan);
        snprintf(want, sizeof want, "%.4f  %s %.4g us", c[i].plans[pk[i].mode_a].time_us /
                 c[i].plans[pk[i].best].time_us, plan, c[i].plans[pk[i].mode_a].time_us);
        CHECK(!strncmp(a + 15, want, strlen(want)));
    }
    const char *fig = strstr(got, "recomputed from the tuning table: median |error| ");
    double v[5] = {0};
    CHECK(fig && sscanf(fig, "recomputed from the tuning table: median |error| %lf%%, A %lf / %lf, "
                             "OPENSOURCE %lf / %lf", &v[0], &v[1], &v[2], &v[3], &v[4]) == 5);
    CHECK_NEAR(v[0], 100 * m->cv.err, 0.1);
    double want[4] = {m->cv.geomean[0], m->cv.worst[0], m->cv.geomean[1], m->cv.worst[1]};
    for (int k = 0; k < 4; k++) CHECK_NEAR(v[1 + k], want[k], 1e-3 * want[k]);
}

/* Without the tuning table beside it, --cells is refused naming that file. */
static void test_cells_needs_tuning(void)
{
    char dir[300], placement[400];
    static char got[1 << 14];
    snprintf(dir, sizeof dir, "%s/lone", root);
    snprintf(placement, sizeof placement, "%s/gemm.placement.json", dir);
    CHECK_INT(mkdir(dir, 0700), ==, 0);
    size_t n = 0;
    char *text = NULL;
    gdt_error e;
    CHECK_INT(gdt_file_read(GDT_TEST_DATA "/tables/sm90/gemm.placement.json", &text, &n, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_file_write_atomic(placement, text, n, &e), ==, GDT_STATUS_OK);
    free(text);
    char *argv[] = {(char *)gdt_test_exe(), "tables", "check", "--cells", placement, NULL};
    CHECK_INT(gdt_test_spawn(argv, NULL, got, sizeof got), ==, 2);
    CHECK_CONTAINS(got, "gemm.placement.json: --cells: ");
    CHECK_CONTAINS(got, "lone/gemm.tuning.json: cannot open");
}

static void test_printed_figures(void)
{
    char run[300], tdir[300], placement[400], want[1024];
    static char got[1 << 16];
    snprintf(run, sizeof run, "%s/run", root);
    snprintf(tdir, sizeof tdir, "%s/tables", root);
    snprintf(placement, sizeof placement, "%s/sm90/gemm.placement.json", tdir);
    unpack_journal(run);
    char *emit[] = {(char *)gdt_test_exe(), "tables", "emit", run, "--tables-dir", tdir, NULL};
    CHECK_INT(gdt_test_spawn(emit, NULL, got, sizeof got), ==, 0);
    char *check[] = {(char *)gdt_test_exe(), "tables", "check", placement, NULL};
    CHECK_INT(gdt_test_spawn(check, NULL, got, sizeof got), ==, 0);

    gdt_run *r = NULL;
    gdt_error e;
    gdt_device_props dev;
    CHECK_INT(gdt_run_load(run, &r, &e), ==, GDT_STATUS_OK);
    if (!r) return;
    CHECK(gdt_arch_limits(r->arch, &dev));
    gdt__train_cell *c = calloc((size_t)r->ncells, sizeof *c);
    int n = 0;
    for (int i = 0; i < r->ncells; i++) {
        const gdt_run_cell *rc = &r->cells[i];
        if (!gdt_run_cell_complete(rc)) continue;
        gdt_measured_plan *p = calloc((size_t)rc->nplans + 1, sizeof *p);
        gdt_facts_analyze(&rc->spec->problem, &dev, &c[n].facts);
        c[n].nplans = verified(rc, p);
        c[n++].plans = p;
    }
    qsort(c, (size_t)n, sizeof *c, cell_key_cmp);
    gdt__predictor m;
    CHECK_INT(n, ==, 12);
    CHECK_INT(gdt__predictor_fit(GDT_FAMILY_GEMM, r->arch, c, n, NULL, 0, &m, &e), ==, GDT_STATUS_OK);
    expected_lines(&m, want, sizeof want);
    CHECK_CONTAINS(got, want);
    CHECK(m.cv.err > 0 && m.cv.geomean[1] >= 1 && m.cv.worst[0] >= m.cv.geomean[0]);
    check_picks(c, n, r->arch, &m);
    check_cells_printed(placement, c, n, r->arch, &m);
    gdt__predictor_clear(&m);
    for (int i = 0; i < n; i++) free((void *)c[i].plans);
    free(c);
    gdt_run_destroy(r);
}

/* ------------------------------------------------------- a synthetic law */

enum { NTILES = 4, NTRAIN = 12, NPLANS = NTILES + 1 };
static const int64_t tiles[NTILES][2] = {{128, 256}, {128, 128}, {64, 128}, {64, 64}};
/* Fraction of the peak each tile shape reaches. */
static const double eff[NTILES] = {1.0, 0.85, 0.7, 0.55};

static gdt_plan_id tile_plan(int t)
{
    gdt_plan_id id = {.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, 0)};
    gdt_plan_id_set_knob(&id, GDT_KNOB_TILE_M, tiles[t][0]);
    gdt_plan_id_set_knob(&id, GDT_KNOB_TILE_N, tiles[t][1]);
    return id;
}

/* time = a * flops paid / peak + b * bytes / bandwidth + c * waves: the
 * flops paid count the padding of the last tile row and column, and a
 * wave of 132 tiles costs a fixed c (launch and prologue). */
static double law(int t, int64_t m, int64_t n, int64_t k)
{
    int64_t tm = tiles[t][0], tn = tiles[t][1];
    int64_t nt = ((m + tm - 1) / tm) * ((n + tn - 1) / tn), waves = (nt + 131) / 132;
    double paid = 2.0 * (double)(nt * tm * tn) * (double)k, bytes = 2.0 * ((double)m * k + (double)k * n + (double)m * n);
    return 1e6 * (paid / (eff[t] * 800e12) + bytes / 4e12) + 2.0 * (double)waves;
}

static void law_facts(int64_t m, int64_t n, int64_t k, gdt_facts *f)
{
    char shape[96];
    gdt_problem p;
    gdt_device_props dev;
    gdt_error e;
    snprintf(shape, sizeof shape, "m=%lld,n=%lld,k=%lld", (long long)m, (long long)n, (long long)k);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, shape, &p, &e), ==, GDT_STATUS_OK);
    CHECK(gdt_arch_limits(90, &dev));
    gdt_facts_analyze(&p, &dev, f);
}

static void test_law_ranked(void)
{
    static const int64_t ms[] = {128, 512, 2048, 8192}, nks[3][2] = {{4096, 4096}, {14336, 4096}, {4096, 14336}};
    static gdt_measured_plan plans[NTRAIN][NPLANS];
    gdt__train_cell c[NTRAIN];
    gdt_error e;
    for (int i = 0; i < NTRAIN; i++) {
        int64_t m = ms[i % 4], n = nks[i / 4][0], k = nks[i / 4][1];
        law_facts(m, n, k, &c[i].facts);
        double best = INFINITY;
        for (int t = 0; t < NTILES; t++) {
            plans[i][t] = (gdt_measured_plan){.id = tile_plan(t), .mode = GDT_MODE_OPENSOURCE,
                                              .untimed_position = 1 + t, .time_us = law(t, m, n, k), .noise = 0.002};
            best = fmin(best, plans[i][t].time_us);
        }
        plans[i][NTILES] = (gdt_measured_plan){.id = {.engine_id = 7}, .is_backend = true, .mode = GDT_MODE_A,
                                               .time_us = 1.1 * best, .noise = 0.002};
        c[i].plans = plans[i], c[i].nplans = NPLANS;
    }
    gdt__predictor p;
    CHECK_INT(gdt__predictor_fit(GDT_FAMILY_GEMM, 90, c, NTRAIN, NULL, 0, &p, &e), ==, GDT_STATUS_OK);
    CHECK(p.cv.geomean[1] < 1.03);
    /* Held back: M between and beyond the swept ones, and (N, K) off the grid. */
    static const int64_t hm[] = {256, 1024, 4096, 16384}, hnk[3][2] = {{6144, 4096}, {8192, 8192}, {11008, 4096}};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 3; b++) {
            gdt_facts f;
            double lt[NTILES], pt[NTILES], best = INFINITY;
            int order[NTILES];
            law_facts(hm[a], hnk[b][0], hnk[b][1], &f);
            for (int t = 0; t < NTILES; t++) {
                gdt_plan_id id = tile_plan(t);
                best = fmin(best, lt[t] = law(t, hm[a], hnk[b][0], hnk[b][1]));
                CHECK(gdt__predict_time(&p, &f, &id, &pt[t]));
            }
            gdt__predict_rank(pt, NTILES, gdt__predict_rel(&p), order);
            CHECK(lt[order[0]] <= 1.05 * best);
            for (int i = 0; i < NTILES; i++)
                for (int j = i + 1; j < NTILES; j++) CHECK(!(lt[order[j]] * 1.2 < lt[order[i]]));
        }
    gdt__predictor_clear(&p);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/gdt_test_predict_cv.XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    test_printed_figures();
    test_cells_needs_tuning();
    test_law_ranked();
    if (!gdt_test_failures && gdt_test_remove_tree(root) != 0) fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("test_predict_cv");
}
