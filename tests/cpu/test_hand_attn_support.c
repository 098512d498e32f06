/* sdpa_fwd.hand without a device: its id and fixed plan name, what its
 * support check accepts (the fixed plan and the knobless name on sm90, bf16
 * and fp16, d 64 and 128, BSHD and BHSD) and what it declines with the
 * reason (another arch, also by the capability row; head dim 96; another
 * knob set; a d stride that is not 1; a row stride TMA cannot describe; an
 * odd O stride). */
#include <stdlib.h>
#include <string.h>

#include "gdt_engines.h"
#include "gdt_test.h"
#include "hand/gdt_hand.h"

static const gdt_engine_slot *slot(void)
{
    return gdt_manifest_find_name(gdt_manifest_default(), "sdpa_fwd.hand");
}

static void facts_for(const char *shape, int arch, gdt_facts *f)
{
    gdt_problem p;
    gdt_device_props dev;
    gdt_error e = {0};
    CHECK(gdt_arch_limits(arch, &dev));
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, shape, &p, &e), ==, GDT_STATUS_OK);
    gdt_facts_analyze(&p, &dev, f);
}

static gdt_status support(const gdt_facts *f, const gdt_plan_id *id, gdt_error *e)
{
    memset(e, 0, sizeof *e);
    return slot()->ops->check_support(slot(), f, id, e);
}

static void test_identity(gdt_plan_id *fixed)
{
    char name[256];
    CHECK(slot() != NULL);
    CHECK_INT(gdt_engine_id(GDT_FAMILY_SDPA_FWD, slot()->slot), ==, 20110);
    gdt__hand_attn_plan(20110, fixed);
    gdt_plan_id_format(fixed, name, sizeof name);
    CHECK_STR(name, "sdpa_fwd.hand[MMA=2, STAGES=2, TILE_M=128, TILE_N=128, WARPS=12]");
}

static void test_accepts(const gdt_plan_id *fixed)
{
    static const char *const ok[] = {
        "b=4,h=32,s=4096,d=128",
        "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16,layout=bhsd",
        "b=1,h=1,s=1,d=128,causal=none",
    };
    gdt_plan_id bare = {.engine_id = fixed->engine_id};
    gdt_facts f;
    gdt_error e;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        facts_for(ok[i], 90, &f);
        CHECK_INT(support(&f, fixed, &e), ==, GDT_STATUS_OK);
        CHECK_INT(support(&f, &bare, &e), ==, GDT_STATUS_OK);
    }
}

static void expect_decline(const gdt_facts *f, const gdt_plan_id *id, const char *why)
{
    gdt_error e;
    CHECK_INT(support(f, id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, why);
}

static void test_declines(const gdt_plan_id *fixed)
{
    gdt_facts f;
    char why[256];
    gdt_plan_id other = *fixed;
    setenv("GDTUNE_ENABLE_OPT_IN", "1", 1); /* so that the arch is what the row judges */
    facts_for("d=128", 100, &f);
    CHECK(!gdt_slot_offered(NULL, slot(), &f, why, sizeof why));
    CHECK_CONTAINS(why, "sdpa_fwd.hand: sm100 outside sm90..sm90");
    expect_decline(&f, fixed, "sdpa_fwd.hand: sm100: the cubin is built for sm_90a only");
    facts_for("d=96", 90, &f);
    CHECK(!gdt_slot_offered(NULL, slot(), &f, why, sizeof why));
    expect_decline(&f, fixed, "sdpa_fwd.hand: head dim 96: 64 and 128 only");
    facts_for("d=64", 90, &f);
    gdt_plan_id_set_knob(&other, GDT_KNOB_STAGES, 3);
    expect_decline(&f, &other, "the kernel is built for sdpa_fwd.hand[MMA=2, STAGES=2, TILE_M=128, "
                               "TILE_N=128, WARPS=12] only");
    f.problem.u.sdpa.k_stride[3] = 2;
    expect_decline(&f, fixed, "operand K: stride 2 along d, expected 1");
    facts_for("b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.v_stride[2] = 68; /* 136-byte rows */
    expect_decline(&f, fixed, "operand V: stride of 136 bytes along s is not a multiple of 16");
    facts_for("b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.o_stride[2] = 65;
    expect_decline(&f, fixed, "operand O: stride[2] = 65 is odd");
}

int main(void)
{
    gdt_plan_id fixed;
    test_identity(&fixed);
    test_accepts(&fixed);
    test_declines(&fixed);
    return gdt_test_result("test_hand_attn_support");
}
