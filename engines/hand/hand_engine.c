/* The hand engine's GEMM (slot gemm.hand): kernels/hand/gemm_sm90.cu (the
 * fixed entries of kernels/gdt_gemm_sm90.cuh), built by nvcc for sm_90a
 * and embedded as a cubin; the host side it shares with the NVRTC GEMM's
 * PIPE=1 rows (maps, counters, grid, cluster) is engines/gemm_tma.c.  A few fixed configurations
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

#include "gdt_gemm_tma.h"
#include "gdt_hand.h"
#include "gdt_predict.h"
#include "hand_common.h"

enum { TILE_K = GDT_GEMM_TMA_TILE_K, GROUP_M = 8 };

/* The CLUSTER_SHAPE knob's values are cublasLtClusterShape_t's in every
 * engine; this is its 1x2x1: one CTA along M, two along N. */
enum { CLUSTER_SHAPE_1X2X1 = 5 };
/* REDUCTION_MODE's values are each engine's own (cuBLASLt's reduction
 * schemes, cuDNN's knob); gemm.hand's split-K without it sums through the
 * workspace, with DSMEM in a cluster of the two splits through distributed
 * shared memory; STREAMK is the stream-K schedule (no SPLIT_K: the
 * schedule cuts K), the contraction rows' value too (GDT_GEMM_REDUCE_*). */
enum { REDUCTION_DSMEM = 1, REDUCTION_STREAMK = 2 };

/* The fixed configurations; the untimed order breaks its ties in this
 * order (gdt__hand_gemm_plans).  The first is the knobless gemm.hand;
 * split_k > 1 names a SPLIT_K knob, a workspace and arrival counters;
 * cluster_n 2 a CLUSTER_SHAPE knob and clusters of two CTAs along N;
 * cluster_k 2 (with split_k 2) a REDUCTION_MODE knob and the two splits of
 * each tile as a cluster, summed in shared memory: no workspace, no
 * counters.  A cluster is along N or along K, never both. */
typedef struct hand_config {
    gdt_gemm_tma_config k; /* tile_n, split_k, stages, cluster_n, cluster_k, consumers, swap_ab,
                              stream_k, pingpong, regs_epilogue (false: every hand entry stores
                              C through shared memory and TMA) */
    const char *entry;     /* the prefix of its entries in the .cu */
} hand_config;

