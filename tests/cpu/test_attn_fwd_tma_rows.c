/* The attention_fwd rows' PIPE=1 column (sdpa_fwd.hand's kernel,
 * kernels/gdt_attn_fwd_sm90.cuh) on the CPU: the staged row
 * (tests/data/candidates/attn_fwd_tma.json, outside the default table
 * until it runs on the H200) binds to sdpa_fwd.hand's plan and PIPE=1 at
 * each of the hand entries' dtype and head dim, and its NVRTC build through
 * the real template (kernels/attn_fwd.cuh, tmpl_attention.c's defines) is
 * the nvcc-built hand cubin's entry byte for byte (the .text of
 * gdt_attn_fwd against .text.gdt_hand_attn_fwd_*); each row rule rejects
 * its row with its reason and passes the row that keeps it; 5-column rows
 * and their plan names stay as they were; the template binds and launches
 * what sdpa_fwd.hand does, with its workspace (the tile counters): refused
 * when missing or misaligned, zeroed on the launch's stream exactly when it
 * is not the workspace the plan zeroed last. */
#include <stdlib.h>
#include <string.h>

#include "attn_rows_support.h"
#include "gdt_attn_fwd_tma.h"
#include "gdt_util.h"
#include "hand/gdt_hand.h"

#define SHAPE "b=4,h=32,s=4096,d=128,causal=top_left"

static const attn_rows fwd = {
    .rows = "attention_fwd",
    .slot = "sdpa_fwd.nvrtc",
    .family = GDT_FAMILY_SDPA_FWD,
    .staged = GDT_TEST_DATA "/candidates/attn_fwd_tma.json",
    .hand_plan = gdt__hand_attn_plan,
    .tmpl = &gdt__tmpl_attn_fwd,
    .hand_cubin = GDT_HAND_ATTN_CUBIN,
    .hand_entries = {"gdt_hand_attn_fwd"},
};

/* sdpa_fwd.hand's entries (kernels/hand/attn_fwd_sm90.cu). */
static const attn_rows_entry ENTRIES[] = {
    {"bf16", "b=4,h=32,s=4096,d=64"},
    {"bf16", SHAPE},
    {"fp16", "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16"},
    {"fp16", "b=1,h=4,s=1000,d=128,causal=none,dtype=fp16"},
};

static void check_row(const char *row, const gdt_facts *f, const char *reason)
{
    attn_rows_check(&fwd, row, f, reason);
}

