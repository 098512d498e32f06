/* What the hand engine's slots (engines/hand/hand_engine.c, hand_attn.c,
 * hand_attn_bwd.c) share: the build skeleton, the cubin's module, the
 * compiled plan's allocation and release, the target and knob checks
 * and, for the two attention slots, the [b, h, s, d] maps and their
 * checks (the tensor-map encoder is engines/gdt_tma.h's).  Each slot defines its own struct gdt_compiled;
 * these take its parts as arguments.  Private to engines/hand, and to
 * engines/attn_fwd_tma.c and attn_bwd_tma.c, the attention forward's and
 * backward's host sides that the NVRTC engine's PIPE=1 rows share with
 * sdpa_fwd.hand and sdpa_bwd.hand. */
#ifndef GDT_HAND_COMMON_H
#define GDT_HAND_COMMON_H

#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_tma.h"
#include "gdt_util.h"

/* The stages build runs, the slot's own. */
typedef struct gdt__hand_stages {
    gdt_status (*check_support)(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                                gdt_error *e);
    gdt_compiled *(*create)(const gdt_facts *f, const gdt_plan_id *p); /* NULL: out of memory */
    gdt_status (*load)(gdt_compiled *c, gdt_error *e); /* build times it */
    void (*destroy)(gdt_compiled *c);
} gdt__hand_stages;

/* The engine ops' build: check_support, then (unless compile_only) create
 * and load (timed into info->load_seconds), destroying the plan when load
 * fails. */
gdt_status gdt__hand_build(const gdt__hand_stages *k, const gdt_engine_slot *s, const gdt_facts *f,
                           const gdt_plan_id *p, const gdt_build_opts *o, gdt_compiled **out,
                           gdt_build_info *info, gdt_error *e);

/* Defines a slot's stages and its ops' `build`: gdt__hand_build over them. */
#define GDT__HAND_BUILD(check_support, create, load, destroy)                                      \
    static const gdt__hand_stages stages = {check_support, create, load, destroy};                \
    static gdt_status build(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,    \
                            const gdt_build_opts *o, gdt_compiled **out, gdt_build_info *info,      \
                            gdt_error *e)                                                           \
    {                                                                                               \
        return gdt__hand_build(&stages, s, f, p, o, out, info, e);                                  \
    }

/* The knobs of an attention slot's one configuration, TILE_M, TILE_N,
 * STAGES, WARPS and MMA, from its host side's constants P##_BLOCK_M,
 * P##_BLOCK_N, P##_STAGES, P##_WARPS and P##_MMA (P: GDT_ATTN_FWD_TMA or
 * GDT_ATTN_BWD_TMA, engines/gdt_attn_fwd_tma.h and gdt_attn_bwd_tma.h). */
