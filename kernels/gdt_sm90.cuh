/* kernels/gdt_sm90.cuh: the Hopper building blocks that the handwritten
 * kernels (kernels/hand/, nvcc) and the NVRTC templates share: the tensor
 * map type, mbarriers, named barriers, bulk groups, TMA loads and stores,
 * the cluster's rank, barrier and remote arrivals, st.async, setmaxnreg,
 * the dtype-templated pack2, the wgmma with A in registers and its A
 * fragments (the attention kernels' P V), shfl_idx, a 16-byte store of
 * zeros and the programmatic dependent launch's two controls.  One copy of
 * each wrapper: the hand kernels take it through hand_common.cuh, the
 * Hopper GEMM and attention (gdt_gemm_sm90.cuh, gdt_attn_fwd_sm90.cuh,
 * gdt_attn_bwd_sm90.cuh) directly.
 *
 * The includer defines GDT_FP16 before (gdt_ptx.cuh needs it); nothing here
 * uses what it binds: these take the dtype as a template argument FP16
 * (1 fp16, 0 bf16), so one nvcc unit can hold both dtypes.
 *
 * Under NVRTC there is no cuda.h: CUtensorMap is declared as what the
 * driver's encoder writes, 128 opaque bytes, aligned as cuda.h (CUDA 13)
 * aligns it, to 128 bytes (PTX needs 64 for a tensor-map parameter; the
 * same alignment as nvcc's keeps the parameter offsets, so the NVRTC and
 * nvcc builds of one configuration are the same SASS). */
#ifndef GDT_SM90_CUH
#define GDT_SM90_CUH

#ifdef __CUDACC_RTC__
typedef struct __align__(128) CUtensorMap_st {
    unsigned long long opaque[16];
} CUtensorMap;
#else
#include <cuda.h>
#endif

#include "gdt_ptx.cuh"

/* ------------------------------------------------------------- mbarrier */

__device__ __forceinline__ void bar_init(u32 bar, u32 count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void bar_expect_tx(u32 bar, u32 bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void bar_arrive(u32 bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* Makes the barriers' initialization visible to the cluster (and to the
 * TMA) before any thread arrives on one. */
__device__ __forceinline__ void bar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* Waits for the completion of the phase of parity `parity`; on a fresh
 * barrier parity 1 names the phase before the first, already complete.
 * SEM: the wait's semantics, "" for the default (acquire at CTA scope). */
#define BAR_WAIT_ASM(SEM)                                                                           \
    asm volatile("{\n.reg .pred done;\nwait:\n"                                                     \
                 "mbarrier.try_wait.parity" SEM ".shared::cta.b64 done, [%0], %1;\n"                \
                 "@!done bra wait;\n}\n" ::"r"(bar),                                                \
                 "r"(parity)                                                                        \
                 : "memory")

__device__ __forceinline__ void bar_wait(u32 bar, u32 parity) { BAR_WAIT_ASM(""); }

/* The same, acquiring at cluster scope what another CTA's arrival released
 * (mbarrier.arrive.release.cluster on this barrier). */
__device__ __forceinline__ void bar_wait_acquire_cluster(u32 bar, u32 parity)
{
    BAR_WAIT_ASM(".acquire.cluster");
}
#undef BAR_WAIT_ASM

/* Named barriers of the two consumers' turns: bar.sync waits for `threads`
 * arrivals, its own warpgroup's and the other's bar.arrive. */
__device__ __forceinline__ void named_sync(int id, int threads)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void named_arrive(int id, int threads)
{
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/* ------------------------------------------------------------------ TMA */

/* Bulk groups (TMA stores, bulk reductions) of this thread. */
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }

/* At most N of them still reading their shared-memory source (which may
 * then be rewritten). */
template <int N> __device__ __forceinline__ void bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

/* At most N of them not complete, their writes included. */
template <int N> __device__ __forceinline__ void bulk_wait()
{
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

/* A 3-d box at (c0, c1, c2) into this CTA's shared memory at dst, its bytes
 * completing on the barrier at bar (the GEMM's operands: unit-stride axis,
 * other axis, batch). */
__device__ __forceinline__ void tma_load(u32 dst, const CUtensorMap *map, u32 bar, int c0, int c1,
                                         int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
                 "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

/* tma_load's box into both CTAs of the cluster, at the same offset dst in
 * each, completing its bytes on each one's barrier at offset bar. */
__device__ __forceinline__ void tma_load_multicast(u32 dst, const CUtensorMap *map, u32 bar, int c0,
                                                   int c1, int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4, %5}], [%2], %6;\n" ::"r"(dst),
                 "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "h"((unsigned short)0x3)
                 : "memory");
}

/* tma_load's 4-d box (below) into both CTAs of the cluster, at the same
 * offset dst in each, completing its bytes on each one's barrier at bar. */
__device__ __forceinline__ void tma_load_multicast(u32 dst, const CUtensorMap *map, u32 bar, int c0,
                                                   int c1, int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4, %5, %6}], [%2], %7;\n" ::"r"(dst),
                 "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "h"((unsigned short)0x3)
                 : "memory");
}

