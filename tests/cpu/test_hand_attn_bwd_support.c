/* sdpa_bwd.hand without a device: its id, its three fixed plans' names
 * (the second PINGPONG=1, the third DETERMINISTIC=1) and the plans its
 * fixed_plans hook lists, in order (the first two: never DETERMINISTIC=1);
 * that it is offered on sm90 alone; what its support check accepts (each
 * fixed plan and the knobless name on sm90, bf16 and fp16, d 64 and 128,
 * BSHD and BHSD, GQA, tails) and what it declines with the reason (another
 * arch, also by the capability row; head dim 96; another knob set, naming
 * the three configurations, PINGPONG=0 spelled out, PINGPONG=2,
 * DETERMINISTIC=2 and DETERMINISTIC=1 with PINGPONG=1 among them; the
 * forward family; a d stride that is not 1; a row stride TMA cannot
 * describe, of a tensor and of O, whose strides dO shares), each problem
 * decline the same under PINGPONG=1 and DETERMINISTIC=1; the host side's
 * workspace with and without the deterministic kernels' semaphores, and
 * its bind refusing a workspace of the smaller size for them. */
#include <stdlib.h>

#include "gdt_attn_bwd_tma.h"
#include "hand/hand_common.h"
#include "hand_support.h"

#define FIXED "sdpa_bwd.hand[MMA=1, STAGES=2, TILE_M=64, TILE_N=128, WARPS=12]"
#define PINGPONG "sdpa_bwd.hand[MMA=1, PINGPONG=1, STAGES=2, TILE_M=64, TILE_N=128, WARPS=12]"
#define DET "sdpa_bwd.hand[DETERMINISTIC=1, MMA=1, STAGES=2, TILE_M=64, TILE_N=128, WARPS=12]"
#define ALL "not one of the kernel's fixed configurations (" FIXED ", " PINGPONG ", " DET ")"

static const gdt_engine_slot *slot(void)
{
    return gdt_manifest_find_name(gdt_manifest_default(), "sdpa_bwd.hand");
}

static void test_identity(gdt_plan_id *fixed, gdt_plan_id *pp, gdt_plan_id *det)
{
    char name[256];
    gdt_plan_id listed[3], zero;
    gdt_facts f;
    CHECK(slot() != NULL);
    CHECK_INT(gdt_engine_id(GDT_FAMILY_SDPA_BWD, slot()->slot), ==, 20210);
    gdt__hand_attn_bwd_plan(20210, fixed);
    gdt_plan_id_format(fixed, name, sizeof name);
    CHECK_STR(name, FIXED);
    gdt__hand_attn_bwd_config_plan(0, 20210, &zero);
    CHECK(gdt_plan_id_equal(&zero, fixed));
    gdt__hand_attn_bwd_config_plan(1, 20210, pp);
    gdt_plan_id_format(pp, name, sizeof name);
    CHECK_STR(name, PINGPONG);
    gdt__hand_attn_bwd_config_plan(GDT_HAND_ATTN_BWD_DET, 20210, det);
    gdt_plan_id_format(det, name, sizeof name);
    CHECK_STR(name, DET);
    test_facts(GDT_FAMILY_SDPA_BWD, "d=128", 90, &f);
    CHECK(slot()->ops->fixed_plans != NULL);
    CHECK_INT(slot()->ops->fixed_plans(slot(), &f, listed, 1), ==, 0); /* too small for both */
    /* Room for all three, but the planner gets the two raced for speed. */
    CHECK_INT(slot()->ops->fixed_plans(slot(), &f, listed, 3), ==, GDT_HAND_ATTN_BWD_LISTED);
    CHECK_INT(GDT_HAND_ATTN_BWD_LISTED, ==, 2);
    CHECK_INT(GDT_HAND_ATTN_BWD_CONFIGS, ==, 3);
    CHECK(gdt_plan_id_equal(&listed[0], fixed));
    CHECK(gdt_plan_id_equal(&listed[1], pp));
    for (int i = 0; i < GDT_HAND_ATTN_BWD_LISTED; i++)
        CHECK_INT(gdt_plan_id_knob(&listed[i], GDT_KNOB_DETERMINISTIC, 0), ==, 0);
}

/* Verified on the H200, so offered without opt-in on sm90, and never on
 * another arch. */
static void test_offered(void)
{
    gdt_facts f;
    char why[256];
    unsetenv("GDTUNE_ENABLE_OPT_IN");
    test_facts(GDT_FAMILY_SDPA_BWD, "d=128", 90, &f);
    CHECK(gdt_slot_offered(NULL, slot(), &f, why, sizeof why));
    test_facts(GDT_FAMILY_SDPA_BWD, "d=128", 100, &f);
    CHECK(!gdt_slot_offered(NULL, slot(), &f, why, sizeof why));
}

