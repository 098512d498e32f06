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
 * mode-A cuDNN plan.  Then (GDT_TEST_FIGURES=1) figures, not asserted: that shape's time against
 * cuDNN's and against sdpa_fwd.hand's (generated / handwritten, both timed
 * alike: median of 25 single executes).  The same again for the staged
 * three-stage row (tests/data/candidates/attn_fwd_tma_s3.json), its figure
 * at b32 h32 s512 d128.  Returns 77 without a device; on another arch it
 * checks that the row is rejected for sm_90a. */
#include "hand_row_test.h"

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

/* The row of three-stage K and V rings (STAGES=3, no hand entry): the
 * same cases, against the reference and bit for bit against the two-stage
 * sdpa_fwd.hand (the stages change when a block lands, not what is
 * computed), and its figure at b32 h32 s512 d128, the short-sequence cell
 * it is for. */
static void row_plan_s3(int64_t engine_id, gdt_plan_id *out)
{
    row_plan(engine_id, out);
    gdt_plan_id_set_knob(out, GDT_KNOB_STAGES, 3);
}

int main(void)
{
    static const hand_row_test k = {&test, &hand, GDT_TEST_DATA "/candidates/attn_fwd_tma.json", 0x3};
    hand_attn_test test_s3 = test; /* the same cases and checks, the three-stage plan and its cell */
    test_s3.plan = row_plan_s3;
    test_s3.large = "b=32,h=32,s=512,d=128,dtype=bf16,causal=none";
    const hand_row_test s3 = {&test_s3, &hand, GDT_TEST_DATA "/candidates/attn_fwd_tma_s3.json", 0x3};
    int rc = hand_row_main(&k);
    return rc != 0 ? rc : hand_row_main(&s3);
}