/* Box {64 columns, 128 rows} at (column c0, row c1, head c2, batch c3): the
 * attention kernels' [b, h, s, d] operands. */
__device__ __forceinline__ void tma_load(u32 dst, const CUtensorMap *map, u32 bar, int c0, int c1,
                                         int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
                 "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}

/* A 3-d box from shared memory at src to (c0, c1, c2), in this thread's
 * bulk group; the map clips it at the tensor's edges. */
__device__ __forceinline__ void tma_store(const CUtensorMap *map, u32 src, int c0, int c1, int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n"
                 ::"l"(map), "r"(src), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

/* -------------------------------------------------------------- cluster */

__device__ __forceinline__ u32 cluster_rank()
{
    u32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

__device__ __forceinline__ u32 cluster_size()
{
    u32 r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(r));
    return r;
}

/* Every thread of both CTAs: what each wrote before is visible to all after. */
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

/* One arrival at the barrier at offset bar in CTA `rank` of the cluster
 * (this CTA's own included).  Release at CTA scope, the default, as
 * CUTLASS's ClusterBarrier::arrive: what it orders is this warp's wgmma
 * reads of the stage, already complete (wgmma.wait_group), before the
 * producer's TMA overwrites it.  A .release.cluster here fences every
 * arrival at cluster scope: on the H200 that made each K tile take
 * about 1.1 us whatever the tile (0.44 us one CTA at 128 x 128). */
__device__ __forceinline__ void bar_arrive_cluster(u32 bar, u32 rank)
{
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}

/* The address of this CTA's shared-memory offset addr in CTA `rank`. */
__device__ __forceinline__ u32 cluster_map(u32 addr, u32 rank)
{
    u32 r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
}

/* One arrival at another CTA's barrier (remote: from cluster_map),
 * releasing at cluster scope what this thread, and through a named barrier
 * before it its whole warpgroup, read before; the partner waits with
 * bar_wait_acquire_cluster. */
__device__ __forceinline__ void bar_arrive_remote(u32 remote)
{
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(remote)
                 : "memory");
}

/* One arrival at another CTA's barrier (remote) that also expects `bytes`
 * of st_async_v4 to land there. */
__device__ __forceinline__ void bar_expect_tx_remote(u32 remote, u32 bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%0], %1;\n"
                 ::"r"(remote), "r"(bytes)
                 : "memory");
}

/* 16 bytes into another CTA's shared memory at addr, completing their
 * byte count on its barrier at bar (both from cluster_map): what that
 * barrier's waiters read once its phase completes. */
__device__ __forceinline__ void st_async_v4(u32 addr, u32 bar, float x, float y, float z, float w)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32"
                 " [%0], {%2, %3, %4, %5}, [%1];\n" ::"r"(addr), "r"(bar), "f"(x), "f"(y), "f"(z),
                 "f"(w)
                 : "memory");
}

/* ------------------------------------------------------------ registers */

