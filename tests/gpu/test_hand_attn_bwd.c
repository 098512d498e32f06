/* The hand engine's attention backward on the device: every case (head
 * dims 64 and 128; causal none, top-left and bottom-right; GQA 32/8, 8/2
 * and MHA; s_q != s_kv with tails; BSHD and BHSD; bf16 and fp16) matches
 * the fp64 CPU reference, dQ, dK and dV by relative L2 error under the
 * dtype's bound, outputs poisoned first and the plan executed twice (the
 * second run must clear the dQ accumulator the first one left); the max
 * error over the largest reference magnitude is printed beside it.
 * b4 h32 s4096 d128 bf16 causal matches the first mode-A cuDNN backward plan
 * the same way.  A misaligned pointer and a missing workspace are refused at
 * execute.  Then a figure, not asserted: that shape's time (all three
 * kernels), median of 25 event-timed runs after a warm-up, and TFLOP/s by
 * the family's causal flop count, beside the cuDNN plan's.  Returns 77
 * without a device; on another arch it checks the decline. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_test.h"
#include "gdt_verify.h"
#include "hand/gdt_hand.h"

static const char *const cases[] = {
    "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=128,causal=none",
    "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16",
    "b=2,h_q=32,h_kv=8,s_q=333,s_kv=200,d=128,causal=top_left",
    "b=1,h_q=4,h_kv=4,s=333,d=64,causal=top_left,layout=bhsd",
    "b=2,h_q=4,h_kv=4,s_q=200,s_kv=333,d=128,causal=bottom_right,dtype=fp16,layout=bhsd",
    "b=3,h_q=8,h_kv=8,s=200,d=64,causal=none,dtype=fp16",
    "b=2,h_q=8,h_kv=2,s=200,d=128,causal=top_left,dtype=fp16",
    "b=2,h_q=4,h_kv=4,s_q=333,s_kv=200,d=64,causal=top_left",
    "b=1,h_q=2,h_kv=1,s_q=1,s_kv=333,d=128,causal=bottom_right",  /* one query row */
    "b=2,h_q=4,h_kv=4,s=512,d=128,causal=bottom_right",           /* no tail: diagonal blocks only */
    "b=2,h_q=32,h_kv=8,s=1024,d=64,causal=top_left",              /* the ring wraps several times */
    "b=1,h_q=4,h_kv=4,s_q=200,s_kv=1333,d=128,causal=bottom_right,dtype=fp16", /* 11 key blocks, a 53-row tail */
    "b=2,h_q=4,h_kv=4,s=777,d=128,causal=none,dtype=fp16,layout=bhsd",
};
#define NCASES (int)(sizeof cases / sizeof cases[0])
#define LARGE "b=4,h=32,s=4096,d=128,dtype=bf16,causal=top_left"
#define REFERENCE_MAX_FLOPS 1e11
#define TIMED_RUNS 25

static gdt_device_props dev;

static const gdt_engine_slot *hand_slot(void)
{
    return gdt_manifest_find_name(gdt_manifest_default(), "sdpa_bwd.hand");
}

static gdt_status build_hand(const gdt_facts *f, gdt_compiled **c, gdt_error *e)
{
    gdt_plan_id id;
    gdt_build_opts o = {.device = dev};
    gdt_build_info info;
    gdt__hand_attn_bwd_plan(gdt_engine_id(GDT_FAMILY_SDPA_BWD, hand_slot()->slot), &id);
    return hand_slot()->ops->build(hand_slot(), f, &id, &o, c, &info, e);
}

/* Poisons the outputs, executes one built plan `runs` times and reads what
 * it wrote. */
static gdt_status run_built(const gdt_engine_ops *ops, gdt_compiled *c, gdt_buffers *b, int runs,
                            gdt_outputs *out, gdt_error *e)
{
    gdt_status st = gdt_buffers_reserve_workspace(b, ops->workspace_size(c) + 1, e);
    if (st == GDT_STATUS_OK)
        st = gdt_buffers_poison(b, NULL, e);
    for (int r = 0; r < runs && st == GDT_STATUS_OK; r++)
        st = ops->execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, e);
    if (st == GDT_STATUS_OK && cudaDeviceSynchronize() != cudaSuccess)
        st = gdt_error_set(e, GDT_STATUS_CUDA, "kernel: %s", cudaGetErrorString(cudaGetLastError()));
    return st == GDT_STATUS_OK ? gdt_outputs_read(b, out, e) : st;
}

