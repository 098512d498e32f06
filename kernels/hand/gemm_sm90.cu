/* kernels/hand/gemm_sm90.cu: the handwritten Hopper GEMM of the `hand`
 * engine (engines/hand/hand_engine.c): the fixed configurations of
 * kernels/gdt_gemm_sm90.cuh, built by nvcc for sm_90a into a cubin that
 * libgdtune embeds (engines/hand/README.md).  The kernel is that header's;
 * this file only names its entries.  The same source, at the configuration
 * a row binds, is the NVRTC template's PIPE=1 form (kernels/gemm.cuh). */
#include "hand_common.cuh"

#include "gdt_gemm_sm90.cuh"

/* One entry per configuration, dtype and operand layout;
 * engines/hand/hand_engine.c names them (k: K-major, m: MN-major; A first).
 * The configuration: none for 128 x 256, n128 for 128 x 128, nBN_splitk
 * for 128 x BN split along K, with partials in ws and one arrival counter
 * per tile in counters (both unused by the others); a _sST suffix for a
 * ring of ST stages rather than 4; _c2 for a cluster of two CTAs along N
 * (grid x a multiple of 2, cluster dims (2, 1, 1), set by the launch);
 * nBN_splitk_dsmem for the two splits of a tile as a cluster of two CTAs
 * (the same launch; ws and counters unused). */
#define GDT_HAND_GEMM_LAYOUTS(prefix, bn, split, st, c)                                             \
    GDT_GEMM_SM90_ENTRY(prefix##bf16_kk, 0, 1, 1, bn, split, st, c)                                 \
    GDT_GEMM_SM90_ENTRY(prefix##bf16_km, 0, 1, 0, bn, split, st, c)                                 \
    GDT_GEMM_SM90_ENTRY(prefix##bf16_mk, 0, 0, 1, bn, split, st, c)                                 \
    GDT_GEMM_SM90_ENTRY(prefix##bf16_mm, 0, 0, 0, bn, split, st, c)                                 \
    GDT_GEMM_SM90_ENTRY(prefix##fp16_kk, 1, 1, 1, bn, split, st, c)                                 \
    GDT_GEMM_SM90_ENTRY(prefix##fp16_km, 1, 1, 0, bn, split, st, c)                                 \
    GDT_GEMM_SM90_ENTRY(prefix##fp16_mk, 1, 0, 1, bn, split, st, c)                                 \
    GDT_GEMM_SM90_ENTRY(prefix##fp16_mm, 1, 0, 0, bn, split, st, c)

GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_, 256, SPLIT_NONE, 4, false)
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n128_, 128, SPLIT_NONE, 4, false)
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n128_splitk_, 128, SPLIT_WS, 4, false)
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n192_splitk_, 192, SPLIT_WS, 4, false)
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n64_splitk_, 64, SPLIT_WS, 4, false)
/* The deeper rings (README: the small-M cells wait on loads, not on the
 * tensor cores): 6 stages of 128 x 128 (32 KB each) and 8 of 128 x 64
 * (24 KB each), as much as 227 KB of shared memory holds beside the
 * output buffers. */
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n128_s6_, 128, SPLIT_NONE, 6, false)
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n128_splitk_s6_, 128, SPLIT_WS, 6, false)
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n64_splitk_s8_, 64, SPLIT_WS, 8, false)
/* 128 x 256 in clusters of two CTAs along N sharing A by multicast: each
 * SM reads 24 KB of a stage's 48 KB from L2 instead of 32 (README). */
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_c2_, 256, SPLIT_NONE, 4, true)
/* 128 x 64 in two splits, 8 stages, the splits a cluster that sums through
 * distributed shared memory (pair_reduce): m = 128, n = k = 4096 without
 * the workspace's stores, fence, counter and reads (README). */
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n64_splitk_dsmem_s8_, 64, SPLIT_PAIR, 8, false)
/* The twins of two default PIPE=1 rows (README): 128 x 256 with a 3-stage
 * ring (181312 bytes of shared memory) and 128 x 64 unsplit with the
 * 8-stage ring of the split forms above (230544 bytes). */
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_s3_, 256, SPLIT_NONE, 3, false)
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n64_s8_, 64, SPLIT_NONE, 8, false)

/* Swap-AB for decode-sized M (README): the kernel runs C^T = B^T . A^T
 * with tn rows of M on the wgmma's N side and nc consumer warpgroups of 64
 * rows of N on its M side.  Names: swab_mTN for tn rows of M, _n128 for two
 * consumers (64 of N otherwise).  An MN-major A is the wgmma's B side in
 * 64-column boxes, so tn 32 and 16 have only the entries of A K-major
 * (_kk, _km); engines/gemm_tma.c declines the others. */