static void test_rules(void)
{
    static const rule_case cases[] = {
        {"[128, 128, 12, 2, 2, 1]", NULL,
         "PIPE=1 (TMA, mbarriers, setmaxnreg, wgmma) needs sm_90a, target is sm100", NULL, 100},
        {"[128, 128, 8, 2, 2, 1]", "[128, 128, 12, 2, 2, 1]",
         "PIPE=1 is sdpa_fwd.hand's one configuration: BLOCK_M=128, BLOCK_N=128, WARPS=12", NULL, 90},
        {"[128, 128, 12, 3, 2, 1]", "[128, 128, 12, 2, 2, 1]", "got WARPS=12, STAGES=3, MMA=2",
         NULL, 90},
        {"[128, 128, 12, 2, 1, 1]", "[128, 128, 12, 2, 2, 1]", "got WARPS=12, STAGES=2, MMA=1",
         NULL, 90},
        {"[128, 128, 12, 3, 2]", "[128, 128, 8, 3, 2]",
         "WARPS=12 is PIPE=1's (a producer and two consumer warpgroups); PIPE=0 takes a power of two",
         NULL, 90},
        /* sdpa_fwd.hand's checks (engines/attn_fwd_tma.c). */
        {"[128, 128, 12, 2, 2, 1]", NULL, "PIPE=1: head dim 192: 64 and 128 only",
         "b=1,h=4,s=512,d=192", 90},
        {"[128, 128, 12, 2, 2, 1]", NULL, "PIPE=1: b 65536, h_q 256, s_q 16384",
         "b=65536,h=256,s_q=16384,s_kv=128,d=64", 90},
    };
    attn_rows_rules(&fwd, cases, sizeof cases / sizeof cases[0], SHAPE);
    /* fp32 (no shape key: the facts' dtype); what TMA cannot describe: an
     * odd stride of O (4-byte stores) and a K batch stride off 16 bytes. */
    gdt_facts f;
    attn_rows_facts(&fwd, SHAPE, 90, &f);
    f.dtype = GDT_DTYPE_FP32;
    check_row("[128, 128, 12, 2, 2, 1]", &f, "PIPE=1: dtype fp32: bf16 and fp16 only");
    attn_rows_facts(&fwd, "b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.o_stride[1] = 200 * 64 + 1;
    check_row("[128, 128, 12, 2, 2, 1]", &f, "PIPE=1: operand O: stride[1] = 12801 is odd");
    attn_rows_facts(&fwd, "b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.k_stride[0] = 4 * 200 * 64 + 4;
    check_row("[128, 128, 12, 2, 2, 1]", &f, "PIPE=1: operand K: stride of 102408 bytes along b");
}

/* cudaMemsetAsync stands in for the runtime's (the CPU tests have no
 * device): each call recorded. */
static struct {
    int calls;
    void *ptr;
    int value;
    size_t bytes;
    cudaStream_t stream;
} memsets;

cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s)
{
    memsets.calls++, memsets.ptr = p, memsets.value = v, memsets.bytes = n, memsets.stream = s;
    return cudaSuccess;
}

static CUresult fake_encode(CUtensorMap *m, CUtensorMapDataType t, cuuint32_t r, void *p, const cuuint64_t *d,
                            const cuuint64_t *s, const cuuint32_t *b, const cuuint32_t *u,
                            CUtensorMapInterleave i, CUtensorMapSwizzle w, CUtensorMapL2promotion l,
                            CUtensorMapFloatOOBfill o)
{
    (void)m, (void)t, (void)r, (void)p, (void)d, (void)s, (void)b, (void)u, (void)i, (void)w, (void)l, (void)o;
    return CUDA_SUCCESS;
}

/* One PIPE=1 launch's arguments on workspace ws and stream s: the status,
 * and how many memsets it made. */
static gdt_status args_on(const gdt_facts *f, const gdt_plan_id *p, gdt_attn_fwd_tma *t, void *ws, void *s,
                          int *made, gdt_error *e)
{
    static _Alignas(16) char op[64];
    gdt_operands ops = {0};
    gdt_nvrtc_args a;
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        ops.ptr[r] = op, ops.bytes[r] = SIZE_MAX;
    int before = memsets.calls;
    gdt_status st = gdt__tmpl_attn_fwd.args(f, p, 0, &ops, ws, s, t, &a, e);
    *made = memsets.calls - before;
    if (st == GDT_STATUS_OK)
        CHECK(a.nargs == 4 && a.args[0] == &t->maps[0] && a.args[3] == &t->params && t->params.sched == ws);
    return st;
}

/* The workspace: the two counters of the tile scheduler for PIPE=1, none
 * for PIPE=0; PIPE=1's arguments refuse a missing or misaligned one and
 * zero it, 8 bytes on the launch's stream, at its first use and whenever it
 * is not the one zeroed last (the kernel leaves it zero after each launch). */
static void test_workspace(void)
{
    static _Alignas(16) unsigned ws[2][4];
    static const gdt_cu_api cu = {.cuTensorMapEncodeTiled = fake_encode};
    static gdt_attn_fwd_tma t; /* static: its maps' 128-byte alignment */
    void *s1 = (void *)0x51, *s2 = (void *)0x52;
    gdt_facts f;
    gdt_error e = {0};
    int made = 0;
    attn_rows_facts(&fwd, "b=2,h=8,s=1000,d=64,dtype=fp16", 90, &f);
    gdt_plan_id p = attn_rows_hand_plan(&fwd);
    CHECK_INT(gdt__tmpl_attn_fwd.workspace(&f, &p), ==, 2 * sizeof(unsigned));
    CHECK_INT(gdt__attn_fwd_tma_workspace(), ==, 8);
    gdt__attn_fwd_tma_init(&t, "sdpa_fwd.nvrtc", &f);
    t.cu = &cu;
    CHECK_INT(args_on(&f, &p, &t, NULL, s1, &made, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "sdpa_fwd.nvrtc: workspace (nil) of 8 bytes, expected 8 bytes at a 4-byte "
                          "aligned address (the tile counters)");
    CHECK_INT(args_on(&f, &p, &t, (char *)ws[0] + 2, s1, &made, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "expected 8 bytes at a 4-byte aligned address");
    CHECK_INT(made, ==, 0);
    CHECK_INT(args_on(&f, &p, &t, ws[0], s1, &made, &e), ==, GDT_STATUS_OK);
    CHECK_INT(made, ==, 1);
    CHECK(memsets.ptr == ws[0] && memsets.value == 0 && memsets.bytes == 8 && memsets.stream == s1);
    CHECK_INT(args_on(&f, &p, &t, ws[0], s2, &made, &e), ==, GDT_STATUS_OK);
    CHECK_INT(made, ==, 0);
    CHECK_INT(args_on(&f, &p, &t, ws[1], s2, &made, &e), ==, GDT_STATUS_OK);
    CHECK_INT(made, ==, 1);
    CHECK(memsets.ptr == ws[1] && memsets.stream == s2);
    CHECK_INT(args_on(&f, &p, &t, ws[0], s1, &made, &e), ==, GDT_STATUS_OK);
    CHECK_INT(made, ==, 1);
    CHECK(memsets.ptr == ws[0]);
    gdt_plan_id_set_knob(&p, GDT_KNOB_PIPE, GDT_ATTN_PIPE_CTA);
    CHECK_INT(gdt__tmpl_attn_fwd.workspace(&f, &p), ==, 0);
}

static long long define_of(const gdt_facts *f, const gdt_plan_id *p, const char *name, int *count)
{
    return rows_define_of(&gdt__tmpl_attn_fwd, f, p, name, count);
}

/* PIPE=1 binds PIPE, GDT_FP16 and HEAD_DIM only, launches sdpa_fwd.hand's
 * block and shared memory, leaves the grid (one CTA) to prepare's
 * persistent one, and takes its launch state; PIPE=0 binds no PIPE, launches
 * a CTA per 128 query rows and takes no state. */
static void test_template_binds(void)
{
    gdt_facts f;
    gdt_nvrtc_launch l;
    gdt_error e = {0};
    int n = 0;
    attn_rows_facts(&fwd, "b=2,h=8,s=1000,d=64,dtype=fp16", 90, &f);
    gdt_plan_id p = attn_rows_hand_plan(&fwd);
    CHECK_INT(define_of(&f, &p, "PIPE", &n), ==, 1);
    CHECK_INT(n, ==, 3);
    CHECK_INT(define_of(&f, &p, "GDT_FP16", &n), ==, 1);
    CHECK_INT(define_of(&f, &p, "HEAD_DIM", &n), ==, 64);
    gdt__tmpl_attn_fwd.launch(&f, &p, 0, &l);
    CHECK_INT(l.grid[0], ==, 1);
    CHECK_INT(l.grid[1], ==, 1);
    CHECK_INT(l.block[0], ==, 384);
    CHECK_INT(l.smem_bytes, ==, 5 * 128 * 64 * 2 + 128 + 1024);
    CHECK_INT(l.smem_bytes, ==, gdt__attn_fwd_tma_smem_bytes(64));
    CHECK_INT(gdt__tmpl_attn_fwd.check(&f, &p, &e), ==, GDT_STATUS_OK);
    gdt_plan_id_set_knob(&p, GDT_KNOB_PIPE, GDT_ATTN_PIPE_CTA);
    CHECK_INT(define_of(&f, &p, "PIPE", &n), ==, -1);
    gdt__tmpl_attn_fwd.launch(&f, &p, 0, &l);
    CHECK_INT(l.grid[0], ==, 16);
    CHECK_INT(l.grid[1], ==, 8);
    CHECK(gdt__tmpl_attn_fwd.prepare != NULL && gdt__tmpl_attn_fwd.release != NULL);
    void *state = &state;
    CHECK_INT(gdt__tmpl_attn_fwd.prepare(&f, &p, 0, NULL, NULL, NULL, &state, &e), ==,
              GDT_STATUS_OK);
    CHECK(state == NULL);
}

int main(void)
{
    attn_rows_optional_column(&fwd, "[128, 128, 8, 3, 2]", "[128, 128, 8, 3, 2, 0]", SHAPE);
    test_rules();
    attn_rows_short_problem(&fwd, "[128, 128, 12, 2, 2, 1]", 128, 128);
    test_template_binds();
    test_workspace();
    attn_rows_staged_is_hand(&fwd, ENTRIES, sizeof ENTRIES / sizeof ENTRIES[0]);
    return gdt_test_result("test_attn_fwd_tma_rows");
}
