/* `gdtune bench --format json` (gdtune.bench/2), built from the records a
 * run fills (cli/cli_bench_json.c).  Private to the CLI (cli_bench.c)
 * and its tests. */
#ifndef GDT_BENCH_JSON_H
#define GDT_BENCH_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "gdt_measure.h"
#include "gdt_verify.h"
#include "gdtune/gdtune.h"

/* --format json's building blocks: they take the records the run fills,
 * not the device, so that tests/cpu/test_bench_json.c can check them with
 * hand-filled ones. */
cJSON *gdt__bench_doc(const gdt_problem *p, const gdt_device_props *dev, int driver_version,
                      int cuda_version, int cudnn_version);
cJSON *gdt__bench_plan_json(const gdt_plan_id *id, int index, int nplans, double build_ms,
                            size_t workspace);
cJSON *gdt__bench_verified_json(const gdt_problem *p, const char *ref_plan, bool cpu_checked,
                                const double *err, int nerr);
cJSON *gdt__bench_measure_json(cJSON *o, const gdt_measure_result *r, const gdt_measure_clocks *c,
                               double flops);
cJSON *gdt__bench_best_json(int tried, int index, const char *name, int64_t engine_id, double us,
                            double flops);
cJSON *gdt__bench_ratio_json(const char *mine, double mine_us, const char *best, double best_us,
                             double flops);
/* TFLOP/s of flops in us microseconds (0 for a time that is not positive). */
double gdt__bench_tflops(double flops, double us);

#endif
