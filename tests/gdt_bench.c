#include <math.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "gdt_bench.h"
#include "gdt_util.h"

gdt_bench_timing gdt_bench_time_plan(const gdt_engine_ops *ops, gdt_compiled *c, gdt_buffers *b, int n)
{
    gdt_bench_timing best = {INFINITY, INFINITY};
    cudaEvent_t ev[2];
    gdt_error e;
    gdt_status st = GDT_STATUS_OK;
    cudaEventCreate(&ev[0]);
    cudaEventCreate(&ev[1]);
    for (int i = 0; i < 3 && st == GDT_STATUS_OK; i++)
        st = ops->execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, &e);
    for (int rep = 0; rep < 3; rep++) {
        float ms = 0;
        cudaDeviceSynchronize();
        cudaEventRecord(ev[0], NULL);
        double t0 = gdt_now();
        for (int i = 0; i < n && st == GDT_STATUS_OK; i++)
            st = ops->execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, &e);
        double host = (gdt_now() - t0) * 1e6 / n;
        cudaEventRecord(ev[1], NULL);
        cudaEventSynchronize(ev[1]);
        cudaEventElapsedTime(&ms, ev[0], ev[1]);
        best.device_us = fmin(best.device_us, ms * 1e3 / n);
        best.host_us = fmin(best.host_us, host);
    }
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    if (st != GDT_STATUS_OK) { /* a plan that did not run has no time */
        fprintf(stderr, "gdt_bench_time_plan: %s\n", e.msg);
        return (gdt_bench_timing){NAN, NAN};
    }
    return best;
}