static const hand_config configs[] = {
    {{256, 1, 4, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm"},
    {{128, 1, 4, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_n128"},
    {{128, 2, 4, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_n128_splitk"},
    {{128, 4, 4, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_n128_splitk"},
    {{128, 8, 4, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_n128_splitk"},
    {{192, 2, 4, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_n192_splitk"}, /* m = 256, n = 6144: 64 tiles x 2 units */
    {{64, 2, 4, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_n64_splitk"},   /* m = 128, n = 4096: 64 tiles x 2 units */
    /* Deeper rings for the small-M cells, which wait on loads (README):
     * twice the bytes in flight per SM. */
    {{128, 1, 6, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_n128_s6"},        /* m = 128, n = 14336; m = 256 */
    {{128, 4, 6, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_n128_splitk_s6"}, /* m = 128, n = 4096, k = 14336 */
    {{64, 2, 8, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_n64_splitk_s8"},   /* m = 128, n = k = 4096 */
    /* 128 x 256 in clusters of two along N sharing A (multicast): a
     * third less from L2 a stage; m = 2048, n = k = 4096 (README). */
    {{256, 1, 4, 2, 1, 2, false, false, false, false}, "gdt_hand_gemm_c2"},
    /* 128 x 64 in two splits, 8 stages, the splits summed in a cluster:
     * m = 128, n = k = 4096 without the workspace's round trip (README). */
    {{64, 2, 8, 1, 2, 2, false, false, false, false}, "gdt_hand_gemm_n64_splitk_dsmem_s8"},
    /* Twins of the two default PIPE=1 rows that had none (README): 128 x
     * 256 with 3 stages (4096^3) and 128 x 64 unsplit with 8, which beat
     * every configuration above at m = 256, n = k = 4096 on an H100.
     * Last, after the configurations they neighbour (0 and 10; 9 and 11):
     * the makespan counts neither stages nor narrow tiles' cost, so where
     * they tie with others the measured ones keep their place in the
     * untimed order. */
    {{256, 1, 3, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_s3"},
    {{64, 1, 8, 1, 1, 2, false, false, false, false}, "gdt_hand_gemm_n64_s8"},
    /* Swap-AB for decode-sized M (README): C^T = B^T . A^T, N on the
     * wgmma's 64-row M side, the tile tile_n rows of M (TILE_M) by 64 a
     * consumer of N (TILE_N).  One consumer (64 x 64 tiles of C^T: 64 of
     * them at n = 4096), unsplit and in two splits, at 64, 32 and 16 rows
     * of M; two consumers (128 of N) in four splits.  Verified on an H100
     * (2026-12-06): 1.93x the best other configuration's speed at m = 16. */
    {{64, 1, 8, 1, 1, 1, true, false, false, false}, "gdt_hand_gemm_swab_m64_s8"},
    {{64, 2, 8, 1, 1, 1, true, false, false, false}, "gdt_hand_gemm_swab_m64_splitk_s8"},
    {{32, 2, 8, 1, 1, 1, true, false, false, false}, "gdt_hand_gemm_swab_m32_splitk_s8"},
    {{16, 2, 8, 1, 1, 1, true, false, false, false}, "gdt_hand_gemm_swab_m16_splitk_s8"},
    {{64, 4, 6, 1, 1, 2, true, false, false, false}, "gdt_hand_gemm_swab_m64_n128_splitk_s6"},
    /* Stream-K (README): whole tiles, then the partial wave (and one full
     * wave before it) in equal runs of K tiles a CTA, a tile cut across
     * CTAs summed through the workspace (kernels/gdt_streamk.cuh); m =
     * 256, n = 6144 is 96 tiles of 128 x 128, 64 of 128 x 192.  Verified
     * on an H100 (2026-12-06) and slower than the best other configuration
     * at every shape timed (0.39-0.87 of its speed). */
    {{128, 1, 4, 1, 1, 2, false, true, false, false}, "gdt_hand_gemm_n128_streamk"},
    {{192, 1, 4, 1, 1, 2, false, true, false, false}, "gdt_hand_gemm_n192_streamk"},
    /* Ping-pong (README): each consumer warpgroup owns whole 128 x 128
     * tiles, the two taking turns at the tensor cores, so one's epilogue
     * runs under the other's wgmmas; the twins of 1 and 7 (4 and 6
     * stages).  Verified on an H100, no faster than the twins (0.945 to
     * 1.018 of their speed, 2026-12-06). */
    {{128, 1, 4, 1, 1, 2, false, false, true, false}, "gdt_hand_gemm_n128_pp"},
    {{128, 1, 6, 1, 1, 2, false, false, true, false}, "gdt_hand_gemm_n128_pp_s6"},
};
#define NCONFIGS (int)(sizeof configs / sizeof configs[0])
_Static_assert(NCONFIGS == GDT_HAND_GEMM_CONFIGS, "gdt_hand.h counts the configurations");
_Static_assert(NCONFIGS <= GDT_FIXED_PLANS_MAX, "the planner takes at most GDT_FIXED_PLANS_MAX");

struct gdt_compiled {
    gdt_gemm_tma tma; /* first, for its maps' alignment */
    gdt_facts facts;
    const hand_config *config;
    CUmodule mod;
    CUfunction fn;
    CUlaunchConfig cfg;
};

void gdt__hand_gemm_config_plan(int i, int64_t engine_id, gdt_plan_id *out)
{
    const gdt_gemm_tma_config *c = &configs[i].k;
    memset(out, 0, sizeof *out);
    out->engine_id = engine_id;
    /* TILE_M and TILE_N: the tile along the problem's M and N, which
     * swap-AB puts on the wgmma's N and M sides. */
    gdt_plan_id_set_knob(out, GDT_KNOB_TILE_M, c->swap_ab ? c->tile_n : 64 * c->consumers);
    gdt_plan_id_set_knob(out, GDT_KNOB_TILE_N, c->swap_ab ? 64 * c->consumers : c->tile_n);
    gdt_plan_id_set_knob(out, GDT_KNOB_TILEK, TILE_K);
    gdt_plan_id_set_knob(out, GDT_KNOB_STAGES, c->stages);
    gdt_plan_id_set_knob(out, GDT_KNOB_GROUP_M, GROUP_M);
    if (c->split_k > 1)
        gdt_plan_id_set_knob(out, GDT_KNOB_SPLIT_K, c->split_k);
    if (c->cluster_n == 2)
        gdt_plan_id_set_knob(out, GDT_KNOB_CLUSTER_SHAPE, CLUSTER_SHAPE_1X2X1);
    if (c->cluster_k == 2)
        gdt_plan_id_set_knob(out, GDT_KNOB_REDUCTION_MODE, REDUCTION_DSMEM);
    if (c->swap_ab)
        gdt_plan_id_set_knob(out, GDT_KNOB_SWAP_AB, 1);
    if (c->stream_k)
        gdt_plan_id_set_knob(out, GDT_KNOB_REDUCTION_MODE, REDUCTION_STREAMK);
    if (c->pingpong)
        gdt_plan_id_set_knob(out, GDT_KNOB_PINGPONG, 1);
}

const char *gdt__hand_gemm_config_entry(int i) { return configs[i].entry; }

void gdt__hand_gemm_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_gemm_config_plan(0, engine_id, out);
}

/* The configuration a plan names (the knobless name the first), -1 for a
 * knob set that is none of them, with why naming every configuration. */
static int config_index(const gdt_engine_slot *s, const gdt_plan_id *p, char *why, size_t n)
{
    return gdt__hand_config_of(s, p, NCONFIGS, gdt__hand_gemm_config_plan, why, n);
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* What the busiest SM does under config i, in K tiles times columns of a
 * 128-row tile (a tile's area / 128: tile_n, or under swap-AB tile_n rows
 * of M by 64 consumers of N): the waves of work units times the largest
 * unit.
 * A part-filled wave costs as much as a full one, which is what favours
 * splitting a grid of too few tiles; a split unit also writes its fp32
 * partial and the tile's last unit reads them all back, each about two K
 * tiles' worth of operand bytes, so a split costs 2 K tiles a unit.  A
 * cluster of splits moves half a partial each way between its two SMs,
 * not through L2, and no counter: 1 K tile a split.  Stream-K: the
 * longest CTA's K tiles, and 2 for each tile its run meets when tiles are
 * cut. */
static int64_t config_makespan(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g, int sms)
{
    if (c->stream_k) {
        gdt_sk s = gdt__gemm_tma_streamk(c, g, sms);
        int64_t run = (int64_t)s.base + (s.rem > 0);
        int64_t cut = gdt_sk_max_pieces(&s) > 1 ? run / s.ktiles + 2 : 0;
        return ((int64_t)s.dp_tiles / s.ctas * s.ktiles + run + 2 * cut) * c->tile_n * c->consumers / 2;
    }
    int64_t ktiles = ceil_div(g->k, TILE_K), splits = gdt__gemm_tma_splits(c, g);
    int64_t per_split = splits == 1 ? 0 : c->cluster_k > 1 ? 1 : 2;
    int64_t unit = ceil_div(ktiles, splits) + per_split * splits;
    return ceil_div(gdt__gemm_tma_units(c, g), sms) * unit * c->tile_n * c->consumers / 2;
}

/* A swap-AB configuration is listed where M is one tile of it (m at most
 * its 16, 32 or 64 rows: decode-sized M, where it is meant to pay, and B
 * is read once); check_support still takes it by name at any M. */
static bool listed(const hand_config *c, const gdt_gemm_desc *g)
{
    return !c->k.swap_ab || g->m <= c->k.tile_n;
}

/* Never the untimed pick: stream-K (slower than the others wherever an
 * H100 timed it but past a partial wave, 2026-12-06) and ping-pong (no
 * faster than its cooperative twin anywhere an H100 timed it). */
static bool unproven(const gdt_gemm_tma_config *c) { return c->stream_k || c->pingpong; }

/* Whether configuration a goes before b untimed: the smallest makespan
 * first; among equals the fewer splits (less partial traffic).  Stream-K
 * and ping-pong come after every other (unproven), in makespan order, ties
 * in table order. */
static bool before(int a, int b, const int64_t *cost)
{
    const gdt_gemm_tma_config *x = &configs[a].k, *y = &configs[b].k;
    if (unproven(x) != unproven(y))
        return unproven(y);
    return cost[a] < cost[b] || (cost[a] == cost[b] && x->split_k < y->split_k);
}

/* Untimed order (before), ties in table order (larger tiles first). */
int gdt__hand_gemm_plans(const gdt_facts *f, int64_t engine_id, gdt_plan_id *out)
{
    int sms = gdt__gemm_tma_sms(f);
    int order[NCONFIGS], n = 0;
    int64_t cost[NCONFIGS];
    for (int i = 0; i < NCONFIGS; i++)
        if (listed(&configs[i], &f->problem.u.gemm))
            order[n] = i, cost[i] = config_makespan(&configs[i].k, &f->problem.u.gemm, sms), n++;
    for (int i = 1; i < n; i++) /* insertion sort: stable, so ties keep table order */
        for (int j = i; j > 0; j--) {
            int a = order[j], b = order[j - 1];
            if (!before(a, b, cost))
                break;
            order[j] = b, order[j - 1] = a;
        }
    for (int i = 0; i < n; i++)
        gdt__hand_gemm_config_plan(order[i], engine_id, &out[i]);
    return n;
}

/* The device and dtype the cubin serves. */
static bool target_ok(const gdt_facts *f, const hand_config *c, char *why, size_t n)
{
    return gdt__hand_target_ok(f, GDT_FAMILY_GEMM, false, gdt__gemm_tma_smem_bytes(&c->k), why, n);
}

/* The problem is checked against the plan's configuration (the first when
 * the knobs name none, so that the decline says the rest first). */
static gdt_status check_support(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                                gdt_error *e)
{
    char why[512] = "", knobs[GDT_ERROR_MAX] = "";
    gdt_gemm_tma_map geo[3];
    int i = config_index(s, p, knobs, sizeof knobs);
    const hand_config *c = &configs[i < 0 ? 0 : i];
    if (!target_ok(f, c, why, sizeof why) ||
        !gdt__gemm_tma_sizes_ok(&f->problem.u.gemm, &c->k, why, sizeof why) ||
        !gdt__gemm_tma_layout(&f->problem.u.gemm, &c->k, geo, why, sizeof why))
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: %s", s->name, why);
    return i < 0 ? gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s", knobs) : GDT_STATUS_OK;
}

/* The entry for the configuration, the dtype and the two operand layouts
 * (k: K-major). */
static const char *entry_name(const gdt_compiled *c, char *buf, size_t n)
{
    bool a_k, b_k;
    gdt__gemm_tma_majors(&c->facts.problem.u.gemm, &a_k, &b_k);
    snprintf(buf, n, "%s_%s_%c%c", c->config->entry, c->facts.dtype == GDT_DTYPE_FP16 ? "fp16" : "bf16",
             a_k ? 'k' : 'm', b_k ? 'k' : 'm');
    return buf;
}

static gdt_status load(gdt_compiled *c, gdt_error *e)
{
    char name[64];
    const gdt_cu_api *cu = NULL;
    gdt_status st = gdt__hand_module("gemm.hand", GDT_HAND_GEMM_CUBIN, &cu, &c->mod, e);
    c->tma.cu = cu;
    if (st != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CU(e, cu->cuModuleGetFunction(&c->fn, c->mod, entry_name(c, name, sizeof name)));
    return gdt__gemm_tma_load(&c->tma, cu, c->fn, &c->cfg, e);
}

static void destroy(gdt_compiled *c)
{
    if (!c)
        return;
    gdt__gemm_tma_release(&c->tma);
    gdt__hand_compiled_free(c, c->tma.cu, c->mod);
}

/* For a plan check_support accepted. */
static gdt_compiled *compiled_new(const gdt_facts *f, const gdt_plan_id *p)
{
    gdt_compiled *c = gdt__hand_compiled_alloc(sizeof(gdt_compiled));
    if (!c)
        return NULL;
    c->facts = *f;
    c->config = &configs[config_index(NULL, p, NULL, 0)];
    gdt__gemm_tma_init(&c->tma, "gemm.hand", f, &c->config->k);
    return c;
}

GDT__HAND_BUILD(check_support, compiled_new, load, destroy)

static size_t workspace_size(const gdt_compiled *c) { return c->tma.ws_bytes; }

/* One launch on the caller's stream, split-K reduction included, so a
 * timing of execute holds the whole GEMM. */
static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t ws_bytes,
                          void *stream, gdt_error *e)
{
    void *args[GDT_GEMM_TMA_NARGS];
    gdt_status st = gdt__gemm_tma_bind(&c->tma, &c->facts, ops, &ws, ws_bytes, args, e);
    if (st != GDT_STATUS_OK)
        return st;
    c->cfg.hStream = (CUstream)stream;
    GDT_CHECK_CU(e, c->tma.cu->cuLaunchKernelEx(&c->cfg, c->fn, args, NULL));
    return GDT_STATUS_OK;
}

static int fixed_plans(const gdt_engine_slot *slot, const gdt_facts *f, gdt_plan_id *out, int cap)
{
    if (cap < NCONFIGS)
        return 0;
    return gdt__hand_gemm_plans(f, gdt_engine_id(slot->family, slot->slot), out);
}

GDT__HAND_OPS(gdt__hand_gemm_ops);