/* The first mode-A cuDNN plan that builds, built (NULL when none does). */
static gdt_compiled *build_cudnn(const gdt_facts *f, gdt_error *e)
{
    gdt_plan_entry *l = NULL;
    gdt_compiled *c = NULL;
    int n = 0;
    if (gdt_cudnn_backend()->list(NULL, f, GDT_MODE_A, &l, &n, e) == GDT_STATUS_OK)
        for (int i = 0; i < n && !c; i++) {
            gdt_build_opts o = {.device = dev};
            gdt_build_info info;
            if (gdt__cudnn_ops.build(NULL, f, &l[i].id, &o, &c, &info, e) != GDT_STATUS_OK)
                c = NULL;
        }
    free(l);
    return c;
}

/* Max |got - ref| over max |ref| of output i. */
static double max_rel(const gdt_outputs *got, const gdt_outputs *ref, int i)
{
    double num = 0, den = 0;
    for (size_t k = 0; k < ref->count[i]; k++) {
        double g = got->data[i][k], r = ref->data[i][k];
        if (g == r)
            continue;
        num = fmax(num, isnan(g) ? INFINITY : fabs(g - r));
        den = fmax(den, fabs(r));
    }
    return num == 0 ? 0 : num / den;
}

static void report(const char *shape, const char *against, const gdt_outputs *got,
                   const gdt_outputs *ref, gdt_status st, const double err[4], const char *msg)
{
    if (st == GDT_STATUS_OK)
        printf("%s: verified against %s: dQ rel L2 %.2e max rel %.2e, dK rel L2 %.2e max rel %.2e, "
               "dV rel L2 %.2e max rel %.2e\n", shape, against, err[0], max_rel(got, ref, 0), err[1],
               max_rel(got, ref, 1), err[2], max_rel(got, ref, 2));
    else
        printf("%s: FAILED against %s: %s\n", shape, against, msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
}

static void test_refusal(gdt_compiled *c, gdt_buffers *b)
{
    gdt_operands ops = b->ops;
    gdt_error e = {0};
    ops.ptr[GDT_OPERAND_DO] = (char *)ops.ptr[GDT_OPERAND_DO] + 8; /* refused before any launch */
    CHECK_INT(hand_slot()->ops->execute(c, &ops, b->workspace, b->workspace_bytes, NULL, &e), ==,
              GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "sdpa_bwd.hand: operand dO: pointer");
    CHECK_CONTAINS(e.msg, "is not 16-byte aligned");
    memset(&e, 0, sizeof e);
    CHECK_INT(hand_slot()->ops->execute(c, &b->ops, NULL, 0, NULL, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "sdpa_bwd.hand: workspace");
}

/* One small case against the fp64 reference; false when the context may be
 * poisoned. */
static bool run_case(int ci)
{
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_compiled *c = NULL;
    gdt_outputs got = {0}, ref = {0};
    gdt_error e = {0};
    double err[4] = {0};
    gdt_status st = gdt_problem_parse(GDT_FAMILY_SDPA_BWD, cases[ci], &p, &e);
    if (st == GDT_STATUS_OK) {
        gdt_facts_analyze(&p, &dev, &f);
        st = gdt_buffers_create(&p, 1234 + (uint64_t)ci, &b, &e);
    }
    if (st == GDT_STATUS_OK)
        st = build_hand(&f, &c, &e);
    if (st == GDT_STATUS_OK)
        st = run_built(hand_slot()->ops, c, b, 2, &got, &e);
    if (st == GDT_STATUS_OK)
        st = gdt_reference_cpu(b, REFERENCE_MAX_FLOPS, &ref, &e);
    if (st == GDT_STATUS_OK)
        st = gdt_outputs_compare(&p, &got, &ref, err, &e);
    report(cases[ci], "the fp64 reference", &got, &ref, st, err, e.msg);
    if (st == GDT_STATUS_OK && ci == 0)
        test_refusal(c, b);
    hand_slot()->ops->destroy(c);
    gdt_outputs_free(&got);
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);
    return cudaGetLastError() == cudaSuccess && st != GDT_STATUS_CUDA;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median device time of TIMED_RUNS executes, each between its own pair of
 * events, after three warm-up runs; NAN when a run fails. */
static double median_us(const gdt_engine_ops *ops, gdt_compiled *c, gdt_buffers *b)
{
    float ms[TIMED_RUNS];
    cudaEvent_t ev[2];
    gdt_error e = {0};
    gdt_status st = GDT_STATUS_OK;
    cudaEventCreate(&ev[0]);
    cudaEventCreate(&ev[1]);
    for (int i = 0; i < 3 && st == GDT_STATUS_OK; i++)
        st = ops->execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, &e);
    for (int i = 0; i < TIMED_RUNS && st == GDT_STATUS_OK; i++) {
        cudaEventRecord(ev[0], NULL);
        st = ops->execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, &e);
        cudaEventRecord(ev[1], NULL);
        cudaEventSynchronize(ev[1]);
        cudaEventElapsedTime(&ms[i], ev[0], ev[1]);
    }
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    if (st != GDT_STATUS_OK || cudaDeviceSynchronize() != cudaSuccess) {
        printf("timing: %s\n", st != GDT_STATUS_OK ? e.msg : cudaGetErrorString(cudaGetLastError()));
        return NAN;
    }
    qsort(ms, TIMED_RUNS, sizeof ms[0], cmp_float);
    return ms[TIMED_RUNS / 2] * 1e3;
}

