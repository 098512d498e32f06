/* The hand engine's attention forward on the device: every case (head dims
 * 64 and 128; causal none, top-left and bottom-right; GQA 32/8, 8/2 and
 * MHA; s_q != s_kv with tails; BSHD and BHSD; bf16 and fp16; grids of one
 * tile per CTA and of several, the persistent walk) matches the
 * fp64 CPU reference, O and LSE by relative L2 error under the dtype's
 * bound, on the second of two runs, outputs poisoned before each (the tile
 * counters the plan owns must be back at zero after the first); the max
 * error over the largest reference magnitude is printed beside it.  b4 h32
 * s4096 d128 bf16 causal matches the first mode-A cuDNN plan the same way.
 * A misaligned pointer is refused at execute.  Then (GDT_TEST_FIGURES=1) a
 * figure, not asserted: that shape's time, median of 25
 * event-timed runs after a warm-up, and TFLOP/s by the family's causal flop
 * count, beside the cuDNN plan's.  Every case and the large shape run
 * under a watchdog: a hung kernel fails the test within HAND_WATCHDOG_S seconds
 * instead of blocking the device.  Then the d64 cases again, and b4 h32
 * s4096 d64 causal and not, under the second configuration (three consumer
 * warpgroups, 192-row tiles), and a figure of the two side by side at d64
 * (s4096 and s512, causal and not).  Returns 77 without a device; on
 * another arch it checks the decline. */
#include <string.h>

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
    "b=2,h_q=32,h_kv=8,s=1024,d=64,causal=top_left",              /* the rings wrap several times */
    "b=1,h_q=4,h_kv=4,s_q=200,s_kv=1333,d=128,causal=bottom_right,dtype=fp16", /* two masked blocks */
    "b=2,h_q=4,h_kv=4,s=777,d=128,causal=none,dtype=fp16,layout=bhsd",
    /* More tiles than a 132-SM grid: each CTA walks two or more tiles of
     * different lengths, the rings, turns and Q buffer carried across them;
     * sections of 64 heads, the last one short (96 heads). */
    "b=3,h_q=32,h_kv=8,s_q=333,s_kv=200,d=64,causal=top_left,dtype=fp16",
    "b=5,h_q=32,h_kv=8,s=200,d=64,causal=none",
    "b=2,h_q=16,h_kv=4,s=777,d=128,causal=bottom_right",
    "b=4,h_q=16,h_kv=16,s_q=300,s_kv=777,d=128,causal=bottom_right,dtype=fp16,layout=bhsd",
    /* For 192-row tiles (configuration 1, three consumers): a bf16
     * bottom-right walk of several tiles a CTA with a query tail of 124 rows
     * and a key tail, and tiles of 192 rows whose diagonals cross 128-key
     * blocks mid-block. */
    "b=3,h_q=16,h_kv=4,s_q=700,s_kv=1000,d=64,causal=bottom_right",
    "b=2,h_q=4,h_kv=4,s=384,d=64,causal=top_left,dtype=fp16",
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static const char *const outputs[] = {"O", "LSE"};

static const hand_attn_test test = {
    .base = {"test_hand_attn", "sdpa_fwd.hand", GDT_FAMILY_SDPA_FWD, cases, NCASES},
    .plan = gdt__hand_attn_plan,
    .runs = 2, /* the second on the counters the first left: zero, or tiles go missing */
    .outputs = outputs,
    .noutputs = 2,
    .large = "b=4,h=32,s=4096,d=128,dtype=bf16,causal=top_left",
    .refusal = hand_attn_fwd_refusal,
};

/* Configuration 1: three consumer warpgroups and 192-row tiles (d64). */
static void wide_plan(int64_t engine_id, gdt_plan_id *out) { gdt__hand_attn_fwd_config_plan(1, engine_id, out); }

/* Every case and the large shape under configuration 0, each under the
 * watchdog; the d64 cases and d64 large shapes under configuration 1; then
 * the two side by side at d64. */
int main(void)
{
    static const char *d64[NCASES];
    static const char *const more[] = {"b=4,h=32,s=4096,d=64,dtype=bf16,causal=none", NULL};
    static const char *const pairs[] = {"b=4,h=32,s=4096,d=64,dtype=bf16,causal=top_left",
                                        "b=4,h=32,s=4096,d=64,dtype=bf16,causal=none",
                                        "b=32,h=32,s=512,d=64,dtype=bf16,causal=top_left",
                                        "b=32,h=32,s=512,d=64,dtype=bf16,causal=none", NULL};
    int n = 0;
    for (int i = 0; i < NCASES; i++)
        if (strstr(cases[i], "d=64"))
            d64[n++] = cases[i];
    hand_attn_test wide = test; /* the same test, configuration 1, d64 only */
    wide.plan = wide_plan, wide.base.cases = d64, wide.base.ncases = n;
    wide.large = "b=4,h=32,s=4096,d=64,dtype=bf16,causal=top_left";
    int rc = hand_attn_main(&test, NULL);
    if (rc == 0)
        rc = hand_attn_main(&wide, more);
    if (rc == 0)
        hand_attn_pair_figures(&wide, &test, pairs, "sdpa_fwd.hand[TILE_M=192]", "192-row / 128-row speed");
    return rc == 0 ? gdt_test_result("test_hand_attn") : rc;
}
