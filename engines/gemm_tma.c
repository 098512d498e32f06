/* The host side of the Hopper TMA GEMM (engines/gdt_gemm_tma.h): what the
 * hand engine's gemm.hand and the NVRTC engine's PIPE=1 rows both do
 * before and at a launch of kernels/gdt_gemm_sm90.cuh. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "gdt_gemm_tma.h"
#include "gdt_plan_counters.h"
#include "gdt_predict.h"
#include "gdt_tma.h"

enum { TILE_K = GDT_GEMM_TMA_TILE_K };

/* The tile's rows on the wgmma's M side: 64 a consumer warpgroup. */
static int tile_m(const gdt_gemm_tma_config *c) { return 64 * c->consumers; }

int gdt__gemm_tma_threads(const gdt_gemm_tma_config *c) { return 128 * (1 + c->consumers); }

void gdt__gemm_tma_extents(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g, int64_t *m,
                           int64_t *n)
{
    *m = c->swap_ab ? g->n : g->m;
    *n = c->swap_ab ? g->m : g->n;
}

int gdt__gemm_tma_smem_bytes(const gdt_gemm_tma_config *c)
{
    int c_blocks = c->regs_epilogue && c->cluster_k == 1 ? 0 : 2 * c->consumers;
    return c->stages * (tile_m(c) + c->tile_n) * TILE_K * 2 + c_blocks * 64 * 64 * 2 +
           16 * c->stages + 16 + 1024;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t gdt__gemm_tma_splits(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g)
{
    int64_t ktiles = ceil_div(g->k, TILE_K);
    return c->cluster_k > 1 ? c->cluster_k : c->split_k < ktiles ? c->split_k : ktiles;
}

/* Tiles times splits.  A cluster along N walks pairs of tiles, so an odd
 * column count gets one more (a CTA past N that loads A for its partner). */
int64_t gdt__gemm_tma_units(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g)
{
    int64_t m, n;
    gdt__gemm_tma_extents(c, g, &m, &n);
    int64_t cols = ceil_div(ceil_div(n, c->tile_n), c->cluster_n) * c->cluster_n;
    int64_t tiles = ceil_div(m, tile_m(c)) * cols * g->batch;
    return tiles * gdt__gemm_tma_splits(c, g);
}

int gdt__gemm_tma_sms(const gdt_facts *f)
{
    return f->device.sm_count > 0 ? f->device.sm_count : gdt__predict_sm_count(f->device.arch);
}

/* Tiles and K past gdt__gemm_tma_sizes_ok's bounds (a problem it declines,
 * still ordered by the untimed estimate) are planned at those bounds, so
 * that the schedule's arithmetic stays in range. */
gdt_sk gdt__gemm_tma_streamk(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g, int sms)
{
    int64_t tiles = gdt__gemm_tma_units(c, g), ktiles = ceil_div(g->k, TILE_K);
    int64_t most_tiles = INT_MAX / 8, most_k = INT_MAX / TILE_K;
    return gdt_sk_plan((int)(tiles < most_tiles ? tiles : most_tiles),
                       (int)(ktiles < most_k ? ktiles : most_k), sms > 0 ? sms : 1);
}

void gdt__gemm_tma_majors(const gdt_gemm_desc *g, bool *a_kmajor, bool *b_kmajor)
{
    *a_kmajor = g->a_stride[2] == 1;
    *b_kmajor = g->b_stride[2] != 1;
}

/* A stride over an extent of 1 is never used; TMA still wants a 16-byte
 * multiple there, so it gets one. */
static int64_t stride_bytes(int64_t stride, int64_t extent, int64_t fallback)
{
    return extent == 1 ? gdt__tma_round16(fallback) : stride * 2;
}

/* The operand's tensor map: its unit-stride axis u (extent eu), its other
 * axis o (extent eo, stride so) and the batch (stride sb). */
static void geometry(int64_t eu, int64_t eo, int64_t so, int64_t batch, int64_t sb,
                     uint32_t box_o, gdt_gemm_tma_map *g)
{
    g->dims[0] = (cuuint64_t)eu, g->dims[1] = (cuuint64_t)eo, g->dims[2] = (cuuint64_t)batch;
    g->strides[0] = (cuuint64_t)stride_bytes(so, eo, eu * 2);
    g->strides[1] = (cuuint64_t)stride_bytes(sb, batch, (int64_t)g->strides[0] * eo);
    g->box[0] = 64, g->box[1] = box_o;
}

/* An operand of MN extent `mn` (M for A, N for B) by K, strides s_mn,
 * s_k and s_b: K-major, rows of 64 K-elements, box_rows of them a box;
 * else MN-major, 64 K-rows of 64 MN-elements a box. */
static void operand(bool kmajor, int64_t mn, int64_t k, int64_t s_mn, int64_t s_k, int64_t batch,
                    int64_t s_b, uint32_t box_rows, gdt_gemm_tma_map *g)
{
    if (kmajor)
        geometry(k, mn, s_mn, batch, s_b, box_rows, g);
    else
        geometry(mn, k, s_k, batch, s_b, 64, g);
}

/* A is K-major when its K axis has unit stride, else MN-major; B MN-major
 * when its N axis has, else K-major; C must be row-major.  In a cluster
 * each CTA loads 64 of A's rows (MN-major A is loaded 64 rows a box
 * anyway).  Under swap-AB B is the wgmma's A side (tile_m rows of N a
 * box), A its B side (tile_n rows of M), and C is stored tile_n rows a box. */
static bool unit_strides(const gdt_gemm_desc *g, char *why, size_t n)
{
    const int64_t *sa = g->a_stride, *sb = g->b_stride, *sc = g->c_stride;
    if (sa[2] != 1 && sa[1] != 1)
        return snprintf(why, n, "operand A: no unit stride (strides %" PRId64 ", %" PRId64
                        ", %" PRId64 ")", sa[0], sa[1], sa[2]), false;
    if (sb[2] != 1 && sb[1] != 1)
        return snprintf(why, n, "operand B: no unit stride (strides %" PRId64 ", %" PRId64
                        ", %" PRId64 ")", sb[0], sb[1], sb[2]), false;
    if (sc[2] != 1)
        return snprintf(why, n, "operand C: not row-major (stride %" PRId64 " along n; the TMA "
                        "store writes rows)", sc[2]), false;
    return true;
}

bool gdt__gemm_tma_layout(const gdt_gemm_desc *g, const gdt_gemm_tma_config *c,
                          gdt_gemm_tma_map geo[3], char *why, size_t n)
{
    const int64_t *sa = g->a_stride, *sb = g->b_stride, *sc = g->c_stride;
    bool ak, bk, sw = c->swap_ab;
    gdt_gemm_tma_map a, b;
    if (!unit_strides(g, why, n))
        return false;
    gdt__gemm_tma_majors(g, &ak, &bk);
    if (sw && !ak && c->tile_n % 64)
        return snprintf(why, n, "operand A: MN-major (unit stride along M) under swap-AB takes "
                        "a tile of 64 rows of M (its boxes are 64 columns wide), got %d",
                        c->tile_n), false;
    operand(ak, g->m, g->k, sa[1], sa[2], g->batch, sa[0],
            (uint32_t)(sw ? c->tile_n : tile_m(c) / c->cluster_n), &a);
    operand(bk, g->n, g->k, sb[2], sb[1], g->batch, sb[0], (uint32_t)(sw ? tile_m(c) : c->tile_n),
            &b);
    geo[0] = sw ? b : a, geo[1] = sw ? a : b;
    geometry(g->n, g->m, sc[1], g->batch, sc[0], (uint32_t)(sw ? c->tile_n : 64), &geo[2]);
    static const char *const names[2][3] = {{"A", "B", "C"}, {"B", "A", "C"}};
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 2; i++)
            if (geo[r].strides[i] % 16 || geo[r].strides[i] >= (1ull << 40))
                return snprintf(why, n, "operand %s: %s stride of %llu bytes is not a multiple "
                                "of 16 below 2^40, as TMA needs", names[sw][r],
                                i ? "batch" : "leading", (unsigned long long)geo[r].strides[i]),
                       false;
    return true;
}

