/* `gdtune compare` over synthetic journals written with the typed writer:
 * a run holding generated (gemm.nvrtc), handwritten (gemm.hand), cuDNN and
 * cuBLASLt plans (gemm.cublaslt, one tagged LIBRARY, one OURS as journals
 * before that tag have it) in one cell and no hand plan in the other.  Every column of the
 * JSON document is checked against the figures written (each side's best,
 * the ratio and its noise, the verdict, the budgets, the bound parameters
 * by role, the verify errors, the timing scope), the text and markdown
 * forms, the figure's data and script, a second run merged under the same
 * key, and the refusals (other bursts, another device, a directory twice,
 * a key naming another problem).  The A/B form: its argument errors exit
 * 2, without a GPU it exits 1; its schedule and statistics. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_ab.h"
#include "gdt_compare_runs.h"
#include "gdt_cuda.h"
#include "gdt_gnuplot.h"
#include "gdt_journal.h"
#include "gdt_json.h"
#include "gdt_run.h"
#include "gdt_run_write.h"
#include "gdt_util.h"
#include "gdt_worker.h"
#include "gdt_test.h"

#define HAND_ID 20010
#define NVRTC_ID 20000
#define GEN_BEST "gemm.nvrtc[GROUP_M=8, MMA=1, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128, WARPS_M=8, WARPS_N=1]"
#define HAND_PLAN "gemm.hand[GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]"
#define LT_ID 20011
#define LT_BEST "gemm.cublaslt[ALGO=66, TILE_SIZE=20]"

/* One plan as the journal holds it; r: its result (disposition NULL: none). */
typedef struct plan_row {
    const char *name, *tag;
    const char *disposition, *error;
    double time_us, noise, err;
    bool raced_out;
    bool traced; /* a --cupti trace with a main kernel (TRACE_KERNEL) */
    double mhz;  /* > 0: the SM clock after each sample of its burst */
} plan_row;

#define TRACE_KERNEL "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_splitK_NNT"

#define VERIFIED(name, tag, t, noise, err) {name, tag, "verified", "", t, noise, err, false, false, 0}
#define TRACED(name, tag, t, noise, err) {name, tag, "verified", "", t, noise, err, false, true, 0}
#define RACED(name, t, noise, err) {name, "OURS", "verified", "", t, noise, err, true, false, 0}
#define CLOCKED(name, tag, t, noise, mhz) {name, tag, "verified", "", t, noise, 1e-3, false, false, mhz}
#define NOT_VERIFIED(name, disp, error, err) {name, "OURS", disp, error, 0, 0, err, false, false, 0}
#define NOT_RUN(name) {name, "OURS", NULL, NULL, 0, 0, 0, false, false, 0}

/* Cell 0 (m=256): two cuDNN plans (the faster with a --cupti trace), five generated (one raced out, one
 * declined, one incorrect, one never run), the hand plan, two cuBLASLt. */
static const plan_row cell0[] = {
    VERIFIED("cudnn.eng0", "A", 12.0, 0.01, 0),
    TRACED("cudnn.eng1[KERNEL_CFG=3]", "B", 10.0, 0.01, 1e-3),
    VERIFIED(GEN_BEST, "OURS", 16.0, 0.005, 2e-3),
    RACED("gemm.nvrtc[GROUP_M=8, MMA=1, STAGES=4, TILEK=64, TILE_M=64, TILE_N=128, WARPS_M=4, WARPS_N=1]",
          20.0, 0.05, 3e-3),
    NOT_VERIFIED("gemm.nvrtc[GROUP_M=8, MMA=1, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256, WARPS_M=8, "
                 "WARPS_N=1]", "declined", "shared memory 262144 bytes > 232448", 0),
    NOT_VERIFIED("gemm.nvrtc[GROUP_M=8, MMA=0, STAGES=3, TILEK=32, TILE_M=128, TILE_N=128, WARPS_M=2, "
                 "WARPS_N=4]", "incorrect", "C: relative L2 error 0.5", 0.5),
    VERIFIED(HAND_PLAN, "OURS", 11.0, 0.01, 1.5e-3),
    NOT_RUN("gemm.nvrtc[GROUP_M=4, MMA=1, STAGES=3, TILEK=64, TILE_M=128, TILE_N=128, WARPS_M=8, WARPS_N=1]"),
    VERIFIED(LT_BEST, "LIBRARY", 8.0, 0.01, 5e-4),
    VERIFIED("gemm.cublaslt[ALGO=31, SPLIT_K=2, TILE_SIZE=20]", "OURS", 9.0, 0.01, 5e-4),
};
/* Cell 1 (m=512): no hand plan. */
static const plan_row cell1[] = {
    VERIFIED("cudnn.eng0", "A", 20.0, 0.01, 0),
    VERIFIED(GEN_BEST, "OURS", 25.0, 0.01, 2e-3),
};
/* A second run's cell 0: the hand plan again, faster, and a generated plan
 * declined with a message a markdown table must not take as its own. */
static const plan_row cell0_hand[] = {
    VERIFIED(HAND_PLAN, "OURS", 9.0, 0.02, 1e-3),
    NOT_VERIFIED(GEN_BEST, "declined", "smem | regs\nsecond line", 0),
};

static char out[1 << 17];

static void check_ok(gdt_status s, const gdt_error *e)
{
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "  status %d: %s\n", (int)s, e->msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
}

/* ------------------------------------------------------------ journals */

