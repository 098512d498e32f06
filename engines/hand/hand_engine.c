/* The hand engine's GEMM (slot gemm.hand): kernels/hand/gemm_sm90.cu, built
 * by nvcc for sm_90a and embedded as a cubin.  A few fixed configurations
 * (the table below), each a named knob set; check_support declines, with
 * the reason, every problem the kernel cannot run exactly: another arch,
 * dtype or configuration, an operand without a unit stride, and strides
 * TMA cannot describe (16-byte multiples).  build loads the cubin;
 * execute encodes the three tensor maps (again only when the pointers
 * change) and launches the persistent grid; a split-K configuration sums
 * its partials inside that launch, with arrival counters the plan owns, or
 * in a cluster of its two splits through distributed shared memory; a
 * cluster configuration launches clusters of two CTAs along N, which share
 * A through a multicast TMA. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_hand.h"
#include "gdt_predict.h"
#include "hand_common.h"

/* What kernels/gdt_gemm_sm90.cuh is built for: keep the two in step. */
enum { TILE_M = 128, TILE_K = 64, GROUP_M = 8, THREADS = 384 };
/* Its shared memory for a configuration: the ring, four 64 x 64 output
 * blocks, the barriers, the split-K flag word or the DSMEM reduction's two
 * barriers (16 bytes), and 1024 bytes of slack to align the swizzle atoms.
 * At most 232448 bytes (227 KB, sm90's opt-in limit): 8 stages fit at
 * 128 x 64, 6 at 128 x 128, 4 at the rest. */
#define SMEM_BYTES(c)                                                                               \
    ((c)->stages * (TILE_M + (c)->tile_n) * TILE_K * 2 + 4 * 64 * 64 * 2 + 16 * (c)->stages + 16 + \
     1024)

/* The CLUSTER_SHAPE knob's values are cublasLtClusterShape_t's in every
 * engine; this is its 1x2x1: one CTA along M, two along N. */
enum { CLUSTER_SHAPE_1X2X1 = 5 };
/* REDUCTION_MODE's values are each engine's own (cuBLASLt's reduction
 * schemes, cuDNN's knob); gemm.hand's split-K without it sums through the
 * workspace, and with this value in a cluster of the two splits through
 * distributed shared memory. */
enum { REDUCTION_DSMEM = 1 };

/* The fixed configurations; the untimed order breaks its ties in this
 * order (gdt__hand_gemm_plans).  The first is the knobless gemm.hand;
 * split_k > 1 names a SPLIT_K knob, a workspace and arrival counters;
 * cluster_n 2 a CLUSTER_SHAPE knob and clusters of two CTAs along N;
 * cluster_k 2 (with split_k 2) a REDUCTION_MODE knob and the two splits of
 * each tile as a cluster, summed in shared memory: no workspace, no
 * counters.  A cluster is along N or along K, never both. */
typedef struct hand_config {
    int tile_n, split_k, stages, cluster_n, cluster_k;
    const char *entry; /* the prefix of its entries in the .cu */
} hand_config;

static const hand_config configs[] = {
    {256, 1, 4, 1, 1, "gdt_hand_gemm"},
    {128, 1, 4, 1, 1, "gdt_hand_gemm_n128"},
    {128, 2, 4, 1, 1, "gdt_hand_gemm_n128_splitk"},
    {128, 4, 4, 1, 1, "gdt_hand_gemm_n128_splitk"},
    {128, 8, 4, 1, 1, "gdt_hand_gemm_n128_splitk"},
    {192, 2, 4, 1, 1, "gdt_hand_gemm_n192_splitk"}, /* m = 256, n = 6144: 64 tiles x 2 units */
    {64, 2, 4, 1, 1, "gdt_hand_gemm_n64_splitk"},   /* m = 128, n = 4096: 64 tiles x 2 units */
    /* Deeper rings for the small-M cells, which wait on loads (README):
     * twice the bytes in flight per SM. */
    {128, 1, 6, 1, 1, "gdt_hand_gemm_n128_s6"},        /* m = 128, n = 14336; m = 256 */
    {128, 4, 6, 1, 1, "gdt_hand_gemm_n128_splitk_s6"}, /* m = 128, n = 4096, k = 14336 */
    {64, 2, 8, 1, 1, "gdt_hand_gemm_n64_splitk_s8"},   /* m = 128, n = k = 4096 */
    /* 128 x 256 in clusters of two along N sharing A (multicast): a
     * third less from L2 a stage; m = 2048, n = k = 4096 (README). */
    {256, 1, 4, 2, 1, "gdt_hand_gemm_c2"},
    /* 128 x 64 in two splits, 8 stages, the splits summed in a cluster:
     * m = 128, n = k = 4096 without the workspace's round trip (README). */
    {64, 2, 8, 1, 2, "gdt_hand_gemm_n64_splitk_dsmem_s8"},
};
#define NCONFIGS (int)(sizeof configs / sizeof configs[0])
_Static_assert(NCONFIGS == GDT_HAND_GEMM_CONFIGS, "gdt_hand.h counts the configurations");
_Static_assert(NCONFIGS <= GDT_FIXED_PLANS_MAX, "the planner takes at most GDT_FIXED_PLANS_MAX");

