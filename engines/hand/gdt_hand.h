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

#endif
