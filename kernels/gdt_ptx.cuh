// kernels/gdt_ptx.cuh: what every template shares (kernels/gemm.cuh and,
// through gdt_attn.cuh and gdt_wgmma.cuh, the attention templates): the
// integer types, the shared-memory address, and the wgmma pipeline helpers
// that depend on no template parameter.  NVRTC gets it as a header
// (engines/nvrtc/nvrtc_compile.c registers every kernels/gdt_*.cuh and puts
// their digests in the cache key).  No CUDA header: raw bits + PTX.

#ifndef GDT_PTX_CUH
#define GDT_PTX_CUH

typedef unsigned short u16;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;

__device__ __forceinline__ u32 smem_addr(const void *p)
{
    u32 a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}

// wgmma matrix descriptor, 128-byte swizzle, 8-row groups (SBO) 1024 bytes
// apart; lbo: the leading byte offset (MN-major: between 64-element blocks).
__device__ __forceinline__ u64 wg_desc(u32 addr, u32 lbo)
{
    return (u64)((addr & 0x3FFFF) >> 4) | ((u64)((lbo & 0x3FFFF) >> 4) << 16) |
           ((u64)(1024 >> 4) << 32) | (1ull << 62);
}

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

#endif
