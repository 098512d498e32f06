/* The NVRTC attention forward's PIPE=1 row (kernels/gdt_attn_fwd_sm90.cuh
 * through kernels/attn_fwd.cuh) on the device: the staged row of
 * tests/data/candidates/attn_fwd_tma.json (or of the file
 * GDT_TEST_TUNING_CONFIG names) binds, for every case, to sdpa_fwd.hand's
 * plan with PIPE=1; built by sdpa_fwd.nvrtc it matches the fp64 CPU
 * reference (O and LSE, outputs poisoned first) on head dims 64 and 128,
 * the three masks, GQA and MHA, tails, BSHD and BHSD, bf16 and fp16, and
 * writes exactly what sdpa_fwd.hand writes on the same buffers, element for
 * element (the same kernel, built by NVRTC at run time, launched through the
 * same host side, engines/attn_fwd_tma.c).  A misaligned pointer is refused
 * naming sdpa_fwd.nvrtc.  b4 h32 s4096 d128 bf16 causal matches the first
 * mode-A cuDNN plan.  Then figures, not asserted: that shape's time against
 * cuDNN's and against sdpa_fwd.hand's (generated / handwritten, both timed
 * alike: median of 25 single executes).  Returns 77 without a device; on
 * another arch it checks that the row is rejected for sm_90a. */
#include "hand_test.h"
#include "nvrtc/gdt_attention.h"
#include "rows_support.h"

static const char *const cases[] = {
    "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16",
    "b=2,h_q=32,h_kv=8,s_q=333,s_kv=200,d=128,causal=top_left",
    "b=1,h_q=4,h_kv=4,s=333,d=64,causal=top_left,layout=bhsd",
    "b=3,h_q=8,h_kv=8,s=200,d=64,causal=none,dtype=fp16",
    "b=1,h_q=2,h_kv=1,s_q=1,s_kv=333,d=128,causal=bottom_right",
    "b=2,h_q=32,h_kv=8,s=1024,d=64,causal=top_left",
    "b=2,h_q=4,h_kv=4,s=777,d=128,causal=none,dtype=fp16,layout=bhsd",
};
#define NCASES (int)(sizeof cases / sizeof cases[0])
#define STAGED GDT_TEST_DATA "/candidates/attn_fwd_tma.json"
#define NAME "test_nvrtc_attn_fwd_tma"

static const char *const outputs[] = {"O", "LSE"};

/* sdpa_fwd.hand's plan with PIPE=1: what the staged row must bind to. */
static void row_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_attn_plan(engine_id, out);
    gdt_plan_id_set_knob(out, GDT_KNOB_PIPE, GDT_ATTN_PIPE_TMA);
}

static const hand_attn_test test = {
    .base = {NAME, "sdpa_fwd.nvrtc", GDT_FAMILY_SDPA_FWD, cases, NCASES},
    .plan = row_plan,
    .runs = 1,
    .outputs = outputs,
    .noutputs = 2,
    .large = "b=4,h=32,s=4096,d=128,dtype=bf16,causal=top_left",
    .refusal = hand_attn_fwd_refusal,
};
static const hand_attn_test hand = {
    .base = {NAME, "sdpa_fwd.hand", GDT_FAMILY_SDPA_FWD, cases, NCASES},
    .plan = gdt__hand_attn_plan,
    .runs = 1,
};

/* The staged rows' PIPE=1 candidate for f: true with *reason NULL when it
 * binds to row_plan's plan, else false (reason: the row's, when rejected). */
static bool staged_row_ok(const gdt_facts *f, char *reason, size_t n)
{
    const gdt_engine_slot *s = hand_test_slot(&test.base);
    gdt_plan_id want;
    bool ok = false;
    int k = 0;
    snprintf(reason, n, "no PIPE=1 row");
    row_plan(gdt_engine_id(GDT_FAMILY_SDPA_FWD, s->slot), &want);
    gdt_candidate *c = rows_staged_candidates(STAGED, s, f, &k);
    for (int i = 0; i < k; i++) {
        if (c[i].requested[GDT_ATTN_PIPE] != GDT_ATTN_PIPE_TMA)
            continue;
        if (c[i].rejected)
            snprintf(reason, n, "%s", c[i].reason);
        else
            ok = gdt_plan_id_equal(&c[i].id, &want);
    }
    free(c);
    return ok;
}

