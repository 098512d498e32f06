/* kernels/hand/attn_fwd_sm90.cu: the handwritten Hopper attention forward of
 * the `hand` engine (engines/hand/hand_attn.c), FlashAttention-3 style: the
 * entries of kernels/gdt_attn_fwd_sm90.cuh, built by nvcc for sm_90a into a
 * cubin that libgdtune embeds (engines/hand/README.md).  The kernel is that
 * header's; this file only names its entries. */
#include "hand_common.cuh"

#include "gdt_attn_fwd_sm90.cuh"

/* One entry per dtype, head dim and tile (engines/hand/hand_attn.c names
 * them): two consumer warpgroups and 128-row tiles, and at d64 three and
 * 192-row tiles (_m192), which sdpa_fwd.hand runs at d64.  The NVRTC
 * attention rows' PIPE=1 builds the two-consumer ones. */
GDT_ATTN_FWD_SM90_ENTRY(gdt_hand_attn_fwd_bf16_d64, 0, 64, 2)
GDT_ATTN_FWD_SM90_ENTRY(gdt_hand_attn_fwd_bf16_d128, 0, 128, 2)
GDT_ATTN_FWD_SM90_ENTRY(gdt_hand_attn_fwd_fp16_d64, 1, 64, 2)
GDT_ATTN_FWD_SM90_ENTRY(gdt_hand_attn_fwd_fp16_d128, 1, 128, 2)
GDT_ATTN_FWD_SM90_ENTRY(gdt_hand_attn_fwd_bf16_d64_m192, 0, 64, 3)
GDT_ATTN_FWD_SM90_ENTRY(gdt_hand_attn_fwd_fp16_d64_m192, 1, 64, 3)
