/* The GPU tests' --bench figures (test_nvrtc_gemm, test_nvrtc_attention):
 * a quick look at a built plan, printed and never asserted.  The sweep's
 * own measurement is harness/measure.c. */
#ifndef GDT_BENCH_H
#define GDT_BENCH_H

#include "gdt_verify.h"
#include "gdt_engines.h"

typedef struct gdt_bench_timing {
    double device_us, host_us; /* per execute: device (events), host enqueue */
} gdt_bench_timing;

/* Best of three bursts of n executes from a synchronized device, after a
 * warm-up of three. */
gdt_bench_timing gdt_bench_time_plan(const gdt_engine_ops *ops, gdt_compiled *c, gdt_buffers *b, int n);

#endif