/* What a worker would have sent for p. */
static cJSON *measured(const plan_row *p)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = !strcmp(p->disposition, "verified");
    if (ok || !strcmp(p->disposition, "incorrect"))
        cJSON_AddItemToObject(o, "verify_err", cJSON_CreateDoubleArray(&p->err, 1));
    if (ok) {
        double x[3] = {p->time_us, p->time_us, p->time_us};
        cJSON *bursts = cJSON_CreateArray(), *burst = gdt_test_burst_json(8, x, 3);
        double mhz[3] = {p->mhz, p->mhz, p->mhz};
        if (p->mhz > 0)
            cJSON_AddItemToObject(burst, "clock_mhz", cJSON_CreateDoubleArray(mhz, 3));
        cJSON_AddItemToArray(bursts, burst);
        cJSON_AddItemToObject(o, "bursts", bursts);
        cJSON_AddBoolToObject(o, "raced_out", p->raced_out);
        cJSON_AddNumberToObject(o, "time_us", p->time_us);
        cJSON_AddNumberToObject(o, "noise", p->noise);
    }
    if (ok && p->traced)
        cJSON_AddItemToObject(o, "cupti", cJSON_Parse("{\"burst\":8,\"kernels\":2,\"kernel_us\":9.5,"
            "\"event_us\":10,\"gap_us\":0.5,\"span_us\":9.8,\"kernel\":{\"name\":\"" TRACE_KERNEL "\","
            "\"grid\":[2,64,1],\"block\":[384,1,1],\"cluster\":[2,1,1],\"registers\":168,"
            "\"smem\":200000,\"share\":0.73}}"));
    cJSON_AddStringToObject(o, "disposition", p->disposition);
    cJSON_AddStringToObject(o, "error", p->error);
    return o;
}

static void write_cell(gdt_journal *j, int ci, const gdt_sweep_cell *c, const plan_row *rows, int n)
{
    gdt_error e = {0};
    cJSON *plans = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(plans, gdt_test_plan_json(rows[i].name, rows[i].tag, i));
    check_ok(gdt_run_write_cell(j, ci, c, &e), &e);
    check_ok(gdt_run_write_plans(j, ci, c, plans, "cudnn.eng0", NULL, NULL, &e), &e);
    for (int i = 0; i < n; i++) {
        gdt_disposition d;
        if (!rows[i].disposition)
            continue;
        CHECK(gdt_disposition_parse(rows[i].disposition, &d));
        cJSON *m = measured(&rows[i]);
        gdt_run_result_rec res = {.cell = ci, .plan = i, .family = GDT_FAMILY_GEMM, .name = rows[i].name,
                                  .disposition = d, .error = rows[i].error, .measured = m};
        check_ok(gdt_run_write_result(j, &res, &e), &e);
        cJSON_Delete(m);
    }
    cJSON_Delete(plans);
}

typedef struct run_desc {
    const char *device;   /* its name */
    int nbursts;          /* of {1, 2, 8} */
    bool second_cell;     /* cell 1 too */
    const plan_row *c0;
    int nc0;
    bool rounds;          /* cell 0's rounds (write_rounds) */
} run_desc;

/* Cell 0's --rounds record (written after every plan's result: cell 0
 * without the plan never run): cuBLASLt's best (plan 7 then), cudnn.eng1
 * (1) and the hand plan (6) measured together, the hand plan now ahead of
 * eng1. */
static void write_rounds(gdt_journal *j, const gdt_sweep_cell *c)
{
    gdt_error e = {0};
    static const double r8[] = {8.2, 8.2}, r1[] = {10.5, 10.5}, r6[] = {10.0, 10.0};
    gdt_run_rounds_rec rec = {.cell = 0, .spec = c, .plans = {7, 1, 6}, .nplans = 3, .rounds = 2,
                              .error = "", .time_us = {8.2, 10.5, 10.0}, .noise = {0.004, 0.004, 0.003},
                              .ratios = {1, 8.2 / 10.5, 8.2 / 10.0}, .round_us = {r8, r1, r6},
                              .seconds = 0.1};
    check_ok(gdt_run_write_rounds(j, &rec, &e), &e);
}

static void write_run(const char *dir, const gdt_sweep_spec *spec, const run_desc *d)
{
    gdt_run_options o = {.bursts = {1, 2, 8}, .nbursts = d->nbursts, .target_rel = 0.01,
                         .max_plan_seconds = 0.5, .knob_cap = 1, .race = true};
    gdt_journal *j = gdt_test_journal_begin(dir, spec, d->device, "2026-12-02T10:00:00Z", &o);
    if (j) {
        write_cell(j, 0, &spec->cells[0], d->c0, d->nc0);
        if (d->rounds)
            write_rounds(j, &spec->cells[0]);
        if (d->second_cell)
            write_cell(j, 1, &spec->cells[1], cell1, (int)(sizeof cell1 / sizeof *cell1));
    }
    gdt_journal_close(j);
}

/* ------------------------------------------------------------ running */

static int compare(const char *const *args, int n)
{
    char *argv[16] = {(char *)gdt_test_exe(), "compare"};
    for (int i = 0; i < n && i < 13; i++)
        argv[i + 2] = (char *)args[i];
    argv[n + 2 < 15 ? n + 2 : 15] = NULL;
    return gdt_test_spawn(argv, NULL, out, sizeof out);
}

/* The JSON document in out (stderr notes may come before it). */
static cJSON *doc_of_output(void)
{
    const char *start = strstr(out, "{\n\t\"schema\"");
    cJSON *doc = start ? cJSON_Parse(start) : NULL;
    if (!doc)
        fprintf(stderr, "no JSON document in:\n%s\n", out);
    return doc;
}

