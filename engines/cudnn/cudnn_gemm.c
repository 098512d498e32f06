/* gemm -> one rank-3 backend matmul (cudnn-backend.md §2).  The backend
 * has no transpose flags: row- or column-major operands are told apart by
 * their strides alone, so gdt_gemm_desc's strides go through unchanged. */
#include "cudnn/gdt_cudnn.h"

enum { UID_A = 1, UID_B = 2, UID_C = 3 };

gdt_status gdt__cudnn_gemm_graph(gdt__cudnn_graph *g, const gdt_gemm_desc *d, gdt_error *e)
{
    cudnnDataType_t io = gdt__cudnn_dtype(d->dtype);
    const int64_t adim[3] = {d->batch, d->m, d->k};
    const int64_t bdim[3] = {d->batch, d->k, d->n};
    const int64_t cdim[3] = {d->batch, d->m, d->n};
    cudnnBackendDescriptor_t a, b, c;
    gdt_status s = gdt__cudnn_tensor(g, UID_A, io, 3, adim, d->a_stride, 0, &a, e);
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_tensor(g, UID_B, io, 3, bdim, d->b_stride, 0, &b, e);
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_tensor(g, UID_C, io, 3, cdim, d->c_stride, 0, &c, e);
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_matmul(g, a, b, c, e);
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_bind_operand(g, UID_A, GDT_OPERAND_A, e);
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_bind_operand(g, UID_B, GDT_OPERAND_B, e);
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_bind_operand(g, UID_C, GDT_OPERAND_C, e);
    return s;
}
