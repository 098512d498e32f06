/* CUPTI kernel activity records around one burst (gdt_cupti.h), for
 * `gdtune bench --cupti` and `gdtune sweep --cupti`.  The worker and bench
 * are single-threaded while tracing, so the records are summed into one
 * accumulator the completion callback fills. */
#if __has_include(<cupti.h>)
#include <cupti.h>
#define GDT_HAVE_CUPTI 1
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cuda.h"
#include "gdt_cupti.h"

#ifdef GDT_HAVE_CUPTI

/* The kernels of a burst by name, for its main kernel; a plan launches a
 * few distinct ones (cuDNN's pre/post kernels, a split-K reduction), so
 * names past the table's size only count in the totals. */
enum { NAMES = 16 };

typedef struct named {
    gdt_cupti_kernel k; /* launch shape of its first record */
    uint64_t ns;
} named;

static struct {
    uint64_t kernel_ns, first_start, last_end;
    long kernels;
    named by_name[NAMES];
    int nnames;
} acc;

static void copy_shape(gdt_cupti_kernel *out, const CUpti_ActivityKernel10 *k)
{
    snprintf(out->name, sizeof out->name, "%s", k->name ? k->name : "");
    out->grid[0] = k->gridX, out->grid[1] = k->gridY, out->grid[2] = k->gridZ;
    out->block[0] = k->blockX, out->block[1] = k->blockY, out->block[2] = k->blockZ;
    out->cluster[0] = (int)k->clusterX, out->cluster[1] = (int)k->clusterY;
    out->cluster[2] = (int)k->clusterZ;
    out->registers = k->registersPerThread;
    out->smem = k->staticSharedMemory + k->dynamicSharedMemory;
}

/* Adds a record's duration to its name's entry (a new one while there is
 * room); CUPTI's name pointer is only read here, inside the callback. */
static void count_name(const CUpti_ActivityKernel10 *k)
{
    const char *name = k->name ? k->name : "";
    int i = 0;
    while (i < acc.nnames && strncmp(acc.by_name[i].k.name, name, GDT_CUPTI_NAME_MAX - 1) != 0)
        i++;
    if (i == acc.nnames) {
        if (acc.nnames == NAMES)
            return;
        copy_shape(&acc.by_name[acc.nnames++].k, k);
    }
    acc.by_name[i].ns += k->end - k->start;
}

static void CUPTIAPI on_request(uint8_t **buf, size_t *size, size_t *max_records)
{
    *size = (size_t)4 << 20;
    *buf = aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI on_complete(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *rec = NULL;
    while (buf && cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            continue;
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        acc.kernel_ns += k->end - k->start;
        if (!acc.kernels++ || k->start < acc.first_start)
            acc.first_start = k->start;
        if (k->end > acc.last_end)
            acc.last_end = k->end;
        count_name(k);
    }
    free(buf);
}

#define GDT_CHECK_CUPTI(e, call)                                                             \
    do {                                                                                     \
        CUptiResult r_ = (call);                                                             \
        if (r_ != CUPTI_SUCCESS) {                                                           \
            const char *s_ = "?";                                                            \
            cuptiGetResultString(r_, &s_);                                                   \
            return gdt_error_set(e, GDT_STATUS_CUPTI, "%s:%d: %s failed: %s", __FILE__,      \
                                 __LINE__, #call, s_);                                       \
        }                                                                                    \
    } while (0)

gdt_status gdt_cupti_check(gdt_error *e)
{
    uint32_t version = 0;
    GDT_CHECK_CUPTI(e, cuptiGetVersion(&version));
    GDT_CHECK_CUPTI(e, cuptiActivityRegisterCallbacks(on_request, on_complete));
    GDT_CHECK_CUPTI(e, cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    GDT_CHECK_CUPTI(e, cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    return GDT_STATUS_OK;
}

static gdt_status traced_calls(const gdt_exec_fn *fn, cudaStream_t s, long calls, cudaEvent_t ev[2],
                               gdt_error *e)
{
    gdt_status st = GDT_STATUS_OK;
    GDT_CHECK_CUDA(e, cudaStreamSynchronize(s));
    GDT_CHECK_CUDA(e, cudaEventRecord(ev[0], s));
    for (long i = 0; i < calls && st == GDT_STATUS_OK; i++)
        st = fn->execute(fn->ctx, s, e);
    GDT_CHECK_CUDA(e, cudaEventRecord(ev[1], s));
    GDT_CHECK_CUDA(e, cudaStreamSynchronize(s));
    return st;
}

static gdt_status traced(const gdt_exec_fn *fn, cudaStream_t s, long calls, cudaEvent_t ev[2],
                         float *ms, gdt_error *e)
{
    memset(&acc, 0, sizeof acc);
    GDT_CHECK_CUPTI(e, cuptiActivityRegisterCallbacks(on_request, on_complete));
    GDT_CHECK_CUPTI(e, cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    gdt_status st = traced_calls(fn, s, calls, ev, e);
    /* Tracing is turned off whatever the burst did. */
    GDT_CHECK_CUPTI(e, cuptiActivityFlushAll(1));
    GDT_CHECK_CUPTI(e, cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    if (st != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CUDA(e, cudaEventElapsedTime(ms, ev[0], ev[1]));
    return GDT_STATUS_OK;
}

/* The name with the most kernel time, its share of the burst's. */
static void main_kernel(gdt_cupti_kernel *out)
{
    int best = -1;
    for (int i = 0; i < acc.nnames; i++)
        if (best < 0 || acc.by_name[i].ns > acc.by_name[best].ns)
            best = i;
    if (best < 0)
        return;
    *out = acc.by_name[best].k;
    out->share = acc.kernel_ns ? (double)acc.by_name[best].ns / (double)acc.kernel_ns : 0;
}

gdt_status gdt_cupti_trace(const gdt_exec_fn *fn, void *stream, long calls, gdt_cupti_burst *out,
                           gdt_error *e)
{
    cudaEvent_t ev[2] = {NULL, NULL};
    float ms = 0;
    memset(out, 0, sizeof *out);
    if (calls < 1)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "cupti: %ld calls, expected at least 1", calls);
    cudaError_t ce = cudaEventCreate(&ev[0]);
    if (ce == cudaSuccess)
        ce = cudaEventCreate(&ev[1]);
    gdt_status st = ce == cudaSuccess ? traced(fn, (cudaStream_t)stream, calls, ev, &ms, e)
                                      : gdt__fail_cuda(e, ce, "cudaEventCreate", __FILE__, __LINE__);
    for (int i = 0; i < 2; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    if (st != GDT_STATUS_OK)
        return st;
    out->calls = calls;
    out->kernels = (double)acc.kernels / (double)calls;
    out->kernel_us = (double)acc.kernel_ns / (double)calls / 1e3;
    out->span_us = acc.kernels ? (double)(acc.last_end - acc.first_start) / (double)calls / 1e3 : 0;
    out->event_us = ms * 1e3 / (double)calls;
    out->gap_us = out->event_us - out->kernel_us;
    main_kernel(&out->main);
    return GDT_STATUS_OK;
}
#else
/* Headers absent at build time: say so instead of failing the build. */
gdt_status gdt_cupti_check(gdt_error *e)
{
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "--cupti: gdtune was built without cupti.h");
}

gdt_status gdt_cupti_trace(const gdt_exec_fn *fn, void *stream, long calls, gdt_cupti_burst *out,
                           gdt_error *e)
{
    (void)fn, (void)stream, (void)calls, (void)out;
    return gdt_cupti_check(e);
}
#endif
