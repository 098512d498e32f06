/* The hand engine's attention forward (slot sdpa_fwd.hand):
 * kernels/hand/attn_fwd_sm90.cu (the entries of kernels/gdt_attn_fwd_sm90.cuh),
 * built by nvcc for sm_90a and embedded as a cubin.  Two fixed
 * configurations (gdt_hand.h): two consumer warpgroups and 128-row tiles,
 * and at d64 also three and 192-row tiles (TILE_M=192, WARPS=16), so a
 * sweep measures both and the tables choose per shape;
 * check_support declines, with the reason, every
 * problem the kernel cannot run exactly: another
 * arch, dtype, head dim or configuration, a tensor without a unit stride
 * along d, strides TMA cannot describe (16-byte multiples below 2^40) and
 * sizes past the kernel's 32-bit indexing.  build loads the cubin; execute
 * encodes the Q, K and V tensor maps (again only when the pointers change)
 * and launches the persistent grid, whose CTAs take the (batch, query head,
 * 128 query rows) tiles, in sections of a few heads, from a counter the
 * plan owns (allocated by build, freed by destroy) as they free up.  The host side of all that is engines/attn_fwd_tma.c,
 * which the NVRTC attention forward's PIPE=1 rows launch the same kernel
 * with. */
#include <inttypes.h>
#include <stdio.h>

#include "gdt_attn_fwd_tma.h"
#include "gdt_hand.h"
#include "hand_common.h"

static const gdt_knob attn_knobs[] = {GDT__HAND_ATTN_KNOBS(GDT_ATTN_FWD_TMA)};

struct gdt_compiled {
    gdt_attn_fwd_tma t; /* first, for its maps' 128-byte alignment */
    gdt_facts facts;
    int config; /* 0, or 1: three consumer warpgroups, 192-row tiles (d64) */
    CUmodule mod;
    CUfunction fn;
    CUlaunchConfig cfg;
};

void gdt__hand_attn_fwd_config_plan(int i, int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_fixed_plan(attn_knobs, sizeof attn_knobs / sizeof attn_knobs[0], engine_id, out);
    if (i == 1) {
        gdt_plan_id_set_knob(out, GDT_KNOB_TILE_M, 64 * GDT_ATTN_FWD_TMA_WIDE);
        gdt_plan_id_set_knob(out, GDT_KNOB_WARPS, 4 * (GDT_ATTN_FWD_TMA_WIDE + 1));
    }
}

void gdt__hand_attn_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_attn_fwd_config_plan(0, engine_id, out);
}

int gdt__hand_attn_fwd_consumers(int config)
{
    return config == 1 ? GDT_ATTN_FWD_TMA_WIDE : GDT_ATTN_FWD_TMA_CONSUMERS;
}

/* The problem first, then the knobs: one of the two configurations, the
 * second at d64 only (its entries are built for d64). */
static gdt_status check_support(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                                gdt_error *e)
{
    int config;
    gdt_status st = gdt__hand_attn_check(&gdt__attn_fwd_tma_spec, s, f, p, &config, e);
    if (st == GDT_STATUS_OK && config == 1 && f->problem.u.sdpa.d != 64)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "%s: TILE_M=192 (three consumer warpgroups) is built for d=64, got d=%" PRId64,
                             s->name, f->problem.u.sdpa.d);
    return st;
}

const char *gdt__hand_attn_entry(const gdt_facts *f, int consumers, char *buf, size_t n)
{
    snprintf(buf, n, "gdt_hand_attn_fwd_%s_d%" PRId64 "%s", f->dtype == GDT_DTYPE_FP16 ? "fp16" : "bf16",
             f->problem.u.sdpa.d, consumers == GDT_ATTN_FWD_TMA_WIDE ? "_m192" : "");
    return buf;
}

static gdt_status load(gdt_compiled *c, gdt_error *e)
{
    const gdt_cu_api *cu = NULL;
    char name[64];
    gdt_status st = gdt__hand_module("sdpa_fwd.hand", GDT_HAND_ATTN_CUBIN, &cu, &c->mod, e);
    c->t.cu = cu;
    if (st != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CU(e, cu->cuModuleGetFunction(&c->fn, c->mod,
                                            gdt__hand_attn_entry(&c->facts, c->t.consumers, name, sizeof name)));
    return gdt__attn_fwd_tma_load(&c->t, cu, c->fn, &c->cfg, e);
}

static void destroy(gdt_compiled *c)
{
    if (!c)
        return;
    gdt__attn_fwd_tma_release(&c->t);
    gdt__hand_compiled_free(c, c->t.cu, c->mod);
}

/* For a plan check_support accepted: its configuration's consumers. */
static gdt_compiled *compiled_new(const gdt_facts *f, const gdt_plan_id *p)
{
    gdt_compiled *c = gdt__hand_compiled_alloc(sizeof(gdt_compiled));
    if (!c)
        return NULL;
    c->facts = *f;
    c->config = gdt__hand_config_of(NULL, p, GDT_HAND_ATTN_FWD_CONFIGS, gdt__hand_attn_fwd_config_plan, NULL, 0);
    gdt__attn_fwd_tma_init(&c->t, "sdpa_fwd.hand", f, gdt__hand_attn_fwd_consumers(c->config),
                           GDT_ATTN_FWD_TMA_STAGES, GDT_ATTN_FWD_TMA_BLOCK_N, 1);
    return c;
}

GDT__HAND_BUILD(check_support, compiled_new, load, destroy)

/* None: the tile scheduler's counters are the plan's (engines/attn_fwd_tma.c). */
static size_t workspace_size(const gdt_compiled *c)
{
    (void)c;
    return 0;
}

static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t ws_bytes,
                          void *stream, gdt_error *e)
{
    void *args[4];
    (void)ws, (void)ws_bytes;
    gdt_status st = gdt__attn_fwd_tma_bind(&c->t, &c->facts, ops, args, e);
    if (st != GDT_STATUS_OK)
        return st;
    c->cfg.hStream = (CUstream)stream;
    GDT_CHECK_CU(e, c->t.cu->cuLaunchKernelEx(&c->cfg, c->fn, args, NULL));
    return GDT_STATUS_OK;
}

/* At d64 both configurations, the 192-row tiles first (the untimed order:
 * faster in 10 of the 12 d64 cells of an H100's default sweep, slower at
 * s512 causal); elsewhere the one. */
static int fixed_plans(const gdt_engine_slot *slot, const gdt_facts *f, gdt_plan_id *out, int cap)
{
    int64_t id = gdt_engine_id(slot->family, slot->slot);
    int n = f && f->problem.u.sdpa.d == 64 ? 2 : 1;
    if (cap < n)
        return 0;
    for (int i = 0; i < n; i++)
        gdt__hand_attn_fwd_config_plan(n - 1 - i, id, &out[i]);
    return n;
}

GDT__HAND_OPS(gdt__hand_attn_ops);
