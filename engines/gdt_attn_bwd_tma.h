/* The host side of the Hopper attention backward (kernels/gdt_attn_bwd_sm90.cuh),
 * one copy for both engines that launch it: the hand engine's sdpa_bwd.hand
 * (engines/hand/hand_attn_bwd.c, nvcc-built cubin) and the NVRTC attention
 * backward's PIPE=1 rows (engines/nvrtc/tmpl_attention.c).  The one
 * configuration, its shared memory and workspace, what the kernels support
 * (the checks of sdpa_bwd.hand's check_support, less its knobs), the
 * parameters and sections, the Q, K, V and dO tensor maps, the three
 * kernels' launches (main and post by programmatic dependent launch) and
 * their arguments.  Private to libgdtune. */
#ifndef GDT_ATTN_BWD_TMA_H
#define GDT_ATTN_BWD_TMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdt_cuda.h"
#include "gdt_util.h"
#include "hand/hand_common.h"

/* What kernels/gdt_attn_bwd_sm90.cuh is compiled for: keep the two in step.
 * A producer warpgroup and two consumer warpgroups (12 warps) over 128 key
 * rows, 64-row query blocks in a ring of two stages; MMA=1 is the
 * attention rows' word for the wgmma path.  Three kernels in launch order:
 * pre (0), main (1), post (2). */
enum {
    GDT_ATTN_BWD_TMA_BLOCK_M = 64,
    GDT_ATTN_BWD_TMA_BLOCK_N = 128,
    GDT_ATTN_BWD_TMA_STAGES = 2,
    GDT_ATTN_BWD_TMA_WARPS = 12,
    GDT_ATTN_BWD_TMA_MMA = 1,
    GDT_ATTN_BWD_TMA_KERNELS = 3,
    GDT_ATTN_BWD_TMA_MAIN = 1,
};

/* Mirrors struct gdt_hand_attn_bwd_params in kernels/gdt_attn_bwd_sm90.cuh. */
typedef struct gdt_attn_bwd_tma_params {
    const void *o, *dout;
    const float *lse;
    void *dq, *dk, *dv;
    float *lse2, *dd, *dq_acc;
    long long q_s[3], k_s[3], v_s[3], o_s[3];
    int b, h_q, h_kv, group, s_q, s_kv, s_pad, causal;
    float scale, scale_log2;
    int section;
} gdt_attn_bwd_tma_params;

enum { GDT_ATTN_BWD_TMA_MAP_Q, GDT_ATTN_BWD_TMA_MAP_K, GDT_ATTN_BWD_TMA_MAP_V,
       GDT_ATTN_BWD_TMA_MAP_DO, GDT_ATTN_BWD_TMA_NMAPS };

/* A built plan's launch state, one for its three kernels.  maps come first
 * for their 64-byte alignment: the holder allocates this at a 128-byte
 * boundary. */
typedef struct gdt_attn_bwd_tma {
    CUtensorMap maps[GDT_ATTN_BWD_TMA_NMAPS]; /* Q, K, V, dO */
    const void *bound[GDT_ATTN_BWD_TMA_NMAPS]; /* the pointers the maps describe */
    gdt__hand_attn_map geo[GDT_ATTN_BWD_TMA_NMAPS];
    gdt_attn_bwd_tma_params params;
    CUlaunchAttribute pdl; /* main's and post's launch attribute */
    gdt_dtype dtype;
    const gdt_cu_api *cu;
    const char *who; /* the slot, for messages */
    bool det; /* the deterministic kernels (DETERMINISTIC=1): false after init, the caller sets it */
} gdt_attn_bwd_tma;

/* What sdpa_bwd.hand's check_support takes (engines/hand/hand_common.h):
 * the family, maps, shared memory, sizes and the hand engine's plan. */
extern const gdt__hand_attn_spec gdt__attn_bwd_tma_spec;

/* The main kernel's dynamic shared memory at head dim d: K and V (128 rows
 * x d), two stages of Q and dO (64 rows), two 128 x 64 dS^T tiles, the two
 * consumers' fp32 dQ slices (64 x 64 each), two stages of LSE and D rows
 * (512 bytes), the barriers and 1024 bytes of slack to align the swizzle
 * atoms.  pre and post take none. */
int gdt__attn_bwd_tma_smem_bytes(int64_t d);

/* Whether the kernels run f exactly (target, dtype, head dim, shared
 * memory, 32-bit sizes, what TMA describes), or why not: sdpa_bwd.hand's
 * checks but its plan's. */
bool gdt__attn_bwd_tma_supported(const gdt_facts *f, char *why, size_t n);

/* The workspace: the LSE times log2 e and D, [b h_q][s_pad] fp32 each, then
 * the blocked fp32 dQ accumulator, s_pad * d a (batch, query head), and
 * with det (the deterministic kernels) dQ's semaphores after it, one int32
 * per 64 x 64 chunk of the accumulator. */
size_t gdt__attn_bwd_tma_workspace(const gdt_sdpa_desc *s, bool det);

/* Kernel i's grid, block and dynamic shared memory (cfg zeroed first, no
 * attributes): pre over the padded query rows, main over b*h_kv x key
 * blocks, post over the row pairs. */
void gdt__attn_bwd_tma_geometry(const gdt_sdpa_desc *s, int i, CUlaunchConfig *cfg);

/* For a problem gdt__attn_bwd_tma_supported accepted: the maps' geometry
 * and the parameters, det false.  who: the slot's name, for messages. */
void gdt__attn_bwd_tma_init(gdt_attn_bwd_tma *t, const char *who, const gdt_facts *f);

/* After the module's load, for kernel i (fn): main's shared memory
 * attribute, cfg's geometry (gdt__attn_bwd_tma_geometry) and, for main
 * and post, the programmatic dependent launch (pointing into t). */
gdt_status gdt__attn_bwd_tma_load(gdt_attn_bwd_tma *t, const gdt_cu_api *cu, int i, CUfunction fn,
                                  const gdt_facts *f, CUlaunchConfig *cfg, gdt_error *e);

/* Before the three launches: the operands, every pointer's 16-byte
 * alignment and the workspace (present, large enough, aligned), re-encoding
 * a map whose pointer changed, and the parameters' pointers. */
gdt_status gdt__attn_bwd_tma_bind(gdt_attn_bwd_tma *t, const gdt_facts *f, const gdt_operands *ops,
                                  void *ws, size_t ws_bytes, gdt_error *e);

/* Kernel i's arguments after a bind (pointing into t): main's five (the
 * four maps, the parameters), pre's and post's one; returns the count. */
int gdt__attn_bwd_tma_args(gdt_attn_bwd_tma *t, int i, void *args[5]);

#endif
