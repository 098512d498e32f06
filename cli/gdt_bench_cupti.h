/* `gdtune bench`'s second clock (cli/cli_bench_cupti.c).  Private to
 * the CLI. */
#ifndef GDT_BENCH_CUPTI_H
#define GDT_BENCH_CUPTI_H

#include "gdt_measure.h"

typedef struct gdt_bench_cupti {
    double kernels_per_call; /* kernel records per execute */
    double kernel_us;        /* kernel time per execute */
    double span_us;          /* first kernel start to last kernel end, per execute */
} gdt_bench_cupti;

/* Runs fn calls times on stream with CUPTI kernel activity records on and
 * drains it.  NOT_SUPPORTED when gdtune was built without cupti.h. */
gdt_status gdt__bench_cupti(const gdt_exec_fn *fn, void *stream, long calls, gdt_bench_cupti *out,
                            gdt_error *e);

#endif
