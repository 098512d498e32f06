/* The attention_bwd rows' PIPE=1 column (sdpa_bwd.hand's three kernels,
 * kernels/gdt_attn_bwd_sm90.cuh) on the CPU: the staged row
 * (tests/data/candidates/attn_bwd_tma.json, also a default row since
 * it ran on an H100) binds to sdpa_bwd.hand's plan and PIPE=1 at
 * each of the hand entries' dtype and head dim, and its NVRTC build through
 * the real template (kernels/attn_bwd.cuh, tmpl_attention.c's defines) has
 * the nvcc-built hand cubin's three entries byte for byte (the .text of
 * gdt_attn_bwd_pre, _main and _post against .text.gdt_hand_attn_bwd_pre_*,
 * gdt_hand_attn_bwd_* and gdt_hand_attn_bwd_post_*); each row rule rejects
 * its row with its reason and passes the row that keeps it; 5-column rows
 * and their plan names stay as they were; the template binds, launches
 * (programmatic dependent launch of main and post included) and refuses
 * what sdpa_bwd.hand does, its three kernels sharing one launch state.
 * The PINGPONG column: the PINGPONG=1 row staged alone
 * (tests/data/candidates/attn_bwd_tma_pp.json) binds to sdpa_bwd.hand's
 * PINGPONG=1 plan and PIPE=1, and its NVRTC build has the hand cubin's
 * pre, gdt_hand_attn_bwd_pp_* and post byte for byte; it binds PINGPONG=1
 * (the row without it binds no PINGPONG); PINGPONG=1 without PIPE=1 is
 * rejected with the reason; a row ending at PIPE and one with PINGPONG=0
 * are the same plan.  The DETERMINISTIC column likewise: the
 * DETERMINISTIC=1 row staged alone (tests/data/candidates/attn_bwd_tma_det.json)
 * binds to sdpa_bwd.hand's DETERMINISTIC=1 plan, its NVRTC build has the
 * hand cubin's gdt_hand_attn_bwd_pre_det_*, gdt_hand_attn_bwd_det_* and
 * post byte for byte; it binds DETERMINISTIC=1, takes the workspace with
 * the semaphores (its launch state's bind refusing the smaller one);
 * DETERMINISTIC=1 without PIPE=1 or with PINGPONG=1 is rejected with the
 * reason; DETERMINISTIC=0 written out is the row without it. */
#include <stdlib.h>
#include <string.h>

#include "attn_rows_support.h"
#include "gdt_attn_bwd_tma.h"
#include "gdt_util.h"
#include "hand/gdt_hand.h"

#define SHAPE "b=4,h=32,s=4096,d=128,causal=top_left"
#define ROW "[64, 128, 12, 2, 1, 1]"

static const attn_rows bwd = {
    .rows = "attention_bwd",
    .slot = "sdpa_bwd.nvrtc",
    .family = GDT_FAMILY_SDPA_BWD,
    .staged = GDT_TEST_DATA "/candidates/attn_bwd_tma.json",
    .hand_plan = gdt__hand_attn_bwd_plan,
    .tmpl = &gdt__tmpl_attn_bwd,
    .hand_cubin = GDT_HAND_ATTN_BWD_CUBIN,
    .hand_entries = {"gdt_hand_attn_bwd_pre", "gdt_hand_attn_bwd", "gdt_hand_attn_bwd_post"},
};

/* sdpa_bwd.hand's PINGPONG=1 configuration: its own main kernel, the same pre and post. */
static void pingpong_plan(int64_t engine_id, gdt_plan_id *out) { gdt__hand_attn_bwd_config_plan(1, engine_id, out); }

#define ROW_PP "[64, 128, 12, 2, 1, 1, 1]"

/* bwd with another configuration's row staged (the file staged), the plan
 * and the pre and main entries its. */
static attn_rows config_rows(const char *staged, void (*plan)(int64_t engine_id, gdt_plan_id *out),
                             const char *pre, const char *main_entry)
{
    attn_rows k = bwd;
    k.staged = staged;
    k.hand_plan = plan;
    k.hand_entries[0] = pre;
    k.hand_entries[1] = main_entry;
    return k;
}

/* sdpa_bwd.hand's DETERMINISTIC=1 configuration: its own pre and main kernels, the same post. */
static void det_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_attn_bwd_config_plan(GDT_HAND_ATTN_BWD_DET, engine_id, out);
}

#define ROW_DET "[64, 128, 12, 2, 1, 1, 0, 1]"

