/* The host side of the Hopper TMA GEMM (kernels/gdt_gemm_sm90.cuh), one
 * copy for both engines that launch it: the hand engine's fixed
 * configurations (engines/hand/hand_engine.c, nvcc-built cubin) and the
 * NVRTC GEMM's PIPE=1 rows (engines/nvrtc/tmpl_gemm.c).  A configuration's
 * shared memory, work units and workspace; the three tensor maps and what
 * TMA cannot describe; the split-K arrival counters; the persistent grid
 * and its cluster; the kernel's arguments.  Private to libgdtune. */
#ifndef GDT_GEMM_TMA_H
#define GDT_GEMM_TMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdt_cuda.h"
#include "gdt_util.h"
#include "gdtune/plan.h"
#include "../kernels/gdt_streamk.cuh"

/* What kernels/gdt_gemm_sm90.cuh is built for: keep the two in step.
 * TILE_M: the tile rows of two consumer warpgroups (64 each). */
enum { GDT_GEMM_TMA_TILE_M = 128, GDT_GEMM_TMA_TILE_K = 64 };

/* One configuration: tiles of (64 consumers) x tile_n on the wgmma's M
 * and N sides, split_k ranges of K per tile (through the workspace, or
 * with cluster_k 2 the two splits of a tile as a cluster summed in
 * distributed shared memory), a ring of `stages`, cluster_n 2 for
 * clusters of two CTAs along N sharing A.  A cluster is along N or along
 * K, never both, and takes two consumers.  swap_ab: the kernel runs
 * C^T = B^T . A^T, so that the problem's N is the wgmma's M side and M
 * (tile_n 16, 32 or 64 of it a tile) its N side: the tile is tile_n rows of
 * C by 64 consumers columns; no cluster.  stream_k (split_k 1, no
 * cluster): the stream-K schedule of kernels/gdt_streamk.cuh on the
 * device's SMs, a tile cut across CTAs summed through the workspace.
 * pingpong (two consumers, split_k 1, no cluster, swap-AB or stream-K,
 * tile_n 64 or 128): each consumer warpgroup owns whole 128 x tile_n
 * tiles, the two taking turns at the tensor cores; the same tiles, ring,
 * grid and shared memory as the cooperative form's. */
typedef struct gdt_gemm_tma_config {
    int tile_n, split_k, stages, cluster_n, cluster_k;
    int consumers; /* consumer warpgroups, 1 or 2 */
    bool swap_ab;
    bool stream_k;
    bool pingpong;
    bool regs_epilogue; /* C from the registers (a row's EPILOGUE=1): no output blocks in
                           shared memory outside a DSMEM pair (cluster_k 2) */
} gdt_gemm_tma_config;

/* Mirrors struct gdt_gemm_tma_params in kernels/gdt_gemm_sm90.cuh. */
typedef struct gdt_gemm_tma_params {
    int m, n, k, batch;
    int tiles_m, tiles_n;
    int splits; /* stream_k: the SMs of its schedule (gdt__gemm_tma_sms) */
} gdt_gemm_tma_params;

/* Mirrors struct gdt_gemm_tma_c in kernels/gdt_gemm_sm90.cuh: C for the
 * register epilogue, its first element and its row and batch strides in
 * elements (every entry takes it; the TMA-store epilogue leaves it unread). */
typedef struct gdt_gemm_tma_c {
    void *ptr;
    long long ld, batch;
} gdt_gemm_tma_c;

/* The kernel's arguments: A, B and C's maps, params, workspace, counters, C. */
enum { GDT_GEMM_TMA_NARGS = 7 };

/* One tensor map: three dims (unit-stride axis first, then the other
 * matrix axis, then batch), two byte strides and the box. */
typedef struct gdt_gemm_tma_map {
    cuuint64_t dims[3], strides[2];
    cuuint32_t box[2];
} gdt_gemm_tma_map;

/* A built plan's launch state.  maps come first for their 64-byte
 * alignment: the holder allocates this at a 128-byte boundary. */
