// kernels/gdt_attn.cuh: what the flash-attention templates share
// (kernels/attn_fwd.cuh, kernels/attn_bwd.cuh): the vector types (the
// integer ones and smem_addr come from gdt_ptx.cuh),
// the parameter block, and the PTX helpers (cp.async, ldmatrix, mma.sync,
// conversions, exp2/log2, shuffles).  NVRTC gets it as a header
// (engines/nvrtc/nvrtc_compile.c); the includer binds IO_BF16 (1 bf16,
// 0 fp16).  No CUDA header: raw 16-bit bits + PTX.

#ifndef GDT_ATTN_CUH
#define GDT_ATTN_CUH

#include "gdt_ptx.cuh"

struct __align__(16) u32x4 { u32 x, y, z, w; };
struct __align__(16) f32x4 { float x, y, z, w; };

__device__ __forceinline__ float bits_f32(u32 v)
{
    float f;
    asm("mov.b32 %0, %1;" : "=f"(f) : "r"(v));
    return f;
}

// Mirrors gdt__attn_params in engines/nvrtc/tmpl_attention.c field for field.
struct gdt_attn_params {
    const void *q, *k, *v;
    void *o;           // fwd: output; bwd: input
    const void *dout;
    float *stats;      // fwd: output; bwd: input
    void *dq, *dk, *dv;
    float *dsum, *dq_acc;
    i64 q_s[4], k_s[4], v_s[4], o_s[4];
    i64 b, h_q, h_kv, s_q, s_kv, group;
    float scale, scale_log2;
};

__device__ __forceinline__ void cp_async16(u32 dst, const void *src, bool pred)
{
    int n = pred ? 16 : 0; // 0 source bytes zero-fills the destination
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
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

__device__ __forceinline__ void mma16816(float *c, const u32 *a, u32 b0, u32 b1)
{
#if IO_BF16
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
#else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
#endif
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// lo lands in the low half (the lower column index).
__device__ __forceinline__ u32 pack2(float lo, float hi)
{
    u32 r;
#if IO_BF16
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#endif
    return r;
}
__device__ __forceinline__ float unpack_lo(u32 v)
{
#if IO_BF16
    return bits_f32(v << 16);
#else
    float f;
    asm("{ .reg .b16 h; mov.b32 {h, _}, %1; cvt.f32.f16 %0, h; }" : "=f"(f) : "r"(v));
    return f;
#endif
}
__device__ __forceinline__ float unpack_hi(u32 v)
{
#if IO_BF16
    return bits_f32(v & 0xffff0000u);
#else
    float f;
    asm("{ .reg .b16 h; mov.b32 {_, h}, %1; cvt.f32.f16 %0, h; }" : "=f"(f) : "r"(v));
    return f;
#endif
}
__device__ __forceinline__ float fast_exp2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float fast_log2(float x)
{
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float shfl_xor(float v, int m)
{
    float r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;\n" : "=f"(r) : "f"(v), "r"(m));
    return r;
}
__device__ __forceinline__ float neg_inf() { return bits_f32(0xff800000u); }

#endif
