/* The hand engine's GEMM on the device: every fixed configuration on
 * every case (tails on M, N and K, batched, all four row/col-major
 * combinations of A and B, bf16 and fp16, more tiles than SMs so that the
 * persistent grid walks several per CTA, M of 1, 7 and 128 with long K,
 * and K shorter than the splits) matches the first mode-A cuDNN plan and,
 * on small shapes, the fp64 CPU reference, by relative L2 error under the
 * dtype's bound, outputs poisoned first.  A split-K plan is executed a
 * second time on poisoned outputs, which fails unless its tile counters
 * came back to zero; and two split-K plans of one configuration, for 3 and
 * for 1105 tiles, alive at once and executed in turn, are each right (the
 * counters are the plan's own).  The split-K plan whose splits are a
 * cluster summing through distributed shared memory reports no workspace,
 * and on every case (K of one tile: its second split has nothing to load;
 * 1105 tiles at m=2056, n=4104: each cluster walks several, so the
 * hand-over's phases turn) writes exactly what its twin through the
 * workspace writes.  A misaligned pointer and a split-K plan
 * without its workspace are refused at execute.  Then (GDT_TEST_FIGURES=1) figures, not
 * asserted: each configuration (the 6- and 8-stage rings included) on bf16
 * 4096^3, the m=128 cells of the default sweep, the other cells below
 * 0.9 of cuDNN in the 2026-12-01 sweep (m=256, n=6144; m=512, n=14336;
 * m=2048, n=k=4096; m=256, n=k=8192 at 0.896) and m=256, n=k=4096 (the
 * worst default cell of the 2026-12-06 H100 sweep, 1.493 of cuDNN's time,
 * where the row that configuration 13 twins ran faster than every other
 * configuration) against the best of cuDNN's
 * first six mode-A plans, both timed alike (median of 25 bursts of 64
 * calls).  The swap-AB configurations (14 to 18) run every case too, and
 * the decode-sized ones (m 1, 7, 16, 33, 64 with n and k off the tiles,
 * both dtypes, all four layouts); those with fewer than 64 rows of M must
 * decline an MN-major A, by name.  Their figures: m=16 and m=64 at
 * n=k=4096, m=32 at n=14336, k=4096, with the best swap-AB configuration
 * against the best other one.  The stream-K configurations (19, 20: not
 * run on a GPU when written) run every case as well, twice on each with
 * the same C bit for bit (pieces summed in piece order), and on the
 * counters-per-plan pair; their figures: m=256, n=6144, k=4096; m=512,
 * n=k=4096; 4096^3; m=2048, n=k=8192, the best stream-K configuration
 * against the best of configurations 0 to 13.  The ping-pong
 * configurations (21, 22: not run on a GPU when written) run every case
 * too and write the same C bit for bit as their cooperative twins (1 and
 * 7: the same wgmmas on the same stages, only which warpgroup issues them
 * differs); their figures, on every shape below (4096^3 and m=2048,
 * n=k=4096 among them): each against its cooperative twin.  Returns 77
 * without a device; on another arch it checks the decline. */
#include "hand_test.h"
#include "rows_support.h"

