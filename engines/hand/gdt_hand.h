/* The `hand` engine kind: kernels written by hand, each in a few fixed
 * configurations, compiled by nvcc at build time and embedded in libgdtune
 * (engines/hand/README.md).  Private to libgdtune, its harness and tests. */
#ifndef GDT_HAND_H
#define GDT_HAND_H

#include "gdt_engine_impl.h"

/* The embedded cubin of kernels/hand/gemm_sm90.cu (sm_90a). */
#define GDT_HAND_GEMM_CUBIN "kernels/hand/gemm_sm90.cubin"

/* How many fixed configurations gemm.hand has. */
#define GDT_HAND_GEMM_CONFIGS 23

/* Configuration i (0 <= i < GDT_HAND_GEMM_CONFIGS) of gemm.hand as knobs:
 * TILE_M, TILE_N, TILEK, STAGES, GROUP_M (the raster's band of tile rows)
 * and, for a split-K one, SPLIT_K.  Configuration 0 is 128 x 256 without
 * split, which the knobless name gemm.hand also means.  Configuration 10
 * adds CLUSTER_SHAPE=5 (cuBLASLt's id of 1x2x1): clusters of two CTAs
 * along N sharing A by a multicast TMA.  Configuration 11 adds
 * REDUCTION_MODE=1 to SPLIT_K=2: the two splits of a tile are a cluster
 * of two CTAs summing through distributed shared memory.  Configurations
 * 12 (128 x 256, STAGES=3) and 13 (128 x 64 unsplit, STAGES=8) are the
 * twins of two default PIPE=1 rows.  Configurations 14 to 18 add
 * SWAP_AB=1: swap-AB for decode-sized M (C^T = B^T . A^T), TILE_M 64, 32
 * or 16 rows of M on the wgmma's N side and TILE_N 64 (one consumer
 * warpgroup) or 128 (two) of N on its M side; 14 unsplit, 15 to 17 in two
 * splits, 18 in four.  With TILE_M below 64 they take A K-major only.
 * Configurations 19 (128 x 128) and 20 (128 x 192) add REDUCTION_MODE=2:
 * stream-K (kernels/gdt_streamk.cuh), no SPLIT_K.  Configurations 21 (4
 * stages) and 22 (6) add PINGPONG=1 to 128 x 128: each consumer warpgroup
 * owns whole tiles, the two taking turns at the tensor cores (the twins of
 * 1 and 7). */
void gdt__hand_gemm_config_plan(int i, int64_t engine_id, gdt_plan_id *out);
/* The prefix of configuration i's entries in the cubin ("gdt_hand_gemm_n128";
 * an entry adds _bf16 or _fp16 and the layouts, e.g. _km: A K-major, B
 * MN-major). */
const char *gdt__hand_gemm_config_entry(int i);
/* Configuration 0. */
void gdt__hand_gemm_plan(int64_t engine_id, gdt_plan_id *out);
/* The configurations for a GEMM problem, in the order to try them
 * untimed: the smallest makespan on the device's SMs first (waves of work
 * units, tiles times splits, times the largest unit), then the fewer
 * splits, then table order.  Every configuration, except a swap-AB one
 * (14 to 18) where m exceeds its TILE_M (one tile of M).  Fills out[GDT_HAND_GEMM_CONFIGS] at most;
 * returns the count. */
int gdt__hand_gemm_plans(const gdt_facts *f, int64_t engine_id, gdt_plan_id *out);

/* The embedded cubin of kernels/hand/attn_fwd_sm90.cu (sm_90a). */
#define GDT_HAND_ATTN_CUBIN "kernels/hand/attn_fwd_sm90.cubin"

/* engines/hand/hand_attn.c: the handwritten attention forward
 * (sdpa_fwd.hand), two fixed configurations of the nvcc-built
 * kernels/hand/attn_fwd_sm90.cu; its host side is engines/attn_fwd_tma.c. */
extern const gdt_engine_ops gdt__hand_attn_ops;

/* sdpa_fwd.hand's fixed configurations: 0, two consumer warpgroups and
 * 128-row tiles (every head dim); 1, three consumer warpgroups and 192-row
 * tiles (d64 only, the _m192 entries). */
#define GDT_HAND_ATTN_FWD_CONFIGS 2

/* Configuration i as knobs: TILE_M, TILE_N (query and key rows per
 * block), STAGES (of the K and V rings), WARPS and MMA (2: S of the next
 * block issued beside P V, as in the templates); configuration 1 has
 * TILE_M=192 and WARPS=16. */
void gdt__hand_attn_fwd_config_plan(int i, int64_t engine_id, gdt_plan_id *out);
/* Configuration 0's plan (the knobless name's). */
void gdt__hand_attn_plan(int64_t engine_id, gdt_plan_id *out);
/* The consumer warpgroups of configuration `config`. */
int gdt__hand_attn_fwd_consumers(int config);

/* The cubin entry sdpa_fwd.hand launches for f with `consumers` consumer
 * warpgroups, into buf: gdt_hand_attn_fwd_<dtype>_d<head dim>, with _m192
 * for three. */
const char *gdt__hand_attn_entry(const gdt_facts *f, int consumers, char *buf, size_t n);

/* The embedded cubin of kernels/hand/attn_bwd_sm90.cu (sm_90a). */
#define GDT_HAND_ATTN_BWD_CUBIN "kernels/hand/attn_bwd_sm90.cubin"

/* engines/hand/hand_attn_bwd.c: the handwritten attention backward
 * (sdpa_bwd.hand), two fixed configurations of the nvcc-built
 * kernels/hand/attn_bwd_sm90.cu: three kernels a plan, its workspace D, the
 * LSE in base 2 and the fp32 dQ accumulator; its host side is
 * engines/attn_bwd_tma.c. */
extern const gdt_engine_ops gdt__hand_attn_bwd_ops;

/* How many fixed configurations sdpa_bwd.hand has, and how many of them
 * (the first) its fixed_plans lists for the planner: the last,
 * DETERMINISTIC=1, is run only where a plan names it. */
#define GDT_HAND_ATTN_BWD_CONFIGS 3
#define GDT_HAND_ATTN_BWD_LISTED 2
#define GDT_HAND_ATTN_BWD_DET 2 /* the DETERMINISTIC=1 configuration */

/* Configuration i of sdpa_bwd.hand as knobs: TILE_M (query rows per
 * block), TILE_N (key rows per CTA), STAGES (of the Q/dO ring), WARPS and
 * MMA (1: the wgmma path without a GEMM overlap, as in the templates);
 * configuration 1 adds PINGPONG=1 (the consumer warpgroups take turns at
 * the tensor cores, half a block apart), configuration 2 DETERMINISTIC=1
 * (dQ added in key-block order: bit-reproducible, slower). */
void gdt__hand_attn_bwd_config_plan(int i, int64_t engine_id, gdt_plan_id *out);
/* Configuration 0, which the knobless name sdpa_bwd.hand also means. */
void gdt__hand_attn_bwd_plan(int64_t engine_id, gdt_plan_id *out);

#endif