/* The producer warpgroup gives registers up, the consumers take them:
 * setmaxnreg with the count as an immediate. */
template <int N> __device__ __forceinline__ void regs_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

template <int N> __device__ __forceinline__ void regs_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

/* ---------------------------------------------------------------- packs */

template <int FP16> __device__ __forceinline__ u32 pack2(float lo, float hi)
{
    u32 r;
    if constexpr (FP16)
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    else
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

/* The quad's 4 x 4 transpose of pairs: lane q (of 4) holds x[j], the pair at
 * columns 8 j + 2 q of four 8-column groups, and gets back y[j], the pair at
 * 8 q + 2 j: the group's 16 contiguous bytes.  Each round r sends x[q ^ r] to
 * lane q ^ r; the selects keep the indices static (no local memory). */
__device__ __forceinline__ uint4 quad_transpose(const u32 (&x)[4], int q)
{
    u32 y[4] = {x[0], x[1], x[2], x[3]};
#pragma unroll
    for (int r = 1; r < 4; ++r) {
        const int j = q ^ r;
        const u32 v = shfl_xor(j == 0 ? x[0] : j == 1 ? x[1] : j == 2 ? x[2] : x[3], r);
        y[0] = j == 0 ? v : y[0], y[1] = j == 1 ? v : y[1];
        y[2] = j == 2 ? v : y[2], y[3] = j == 3 ? v : y[3];
    }
    uint4 v;
    v.x = y[0], v.y = y[1], v.z = y[2], v.w = y[3];
    return v;
}

/* Row half h of an m64nDk16 accumulator fragment (this thread's pairs
 * 4 g + 2 h, g < D / 8) times f, packed, into row (the row's first element,
 * 16-byte aligned): after the quad's transpose each lane stores 16 contiguous
 * bytes, so a warp's store fills whole 32-byte sectors (64 bytes of each of 8
 * rows) where 4-byte pairs wrote each sector in two halves.  Every lane of the
 * warp calls it (the shuffles); live says whether this lane's row is stored,
 * and with CLIP only its first cols elements are (a matrix's column tail:
 * the piece that straddles it element by element; the attention kernels'
 * rows are whole). */
template <int FP16, int D, bool CLIP = false>
__device__ __forceinline__ void store_row16(u16 *row, const float *acc, int h, float f, int lane, bool live,
                                            int cols = D)
{
    const int q = lane & 3;
#pragma unroll
    for (int g = 0; g < D / 8; g += 4) {
        u32 x[4];
#pragma unroll
        for (int j = 0; j < 4; ++j)
            x[j] = pack2<FP16>(acc[4 * (g + j) + 2 * h] * f, acc[4 * (g + j) + 2 * h + 1] * f);
        const uint4 y = quad_transpose(x, q);
        const int c = 8 * (g + q);
        if (live && (!CLIP || c + 8 <= cols)) {
            *(uint4 *)(row + c) = y;
        } else if (CLIP && live && c < cols) {
            for (int e = 0; c + e < cols; ++e) { /* selects, not an indexed array: no stack frame */
                const u32 v = e < 2 ? y.x : e < 4 ? y.y : e < 6 ? y.z : y.w;
                row[c + e] = (u16)(v >> (16 * (e & 1)));
            }
        }
    }
}

/* ------------------------------------------------------ wgmma, A in registers */

/* O (64 x N) += P . V: P as A fragments in registers (the RS form, which has
 * no A transpose), V MN-major in shared memory (B transpose bit set). */
template <int FP16, int N> __device__ __forceinline__ void wgmma_rs(float (&d)[N / 2], const u32 (&a)[4], u64 db)
{
    static_assert(N == 64 || N == 128, "O is 64 or 128 columns wide");
#define RS_ASM(T, SHAPE, REGS, A0, B, ...)                                                            \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                                           \
                 "wgmma.mma_async.sync.aligned." SHAPE ".f32." T "." T " {" REGS "}, {" A0 "}, " B     \
                 ", p, 1, 1, 1;\n}\n"                                                                 \
                 : __VA_ARGS__                                                                         \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db))
    if constexpr (N == 128) {
        if constexpr (FP16)
            RS_ASM("f16", "m64n128k16", GDT_WG_R64, "%64, %65, %66, %67", "%68", GDT_WG_D64);
        else
            RS_ASM("bf16", "m64n128k16", GDT_WG_R64, "%64, %65, %66, %67", "%68", GDT_WG_D64);
    } else {
        if constexpr (FP16)
            RS_ASM("f16", "m64n64k16", GDT_WG_R32, "%32, %33, %34, %35", "%36", GDT_WG_D32);
        else
            RS_ASM("bf16", "m64n64k16", GDT_WG_R32, "%32, %33, %34, %35", "%36", GDT_WG_D32);
    }
