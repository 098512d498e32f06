/* What the contraction row rules (engines/rows_contraction.c) and the GEMM
 * template (engines/nvrtc/tmpl_gemm.c) must agree on: the column order, the
 * operand layouts the kernel distinguishes, and the kernel's shared memory.
 * Private to libgdtune. */
#ifndef GDT_GEMM_H
#define GDT_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "gdtune/gdtune.h"

/* Columns of a contraction row, in schema order. */
enum {
    GDT_GEMM_BM,
    GDT_GEMM_BN,
    GDT_GEMM_BK,
    GDT_GEMM_WARPS_M,
    GDT_GEMM_WARPS_N,
    GDT_GEMM_STAGES,
    GDT_GEMM_GROUP_M,
    GDT_GEMM_MMA,
    GDT_GEMM_NCOLS
};

/* How kernels/gemm.cuh sees the problem's operands (its -D layout flags). */
typedef struct gdt_gemm_layout {
    bool a_kmajor, b_kmajor; /* K is the unit-stride axis */
    bool a_vec, b_vec;       /* 16-byte chunks along the unit-stride axis stay aligned and
                                never straddle the operand's edge */
    bool c_vec2;             /* C rows unit-stride with even extents: paired stores */
} gdt_gemm_layout;

void gdt__gemm_layout(const gdt_facts *f, gdt_gemm_layout *out);

/* Threads per CTA of a bound row. */
int64_t gdt__gemm_threads(const int64_t *row);

/* Dynamic shared memory (bytes) the kernel asks for with a bound row. */
int64_t gdt__gemm_smem_bytes(const int64_t *row, const gdt_facts *f);

#endif
