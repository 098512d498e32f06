/* kernels/hand/hand_common.cuh: what the handwritten Hopper kernels
 * (kernels/hand/*.cu) include.  The building blocks they share with the
 * NVRTC templates are kernels/gdt_sm90.cuh's (mbarriers, named barriers,
 * bulk groups, TMA, clusters, pack2, the wgmma of A in registers and its
 * A fragments, shfl_idx, stg_zero4, the dependent-launch controls) and
 * gdt_ptx.cuh's (wgmma_ss and the rest); each kernel's own code is its
 * header under kernels/ (gdt_gemm_sm90.cuh, gdt_attn_fwd_sm90.cuh,
 * gdt_attn_bwd_sm90.cuh).  Each includer is one nvcc unit holding
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

#endif
