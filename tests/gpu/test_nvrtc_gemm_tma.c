/* The NVRTC GEMM's PIPE=1 rows (kernels/gdt_gemm_sm90.cuh through
 * kernels/gemm.cuh) on the device: the staged rows of
 * tests/data/candidates/gemm_tma.json (or of the file GDT_TEST_TUNING_CONFIG
 * names): all forty-four, the nine the default table keeps since the
 * prune of 2026-12-06 among them (tables/candidates/README.md), seven
 * SWAP_AB=1 rows (five the twins of gemm.hand 14 to 18) and two
 * REDUCTION_MODE=2 (stream-K) rows (the twins of gemm.hand 19 and 20, not
 * run on a GPU when written), three PINGPONG=1 rows, three RASTER=1
 * rows (bands of tile columns) and ten EPILOGUE=1 rows (C from the
 * registers: alone, split through the workspace and in a DSMEM pair,
 * ping-pong, one consumer, and 128 x 128 with 7 stages and 128 x 192 with
 * 5, which fit without the output blocks; not run on a GPU when written), default in
 * none.
 * Every PIPE=1 row that binds for
 * a case (tails on M, N and K, batched, all four row/col-major layouts,
 * bf16 and fp16, more tiles than SMs, small M with long K for the splits,
 * K shorter than the splits, decode-sized M for the SWAP_AB=1 rows in all
 * four layouts) matches the first mode-A cuDNN plan and, on
 * small shapes, the fp64 CPU reference, outputs poisoned first; a split
 * row runs twice (its counters must come back to zero); and a row that is
 * one of gemm.hand's fixed configurations writes exactly what that
 * configuration writes, element for element (the same kernel, built by
 * NVRTC at run time instead of nvcc ahead of time).  Rejected rows print
 * their reason.  Then (GDT_TEST_FIGURES=1) figures, not asserted: on the default sweep's GEMM
 * shapes each PIPE=1 row against the gemm.hand configuration it coincides
 * with (generated / handwritten, both timed alike: median of 25 bursts of
 * 64 calls), and the best of each side; the best stream-K row against the
 * best other row (the partial-wave shapes m=256, n=6144; m=512, n=4096;
 * 4096^3; m=2048, n=k=8192 among them); each PINGPONG=1 row (three,
 * not run on a GPU when written: 128 x 128 at 4 and 6 stages, the twins of
 * gemm.hand 21 and 22, and 128 x 64 at 8) against its cooperative twin
 * row, 4096^3 and m=2048, n=k=4096 among the shapes.  Returns 77 without a device; on
 * another arch it checks that every PIPE=1 row is rejected for sm_90a. */
#include "hand_test.h"
#include "nvrtc/gdt_gemm.h"
#include "rows_support.h"

static const char *const cases[] = {
    "m=200,n=328,k=136",
    "m=264,n=200,k=72,a=col",
    "m=136,n=264,k=40,b=col,dtype=fp16",
    "m=200,n=136,k=200,a=col,b=col,dtype=fp16",
    "batch=3,m=72,n=264,k=136",
    "m=2056,n=4104,k=520",                          /* 289 tiles: several per CTA */
    "batch=3,m=1032,n=1288,k=264,a=col,dtype=fp16", /* 162 tiles over three batches */
    "m=1,n=264,k=8200",                             /* small M, long K: the splits */
    "m=128,n=264,k=7176,a=col,b=col,dtype=fp16",
    "m=8,n=136,k=72",                               /* two K tiles: fewer than most splits */
    /* Just past a wave of 132 SMs, small enough for the fp64 reference:
     * stream-K cuts 150 tiles of 128 x 128 (and 100 of 128 x 192) */
    "m=1160,n=1800,k=200,b=col,dtype=fp16",
    /* decode-sized M for the SWAP_AB=1 rows: the four layouts, both dtypes */
    "m=1,n=4104,k=4168",
    "m=7,n=1032,k=2056,b=col,dtype=fp16",
    "m=16,n=520,k=1096,a=col,dtype=fp16",
    "batch=2,m=33,n=1160,k=584",
    "m=64,n=2120,k=1160,a=col,b=col",
};
#define NCASES (int)(sizeof cases / sizeof cases[0])
#define REFERENCE_MAX_FLOPS 2e9
#define BURST_CALLS 64
#define MAX_ROWS 64
#define STAGED GDT_TEST_DATA "/candidates/gemm_tma.json"