static const cJSON *at(const cJSON *o, const char *path)
{
    char key[128];
    while (o && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(key)) : cJSON_GetObjectItemCaseSensitive(o, key);
        path += n + (path[n] == '.');
    }
    return o;
}

static double num(const cJSON *o, const char *path)
{
    const cJSON *v = at(o, path);
    if (!cJSON_IsNumber(v))
        fprintf(stderr, "  %s: not a number\n", path);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *path)
{
    const char *s = cJSON_GetStringValue(at(o, path));
    return s ? s : "(not a string)";
}

/* ------------------------------------------------------------ checks */

static void check_budget(const cJSON *b, int listed, int tried, int verified, int incorrect,
                         int declined, int raced)
{
    CHECK_INT(num(b, "listed"), ==, listed);
    CHECK_INT(num(b, "tried"), ==, tried);
    CHECK_INT(num(b, "verified"), ==, verified);
    CHECK_INT(num(b, "incorrect"), ==, incorrect);
    CHECK_INT(num(b, "failed"), ==, 0);
    CHECK_INT(num(b, "declined"), ==, declined);
    CHECK_INT(num(b, "raced_out"), ==, raced);
}

static void check_sides(const cJSON *c0, double flops)
{
    const cJSON *g = at(c0, "sides.generated"), *h = at(c0, "sides.handwritten"), *k = at(c0, "sides.cudnn");
    CHECK_STR(str(g, "best.plan"), GEN_BEST);
    CHECK_INT(num(g, "best.engine_id"), ==, NVRTC_ID);
    CHECK_NEAR(num(g, "best.time_us"), 16.0, 0);
    CHECK_NEAR(num(g, "best.tflops"), flops / 16e-6 / 1e12, 1e-9);
    CHECK_NEAR(num(g, "best.noise"), 0.005, 0);
    CHECK(cJSON_IsFalse(at(g, "best.raced_out")));
    CHECK_NEAR(num(g, "best.ratio_cudnn"), 16.0 / 10.0, 1e-12); /* its time over cuDNN's */
    CHECK_NEAR(num(g, "best.verified.errors.C"), 2e-3, 0);
    CHECK_NEAR(num(g, "best.verified.bound"), gdt_dtype_tolerance(GDT_DTYPE_BF16), 0);
    CHECK_STR(str(g, "best.verified.against"), "cudnn.eng0");
    CHECK_INT(num(g, "best.scope.kernels"), ==, 1);
    CHECK_STR(str(g, "best.scope.text"), "1 kernel: gdt_gemm");
    CHECK(cJSON_IsNull(at(g, "missing")));
    check_budget(at(g, "budget"), 5, 4, 2, 1, 1, 1);
    CHECK_CONTAINS(str(g, "budget.first_not_verified.plan"), "TILE_N=256");
    CHECK_STR(str(g, "budget.first_not_verified.error"), "shared memory 262144 bytes > 232448");
    CHECK_INT(num(g, "budget.first_not_verified.engine_id"), ==, 20000); /* gemm.nvrtc's */

    CHECK_STR(str(h, "best.plan"), HAND_PLAN);
    CHECK_INT(num(h, "best.engine_id"), ==, HAND_ID);
    CHECK_NEAR(num(h, "best.time_us"), 11.0, 0);
    CHECK_NEAR(num(h, "best.verified.errors.C"), 1.5e-3, 0);
    CHECK_NEAR(num(h, "best.ratio_cudnn"), 11.0 / 10.0, 1e-12);
    CHECK_INT(num(h, "best.scope.kernels"), ==, 1);
    CHECK_CONTAINS(str(h, "best.scope.text"), "gdt_hand_gemm_");
    check_budget(at(h, "budget"), 1, 1, 1, 0, 0, 0);

    CHECK_STR(str(k, "best.plan"), "cudnn.eng1[KERNEL_CFG=3]");
    CHECK_NEAR(num(k, "best.time_us"), 10.0, 0);
    CHECK_NEAR(num(k, "best.verified.errors.C"), 1e-3, 0);
    CHECK_INT(num(k, "best.scope.kernels"), ==, 0);
    CHECK_CONTAINS(str(k, "best.scope.text"), "cuDNN execution plan");
    /* the trace as journaled; none for the plans traced without */
    CHECK_STR(str(k, "best.scope.traced.kernel.name"), TRACE_KERNEL);
    CHECK_NEAR(num(k, "best.scope.traced.kernels"), 2, 0);
    CHECK(cJSON_IsNull(at(g, "best.scope.traced")));
    check_budget(at(k, "budget"), 2, 2, 2, 0, 0, 0);

    /* The library's best beside the others, whatever tag its journal gave it. */
    const cJSON *l = at(c0, "sides.cublaslt");
    CHECK_STR(str(l, "best.plan"), LT_BEST);
    CHECK_INT(num(l, "best.engine_id"), ==, LT_ID);
    CHECK_NEAR(num(l, "best.time_us"), 8.0, 0);
    CHECK_NEAR(num(l, "best.ratio_cudnn"), 8.0 / 10.0, 1e-12);
    CHECK_NEAR(num(l, "best.verified.errors.C"), 5e-4, 0);
    CHECK_INT(num(l, "best.scope.kernels"), ==, 0);
    CHECK_CONTAINS(str(l, "best.scope.text"), "one cublasLtMatmul call of gemm.cublaslt");
    check_budget(at(l, "budget"), 2, 2, 2, 0, 0, 0);
}

