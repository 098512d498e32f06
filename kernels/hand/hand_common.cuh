/* kernels/hand/hand_common.cuh: what the handwritten Hopper kernels
 * (kernels/hand/*.cu) include.  The building blocks they share with the
 * NVRTC templates are kernels/gdt_sm90.cuh's (mbarriers, named barriers,
 * bulk groups, TMA, clusters, pack2) and gdt_ptx.cuh's (wgmma_ss and the
 * rest); what only the attention kernels use is here: the wgmma of A in
 * registers and its A fragments.  Each includer is one nvcc unit holding
 * both dtypes, so these take the dtype as a template argument FP16 (1 fp16,
 * 0 bf16). */
#ifndef GDT_HAND_COMMON_CUH
#define GDT_HAND_COMMON_CUH

/* gdt_ptx.cuh binds its dtype wrappers to one GDT_FP16 per NVRTC compile;
 * this nvcc unit holds both dtypes, so it takes only the dtype-free
 * wrappers from there (shared-memory addresses, wgmma descriptors, fences,
 * exp2, shuffles, the FP16-templated shared-memory wgmma) and the
 * FP16-templated ones of gdt_sm90.cuh (mbarriers, TMA, clusters, pack2).
 * GDT_FP16 0 satisfies the header; nothing here uses what it binds. */
#define GDT_FP16 0
#include "gdt_sm90.cuh"

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

/* The descriptor of an operand `bytes` past a tile's: the start address
 * field is address >> 4 and shared addresses stay below 2^18. */
__device__ __forceinline__ u64 desc_at(u64 desc, u32 bytes) { return desc + (bytes >> 4); }

#endif
