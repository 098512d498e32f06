// kernels/gdt_attn.cuh: what the flash-attention templates share
// (kernels/attn_fwd.cuh, kernels/attn_bwd.cuh): the vector types and the
// parameter block.  The integer types and every PTX helper (cp.async,
// ldmatrix, mma.sync, conversions, exp2/log2, shuffles) are in gdt_ptx.cuh.
// NVRTC gets it as a header (engines/nvrtc/nvrtc_compile.c); the includer
// binds GDT_FP16 (1 fp16, 0 bf16).  No CUDA header: raw 16-bit bits + PTX.

#ifndef GDT_ATTN_CUH
#define GDT_ATTN_CUH

#include "gdt_ptx.cuh"

struct __align__(16) u32x4 { u32 x, y, z, w; };
struct __align__(16) f32x4 { float x, y, z, w; };

// Zeroes an accumulator of mma.sync fragments (4 floats each).
template <int A, int B> __device__ __forceinline__ void frag_zero(float (&x)[A][B][4])
{
#pragma unroll
    for (int i = 0; i < A; i++)
#pragma unroll
        for (int j = 0; j < B; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) x[i][j][e] = 0.f;
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

#endif