/* role, generated, handwritten (-1: null) */
static void check_bound(const cJSON *bound)
{
    static const struct { const char *role, *knob; int g, h; } want[] = {
        {"tile_m", "TILE_M", 128, 128}, {"tile_n", "TILE_N", 128, 256}, {"tile_k", "TILEK", 64, 64},
        {"stages", "STAGES", 4, 4},     {"warps_m", "WARPS_M", 8, -1},  {"warps_n", "WARPS_N", 1, -1},
        {"schedule", "GROUP_M", 8, 8},  {"mma", "MMA", 1, -1},
    };
    int n = (int)(sizeof want / sizeof *want);
    CHECK_INT(cJSON_GetArraySize(bound), ==, n);
    for (int i = 0; i < n && i < cJSON_GetArraySize(bound); i++) {
        const cJSON *r = cJSON_GetArrayItem(bound, i);
        CHECK_STR(str(r, "role"), want[i].role);
        CHECK_STR(str(r, "knob"), want[i].knob);
        CHECK_INT(num(r, "generated"), ==, want[i].g);
        if (want[i].h < 0)
            CHECK(cJSON_IsNull(at(r, "handwritten")));
        else
            CHECK_INT(num(r, "handwritten"), ==, want[i].h);
    }
}

/* Across the cells, by hand from the two cells, each ratio this side's time
 * over the other's: handwritten / generated 11 / 16 in cell 0 only (beyond
 * noise); against cuDNN's best (10 us, then 20): generated 16 / 10 and
 * 25 / 20 (worst the larger), handwritten 11 / 10 (at the goal 1/0.9, not
 * beyond noise), cuBLASLt 8 / 10 (beyond: 2 us > 0.01 x 8 + 0.01 x 10). */
static void check_summary_json(const cJSON *s)
{
    CHECK_INT(cJSON_GetArraySize(s), ==, 1);
    CHECK_STR(str(s, "0.family"), "gemm");
    CHECK_INT(num(s, "0.cells"), ==, 2);
    CHECK_NEAR(num(s, "0.goal"), 1 / 0.9, 1e-12);
    static const struct { const char *side, *against; int cells; double geomean, worst, best; int goal, beyond; }
        want[] = {{"handwritten", "generated", 1, 11.0 / 16, 11.0 / 16, 11.0 / 16, 1, 1},
                  {"generated", "cudnn", 2, 1.4142135623730951, 1.6, 1.25, 0, 0},
                  {"handwritten", "cudnn", 1, 1.1, 1.1, 1.1, 1, 0},
                  {"cublaslt", "cudnn", 1, 0.8, 0.8, 0.8, 1, 1}};
    const cJSON *v = at(s, "0.versus");
    CHECK_INT(cJSON_GetArraySize(v), ==, 4);
    for (int i = 0; i < 4; i++) {
        const cJSON *r = cJSON_GetArrayItem(v, i);
        CHECK_STR(str(r, "side"), want[i].side);
        CHECK_STR(str(r, "against"), want[i].against);
        CHECK_INT(num(r, "cells"), ==, want[i].cells);
        CHECK_NEAR(num(r, "geomean"), want[i].geomean, 1e-12);
        CHECK_NEAR(num(r, "worst"), want[i].worst, 1e-12);
        CHECK_NEAR(num(r, "best"), want[i].best, 1e-12);
        CHECK_INT(num(r, "at_goal"), ==, want[i].goal);
        CHECK_INT(num(r, "beyond_noise"), ==, want[i].beyond);
    }
}

/* A cell's rounds are the figures compared for the plans in them, and
 * said so; a side's plan in the rounds wins over its plans out of them
 * (cuDNN's: eng1 in the rounds over eng0 at its own 10.2), and a side with
 * none in them keeps its own figures.  The rounds' times (8.2, 10.5, 10.0)
 * stand at the level of their plans' own (8.0, 10.0, 11.0): times the
 * geometric mean of those over theirs, so their ratios are the rounds'. */
static void check_rounds(const char *dir)
{
    const double level = cbrt(8.0 * 10.0 * 11.0 / (8.2 * 10.5 * 10.0));
    const char *args[] = {dir, "--format", "json"};
    CHECK_INT(compare(args, 3), ==, 0);
    cJSON *doc = doc_of_output();
    const cJSON *c0 = at(doc, "cells.0");
    CHECK_NEAR(num(c0, "sides.handwritten.best.time_us"), 10.0 * level, 1e-12);
    CHECK_NEAR(num(c0, "sides.handwritten.best.noise"), 0.003, 0);
    CHECK(cJSON_IsTrue(at(c0, "sides.handwritten.best.rounds")));
    CHECK_STR(str(c0, "sides.cudnn.best.plan"), "cudnn.eng1[KERNEL_CFG=3]");
    CHECK_NEAR(num(c0, "sides.cudnn.best.time_us"), 10.5 * level, 1e-12);
    CHECK_NEAR(num(c0, "sides.handwritten.best.ratio_cudnn"), 10.0 / 10.5, 1e-12);
    CHECK_NEAR(num(c0, "sides.cublaslt.best.time_us"), 8.2 * level, 1e-12);
    CHECK_NEAR(num(c0, "sides.generated.best.time_us"), 16.0, 0);
    CHECK(cJSON_IsFalse(at(c0, "sides.generated.best.rounds")));
    CHECK_NEAR(num(c0, "ratio"), 10.0 * level / 16.0, 1e-12);
    cJSON_Delete(doc);
    const char *text[] = {dir};
    CHECK_INT(compare(text, 1), ==, 0);
    CHECK_CONTAINS(out, "10.073 us, ");
    CHECK_CONTAINS(out, "0.952 x cuDNN's time, noise 0.0030, in the cell's interleaved rounds");
}

