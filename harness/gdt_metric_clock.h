/* The SM clock a journaled result's metric was measured at (metric_clock.c):
 * what the probe read after each kept sample of its largest burst
 * (`clock_mhz`).  Shared by the report's "SM clock of the metric" and
 * `tables diff --runs`.  Private to the harness and reports. */
#ifndef GDT_METRIC_CLOCK_H
#define GDT_METRIC_CLOCK_H

#include <stdbool.h>

#include <cjson/cJSON.h>

typedef struct gdt_metric_clock {
    int samples;      /* clocks read (a 0, a probe without a clock, is left out) */
    double median_mhz, min_mhz, max_mhz;
    double rated_mhz; /* the result's clocks.rated_mhz, 0 when absent */
} gdt_metric_clock;

/* The result's burst of the largest size (the metric's), NULL when none. */
const cJSON *gdt_result_largest_burst(const cJSON *result);

/* false when the result records no clock for its largest burst (journals
 * before per-sample clocks, a GPU whose probe reads none). */
bool gdt_metric_clock_of(const cJSON *result, gdt_metric_clock *out);

#endif