/* Mirrors struct gdt_gemm_tma_params in kernels/gdt_gemm_sm90.cuh. */
typedef struct gdt_hand_gemm_params {
    int m, n, k, batch;
    int tiles_m, tiles_n;
    int splits;
} gdt_hand_gemm_params;

/* One tensor map: three dims (unit-stride axis first, then the other
 * matrix axis, then batch), two byte strides and the box. */
typedef struct map_geometry {
    cuuint64_t dims[3], strides[2];
    cuuint32_t box[2];
} map_geometry;

struct gdt_compiled {
    CUtensorMap maps[3]; /* A, B, C: first, for their 128-byte alignment */
    const gdt_cu_api *cu;
    gdt_facts facts;
    const hand_config *config;
    map_geometry geo[3];
    const void *bound[3]; /* the pointers the maps describe */
    gdt_hand_gemm_params params;
    size_t ws_bytes;
    size_t ncounters;   /* split-K: one per tile */
    unsigned *counters; /* device memory, zero between launches */
    CUmodule mod;
    CUfunction fn;
    CUlaunchConfig cfg;
    CUlaunchAttribute cluster; /* cfg.attrs, for a cluster configuration */
};

void gdt__hand_gemm_config_plan(int i, int64_t engine_id, gdt_plan_id *out)
{
    const hand_config *c = &configs[i];
    memset(out, 0, sizeof *out);
    out->engine_id = engine_id;
    gdt_plan_id_set_knob(out, GDT_KNOB_TILE_M, TILE_M);
    gdt_plan_id_set_knob(out, GDT_KNOB_TILE_N, c->tile_n);
    gdt_plan_id_set_knob(out, GDT_KNOB_TILEK, TILE_K);
    gdt_plan_id_set_knob(out, GDT_KNOB_STAGES, c->stages);
    gdt_plan_id_set_knob(out, GDT_KNOB_GROUP_M, GROUP_M);
    if (c->split_k > 1)
        gdt_plan_id_set_knob(out, GDT_KNOB_SPLIT_K, c->split_k);
    if (c->cluster_n == 2)
        gdt_plan_id_set_knob(out, GDT_KNOB_CLUSTER_SHAPE, CLUSTER_SHAPE_1X2X1);
    if (c->cluster_k == 2)
        gdt_plan_id_set_knob(out, GDT_KNOB_REDUCTION_MODE, REDUCTION_DSMEM);
}

void gdt__hand_gemm_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_gemm_config_plan(0, engine_id, out);
}

/* The configuration a plan names: the knobless name is the first; -1 for
 * a knob set that is none of them. */