static void test_accepts(const gdt_plan_id *fixed, const gdt_plan_id *pp, const gdt_plan_id *det)
{
    static const char *const ok[] = {
        "b=4,h=32,s=4096,d=128",
        "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16,layout=bhsd",
        "b=2,h_q=8,h_kv=2,s_q=333,s_kv=200,d=128,causal=top_left",
        "b=1,h=1,s=1,d=128,causal=none",
    };
    hand_accepts(slot(), GDT_FAMILY_SDPA_BWD, ok, sizeof ok / sizeof ok[0], fixed);
    hand_accepts(slot(), GDT_FAMILY_SDPA_BWD, ok, sizeof ok / sizeof ok[0], pp);
    hand_accepts(slot(), GDT_FAMILY_SDPA_BWD, ok, sizeof ok / sizeof ok[0], det);
}

/* The configuration a plan names, which picks the main kernel the build
 * loads (1: gdt_hand_attn_bwd_pp_*, 2: gdt_hand_attn_bwd_pre_det_* and
 * gdt_hand_attn_bwd_det_*): the knobless name and the fixed plan 0, the
 * PINGPONG=1 plan 1, the DETERMINISTIC=1 plan 2, any other knob set none. */
static void test_config_of(const gdt_plan_id *fixed, const gdt_plan_id *pp, const gdt_plan_id *det)
{
    gdt_plan_id bare = {.engine_id = fixed->engine_id}, other = *pp;
    char why[GDT_ERROR_MAX];
    gdt_plan_id_set_knob(&other, GDT_KNOB_WARPS, 8);
    CHECK_INT(gdt__hand_config_of(slot(), &bare, 2, gdt__hand_attn_bwd_config_plan, why, sizeof why), ==, 0);
    CHECK_INT(gdt__hand_config_of(slot(), fixed, 2, gdt__hand_attn_bwd_config_plan, why, sizeof why), ==, 0);
    CHECK_INT(gdt__hand_config_of(slot(), pp, 2, gdt__hand_attn_bwd_config_plan, why, sizeof why), ==, 1);
    CHECK_INT(gdt__hand_config_of(slot(), &other, 2, gdt__hand_attn_bwd_config_plan, NULL, 0), ==, -1);
    CHECK_INT(gdt__hand_config_of(slot(), &other, 2, gdt__hand_attn_bwd_config_plan, why, sizeof why), ==, -1);
    CHECK_CONTAINS(why, "sdpa_bwd.hand: plan sdpa_bwd.hand[MMA=1, PINGPONG=1, STAGES=2, TILE_M=64, TILE_N=128, "
                        "WARPS=8]: not one of the kernel's fixed configurations (" FIXED ", " PINGPONG ")");
    CHECK_INT(gdt__hand_config_of(slot(), det, 3, gdt__hand_attn_bwd_config_plan, why, sizeof why), ==,
              GDT_HAND_ATTN_BWD_DET);
    CHECK_INT(gdt__hand_config_of(slot(), pp, 3, gdt__hand_attn_bwd_config_plan, why, sizeof why), ==, 1);
}

/* A knob set that is none of the configurations names all three. */
static void test_other_knobs(const gdt_plan_id *fixed, const gdt_plan_id *pp, const gdt_plan_id *det)
{
    static const char both[] = ALL;
    gdt_facts f;
    gdt_plan_id other = *fixed;
    const gdt_engine_slot *s = slot();
    test_facts(GDT_FAMILY_SDPA_BWD, "d=64", 90, &f);
    gdt_plan_id_set_knob(&other, GDT_KNOB_STAGES, 3);
    hand_expect_decline(s, &f, &other, "sdpa_bwd.hand: plan sdpa_bwd.hand[MMA=1, STAGES=3, TILE_M=64");
    hand_expect_decline(s, &f, &other, both);
    other = *pp;
    gdt_plan_id_set_knob(&other, GDT_KNOB_STAGES, 3);
    hand_expect_decline(s, &f, &other, both);
    other = *pp;
    gdt_plan_id_set_knob(&other, GDT_KNOB_PINGPONG, 2);
    hand_expect_decline(s, &f, &other, both);
    other = *fixed;
    gdt_plan_id_set_knob(&other, GDT_KNOB_PINGPONG, 0); /* spelled out: not the fixed plan's name */
    hand_expect_decline(s, &f, &other, both);
    other = *det;
    gdt_plan_id_set_knob(&other, GDT_KNOB_DETERMINISTIC, 2);
    hand_expect_decline(s, &f, &other, both);
    other = *det;
    gdt_plan_id_set_knob(&other, GDT_KNOB_PINGPONG, 1); /* no deterministic ping-pong kernel */
    hand_expect_decline(s, &f, &other, both);
    other = *fixed;
    gdt_plan_id_set_knob(&other, GDT_KNOB_DETERMINISTIC, 0);
    hand_expect_decline(s, &f, &other, both);
}

