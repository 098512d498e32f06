/* kernels/hand/attn_bwd_sm90.cu: the handwritten Hopper attention backward
 * of the `hand` engine (engines/hand/hand_attn_bwd.c): the entries of
 * kernels/gdt_attn_bwd_sm90.cuh (pre, main and post per dtype and head
 * dim), built by nvcc for sm_90a into a cubin that libgdtune embeds
 * (engines/hand/README.md).  The kernels are that header's; this file only
 * names their entries. */
#include "hand_common.cuh"

#include "gdt_attn_bwd_sm90.cuh"

/* Three entries per dtype and head dim, the main kernel whose consumers
 * ping-pong (sdpa_bwd.hand's PINGPONG=1 configuration, with the same pre
 * and post), and the deterministic pre and main kernels (DETERMINISTIC=1:
 * pre also zeroes dQ's semaphores, main adds dQ in key-block order; the
 * same post); engines/hand/hand_attn_bwd.c names them. */
#define ENTRIES(tag, fp16, d)                                                                       \
    GDT_ATTN_BWD_SM90_ENTRIES(gdt_hand_attn_bwd_pre_##tag, gdt_hand_attn_bwd_##tag,                 \
                              gdt_hand_attn_bwd_post_##tag, fp16, d, 0, 0)                          \
    GDT_ATTN_BWD_SM90_MAIN(gdt_hand_attn_bwd_pp_##tag, fp16, d, 1, 0)                               \
    GDT_ATTN_BWD_SM90_PRE(gdt_hand_attn_bwd_pre_det_##tag, fp16, d, 1)                              \
    GDT_ATTN_BWD_SM90_MAIN(gdt_hand_attn_bwd_det_##tag, fp16, d, 0, 1)

ENTRIES(bf16_d64, 0, 64)
ENTRIES(bf16_d128, 0, 128)
ENTRIES(fp16_d64, 1, 64)
ENTRIES(fp16_d128, 1, 128)
