/* `gdtune bench --cupti`: CUPTI kernel records as a second device clock
 * beside the events (device time only: tracing adds about 2 us of host
 * cost per API call, so host figures are not read here). */
#if __has_include(<cupti.h>)
#include <cupti.h>
#define BENCH_HAVE_CUPTI 1
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_bench.h"
#include "gdt_cuda.h"

#ifdef BENCH_HAVE_CUPTI

static struct {
    uint64_t kernel_ns, first_start, last_end;
    long kernels;
} cupti_acc;

static void CUPTIAPI cupti_request(uint8_t **buf, size_t *size, size_t *max_records)
{
    *size = (size_t)4 << 20;
    *buf = aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI cupti_complete(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *rec = NULL;
    while (buf && cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            continue;
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        cupti_acc.kernel_ns += k->end - k->start;
        if (!cupti_acc.kernels++ || k->start < cupti_acc.first_start)
            cupti_acc.first_start = k->start;
        if (k->end > cupti_acc.last_end)
            cupti_acc.last_end = k->end;
    }
    free(buf);
}

#define BENCH_CHECK_CUPTI(e, call)                                                          \
    do {                                                                                     \
        CUptiResult r_ = (call);                                                             \
        if (r_ != CUPTI_SUCCESS) {                                                           \
            const char *s_ = "?";                                                            \
            cuptiGetResultString(r_, &s_);                                                   \
            return gdt_error_set(e, GDT_STATUS_CUPTI, "%s:%d: %s failed: %s", __FILE__,      \
                                 __LINE__, #call, s_);                                       \
        }                                                                                    \
    } while (0)

/* calls executes of fn traced: kernel time and first-start to last-end span
 * per execute. */
gdt_status gdt__bench_cupti(const gdt_exec_fn *fn, void *stream, long calls, gdt_bench_cupti *out,
                            gdt_error *e)
{
    memset(&cupti_acc, 0, sizeof cupti_acc);
    BENCH_CHECK_CUPTI(e, cuptiActivityRegisterCallbacks(cupti_request, cupti_complete));
    BENCH_CHECK_CUPTI(e, cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    gdt_status st = GDT_STATUS_OK;
    for (long i = 0; i < calls && st == GDT_STATUS_OK; i++)
        st = fn->execute(fn->ctx, stream, e);
    cudaError_t ce = cudaStreamSynchronize((cudaStream_t)stream);
    BENCH_CHECK_CUPTI(e, cuptiActivityFlushAll(1));
    BENCH_CHECK_CUPTI(e, cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    GDT_CHECK_CUDA(e, ce);
    if (st != GDT_STATUS_OK)
        return st;
    out->kernels_per_call = (double)cupti_acc.kernels / (double)calls;
    out->kernel_us = (double)cupti_acc.kernel_ns / (double)calls / 1e3;
    out->span_us = (double)(cupti_acc.last_end - cupti_acc.first_start) / (double)calls / 1e3;
    return GDT_STATUS_OK;
}
#else
/* Headers absent at build time: say so instead of failing the build. */
gdt_status gdt__bench_cupti(const gdt_exec_fn *fn, void *stream, long calls, gdt_bench_cupti *out,
                            gdt_error *e)
{
    (void)fn, (void)stream, (void)calls, (void)out;
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "--cupti: gdtune was built without cupti.h");
}
#endif
