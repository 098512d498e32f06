/* sdpa_fwd.hand without a device: its id and fixed plan name, what its
 * support check accepts (the fixed plan and the knobless name on sm90, bf16
 * and fp16, d 64 and 128, BSHD and BHSD) and what it declines with the
 * reason (another arch, also by the capability row; head dim 96; another
 * knob set; a d stride that is not 1; a row stride TMA cannot describe; an
 * odd O stride; more than 2^31-1 tiles); its two configurations (three
 * consumer warpgroups and 192-row tiles, d64 only, and two and 128: the
 * entry, which the embedded cubin has, the block, shared memory, tiles and
 * Q's box; which are listed where); the persistent grid's tile count and size, and its workspace:
 * none (engines/attn_fwd_tma.c). */
#include <stdlib.h>
#include <string.h>

#include "elf_support.h"
#include "gdt_attn_fwd_tma.h"
#include "hand_support.h"

static const gdt_engine_slot *slot(void)
{
    return gdt_manifest_find_name(gdt_manifest_default(), "sdpa_fwd.hand");
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
    hand_accepts(slot(), GDT_FAMILY_SDPA_FWD, ok, sizeof ok / sizeof ok[0], fixed);
}

static void test_declines(const gdt_plan_id *fixed)
{
    gdt_facts f;
    char why[256];
    gdt_plan_id other = *fixed;
    const gdt_engine_slot *s = slot();
    setenv("GDTUNE_ENABLE_OPT_IN", "1", 1); /* so that the arch is what the row judges */
    test_facts(GDT_FAMILY_SDPA_FWD, "d=128", 100, &f);
    CHECK(!gdt_slot_offered(NULL, s, &f, why, sizeof why));
    CHECK_CONTAINS(why, "sdpa_fwd.hand: sm100 outside sm90..sm90");
    hand_expect_decline(s, &f, fixed, "sdpa_fwd.hand: sm100: the cubin is built for sm_90a only");
    test_facts(GDT_FAMILY_SDPA_FWD, "d=96", 90, &f);
    CHECK(!gdt_slot_offered(NULL, s, &f, why, sizeof why));
    hand_expect_decline(s, &f, fixed, "sdpa_fwd.hand: head dim 96: 64 and 128 only");
    test_facts(GDT_FAMILY_SDPA_FWD, "d=64", 90, &f);
    gdt_plan_id_set_knob(&other, GDT_KNOB_STAGES, 3);
    hand_expect_decline(s, &f, &other, "not one of the kernel's fixed configurations (sdpa_fwd.hand[MMA=2, "
                                       "STAGES=2, TILE_M=128, TILE_N=128, WARPS=12], sdpa_fwd.hand[MMA=2, "
                                       "STAGES=2, TILE_M=192, TILE_N=128, WARPS=16])");
    f.problem.u.sdpa.k_stride[3] = 2;
    hand_expect_decline(s, &f, fixed, "operand K: stride 2 along d, expected 1");
    test_facts(GDT_FAMILY_SDPA_FWD, "b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.v_stride[2] = 68; /* 136-byte rows */
    hand_expect_decline(s, &f, fixed,
                        "operand V: stride of 136 bytes along s is not a multiple of 16");
    test_facts(GDT_FAMILY_SDPA_FWD, "b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.o_stride[2] = 68;
    hand_expect_decline(s, &f, fixed, "operand O: stride[2] = 68 is not a multiple of 8");
    /* 2^24 heads of 128 query tiles are 2^31 tiles, one too many; 127 fit. */
    test_facts(GDT_FAMILY_SDPA_FWD, "b=65536,h=256,s_q=16384,s_kv=128,d=64", 90, &f);
    hand_expect_decline(s, &f, fixed, "the tiles, b*h_q x ceil(s_q/128), are at most 2^31-1");
    test_facts(GDT_FAMILY_SDPA_FWD, "b=65536,h=256,s_q=16256,s_kv=128,d=64", 90, &f);
    gdt_error e;
    CHECK_INT(hand_support(s, &f, fixed, &e), ==, GDT_STATUS_OK);
    /* Rows: s_q plus one 192-row tile stays below 2^31 (the last tile's m0 + 192). */
    test_facts(GDT_FAMILY_SDPA_FWD, "b=1,h=1,s_q=2147483456,s_kv=128,d=64", 90, &f);
    hand_expect_decline(s, &f, fixed, "s_q 2147483456, s_kv 128: the tiles");
    test_facts(GDT_FAMILY_SDPA_FWD, "b=1,h=1,s_q=2147483455,s_kv=128,d=64", 90, &f);
    CHECK_INT(hand_support(s, &f, fixed, &e), ==, GDT_STATUS_OK);
}

/* sdpa_fwd.hand's launch state for a shape, as its build makes it. */
static void hand_init(gdt_attn_fwd_tma *t, const char *shape, gdt_facts *f)
{
    test_facts(GDT_FAMILY_SDPA_FWD, shape, 90, f);
    gdt__attn_fwd_tma_init(t, "sdpa_fwd.hand", f, gdt__attn_fwd_tma_hand_consumers(&f->problem.u.sdpa),
                           GDT_ATTN_FWD_TMA_STAGES, GDT_ATTN_FWD_TMA_BLOCK_N, 1);
}

/* The kernel walks heads x tiles tiles (b*h_q, ceil(s_q/192) at d64,
 * ceil(s_q/128) at d128) with one CTA per tile up to the CTAs resident at
 * once (SMs x CTAs per SM), under every mask: the CTAs draw their tiles
 * from a counter as they free up. */
static void test_grid(void)
{
    static gdt_attn_fwd_tma t; /* static: its maps' 128-byte alignment */
    gdt_facts f;
    hand_init(&t, "b=3,h_q=32,h_kv=8,s_q=333,s_kv=200,d=64,causal=top_left", &f);
    CHECK_INT(t.params.heads, ==, 96);
    CHECK_INT(t.params.tiles, ==, 2);
    CHECK_INT(gdt__attn_fwd_tma_grid(&t.params, 132, 1), ==, 132);
    CHECK_INT(gdt__attn_fwd_tma_grid(&t.params, 132, 3), ==, 192);
    CHECK_INT(gdt__attn_fwd_tma_grid(&t.params, 66, 2), ==, 132);
    hand_init(&t, "b=1,h=2,s=385,d=64,dtype=fp16", &f);
    CHECK_INT(t.params.tiles, ==, 3);
    CHECK_INT(gdt__attn_fwd_tma_grid(&t.params, 132, 1), ==, 6);
    hand_init(&t, "b=1,h=2,s=384,d=64,dtype=fp16", &f);
    CHECK_INT(t.params.tiles, ==, 2);
    CHECK_INT(gdt__attn_fwd_tma_grid(&t.params, 132, 1), ==, 4);
    hand_init(&t, "b=1,h_q=2,h_kv=1,s_q=1,s_kv=333,d=128", &f);
    CHECK_INT(t.params.tiles, ==, 1);
    CHECK_INT(gdt__attn_fwd_tma_grid(&t.params, 132, 1), ==, 2);
    /* Causal over 33 and 64 key blocks (one CTA per tile until the counter), 32, no mask. */
    hand_init(&t, "b=2,h_q=32,h_kv=8,s_q=4097,s_kv=4097,d=128,causal=bottom_right", &f);
    CHECK_INT(gdt__attn_fwd_tma_grid(&t.params, 132, 1), ==, 132);
    hand_init(&t, "b=1,h=32,s=8192,d=128,causal=top_left", &f);
    CHECK_INT(gdt__attn_fwd_tma_grid(&t.params, 132, 1), ==, 132);
    hand_init(&t, "b=2,h_q=32,h_kv=8,s_q=4096,s_kv=4096,d=128,causal=top_left", &f);
    CHECK_INT(gdt__attn_fwd_tma_grid(&t.params, 132, 1), ==, 132);
    hand_init(&t, "b=2,h_q=32,h_kv=8,s_q=8192,s_kv=8192,d=128,causal=none", &f);
    CHECK_INT(gdt__attn_fwd_tma_grid(&t.params, 132, 1), ==, 132);
}

/* The boxes bind encodes, by map (Q, K, V): a fake encoder's record. */
static cuuint32_t boxes[3][2];
static int encoded;

static CUresult fake_encode(CUtensorMap *m, CUtensorMapDataType t, cuuint32_t r, void *p, const cuuint64_t *d,
                            const cuuint64_t *s, const cuuint32_t *b, const cuuint32_t *u,
                            CUtensorMapInterleave i, CUtensorMapSwizzle w, CUtensorMapL2promotion l,
                            CUtensorMapFloatOOBfill o)
{
    (void)m, (void)t, (void)r, (void)p, (void)d, (void)s, (void)u, (void)i, (void)w, (void)l, (void)o;
    if (encoded < 3)
        boxes[encoded][0] = b[0], boxes[encoded][1] = b[1];
    encoded++;
    return CUDA_SUCCESS;
}

/* One configuration per shape: the entry sdpa_fwd.hand loads (in the
 * embedded cubin), its block of 128 threads a warpgroup, its shared memory
 * (Q of 64 rows a consumer, two stages of 128-row K and V tiles, 128 bytes
 * of barriers and 1024 of slack), and Q's box the height of its tile (the
 * kernel's Q full expects that many bytes). */
typedef struct wide_case {
    const char *shape, *entry;
    int consumers, threads, smem, tiles;
} wide_case;

static void check_wide(const wide_case *w, const gdt_embedded *cubin)
{
    static gdt_attn_fwd_tma t;
    static const gdt_cu_api cu = {.cuTensorMapEncodeTiled = fake_encode};
    static _Alignas(16) char op[64];
    gdt_operands ops = {0};
    gdt_facts f;
    gdt_error e = {0};
    char name[64], text[80];
    void *args[4];
    size_t n = 0;
    memset(&t, 0, sizeof t); /* as the plan's, zeroed: no map bound yet */
    hand_init(&t, w->shape, &f);
    CHECK_INT(gdt__attn_fwd_tma_hand_consumers(&f.problem.u.sdpa), ==, w->consumers);
    CHECK_STR(gdt__hand_attn_entry(&f, w->consumers, name, sizeof name), w->entry);
    snprintf(text, sizeof text, ".text.%s", name);
    CHECK(cubin && elf_section(cubin->data, cubin->len, text, &n) != NULL && n > 0);
    CHECK_INT(t.consumers, ==, w->consumers);
    CHECK_INT(t.threads, ==, w->threads);
    CHECK_INT(t.smem_bytes, ==, w->smem);
    CHECK_INT(t.params.tiles, ==, w->tiles);
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        ops.ptr[r] = op, ops.bytes[r] = SIZE_MAX;
    t.cu = &cu, encoded = 0;
    CHECK_INT(gdt__attn_fwd_tma_bind(&t, &f, &ops, args, &e), ==, GDT_STATUS_OK);
    CHECK_INT(encoded, ==, 3);
    CHECK_INT(boxes[0][0], ==, 64);
    CHECK_INT(boxes[0][1], ==, 64 * w->consumers);
    for (int i = 1; i < 3; i++)
        CHECK(boxes[i][0] == 64 && boxes[i][1] == 128);
}

static void test_wide(void)
{
    static const wide_case cases[] = {
        {"b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right", "gdt_hand_attn_fwd_bf16_d64_m192",
         3, 512, (192 + 4 * 128) * 64 * 2 + 128 + 1024, 2},
        {"b=1,h=4,s=1000,d=64,causal=top_left,dtype=fp16", "gdt_hand_attn_fwd_fp16_d64_m192", 3, 512,
         (192 + 4 * 128) * 64 * 2 + 128 + 1024, 6},
        {"b=1,h=4,s=1000,d=128,dtype=fp16", "gdt_hand_attn_fwd_fp16_d128", 2, 384,
         (128 + 4 * 128) * 128 * 2 + 128 + 1024, 8},
        {"b=4,h=32,s=4096,d=128,causal=top_left", "gdt_hand_attn_fwd_bf16_d128", 2, 384,
         (128 + 4 * 128) * 128 * 2 + 128 + 1024, 32},
    };
    const gdt_embedded *cubin = gdt_embedded_find(GDT_HAND_ATTN_CUBIN);
    CHECK(cubin != NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_wide(&cases[i], cubin);
}

/* The two configurations: the second is TILE_M=192 and WARPS=16, taken at
 * d64 only; listed at d64 first (the untimed order), alone elsewhere; a
 * plan names its configuration's consumers. */
static void test_configs(void)
{
    const gdt_engine_slot *s = slot();
    gdt_plan_id wide, listed[3];
    gdt_facts f;
    gdt_error e;
    char name[256];
    gdt__hand_attn_fwd_config_plan(1, 20110, &wide);
    gdt_plan_id_format(&wide, name, sizeof name);
    CHECK_STR(name, "sdpa_fwd.hand[MMA=2, STAGES=2, TILE_M=192, TILE_N=128, WARPS=16]");
    CHECK_INT(gdt__hand_attn_fwd_consumers(1), ==, GDT_ATTN_FWD_TMA_WIDE);
    CHECK_INT(gdt__hand_attn_fwd_consumers(0), ==, GDT_ATTN_FWD_TMA_CONSUMERS);
    test_facts(GDT_FAMILY_SDPA_FWD, "b=2,h=4,s=512,d=64,causal=top_left", 90, &f);
    CHECK_INT(hand_support(s, &f, &wide, &e), ==, GDT_STATUS_OK);
    CHECK_INT(s->ops->fixed_plans(s, &f, listed, 1), ==, 0); /* too small for both */
    CHECK_INT(s->ops->fixed_plans(s, &f, listed, 3), ==, 2);
    CHECK(gdt_plan_id_equal(&listed[0], &wide));
    CHECK_INT(gdt_plan_id_knob(&listed[1], GDT_KNOB_TILE_M, -1), ==, 128);
    test_facts(GDT_FAMILY_SDPA_FWD, "b=2,h=4,s=512,d=128", 90, &f);
    hand_expect_decline(s, &f, &wide, "sdpa_fwd.hand: TILE_M=192 (three consumer warpgroups) is built for "
                                      "d=64, got d=128");
    CHECK_INT(s->ops->fixed_plans(s, &f, listed, 3), ==, 1);
    CHECK_INT(gdt_plan_id_knob(&listed[0], GDT_KNOB_TILE_M, -1), ==, 128);
}

/* The slot's workspace: none, whatever the problem (the tile scheduler's
 * counters are the plan's; its size needs nothing built, so no plan is). */
static void test_workspace(void)
{
    CHECK_INT(slot()->ops->workspace_size(NULL), ==, 0);
}

int main(void)
{
    gdt_plan_id fixed;
    test_identity(&fixed);
    test_accepts(&fixed);
    test_declines(&fixed);
    test_grid();
    test_wide();
    test_configs();
    test_workspace();
    return gdt_test_result("test_hand_attn_support");
}