#undef RS_ASM
}
/* A 64-row accumulator of STEPS * 16 columns as the A fragments of its k16
 * steps (P of P V, dS^T of dK): the accumulator layout of columns 16 kk ..
 * 16 kk + 15 is the m64k16 A fragment layout. */
template <int FP16, int STEPS>
__device__ __forceinline__ void pack_a(u32 (&a)[STEPS][4], const float (&x)[STEPS * 8])
{
#pragma unroll
    for (int kk = 0; kk < STEPS; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            a[kk][i] = pack2<FP16>(x[8 * kk + 2 * i], x[8 * kk + 2 * i + 1]);
}

/* ------------------------------------------------------------- shuffles */

/* Lane src's v (shfl.sync.idx over the full warp). */
__device__ __forceinline__ float shfl_idx(float v, int src)
{
    float r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;\n" : "=f"(r) : "f"(v), "r"(src));
    return r;
}

/* ---------------------------------------------------------------- stores */

/* Four zero floats at p (16-byte aligned) in one 16-byte store: nvcc may
 * split a float4 store of zeros into two 8-byte ones. */
__device__ __forceinline__ void stg_zero4(float *p)
{
    asm volatile("st.global.v4.f32 [%0], {%1, %1, %1, %1};\n" ::"l"(p), "f"(0.f) : "memory");
}

/* ----------------------------------------------------- GPU-scope semaphores */

/* A semaphore in global memory that orders bulk reductions of different
 * CTAs into one range (the deterministic attention backward's dQ,
 * gdt_attn_bwd_sm90.cuh, drain_dq): the waiter spins until the word holds
 * v, acquiring at GPU scope what the last arrival released, then fences
 * the async proxy before its own bulk reduction; the arriver waits for its
 * reduction's writes (bulk_wait, not bulk_wait_read), fences the async
 * proxy and adds 1 with release semantics. */
__device__ __forceinline__ void sem_wait_eq(const int *p, int v)
{
    int x;
    do {
        asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(x) : "l"(p) : "memory");
    } while (x != v);
}
__device__ __forceinline__ void sem_arrive(int *p)
{
    asm volatile("red.release.gpu.global.add.s32 [%0], 1;\n" ::"l"(p) : "memory");
}
/* Orders this thread's generic-proxy accesses to global memory with its
 * async-proxy ones (bulk copies and reductions), both ways. */
__device__ __forceinline__ void fence_proxy_async_global()
{
    asm volatile("fence.proxy.async.global;\n" ::: "memory");
}

/* ------------------------------------------------------ dependent launch */

/* Programmatic dependent launch (sm_90).  A kernel launched with
 * CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION may start once
 * every CTA of the kernel before it on the stream has run grid_dep_launch
 * (once a CTA is enough) or exited, so its CTAs can start, and do what
 * does not depend on that kernel, while that kernel's last ones run; each
 * of its threads that touches what that kernel writes must first run
 * grid_dep_wait, which returns once that kernel has completed and its
 * memory operations are visible.  Both are no-ops in a kernel launched
 * without the attribute. */
__device__ __forceinline__ void grid_dep_launch() { asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory"); }
__device__ __forceinline__ void grid_dep_wait() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }

#endif
