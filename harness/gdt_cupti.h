/* CUPTI kernel activity records as a second device clock beside the events
 * (cupti.c): one traced burst, shared by `gdtune bench --cupti` and
 * `gdtune sweep --cupti`.  Private to the harness; runs where the GPU is
 * (bench, the worker). */
#ifndef GDT_CUPTI_H
#define GDT_CUPTI_H

#include "gdt_measure.h"

/* The kernel that took the most of a traced burst's kernel time (summed
 * by name): what the plan launched, for a reader and for features of
 * plans whose knobs are opaque (a backend's configs).  name is CUPTI's
 * (mangled where the kernel is C++), cut at GDT_CUPTI_NAME_MAX - 1 bytes. */
#define GDT_CUPTI_NAME_MAX 512
typedef struct gdt_cupti_kernel {
    char name[GDT_CUPTI_NAME_MAX];
    int grid[3], block[3], cluster[3]; /* cluster 0 0 0: launched without one */
    int registers;                     /* per thread */
    int smem;                          /* static + dynamic shared memory, bytes per block */
    double share;                      /* its kernel time / the burst's kernel time */
} gdt_cupti_kernel;

/* One traced burst, every figure per call (an execute of the plan). */
typedef struct gdt_cupti_burst {
    long calls;
    double kernels;   /* kernel records: more than 1 for a multi-kernel plan */
    double kernel_us; /* sum of the kernel durations */
    double span_us;   /* first kernel start to last kernel end */
    double event_us;  /* event time of the traced burst */
    double gap_us;    /* event_us - kernel_us: launch gaps and idle time between kernels */
    gdt_cupti_kernel main; /* main.name empty when no kernel was recorded */
} gdt_cupti_burst;

/* Whether CUPTI's activity API works in this process (library present,
 * kernel activity can be enabled): CUPTI naming the call and CUPTI's own
 * result string otherwise; NOT_SUPPORTED when gdtune was built without
 * cupti.h. */
gdt_status gdt_cupti_check(gdt_error *e);

/* calls executes of fn on stream, between two events, with kernel activity
 * records on; drains them before returning.  Tracing adds host cost per
 * launch, so only device figures are read from it. */
gdt_status gdt_cupti_trace(const gdt_exec_fn *fn, void *stream, long calls, gdt_cupti_burst *out,
                           gdt_error *e);

/* The traced burst of `burst` calls as JSON (cupti_json.c): burst, kernels,
 * kernel_us, event_us, gap_us, span_us, and kernel {name, grid, block,
 * cluster, registers, smem, share} when c->main has a name; what the
 * worker replies and `compare` shows.  NULL only out of memory. */
struct cJSON;
struct cJSON *gdt_cupti_json(int burst, const gdt_cupti_burst *c);

#endif