#define GDT_HAND_GEMM_SWAB_AK(prefix, tn, split, st, nc)                                            \
    GDT_GEMM_SM90_KERNEL(prefix##bf16_kk, 0, 1, 1, tn, split, st, false, nc, true, false)           \
    GDT_GEMM_SM90_KERNEL(prefix##bf16_km, 0, 1, 0, tn, split, st, false, nc, true, false)           \
    GDT_GEMM_SM90_KERNEL(prefix##fp16_kk, 1, 1, 1, tn, split, st, false, nc, true, false)           \
    GDT_GEMM_SM90_KERNEL(prefix##fp16_km, 1, 1, 0, tn, split, st, false, nc, true, false)
#define GDT_HAND_GEMM_SWAB(prefix, tn, split, st, nc)                                               \
    GDT_HAND_GEMM_SWAB_AK(prefix, tn, split, st, nc)                                                \
    GDT_GEMM_SM90_KERNEL(prefix##bf16_mk, 0, 0, 1, tn, split, st, false, nc, true, false)           \
    GDT_GEMM_SM90_KERNEL(prefix##bf16_mm, 0, 0, 0, tn, split, st, false, nc, true, false)           \
    GDT_GEMM_SM90_KERNEL(prefix##fp16_mk, 1, 0, 1, tn, split, st, false, nc, true, false)           \
    GDT_GEMM_SM90_KERNEL(prefix##fp16_mm, 1, 0, 0, tn, split, st, false, nc, true, false)

GDT_HAND_GEMM_SWAB(gdt_hand_gemm_swab_m64_s8_, 64, SPLIT_NONE, 8, 1)
GDT_HAND_GEMM_SWAB(gdt_hand_gemm_swab_m64_splitk_s8_, 64, SPLIT_WS, 8, 1)
GDT_HAND_GEMM_SWAB_AK(gdt_hand_gemm_swab_m32_splitk_s8_, 32, SPLIT_WS, 8, 1)
GDT_HAND_GEMM_SWAB_AK(gdt_hand_gemm_swab_m16_splitk_s8_, 16, SPLIT_WS, 8, 1)
GDT_HAND_GEMM_SWAB(gdt_hand_gemm_swab_m64_n128_splitk_s6_, 64, SPLIT_WS, 6, 2)

/* Stream-K (README): 128 x 128 and 128 x 192 tiles, 4 stages, whole
 * tiles first and the rest in equal runs of K tiles a CTA
 * (kernels/gdt_streamk.cuh); a tile cut across runs goes through ws and
 * its counter as nBN_splitk's splits.  Verified on an H100 (2026-12-06);
 * faster than its data-parallel twin only past a partial wave. */
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n128_streamk_, 128, SPLIT_SK, 4, false)
GDT_HAND_GEMM_LAYOUTS(gdt_hand_gemm_n192_streamk_, 192, SPLIT_SK, 4, false)

/* Ping-pong (README): each consumer warpgroup owns whole 128 x 128 tiles,
 * the two taking the CTA's tiles by turns, so one's epilogue runs under
 * the other's wgmmas; 4 and 6 stages, the twins of _n128_ and _n128_s6_.
 * Verified on an H100 (2026-12-06), no faster than the twins. */
#define GDT_HAND_GEMM_PINGPONG(prefix, bn, st)                                                      \
    GDT_GEMM_SM90_PINGPONG(prefix##bf16_kk, 0, 1, 1, bn, st)                                        \
    GDT_GEMM_SM90_PINGPONG(prefix##bf16_km, 0, 1, 0, bn, st)                                        \
    GDT_GEMM_SM90_PINGPONG(prefix##bf16_mk, 0, 0, 1, bn, st)                                        \
    GDT_GEMM_SM90_PINGPONG(prefix##bf16_mm, 0, 0, 0, bn, st)                                        \
    GDT_GEMM_SM90_PINGPONG(prefix##fp16_kk, 1, 1, 1, bn, st)                                        \
    GDT_GEMM_SM90_PINGPONG(prefix##fp16_km, 1, 1, 0, bn, st)                                        \
    GDT_GEMM_SM90_PINGPONG(prefix##fp16_mk, 1, 0, 1, bn, st)                                        \
    GDT_GEMM_SM90_PINGPONG(prefix##fp16_mm, 1, 0, 0, bn, st)

GDT_HAND_GEMM_PINGPONG(gdt_hand_gemm_n128_pp_, 128, 4)
GDT_HAND_GEMM_PINGPONG(gdt_hand_gemm_n128_pp_s6_, 128, 6)