static int config_index(const gdt_plan_id *p)
{
    gdt_plan_id fixed;
    if (p->nknobs == 0)
        return 0;
    for (int i = 0; i < NCONFIGS; i++) {
        gdt__hand_gemm_config_plan(i, p->engine_id, &fixed);
        if (gdt_plan_id_equal(p, &fixed))
            return i;
    }
    return -1;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The splits config c makes of each tile: at most one per 64-deep K
 * tile, except that a cluster of splits always has both CTAs (the second
 * with nothing to load where K is one tile). */
static int64_t config_splits(const hand_config *c, const gdt_gemm_desc *g)
{
    int64_t ktiles = ceil_div(g->k, TILE_K);
    return c->cluster_k > 1 ? c->cluster_k : c->split_k < ktiles ? c->split_k : ktiles;
}

/* The work units config i runs for a problem, one CTA's each: tiles times
 * splits.  A cluster along N walks pairs of tiles, so an odd column count
 * gets one more (a CTA past N that loads A for its partner). */
static int64_t config_units(const hand_config *c, const gdt_gemm_desc *g)
{
    int64_t cols = ceil_div(ceil_div(g->n, c->tile_n), c->cluster_n) * c->cluster_n;
    int64_t tiles = ceil_div(g->m, TILE_M) * cols * g->batch;
    return tiles * config_splits(c, g);
}

/* What the busiest SM does under config i, in K tiles times columns (every
 * tile has TILE_M rows): the waves of work units times the largest unit.
 * A part-filled wave costs as much as a full one, which is what favours
 * splitting a grid of too few tiles; a split unit also writes its fp32
 * partial and the tile's last unit reads them all back, each about two K
 * tiles' worth of operand bytes, so a split costs 2 K tiles a unit.  A
 * cluster of splits moves half a partial each way between its two SMs,
 * not through L2, and no counter: 1 K tile a split. */
static int64_t config_makespan(const hand_config *c, const gdt_gemm_desc *g, int sms)
{
    int64_t ktiles = ceil_div(g->k, TILE_K), splits = config_splits(c, g);
    int64_t per_split = splits == 1 ? 0 : c->cluster_k > 1 ? 1 : 2;
    int64_t unit = ceil_div(ktiles, splits) + per_split * splits;
    return ceil_div(config_units(c, g), sms) * unit * c->tile_n;
}

/* Untimed order: the smallest makespan first; among equals the fewer
 * splits (less partial traffic), then table order (larger tiles first). */
int gdt__hand_gemm_plans(const gdt_facts *f, int64_t engine_id, gdt_plan_id *out)
{
    int sms = f->device.sm_count > 0 ? f->device.sm_count : gdt__predict_sm_count(f->device.arch);
    int order[NCONFIGS];
    int64_t cost[NCONFIGS];
    for (int i = 0; i < NCONFIGS; i++)
        order[i] = i, cost[i] = config_makespan(&configs[i], &f->problem.u.gemm, sms);
    for (int i = 1; i < NCONFIGS; i++) /* insertion sort: stable, so ties keep table order */
        for (int j = i; j > 0; j--) {
            int a = order[j], b = order[j - 1];
            if (cost[a] > cost[b] || (cost[a] == cost[b] && configs[a].split_k >= configs[b].split_k))
                break;
            order[j] = b, order[j - 1] = a;
        }
    for (int i = 0; i < NCONFIGS; i++)
        gdt__hand_gemm_config_plan(order[i], engine_id, &out[i]);
    return NCONFIGS;
}

/* A stride over an extent of 1 is never used; TMA still wants a 16-byte
 * multiple there, so it gets one. */
static int64_t stride_bytes(int64_t stride, int64_t extent, int64_t fallback)
{
    return extent == 1 ? gdt__hand_round16(fallback) : stride * 2;
}

/* The operand's tensor map: its unit-stride axis u (extent eu), its other
 * axis o (extent eo, stride so) and the batch (stride sb). */
static void geometry(int64_t eu, int64_t eo, int64_t so, int64_t batch, int64_t sb,
                     uint32_t box_o, map_geometry *g)
{
    g->dims[0] = (cuuint64_t)eu, g->dims[1] = (cuuint64_t)eo, g->dims[2] = (cuuint64_t)batch;
    g->strides[0] = (cuuint64_t)stride_bytes(so, eo, eu * 2);
    g->strides[1] = (cuuint64_t)stride_bytes(sb, batch, (int64_t)g->strides[0] * eo);
    g->box[0] = 64, g->box[1] = box_o;
}

/* The three maps of a problem, or why TMA cannot describe an operand.  A
 * is K-major when its K axis has unit stride, else MN-major; B MN-major
 * when its N axis has, else K-major; C must be row-major.  In a cluster
 * each CTA loads 64 of A's 128 rows (MN-major A is loaded 64 rows a box
 * anyway). */
static bool layout(const gdt_gemm_desc *g, const hand_config *c, map_geometry geo[3], char *why,
                   size_t n)
{
    const int64_t *sa = g->a_stride, *sb = g->b_stride, *sc = g->c_stride;
    if (sa[2] == 1)
        geometry(g->k, g->m, sa[1], g->batch, sa[0], (uint32_t)(TILE_M / c->cluster_n), &geo[0]);
    else if (sa[1] == 1)
        geometry(g->m, g->k, sa[2], g->batch, sa[0], 64, &geo[0]);
    else
        return snprintf(why, n, "operand A: no unit stride (strides %" PRId64 ", %" PRId64
                        ", %" PRId64 ")", sa[0], sa[1], sa[2]), false;
    if (sb[2] == 1)
        geometry(g->n, g->k, sb[1], g->batch, sb[0], 64, &geo[1]);
    else if (sb[1] == 1)
        geometry(g->k, g->n, sb[2], g->batch, sb[0], (uint32_t)c->tile_n, &geo[1]);
    else
        return snprintf(why, n, "operand B: no unit stride (strides %" PRId64 ", %" PRId64
                        ", %" PRId64 ")", sb[0], sb[1], sb[2]), false;
    if (sc[2] != 1)
        return snprintf(why, n, "operand C: not row-major (stride %" PRId64 " along n; the TMA "
                        "store writes rows)", sc[2]), false;
    geometry(g->n, g->m, sc[1], g->batch, sc[0], 64, &geo[2]);
    static const char *const names[3] = {"A", "B", "C"};
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 2; i++)
            if (geo[r].strides[i] % 16 || geo[r].strides[i] >= (1ull << 40))
                return snprintf(why, n, "operand %s: %s stride of %llu bytes is not a multiple "
                                "of 16 below 2^40, as TMA needs", names[r],
                                i ? "batch" : "leading", (unsigned long long)geo[r].strides[i]),
                       false;
    return true;
}

