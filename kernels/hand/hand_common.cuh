/* kernels/hand/hand_common.cuh: what the handwritten Hopper kernels
 * (kernels/hand/*.cu) include.  The building blocks they share with the
 * NVRTC templates are kernels/gdt_sm90.cuh's (mbarriers, named barriers,
 * bulk groups, TMA, clusters, pack2, the wgmma of A in registers and its
 * A fragments) and gdt_ptx.cuh's (wgmma_ss and the rest); what only the
 * handwritten kernels use is here.  Each includer is one nvcc unit holding
 * both dtypes, so the shared wrappers take the dtype as a template
 * argument FP16 (1 fp16, 0 bf16). */
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