/* A stream-K schedule's slots (gdt_sk_slots) are at most the tiles and two
 * a CTA, at most 4 a tile (kernels/gdt_streamk.cuh), so INT_MAX / 8 tiles stay in 32 bits. */
bool gdt__gemm_tma_sizes_ok(const gdt_gemm_desc *g, const gdt_gemm_tma_config *c, char *why,
                            size_t n)
{
    int64_t most = c->stream_k ? INT_MAX / 8 : INT_MAX;
    if (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX || gdt__gemm_tma_units(c, g) > most)
        return snprintf(why, n, "m %" PRId64 ", n %" PRId64 ", k %" PRId64 ", batch %" PRId64
                        ": the kernel indexes tiles and coordinates with 32-bit integers",
                        g->m, g->n, g->k, g->batch), false;
    return true;
}

/* Split through the workspace: split_k > 1 outside a cluster of splits,
 * or stream-K. */
static bool through_workspace(const gdt_gemm_tma_config *c)
{
    return (c->split_k > 1 && c->cluster_k == 1) || c->stream_k;
}

/* The workspace's slots, one a split (a piece under stream-K). */
static int64_t partial_slots(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g, int sms)
{
    if (!c->stream_k)
        return gdt__gemm_tma_splits(c, g);
    gdt_sk s = gdt__gemm_tma_streamk(c, g, sms);
    int most = gdt_sk_max_pieces(&s);
    return most > 1 ? most : 0;
}