static void check_json(const char *dir, const gdt_sweep_spec *spec)
{
    const char *args[] = {dir, "--format", "json"};
    CHECK_INT(compare(args, 3), ==, 0);
    cJSON *doc = doc_of_output();
    const cJSON *c0 = at(doc, "cells.0"), *c1 = at(doc, "cells.1");
    CHECK_STR(str(doc, "schema"), "gdtune.compare/2");
    CHECK_STR(str(doc, "runs.0.dir"), dir);
    CHECK_STR(str(doc, "device.name"), "Stand-in GPU's `x` @y");
    CHECK_INT(num(doc, "bursts.2"), ==, 8);
    CHECK_INT(cJSON_GetArraySize(at(doc, "roles")), ==, gdt_compare_nroles);
    CHECK_INT(cJSON_GetArraySize(at(doc, "cells")), ==, 2);
    CHECK_STR(str(c0, "key"), "gemm:b1,m256,n512,k256,bf16,a=row,b=row");
    CHECK_STR(str(c0, "reference"), "cudnn.eng0");
    check_sides(c0, gdt_problem_flops(&spec->cells[0].problem));
    CHECK_NEAR(num(c0, "ratio"), 11.0 / 16.0, 1e-12);
    CHECK_NEAR(num(c0, "noise"), 0.015, 1e-12);
    CHECK_STR(str(c0, "verdict"), "handwritten");
    CHECK_INT(num(c0, "other_plans"), ==, 0);
    check_bound(at(c0, "bound"));
    CHECK(cJSON_IsNull(at(c1, "sides.handwritten.best")));
    CHECK_STR(str(c1, "sides.handwritten.missing"), "no handwritten plan for this cell");
    CHECK_STR(str(c1, "sides.cublaslt.missing"), "no cublaslt plan for this cell");
    CHECK_INT(num(c1, "sides.handwritten.budget.listed"), ==, 0);
    CHECK(cJSON_IsNull(at(c1, "ratio")) && cJSON_IsNull(at(c1, "noise")) && cJSON_IsNull(at(c1, "verdict")));
    CHECK_NEAR(num(c1, "sides.generated.best.time_us"), 25.0, 0);
    check_summary_json(at(doc, "summary"));
    char gnuplot[PATH_MAX];
    if (gdt_gnuplot_find(gnuplot, sizeof gnuplot))
        CHECK_CONTAINS(str(doc, "figure"), "/report/compare.svg");
    else
        CHECK(cJSON_IsNull(at(doc, "figure")));
    cJSON_Delete(doc);
}

static void check_text_md(const char *dir)
{
    const char *text[] = {dir}, *md[] = {dir, "--format", "md"};
    CHECK_INT(compare(text, 1), ==, 0);
    CHECK_CONTAINS(out, "< 1 means the handwritten plan is faster");
    CHECK_CONTAINS(out, "ratio handwritten / generated time: 0.688, noise 0.015: handwritten faster beyond noise");
    CHECK_CONTAINS(out, "handwritten: no handwritten plan for this cell");
    CHECK_CONTAINS(out, "budget: 5 listed, 4 tried: 2 verified (1 raced out), 1 incorrect, 0 failed, 1 declined");
    CHECK_CONTAINS(out, "    tile_n     TILE_N          128         256\n");
    CHECK_CONTAINS(out, "verify: C 2.00e-03");
    CHECK_CONTAINS(out, "    scope: one cuDNN execution plan (the kernels cuDNN launches for it, its scratch "
                        "tensors included); traced (CUPTI, a burst of 8): 2 kernels per call, 73% of the "
                        "kernel time in " TRACE_KERNEL " (grid 2 x 64, clusters of 2)\n");
    CHECK_CONTAINS(out, "    scope: 1 kernel: gdt_gemm\n");
    /* the command that measures a side's best again, each word a shell word */
    CHECK_CONTAINS(out, "    again: gdtune bench gemm --shape m=256,n=512,k=256,dtype=bf16 --plan '" GEN_BEST "'\n");
    CHECK_CONTAINS(out, "  cublaslt: " LT_BEST "\n    8.000 us, ");
    CHECK_CONTAINS(out, "TFLOP/s, 0.800 x cuDNN's time, noise 0.0100\n");
    CHECK_CONTAINS(out, "TFLOP/s, 1.600 x cuDNN's time, noise 0.0050\n");
    CHECK_CONTAINS(out, "\n  gemm      generated   cudnn           2    1.414    1.600    1.250        0        0\n"
                        "  gemm      handwritten cudnn           1    1.100    1.100    1.100        1        0\n"
                        "  gemm      cublaslt    cudnn           1    0.800    0.800    0.800        1        1\n");
    CHECK_INT(compare(md, 3), ==, 0);
    CHECK_CONTAINS(out, "| gemm | handwritten | generated | 1 | 0.688 | 0.688 | 0.688 | 1 | 1 |\n");
    CHECK_CONTAINS(out, "| 0 | `gemm:b1,m256,n512,k256,bf16,a=row,b=row` | `" GEN_BEST "` | 16.000 | `"
                        HAND_PLAN "` | 11.000 | `cudnn.eng1[KERNEL_CFG=3]` | 10.000 | `" LT_BEST "` | 8.000 | "
                        "0.688, noise 0.015: handwritten faster beyond noise |");
    CHECK_CONTAINS(out, "| 1 | `gemm:b1,m512,n512,k256,bf16,a=row,b=row` | `" GEN_BEST "` | 25.000 | none | — |");
    CHECK_CONTAINS(out, "| cublaslt | `" LT_BEST "` | 8.000 us, ");
    CHECK_CONTAINS(out, "| tile_n | TILE_N | 128 | 256 |");
    CHECK_CONTAINS(out, "| warps_m | WARPS_M | 8 | - |");
    /* --format csv: a line per cell of the JSON, each side's best and the ratio */
    const char *csv[] = {dir, "--format", "csv"};
    CHECK_INT(compare(csv, 3), ==, 0);
    CHECK_CONTAINS(out, "family,key,shape,reference,generated_plan,generated_time_us,");
    CHECK_CONTAINS(out, ",cublaslt_ratio_cudnn,ratio,noise,verdict\r\n");
    CHECK_CONTAINS(out, "gemm,\"gemm:b1,m256,n512,k256,bf16,a=row,b=row\",");
    CHECK_CONTAINS(out, "\"" GEN_BEST "\",16,");
    CHECK_CONTAINS(out, ",0.6875,");
}

