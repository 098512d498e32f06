/* The host side of the Hopper attention forward (kernels/gdt_attn_fwd_sm90.cuh),
 * one copy for both engines that launch it: the hand engine's sdpa_fwd.hand
 * (engines/hand/hand_attn.c, nvcc-built cubin) and the NVRTC attention
 * forward's PIPE=1 rows (engines/nvrtc/tmpl_attention.c).  The one
 * configuration, its shared memory, what the kernel supports (the checks
 * of sdpa_fwd.hand's check_support, less its knobs), the parameters and
 * head sections, the Q, K, V tensor maps, the grid and the kernel's
 * arguments.  Private to libgdtune. */
#ifndef GDT_ATTN_FWD_TMA_H
#define GDT_ATTN_FWD_TMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdt_cuda.h"
#include "gdt_util.h"
#include "hand/hand_common.h"

/* What kernels/gdt_attn_fwd_sm90.cuh is compiled for: keep the two in step.
 * A producer warpgroup and two consumer warpgroups (12 warps, 128 query
 * rows a tile: the attention rows' PIPE=1 and sdpa_fwd.hand's plan knobs);
 * MMA=2 is the attention rows' word for S of block j+1 issued beside P V
 * of block j; the consumer warpgroups also take turns (ping-pong).  At d64
 * sdpa_fwd.hand also has a configuration of three consumers (WIDE: 16
 * warps, 192 query rows a tile, TILE_M=192); each consumer has 64 rows. */
enum {
    GDT_ATTN_FWD_TMA_BLOCK_M = 128,
    GDT_ATTN_FWD_TMA_BLOCK_N = 128,
    GDT_ATTN_FWD_TMA_BLOCK_N_WIDE = 176, /* what an attention row may bind with two consumers (AF90_BLOCK_N) */
    GDT_ATTN_FWD_TMA_STAGES = 2,     /* the K and V rings' stages, sdpa_fwd.hand's */
    GDT_ATTN_FWD_TMA_STAGES_MAX = 3, /* what an attention row may bind (AF90_STAGES) */
    GDT_ATTN_FWD_TMA_WARPS = 12,
    GDT_ATTN_FWD_TMA_MMA = 2,
    GDT_ATTN_FWD_TMA_COUNTERS = 2, /* the tile scheduler's: tiles fetched, CTAs done */
    GDT_ATTN_FWD_TMA_CONSUMERS = 2, /* consumer warpgroups of the configuration above */
    GDT_ATTN_FWD_TMA_WIDE = 3,      /* consumer warpgroups of the d64 one */
};

/* Mirrors struct gdt_hand_attn_params in kernels/gdt_attn_fwd_sm90.cuh. */
typedef struct gdt_attn_fwd_tma_params {
    void *o;
    float *lse;
    unsigned *sched; /* the plan's GDT_ATTN_FWD_TMA_COUNTERS counters (device memory, load) */
    long long o_s[3];
    int s_q, s_kv, h_q, group;
    int causal;
    float scale_log2;
    int section;
    int heads, tiles; /* b * h_q, query tiles per head */
} gdt_attn_fwd_tma_params;

/* A built plan's launch state.  maps come first for their 64-byte
 * alignment: the holder allocates this at a 128-byte boundary. */
typedef struct gdt_attn_fwd_tma {
    CUtensorMap maps[3]; /* Q, K, V */
    const void *bound[3]; /* the pointers the maps describe */
    gdt__hand_attn_map geo[3];
    gdt_attn_fwd_tma_params params;
    int consumers; /* consumer warpgroups: GDT_ATTN_FWD_TMA_CONSUMERS or _WIDE */
    int stages;    /* the K and V rings': GDT_ATTN_FWD_TMA_STAGES .. _STAGES_MAX */
    int block_n;   /* keys a block: GDT_ATTN_FWD_TMA_BLOCK_N or _BLOCK_N_WIDE */
    int cluster;   /* query tiles of one head a cluster walks together: 1 or 2 (AF90_CLUSTER) */
    CUlaunchAttribute attrs[1]; /* a cluster of two's dimension */
    int threads, smem_bytes; /* the launch's block and dynamic shared memory */
    gdt_dtype dtype;
    const gdt_cu_api *cu;
    const char *who; /* the slot, for messages */
} gdt_attn_fwd_tma;