size_t gdt__gemm_tma_workspace(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g, int sms)
{
    if (!through_workspace(c))
        return 0;
    int64_t m, n;
    gdt__gemm_tma_extents(c, g, &m, &n);
    return (size_t)partial_slots(c, g, sms) * (size_t)(g->batch * m) *
           (size_t)(ceil_div(n, c->tile_n) * c->tile_n) * sizeof(float);
}

void gdt__gemm_tma_init(gdt_gemm_tma *t, const char *who, const gdt_facts *f,
                        const gdt_gemm_tma_config *c)
{
    const gdt_gemm_desc *g = &f->problem.u.gemm;
    char why[8];
    int64_t m, n, ktiles = ceil_div(g->k, TILE_K);
    int sms = gdt__gemm_tma_sms(f);
    gdt__gemm_tma_extents(c, g, &m, &n);
    int64_t tiles_n = ceil_div(n, c->tile_n);
    t->who = who;
    t->config = *c;
    t->dtype = f->dtype;
    gdt__gemm_tma_layout(g, c, t->geo, why, sizeof why); /* the caller's checks accepted it */
    /* The kernel's problem: under swap-AB, C^T's (m and n exchanged). */
    t->params = (gdt_gemm_tma_params){(int)m, (int)n, (int)g->k, (int)g->batch,
                                      (int)ceil_div(m, tile_m(c)), (int)tiles_n,
                                      (int)(c->split_k < ktiles ? c->split_k : ktiles)};
    t->units = gdt__gemm_tma_units(c, g);
    if (c->stream_k) { /* the kernel plans on p.splits SMs; one CTA each of its CTAs */
        t->params.splits = sms;
        t->units = gdt__gemm_tma_streamk(c, g, sms).ctas;
    }
    t->ws_bytes = gdt__gemm_tma_workspace(c, g, sms);
    t->ncounters = through_workspace(c) ? (size_t)(t->params.tiles_m * tiles_n * g->batch) : 0;
}

/* Programmatic dependent launch (kernels/gdt_sm90.cuh): the kernel's CTAs
 * may start, and run their prologue (barriers, registers), while the
 * kernel before it on the stream finishes; each thread waits for that
 * kernel before it touches global memory (kernels/gdt_gemm_sm90.cuh,
 * gemm).  Back to back, as in a burst or a model's layers, the launch gap
 * and the prologue leave the GEMM's time.  Why: at m256 n4096 k4096 on an
 * H100 (runs/sm90/s35-20261207-h100) cuDNN's knob_47 and the 128 x 64
 * hand configuration take 18.6 and 18.8 us each under Nsight Compute (one
 * kernel at a time) but 15.5 and 18.3 us a call in a burst of 64. */
static void add_pdl(gdt_gemm_tma *t, CUlaunchConfig *cfg)
{
    CUlaunchAttribute *a = &t->attrs[cfg->numAttrs++];
    a->id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a->value.programmaticStreamSerializationAllowed = 1;
}

/* The persistent grid: at most one CTA per SM and per unit; a cluster
 * configuration (along N or along K) launches whole clusters, (2, 1, 1)
 * each, along grid x (the kernel pairs blockIdx.x 2i and 2i + 1), and no
 * more of them than the driver says can be resident at once
 * (cuOccupancyMaxActiveClusters for this function, block and shared
 * memory): a cluster past those would wait for a resident one to exit, a
 * second wave that doubles the kernel's time.  cfg's block and shared
 * memory must be set. */
static gdt_status launch_grid(gdt_gemm_tma *t, CUfunction fn, CUlaunchConfig *cfg, int sms,
                              gdt_error *e)
{
    int64_t per = t->config.cluster_n * t->config.cluster_k;
    int64_t clusters = t->units / per < sms / per ? t->units / per : sms / per;
    cfg->gridDimX = (unsigned)(clusters * per);
    cfg->gridDimY = cfg->gridDimZ = 1;
    cfg->attrs = t->attrs;
    cfg->numAttrs = 0;
    if (per > 1) {
        gdt_status st = gdt__tma_cluster_launch(t->cu, fn, cfg, (int)per, t->who, e);
        if (st != GDT_STATUS_OK)
            return st;
    }
    add_pdl(t, cfg);
    return GDT_STATUS_OK;
}