#define GDT__HAND_ATTN_KNOBS(P)                                                                    \
    {GDT_KNOB_TILE_M, P##_BLOCK_M}, {GDT_KNOB_TILE_N, P##_BLOCK_N}, {GDT_KNOB_STAGES, P##_STAGES}, \
        {GDT_KNOB_WARPS, P##_WARPS}, {GDT_KNOB_MMA, P##_MMA}

/* Defines an attention slot's destroy, its create (the plan's facts, then
 * init(&c->t, slot, f): gdt__attn_fwd_tma_init or gdt__attn_bwd_tma_init)
 * and its build (GDT__HAND_BUILD over the slot's check_support and load),
 * for a struct gdt_compiled that holds the host side t, facts and mod. */
/* The same, create then running take(c, p) (a function-like macro or a
 * function): a slot of several fixed configurations keeps the plan's. */
#define GDT__HAND_ATTN_BUILD_TAKE(slot, init, take)                                                \
    static void destroy(gdt_compiled *c)                                                            \
    {                                                                                               \
        if (c)                                                                                      \
            gdt__hand_compiled_free(c, c->t.cu, c->mod);                                            \
    }                                                                                               \
    static gdt_compiled *compiled_new(const gdt_facts *f, const gdt_plan_id *p)                     \
    {                                                                                               \
        gdt_compiled *c = gdt__hand_compiled_alloc(sizeof(gdt_compiled));                          \
        if (!c)                                                                                     \
            return NULL;                                                                            \
        c->facts = *f;                                                                              \
        init(&c->t, slot, f);                                                                       \
        take(c, p);                                                                                 \
        return c;                                                                                   \
    }                                                                                               \
    GDT__HAND_BUILD(check_support, compiled_new, load, destroy)

/* Defines a slot's ops table `name` over the slot's check_support, build
 * (GDT__HAND_BUILD), workspace_size, execute, destroy and fixed_plans: every
 * hand slot has all six under these names. */
#define GDT__HAND_OPS(name) const gdt_engine_ops name = {GDT_ENGINE_OPS_NAMED, .fixed_plans = fixed_plans}

/* A zeroed compiled plan of `size` bytes at a 128-byte boundary (what
 * CUtensorMap wants, more than malloc promises); NULL without memory. */
gdt_compiled *gdt__hand_compiled_alloc(size_t size);
/* Unloads mod (when loaded) and frees c. */
void gdt__hand_compiled_free(gdt_compiled *c, const gdt_cu_api *cu, CUmodule mod);

/* Checks that `slot` has the embedded cubin `path`, resolves the driver API
 * into *cu, makes the runtime's primary context current and loads the cubin
 * into *mod. */
gdt_status gdt__hand_module(const char *slot, const char *path, const gdt_cu_api **cu, CUmodule *mod,
                            gdt_error *e);

/* The device and dtype a cubin serves: `family`, sm_90, bf16 or fp16, head
 * dim 64 or 128 when head_dims, and `smem` bytes of shared memory. */
bool gdt__hand_target_ok(const gdt_facts *f, gdt_family family, bool head_dims, int smem, char *why,
                         size_t n);

/* The knobs of a fixed-configuration slot's one plan. */
void gdt__hand_fixed_plan(const gdt_knob *knobs, size_t nknobs, int64_t engine_id, gdt_plan_id *out);
/* Which of a slot's n fixed configurations (config(i, ...) names
 * configuration i) the plan names: 0 for a plan without knobs; -1 for a
 * knob set that is none of them, with why (unless NULL) naming s, the plan
 * and every configuration. */
int gdt__hand_config_of(const gdt_engine_slot *s, const gdt_plan_id *p, int n,
                        void (*config)(int i, int64_t engine_id, gdt_plan_id *out), char *why,
                        size_t nwhy);
/* One attention tensor map over [b, h, s, d]: dims d first, three byte
 * strides. */
typedef struct gdt__hand_attn_map {
    cuuint64_t dims[4], strides[3];
} gdt__hand_attn_map;

/* The maps of Q, K, V and, for nmaps 4, one more over O's strides (dO), or
 * why TMA cannot describe one.  Every one of Q, K, V, O needs a unit d
 * stride; o_pieces: O is written in 16-byte pieces and needs strides of 8 elements. */
bool gdt__hand_attn_layout(const gdt_sdpa_desc *s, int nmaps, bool o_pieces, gdt__hand_attn_map *geo,
                           char *why, size_t n);

/* An attention slot's check_support, from what differs between them. */
typedef struct gdt__hand_attn_spec {
    gdt_family family;
    int nmaps;     /* as gdt__hand_attn_layout takes them */
    bool o_pieces; /* as gdt__hand_attn_layout takes it */
    int (*smem_bytes)(int64_t d);
    bool (*sizes_ok)(const gdt_sdpa_desc *s, char *why, size_t n);
    int configs; /* the slot's fixed configurations, config_plan(i, ...) names i */
    void (*config_plan)(int i, int64_t engine_id, gdt_plan_id *out);
} gdt__hand_attn_spec;

/* Whether the slot's kernel runs f (target, sizes, maps), or why not: its
 * check_support less the plan's knobs (also the NVRTC attention rows'
 * PIPE=1 rule, engines/attn_fwd_tma.c and attn_bwd_tma.c). */
bool gdt__hand_attn_ok(const gdt__hand_attn_spec *k, const gdt_facts *f, char *why, size_t n);
/* The slot's check_support less rules of its own: f (gdt__hand_attn_ok),
 * then the configuration p names into *config (gdt__hand_config_of). */
gdt_status gdt__hand_attn_check(const gdt__hand_attn_spec *k, const gdt_engine_slot *s,
                                const gdt_facts *f, const gdt_plan_id *p, int *config, gdt_error *e);
/* The maps of f's tensors as k lays them out into geo: a plan's, which
 * check_support accepted. */
void gdt__hand_attn_geometry(const gdt__hand_attn_spec *k, const gdt_facts *f, gdt__hand_attn_map *geo);

#endif
