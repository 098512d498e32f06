/* `gdtune bench --cupti`: CUPTI kernel records as a second device clock
 * beside the events, through the harness's one tracer (cupti.c). */
#include "gdt_bench_cupti.h"
#include "gdt_cupti.h"

gdt_status gdt__bench_cupti(const gdt_exec_fn *fn, void *stream, long calls, gdt_bench_cupti *out,
                            gdt_error *e)
{
    gdt_cupti_burst c;
    gdt_status st = gdt_cupti_trace(fn, stream, calls, &c, e);
    if (st != GDT_STATUS_OK)
        return st;
    out->kernels_per_call = c.kernels;
    out->kernel_us = c.kernel_us;
    out->span_us = c.span_us;
    return GDT_STATUS_OK;
}
