/* What the contraction row rules (engines/rows_contraction.c) and the GEMM
 * template (engines/nvrtc/tmpl_gemm.c) must agree on: the column order, the
 * operand layouts the kernel distinguishes, and the kernel's shared memory.
 * Private to libgdtune. */
#ifndef GDT_GEMM_H
#define GDT_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "gdt_gemm_tma.h"
#include "gdtune/gdtune.h"

/* Columns of a contraction row, in schema order. */
enum {
    GDT_GEMM_BM,
    GDT_GEMM_BN,
    GDT_GEMM_BK,
    GDT_GEMM_WARPS_M,
    GDT_GEMM_WARPS_N,
    GDT_GEMM_STAGES,
    GDT_GEMM_GROUP_M,
    GDT_GEMM_MMA,
    /* Optional (rows of before end at MMA): the Hopper TMA pipeline's. */
    GDT_GEMM_PIPE,
    GDT_GEMM_SPLIT_K,
    GDT_GEMM_CLUSTER_SHAPE,
    GDT_GEMM_REDUCTION_MODE,
    GDT_GEMM_SWAP_AB,
    GDT_GEMM_PINGPONG,
    GDT_GEMM_RASTER,
    GDT_GEMM_EPILOGUE,
    GDT_GEMM_NCOLS
};

/* PIPE's values: 0 the CTA-wide cp.async (MMA=0) or wgmma (MMA=1) kernel of
 * kernels/gemm.cuh, 1 the TMA producer, mbarrier ring and two consumer
 * warpgroups of kernels/gdt_gemm_sm90.cuh. */
enum { GDT_GEMM_PIPE_CTA = 0, GDT_GEMM_PIPE_TMA = 1 };
/* CLUSTER_SHAPE's values, cuBLASLt's ids as in every engine: 1x1x1 and
 * 1x2x1 (two CTAs along N sharing A by multicast). */
enum { GDT_GEMM_CLUSTER_1X1X1 = 2, GDT_GEMM_CLUSTER_1X2X1 = 5 };
/* REDUCTION_MODE's values for the TMA pipeline's split-K: 0 through the
 * workspace, 1 the two splits of a tile as a cluster summed through
 * distributed shared memory, 2 stream-K (kernels/gdt_streamk.cuh: whole
 * tiles, then equal runs of K tiles a CTA, a tile cut across CTAs summed
 * through the workspace) (gemm.hand's meaning of the knob). */
enum { GDT_GEMM_REDUCE_WORKSPACE = 0, GDT_GEMM_REDUCE_DSMEM = 1, GDT_GEMM_REDUCE_STREAMK = 2 };

/* SWAP_AB's values for the TMA pipeline: 0 C = A . B, 1 C^T = B^T . A^T
 * (BM rows of M on the wgmma's N side, BN of N on its M side, 64 a
 * consumer warpgroup). */
enum { GDT_GEMM_SWAP_NONE = 0, GDT_GEMM_SWAP_AB_ON = 1 };

/* PINGPONG's values for the TMA pipeline: 0 the cooperative consumers
 * (both on one 128-row tile, 64 rows each), 1 the ping-pong ones (each
 * owns whole 128 x BN tiles, the two taking turns at the tensor cores). */
enum { GDT_GEMM_COOPERATIVE = 0, GDT_GEMM_PINGPONG_ON = 1 };

/* RASTER's values for the TMA pipeline's persistent walk
 * (kernels/gdt_raster.cuh): 0 bands of GROUP_M tile rows walked column by
 * column (gemm.hand's), 1 bands of GROUP_M tile columns walked row by row. */
enum { GDT_GEMM_RASTER_M = 0, GDT_GEMM_RASTER_N = 1 };

/* EPILOGUE's values for the TMA pipeline: 0 C through swizzled shared
 * memory and a TMA store (gemm.hand's), 1 straight from the accumulator
 * registers to global memory in 16-byte pieces (epilogue_regs). */
enum { GDT_GEMM_EPILOGUE_TMA = 0, GDT_GEMM_EPILOGUE_REGS = 1 };

/* How kernels/gemm.cuh sees the problem's operands (its -D layout flags). */
typedef struct gdt_gemm_layout {
    bool a_kmajor, b_kmajor; /* K is the unit-stride axis */
    bool a_vec, b_vec;       /* 16-byte chunks along the unit-stride axis stay aligned and
                                never straddle the operand's edge */
    bool c_vec2;             /* C rows unit-stride with even extents: paired stores */
} gdt_gemm_layout;

void gdt__gemm_layout(const gdt_facts *f, gdt_gemm_layout *out);

/* The TMA pipeline's configuration a bound PIPE=1 row names. */
void gdt__gemm_tma_config_of(const int64_t *row, gdt_gemm_tma_config *out);

/* Threads per CTA of a bound row. */
int64_t gdt__gemm_threads(const int64_t *row);

/* Dynamic shared memory (bytes) the kernel asks for with a bound row. */
int64_t gdt__gemm_smem_bytes(const int64_t *row, const gdt_facts *f);

#endif
