/* Device counters a built plan owns (engines/gdt_plan_counters.h). */
#include "gdt_plan_counters.h"

gdt_status gdt__plan_counters_new(unsigned **out, size_t n, gdt_error *e)
{
    if (!n)
        return GDT_STATUS_OK;
    size_t bytes = n * sizeof **out;
    GDT_CHECK_CUDA(e, cudaMalloc((void **)out, bytes));
    GDT_CHECK_CUDA(e, cudaMemsetAsync(*out, 0, bytes, 0));
    GDT_CHECK_CUDA(e, cudaStreamSynchronize(0));
    return GDT_STATUS_OK;
}

void gdt__plan_counters_free(unsigned **p)
{
    if (*p)
        cudaFree(*p);
    *p = NULL;
}