static const hand_test test = {"test_nvrtc_gemm_tma", "gemm.nvrtc", GDT_FAMILY_GEMM, cases, NCASES};
static const hand_test hand = {"test_nvrtc_gemm_tma", "gemm.hand", GDT_FAMILY_GEMM, cases, NCASES};
static gdt_device_props dev;

static const gdt_engine_slot *nvrtc_slot(void) { return hand_test_slot(&test); }
static const gdt_engine_slot *hand_slot(void) { return hand_test_slot(&hand); }

/* The staged rows' PIPE=1 plans that bind for f (rejected ones printed
 * once with their reason when `say`); returns the count. */
static int tma_plans(const gdt_facts *f, gdt_plan_id *out, bool say)
{
    int n = 0, k = 0;
    gdt_candidate *c = rows_staged_candidates(STAGED, nvrtc_slot(), f, &n);
    for (int i = 0; i < n && k < MAX_ROWS; i++) {
        if (c[i].requested[GDT_GEMM_PIPE] != GDT_GEMM_PIPE_TMA || c[i].duplicate_of_earlier)
            continue;
        if (c[i].rejected && say)
            printf("  row %d rejected: %s\n", i, c[i].reason);
        if (!c[i].rejected)
            out[k++] = c[i].id;
    }
    free(c);
    return k;
}

/* The gemm.hand configuration a PIPE=1 plan is, or -1. */
static int hand_twin(const gdt_plan_id *p)
{
    for (int i = 0; i < GDT_HAND_GEMM_CONFIGS; i++) {
        gdt_plan_id h = rows_hand_twin(i, p->engine_id);
        if (gdt_plan_id_equal(&h, p))
            return i;
    }
    return -1;
}

static gdt_status build(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                        gdt_compiled **c, gdt_error *e)
{
    gdt_build_opts o = {.device = dev};
    gdt_build_info info;
    return s->ops->build(s, f, p, &o, c, &info, e);
}

static gdt_status build_hand(const gdt_facts *f, int i, gdt_compiled **c, gdt_error *e)
{
    gdt_plan_id id;
    gdt__hand_gemm_config_plan(i, gdt_engine_id(GDT_FAMILY_GEMM, hand_slot()->slot), &id);
    return build(hand_slot(), f, &id, c, e);
}