/* The figure's files: numbers in the data file, the title quoted (a '
 * doubled, backquote and @ inert in single quotes), names relative. */
static void check_figure(const char *dir)
{
    char path[PATH_MAX], *text = NULL;
    size_t len;
    gdt_error e;
    snprintf(path, sizeof path, "%s/report/compare.dat", dir);
    check_ok(gdt_file_read(path, &text, &len, &e), &e);
    const char *row = text ? strchr(text, '\n') : NULL;
    int cell = -1;
    double r = 0, lo = 0, hi = 0, k = 0, klo = 0, khi = 0;
    CHECK(row && sscanf(row, "%d %lf %lf %lf %lf %lf %lf", &cell, &r, &lo, &hi, &k, &klo, &khi) == 7);
    CHECK_INT(cell, ==, 0);
    CHECK_NEAR(r, 0.6875, 1e-6);
    CHECK_NEAR(lo, 0.6875 * 0.985, 1e-6);
    CHECK_NEAR(hi, 0.6875 * 1.015, 1e-6);
    CHECK_NEAR(k, 11.0 / 10, 1e-6); /* handwritten / cuDNN time, noise 0.01 + 0.01 */
    CHECK_NEAR(klo, 11.0 / 10 * 0.98, 1e-6);
    CHECK_NEAR(khi, 11.0 / 10 * 1.02, 1e-6);
    CHECK(row && !strstr(row + 1, "\n1 ")); /* cell 1 has no hand plan: neither ratio */
    free(text);
    text = NULL;
    snprintf(path, sizeof path, "%s/report/compare.gp", dir);
    check_ok(gdt_file_read(path, &text, &len, &e), &e);
    CHECK_CONTAINS(text, "set title 'gdtune compare on Stand-in GPU''s `x` @y: time ratios of the best "
                         "plans per cell' noenhanced\n");
    CHECK_CONTAINS(text, "set datafile missing '-'");
    CHECK_CONTAINS(text, "title 'handwritten / cuDNN (best plans)'");
    CHECK(text && !strstr(text, "logscale")); /* ratios near 1: a linear axis fitted to them */
    CHECK_CONTAINS(text, "set yrange [");
    CHECK_CONTAINS(text, "set key below");
    CHECK_CONTAINS(text, "('m256 n512 k256' 0)"); /* the cell by its shape */
    CHECK_CONTAINS(text, "set output 'compare.svg'");
    CHECK(text && !strstr(text, dir));
    free(text);
    char gnuplot[PATH_MAX];
    snprintf(path, sizeof path, "%s/report/compare.svg", dir);
    if (gdt_gnuplot_find(gnuplot, sizeof gnuplot))
        CHECK(access(path, F_OK) == 0);
}

/* A second run's hand plan joins cell 0 under its key. */
static void check_merge(const char *a, const char *b)
{
    const char *args[] = {a, b, "--format", "json"};
    CHECK_INT(compare(args, 4), ==, 0);
    cJSON *doc = doc_of_output();
    const cJSON *h = at(doc, "cells.0.sides.handwritten");
    CHECK_INT(cJSON_GetArraySize(at(doc, "cells")), ==, 2);
    CHECK_NEAR(num(h, "best.time_us"), 9.0, 0);
    CHECK_STR(str(h, "best.run"), b);
    CHECK_INT(num(h, "budget.listed"), ==, 2);
    CHECK_NEAR(num(doc, "cells.0.ratio"), 9.0 / 16.0, 1e-12);
    CHECK_NEAR(num(doc, "cells.0.noise"), 0.025, 1e-12);
    CHECK_INT(num(doc, "cells.0.sides.generated.budget.listed"), ==, 6);
    CHECK_INT(num(doc, "cells.0.sides.generated.budget.declined"), ==, 2);
    cJSON_Delete(doc);
    const char *md[] = {b, "--format", "md"};
    CHECK_INT(compare(md, 3), ==, 0);
    CHECK_CONTAINS(out, "| generated | no verified generated plan for this cell (first: " GEN_BEST
                        ": smem \\| regs second line) | — |");
    CHECK_CONTAINS(out, "no verified generated plan for this cell (first: " GEN_BEST ": smem \\| regs "
                        "second line) |\n");
}

static void check_refusals(const char *a, const char *bursts, const char *device)
{
    const char *b[] = {a, bursts}, *d[] = {a, device}, *twice[] = {a, a}, *fam[] = {a, "--family", "sdpa_fwd"};
    CHECK_INT(compare(b, 2), ==, 2);
    CHECK_CONTAINS(out, "refused: ");
    CHECK_CONTAINS(out, "/options/bursts: expected 1,2,8");
    CHECK_CONTAINS(out, "got 1,2: times at other bursts are another timing scope");
    CHECK_INT(compare(d, 2), ==, 2);
    CHECK_CONTAINS(out, "/device/name: expected \"Stand-in GPU's `x` @y\"");
    CHECK_CONTAINS(out, "got \"Another GPU\": plans timed on different devices are not compared");
    CHECK_INT(compare(twice, 2), ==, 2);
    CHECK_CONTAINS(out, "again (expected each run directory once)");
    CHECK_INT(compare(fam, 3), ==, 2);
    CHECK_CONTAINS(out, "no cell with a plan list of family sdpa_fwd");
}

