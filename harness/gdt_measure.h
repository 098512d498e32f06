/* Measurement from a drained queue across burst sizes (DESIGN: Measuring).
 *
 * For each burst size b: synchronize; host clock; event; enqueue b executes;
 * host clock (host enqueue per call); event; synchronize (device time per
 * call).  Repeated until the relative spread of the estimate is under the
 * target or the time cap is reached.  Warm-up stays outside the numbers.
 * A clock probe marks samples taken while the SM clock is below threshold;
 * they are dropped.  Runs only in the worker (it touches the GPU). */
#ifndef GDT_MEASURE_H
#define GDT_MEASURE_H

#include "gdtune/gdtune.h"

#define GDT_MAX_BURSTS 8
#define GDT_MAX_SAMPLES 200

/* What is measured: one execute of a built plan on bound buffers. */
typedef struct gdt_exec_fn {
    gdt_status (*execute)(void *ctx, void *stream, gdt_error *e);
    void *ctx;
} gdt_exec_fn;

typedef struct gdt_measure_opts {
    int bursts[GDT_MAX_BURSTS];
    int nbursts;          /* default {1, 4, 16, 64} */
    double target_rel;    /* default 0.005 */
    double max_seconds;   /* per plan, all bursts; default 2.0 */
    int min_samples;      /* default 5 */
    bool cold;            /* also take cold-L2 samples (L2 flushed before each call) */
    size_t l2_bytes;      /* for the flush buffer */
} gdt_measure_opts;

void gdt_measure_opts_default(gdt_measure_opts *o);

typedef struct gdt_burst_result {
    int burst;
    int n;                              /* samples kept */
    double host_us[GDT_MAX_SAMPLES];    /* host enqueue per call */
    double device_us[GDT_MAX_SAMPLES];  /* device time per call (events) */
    double total_us[GDT_MAX_SAMPLES];   /* wall time per call to drain */
    double median_host_us, median_device_us;
    double rel_spread;                  /* relative spread of the estimate */
    int dropped;                        /* samples dropped by the clock probe */
} gdt_burst_result;

typedef struct gdt_measure_result {
    gdt_burst_result bursts[GDT_MAX_BURSTS];
    int nbursts;
    double cold_us[GDT_MAX_SAMPLES];    /* cold-L2 device time per call */
    int ncold;
    double median_cold_us;
    bool converged;                     /* every burst reached the target */
    double seconds;                     /* wall time spent measuring */
} gdt_measure_result;

/* Measures fn on stream (a cudaStream_t).  *out is caller-owned (large:
 * allocate it). */
gdt_status gdt_measure(const gdt_exec_fn *fn, void *stream, const gdt_measure_opts *o,
                       gdt_measure_result *out, gdt_error *e);

/* The device-rate figure of a result: median device time per call at the
 * largest burst, with its relative spread. */
double gdt_measure_best_us(const gdt_measure_result *r, double *noise);

#endif
