/* The NVRTC attention backward's PIPE=1 row (kernels/gdt_attn_bwd_sm90.cuh
 * through kernels/attn_bwd.cuh, three kernels) on the device: the staged
 * row of tests/data/candidates/attn_bwd_tma.json (or of the file
 * GDT_TEST_TUNING_CONFIG names) binds, for every case, to sdpa_bwd.hand's
 * plan with PIPE=1; built by sdpa_bwd.nvrtc it matches the fp64 CPU
 * reference (dQ, dK, dV, outputs poisoned first, executed twice: the second
 * run must clear the dQ accumulator the first left) on head dims 64 and
 * 128, the three masks, GQA and MHA, tails, BSHD and BHSD, bf16 and fp16;
 * on the same buffers it writes exactly sdpa_bwd.hand's dK and dV, element
 * for element, and its dQ within the dtype's bound of the hand's (the same
 * kernels, built by NVRTC at run time, launched through the same host
 * side, engines/attn_bwd_tma.c; dQ's bulk reduce-adds land in an order that
 * varies from run to run).  A misaligned dO and a missing workspace are
 * refused, the first naming sdpa_bwd.nvrtc.  b4 h32 s4096 d128 bf16 causal
 * matches the first mode-A cuDNN backward plan.  Then (GDT_TEST_FIGURES=1) figures, not
 * asserted: that shape's time against cuDNN's and against sdpa_bwd.hand's
 * (generated / handwritten, both timed alike: median of 25 single
 * executes, all three kernels).  All of that again for the PINGPONG=1 row
 * (tests/data/candidates/attn_bwd_tma_pp.json) against sdpa_bwd.hand's
 * PINGPONG=1 plan (its main kernel gdt_hand_attn_bwd_pp_*; not run on a
 * GPU when written), and for the DETERMINISTIC=1 row
 * (tests/data/candidates/attn_bwd_tma_det.json) against sdpa_bwd.hand's
 * DETERMINISTIC=1 plan, where dQ too must be the hand's bit for bit (both
 * add it in key-block order; not run on a GPU when written); then that row
 * twice on one input at every case and b4 h32 s4096 d128 causal: dQ, dK
 * and dV bit for bit the same (asserted; whether the default row's dQ
 * differed is printed).  Returns 77 without a device; on another arch it
 * checks that the row is rejected for sm_90a. */
#include "hand_row_test.h"

static const char *const cases[] = {
    "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=128,causal=none",
    "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16",
    "b=2,h_q=32,h_kv=8,s_q=333,s_kv=200,d=128,causal=top_left",
    "b=1,h_q=4,h_kv=4,s=333,d=64,causal=top_left,layout=bhsd",
    "b=1,h_q=2,h_kv=1,s_q=1,s_kv=333,d=128,causal=bottom_right", /* one query row */
    "b=2,h_q=32,h_kv=8,s=1024,d=64,causal=top_left",             /* the ring wraps several times */
    "b=2,h_q=4,h_kv=4,s=777,d=128,causal=none,dtype=fp16,layout=bhsd",
    "b=1,h_q=6,h_kv=2,s_q=300,s_kv=333,d=64,causal=bottom_right", /* d 64, an odd block count: dq_last */
};
#define NCASES (int)(sizeof cases / sizeof cases[0])
#define NAME "test_nvrtc_attn_bwd_tma"

static const char *const outputs[] = {"dQ", "dK", "dV"};

/* sdpa_bwd.hand's plan with PIPE=1: what the staged row must bind to. */
static void row_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_attn_bwd_plan(engine_id, out);
    gdt_plan_id_set_knob(out, GDT_KNOB_PIPE, GDT_ATTN_PIPE_TMA);
}

static const hand_attn_test test = {
    .base = {NAME, "sdpa_bwd.nvrtc", GDT_FAMILY_SDPA_BWD, cases, NCASES},
    .plan = row_plan,
    .runs = 2,
    .outputs = outputs,
    .noutputs = 3,
    .large = "b=4,h=32,s=4096,d=128,dtype=bf16,causal=top_left",
    .refusal = hand_attn_bwd_refusal,
};
static const hand_attn_test hand = {
    .base = {NAME, "sdpa_bwd.hand", GDT_FAMILY_SDPA_BWD, cases, NCASES},
    .plan = gdt__hand_attn_bwd_plan,
    .runs = 1,
};

/* sdpa_bwd.hand's PINGPONG=1 plan, and with PIPE=1 the staged PINGPONG=1 row's. */
static void pp_plan(int64_t engine_id, gdt_plan_id *out) { gdt__hand_attn_bwd_config_plan(1, engine_id, out); }
static void pp_row_plan(int64_t engine_id, gdt_plan_id *out)
{
    pp_plan(engine_id, out);
    gdt_plan_id_set_knob(out, GDT_KNOB_PIPE, GDT_ATTN_PIPE_TMA);
}

/* sdpa_bwd.hand's DETERMINISTIC=1 plan, and with PIPE=1 the staged DETERMINISTIC=1 row's. */
static void det_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_attn_bwd_config_plan(GDT_HAND_ATTN_BWD_DET, engine_id, out);
}
static void det_row_plan(int64_t engine_id, gdt_plan_id *out)
{
    det_plan(engine_id, out);
    gdt_plan_id_set_knob(out, GDT_KNOB_PIPE, GDT_ATTN_PIPE_TMA);
}

/* The DETERMINISTIC=1 row: every output the hand's bit for bit, then
 * twice on one input bit for bit at every case and the large shape. */
static int deterministic(void)
{
    const char *shapes[NCASES + 2];
    hand_attn_test det_test = test, det_hand = hand;
    det_test.plan = det_row_plan, det_hand.plan = det_plan;
    const hand_row_test det = {&det_test, &det_hand, GDT_TEST_DATA "/candidates/attn_bwd_tma_det.json", 0x7};
    int rc = hand_row_main(&det);
    for (int i = 0; i < NCASES; i++)
        shapes[i] = cases[i];
    shapes[NCASES] = test.large, shapes[NCASES + 1] = NULL;
    if (rc == 0)
        hand_attn_repeatable(&det_test, &test, shapes, "DETERMINISTIC=1 row", "default PIPE=1 row");
    return rc == 0 ? gdt_test_result(NAME) : rc;
}

int main(void)
{
    /* dK and dV (outputs 1 and 2) bit for bit, dQ within the bound. */
    static const hand_row_test k = {&test, &hand, GDT_TEST_DATA "/candidates/attn_bwd_tma.json", 0x6};
    hand_attn_test pp_test = test, pp_hand = hand; /* the same tests, configuration 1 */
    pp_test.plan = pp_row_plan, pp_hand.plan = pp_plan;
    const hand_row_test pp = {&pp_test, &pp_hand, GDT_TEST_DATA "/candidates/attn_bwd_tma_pp.json", 0x6};
    int rc = hand_row_main(&k);
    if (rc == 0)
        rc = hand_row_main(&pp);
    return rc == 0 ? deterministic() : rc;
}
