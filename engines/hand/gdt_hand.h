/* The `hand` engine kind: kernels written by hand for one configuration
 * each, compiled by nvcc at build time and embedded in libgdtune
 * (engines/hand/README.md).  Private to libgdtune, its harness and tests. */
#ifndef GDT_HAND_H
#define GDT_HAND_H

#include "gdtune/engine.h"

/* The embedded cubin of kernels/hand/gemm_sm90.cu (sm_90a). */
#define GDT_HAND_GEMM_CUBIN "kernels/hand/gemm_sm90.cubin"

/* The fixed configuration of gemm.hand as knobs: TILE_M, TILE_N, TILEK,
 * STAGES, GROUP_M (the raster's band of tile rows). */
void gdt__hand_gemm_plan(int64_t engine_id, gdt_plan_id *out);

/* The embedded cubin of kernels/hand/attn_fwd_sm90.cu (sm_90a). */
#define GDT_HAND_ATTN_CUBIN "kernels/hand/attn_fwd_sm90.cubin"

/* engines/hand/hand_attn.c: the handwritten attention forward
 * (sdpa_fwd.hand), one fixed configuration of the nvcc-built
 * kernels/hand/attn_fwd_sm90.cu. */
extern const gdt_engine_ops gdt__hand_attn_ops;

/* The fixed configuration of sdpa_fwd.hand as knobs: TILE_M, TILE_N
 * (query and key rows per block), STAGES (of the K and V rings), WARPS and
 * MMA (2: S of the next block issued beside P V, as in the templates). */
void gdt__hand_attn_plan(int64_t engine_id, gdt_plan_id *out);

#endif
