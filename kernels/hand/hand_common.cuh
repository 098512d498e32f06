/* kernels/hand/hand_common.cuh: the device helpers the handwritten Hopper
 * kernels share (kernels/hand/attn_fwd_sm90.cu and attn_bwd_sm90.cu; the
 * GEMM, gemm_sm90.cu, takes all but the 4-d TMA load and the register-A
 * wgmma): mbarriers, named barriers, bulk groups, the 4-d TMA load, the
 * wgmma of A in registers, and the dtype-templated packs (the wgmma of
 * both operands in shared memory, wgmma_ss, is gdt_ptx.cuh's).  Each
 * includer is one nvcc unit holding both dtypes, so these take the dtype
 * as a template argument FP16 (1 fp16, 0 bf16). */
#ifndef GDT_HAND_COMMON_CUH
#define GDT_HAND_COMMON_CUH

#include <cuda.h>

/* gdt_ptx.cuh binds its dtype wrappers to one GDT_FP16 per NVRTC compile;
 * this nvcc unit holds both dtypes, so it takes only the dtype-free
 * wrappers from there (shared-memory addresses, wgmma descriptors, fences,
 * exp2, shuffles, the FP16-templated shared-memory wgmma) and keeps its own
 * FP16-templated register-A wgmma and pack2 below.
 * GDT_FP16 0 satisfies the header; nothing here uses what it binds. */
#define GDT_FP16 0
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

/* Box {64 columns, 128 rows} at (column c0, row c1, head c2, batch c3). */
__device__ __forceinline__ void tma_load(u32 dst, const CUtensorMap *map, u32 bar, int c0, int c1,
                                         int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
                 "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}

/* ---------------------------------------------------------------- wgmma */

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
template <int FP16> __device__ __forceinline__ u32 pack2(float lo, float hi)
{
    u32 r;
    if constexpr (FP16)
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    else
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
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

/* The descriptor of an operand `bytes` past a tile's: the start address
 * field is address >> 4 and shared addresses stay below 2^18. */
__device__ __forceinline__ u64 desc_at(u64 desc, u32 bytes) { return desc + (bytes >> 4); }

#endif
