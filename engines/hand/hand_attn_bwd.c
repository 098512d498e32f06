/* The hand engine's attention backward (slot sdpa_bwd.hand):
 * kernels/hand/attn_bwd_sm90.cu (the entries of kernels/gdt_attn_bwd_sm90.cuh),
 * built by nvcc for sm_90a and embedded as a cubin.  Three configurations
 * (the knobs below; the second adds PINGPONG=1: the main kernel whose
 * consumer warpgroups take turns, with the same pre and post; the third
 * DETERMINISTIC=1: pre and main kernels that add dQ in key-block order,
 * so dQ is the same bits every run, a larger workspace, and not listed for
 * the planner); check_support
 * declines, with the reason, every problem the
 * kernels cannot run exactly: another arch, dtype, head dim or
 * configuration, a tensor without a unit stride along d, strides TMA
 * cannot describe (16-byte multiples below 2^40) and sizes past the
 * kernels' 32-bit indexing.  build loads the cubin; execute encodes the Q,
 * K, V and dO tensor maps (again only when the pointers change) and
 * launches three kernels on the caller's stream: the preprocess (D, LSE
 * log2 e, dQ accumulator zeroed), the KV-block-parallel main kernel (its dQ
 * added into the accumulator from shared memory by one 16 KB bulk
 * reduction per 64-column chunk and query block, each consumer its own),
 * and the postprocess (dQ to the io dtype), the last two by programmatic
 * dependent launch.  The host side of all that is engines/attn_bwd_tma.c,
 * which the NVRTC attention backward's PIPE=1 rows launch the same kernels
 * with. */
#include <inttypes.h>
#include <stdio.h>

#include "gdt_attn_bwd_tma.h"
#include "gdt_hand.h"
#include "hand_common.h"

static const gdt_knob bwd_knobs[] = {GDT__HAND_ATTN_KNOBS(GDT_ATTN_BWD_TMA)};

struct gdt_compiled {
    gdt_attn_bwd_tma t; /* first, for its maps' 128-byte alignment */
    gdt_facts facts;
    int config; /* 0, 1: PINGPONG=1, or GDT_HAND_ATTN_BWD_DET: DETERMINISTIC=1 */
    CUmodule mod;
    CUfunction fn[GDT_ATTN_BWD_TMA_KERNELS]; /* pre, main, post */
    CUlaunchConfig cfg[GDT_ATTN_BWD_TMA_KERNELS];
};

void gdt__hand_attn_bwd_config_plan(int i, int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_fixed_plan(bwd_knobs, sizeof bwd_knobs / sizeof bwd_knobs[0], engine_id, out);
    if (i == 1)
        gdt_plan_id_set_knob(out, GDT_KNOB_PINGPONG, 1);
    if (i == GDT_HAND_ATTN_BWD_DET)
        gdt_plan_id_set_knob(out, GDT_KNOB_DETERMINISTIC, 1);
}

void gdt__hand_attn_bwd_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_attn_bwd_config_plan(0, engine_id, out);
}

/* The problem first, then the knobs: one of the two configurations. */
static gdt_status check_support(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                                gdt_error *e)
{
    int config;
    return gdt__hand_attn_check(&gdt__attn_bwd_tma_spec, s, f, p, &config, e);
}

/* gdt_hand_attn_bwd{_pre,,_post}_{bf16,fp16}_d{64,128}, loaded with their
 * launches; PINGPONG=1's main kernel is gdt_hand_attn_bwd_pp_*,
 * DETERMINISTIC=1's pre and main gdt_hand_attn_bwd_pre_det_* and
 * gdt_hand_attn_bwd_det_*. */
static gdt_status load(gdt_compiled *c, gdt_error *e)
{
    static const char *const mains[GDT_HAND_ATTN_BWD_CONFIGS] = {"", "_pp", "_det"};
    const char *const stage[GDT_ATTN_BWD_TMA_KERNELS] = {c->t.det ? "_pre_det" : "_pre", mains[c->config], "_post"};
    const char *dt = c->facts.dtype == GDT_DTYPE_FP16 ? "fp16" : "bf16";
    const gdt_cu_api *cu = NULL;
    char name[64];
    gdt_status st = gdt__hand_module("sdpa_bwd.hand", GDT_HAND_ATTN_BWD_CUBIN, &cu, &c->mod, e);
    c->t.cu = cu;
    for (int i = 0; i < GDT_ATTN_BWD_TMA_KERNELS && st == GDT_STATUS_OK; i++) {
        snprintf(name, sizeof name, "gdt_hand_attn_bwd%s_%s_d%" PRId64, stage[i], dt,
                 c->facts.problem.u.sdpa.d);
        GDT_CHECK_CU(e, cu->cuModuleGetFunction(&c->fn[i], c->mod, name));
        st = gdt__attn_bwd_tma_load(&c->t, cu, i, c->fn[i], &c->facts, &c->cfg[i], e);
    }
    return st;
}

/* The configuration check_support accepted, and with DETERMINISTIC=1 the
 * host side's deterministic workspace. */
static void take_config(gdt_compiled *c, const gdt_plan_id *p)
{
    c->config = gdt__hand_config_of(NULL, p, GDT_HAND_ATTN_BWD_CONFIGS, gdt__hand_attn_bwd_config_plan, NULL, 0);
    c->t.det = c->config == GDT_HAND_ATTN_BWD_DET;
}
GDT__HAND_ATTN_BUILD_TAKE("sdpa_bwd.hand", gdt__attn_bwd_tma_init, take_config)

static size_t workspace_size(const gdt_compiled *c)
{
    return gdt__attn_bwd_tma_workspace(&c->facts.problem.u.sdpa, c->t.det);
}

static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t ws_bytes,
                          void *stream, gdt_error *e)
{
    gdt_status st = gdt__attn_bwd_tma_bind(&c->t, &c->facts, ops, ws, ws_bytes, e);
    for (int i = 0; i < GDT_ATTN_BWD_TMA_KERNELS && st == GDT_STATUS_OK; i++) {
        void *args[5];
        gdt__attn_bwd_tma_args(&c->t, i, args);
        c->cfg[i].hStream = (CUstream)stream;
        GDT_CHECK_CU(e, c->t.cu->cuLaunchKernelEx(&c->cfg[i], c->fn[i], args, NULL));
    }
    return st;
}

/* The two configurations raced for speed, the in-phase one first (the
 * knobless name's); not DETERMINISTIC=1, the correctness-first one, which
 * the planner must never pick for speed: a user asks for it by name
 * (--plan 'sdpa_bwd.hand[..., DETERMINISTIC=1, ...]'). */
static int fixed_plans(const gdt_engine_slot *slot, const gdt_facts *f, gdt_plan_id *out, int cap)
{
    (void)f;
    if (cap < GDT_HAND_ATTN_BWD_LISTED)
        return 0;
    for (int i = 0; i < GDT_HAND_ATTN_BWD_LISTED; i++)
        gdt__hand_attn_bwd_config_plan(i, gdt_engine_id(slot->family, slot->slot), &out[i]);
    return GDT_HAND_ATTN_BWD_LISTED;
}

GDT__HAND_OPS(gdt__hand_attn_bwd_ops);
