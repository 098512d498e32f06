/* sdpa_bwd.hand without a device: its id, its two fixed plans' names (the
 * second PINGPONG=1) and the plans its fixed_plans hook lists, in order;
 * that it is offered on sm90 alone; what its support check accepts (either
 * fixed plan and the knobless name on sm90, bf16 and fp16, d 64 and 128,
 * BSHD and BHSD, GQA, tails) and what it declines with the reason (another
 * arch, also by the capability row; head dim 96; another knob set, naming
 * both configurations, PINGPONG=0 spelled out and PINGPONG=2 among them;
 * the forward family; a d stride that is not 1; a row stride TMA cannot
 * describe, of a tensor and of O, whose strides dO shares), each problem
 * decline the same under PINGPONG=1. */
#include <stdlib.h>

#include "hand/hand_common.h"
#include "hand_support.h"

#define FIXED "sdpa_bwd.hand[MMA=1, STAGES=2, TILE_M=64, TILE_N=128, WARPS=12]"
#define PINGPONG "sdpa_bwd.hand[MMA=1, PINGPONG=1, STAGES=2, TILE_M=64, TILE_N=128, WARPS=12]"

static const gdt_engine_slot *slot(void)
{
    return gdt_manifest_find_name(gdt_manifest_default(), "sdpa_bwd.hand");
}

static void test_identity(gdt_plan_id *fixed, gdt_plan_id *pp)
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
    test_facts(GDT_FAMILY_SDPA_BWD, "d=128", 90, &f);
    CHECK(slot()->ops->fixed_plans != NULL);
    CHECK_INT(slot()->ops->fixed_plans(slot(), &f, listed, 1), ==, 0); /* too small for both */
    CHECK_INT(slot()->ops->fixed_plans(slot(), &f, listed, 3), ==, GDT_HAND_ATTN_BWD_CONFIGS);
    CHECK_INT(GDT_HAND_ATTN_BWD_CONFIGS, ==, 2);
    CHECK(gdt_plan_id_equal(&listed[0], fixed));
    CHECK(gdt_plan_id_equal(&listed[1], pp));
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

static void test_accepts(const gdt_plan_id *fixed, const gdt_plan_id *pp)
{
    static const char *const ok[] = {
        "b=4,h=32,s=4096,d=128",
        "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16,layout=bhsd",
        "b=2,h_q=8,h_kv=2,s_q=333,s_kv=200,d=128,causal=top_left",
        "b=1,h=1,s=1,d=128,causal=none",
    };
    hand_accepts(slot(), GDT_FAMILY_SDPA_BWD, ok, sizeof ok / sizeof ok[0], fixed);
    hand_accepts(slot(), GDT_FAMILY_SDPA_BWD, ok, sizeof ok / sizeof ok[0], pp);
}

/* The configuration a plan names, which picks the main kernel the build
 * loads (1: gdt_hand_attn_bwd_pp_*): the knobless name and the fixed plan
 * 0, the PINGPONG=1 plan 1, any other knob set none. */
static void test_config_of(const gdt_plan_id *fixed, const gdt_plan_id *pp)
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
}

/* A knob set that is neither configuration names both. */
static void test_other_knobs(const gdt_plan_id *fixed, const gdt_plan_id *pp)
{
    static const char both[] = "not one of the kernel's fixed configurations (" FIXED ", " PINGPONG ")";
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
}

static void test_declines(const gdt_plan_id *fixed)
{
    static const char both[] = "not one of the kernel's fixed configurations (" FIXED ", " PINGPONG ")";
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
    gdt_plan_id fixed, pp;
    test_identity(&fixed, &pp);
    test_offered();
    test_accepts(&fixed, &pp);
    test_other_knobs(&fixed, &pp);
    test_config_of(&fixed, &pp);
    test_declines(&fixed);
    test_declines(&pp);
    return gdt_test_result("test_hand_attn_bwd_support");
}