/* The deterministic kernels' workspace adds one int32 semaphore per 64 x 64
 * chunk of the fp32 dQ accumulator: b h_q s_pad / 64 (d / 64) of them,
 * s_pad s_q rounded up to 64; the bind holds a workspace to the size of
 * the kernels the plan runs. */
static void test_workspace(void)
{
    static const struct {
        const char *shape;
        size_t plain, sems;
    } cases[] = {
        {"b=2,h_q=8,h_kv=2,s_q=200,s_kv=333,d=64", 2 * 8 * 256 * (2 + 64) * 4, 2 * 8 * 4 * 1 * 4},
        {"b=1,h=3,s=4096,d=128", 1 * 3 * 4096 * (2 + 128) * 4, 1 * 3 * 64 * 2 * 4},
        {"b=1,h=1,s=1,d=128", 64 * (2 + 128) * 4, 2 * 4},
    };
    static _Alignas(16) char fake[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gdt_facts f;
        test_facts(GDT_FAMILY_SDPA_BWD, cases[i].shape, 90, &f);
        CHECK_INT(gdt__attn_bwd_tma_workspace(&f.problem.u.sdpa, false), ==, cases[i].plain);
        CHECK_INT(gdt__attn_bwd_tma_workspace(&f.problem.u.sdpa, true), ==, cases[i].plain + cases[i].sems);
    }
    gdt_facts f;
    gdt_operands ops = {0};
    gdt_error e = {0};
    _Alignas(128) gdt_attn_bwd_tma t;
    test_facts(GDT_FAMILY_SDPA_BWD, cases[0].shape, 90, &f);
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        ops.ptr[r] = fake, ops.bytes[r] = SIZE_MAX;
    gdt__attn_bwd_tma_init(&t, "sdpa_bwd.hand", &f);
    CHECK(!t.det);
    t.det = true;
    CHECK_INT(gdt__attn_bwd_tma_bind(&t, &f, &ops, fake, cases[0].plain, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "sdpa_bwd.hand: workspace");
    CHECK_CONTAINS(e.msg, "of 1081344 bytes, expected 1081600 bytes at a 16-byte aligned address");
}

static void test_declines(const gdt_plan_id *fixed)
{
    static const char both[] = ALL;
    gdt_facts f;
    char why[256];
    gdt_plan_id other = *fixed;
    const gdt_engine_slot *s = slot();
    test_facts(GDT_FAMILY_SDPA_BWD, "d=128", 100, &f);
    CHECK(!gdt_slot_offered(NULL, s, &f, why, sizeof why));
    CHECK_CONTAINS(why, "sdpa_bwd.hand: sm100 outside sm90..sm90");
    hand_expect_decline(s, &f, fixed, "sdpa_bwd.hand: sm100: the cubin is built for sm_90a only");
    test_facts(GDT_FAMILY_SDPA_BWD, "d=96", 90, &f);
    CHECK(!gdt_slot_offered(NULL, s, &f, why, sizeof why));
    hand_expect_decline(s, &f, fixed, "sdpa_bwd.hand: head dim 96: 64 and 128 only");
    test_facts(GDT_FAMILY_SDPA_FWD, "d=64", 90, &f);
    hand_expect_decline(s, &f, fixed, "sdpa_bwd.hand: serves sdpa_bwd, problem is sdpa_fwd");
    test_facts(GDT_FAMILY_SDPA_BWD, "d=64", 90, &f);
    gdt_plan_id_set_knob(&other, GDT_KNOB_STAGES, 3);
    hand_expect_decline(s, &f, &other, both);
    f.problem.u.sdpa.v_stride[3] = 2;
    hand_expect_decline(s, &f, fixed, "operand V: stride 2 along d, expected 1");
    test_facts(GDT_FAMILY_SDPA_BWD, "b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.k_stride[2] = 68; /* 136-byte rows */
    hand_expect_decline(s, &f, fixed,
                        "operand K: stride of 136 bytes along s is not a multiple of 16");
    test_facts(GDT_FAMILY_SDPA_BWD, "b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.o_stride[1] = 200 * 64 + 4; /* dO is read through O's strides */
    hand_expect_decline(s, &f, fixed,
                        "operand O: stride of 25608 bytes along h is not a multiple of 16");
}

int main(void)
{
    gdt_plan_id fixed, pp, det;
    test_identity(&fixed, &pp, &det);
    test_offered();
    test_accepts(&fixed, &pp, &det);
    test_other_knobs(&fixed, &pp, &det);
    test_config_of(&fixed, &pp, &det);
    test_declines(&fixed);
    test_declines(&pp);
    test_declines(&det);
    test_workspace();
    return gdt_test_result("test_hand_attn_bwd_support");
}