static const char *const cases[] = {
    "m=200,n=328,k=136",
    "m=264,n=200,k=72,a=col",
    "m=136,n=264,k=40,b=col,dtype=fp16",
    "m=200,n=136,k=200,a=col,b=col,dtype=fp16",
    "batch=3,m=72,n=264,k=136",
    "batch=2,m=136,n=520,k=264,a=col,b=col",
    "m=8,n=8,k=8,dtype=fp16",
    "m=2056,n=4104,k=520",                       /* 289 tiles: several per CTA */
    "batch=3,m=1032,n=1288,k=264,a=col,dtype=fp16", /* 162 tiles over three batches */
    "m=1024,n=1024,k=4104,b=col",                /* a long K loop round the ring */
    "m=1,n=264,k=8200",                          /* small M, long K: the split-K cases */
    "m=7,n=520,k=4104,b=col,dtype=fp16",
    "batch=2,m=128,n=1032,k=3080,a=col",
    "m=128,n=264,k=7176,a=col,b=col,dtype=fp16",
    "m=128,n=4096,k=14336",                      /* a default cell: cuDNN only */
    "m=8,n=136,k=72",                            /* two K tiles: fewer than most splits */
    /* Just past a wave of 132 SMs, small enough for the fp64 reference:
     * stream-K cuts 150 tiles of 128 x 128 (and 100 of 128 x 192) */
    "m=1160,n=1800,k=200,b=col,dtype=fp16",
    /* Decode-sized M for swap-AB (configurations 14 to 18): m 1, 7, 16,
     * 33 and 64, n and k off the tiles, both dtypes, the four layouts (A
     * column-major where m * 2 bytes is a stride TMA takes). */
    "m=1,n=4104,k=4168",
    "m=7,n=1032,k=2056,b=col,dtype=fp16",
    "m=16,n=520,k=1096,a=col,dtype=fp16",
    "batch=2,m=33,n=1160,k=584",
    "m=33,n=264,k=8200,dtype=fp16",
    "m=64,n=2120,k=1160,a=col,b=col",
    "m=64,n=4104,k=200,b=col,dtype=fp16",
};
#define NCASES (int)(sizeof cases / sizeof cases[0])
#define REFERENCE_MAX_FLOPS 2e9
#define BURST_CALLS 64 /* executes per burst, as the sweep's burst-64 timing */

static const hand_test test = {"test_hand", "gemm.hand", GDT_FAMILY_GEMM, cases, NCASES};
static gdt_device_props dev;

static const gdt_engine_slot *hand_slot(void) { return hand_test_slot(&test); }

/* Configuration i of the slot. */
static gdt_status build_hand(const gdt_facts *f, int i, gdt_compiled **c, gdt_error *e)
{
    gdt_plan_id id;
    gdt_build_opts o = {.device = dev};
    gdt_build_info info;
    gdt__hand_gemm_config_plan(i, gdt_engine_id(GDT_FAMILY_GEMM, hand_slot()->slot), &id);
    return hand_slot()->ops->build(hand_slot(), f, &id, &o, c, &info, e);
}

static const char *config_name(int i, char *buf, size_t n)
{
    gdt_plan_id id;
    gdt__hand_gemm_config_plan(i, gdt_engine_id(GDT_FAMILY_GEMM, hand_slot()->slot), &id);
    gdt_plan_id_format(&id, buf, n);
    return buf;
}

static gdt_status run_cudnn(const gdt_facts *f, gdt_buffers *b, gdt_outputs *out, gdt_error *e)
{
    return hand_test_run_cudnn(&dev, f, b, out, e);
}