/* A key that would name another problem is refused, naming what differs. */
static void check_cell_match(const gdt_sweep_spec *spec)
{
    gdt_compare_cell have = {0};
    gdt_problem p;
    gdt_error e = {0};
    have.problem = spec->cells[0].problem;
    gdt_problem_key(&have.problem, have.key, sizeof have.key);
    check_ok(gdt_compare_cell_match(&have, "a", "b", &spec->cells[0].problem, &e), &e);
    check_ok(gdt_problem_parse(GDT_FAMILY_GEMM, "m=256,n=512,k=256,dtype=fp16", &p, &e), &e);
    CHECK_INT(gdt_compare_cell_match(&have, "a", "b", &p, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "b: cell key \"gemm:b1,m256,n512,k256,bf16,a=row,b=row\": expected the problem "
                          "of that key in a");
    CHECK_CONTAINS(e.msg, "got another dtype (gemm:b1,m256,n512,k256,fp16,a=row,b=row)");
    check_ok(gdt_problem_parse(GDT_FAMILY_GEMM, "m=256,n=512,k=128", &p, &e), &e);
    CHECK_INT(gdt_compare_cell_match(&have, "a", "b", &p, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "got another shape");
    gdt_problem_default(GDT_FAMILY_SDPA_FWD, &p);
    CHECK_INT(gdt_compare_cell_match(&have, "a", "b", &p, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "got another family");
}

static void check_sides_of(void)
{
    gdt_run_plan p = {.backend = true};
    CHECK_INT(gdt_side_of(NULL, &p), ==, GDT_SIDE_CUDNN);
    p.backend = false;
    p.id.engine_id = NVRTC_ID;
    CHECK_INT(gdt_side_of(NULL, &p), ==, GDT_SIDE_GENERATED);
    p.id.engine_id = HAND_ID;
    CHECK_INT(gdt_side_of(NULL, &p), ==, GDT_SIDE_HAND);
    p.id.engine_id = LT_ID;
    CHECK_INT(gdt_side_of(NULL, &p), ==, GDT_SIDE_CUBLASLT);
    p.id.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, 90); /* gemm.test_fault */
    CHECK_INT(gdt_side_of(NULL, &p), ==, GDT_SIDE_COUNT);
    p.id.engine_id = gdt_engine_id(GDT_FAMILY_SDPA_FWD, 0);
    char scope[400];
    CHECK_INT(gdt_compare_scope(&p, scope, sizeof scope), ==, 1);
    p.id.engine_id = gdt_engine_id(GDT_FAMILY_SDPA_BWD, 0);
    CHECK_INT(gdt_compare_scope(&p, scope, sizeof scope), ==, 3);
    CHECK_STR(scope, "3 kernels: gdt_attn_bwd_pre, gdt_attn_bwd_main, gdt_attn_bwd_post (every one "
                     "inside the timed execute)");
}

/* The series' SM clocks: the hand plan's at 1500 MHz, 6% slower than the
 * generated one's at 1650 (the same machine code on an H100 under the power
 * cap) shows both clocks beside the verdict; a journal without clocks
 * (dir_plain) gives null and no clock text. */
static void check_clocks(const char *dir, const char *dir_plain)
{
    const char *text[] = {dir};
    CHECK_INT(compare(text, 1), ==, 0);
    CHECK_CONTAINS(out, "10.600 us, 6.3 TFLOP/s, 0.883 x cuDNN's time, noise 0.0050, SM clock 1500 MHz\n");
    CHECK_CONTAINS(out, "ratio handwritten / generated time: 1.060, noise 0.010: generated faster beyond noise "
                        "(SM clocks 1500 / 1650 MHz)");
    const char *json[] = {dir, "--format", "json"};
    CHECK_INT(compare(json, 3), ==, 0);
    cJSON *doc = doc_of_output();
    CHECK_NEAR(num(doc, "cells.0.sides.handwritten.best.median_mhz"), 1500, 0);
    CHECK_NEAR(num(doc, "cells.0.sides.generated.best.median_mhz"), 1650, 0);
    cJSON_Delete(doc);
    const char *plain[] = {dir_plain, "--format", "json"};
    CHECK_INT(compare(plain, 3), ==, 0);
    doc = doc_of_output();
    CHECK(cJSON_IsNull(at(doc, "cells.0.sides.handwritten.best.median_mhz")));
    cJSON_Delete(doc);
    CHECK_INT(compare(plain, 1), ==, 0);
    CHECK(!strstr(out, "SM clock"));
}

/* ------------------------------------------------------------ A/B */

static void check_ab_args(const char *dir)
{
    static const struct { const char *args[8]; int n; const char *msg; } bad[] = {
        {{"gemm", "--plan", HAND_PLAN}, 3, "the A/B needs two plans, --plan A --plan B (got 1)"},
        {{"gemm", "--plan", "a", "--plan", "b", "--plan", "c"}, 7, "a third plan"},
        {{"gemm", "--plan", HAND_PLAN, "--plan", HAND_PLAN}, 5, "A and B are the same plan"},
        {{"gemm", "--plan", HAND_PLAN, "--plan", "sdpa_fwd.nvrtc[STAGES=2]"}, 5,
         "sdpa_fwd.nvrtc is an engine of sdpa_fwd, not of gemm"},
        {{"gemm", "--plan", HAND_PLAN, "--plan", "nope[X]"}, 5, "--plan: "},
        {{"gemm", "--plan", HAND_PLAN, "--plan", "cudnn.eng0", "--shape", "q=1"}, 7, "--shape: "},
        {{"gemm", "--plan", HAND_PLAN, "--plan", "cudnn.eng0", "--format", "json"}, 7,
         "--family and --format belong to the RUNDIR form"},
        {{"gemm", "--plan", HAND_PLAN, "--plan", "cudnn.eng0", "--rounds", "1"}, 7, "--rounds: bad value"},
        {{"gemm", "sdpa_fwd", "--plan", HAND_PLAN, "--plan", "cudnn.eng0"}, 6, "the A/B takes one FAMILY"},
        {{"gemm"}, 1, "the A/B needs two plans"},
        {{NULL, "--seed", "3"}, 3, "belong to the A/B form"},
        {{NULL}, 0, "expected RUNDIR..."},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *args[8];
        memcpy(args, bad[i].args, sizeof args);
        if (!args[0] && bad[i].n)
            args[0] = dir;
        CHECK_INT(compare(args, bad[i].n), ==, 2);
        CHECK_CONTAINS(out, bad[i].msg);
    }
    if (gdt__device_present()) {
        fprintf(stderr, "test_compare: a GPU is present: the no-device exit is not checked\n");
        return;
    }
    const char *ok[] = {"gemm", "--shape", "m=256,n=512,k=256", "--plan", HAND_PLAN, "--plan", "cudnn.eng0"};
    CHECK_INT(compare(ok, 7), ==, 1);
    CHECK_CONTAINS(out, "gdtune compare: no CUDA device");
}

static void check_ab_host(void)
{
    int order[8];
    gdt_ab_schedule(4, order);
    for (int i = 0; i < 8; i++)
        CHECK_INT(order[i], ==, i % 2);
    /* A's time over B's per round (the ratio, < 1: A faster): 10/12, 20/22,
     * 10/13 (a drift shared by both cancels). */
    double a[3] = {10, 20, 10}, b[3] = {12, 22, 13};
    gdt_ab_stats st;
    gdt_ab_stats_compute(a, b, 3, &st);
    CHECK_INT(st.rounds, ==, 3);
    CHECK_NEAR(st.a_us, 10, 0);
    CHECK_NEAR(st.b_us, 13, 0);
    CHECK_NEAR(st.ratio, 10.0 / 12, 1e-12);
    CHECK_NEAR(st.lo, 10.0 / 13, 1e-12);
    CHECK_NEAR(st.hi, 20.0 / 22, 1e-12);
    CHECK_NEAR(st.spread, 0.5 * (20.0 / 22 - 10.0 / 13) / (10.0 / 12), 1e-12);
}

int main(void)
{
    char root[] = "/tmp/gdt_compare_XXXXXX", a[600], b[600], c[600], d[600], r[600], k[600];
    gdt_sweep_spec *spec = NULL;
    gdt_error e = {0};
    CHECK(mkdtemp(root) != NULL);
    check_ok(gdt_sweep_spec_load("gemm", GDT_TEST_DATA "/sweeps/tiny_gemm.json", false, &spec, &e), &e);
    if (spec && spec->ncells == 2) {
        static const char dev[] = "Stand-in GPU's `x` @y";
        int n0 = (int)(sizeof cell0 / sizeof *cell0);
        snprintf(a, sizeof a, "%s/all", root);
        snprintf(b, sizeof b, "%s/hand", root);
        snprintf(c, sizeof c, "%s/bursts", root);
        snprintf(d, sizeof d, "%s/device", root);
        snprintf(r, sizeof r, "%s/rounds", root);
        write_run(a, spec, &(run_desc){dev, 3, true, cell0, n0, false});
        write_run(b, spec, &(run_desc){dev, 3, false, cell0_hand, 2, false});
        write_run(c, spec, &(run_desc){dev, 2, true, cell0, n0, false});
        write_run(d, spec, &(run_desc){"Another GPU", 3, true, cell0, n0, false});
        plan_row done[sizeof cell0 / sizeof *cell0];
        int nd = 0;
        for (int i = 0; i < n0; i++)
            if (cell0[i].disposition)
                done[nd++] = cell0[i];
        done[0].time_us = 10.2; /* cudnn.eng0: faster than eng1's rounds, out of them */
        write_run(r, spec, &(run_desc){dev, 3, true, done, nd, true});
        static const plan_row clocked[] = {
            CLOCKED("cudnn.eng0", "A", 12.0, 0.005, 1700),
            CLOCKED(GEN_BEST, "OURS", 10.0, 0.005, 1650),
            CLOCKED(HAND_PLAN, "OURS", 10.6, 0.005, 1500),
        };
        snprintf(k, sizeof k, "%s/clocks", root);
        write_run(k, spec, &(run_desc){dev, 3, false, clocked, 3, false});
        check_json(a, spec);
        check_text_md(a);
        check_figure(a);
        check_merge(a, b);
        check_refusals(a, c, d);
        check_cell_match(spec);
        check_ab_args(a);
        check_rounds(r);
        check_clocks(k, b);
    }
    CHECK(spec && spec->ncells == 2);
    check_sides_of();
    check_ab_host();
    gdt_sweep_spec_destroy(spec);
    if (!gdt_test_failures)
        CHECK_INT(gdt_test_remove_tree(root), ==, 0);
    return gdt_test_result("test_compare");
}
