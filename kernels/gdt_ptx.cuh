// kernels/gdt_ptx.cuh: every PTX wrapper the NVRTC templates use, once
// (kernels/gemm.cuh directly; kernels/attn_fwd.cuh and kernels/attn_bwd.cuh
// through gdt_attn.cuh): the integer types, the shared-memory address,
// cp.async, ldmatrix, mma.sync, conversions, exp2/log2, shuffles, warp vote,
// global reductions, and the wgmma instructions and pipeline helpers.  NVRTC
// gets it as a header (engines/nvrtc/nvrtc_compile.c registers every
// kernels/gdt_*.cuh and puts their digests in the cache key).  No CUDA
// header: raw bits + PTX.
//
// GDT_FP16, bound by every template's plan (engines/nvrtc/tmpl_gemm.c and
// tmpl_attention.c pass -DGDT_FP16=...): 1 fp16, 0 bf16 inputs and outputs;
// it picks the mma.sync/wgmma input type and the pack/unpack conversions.
// Accumulation is fp32 either way.

#ifndef GDT_PTX_CUH
#define GDT_PTX_CUH

#ifndef GDT_FP16
#error "GDT_FP16 (1 fp16, 0 bf16) is bound by the plan"
#endif

#if GDT_FP16
#define GDT_PTX_T "f16"
#else
#define GDT_PTX_T "bf16"
#endif

typedef unsigned short u16;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;

// A wrapper that is one asm of one result y (constraint yc) and one operand
// x (xc); undefined at the end of this header.
#define GDT_PTX_UNARY(name, Y, yc, X, xc, text)                                                      \
    __device__ __forceinline__ Y name(X x)                                                            \
    {                                                                                                 \
        Y y;                                                                                          \
        asm(text : yc(y) : xc(x));                                                                    \
        return y;                                                                                     \
    }

GDT_PTX_UNARY(smem_addr, u32, "=r", const void *, "l",
              "{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }")
GDT_PTX_UNARY(bits_f32, float, "=f", u32, "r", "mov.b32 %0, %1;")
GDT_PTX_UNARY(f32_bits, u32, "=r", float, "f", "mov.b32 %0, %1;")

// Two fp32 at a shared address (8-byte aligned); one 32-bit store.
__device__ __forceinline__ void lds_f32x2(float (&v)[2], u32 addr)
{
    asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v[0]), "=f"(v[1]) : "r"(addr));
}
__device__ __forceinline__ void sts_u32(u32 addr, u32 v)
{
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}

// ------------------------------------------------------------------ cp.async
// src_bytes 0 zero-fills the 16-byte chunk: that is how tails are predicated.
// The GEMM passes the byte count, the attention templates the predicate
// (cp_async16): the same instruction, but where the 16-or-0 select is made
// changes the select's form, and with it the sm_100 schedule of the
// mma.sync GEMM (measured: 69 of its cubins differed when it called
// cp_async16).  No "memory" clobber here: __syncthreads and the wgmma fences
// order the shared-memory reads, and the GEMM's cubins are the same without
// the clobber it used to carry.
__device__ __forceinline__ void cp_async16_bytes(u32 dst, const void *src, u32 src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes));
}
__device__ __forceinline__ void cp_async16(u32 dst, const void *src, bool pred)
{
    cp_async16_bytes(dst, src, pred ? 16u : 0u);
}
__device__ __forceinline__ void cp_async4(u32 dst, const void *src, bool pred)
{
    int n = pred ? 4 : 0;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(n));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// ------------------------------------------------------- ldmatrix, mma.sync
