/* The hand engine's attention backward on the device: every case (head
 * dims 64 and 128; causal none, top-left and bottom-right; GQA 32/8, 8/2
 * and MHA; s_q != s_kv with tails; BSHD and BHSD; bf16 and fp16) matches
 * the fp64 CPU reference, dQ, dK and dV by relative L2 error under the
 * dtype's bound, outputs poisoned first and the plan executed twice (the
 * second run must clear the dQ accumulator the first one left); the max
 * error over the largest reference magnitude is printed beside it.
 * b4 h32 s4096 bf16 at d 128 and at d 64 (the one dQ path at both: each
 * consumer's 64 x 64 chunk staged in its own shared slice and added by its
 * writer thread's 16 KB bulk reduce, both consumers every block at d 128,
 * one each on alternate blocks at d 64), causal and then without a mask,
 * matches the first mode-A cuDNN backward plan the same way.  A misaligned
 * pointer and a missing workspace are refused at execute.  Then for each of
 * those four shapes a figure, not asserted: its time (all three kernels),
 * median of 25 event-timed runs after a warm-up, and TFLOP/s by the
 * family's flop count, beside the cuDNN plan's (one H100, 2026-12-06, hand
 * / cuDNN: d 128 causal 1.15-1.19, none 1.02-1.08; d 64 causal 1.00, none
 * 0.94-0.96).  Each case and each large shape runs under a
 * watchdog: a hung kernel fails the test within HAND_WATCHDOG_S seconds instead
 * of blocking the device.  All of that again for the second configuration,
 * PINGPONG=1 (the main kernel gdt_hand_attn_bwd_pp_*, whose consumer
 * warpgroups take turns; not run on a GPU when written: every case of it,
 * d 64 and 128, the masks, GQA, tails, both dtypes and layouts, is what
 * verifies it), and then for each of the four b4 h32 s4096 shapes a figure
 * of the two configurations on the same buffers, timed alike: in-phase
 * time over ping-pong time (above 1: ping-pong faster).  All of the first
 * part again for the third configuration, DETERMINISTIC=1 (pre and main
 * kernels gdt_hand_attn_bwd_pre_det_* and _det_*: dQ added in key-block
 * order behind semaphores; not run on a GPU when written), then, for every
 * case and b4 h32 s4096 d128 causal and unmasked, it runs twice on one
 * input and must write dQ, dK and dV bit for bit the same (asserted; the
 * default configuration is run twice the same way and whether its dQ
 * differed is printed, not asserted), and at those two large shapes a
 * figure of the default time over the deterministic time (below 1: the
 * deterministic one slower).  Returns 77 without a device; on another arch
 * it checks the decline. */
#include "hand_test.h"

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
    "b=1,h_q=2,h_kv=2,s_q=100,s_kv=333,d=64,causal=top_left", /* key blocks 1, 2 see no query */
    /* d 64 with 15, 12 and 6 blocks per CTA (group 3, first query blocks 0, 1
     * and 3): at 15, an odd count, consumer 0 computes one block's dQ more
     * than consumer 1, the last one after the loop (dq_last) */
    "b=1,h_q=6,h_kv=2,s_q=300,s_kv=333,d=64,causal=bottom_right",
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static const char *const outputs[] = {"dQ", "dK", "dV"};

/* Two runs of the hand plan, outputs poisoned before each: the second must
 * clear the dQ accumulator the first one left. */
static const hand_attn_test test = {
    .base = {"test_hand_attn_bwd", "sdpa_bwd.hand", GDT_FAMILY_SDPA_BWD, cases, NCASES},
    .plan = gdt__hand_attn_bwd_plan,
    .runs = 2,
    .outputs = outputs,
    .noutputs = 3,
    .large = "b=4,h=32,s=4096,d=128,dtype=bf16,causal=top_left",
    .refusal = hand_attn_bwd_refusal,
};

/* Configuration 1: PINGPONG=1. */
static void pingpong_plan(int64_t engine_id, gdt_plan_id *out) { gdt__hand_attn_bwd_config_plan(1, engine_id, out); }

/* Configuration 2: DETERMINISTIC=1. */
static void det_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_attn_bwd_config_plan(GDT_HAND_ATTN_BWD_DET, engine_id, out);
}

/* DETERMINISTIC=1 twice on one input, bit for bit, at every case and the
 * b4 h32 s4096 d128 pair (the default configuration's dQ printed), then
 * its speed against the default's at that pair. */
static void deterministic(const hand_attn_test *det)
{
    static const char *const large[] = {"b=4,h=32,s=4096,d=128,dtype=bf16,causal=top_left",
                                        "b=4,h=32,s=4096,d=128,dtype=bf16,causal=none", NULL};
    const char *shapes[NCASES + 3];
    for (int i = 0; i < NCASES; i++)
        shapes[i] = cases[i];
    for (int i = 0; i < 3; i++)
        shapes[NCASES + i] = large[i];
    hand_attn_repeatable(det, &test, shapes, "sdpa_bwd.hand[DETERMINISTIC=1]", "default configuration");
    hand_attn_pair_figures(det, &test, large, "sdpa_bwd.hand[DETERMINISTIC=1]", "default / deterministic");
}

/* Every case and the large shape (d 128 causal), then d 128 without a mask
 * and the d 64 pair, for each configuration; then the first two side by
 * side; then the deterministic one's repeatability and speed. */
int main(void)
{
    static const char *const more[] = {"b=4,h=32,s=4096,d=128,dtype=bf16,causal=none",
                                       "b=4,h=32,s=4096,d=64,dtype=bf16,causal=top_left",
                                       "b=4,h=32,s=4096,d=64,dtype=bf16,causal=none", NULL};
    static const char *const all[] = {"b=4,h=32,s=4096,d=128,dtype=bf16,causal=top_left",
                                      "b=4,h=32,s=4096,d=128,dtype=bf16,causal=none",
                                      "b=4,h=32,s=4096,d=64,dtype=bf16,causal=top_left",
                                      "b=4,h=32,s=4096,d=64,dtype=bf16,causal=none", NULL};
    hand_attn_test pingpong = test, det = test; /* the same test, configurations 1 and 2 */
    pingpong.plan = pingpong_plan;
    det.plan = det_plan;
    int rc = hand_attn_main(&test, more);
    if (rc == 0)
        rc = hand_attn_main(&pingpong, more);
    if (rc == 0)
        hand_attn_pair_figures(&pingpong, &test, all, "sdpa_bwd.hand[PINGPONG=1]", "in phase / ping-pong");
    if (rc == 0)
        rc = hand_attn_main(&det, more);
    if (rc == 0)
        deterministic(&det);
    return rc == 0 ? gdt_test_result("test_hand_attn_bwd") : rc;
}