static double tflops(const gdt_facts *f, double us) { return f->flops / (us * 1e-6) / 1e12; }

/* The large shape: checked against cuDNN (asserted), then timed (printed). */
static void large(void)
{
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_compiled *c = NULL, *k = NULL;
    gdt_outputs got = {0}, cud = {0};
    gdt_error e = {0};
    double err[4] = {0};
    gdt_status st = gdt_problem_parse(GDT_FAMILY_SDPA_BWD, LARGE, &p, &e);
    if (st == GDT_STATUS_OK) {
        gdt_facts_analyze(&p, &dev, &f);
        st = gdt_buffers_create(&p, 7, &b, &e);
    }
    if (st == GDT_STATUS_OK && !(k = build_cudnn(&f, &e)))
        st = gdt_error_set(&e, GDT_STATUS_NOT_SUPPORTED, "no mode-A cuDNN plan builds: %s", e.msg);
    if (st == GDT_STATUS_OK)
        st = run_built(&gdt__cudnn_ops, k, b, 1, &cud, &e);
    if (st == GDT_STATUS_OK)
        st = build_hand(&f, &c, &e);
    if (st == GDT_STATUS_OK)
        st = run_built(hand_slot()->ops, c, b, 2, &got, &e);
    if (st == GDT_STATUS_OK)
        st = gdt_outputs_compare(&p, &got, &cud, err, &e);
    report(LARGE, "cuDNN", &got, &cud, st, err, e.msg);
    if (st == GDT_STATUS_OK) {
        double h = median_us(hand_slot()->ops, c, b), r = median_us(&gdt__cudnn_ops, k, b);
        printf("figure %s: sdpa_bwd.hand %.1f us %.1f TFLOP/s, cuDNN mode-A plan %.1f us %.1f "
               "TFLOP/s, ratio %.3f (median of %d)\n", LARGE, h, tflops(&f, h), r, tflops(&f, r),
               r / h, TIMED_RUNS);
    }
    hand_slot()->ops->destroy(c);
    gdt__cudnn_ops.destroy(k);
    gdt_outputs_free(&got);
    gdt_outputs_free(&cud);
    gdt_buffers_destroy(b);
}

/* Another arch: the slot is not offered and check_support says why. */
static int other_arch(void)
{
    gdt_problem p;
    gdt_facts f;
    gdt_plan_id id = {.engine_id = gdt_engine_id(GDT_FAMILY_SDPA_BWD, hand_slot()->slot)};
    gdt_error e = {0};
    char why[256];
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_BWD, cases[0], &p, &e), ==, GDT_STATUS_OK);
    gdt_facts_analyze(&p, &dev, &f);
    CHECK(!gdt_slot_offered(NULL, hand_slot(), &f, why, sizeof why));
    CHECK_INT(hand_slot()->ops->check_support(hand_slot(), &f, &id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "the cubin is built for sm_90a only");
    return gdt_test_result("test_hand_attn_bwd");
}

int main(void)
{
    if (!gdt__device_present() || gdt__device_props(0, &dev, NULL) != GDT_STATUS_OK) {
        printf("test_hand_attn_bwd: no CUDA device, skipped\n");
        return GDT_TEST_SKIP;
    }
    printf("device sm%d %s (%d SMs)\n", dev.arch, dev.name, dev.sm_count);
    if (dev.arch != 90)
        return other_arch();
    for (int i = 0; i < NCASES; i++)
        if (!run_case(i))
            return gdt_test_result("test_hand_attn_bwd"); /* the context may be poisoned */
    large();
    return gdt_test_result("test_hand_attn_bwd");
}