/* got equals what hand configuration i writes on the same buffers. */
static gdt_status same_as_hand(int i, const gdt_facts *f, gdt_buffers *b, const gdt_outputs *got,
                               gdt_error *e)
{
    gdt_compiled *c = NULL;
    gdt_outputs h = {0};
    gdt_status st = build_hand(f, i, &c, e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(hand_slot()->ops, c, b, 1, &h, e);
    hand_slot()->ops->destroy(c);
    size_t at = 0, n = got->count[0];
    while (st == GDT_STATUS_OK && at < n && got->data[0][at] == h.data[0][at])
        at++;
    if (st == GDT_STATUS_OK && at < n)
        st = gdt_error_set(e, GDT_STATUS_INCORRECT, "element %zu of C is %g, gemm.hand "
                           "configuration %d wrote %g", at, got->data[0][at], i, h.data[0][at]);
    gdt_outputs_free(&h);
    return st;
}

/* One PIPE=1 plan on a case: against cuDNN, the reference, itself run
 * twice, and its hand twin. */
static gdt_status run_row(int ci, const gdt_plan_id *p, const gdt_problem *pr, const gdt_facts *f,
                          gdt_buffers *b, const gdt_outputs *cud, const gdt_outputs *ref)
{
    gdt_compiled *c = NULL;
    gdt_outputs got = {0}, again = {0};
    gdt_error e = {0};
    double err[4] = {0}, err_ref[4] = {0};
    char name[512];
    int twin = hand_twin(p);
    gdt_plan_id_format(p, name, sizeof name);
    gdt_status st = build(nvrtc_slot(), f, p, &c, &e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(nvrtc_slot()->ops, c, b, 1, &got, &e);
    if (st == GDT_STATUS_OK)
        st = gdt_outputs_compare(pr, &got, cud, err, &e);
    if (st == GDT_STATUS_OK && ref)
        st = gdt_outputs_compare(pr, &got, ref, err_ref, &e);
    if (st == GDT_STATUS_OK && nvrtc_slot()->ops->workspace_size(c)) /* the counters reset */
        st = hand_test_run_built(nvrtc_slot()->ops, c, b, 1, &again, &e);
    if (st == GDT_STATUS_OK && again.count[0])
        st = gdt_outputs_compare(pr, &again, cud, err, &e);
    if (st == GDT_STATUS_OK && twin >= 0)
        st = same_as_hand(twin, f, b, &got, &e);
    if (st == GDT_STATUS_OK)
        printf("%s %s: verified, rel L2 %.2e against cuDNN%s%s\n", cases[ci], name, err[0],
               ref ? ", and the fp64 reference" : "", twin >= 0 ? ", the same C as gemm.hand" : "");
    else
        printf("%s %s: FAILED: %s\n", cases[ci], name, e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    nvrtc_slot()->ops->destroy(c);
    gdt_outputs_free(&got);
    gdt_outputs_free(&again);
    return st;
}

/* One case, every PIPE=1 row; false when the context may be poisoned. */
static bool run_case(int ci)
{
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_outputs cud = {0}, ref = {0};
    gdt_plan_id plans[MAX_ROWS];
    gdt_error e = {0};
    bool small = false;
    gdt_status st = hand_test_gemm_case(cases[ci], 4321 + (uint64_t)ci, &dev, REFERENCE_MAX_FLOPS,
                                        &p, &f, &b, &cud, &ref, &small, &e);
    int n = st == GDT_STATUS_OK ? tma_plans(&f, plans, ci == 0) : 0;
    /* The twenty-one rows without swap-AB (three of them PINGPONG=1) bind
     * on every case; the SWAP_AB=1 rows' BM follows M down (so several
     * become one plan at small M) and those of fewer than 64 rows of M
     * refuse an MN-major A. */
    CHECK(st != GDT_STATUS_OK || n >= 21);
    for (int i = 0; st == GDT_STATUS_OK && i < n; i++)
        st = run_row(ci, &plans[i], &p, &f, b, &cud, small ? &ref : NULL);
    gdt_outputs_free(&cud);
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);
    return cudaGetLastError() == cudaSuccess && st != GDT_STATUS_CUDA;
}

/* Each PINGPONG=1 row against its cooperative twin (the same row with
 * PINGPONG=0), the two timed in alternation. */
static void pingpong_figures(const char *shape, const gdt_facts *f, const gdt_plan_id *plans, int n,
                             gdt_buffers *b)
{
    char name[512];
    for (int i = 0; i < n; i++) {
        if (gdt_plan_id_knob(&plans[i], GDT_KNOB_PINGPONG, 0) != 1)
            continue;
        gdt_plan_id want = rows_cooperative_twin(&plans[i]);
        gdt_compiled *pp = NULL, *co = NULL;
        gdt_error e = {0};
        double us[2];
        if (build(nvrtc_slot(), f, &plans[i], &pp, &e) == GDT_STATUS_OK)
            build(nvrtc_slot(), f, &want, &co, &e);
        hand_pair_us(nvrtc_slot()->ops, pp, nvrtc_slot()->ops, co, b, BURST_CALLS, us);
        nvrtc_slot()->ops->destroy(pp);
        nvrtc_slot()->ops->destroy(co);
        gdt_plan_id_format(&plans[i], name, sizeof name);
        printf("figure %s: %s %.2f us %.1f TFLOP/s, cooperative twin %.2f us, ping-pong speedup "
               "%.3f (in alternation)\n", shape, name, us[0], hand_test_tflops(f, us[0]), us[1], us[1] / us[0]);
    }
}

static double time_plan(const gdt_engine_slot *s, gdt_compiled *c, gdt_buffers *b)
{
    return hand_median_us(s->ops, c, b, BURST_CALLS);
}

/* Printed, not asserted: each PIPE=1 row and its hand twin (timed in
 * alternation), the best of each side (each plan timed alone);
 * the best stream-K row against the best of the others; each PINGPONG=1
 * row against its cooperative twin (the same row with PINGPONG=0). */
static void bench(const char *shape)
{
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_plan_id plans[MAX_ROWS];
    gdt_error e = {0};
    double best_gen = INFINITY, best_hand = INFINITY, hand_us[GDT_HAND_GEMM_CONFIGS];
    double best_of[2] = {INFINITY, INFINITY}; /* [stream-K]: the other rows, the stream-K rows */
    char name[512];
    if (!gdt_test_figures()) /* figures only under GDT_TEST_FIGURES=1 */
        return;
    if (!hand_test_bench_buffers(GDT_FAMILY_GEMM, shape, &dev, &p, &f, &b))
        return;
    for (int i = 0; i < GDT_HAND_GEMM_CONFIGS; i++) {
        gdt_compiled *c = NULL;
        hand_us[i] = build_hand(&f, i, &c, &e) == GDT_STATUS_OK ? time_plan(hand_slot(), c, b) : NAN;
        hand_slot()->ops->destroy(c);
        if (hand_us[i] < best_hand)
            best_hand = hand_us[i];
    }
    int n = tma_plans(&f, plans, false);
    for (int i = 0; i < n; i++) {
        gdt_compiled *c = NULL, *h = NULL;
        int twin = hand_twin(&plans[i]);
        double pair[2] = {NAN, NAN};
        gdt_plan_id_format(&plans[i], name, sizeof name);
        double t = NAN; /* with a twin, the pair's time: each row timed once */
        if (build(nvrtc_slot(), &f, &plans[i], &c, &e) == GDT_STATUS_OK) {
            if (twin >= 0 && build_hand(&f, twin, &h, &e) == GDT_STATUS_OK)
                hand_pair_us(nvrtc_slot()->ops, c, hand_slot()->ops, h, b, BURST_CALLS, pair);
            t = twin >= 0 ? pair[0] : time_plan(nvrtc_slot(), c, b);
        }
        nvrtc_slot()->ops->destroy(c);
        hand_slot()->ops->destroy(h);
        if (t < best_gen)
            best_gen = t;
        int sk = gdt_plan_id_knob(&plans[i], GDT_KNOB_REDUCTION_MODE, 0) == GDT_GEMM_REDUCE_STREAMK;
        if (t < best_of[sk])
            best_of[sk] = t;
        if (twin >= 0)
            printf("figure %s: %s %.2f us %.1f TFLOP/s, gemm.hand configuration %d %.2f us, "
                   "generated / handwritten %.3f (in alternation)\n", shape, name, pair[0],
                   hand_test_tflops(&f, pair[0]), twin, pair[1], pair[1] / pair[0]);
        else
            printf("figure %s: %s %.2f us %.1f TFLOP/s (no hand twin)\n", shape, name, t,
                   hand_test_tflops(&f, t));
    }
    printf("figure %s: best PIPE=1 row %.2f us, best gemm.hand %.2f us, generated / handwritten "
           "%.3f (median of %d bursts of %d)\n", shape, best_gen, best_hand, best_hand / best_gen,
           HAND_ATTN_TIMED_RUNS, BURST_CALLS);
    printf("figure %s: best stream-K row %.2f us, best other PIPE=1 row %.2f us, stream-K "
           "speedup %.3f\n", shape, best_of[1], best_of[0], best_of[0] / best_of[1]);
    pingpong_figures(shape, &f, plans, n, b);
    gdt_buffers_destroy(b);
}

/* sweeps/gemm.json's cells of the 2026-12 default sweep that the hand
 * README names, 4096^3, and m=256, n=k=4096 (the worst default cell of the
 * 2026-12-06 H100 sweep, where configuration 13's row led). */
static const char *const bench_shapes[] = {"m=4096,n=4096,k=4096", "m=128,n=4096,k=4096",
                                           "m=128,n=14336,k=4096", "m=128,n=4096,k=14336",
                                           "m=256,n=6144,k=4096",  "m=512,n=14336,k=4096",
                                           "m=2048,n=4096,k=4096", "m=256,n=4096,k=4096",
                                           "m=16,n=4096,k=4096",   "m=64,n=4096,k=4096",
                                           "m=32,n=14336,k=4096",
                                           /* partial waves: stream-K against the rest */
                                           "m=512,n=4096,k=4096",  "m=2048,n=8192,k=8192"};

/* Not sm90: every PIPE=1 row is rejected, naming sm_90a. */
static int other_arch(void)
{
    gdt_facts f;
    gdt_plan_id plans[MAX_ROWS];
    gdt_problem p;
    gdt_error e = {0};
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, cases[0], &p, &e), ==, GDT_STATUS_OK);
    gdt_facts_analyze(&p, &dev, &f);
    CHECK_INT(tma_plans(&f, plans, true), ==, 0);
    return gdt_test_result("test_nvrtc_gemm_tma");
}

int main(void)
{
    hand_watch_start("test_nvrtc_gemm_tma");
    if (!hand_test_device(&test, &dev))
        return GDT_TEST_SKIP;
    if (dev.arch != 90)
        return other_arch();
    for (int i = 0; i < NCASES; i++) {
        hand_watch(cases[i]);
        if (!run_case(i))
            return gdt_test_result("test_nvrtc_gemm_tma"); /* the context may be poisoned */
    }
    for (size_t i = 0; i < sizeof bench_shapes / sizeof bench_shapes[0]; i++) {
        hand_watch(bench_shapes[i]);
        bench(bench_shapes[i]);
    }
    alarm(0);
    return gdt_test_result("test_nvrtc_gemm_tma");
}