/* What sdpa_fwd.hand's check_support takes (engines/hand/hand_common.h):
 * the family, maps, shared memory, sizes and the hand engine's plan. */
extern const gdt__hand_attn_spec gdt__attn_fwd_tma_spec;

/* Dynamic shared memory at head dim d with `consumers` consumer
 * warpgroups, rings of `stages` and key blocks of block_n: Q (64 rows a
 * consumer x d), the stages of K and of V (block_n rows x d each), the
 * barriers and the tile slot (16 + 32 stages + 4 of 128 bytes), and 1024
 * bytes of slack to align the swizzle atoms. */
int gdt__attn_fwd_tma_smem_bytes(int64_t d, int consumers, int stages, int block_n);

/* The most consumer warpgroups sdpa_fwd.hand runs for s (its shared-memory
 * check): GDT_ATTN_FWD_TMA_WIDE at d64 (192-row tiles, FlashAttention-3's
 * at d64; the slot also runs two there), GDT_ATTN_FWD_TMA_CONSUMERS at
 * d128 (three consumers there would need more than their 160 registers). */
int gdt__attn_fwd_tma_hand_consumers(const gdt_sdpa_desc *s);

/* Whether the kernel runs f exactly (target, dtype, head dim, shared
 * memory, 32-bit sizes, what TMA describes), or why not: sdpa_fwd.hand's
 * checks but its plan's. */
bool gdt__attn_fwd_tma_supported(const gdt_facts *f, char *why, size_t n);

/* For a problem gdt__attn_fwd_tma_supported accepted, launched with
 * `consumers` consumer warpgroups (the entry's, GDT_ATTN_FWD_TMA_CONSUMERS
 * or, at d64, _WIDE), rings of `stages` (the entry's AF90_STAGES), key
 * blocks of block_n (its AF90_BLOCK_N) and clusters of `cluster` query
 * tiles (its AF90_CLUSTER: 2 walks pairs of a head's tiles, tiles then
 * counting pairs): the maps' geometry, the parameters (query tiles of 64 x
 * consumers rows), the block and shared memory.  who: the slot's name, for
 * messages. */
void gdt__attn_fwd_tma_init(gdt_attn_fwd_tma *t, const char *who, const gdt_facts *f, int consumers,
                            int stages, int block_n, int cluster);

/* After the module's load: fn's shared memory (t's), cfg's persistent grid
 * (gdt__attn_fwd_tma_grid over this device's SMs and fn's CTAs per SM),
 * block and shared memory, and the tile scheduler's counters in
 * params.sched: device memory the plan owns, zeroed once here
 * (engines/gdt_plan_counters.h); the kernel's last CTA sets them back to
 * zero, so they are zero at each launch. */
gdt_status gdt__attn_fwd_tma_load(gdt_attn_fwd_tma *t, const gdt_cu_api *cu, CUfunction fn,
                                  CUlaunchConfig *cfg, gdt_error *e);

/* The persistent grid's CTAs: one per tile (params' heads x tiles) up to
 * as many as are resident at once, sms x per_sm; each CTA takes its next
 * tile from the plan's counter as it frees up. */
unsigned gdt__attn_fwd_tma_grid(const gdt_attn_fwd_tma_params *p, int sms, int per_sm);

/* Frees the counters. */
void gdt__attn_fwd_tma_release(gdt_attn_fwd_tma *t);

/* Before a launch: the operands and their 16-byte alignment, re-encoding
 * a map whose pointer changed (boxes of 64 elements of d by block_n rows, Q's
 * by 64 x consumers rows: one tile); then the kernel's four arguments into
 * args (pointing into t). */
gdt_status gdt__attn_fwd_tma_bind(gdt_attn_fwd_tma *t, const gdt_facts *f, const gdt_operands *ops,
                                  void *args[4], gdt_error *e);

#endif