/* Every fixed configuration's name, for the decline of any other. */
static void configs_list(int64_t engine_id, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < NCONFIGS && at < n; i++) {
        gdt_plan_id id;
        char name[256];
        gdt__hand_gemm_config_plan(i, engine_id, &id);
        gdt_plan_id_format(&id, name, sizeof name);
        at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", name);
    }
}

static gdt_status decline_knobs(const gdt_engine_slot *s, const gdt_plan_id *p, gdt_error *e)
{
    char got[256], fixed[1536];
    gdt_plan_id_format(p, got, sizeof got);
    configs_list(p->engine_id, fixed, sizeof fixed);
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                         "%s: plan %s: not one of the kernel's fixed configurations (%s)", s->name,
                         got, fixed);
}

static bool sizes_ok(const gdt_gemm_desc *g, const hand_config *c, char *why, size_t n)
{
    if (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX || config_units(c, g) > INT_MAX)
        return snprintf(why, n, "m %" PRId64 ", n %" PRId64 ", k %" PRId64 ", batch %" PRId64
                        ": the kernel indexes tiles and coordinates with 32-bit integers",
                        g->m, g->n, g->k, g->batch), false;
    return true;
}

/* The device and dtype the cubin serves. */
static bool target_ok(const gdt_facts *f, const hand_config *c, char *why, size_t n)
{
    return gdt__hand_target_ok(f, GDT_FAMILY_GEMM, false, SMEM_BYTES(c), why, n);
}

/* The problem is checked against the plan's configuration (the first when
 * the knobs name none, so that the decline says the rest first). */
static gdt_status check_support(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                                gdt_error *e)
{
    char why[512] = "";
    map_geometry geo[3];
    int i = config_index(p);
    const hand_config *c = &configs[i < 0 ? 0 : i];
    if (!target_ok(f, c, why, sizeof why) || !sizes_ok(&f->problem.u.gemm, c, why, sizeof why) ||
        !layout(&f->problem.u.gemm, c, geo, why, sizeof why))
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: %s", s->name, why);
    return i < 0 ? decline_knobs(s, p, e) : GDT_STATUS_OK;
}

/* The entry for the configuration, the dtype and the two operand layouts
 * (k: K-major). */
static const char *entry_name(const gdt_compiled *c, char *buf, size_t n)
{
    const int64_t *sa = c->facts.problem.u.gemm.a_stride, *sb = c->facts.problem.u.gemm.b_stride;
    bool a_k = sa[2] == 1, b_k = sb[2] != 1;
    snprintf(buf, n, "%s_%s_%c%c", c->config->entry, c->facts.dtype == GDT_DTYPE_FP16 ? "fp16" : "bf16",
             a_k ? 'k' : 'm', b_k ? 'k' : 'm');
    return buf;
}

