/* The attention_fwd rows' PIPE=1 column (sdpa_fwd.hand's kernel,
 * kernels/gdt_attn_fwd_sm90.cuh) on the CPU: the staged row
 * (tests/data/candidates/attn_fwd_tma.json, also a default row since
 * it ran on an H100) binds to sdpa_fwd.hand's plan and PIPE=1 at
 * each of the two-consumer hand entries' dtype and head dim, and its NVRTC
 * build through the real template (kernels/attn_fwd.cuh, tmpl_attention.c's
 * defines) is the nvcc-built hand cubin's entry byte for byte (the .text of
 * gdt_attn_fwd against .text.gdt_hand_attn_fwd_*), and the wide row
 * (WARPS=16: three consumers of 192-row tiles, tests/data/candidates/
 * attn_fwd_tma_wide.json, a default row too) binds sdpa_fwd.hand's d64
 * configuration and builds its _m192 entries' bytes; each row rule
 * rejects its row with its reason and passes the row that keeps it;
 * 5-column rows and their plan names stay as they were; the template binds
 * and launches what the two-consumer entries take (384 threads and their
 * shared memory), with the tile counters the plan owns (allocated and
 * zeroed once by prepare, freed by release, no workspace). */
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

/* sdpa_fwd.hand's configuration 1: three consumers, TILE_M=192, WARPS=16. */
static void wide_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_attn_fwd_config_plan(1, engine_id, out);
}

/* fwd with the wide row staged: its plan and the _m192 entries. */
static attn_rows wide_rows(void)
{
    attn_rows k = fwd;
    k.staged = GDT_TEST_DATA "/candidates/attn_fwd_tma_wide.json";
    k.hand_plan = wide_plan;
    k.suffix = "_m192";
    return k;
}

/* sdpa_fwd.hand's three-consumer entries, d64 only. */
static const attn_rows_entry WIDE_ENTRIES[] = {
    {"bf16", "b=4,h=32,s=4096,d=64"},
    {"fp16", "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16"},
};