/* Both slots on one case's buffers: the same O and LSE, bit for bit. */
static gdt_status same_as_hand(const gdt_device_props *dev, int ci)
{
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_compiled *c = NULL, *h = NULL;
    gdt_outputs got = {0}, want = {0};
    gdt_error e = {0};
    char reason[512];
    gdt_status st = gdt_problem_parse(GDT_FAMILY_SDPA_FWD, cases[ci], &p, &e);
    if (st == GDT_STATUS_OK) {
        gdt_facts_analyze(&p, dev, &f);
        if (!staged_row_ok(&f, reason, sizeof reason))
            st = gdt_error_set(&e, GDT_STATUS_NOT_SUPPORTED, "the staged row: %s", reason);
    }
    if (st == GDT_STATUS_OK)
        st = gdt_buffers_create(&p, 99 + (uint64_t)ci, &b, &e);
    if (st == GDT_STATUS_OK)
        st = hand_attn_build(&test, dev, &f, &c, &e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(hand_test_slot(&test.base)->ops, c, b, 1, &got, &e);
    if (st == GDT_STATUS_OK)
        st = hand_attn_build(&hand, dev, &f, &h, &e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(hand_test_slot(&hand.base)->ops, h, b, 1, &want, &e);
    for (int o = 0; st == GDT_STATUS_OK && o < want.n; o++)
        for (size_t k = 0; k < want.count[o] && st == GDT_STATUS_OK; k++)
            if (memcmp(&got.data[o][k], &want.data[o][k], sizeof(double)))
                st = gdt_error_set(&e, GDT_STATUS_INCORRECT, "element %zu of %s is %g, "
                                   "sdpa_fwd.hand wrote %g", k, outputs[o], got.data[o][k],
                                   want.data[o][k]);
    printf("%s: %s\n", cases[ci], st == GDT_STATUS_OK ? "the same O and LSE as sdpa_fwd.hand" : e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    hand_test_slot(&test.base)->ops->destroy(c);
    hand_test_slot(&hand.base)->ops->destroy(h);
    gdt_outputs_free(&got);
    gdt_outputs_free(&want);
    gdt_buffers_destroy(b);
    return st;
}

/* Printed, not asserted: the PIPE=1 row against sdpa_fwd.hand, timed alike. */
static void figure(const gdt_device_props *dev)
{
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_compiled *c = NULL, *h = NULL;
    gdt_error e = {0};
    if (!hand_test_bench_buffers(test.large, dev, &p, &f, &b))
        return;
    double g = hand_attn_build(&test, dev, &f, &c, &e) == GDT_STATUS_OK
                   ? hand_median_us(hand_test_slot(&test.base)->ops, c, b, 1) : NAN;
    double w = hand_attn_build(&hand, dev, &f, &h, &e) == GDT_STATUS_OK
                   ? hand_median_us(hand_test_slot(&hand.base)->ops, h, b, 1) : NAN;
    printf("figure %s: PIPE=1 row %.1f us %.1f TFLOP/s, sdpa_fwd.hand %.1f us %.1f TFLOP/s, "
           "generated / handwritten %.3f (median of %d)\n", test.large, g, hand_test_tflops(&f, g),
           w, hand_test_tflops(&f, w), w / g, HAND_ATTN_TIMED_RUNS);
    hand_test_slot(&test.base)->ops->destroy(c);
    hand_test_slot(&hand.base)->ops->destroy(h);
    gdt_buffers_destroy(b);
}

/* Not sm90: the staged row is rejected, naming sm_90a. */
static int other_arch(const gdt_device_props *dev)
{
    gdt_problem p;
    gdt_facts f;
    gdt_error e = {0};
    char reason[512];
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, cases[0], &p, &e), ==, GDT_STATUS_OK);
    gdt_facts_analyze(&p, dev, &f);
    CHECK(!staged_row_ok(&f, reason, sizeof reason));
    CHECK_CONTAINS(reason, "PIPE=1 (TMA, mbarriers, setmaxnreg, wgmma) needs sm_90a");
    return gdt_test_result(NAME);
}

int main(void)
{
    gdt_device_props dev;
    hand_watch_start(NAME);
    if (!hand_test_device(&test.base, &dev))
        return GDT_TEST_SKIP;
    if (dev.arch != 90)
        return other_arch(&dev);
    for (int i = 0; i < NCASES; i++) {
        hand_watch(cases[i]);
        if (!hand_attn_case(&test, &dev, i) || same_as_hand(&dev, i) == GDT_STATUS_CUDA)
            return gdt_test_result(NAME); /* the context may be poisoned */
    }
    hand_watch(test.large);
    hand_attn_large(&test, &dev);
    hand_watch(test.large);
    figure(&dev);
    alarm(0);
    return gdt_test_result(NAME);
}