typedef struct gdt_gemm_tma {
    CUtensorMap maps[3]; /* A, B, C */
    const void *bound[3]; /* the pointers the maps describe */
    gdt_gemm_tma_map geo[3];
    gdt_gemm_tma_params params;
    gdt_gemm_tma_c c_out;
    gdt_gemm_tma_config config;
    gdt_dtype dtype;
    int64_t units;       /* work units, one CTA's each */
    size_t ws_bytes;
    size_t ncounters;    /* split-K or stream-K through the workspace: one per tile */
    unsigned *counters;  /* device memory, zero between launches */
    const gdt_cu_api *cu;
    const char *who;     /* the slot, for messages */
    /* The launch's attrs: a cluster configuration's dimension first, then
     * programmatic dependent launch (every configuration). */
    CUlaunchAttribute attrs[2];
} gdt_gemm_tma;

/* Threads of a configuration's CTA: a producer warpgroup and the consumers. */
int gdt__gemm_tma_threads(const gdt_gemm_tma_config *c);

/* The problem's M and N as the kernel walks them: exchanged under swap-AB. */
void gdt__gemm_tma_extents(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g, int64_t *m,
                           int64_t *n);

/* Dynamic shared memory of a configuration: the ring, two 64 x 64 output
 * blocks a consumer (none with regs_epilogue outside a DSMEM pair), the barriers, the split-K flag word or the DSMEM reduction's two
 * barriers, and 1024 bytes of slack to align the swizzle atoms. */
int gdt__gemm_tma_smem_bytes(const gdt_gemm_tma_config *c);

/* The splits a configuration makes of each tile (at most one per K tile;
 * a cluster of splits always has both CTAs) and its work units. */
int64_t gdt__gemm_tma_splits(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g);
int64_t gdt__gemm_tma_units(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g);

/* The SMs a stream-K schedule spreads over: the device's, or without one
 * the arch's (gdt__predict_sm_count).  The kernel gets it as p.splits. */
int gdt__gemm_tma_sms(const gdt_facts *f);

/* A stream_k configuration's schedule (kernels/gdt_streamk.cuh) of the
 * problem's tiles on `sms` SMs. */
gdt_sk gdt__gemm_tma_streamk(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g, int sms);

/* Which entry serves the problem's layouts: A K-major when its K axis has
 * unit stride, B K-major when its N axis has not (the problem's operands,
 * under swap-AB too). */
void gdt__gemm_tma_majors(const gdt_gemm_desc *g, bool *a_kmajor, bool *b_kmajor);

/* The three maps of a problem, in the kernel's order (its wgmma's A side,
 * B side, then C: B's map first under swap-AB), or why TMA cannot describe
 * an operand or the kernel cannot take its layout. */
bool gdt__gemm_tma_layout(const gdt_gemm_desc *g, const gdt_gemm_tma_config *c,
                          gdt_gemm_tma_map geo[3], char *why, size_t n);

/* The kernel's 32-bit indexing, or why not. */
bool gdt__gemm_tma_sizes_ok(const gdt_gemm_desc *g, const gdt_gemm_tma_config *c, char *why,
                            size_t n);

/* Workspace bytes a configuration needs for a problem: the fp32 partials
 * of a split through the workspace, [split][batch][m][tiles_n * tile_n]
 * with the kernel's m and n (gdt__gemm_tma_extents); under stream_k one
 * slot a piece of the most cut tile of the schedule on `sms` SMs (none
 * when no tile is cut). */
size_t gdt__gemm_tma_workspace(const gdt_gemm_tma_config *c, const gdt_gemm_desc *g, int sms);

/* For a problem gdt__gemm_tma_layout accepted: geometry, parameters,
 * workspace and counter counts.  who: the slot's name, for messages. */
void gdt__gemm_tma_init(gdt_gemm_tma *t, const char *who, const gdt_facts *f,
                        const gdt_gemm_tma_config *c);

/* After the module's load: fn's shared memory, the counters (zeroed once),
 * and cfg's block, shared memory, persistent grid and cluster. */
gdt_status gdt__gemm_tma_load(gdt_gemm_tma *t, const gdt_cu_api *cu, CUfunction fn,
                              CUlaunchConfig *cfg, gdt_error *e);

/* Frees the counters. */
void gdt__gemm_tma_release(gdt_gemm_tma *t);

/* Before a launch: the workspace and the pointers' TMA rules, re-encoding
 * a map whose pointer changed; then the kernel's GDT_GEMM_TMA_NARGS
 * arguments into args (pointing into t and at *ws). */
gdt_status gdt__gemm_tma_bind(gdt_gemm_tma *t, const gdt_facts *f, const gdt_operands *ops,
                              void **ws, size_t ws_bytes, void *args[GDT_GEMM_TMA_NARGS],
                              gdt_error *e);

#endif