/* sdpa_bwd.hand's entries (kernels/hand/attn_bwd_sm90.cu), three kernels each. */
static const attn_rows_entry ENTRIES[] = {
    {"bf16", "b=2,h_q=32,h_kv=8,s=1024,d=64,causal=top_left"},
    {"bf16", SHAPE},
    {"fp16", "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16"},
    {"fp16", "b=2,h=4,s=777,d=128,causal=none,dtype=fp16,layout=bhsd"},
};

static void test_rules(void)
{
    static const rule_case cases[] = {
        {ROW, NULL, "PIPE=1 (TMA, mbarriers, setmaxnreg, wgmma) needs sm_90a, target is sm100", NULL, 100},
        {"[64, 128, 8, 2, 1, 1]", ROW,
         "PIPE=1 is sdpa_bwd.hand's configuration: BLOCK_M=64, BLOCK_N=128, WARPS=12", NULL, 90},
        {"[64, 128, 12, 3, 1, 1]", ROW, "got WARPS=12, STAGES=3, MMA=1", NULL, 90},
        {"[64, 128, 12, 2, 0, 1]", ROW, "got WARPS=12, STAGES=2, MMA=0", NULL, 90},
        {"[64, 128, 12, 2, 1]", "[64, 128, 8, 2, 1]",
         "WARPS=12 is PIPE=1's (a producer and two consumer warpgroups); PIPE=0 takes a power of two",
         NULL, 90},
        /* sdpa_bwd.hand's checks (engines/attn_bwd_tma.c). */
        {ROW, NULL, "PIPE=1: head dim 192: 64 and 128 only", "b=1,h=4,s=512,d=192", 90},
        {ROW, NULL, "PIPE=1: b 1, h_q 1, h_kv 1, s_q 128, s_kv 8388608",
         "b=1,h=1,s_q=128,s_kv=8388608,d=64", 90},
    };
    attn_rows_rules(&bwd, cases, sizeof cases / sizeof cases[0], SHAPE);
    /* fp32 (the facts' dtype); a K batch stride TMA cannot describe. */
    gdt_facts f;
    attn_rows_facts(&bwd, SHAPE, 90, &f);
    f.dtype = GDT_DTYPE_FP32;
    attn_rows_check(&bwd, ROW, &f, "PIPE=1: dtype fp32: bf16 and fp16 only");
    attn_rows_facts(&bwd, "b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.k_stride[0] = 4 * 200 * 64 + 4;
    attn_rows_check(&bwd, ROW, &f, "PIPE=1: operand K: stride of 102408 bytes along b");
}

/* b2 h8 s1000 d64: s_pad 1024, 16384 padded rows. */
#define BWD_SMEM_D64 (2 * 128 * 64 * 2 + 2 * 2 * 64 * 64 * 2 + 2 * 128 * 64 * 2 + 2 * 64 * 64 * 4 + 2 * 512 + 8 * 13 + 1024)

/* PIPE=1 binds PIPE, GDT_FP16 and HEAD_DIM only, launches sdpa_bwd.hand's
 * three grids, blocks and shared memory, takes its workspace and adds no
 * check; PIPE=0 binds no PIPE. */
static void test_template_binds(void)
{
    static const unsigned grid[3][2] = {{2048, 1}, {16, 8}, {1024, 1}}, block[3] = {256, 384, 256};
    gdt_facts f;
    gdt_nvrtc_launch l;
    gdt_error e = {0};
    int n = 0;
    attn_rows_facts(&bwd, "b=2,h=8,s=1000,d=64,dtype=fp16", 90, &f);
    gdt_plan_id p = attn_rows_hand_plan(&bwd);
    CHECK_INT(rows_define_of(&gdt__tmpl_attn_bwd, &f, &p, "PIPE", &n), ==, 1);
    CHECK_INT(n, ==, 3);
    CHECK_INT(rows_define_of(&gdt__tmpl_attn_bwd, &f, &p, "GDT_FP16", &n), ==, 1);
    CHECK_INT(rows_define_of(&gdt__tmpl_attn_bwd, &f, &p, "HEAD_DIM", &n), ==, 64);
    for (int i = 0; i < 3; i++) {
        gdt__tmpl_attn_bwd.launch(&f, &p, i, &l);
        CHECK_INT(l.grid[0], ==, grid[i][0]);
        CHECK_INT(l.grid[1], ==, grid[i][1]);
        CHECK_INT(l.block[0], ==, block[i]);
        CHECK_INT(l.smem_bytes, ==, i == 1 ? BWD_SMEM_D64 : 0);
    }
    CHECK_INT(gdt__attn_bwd_tma_smem_bytes(64), ==, BWD_SMEM_D64);
    const int64_t row[GDT_ATTN_NCOLS] = {64, 128, 12, 2, 1, GDT_ATTN_PIPE_TMA};
    CHECK_INT(gdt__attn_bwd_smem(row, 64), ==, BWD_SMEM_D64); /* what the row rules hold to the limit */
    CHECK_INT(gdt__tmpl_attn_bwd.workspace(&f, &p), ==, 2 * 8 * 1024 * (2 + 64) * 4);
    CHECK_INT(gdt__tmpl_attn_bwd.check(&f, &p, &e), ==, GDT_STATUS_OK);
    gdt_plan_id_set_knob(&p, GDT_KNOB_PIPE, GDT_ATTN_PIPE_CTA);
    CHECK_INT(rows_define_of(&gdt__tmpl_attn_bwd, &f, &p, "PIPE", &n), ==, -1);
}

static CUresult fake_set_attribute(CUfunction fn, CUfunction_attribute a, int v)
{
    (void)fn, (void)a, (void)v;
    return CUDA_SUCCESS;
}

/* The three kernels' prepare (each finding the one before's state, as the
 * engine hands it): one state, made at kernel 0; main and post launched
 * with the programmatic dependent launch, pre without; a later kernel
 * without the state is an internal error; PIPE=0 makes none. */
static gdt_attn_bwd_tma *prepared(const gdt_facts *f, const gdt_plan_id *p, CUlaunchConfig cfg[3])
{
    static const gdt_cu_api cu = {.cuFuncSetAttribute = fake_set_attribute};
    gdt_error e = {0};
    void *state = NULL;
    for (int i = 0; i < 3; i++) {
        void *before = state;
        CHECK_INT(gdt__tmpl_attn_bwd.prepare(f, p, i, &cu, NULL, &cfg[i], &state, &e), ==, GDT_STATUS_OK);
        CHECK(state != NULL && (i == 0 || state == before));
        CHECK_INT(cfg[i].numAttrs, ==, i > 0);
        if (i > 0)
            CHECK(cfg[i].attrs && cfg[i].attrs[0].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
                  cfg[i].attrs[0].value.programmaticStreamSerializationAllowed == 1);
    }
    CHECK_INT(cfg[1].blockDimX, ==, 384);
    CHECK_INT(cfg[1].sharedMemBytes, ==, BWD_SMEM_D64);
    void *none = NULL;
    CHECK_INT(gdt__tmpl_attn_bwd.prepare(f, p, 1, &cu, NULL, &cfg[1], &none, &e), ==, GDT_STATUS_INTERNAL);
    CHECK_CONTAINS(e.msg, "sdpa_bwd.nvrtc: kernel 1 finds no launch state from kernel 0");
    return state;
}

/* Kernel 0's arguments check every operand and the workspace, naming
 * sdpa_bwd.nvrtc, before any launch; main takes the four maps and the
 * parameters, pre and post the parameters. */
static void test_launch_state(void)
{
    static _Alignas(16) char fake[64];
    CUlaunchConfig cfg[3];
    gdt_facts f;
    gdt_error e = {0};
    gdt_nvrtc_args a;
    gdt_operands ops = {0};
    attn_rows_facts(&bwd, "b=2,h=8,s=1000,d=64,dtype=fp16", 90, &f);
    gdt_plan_id p = attn_rows_hand_plan(&bwd);
    gdt_attn_bwd_tma *t = prepared(&f, &p, cfg);
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        ops.ptr[r] = fake, ops.bytes[r] = SIZE_MAX;
    ops.ptr[GDT_OPERAND_DO] = fake + 8;
    CHECK_INT(gdt__tmpl_attn_bwd.args(&f, &p, 0, &ops, fake, t, &a, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "sdpa_bwd.nvrtc: operand dO: pointer");
    CHECK_CONTAINS(e.msg, "is not 16-byte aligned");
    ops.ptr[GDT_OPERAND_DO] = fake;
    CHECK_INT(gdt__tmpl_attn_bwd.args(&f, &p, 0, &ops, NULL, t, &a, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "sdpa_bwd.nvrtc: workspace (nil) of 4325376 bytes, expected 4325376 bytes");
    CHECK_INT(gdt__tmpl_attn_bwd.args(&f, &p, 1, &ops, fake, t, &a, &e), ==, GDT_STATUS_OK);
    CHECK_INT(a.nargs, ==, 5);
    CHECK(a.args[0] == &t->maps[0] && a.args[3] == &t->maps[3] && a.args[4] == &t->params);
    CHECK_INT(gdt__tmpl_attn_bwd.args(&f, &p, 2, &ops, fake, t, &a, &e), ==, GDT_STATUS_OK);
    CHECK(a.nargs == 1 && a.args[0] == &t->params);
    CHECK_INT(t->params.s_pad, ==, 1024);
    CHECK_INT(t->params.group, ==, 1);
    gdt__tmpl_attn_bwd.release(t);
    void *state = &state;
    gdt_plan_id_set_knob(&p, GDT_KNOB_PIPE, GDT_ATTN_PIPE_CTA);
    CHECK_INT(gdt__tmpl_attn_bwd.prepare(&f, &p, 0, NULL, NULL, NULL, &state, &e), ==, GDT_STATUS_OK);
    CHECK(state == NULL);
}

/* ROW and rows (a JSON array of one row ending in an optional column
 * written out as 0, column col) on f: both kept, the same plan, base, and
 * rows binding col to 0. */
static void zero_written_out(const char *rows, int col, const gdt_facts *f, const gdt_plan_id *base)
{
    char json[256];
    int na = 0, nb = 0;
    snprintf(json, sizeof json, "{\"nvrtc\": {\"attention_bwd\": %s}}", rows);
    gdt_candidate *a = attn_rows_materialize(&bwd, "{\"nvrtc\": {\"attention_bwd\": [" ROW "]}}", f, &na);
    gdt_candidate *b = attn_rows_materialize(&bwd, json, f, &nb);
    CHECK(na == 1 && nb == 1);
    if (na == 1 && nb == 1) {
        CHECK(!a[0].rejected && !b[0].rejected);
        CHECK(gdt_plan_id_equal(&a[0].id, &b[0].id));
        CHECK(gdt_plan_id_equal(&a[0].id, base));
        CHECK_INT(b[0].bound[col], ==, 0);
    }
    free(a);
    free(b);
}

/* A configuration's row k (row, staged) on the CPU: its rules (the n
 * cases), its short problem, and on *f (b2 h8 s1000 d64 fp16) its plan,
 * which sets knob to 1 and binds define to 1 beside PIPE, GDT_FP16 and
 * HEAD_DIM, where the base row's plan (*base) binds no such define. */
static gdt_plan_id config_row(const attn_rows *k, const rule_case *cases, size_t n, const char *row, int knob,
                              const char *define, gdt_facts *f, gdt_plan_id *base)
{
    int nd = 0;
    attn_rows_rules(k, cases, n, SHAPE);
    attn_rows_short_problem(k, row, 64, 128);
    attn_rows_facts(k, "b=2,h=8,s=1000,d=64,dtype=fp16", 90, f);
    gdt_plan_id p = attn_rows_hand_plan(k);
    *base = attn_rows_hand_plan(&bwd);
    CHECK_INT(gdt_plan_id_knob(&p, knob, 0), ==, 1);
    CHECK_INT(rows_define_of(&gdt__tmpl_attn_bwd, f, &p, define, &nd), ==, 1);
    CHECK_INT(nd, ==, 4);
    CHECK_INT(rows_define_of(&gdt__tmpl_attn_bwd, f, &p, "PIPE", &nd), ==, 1);
    CHECK_INT(rows_define_of(&gdt__tmpl_attn_bwd, f, base, define, &nd), ==, -1);
    CHECK_INT(nd, ==, 3);
    return p;
}

/* PINGPONG=1: PIPE=1's alone, the PIPE=1 row's rules, its plan, its define. */
static void test_pingpong(const attn_rows *pp_rows)
{
    static const rule_case cases[] = {
        {"[64, 128, 8, 2, 1, 0, 1]", "[64, 128, 8, 2, 1, 0, 0]",
         "PINGPONG=1 takes PIPE=1 (the consumer warpgroups of sdpa_bwd.hand's kernel), got PIPE=0", NULL, 90},
        {ROW_PP, NULL, "PIPE=1 (TMA, mbarriers, setmaxnreg, wgmma) needs sm_90a, target is sm100", NULL, 100},
        {"[64, 128, 12, 3, 1, 1, 1]", ROW_PP, "got WARPS=12, STAGES=3, MMA=1", NULL, 90},
        {ROW_PP, NULL, "PIPE=1: head dim 192: 64 and 128 only", "b=1,h=4,s=512,d=192", 90},
    };
    gdt_facts f;
    gdt_plan_id base;
    config_row(pp_rows, cases, sizeof cases / sizeof cases[0], ROW_PP, GDT_KNOB_PINGPONG, "PINGPONG", &f, &base);
    /* PINGPONG=0 written out is the row that ends at PIPE: one plan. */
    zero_written_out("[[64, 128, 12, 2, 1, 1, 0]]", GDT_ATTN_PINGPONG, &f, &base);
}

/* DETERMINISTIC=1: PIPE=1's in-phase kernel alone, the PIPE=1 row's rules,
 * its plan, its define, its workspace (b2 h8 s1000 d64: 2 * 8 * 1024 / 64
 * semaphores more), which its launch state's bind holds the caller to. */
static void test_deterministic(const attn_rows *det_rows)
{
    static const rule_case cases[] = {
        {"[64, 128, 8, 2, 1, 0, 0, 1]", "[64, 128, 8, 2, 1, 0, 0, 0]",
         "DETERMINISTIC=1 takes PIPE=1 and PINGPONG=0 (sdpa_bwd.hand's in-phase kernel), got PIPE=0, PINGPONG=0",
         NULL, 90},
        {"[64, 128, 12, 2, 1, 1, 1, 1]", ROW_DET,
         "DETERMINISTIC=1 takes PIPE=1 and PINGPONG=0 (sdpa_bwd.hand's in-phase kernel), got PIPE=1, PINGPONG=1",
         NULL, 90},
        {ROW_DET, NULL, "PIPE=1 (TMA, mbarriers, setmaxnreg, wgmma) needs sm_90a, target is sm100", NULL, 100},
        {"[64, 128, 12, 3, 1, 1, 0, 1]", ROW_DET, "got WARPS=12, STAGES=3, MMA=1", NULL, 90},
    };
    static _Alignas(16) char fake[64];
    const size_t plain = 2 * 8 * 1024 * (2 + 64) * 4, sems = 2 * 8 * 1024 / 64 * 4;
    CUlaunchConfig cfg[3];
    gdt_facts f;
    gdt_error e = {0};
    gdt_nvrtc_args a;
    gdt_operands ops = {0};
    int n = 0;
    gdt_plan_id base, det = config_row(det_rows, cases, sizeof cases / sizeof cases[0], ROW_DET,
                                       GDT_KNOB_DETERMINISTIC, "DETERMINISTIC", &f, &base);
    CHECK_INT(rows_define_of(&gdt__tmpl_attn_bwd, &f, &det, "PINGPONG", &n), ==, -1);
    CHECK_INT(gdt__tmpl_attn_bwd.workspace(&f, &det), ==, plain + sems);
    CHECK_INT(gdt__tmpl_attn_bwd.workspace(&f, &base), ==, plain);
    gdt_attn_bwd_tma *t = prepared(&f, &det, cfg);
    CHECK(t->det);
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        ops.ptr[r] = fake, ops.bytes[r] = SIZE_MAX;
    CHECK_INT(gdt__attn_bwd_tma_bind(t, &f, &ops, fake, plain, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "of 4325376 bytes, expected 4326400 bytes");
    CHECK_INT(gdt__tmpl_attn_bwd.args(&f, &det, 1, &ops, fake, t, &a, &e), ==, GDT_STATUS_OK);
    gdt__tmpl_attn_bwd.release(t);
    t = prepared(&f, &base, cfg);
    CHECK(!t->det);
    gdt__tmpl_attn_bwd.release(t);
    /* DETERMINISTIC=0 written out is the row that ends at PIPE too. */
    zero_written_out("[[64, 128, 12, 2, 1, 1, 0, 0]]", GDT_ATTN_DET, &f, &base);
}

int main(void)
{
    attn_rows_optional_column(&bwd, "[64, 128, 8, 2, 1]", "[64, 128, 8, 2, 1, 0]", SHAPE);
    test_rules();
    attn_rows_short_problem(&bwd, ROW, 64, 128);
    test_template_binds();
    test_launch_state();
    attn_rows_staged_is_hand(&bwd, ENTRIES, sizeof ENTRIES / sizeof ENTRIES[0]);
    const attn_rows pp = config_rows(GDT_TEST_DATA "/candidates/attn_bwd_tma_pp.json", pingpong_plan,
                                     "gdt_hand_attn_bwd_pre", "gdt_hand_attn_bwd_pp");
    test_pingpong(&pp);
    attn_rows_staged_is_hand(&pp, ENTRIES, sizeof ENTRIES / sizeof ENTRIES[0]);
    const attn_rows det = config_rows(GDT_TEST_DATA "/candidates/attn_bwd_tma_det.json", det_plan,
                                      "gdt_hand_attn_bwd_pre_det", "gdt_hand_attn_bwd_det");
    test_deterministic(&det);
    attn_rows_staged_is_hand(&det, ENTRIES, sizeof ENTRIES / sizeof ENTRIES[0]);
    return gdt_test_result("test_attn_bwd_tma_rows");
}