/* A split-K plan's arrival counters, zeroed once here; the kernel's last
 * unit of each tile sets its counter back to zero, so they stay zero
 * between launches.  They belong to the plan, not to the caller's
 * workspace, because callers share one workspace among plans (a sweep's
 * buffers, the tests'), so counters there would need a memset in every
 * execute.  The price is that a plan must not run concurrently with
 * itself (the README's rule); the synchronize makes the zeros land before
 * an execute on any stream. */
static gdt_status counters_new(gdt_compiled *c, gdt_error *e)
{
    if (!c->ncounters)
        return GDT_STATUS_OK;
    size_t bytes = c->ncounters * sizeof *c->counters;
    GDT_CHECK_CUDA(e, cudaMalloc((void **)&c->counters, bytes));
    GDT_CHECK_CUDA(e, cudaMemsetAsync(c->counters, 0, bytes, 0));
    GDT_CHECK_CUDA(e, cudaStreamSynchronize(0));
    return GDT_STATUS_OK;
}

/* The persistent grid: at most one CTA per SM and per unit; a cluster
 * configuration (along N or along K) launches whole clusters, (2, 1, 1)
 * each, along grid x (the kernel pairs blockIdx.x 2i and 2i + 1), and no
 * more of them than the driver says can be resident at once
 * (cuOccupancyMaxActiveClusters for this function, block and shared
 * memory): a cluster past those would wait for a resident one to exit, a
 * second wave that doubles the kernel's time.  cfg's block and shared
 * memory must be set. */
static gdt_status launch_grid(gdt_compiled *c, int sms, gdt_error *e)
{
    const hand_config *k = c->config;
    int64_t units = config_units(k, &c->facts.problem.u.gemm);
    int64_t per = k->cluster_n * k->cluster_k;
    int64_t clusters = units / per < sms / per ? units / per : sms / per;
    c->cfg.gridDimX = (unsigned)(clusters * per);
    c->cfg.gridDimY = c->cfg.gridDimZ = 1;
    if (per == 1)
        return GDT_STATUS_OK;
    c->cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    c->cluster.value.clusterDim.x = (unsigned)per;
    c->cluster.value.clusterDim.y = c->cluster.value.clusterDim.z = 1;
    c->cfg.attrs = &c->cluster;
    c->cfg.numAttrs = 1;
    int resident = 0;
    GDT_CHECK_CU(e, c->cu->cuOccupancyMaxActiveClusters(&resident, c->fn, &c->cfg));
    if (resident < 1)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "gemm.hand: no cluster of %d CTAs of %u bytes of shared memory fits "
                             "on this device", (int)per, c->cfg.sharedMemBytes);
    if (clusters > resident)
        c->cfg.gridDimX = (unsigned)(resident * per);
    return GDT_STATUS_OK;
}

