/* What the attention row rules (engines/rows_attention.c) and the
 * flash-attention templates (engines/nvrtc/tmpl_attention.c) must agree on:
 * the column order and the kernels' shared memory.  Private to libgdtune. */
#ifndef GDT_ATTENTION_H
#define GDT_ATTENTION_H

#include <stdint.h>

/* Columns of an attention_fwd / attention_bwd row, in schema order.  PIPE
 * is optional in both (absent 0); PINGPONG and DETERMINISTIC, optional
 * (absent 0), are the backward's alone, and the forward's seventh column,
 * optional, is CLUSTER_SHAPE in PINGPONG's place (GDT_ATTN_CLUSTER): the
 * forward's rows have GDT_ATTN_CLUSTER + 1 columns, the backward's
 * GDT_ATTN_NCOLS, and a row read from a plan holds GDT_ATTN_NCOLS either way
 * (the forward's last one 0). */
enum { GDT_ATTN_BM, GDT_ATTN_BN, GDT_ATTN_WARPS, GDT_ATTN_STAGES, GDT_ATTN_MMA, GDT_ATTN_PIPE,
       GDT_ATTN_PINGPONG, GDT_ATTN_DET, GDT_ATTN_NCOLS };
enum { GDT_ATTN_CLUSTER = GDT_ATTN_PINGPONG };

/* The forward's CLUSTER_SHAPE, cuBLASLt's ids as the GEMM rows': 1x1x1, or
 * 2x1x1, two query tiles of one head in a cluster sharing each K and V block
 * (PIPE=1, AF90_CLUSTER). */
enum { GDT_ATTN_CLUSTER_1X1X1 = 2, GDT_ATTN_CLUSTER_2X1X1 = 3 };

/* The PIPE column: 0 the template's own (kernels/attn_fwd.cuh,
 * attn_bwd.cuh), 1 the Hopper structure of kernels/gdt_attn_fwd_sm90.cuh
 * (sdpa_fwd.hand's kernel, engines/attn_fwd_tma.c) or
 * kernels/gdt_attn_bwd_sm90.cuh (sdpa_bwd.hand's, engines/attn_bwd_tma.c). */
enum { GDT_ATTN_PIPE_CTA = 0, GDT_ATTN_PIPE_TMA = 1 };

/* Dynamic shared memory (bytes) kernels/attn_fwd.cuh and the main kernel of
 * kernels/attn_bwd.cuh ask for with a bound row (GDT_ATTN_NCOLS columns)
 * and head dim d.  Defined in
 * tmpl_attention.c: the row rules calling them is also what links the
 * templates into every binary (the engine only references them weakly). */
int64_t gdt__attn_fwd_smem(const int64_t *row, int64_t d);
int64_t gdt__attn_bwd_smem(const int64_t *row, int64_t d);

#endif
