/* sdpa_bwd.hand without a device: its id, fixed plan name and the plan its
 * fixed_plans hook lists; that it is offered on sm90 alone; what its support check accepts
 * (the fixed plan and the knobless name on sm90, bf16 and fp16, d 64 and
 * 128, BSHD and BHSD, GQA, tails) and what it declines with the reason
 * (another arch, also by the capability row; head dim 96; another knob set;
 * the forward family; a d stride that is not 1; a row stride TMA cannot
 * describe, of a tensor and of O, whose strides dO shares). */
#include <stdlib.h>

#include "hand_support.h"

#define FIXED "sdpa_bwd.hand[MMA=1, STAGES=2, TILE_M=64, TILE_N=128, WARPS=12]"

static const gdt_engine_slot *slot(void)
{
    return gdt_manifest_find_name(gdt_manifest_default(), "sdpa_bwd.hand");
}

static void test_identity(gdt_plan_id *fixed)
{
    char name[256];
    gdt_plan_id listed[2];
    gdt_facts f;
    CHECK(slot() != NULL);
    CHECK_INT(gdt_engine_id(GDT_FAMILY_SDPA_BWD, slot()->slot), ==, 20210);
    gdt__hand_attn_bwd_plan(20210, fixed);
    gdt_plan_id_format(fixed, name, sizeof name);
    CHECK_STR(name, FIXED);
    test_facts(GDT_FAMILY_SDPA_BWD, "d=128", 90, &f);
    CHECK(slot()->ops->fixed_plans != NULL);
    CHECK_INT(slot()->ops->fixed_plans(slot(), &f, listed, 2), ==, 1);
    CHECK(gdt_plan_id_equal(&listed[0], fixed));
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

static void test_accepts(const gdt_plan_id *fixed)
{
    static const char *const ok[] = {
        "b=4,h=32,s=4096,d=128",
        "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16,layout=bhsd",
        "b=2,h_q=8,h_kv=2,s_q=333,s_kv=200,d=128,causal=top_left",
        "b=1,h=1,s=1,d=128,causal=none",
    };
    hand_accepts(slot(), GDT_FAMILY_SDPA_BWD, ok, sizeof ok / sizeof ok[0], fixed);
}

static void test_declines(const gdt_plan_id *fixed)
{
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
    hand_expect_decline(s, &f, &other, "the kernel is built for " FIXED " only");
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
    gdt_plan_id fixed;
    test_identity(&fixed);
    test_offered();
    test_accepts(&fixed);
    test_declines(&fixed);
    return gdt_test_result("test_hand_attn_bwd_support");
}