gdt_status gdt__gemm_tma_load(gdt_gemm_tma *t, const gdt_cu_api *cu, CUfunction fn,
                              CUlaunchConfig *cfg, gdt_error *e)
{
    int sms = 0, dev = 0, smem = gdt__gemm_tma_smem_bytes(&t->config);
    t->cu = cu;
    GDT_CHECK_CUDA(e, cudaGetDevice(&dev));
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    GDT_CHECK_CU(e, cu->cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           smem));
    /* A split-K plan's arrival counters (engines/gdt_plan_counters.h); the
     * kernel's last unit of each tile sets its counter back to zero. */
    gdt_status st = gdt__plan_counters_new(&t->counters, t->ncounters, e);
    if (st != GDT_STATUS_OK)
        return st;
    cfg->blockDimX = (unsigned)gdt__gemm_tma_threads(&t->config);
    cfg->blockDimY = cfg->blockDimZ = 1;
    cfg->sharedMemBytes = (unsigned)smem;
    return launch_grid(t, fn, cfg, sms, e);
}

void gdt__gemm_tma_release(gdt_gemm_tma *t)
{
    gdt__plan_counters_free(&t->counters);
}

static gdt_status encode(gdt_gemm_tma *t, int i, void *ptr, gdt_error *e)
{
    const gdt_gemm_tma_map *g = &t->geo[i];
    cuuint32_t box[3] = {g->box[0], g->box[1], 1};
    /* The zero fill out of bounds: the K tail adds nothing. */
    return gdt__tma_encode(t->cu, &t->maps[i], &t->bound[i], t->dtype, 3, ptr, g->dims, g->strides,
                           box, e);
}

/* A split-K plan's workspace: the caller's, sized by ws_bytes, and 16-byte
 * aligned (the partials go out and come back as float2). */
static gdt_status workspace_ok(const gdt_gemm_tma *t, const void *ws, size_t ws_bytes, gdt_error *e)
{
    if (!t->ws_bytes)
        return GDT_STATUS_OK;
    if (!ws || ws_bytes < t->ws_bytes)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: workspace: expected %zu bytes, "
                             "got %zu", t->who, t->ws_bytes, ws ? ws_bytes : 0);
    if ((uintptr_t)ws % 16)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: workspace: pointer %p is not "
                             "16-byte aligned", t->who, ws);
    return GDT_STATUS_OK;
}

gdt_status gdt__gemm_tma_bind(gdt_gemm_tma *t, const gdt_facts *f, const gdt_operands *ops,
                              void **ws, size_t ws_bytes, void *args[GDT_GEMM_TMA_NARGS],
                              gdt_error *e)
{
    /* The maps' order: the kernel's A side, B side, C (B first under swap-AB). */
    static const gdt_operand_role order[2][3] = {{GDT_OPERAND_A, GDT_OPERAND_B, GDT_OPERAND_C},
                                                 {GDT_OPERAND_B, GDT_OPERAND_A, GDT_OPERAND_C}};
    const gdt_operand_role *roles = order[t->config.swap_ab];
    gdt_status st = workspace_ok(t, *ws, ws_bytes, e);
    if (st == GDT_STATUS_OK)
        st = gdt_operands_check(&f->problem, ops, e);
    for (int i = 0; i < 3 && st == GDT_STATUS_OK; i++) {
        void *ptr = ops->ptr[roles[i]];
        if ((uintptr_t)ptr % 16)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: operand %s: pointer %p is "
                                 "not 16-byte aligned, as TMA requires", t->who,
                                 gdt_operand_name(roles[i]), ptr);
        if (ptr != t->bound[i])
            st = encode(t, i, ptr, e);
    }
    if (st != GDT_STATUS_OK)
        return st;
    const int64_t *sc = f->problem.u.gemm.c_stride;
    t->c_out = (gdt_gemm_tma_c){ops->ptr[GDT_OPERAND_C], (long long)sc[1], (long long)sc[0]};
    args[0] = &t->maps[0], args[1] = &t->maps[1], args[2] = &t->maps[2];
    args[3] = &t->params, args[4] = ws, args[5] = &t->counters, args[6] = &t->c_out;
    return GDT_STATUS_OK;
}