/* sdpa_fwd.hand's two-consumer entries (kernels/hand/attn_fwd_sm90.cu). */
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
         "PIPE=1 is sdpa_fwd.hand's configuration: BLOCK_M=128, BLOCK_N=128, WARPS=12 (a producer and "
         "two consumer warpgroups), or BLOCK_M=192 and WARPS=16 at head dim 64 (three), STAGES=2 to 3, "
         "MMA=2, got WARPS=8, STAGES=2, MMA=2", NULL, 90},
        /* the wide configuration: d64 only */
        {"[192, 128, 16, 2, 2, 1]", "[128, 128, 12, 2, 2, 1]",
         "PIPE=1 with WARPS=16 (three consumer warpgroups of 64 query rows) takes head dim 64, got 128",
         NULL, 90},
        {"[192, 128, 16, 4, 2, 1]", "[128, 128, 12, 3, 2, 1]", "STAGES=2 to 3, MMA=2, got WARPS=16, "
         "STAGES=4, MMA=2", "b=4,h=32,s=4096,d=64", 90},
        {"[128, 128, 12, 4, 2, 1]", "[128, 128, 12, 3, 2, 1]", "got WARPS=12, STAGES=4, MMA=2",
         NULL, 90},
        {"[128, 128, 12, 1, 2, 1]", "[128, 128, 12, 2, 2, 1]", "got WARPS=12, STAGES=1, MMA=2",
         NULL, 90},
        {"[128, 128, 12, 2, 1, 1]", "[128, 128, 12, 2, 2, 1]", "got WARPS=12, STAGES=2, MMA=1",
         NULL, 90},
        {"[128, 128, 12, 3, 2]", "[128, 128, 8, 3, 2]",
         "WARPS=12 is PIPE=1's (a producer and two consumer warpgroups); PIPE=0 takes a power of two",
         NULL, 90},
        {"[192, 128, 8, 3, 2]", "[128, 128, 8, 3, 2]",
         "BLOCK_M=192 is PIPE=1's (three consumer warpgroups of 64 query rows); PIPE=0 takes a power "
         "of two", NULL, 90},
        /* 176-key blocks: PIPE=1 with two consumers, two stages at d128 */
        {"[128, 176, 8, 3, 2]", "[128, 128, 8, 3, 2]",
         "BLOCK_N=176 is PIPE=1's (key blocks of the two consumer warpgroups); PIPE=0 takes a power of two",
         NULL, 90},
        {"[192, 176, 16, 2, 2, 1]", "[128, 176, 12, 2, 2, 1]",
         "PIPE=1 with BLOCK_N=176 takes two consumer warpgroups (WARPS=12), got WARPS=16",
         "b=4,h=32,s=4096,d=64", 90},
        {"[128, 176, 12, 3, 2, 1]", "[128, 176, 12, 2, 2, 1]",
         "shared memory 304256 bytes exceeds 232448 on sm90", NULL, 90},
        /* sdpa_fwd.hand's checks (engines/attn_fwd_tma.c). */
        {"[128, 128, 12, 2, 2, 1]", NULL, "PIPE=1: head dim 192: 64 and 128 only",
         "b=1,h=4,s=512,d=192", 90},
        {"[128, 128, 12, 2, 2, 1]", NULL, "PIPE=1: b 65536, h_q 256, s_q 16384",
         "b=65536,h=256,s_q=16384,s_kv=128,d=64", 90},
    };
    attn_rows_rules(&fwd, cases, sizeof cases / sizeof cases[0], SHAPE);
    /* fp32 (no shape key: the facts' dtype); what TMA cannot describe: an
     * O stride off 8 elements (16-byte stores) and a K batch stride off 16 bytes. */
    gdt_facts f;
    attn_rows_facts(&fwd, SHAPE, 90, &f);
    f.dtype = GDT_DTYPE_FP32;
    check_row("[128, 128, 12, 2, 2, 1]", &f, "PIPE=1: dtype fp32: bf16 and fp16 only");
    attn_rows_facts(&fwd, "b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.o_stride[1] = 200 * 64 + 4;
    check_row("[128, 128, 12, 2, 2, 1]", &f, "PIPE=1: operand O: stride[1] = 12804 is not a multiple of 8");
    attn_rows_facts(&fwd, "b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.k_stride[0] = 4 * 200 * 64 + 4;
    check_row("[128, 128, 12, 2, 2, 1]", &f, "PIPE=1: operand K: stride of 102408 bytes along b");
}

/* The runtime's calls the tile counters make stand in here (the CPU tests
 * have no device), each recorded in order: 'a' cudaMalloc, 'm'
 * cudaMemsetAsync, 's' cudaStreamSynchronize, 'f' cudaFree. */
static struct {
    char calls[16];
    int n;
    void *ptr; /* the last call's */
    int value;
    size_t bytes;
    cudaStream_t stream, memset_stream;
    cudaError_t fail_memset;
} rt;
static _Alignas(16) unsigned device_counters[2];

static void rt_call(char c, void *p)
{
    if (rt.n < (int)sizeof rt.calls - 1)
        rt.calls[rt.n++] = c;
    rt.ptr = p;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = device_counters, rt.bytes = n;
    rt_call('a', *p);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s)
{
    rt_call('m', p);
    rt.value = v, rt.bytes = n, rt.memset_stream = s;
    return rt.fail_memset;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    rt_call('s', NULL);
    rt.stream = s;
    return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
    rt_call('f', p);
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *d)
{
    *d = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d)
{
    (void)a, (void)d;
    *v = 132;
    return cudaSuccess;
}

/* The rows of each map's box, Q, K and V in the order bind encodes them. */
static cuuint32_t boxes[3];
static int nboxes;

static CUresult fake_encode(CUtensorMap *m, CUtensorMapDataType t, cuuint32_t r, void *p, const cuuint64_t *d,
                            const cuuint64_t *s, const cuuint32_t *b, const cuuint32_t *u,
                            CUtensorMapInterleave i, CUtensorMapSwizzle w, CUtensorMapL2promotion l,
                            CUtensorMapFloatOOBfill o)
{
    (void)m, (void)t, (void)r, (void)p, (void)d, (void)s, (void)u, (void)i, (void)w, (void)l, (void)o;
    boxes[nboxes++ % 3] = b[1];
    return CUDA_SUCCESS;
}

static CUresult fake_attribute(CUfunction f, CUfunction_attribute a, int v)
{
    (void)f, (void)a, (void)v;
    return CUDA_SUCCESS;
}

static CUresult fake_occupancy(int *n, CUfunction f, int threads, size_t smem)
{
    (void)f, (void)threads, (void)smem;
    *n = 1;
    return CUDA_SUCCESS;
}

/* 60 clusters of two resident at once (an H100's 132 SMs leave some unpaired). */
static CUresult fake_clusters(int *n, CUfunction f, const CUlaunchConfig *cfg)
{
    (void)f;
    CHECK(cfg->numAttrs == 1 && cfg->attrs[0].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
          cfg->attrs[0].value.clusterDim.x == 2);
    *n = 60;
    return CUDA_SUCCESS;
}

static const gdt_cu_api fake_cu = {.cuTensorMapEncodeTiled = fake_encode,
                                   .cuOccupancyMaxActiveClusters = fake_clusters,
                                   .cuFuncSetAttribute = fake_attribute,
                                   .cuOccupancyMaxActiveBlocksPerMultiprocessor = fake_occupancy};

/* One PIPE=1 launch's arguments without a workspace: the status, and the
 * runtime calls it made. */
static gdt_status args_on(const gdt_facts *f, const gdt_plan_id *p, gdt_attn_fwd_tma *t, int *made,
                          gdt_error *e)
{
    static _Alignas(16) char op[64];
    gdt_operands ops = {0};
    gdt_nvrtc_args a;
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        ops.ptr[r] = op, ops.bytes[r] = SIZE_MAX;
    int before = rt.n;
    gdt_status st = gdt__tmpl_attn_fwd.args(f, p, 0, &ops, NULL, t, &a, e);
    *made = rt.n - before;
    if (st == GDT_STATUS_OK)
        CHECK(a.nargs == 4 && a.args[0] == &t->maps[0] && a.args[3] == &t->params);
    return st;
}

/* The tile scheduler's two counters are the plan's, as gemm.hand's split-K
 * counters are (engines/gdt_plan_counters.h): PIPE=1's prepare allocates
 * them, 8 bytes, zeroes them on the default stream and synchronizes, its
 * launches take them with no workspace (none reported, for either PIPE) and
 * no runtime call, and release frees them; a failed zeroing fails prepare
 * and release still frees them. */
static void test_counters(void)
{
    gdt_facts f;
    gdt_error e = {0};
    CUlaunchConfig cfg = {0};
    void *state = NULL;
    int made = -1;
    attn_rows_facts(&fwd, "b=2,h=8,s=1000,d=64,dtype=fp16", 90, &f);
    gdt_plan_id p = attn_rows_hand_plan(&fwd);
    CHECK(gdt__tmpl_attn_fwd.workspace == NULL);
    memset(&rt, 0, sizeof rt);
    CHECK_INT(gdt__tmpl_attn_fwd.prepare(&f, &p, 0, &fake_cu, NULL, &cfg, &state, &e), ==, GDT_STATUS_OK);
    CHECK(state != NULL);
    CHECK_STR(rt.calls, "ams");
    CHECK(rt.value == 0 && rt.bytes == 2 * sizeof(unsigned) && rt.memset_stream == 0 && rt.stream == 0);
    CHECK_INT(cfg.gridDimX, ==, 128); /* 16 heads x 8 tiles, below 132 SMs x 1 */
    gdt_attn_fwd_tma *t = state;
    CHECK(t->params.sched == device_counters);
    CHECK_INT(args_on(&f, &p, t, &made, &e), ==, GDT_STATUS_OK);
    CHECK_INT(made, ==, 0);
    CHECK(t->params.sched == device_counters);
    CHECK_INT(args_on(&f, &p, t, &made, &e), ==, GDT_STATUS_OK);
    CHECK_INT(made, ==, 0);
    gdt__tmpl_attn_fwd.release(state);
    CHECK_STR(rt.calls, "amsf");
    CHECK(rt.ptr == device_counters);

    memset(&rt, 0, sizeof rt);
    rt.fail_memset = cudaErrorInvalidValue;
    state = NULL;
    CHECK_INT(gdt__tmpl_attn_fwd.prepare(&f, &p, 0, &fake_cu, NULL, &cfg, &state, &e), ==, GDT_STATUS_CUDA);
    CHECK_CONTAINS(e.msg, "cudaMemsetAsync");
    CHECK(state != NULL);
    if (state)
        gdt__tmpl_attn_fwd.release(state);
    CHECK_STR(rt.calls, "amf");

    gdt_plan_id_set_knob(&p, GDT_KNOB_PIPE, GDT_ATTN_PIPE_CTA);
    memset(&rt, 0, sizeof rt);
    state = &state;
    CHECK_INT(gdt__tmpl_attn_fwd.prepare(&f, &p, 0, &fake_cu, NULL, &cfg, &state, &e), ==, GDT_STATUS_OK);
    CHECK(state == NULL);
    CHECK_STR(rt.calls, "");
}

static long long define_of(const gdt_facts *f, const gdt_plan_id *p, const char *name, int *count)
{
    return rows_define_of(&gdt__tmpl_attn_fwd, f, p, name, count);
}

/* PIPE=1 binds PIPE, GDT_FP16 and HEAD_DIM only, launches the two-consumer
 * entries' block and shared memory (sdpa_fwd.hand's at d128; at d64 it
 * runs three consumers), leaves the grid (one CTA) to prepare's
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
    CHECK_INT(l.smem_bytes, ==, gdt__attn_fwd_tma_smem_bytes(64, GDT_ATTN_FWD_TMA_CONSUMERS, GDT_ATTN_FWD_TMA_STAGES,
                                                             GDT_ATTN_FWD_TMA_BLOCK_N));
    CHECK_INT(gdt__tmpl_attn_fwd.check(&f, &p, &e), ==, GDT_STATUS_OK);
    CHECK_INT(define_of(&f, &p, "CONSUMERS", &n), ==, -1); /* two: unbound, the cache key as before */
    /* the wide row: CONSUMERS=3, a producer and three consumer warpgroups */
    const attn_rows fwd_wide = wide_rows();
    gdt_plan_id w = attn_rows_hand_plan(&fwd_wide);
    CHECK_INT(define_of(&f, &w, "CONSUMERS", &n), ==, 3);
    CHECK_INT(n, ==, 4);
    gdt__tmpl_attn_fwd.launch(&f, &w, 0, &l);
    CHECK_INT(l.block[0], ==, 512);
    CHECK_INT(l.smem_bytes, ==, gdt__attn_fwd_tma_smem_bytes(64, GDT_ATTN_FWD_TMA_WIDE, GDT_ATTN_FWD_TMA_STAGES,
                                                             GDT_ATTN_FWD_TMA_BLOCK_N));
    CHECK_INT(gdt__tmpl_attn_fwd.check(&f, &w, &e), ==, GDT_STATUS_OK);
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

/* A row the hand engine has no entry for, staged alone: kept on f, and its
 * plan the two-consumer hand plan with knob `type` set to v. */
static gdt_plan_id staged_row_plan(const char *row, const gdt_facts *f, int type, int64_t v)
{
    char json[128];
    int n = 0;
    snprintf(json, sizeof json, "{\"nvrtc\": {\"attention_fwd\": [%s]}}", row);
    gdt_candidate *c = attn_rows_materialize(&fwd, json, f, &n);
    CHECK(n == 1 && !c[0].rejected);
    gdt_plan_id p = attn_rows_hand_plan(&fwd);
    gdt_plan_id_set_knob(&p, type, v);
    CHECK(n == 1 && gdt_plan_id_equal(&c[0].id, &p));
    free(c);
    return p;
}

/* Its NVRTC build compiles and is not the hand's d128 entry's text (its
 * define reached the kernel). */
static void check_builds_apart(const gdt_facts *f, const gdt_plan_id *p, const char *what)
{
    const gdt_embedded *hand = gdt_embedded_find(GDT_HAND_ATTN_CUBIN);
    gdt_error e = {0};
    void *cubin = NULL;
    size_t len = 0;
    gdt_status st = gdt_nvrtc_compile(&gdt__tmpl_attn_fwd, f, p, 90, &cubin, &len, NULL, &e);
    if (st != GDT_STATUS_OK)
        fprintf(stderr, "%s: %s\n", what, e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    CHECK(hand != NULL && cubin != NULL);
    if (hand && cubin) {
        fprintf(stderr, "(expected) ");
        CHECK(!elf_same_text(cubin, len, ".text.gdt_attn_fwd", hand, ".text.gdt_hand_attn_fwd_bf16_d128", what));
    }
    free(cubin);
}

/* STAGES=3: K and V rings of three stages (AF90_STAGES), a row the hand
 * engine has no entry for.  At d128 it binds STAGES alone beyond the
 * two-consumer entry's defines, launches 224 KB of rings (230528 bytes
 * with Q, the barriers and the slack, under sm90's 232448) and prepares
 * a launch state of three stages; its NVRTC build compiles and is not the
 * two-stage entry's text.  The wide row with three stages at d64 binds
 * CONSUMERS and STAGES. */
static void test_three_stages(void)
{
    gdt_facts f;
    gdt_nvrtc_launch l;
    gdt_error e = {0};
    CUlaunchConfig cfg = {0};
    void *state = NULL;
    int n = 0;
    attn_rows_facts(&fwd, SHAPE, 90, &f);
    gdt_plan_id p = staged_row_plan("[128, 128, 12, 3, 2, 1]", &f, GDT_KNOB_STAGES, 3);
    CHECK_INT(define_of(&f, &p, "STAGES", &n), ==, 3);
    CHECK_INT(n, ==, 4);
    CHECK_INT(define_of(&f, &p, "CONSUMERS", &n), ==, -1);
    gdt__tmpl_attn_fwd.launch(&f, &p, 0, &l);
    CHECK_INT(l.block[0], ==, 384);
    CHECK_INT(l.smem_bytes, ==, (128 + 2 * 3 * 128) * 128 * 2 + 128 + 1024);
    CHECK_INT(l.smem_bytes, <=, 232448);
    memset(&rt, 0, sizeof rt);
    CHECK_INT(gdt__tmpl_attn_fwd.prepare(&f, &p, 0, &fake_cu, NULL, &cfg, &state, &e), ==, GDT_STATUS_OK);
    gdt_attn_fwd_tma *t = state;
    CHECK(t != NULL && t->stages == 3);
    CHECK_INT(t ? t->smem_bytes : 0, ==, (int)l.smem_bytes);
    CHECK_INT((int)cfg.sharedMemBytes, ==, (int)l.smem_bytes);
    if (state)
        gdt__tmpl_attn_fwd.release(state);
    check_builds_apart(&f, &p, "STAGES=3");

    const attn_rows fwd_wide = wide_rows();
    attn_rows_facts(&fwd, "b=4,h=32,s=4096,d=64", 90, &f);
    gdt_plan_id w = attn_rows_hand_plan(&fwd_wide);
    gdt_plan_id_set_knob(&w, GDT_KNOB_STAGES, 3);
    CHECK_INT(define_of(&f, &w, "STAGES", &n), ==, 3);
    CHECK_INT(define_of(&f, &w, "CONSUMERS", &n), ==, 3);
    CHECK_INT(n, ==, 5);
    gdt__tmpl_attn_fwd.launch(&f, &w, 0, &l);
    CHECK_INT(l.smem_bytes, ==, gdt__attn_fwd_tma_smem_bytes(64, GDT_ATTN_FWD_TMA_WIDE, 3, GDT_ATTN_FWD_TMA_BLOCK_N));
}

/* prepare's launch state for p on f, bound once: its shared memory `smem`,
 * Q's box 128 rows and K's and V's kv_rows.  The caller releases it. */
static gdt_attn_fwd_tma *prepared(const gdt_facts *f, const gdt_plan_id *p, unsigned smem, int kv_rows,
                                  CUlaunchConfig *cfg)
{
    gdt_error e = {0};
    void *state = NULL;
    int made = 0;
    memset(&rt, 0, sizeof rt);
    memset(boxes, 0, sizeof boxes), nboxes = 0;
    CHECK_INT(gdt__tmpl_attn_fwd.prepare(f, p, 0, &fake_cu, NULL, cfg, &state, &e), ==, GDT_STATUS_OK);
    gdt_attn_fwd_tma *t = state;
    CHECK(t != NULL);
    CHECK_INT((int)cfg->sharedMemBytes, ==, (int)smem);
    if (t) {
        CHECK_INT(args_on(f, p, t, &made, &e), ==, GDT_STATUS_OK);
        CHECK_INT((int)boxes[0], ==, 128);
        CHECK_INT((int)boxes[1], ==, kv_rows);
        CHECK_INT((int)boxes[2], ==, kv_rows);
    }
    return t;
}

/* BLOCK_N=176: blocks of 176 keys (AF90_BLOCK_N), a row the hand engine
 * has no entry for.  At d128 it binds BLOCK_N alone beyond the
 * two-consumer entry's defines, launches rings of 176-row stages (214144
 * bytes with Q, the barriers and the slack), prepares a launch state whose
 * K and V maps have 176-row boxes (Q's stays 128), and its NVRTC build
 * compiles and is not the 128-key entry's text. */
static void test_wide_keys(void)
{
    gdt_facts f;
    gdt_nvrtc_launch l;
    CUlaunchConfig cfg = {0};
    int n = 0;
    attn_rows_facts(&fwd, "b=2,h=4,s=1000,d=128,causal=none", 90, &f);
    gdt_plan_id p = staged_row_plan("[128, 176, 12, 2, 2, 1]", &f, GDT_KNOB_TILE_N, 176);
    CHECK_INT(define_of(&f, &p, "BLOCK_N", &n), ==, 176);
    CHECK_INT(n, ==, 4);
    gdt__tmpl_attn_fwd.launch(&f, &p, 0, &l);
    CHECK_INT(l.block[0], ==, 384);
    CHECK_INT(l.smem_bytes, ==, (128 + 2 * 2 * 176) * 128 * 2 + 128 + 1024);
    gdt_attn_fwd_tma *t = prepared(&f, &p, l.smem_bytes, 176, &cfg);
    CHECK(t != NULL && t->block_n == 176);
    if (t)
        gdt__tmpl_attn_fwd.release(t);
    check_builds_apart(&f, &p, "BLOCK_N=176");
}

/* CLUSTER_SHAPE=3: two query tiles of one head in a cluster (AF90_CLUSTER),
 * a row the hand engine has no entry for.  Its rules: PIPE=1 and 128-key
 * blocks, each rejected with its reason; any mask (a causal pair's lower
 * tile skips the blocks only the upper one sees), and the three-consumer
 * tiles at d64 too.  On a d128 problem it binds CLUSTER=2 alone beyond the two-consumer
 * entry's defines, launches the same block and shared memory, and prepares
 * a launch state that walks pairs of tiles (ceil(1000 / 256) = 4 a head),
 * launches whole clusters of two (the cluster dimension, and no more than
 * the 60 resident: 120 CTAs for 64 pairs) and loads 64-key halves of K and
 * V (Q's box stays 128 rows); its NVRTC build compiles and is not the
 * hand entry's text. */
static void test_cluster(void)
{
    gdt_facts f;
    gdt_nvrtc_launch l;
    CUlaunchConfig cfg = {0};
    int n = 0;
    attn_rows_facts(&fwd, "b=4,h=4,s=1000,d=128,causal=none", 90, &f);
    check_row("[128, 128, 8, 3, 2, 0, 3]", &f, "CLUSTER_SHAPE=3 (two query tiles in a cluster) takes PIPE=1 and "
              "BLOCK_N=128, got PIPE=0, BLOCK_N=128");
    check_row("[128, 176, 12, 2, 2, 1, 3]", &f, "takes PIPE=1 and BLOCK_N=128, got PIPE=1, BLOCK_N=176");
    attn_rows_facts(&fwd, "b=4,h=4,s=1000,d=128,causal=top_left", 90, &f);
    check_row("[128, 128, 12, 2, 2, 1, 3]", &f, NULL);
    attn_rows_facts(&fwd, "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right", 90, &f);
    check_row("[192, 128, 16, 2, 2, 1, 3]", &f, NULL);
    attn_rows_facts(&fwd, "b=4,h=4,s=1000,d=128,causal=none", 90, &f);
    gdt_plan_id p = staged_row_plan("[128, 128, 12, 2, 2, 1, 3]", &f, GDT_KNOB_CLUSTER_SHAPE, 3);
    CHECK_INT(define_of(&f, &p, "CLUSTER", &n), ==, 2);
    CHECK_INT(n, ==, 4);
    gdt__tmpl_attn_fwd.launch(&f, &p, 0, &l);
    CHECK_INT(l.block[0], ==, 384);
    CHECK_INT(l.smem_bytes, ==, gdt__attn_fwd_tma_smem_bytes(128, 2, 2, 128));
    gdt_attn_fwd_tma *t = prepared(&f, &p, l.smem_bytes, 64, &cfg);
    CHECK(t != NULL && t->cluster == 2);
    CHECK_INT(t ? t->params.tiles : 0, ==, 4);
    CHECK_INT((int)cfg.gridDimX, ==, 120);
    CHECK(cfg.numAttrs == 1 && cfg.attrs && cfg.attrs[0].value.clusterDim.x == 2);
    if (t)
        gdt__tmpl_attn_fwd.release(t);
    check_builds_apart(&f, &p, "CLUSTER=2");
}

int main(void)
{
    attn_rows_optional_column(&fwd, "[128, 128, 8, 3, 2]", "[128, 128, 8, 3, 2, 0]", SHAPE);
    test_rules();
    attn_rows_short_problem(&fwd, "[128, 128, 12, 2, 2, 1]", 128, 128);
    test_template_binds();
    test_counters();
    test_three_stages();
    test_wide_keys();
    test_cluster();
    attn_rows_staged_is_hand(&fwd, ENTRIES, sizeof ENTRIES / sizeof ENTRIES[0]);
    const attn_rows fwd_wide = wide_rows();
    attn_rows_staged_is_hand(&fwd_wide, WIDE_ENTRIES, sizeof WIDE_ENTRIES / sizeof WIDE_ENTRIES[0]);
    return gdt_test_result("test_attn_fwd_tma_rows");
}