__device__ __forceinline__ void ldsm_x4(u32 *r, u32 addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_t(u32 *r, u32 addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm_x2_t(u32 *r, u32 addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
}
// TRANS chosen at compile time (the GEMM's operand layouts).
template <int TRANS> __device__ __forceinline__ void ldsm_x4_trans_if(u32 *r, u32 addr)
{
    if (TRANS)
        ldsm_x4_t(r, addr);
    else
        ldsm_x4(r, addr);
}

__device__ __forceinline__ void mma16816(float *c, const u32 *a, u32 b0, u32 b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." GDT_PTX_T "." GDT_PTX_T ".f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// ------------------------------------------------ conversions, math, shuffles
// lo lands in the low half (the lower column index).
__device__ __forceinline__ u32 pack2(float lo, float hi)
{
    u32 r;
    asm("cvt.rn." GDT_PTX_T "x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
// The fp16 in the low or the high half of x, as fp32.
GDT_PTX_UNARY(f16_lo_f32, float, "=f", u32, "r", "{ .reg .b16 h; mov.b32 {h, _}, %1; cvt.f32.f16 %0, h; }")
GDT_PTX_UNARY(f16_hi_f32, float, "=f", u32, "r", "{ .reg .b16 h; mov.b32 {_, h}, %1; cvt.f32.f16 %0, h; }")
__device__ __forceinline__ float unpack_lo(u32 v)
{
#if GDT_FP16
    return f16_lo_f32(v);
#else
    return bits_f32(v << 16);
#endif
}
__device__ __forceinline__ float unpack_hi(u32 v)
{
#if GDT_FP16
    return f16_hi_f32(v);
#else
    return bits_f32(v & 0xffff0000u);
#endif
}
GDT_PTX_UNARY(fast_exp2, float, "=f", float, "f", "ex2.approx.ftz.f32 %0, %1;\n")
GDT_PTX_UNARY(fast_log2, float, "=f", float, "f", "lg2.approx.ftz.f32 %0, %1;\n")
__device__ __forceinline__ float shfl_xor(float v, int m)
{
    float r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;\n" : "=f"(r) : "f"(v), "r"(m));
    return r;
}
__device__ __forceinline__ u32 shfl_xor(u32 v, int m)
{
    return f32_bits(shfl_xor(bits_f32(v), m));
}
__device__ __forceinline__ float neg_inf() { return bits_f32(0xff800000u); }

// The same for every lane, and visibly so to the compiler: a wgmma after a
// branch on it is not serialized (ptxas C7520 otherwise).
__device__ __forceinline__ bool warp_any(bool x)
{
    u32 r;
    asm volatile("{\n.reg .pred p, q;\nsetp.ne.u32 p, %1, 0;\nvote.sync.any.pred q, p, 0xffffffff;\n"
                 "selp.u32 %0, 1, 0, q;\n}\n"
                 : "=r"(r) : "r"((u32)x));
    return r != 0;
}

// ------------------------------------------- launch facts, global reductions
// The dynamic shared memory this launch was given (PTX %dynamic_smem_size).
__device__ __forceinline__ u32 dyn_smem_bytes()
{
    u32 n;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
    return n;
}
__device__ __forceinline__ void red_add(float *p, float v)
{
    asm volatile("red.global.add.f32 [%0], %1;\n" ::"l"(p), "f"(v) : "memory");
}
#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ void red_add4(float *p, float a, float b, float c, float d)
{
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(a), "f"(b), "f"(c),
                 "f"(d)
                 : "memory");
}
#endif

// ------------------------------------------------------------ wgmma (sm_90a)
// wgmma matrix descriptor, 128-byte swizzle, 8-row groups (SBO) 1024 bytes
// apart; lbo: the leading byte offset (MN-major: between 64-element blocks).
__device__ __forceinline__ u64 wg_desc(u32 addr, u32 lbo)
{
    return (u64)((addr & 0x3FFFF) >> 4) | ((u64)((lbo & 0x3FFFF) >> 4) << 16) |
           ((u64)(1024 >> 4) << 32) | (1ull << 62);
}
// Operands at a constant byte offset from a tile's descriptor: the start
// address field is (address & 0x3FFFF) >> 4 and shared addresses stay below
// 2^18, so offset/16 added to the descriptor describes the offset address.
// One add per wgmma, and no per-step descriptor kept live across a loop.
__device__ __forceinline__ u64 wg_at(u64 desc, u32 byte_offset) { return desc + (byte_offset >> 4); }

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wg_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Generic-proxy writes (cp.async, st.shared) before async-proxy reads (wgmma).
__device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// Keeps the compiler from moving accumulator reads above a wgmma wait.
template <int N> __device__ __forceinline__ void wg_fence_acc(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// The accumulator operands of a wgmma asm: GDT_WG_D8(i) binds d[i .. i+7],
// GDT_WG_R8 .. GDT_WG_R128 name the first 8 .. 128 operands (88: n176) (used also by
// kernels/gdt_sm90.cuh's register-A wgmma).
#define GDT_WG_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define GDT_WG_D16 GDT_WG_D8(0), GDT_WG_D8(8)
#define GDT_WG_D32 GDT_WG_D8(0), GDT_WG_D8(8), GDT_WG_D8(16), GDT_WG_D8(24)
#define GDT_WG_D64 GDT_WG_D32, GDT_WG_D8(32), GDT_WG_D8(40), GDT_WG_D8(48), GDT_WG_D8(56)
#define GDT_WG_D88 GDT_WG_D64, GDT_WG_D8(64), GDT_WG_D8(72), GDT_WG_D8(80)
#define GDT_WG_D96 GDT_WG_D88, GDT_WG_D8(88)
#define GDT_WG_D128 GDT_WG_D96, GDT_WG_D8(96), GDT_WG_D8(104), GDT_WG_D8(112), GDT_WG_D8(120)
#define GDT_WG_R8 "%0, %1, %2, %3, %4, %5, %6, %7"
#define GDT_WG_R16 GDT_WG_R8 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define GDT_WG_R32 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define GDT_WG_R64 GDT_WG_R32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GDT_WG_R88 GDT_WG_R64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
            "%80, %81, %82, %83, %84, %85, %86, %87"
#define GDT_WG_R96 GDT_WG_R88 ", %88, %89, %90, %91, %92, %93, %94, %95"
#define GDT_WG_R128 GDT_WG_R96 ", %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, " \
             "%110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, "  \
             "%124, %125, %126, %127"

// acc (64 x N) = A (smem) * B (smem), plus acc when accumulate != 0; TA/TB:
// the operand is MN-major (transposed) rather than K-major.  FP16 (1 fp16,
// 0 bf16): the templates pass GDT_FP16, the hand kernels (one nvcc unit for
// both dtypes) their own.
template <int FP16, int TA, int TB, int N>
__device__ __forceinline__ void wgmma_ss(float (&d)[N / 2], u64 da, u64 db, int accumulate)
{
    static_assert(N == 256 || N == 192 || N == 176 || N == 128 || N == 64 || N == 32 || N == 16,
                  "the tile widths wgmma runs here");
#define SS_ASM(T, SHAPE, REGS, DA, DB, ACC, TA_, TB_, ...)                                           \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " ACC ", 0;\n"                                   \
                 "wgmma.mma_async.sync.aligned." SHAPE ".f32." T "." T " {" REGS "}, " DA ", " DB      \
                 ", p, 1, 1, " TA_ ", " TB_ ";\n}\n"                                                  \
                 : __VA_ARGS__                                                                        \
                 : "l"(da), "l"(db), "r"(accumulate), "n"(TA), "n"(TB))
#define SS_N(T)                                                                                       \
    if constexpr (N == 256)                                                                           \
        SS_ASM(T, "m64n256k16", GDT_WG_R128, "%128", "%129", "%130", "%131", "%132", GDT_WG_D128);     \
    else if constexpr (N == 192)                                                                      \
        SS_ASM(T, "m64n192k16", GDT_WG_R96, "%96", "%97", "%98", "%99", "%100", GDT_WG_D96);           \
    else if constexpr (N == 176)                                                                      \
        SS_ASM(T, "m64n176k16", GDT_WG_R88, "%88", "%89", "%90", "%91", "%92", GDT_WG_D88);           \
    else if constexpr (N == 128)                                                                      \
        SS_ASM(T, "m64n128k16", GDT_WG_R64, "%64", "%65", "%66", "%67", "%68", GDT_WG_D64);            \
    else if constexpr (N == 64)                                                                       \
        SS_ASM(T, "m64n64k16", GDT_WG_R32, "%32", "%33", "%34", "%35", "%36", GDT_WG_D32);             \
    else if constexpr (N == 32)                                                                       \
        SS_ASM(T, "m64n32k16", GDT_WG_R16, "%16", "%17", "%18", "%19", "%20", GDT_WG_D16);             \
    else                                                                                              \
        SS_ASM(T, "m64n16k16", GDT_WG_R8, "%8", "%9", "%10", "%11", "%12", GDT_WG_D8(0))
    if constexpr (FP16) {
        SS_N("f16");
    } else {
        SS_N("bf16");
    }
#undef SS_N
#undef SS_ASM
}

// acc (64 x 64) += A (registers) * B (smem, MN-major): A from registers is a
// different instruction form (no TA, always accumulates).
__device__ __forceinline__ void wg_rs_n64(float (&d)[32], const u32 (&a)[4], u64 db)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32." GDT_PTX_T "." GDT_PTX_T " "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1));
}

#undef GDT_PTX_UNARY

#endif