static void test_refusal(gdt_compiled *c, gdt_buffers *b)
{
    gdt_operands ops = b->ops;
    gdt_error e = {0};
    ops.ptr[GDT_OPERAND_B] = (char *)ops.ptr[GDT_OPERAND_B] + 8; /* refused before any launch */
    CHECK_INT(hand_slot()->ops->execute(c, &ops, NULL, 0, NULL, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "gemm.hand: operand B: pointer");
    CHECK_CONTAINS(e.msg, "is not 16-byte aligned, as TMA requires");
}

/* Configuration 9, 128 x 64 in two splits with the 8-stage ring: a split-K
 * plan for the workspace and counter checks (configurations 10 and 11, the
 * clusters, have no workspace).  Configuration 11, the same tile and ring
 * with the splits summed in a cluster. */
enum { SPLIT_S8 = 9, SPLIT_DSMEM = 11 };
/* The swap-AB configurations are 14 to 18 (engines/hand/gdt_hand.h);
 * 15 is 64 x 64 of C^T in two splits.  Stream-K: 19 (128 x 128) and 20
 * (128 x 192).  Ping-pong: 21 and 22 (128 x 128, 4 and 6 stages). */
enum { SWAB_FIRST = 14, SWAB_SPLIT = 15, STREAMK_FIRST = 19, STREAMK_END = 21 };

/* Whether configuration i is a ping-pong one (its PINGPONG knob), so that
 * a configuration added after them is not taken for one. */
static bool pingpong(int i)
{
    gdt_plan_id p;
    gdt__hand_gemm_config_plan(i, 0, &p);
    return gdt_plan_id_knob(&p, GDT_KNOB_PINGPONG, 0) == 1;
}

/* A configuration's kind in the figures: 0 the others, 1 swap-AB, 2
 * stream-K, 3 ping-pong. */
static int kind(int i)
{
    return pingpong(i) ? 3 : i >= STREAMK_FIRST && i < STREAMK_END ? 2 : i >= SWAB_FIRST && i < STREAMK_FIRST ? 1 : 0;
}

/* The cooperative configuration a ping-pong one twins (its knobs without
 * PINGPONG), or -1. */
static int cooperative_twin(int i)
{
    gdt_plan_id pp, other;
    gdt__hand_gemm_config_plan(i, 0, &pp);
    gdt_plan_id want = rows_cooperative_twin(&pp);
    for (int k = 0; k < GDT_HAND_GEMM_CONFIGS; k++) {
        gdt__hand_gemm_config_plan(k, 0, &other);
        if (k != i && gdt_plan_id_equal(&other, &want))
            return k;
    }
    return -1;
}

/* A split-K plan without the workspace it reported. */
static void test_no_workspace(gdt_compiled *c, gdt_buffers *b)
{
    gdt_error e = {0};
    CHECK(hand_slot()->ops->workspace_size(c) > 0);
    CHECK_INT(hand_slot()->ops->execute(c, &b->ops, NULL, 0, NULL, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "gemm.hand: workspace: expected ");
}

/* A split-K plan once more on poisoned outputs, against cuDNN: a counter
 * the last run left nonzero would make no unit (or an early one) sum the
 * tile, leaving C poisoned or short of a split. */
static gdt_status rerun_split(gdt_compiled *c, const gdt_problem *p, gdt_buffers *b,
                              const gdt_outputs *cud, gdt_error *e)
{
    gdt_outputs again = {0};
    double err[4] = {0};
    if (!hand_slot()->ops->workspace_size(c))
        return GDT_STATUS_OK;
    gdt_status st = hand_test_run_built(hand_slot()->ops, c, b, 1, &again, e);
    if (st == GDT_STATUS_OK)
        st = gdt_outputs_compare(p, &again, cud, err, e);
    gdt_outputs_free(&again);
    return st;
}

/* Swap-AB with fewer than 64 rows of M (configurations 16 and 17) loads A
 * as the wgmma's B side in boxes of 64 columns of M when A is MN-major,
 * so it declines such an A: true when configuration i must decline f. */
static bool declines(int i, const gdt_facts *f)
{
    gdt_plan_id id;
    gdt__hand_gemm_config_plan(i, 0, &id);
    return gdt_plan_id_knob(&id, GDT_KNOB_SWAP_AB, 0) == 1 &&
           gdt_plan_id_knob(&id, GDT_KNOB_TILE_M, 0) < 64 && f->problem.u.gemm.a_stride[2] != 1;
}

/* The decline of a configuration that cannot take the case's layout. */
static gdt_status check_decline(int ci, int i, const gdt_facts *f)
{
    gdt_compiled *c = NULL;
    gdt_error e = {0};
    char name[256];
    gdt_status st = build_hand(f, i, &c, &e);
    hand_slot()->ops->destroy(c);
    config_name(i, name, sizeof name);
    printf("%s %s: declined: %s\n", cases[ci], name, e.msg);
    CHECK_INT(st, ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "under swap-AB takes a tile of 64 rows of M");
    return st == GDT_STATUS_NOT_SUPPORTED ? GDT_STATUS_OK : GDT_STATUS_INCORRECT;
}

/* Configuration i on a case's buffers against cuDNN's output and, when
 * given, the reference's. */
static gdt_status run_config(int ci, int i, const gdt_problem *p, const gdt_facts *f,
                             gdt_buffers *b, const gdt_outputs *cud, const gdt_outputs *ref)
{
    gdt_compiled *c = NULL;
    gdt_outputs got = {0};
    gdt_error e = {0};
    double err[4] = {0}, err_ref[4] = {0};
    char name[256];
    if (declines(i, f))
        return check_decline(ci, i, f);
    gdt_status st = build_hand(f, i, &c, &e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(hand_slot()->ops, c, b, 1, &got, &e);
    if (st == GDT_STATUS_OK)
        st = gdt_outputs_compare(p, &got, cud, err, &e);
    if (st == GDT_STATUS_OK && ref)
        st = gdt_outputs_compare(p, &got, ref, err_ref, &e);
    if (st == GDT_STATUS_OK)
        st = rerun_split(c, p, b, cud, &e);
    if (st == GDT_STATUS_OK && ci == 0 && i == 0)
        test_refusal(c, b);
    if (st == GDT_STATUS_OK && ci == 0 && i == SPLIT_S8)
        test_no_workspace(c, b);
    if (st == GDT_STATUS_OK && i == SPLIT_DSMEM)
        CHECK_INT((int)hand_slot()->ops->workspace_size(c), ==, 0);
    config_name(i, name, sizeof name);
    if (st == GDT_STATUS_OK)
        printf("%s %s: verified, rel L2 %.2e against cuDNN%s", cases[ci], name, err[0],
               ref ? "" : " (too large for the fp64 reference)\n");
    if (st == GDT_STATUS_OK && ref)
        printf(", %.2e against the fp64 reference\n", err_ref[0]);
    if (st != GDT_STATUS_OK)
        printf("%s %s: FAILED: %s\n", cases[ci], name, e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    hand_slot()->ops->destroy(c);
    gdt_outputs_free(&got);
    return st;
}

/* Configurations 9 and 11 split K alike and both sum p0 + p1 in fp32, so
 * their outputs are equal element for element: a hand-over that read a
 * stale or a missing message shows here even inside the tolerance.  A
 * stream-K configuration run twice writes the same C bit for bit: a cut
 * tile's pieces are summed in piece order, whichever CTA finishes last. */
static gdt_status same_output(int ci, const gdt_facts *f, gdt_buffers *b, int first, int second)
{
    const int which[2] = {first, second};
    gdt_outputs got[2] = {{0}};
    gdt_error e = {0};
    gdt_status st = GDT_STATUS_OK;
    for (int k = 0; k < 2 && st == GDT_STATUS_OK; k++) {
        gdt_compiled *c = NULL;
        st = build_hand(f, which[k], &c, &e);
        if (st == GDT_STATUS_OK)
            st = hand_test_run_built(hand_slot()->ops, c, b, 1, &got[k], &e);
        hand_slot()->ops->destroy(c);
    }
    size_t at = 0, n = got[0].count[0];
    while (st == GDT_STATUS_OK && at < n && got[0].data[0][at] == got[1].data[0][at])
        at++;
    if (st == GDT_STATUS_OK && at < n)
        st = gdt_error_set(&e, GDT_STATUS_INCORRECT, "element %zu of C is %g, configuration %d "
                           "wrote %g", at, got[1].data[0][at], first, got[0].data[0][at]);
    bool ok = st == GDT_STATUS_OK;
    printf("%s: configuration %d against %d: %s%s\n", cases[ci], second, first,
           ok ? "the same C" : "FAILED: ", ok ? "" : e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    gdt_outputs_free(&got[0]);
    gdt_outputs_free(&got[1]);
    return st;
}

/* One case, every configuration; false when the context may be poisoned. */
static bool run_case(int ci)
{
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_outputs cud = {0}, ref = {0};
    gdt_error e = {0};
    bool small = false;
    gdt_status st = hand_test_gemm_case(cases[ci], 4321 + (uint64_t)ci, &dev, REFERENCE_MAX_FLOPS,
                                        &p, &f, &b, &cud, &ref, &small, &e);
    for (int i = 0; st == GDT_STATUS_OK && i < GDT_HAND_GEMM_CONFIGS; i++)
        st = run_config(ci, i, &p, &f, b, &cud, small ? &ref : NULL);
    if (st == GDT_STATUS_OK)
        st = same_output(ci, &f, b, SPLIT_S8, SPLIT_DSMEM);
    for (int i = STREAMK_FIRST; st == GDT_STATUS_OK && i < STREAMK_END; i++)
        st = same_output(ci, &f, b, i, i);
    for (int i = 0; st == GDT_STATUS_OK && i < GDT_HAND_GEMM_CONFIGS; i++) {
        if (!pingpong(i))
            continue;
        int twin = cooperative_twin(i);
        CHECK_INT(twin, >=, 0);
        if (twin >= 0)
            st = same_output(ci, &f, b, twin, i);
    }
    gdt_outputs_free(&cud);
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);
    return cudaGetLastError() == cudaSuccess && st != GDT_STATUS_CUDA;
}

/* One shape of test_counters_per_plan: its buffers, cuDNN's output and
 * the plan of configuration i. */
typedef struct sized_plan {
    gdt_problem p;
    gdt_buffers *b;
    gdt_outputs cud;
    gdt_compiled *c;
} sized_plan;

static gdt_status sized_plan_new(const char *shape, int i, sized_plan *s, gdt_error *e)
{
    gdt_facts f;
    gdt_status st = gdt_problem_parse(GDT_FAMILY_GEMM, shape, &s->p, e);
    if (st == GDT_STATUS_OK) {
        gdt_facts_analyze(&s->p, &dev, &f);
        st = gdt_buffers_create(&s->p, 99, &s->b, e);
    }
    if (st == GDT_STATUS_OK)
        st = run_cudnn(&f, s->b, &s->cud, e);
    return st == GDT_STATUS_OK ? build_hand(&f, i, &s->c, e) : st;
}

static void sized_plan_free(sized_plan *s)
{
    hand_slot()->ops->destroy(s->c);
    gdt_outputs_free(&s->cud);
    gdt_buffers_destroy(s->b);
}

/* Configuration 9 (128 x 64, two splits, the 8-stage ring) built for 3
 * tiles and for 1105 (2210 units: 17 rounds of the grid), and 15 (swap-AB
 * 64 x 64 tiles of C^T in two splits: 3 tiles and 2145), and 19
 * (stream-K, 128 x 128: 2 tiles of 2 K tiles on 4 CTAs, each tile in two
 * pieces; 561 tiles of 9, 396 whole and 165 in runs of 11 or 12), both
 * alive, executed small, large, small, large on poisoned outputs: right
 * each time only if each plan counts on counters of its own size. */
static void test_counters_per_plan(int i)
{
    static const char *const shapes[2] = {"m=8,n=136,k=72", "m=2056,n=4104,k=520"};
    sized_plan s[2] = {0};
    gdt_error e = {0};
    gdt_status st = GDT_STATUS_OK;
    int r = 0;
    for (int k = 0; k < 2 && st == GDT_STATUS_OK; k++)
        st = sized_plan_new(shapes[k], i, &s[k], &e);
    for (; r < 4 && st == GDT_STATUS_OK; r++)
        st = rerun_split(s[r % 2].c, &s[r % 2].p, s[r % 2].b, &s[r % 2].cud, &e);
    if (st == GDT_STATUS_OK)
        printf("counters per plan, configuration %d: %s and %s in turn, verified\n", i, shapes[0],
               shapes[1]);
    else
        printf("counters per plan, configuration %d: FAILED at run %d of 4: %s\n", i, r, e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    for (int k = 0; k < 2; k++)
        sized_plan_free(&s[k]);
}

/* The best of cuDNN's first six mode-A plans, in us (printed each). */
static double best_cudnn(const char *shape, const gdt_facts *f, gdt_buffers *b)
{
    gdt_plan_entry *l = NULL;
    gdt_error e = {0};
    int n = 0;
    char name[256];
    double best = INFINITY;
    if (gdt_cudnn_backend()->list(NULL, f, GDT_MODE_A, &l, &n, &e) != GDT_STATUS_OK)
        printf("bench cudnn: %s\n", e.msg);
    for (int i = 0; i < n && i < 6; i++) {
        gdt_build_opts o = {.device = dev};
        gdt_build_info info;
        gdt_compiled *k = NULL;
        gdt_plan_id_format(&l[i].id, name, sizeof name);
        if (gdt__cudnn_ops.build(NULL, f, &l[i].id, &o, &k, &info, &e) != GDT_STATUS_OK)
            continue;
        double t = NAN;
        if (gdt_buffers_reserve_workspace(b, gdt__cudnn_ops.workspace_size(k), &e) == GDT_STATUS_OK)
            t = hand_median_us(&gdt__cudnn_ops, k, b, BURST_CALLS);
        printf("bench %s %s: %.2f us, %.1f TFLOP/s\n", shape, name, t, hand_test_tflops(f, t));
        if (t < best)
            best = t;
        gdt__cudnn_ops.destroy(k);
    }
    free(l);
    return best;
}

/* Printed, not asserted: every configuration against cuDNN's best; the
 * timing of a split-K plan holds its reduction (inside its one launch).
 * Then the best swap-AB and the best stream-K configuration against the
 * best of the others, and each ping-pong configuration against its
 * cooperative twin. */
static void bench(const char *shape)
{
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_error e = {0};
    char name[256];
    double side_us[4] = {INFINITY, INFINITY, INFINITY, INFINITY}; /* the best of each kind() */
    double us[GDT_HAND_GEMM_CONFIGS];
    int side[4] = {-1, -1, -1, -1};
    if (!gdt_test_figures()) /* figures only under GDT_TEST_FIGURES=1 */
        return;
    if (!hand_test_bench_buffers(GDT_FAMILY_GEMM, shape, &dev, &p, &f, &b))
        return;
    double best = best_cudnn(shape, &f, b);
    for (int i = 0; i < GDT_HAND_GEMM_CONFIGS; i++) {
        gdt_compiled *c = NULL;
        us[i] = NAN;
        config_name(i, name, sizeof name);
        if (build_hand(&f, i, &c, &e) != GDT_STATUS_OK ||
            gdt_buffers_reserve_workspace(b, hand_slot()->ops->workspace_size(c), &e) != GDT_STATUS_OK) {
            printf("bench %s %s: %s\n", shape, name, e.msg);
            hand_slot()->ops->destroy(c);
            continue;
        }
        double h = us[i] = hand_median_us(hand_slot()->ops, c, b, BURST_CALLS);
        hand_slot()->ops->destroy(c);
        if (h < side_us[kind(i)])
            side_us[kind(i)] = h, side[kind(i)] = i;
        printf("figure %s: %s %.2f us %.1f TFLOP/s, best cuDNN mode-A %.2f us %.1f TFLOP/s, "
               "ratio %.3f (median of %d bursts of %d)\n", shape, name, h, hand_test_tflops(&f, h),
               best, hand_test_tflops(&f, best), best / h, HAND_ATTN_TIMED_RUNS, BURST_CALLS);
    }
    printf("figure %s: best swap-AB configuration %d %.2f us, best other configuration %d %.2f us, "
           "swap-AB speedup %.3f, best cuDNN mode-A / swap-AB %.3f\n", shape, side[1], side_us[1],
           side[0], side_us[0], side_us[0] / side_us[1], best / side_us[1]);
    printf("figure %s: best stream-K configuration %d %.2f us, best other configuration %d %.2f "
           "us, stream-K speedup %.3f, best cuDNN mode-A / stream-K %.3f\n", shape, side[2],
           side_us[2], side[0], side_us[0], side_us[0] / side_us[2], best / side_us[2]);
    for (int i = 0; i < GDT_HAND_GEMM_CONFIGS; i++) {
        if (!pingpong(i))
            continue;
        int twin = cooperative_twin(i);
        double pair[2]; /* the two again, in alternation */
        gdt_compiled *pp = NULL, *co = NULL;
        if (twin >= 0 && build_hand(&f, i, &pp, &e) == GDT_STATUS_OK)
            build_hand(&f, twin, &co, &e);
        hand_pair_us(hand_slot()->ops, pp, hand_slot()->ops, co, b, BURST_CALLS, pair);
        hand_slot()->ops->destroy(pp);
        hand_slot()->ops->destroy(co);
        printf("figure %s: ping-pong configuration %d %.2f us %.1f TFLOP/s, cooperative twin %d "
               "%.2f us, ping-pong speedup %.3f (in alternation), best cuDNN mode-A / ping-pong %.3f\n",
               shape, i, pair[0], hand_test_tflops(&f, pair[0]), twin, pair[1], pair[1] / pair[0], best / us[i]);
    }
    gdt_buffers_destroy(b);
}

/* The figures' shapes, after the cases. */
static const char *const bench_shapes[] = {"m=4096,n=4096,k=4096", "m=128,n=4096,k=4096",
                                           "m=128,n=14336,k=4096", "m=128,n=4096,k=14336",
                                           "m=256,n=6144,k=4096",  "m=512,n=14336,k=4096",
                                           "m=2048,n=4096,k=4096", "m=256,n=8192,k=8192",
                                           "m=512,n=4096,k=14336", "m=256,n=4096,k=4096",
                                           /* decode-sized M: swap-AB against the rest */
                                           "m=16,n=4096,k=4096",   "m=64,n=4096,k=4096",
                                           "m=32,n=14336,k=4096",
                                           /* partial waves: stream-K against the rest */
                                           "m=512,n=4096,k=4096",  "m=2048,n=8192,k=8192"};

/* Every step under the watchdog (hand_test.h): a hung ring fails the test,
 * naming its case, instead of blocking the device. */
int main(void)
{
    hand_watch_start("test_hand");
    if (!hand_test_device(&test, &dev))
        return GDT_TEST_SKIP;
    if (dev.arch != 90)
        return hand_test_other_arch(&test, &dev);
    for (int i = 0; i < NCASES; i++) {
        hand_watch(cases[i]);
        if (!run_case(i))
            return gdt_test_result("test_hand"); /* the context may be poisoned */
    }
    hand_watch("the counters per plan");
    test_counters_per_plan(SPLIT_S8);
    if (cudaGetLastError() != cudaSuccess)
        return gdt_test_result("test_hand");
    test_counters_per_plan(SWAB_SPLIT); /* the counters of C^T's tiles */
    if (cudaGetLastError() != cudaSuccess)
        return gdt_test_result("test_hand");
    test_counters_per_plan(STREAMK_FIRST); /* 2 and 561 tiles, both with cut tiles */
    if (cudaGetLastError() != cudaSuccess)
        return gdt_test_result("test_hand");
    for (size_t i = 0; i < sizeof bench_shapes / sizeof bench_shapes[0]; i++) {
        hand_watch(bench_shapes[i]);
        bench(bench_shapes[i]);
    }
    alarm(0);
    return gdt_test_result("test_hand");
}