static gdt_status load(gdt_compiled *c, gdt_error *e)
{
    char name[64];
    int sms = 0, dev = 0, smem = SMEM_BYTES(c->config);
    gdt_status st = gdt__hand_module("gemm.hand", GDT_HAND_GEMM_CUBIN, &c->cu, &c->mod, e);
    if (st != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CUDA(e, cudaGetDevice(&dev));
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    GDT_CHECK_CU(e, c->cu->cuModuleGetFunction(&c->fn, c->mod, entry_name(c, name, sizeof name)));
    GDT_CHECK_CU(e, c->cu->cuFuncSetAttribute(c->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              smem));
    st = counters_new(c, e);
    if (st != GDT_STATUS_OK)
        return st;
    c->cfg.blockDimX = THREADS, c->cfg.blockDimY = c->cfg.blockDimZ = 1;
    c->cfg.sharedMemBytes = (unsigned)smem;
    return launch_grid(c, sms, e);
}

static void destroy(gdt_compiled *c)
{
    if (!c)
        return;
    if (c->counters)
        cudaFree(c->counters);
    gdt__hand_compiled_free(c, c->cu, c->mod);
}

/* The kernel's parameters and, for a split-K configuration that sums
 * through the workspace, the counters (one per tile) and the workspace:
 * [split][batch][m][tiles_n * tile_n] fp32. */
static void plan_params(gdt_compiled *c)
{
    const gdt_gemm_desc *g = &c->facts.problem.u.gemm;
    const hand_config *k = c->config;
    int64_t ktiles = ceil_div(g->k, TILE_K), tiles_n = ceil_div(g->n, k->tile_n);
    int splits = (int)(k->split_k < ktiles ? k->split_k : ktiles);
    c->params = (gdt_hand_gemm_params){(int)g->m, (int)g->n, (int)g->k, (int)g->batch,
                                       (int)ceil_div(g->m, TILE_M), (int)tiles_n, splits};
    if (k->split_k == 1 || k->cluster_k > 1)
        return;
    c->ncounters = (size_t)(c->params.tiles_m * tiles_n * g->batch);
    c->ws_bytes = (size_t)splits * (size_t)(g->batch * g->m) * (size_t)(tiles_n * k->tile_n) *
                  sizeof(float);
}

/* For a plan check_support accepted. */
static gdt_compiled *compiled_new(const gdt_facts *f, const gdt_plan_id *p)
{
    gdt_compiled *c = gdt__hand_compiled_alloc(sizeof(gdt_compiled));
    if (!c)
        return NULL;
    char why[8];
    c->facts = *f;
    c->config = &configs[config_index(p)];
    layout(&f->problem.u.gemm, c->config, c->geo, why, sizeof why); /* check_support accepted it */
    plan_params(c);
    return c;
}

GDT__HAND_BUILD(check_support, compiled_new, load, destroy)

static size_t workspace_size(const gdt_compiled *c) { return c->ws_bytes; }

static gdt_status encode(gdt_compiled *c, int i, void *ptr, gdt_error *e)
{
    const map_geometry *g = &c->geo[i];
    cuuint32_t box[3] = {g->box[0], g->box[1], 1};
    /* The zero fill out of bounds: the K tail adds nothing. */
    return gdt__hand_encode(c->cu, &c->maps[i], &c->bound[i], c->facts.dtype, 3, ptr, g->dims,
                            g->strides, box, e);
}

/* The pointers' TMA rules, re-encoding a map whose pointer changed. */
static gdt_status bind(gdt_compiled *c, const gdt_operands *ops, gdt_error *e)
{
    static const gdt_operand_role roles[3] = {GDT_OPERAND_A, GDT_OPERAND_B, GDT_OPERAND_C};
    gdt_status st = gdt_operands_check(&c->facts.problem, ops, e);
    for (int i = 0; i < 3 && st == GDT_STATUS_OK; i++) {
        void *ptr = ops->ptr[roles[i]];
        if ((uintptr_t)ptr % 16)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "gemm.hand: operand %s: pointer %p is "
                                 "not 16-byte aligned, as TMA requires",
                                 gdt_operand_name(roles[i]), ptr);
        if (ptr != c->bound[i])
            st = encode(c, i, ptr, e);
    }
    return st;
}

/* A split-K plan's workspace: the caller's, sized by workspace_size, and
 * 16-byte aligned (the partials go out and come back as float2). */
static gdt_status workspace_ok(const gdt_compiled *c, const void *ws, size_t ws_bytes, gdt_error *e)
{
    if (!c->ws_bytes)
        return GDT_STATUS_OK;
    if (!ws || ws_bytes < c->ws_bytes)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "gemm.hand: workspace: expected %zu bytes, "
                             "got %zu", c->ws_bytes, ws ? ws_bytes : 0);
    if ((uintptr_t)ws % 16)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "gemm.hand: workspace: pointer %p is not "
                             "16-byte aligned", ws);
    return GDT_STATUS_OK;
}

/* One launch on the caller's stream, split-K reduction included, so a
 * timing of execute holds the whole GEMM. */
static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t ws_bytes,
                          void *stream, gdt_error *e)
{
    gdt_status st = workspace_ok(c, ws, ws_bytes, e);
    if (st == GDT_STATUS_OK)
        st = bind(c, ops, e);
    if (st != GDT_STATUS_OK)
        return st;
    void *args[] = {&c->maps[0], &c->maps[1], &c->maps[2], &c->params, &ws, &c->counters};
    c->cfg.hStream = (CUstream)stream;
    GDT_CHECK_CU(e, c->cu->cuLaunchKernelEx(&c->cfg, c->fn, args, NULL));
    return GDT_STATUS_OK;
}

static int fixed_plans(const gdt_engine_slot *slot, const gdt_facts *f, gdt_plan_id *out, int cap)
{
    if (cap < NCONFIGS)
        return 0;
    return gdt__hand_gemm_plans(f, gdt_engine_id(slot->family, slot->slot), out);
}

const gdt_engine_ops gdt__hand_gemm_ops = {
    .check_support = check_support,
    .build = build,
    .workspace_size = workspace_size,
    .execute = execute,
    .destroy = destroy,
    .fixed_plans = fixed_plans,
};
