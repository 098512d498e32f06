/* The worker protocol's messages (gdt_worker.h), each field declared once:
 * one row (key, kind, required, range, default, nested rows) per field of
 * each request, each reply and each object nested in a reply.  The sweep
 * encodes requests and reads replies through these rows, the worker reads
 * requests and writes replies through them, so a key is spelled here and
 * nowhere else.  A request holding a key its rows do not know is refused
 * by name.  A result reply is journaled as it came: its body's rows are
 * also the journal's result record's (record.c adds the record's own
 * keys), with the same kinds and ranges.  Private to the harness. */
#ifndef GDT_WIRE_H
#define GDT_WIRE_H

#include <limits.h>
#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gdt_limits.h"
#include "gdt_measure.h"
#include "gdtune/gdtune.h"

/* X(ID, key, kind, required, lo, hi, default, sub): the rows of each message,
 * a message's rows together.  Ranges are what the command line and the
 * sweep spec allow (gdt_limits.h), so no value outside them reaches a
 * measurement; a default is what the worker takes for an absent field
 * (0 where it keeps gdt_measure_opts_default's value); sub is the nested
 * object's rows (a name of GDT_WIRE_OBJ_MAP) or NOSUB. */
/* The kinds are gdt_table.h's (GDT__STR, ...): the rows expand in wire.c
 * alone, so that a file may include this beside engines/gdt_family.h,
 * whose gdt__field is another type. */
#define GDT_WIRE_BIG 9007199254740991.0 /* 2^53 - 1: JSON's exact integers */
/* Every message's first row: its "op", whose value is the message's own
 * (GDT_WIRE_MSG_MAP). */
#define GDT_WIRE_OP(X, m) X(m##_OP, "op", GDT__NAME, true, 0, 0, 0, NOSUB)
#define GDT_WIRE_HELLO_REQ(X)                                                                      \
    GDT_WIRE_OP(X, HELLO)                                                                                 \
    X(HELLO_CUPTI, "cupti", GDT__BOOL, false, 0, 0, 0, NOSUB)                                             \
    /* the candidate rows to list: a rows file's text (the run header's);                       \
     * absent, the embedded defaults */                                                           \
    X(HELLO_ROWS, "rows", GDT__STR, false, 0, 0, 0, NOSUB)
#define GDT_WIRE_CELL_REQ(X)                                                                       \
    GDT_WIRE_OP(X, CELL)                                                                                  \
    X(CELL_FAMILY, "family", GDT__STR, true, 0, 0, 0, NOSUB)                                              \
    X(CELL_PROBLEM, "problem", GDT__STR, true, 0, 0, 0, NOSUB)                                            \
    X(CELL_SEED, "seed", GDT__INT, false, 1, GDT_WIRE_BIG, 1, NOSUB)                                      \
    X(CELL_KNOB_CAP, "knob_cap", GDT__INT, false, 0, GDT_KNOB_CAP_MAX,       \
      GDT_KNOB_CAP_DEFAULT, NOSUB)                          \
    /* absent (an older parent): every plan built when measured */                                \
    X(CELL_BUILD_THREADS, "build_threads", GDT__INT, false, 0, GDT_BUILD_THREADS_MAX, 0, NOSUB)
#define GDT_WIRE_PLAN_REQ(X)                                                                       \
    GDT_WIRE_OP(X, PLAN)                                                                                  \
    X(PLAN_PLAN, "plan", GDT__OBJ, true, 0, 0, 0, NOSUB)                                                  \
    X(PLAN_BURSTS, "bursts", GDT__NUMS, false, 1, GDT_BURST_MAX, 0, NOSUB)                                \
    X(PLAN_TARGET_REL, "target_rel", GDT__NUM, false, GDT_TARGET_REL_MIN, GDT_TARGET_REL_MAX, 0, NOSUB)   \
    X(PLAN_MAX_SECONDS, "max_seconds", GDT__NUM, false, GDT_PLAN_SECONDS_MIN,                      \
      GDT_PLAN_SECONDS_MAX, 0, NOSUB)                                                                     \
    /* racing: the cell's best so far (absent: measure in full) */                                \
    X(PLAN_RACE_US, "race_us", GDT__NUM, false, 0, 1e12, 0, NOSUB)                                        \
    X(PLAN_RACE_NOISE, "race_noise", GDT__NUM, false, 0, 1e3, 0, NOSUB)                                   \
    /* the bar's margin (absent: GDT_RACE_MARGIN) */                                              \
    X(PLAN_RACE_MARGIN, "race_margin", GDT__NUM, false, 0, 10, 0, NOSUB)                                  \
    /* contenders: the largest burst's cap (absent: its share) */                                 \
    X(PLAN_CONTENDER_SECONDS, "contender_seconds", GDT__NUM, false, 0, GDT_PLAN_SECONDS_MAX, 0, NOSUB)    \
    X(PLAN_CUPTI, "cupti", GDT__BOOL, false, 0, 0, 0, NOSUB)                                              \
    /* the metric series' heat-up (absent: none) */                                               \
    X(PLAN_HEAT_S, "heat_s", GDT__NUM, false, 0, GDT_HEAT_SECONDS_MAX, 0, NOSUB)                          \
    /* the metric's longest sample (absent: every burst) */                                       \
    X(PLAN_METRIC_SAMPLE_S, "metric_sample_s", GDT__NUM, false, 0, GDT_METRIC_SAMPLE_MAX, 0, NOSUB)
#define GDT_WIRE_ROUNDS_REQ(X)                                                                     \
    GDT_WIRE_OP(X, ROUNDS)                                                                                \
    X(ROUNDS_PLANS, "plans", GDT__ARR, true, 0, 0, 0, NOSUB)                                              \
    X(ROUNDS_ROUNDS, "rounds", GDT__INT, true, 2, GDT_ROUNDS_MAX, 0, NOSUB)                               \
    X(ROUNDS_BURSTS, "bursts", GDT__NUMS, false, 1, GDT_BURST_MAX, 0, NOSUB)                              \
    X(ROUNDS_MAX_SECONDS, "max_seconds", GDT__NUM, false, GDT_PLAN_SECONDS_MIN,                    \
      GDT_PLAN_SECONDS_MAX, 0, NOSUB)
#define GDT_WIRE_QUIT_REQ(X) GDT_WIRE_OP(X, QUIT)

/* Replies: their top level. */
#define GDT_WIRE_ERROR_REP(X)                                                                      \
    GDT_WIRE_OP(X, ERROR_R)                                                                                 \
    X(ERROR_R_STATUS, "status", GDT__NAME, true, 0, 0, 0, NOSUB)                                            \
    X(ERROR_R_ERROR, "error", GDT__STR, true, 0, 0, 0, NOSUB)                                               \
    X(ERROR_R_FATAL, "fatal", GDT__BOOL, false, 0, 0, 0, NOSUB)
#define GDT_WIRE_HELLO_REP(X)                                                                      \
    GDT_WIRE_OP(X, HELLO_R)                                                                               \
    X(HELLO_R_DEVICE, "device", GDT__OBJ_NULL, true, 0, 0, 0, DEVICE_O)                                      \
    X(HELLO_R_ERROR, "error", GDT__STR, false, 0, 0, 0, NOSUB)                                            \
    X(HELLO_R_CUPTI_ERROR, "cupti_error", GDT__STR, false, 0, 0, 0, NOSUB)
#define GDT_WIRE_CELL_REP(X)                                                                       \
    GDT_WIRE_OP(X, CELL_R)                                                                                \
    X(CELL_R_PLANS, "plans", GDT__ARR, true, 0, 0, 0, NOSUB)                                              \
    X(CELL_R_REFERENCE, "reference", GDT__STR, true, 0, 0, 0, NOSUB)                                      \
    X(CELL_R_REFERENCE_CPU, "reference_cpu", GDT__BOOL, false, 0, 0, 0, NOSUB)                            \
    X(CELL_R_BUILD_THREADS, "build_threads", GDT__INT, false, 0, GDT_BUILD_THREADS_MAX, 0, NOSUB)         \
    X(CELL_R_PREBUILT, "prebuilt", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                            \
    X(CELL_R_PREBUILD_S, "prebuild_s", GDT__NUM, false, 0, GDT_WIRE_BIG, 0, NOSUB)
/* A plan's result: its "op", then what the journal's result record takes
 * from it as it came (record.c adds the record's own keys to these rows).
 * Ranges in gdt_limits.h's terms: GDT_RECORD_US a time per call in
 * microseconds, GDT_RECORD_CALL_S the seconds of one call. */
#define GDT_WIRE_RESULT_REP(X)                                                                     \
    GDT_WIRE_OP(X, RESULT_R)                                                                       \
    GDT_WIRE_RESULT_BODY(X)
#define GDT_WIRE_RESULT_BODY(X)                                                                    \
    X(RESULT_R_DISPOSITION, "disposition", GDT__STR, true, 0, 0, 0, NOSUB)                         \
    X(RESULT_R_ERROR, "error", GDT__STR, true, 0, 0, 0, NOSUB)                                     \
    X(RESULT_R_BUILD_S, "build_s", GDT__NUM, false, 0, GDT_RECORD_CALL_S, 0, NOSUB)                \
    X(RESULT_R_FATAL, "fatal", GDT__BOOL, false, 0, 0, 0, NOSUB)                                   \
    X(RESULT_R_FATAL_ERROR, "fatal_error", GDT__STR, false, 0, 0, 0, NOSUB)                        \
    /* relative L2 errors: any finite value (garbage outputs), null where                         \
     * an output held NaN or Inf */                                                               \
    X(RESULT_R_VERIFY_ERR, "verify_err", GDT__NUMS_NULL, false, 0, DBL_MAX, 0, NOSUB)              \
    X(RESULT_R_BURSTS, "bursts", GDT__OBJS, false, 0, 0, 0, BURST_O)                               \
    X(RESULT_R_COLD_US, "cold_us", GDT__NUMS, false, 0, GDT_RECORD_US, 0, NOSUB)                   \
    X(RESULT_R_MEDIAN_COLD_US, "median_cold_us", GDT__NUM, false, 0, GDT_RECORD_US, 0, NOSUB)      \
    X(RESULT_R_CONVERGED, "converged", GDT__BOOL, false, 0, 0, 0, NOSUB)                           \
    X(RESULT_R_RACED_OUT, "raced_out", GDT__BOOL, false, 0, 0, 0, NOSUB)                           \
    X(RESULT_R_MEASURE_S, "measure_s", GDT__NUM, false, 0, GDT_RECORD_CALL_S, 0, NOSUB)            \
    X(RESULT_R_TIME_US, "time_us", GDT__NUM, false, 0, GDT_RECORD_US, 0, NOSUB)                    \
    X(RESULT_R_NOISE, "noise", GDT__NUM, false, 0, GDT_WIRE_BIG, 0, NOSUB)                         \
    X(RESULT_R_CLOCKS, "clocks", GDT__OBJ, false, 0, 0, 0, CLOCKS_O)                               \
    /* newer than the first journals: absent there */                                            \
    X(RESULT_R_RACE_BURST, "race_burst", GDT__INT, false, 1, GDT_BURST_MAX, 0, NOSUB)              \
    X(RESULT_R_RACED_LATE, "raced_late", GDT__BOOL, false, 0, 0, 0, NOSUB)                         \
    X(RESULT_R_CUPTI, "cupti", GDT__OBJ, false, 0, 0, 0, CUPTI_O)                                  \
    X(RESULT_R_CUPTI_ERROR, "cupti_error", GDT__STR, false, 0, 0, 0, NOSUB)                        \
    X(RESULT_R_HEAT_S, "heat_s", GDT__NUM, false, 0, GDT_RECORD_CALL_S, 0, NOSUB)                  \
    X(RESULT_R_HEAT_MHZ, "heat_mhz", GDT__NUM, false, 0, GDT_WIRE_BIG, 0, NOSUB)
/* The rounds' reply: its "op", the figures the journal's rounds record
 * takes as they came (record.c: there absent when the rounds failed, so
 * req is the message's), and the call's seconds (the record's measure_s). */
#define GDT_WIRE_ROUNDS_REP(X)                                                                     \
    GDT_WIRE_OP(X, ROUNDS_R)                                                                       \
    GDT_WIRE_ROUNDS_BODY(X, true)                                                                  \
    X(ROUNDS_R_SECONDS, "seconds", GDT__NUM, true, 0, GDT_RECORD_ROUNDS_S, 0, NOSUB)
#define GDT_WIRE_ROUNDS_BODY(X, req)                                                               \
    X(ROUNDS_R_TIME_US, "time_us", GDT__NUMS, req, 0, GDT_RECORD_US, 0, NOSUB)                     \
    X(ROUNDS_R_NOISE, "noise", GDT__NUMS, req, 0, GDT_WIRE_BIG, 0, NOSUB)                          \
    X(ROUNDS_R_RATIOS, "ratios", GDT__NUMS, req, 0, GDT_WIRE_BIG, 0, NOSUB)                        \
    X(ROUNDS_R_ROUND_US, "round_us", GDT__ARR, req, 0, 0, 0, NOSUB)

/* Objects nested in replies, which the journal keeps as the worker sent
 * them: these rows are the journal's tables of them too (record.c), so
 * what the worker writes is what the journal's reader takes.  Ranges in
 * gdt_limits.h's terms (GDT_RECORD_US: a time per call in microseconds). */
#define GDT_WIRE_DEVICE_OBJ(X)                                                                     \
    X(DEVICE_NAME, "name", GDT__NAME, true, 0, GDT_WIRE_BIG, 0, NOSUB)                                    \
    X(DEVICE_ARCH, "arch", GDT__INT, true, 10, 9999, 0, NOSUB)                                            \
    X(DEVICE_UUID, "uuid", GDT__NAME, false, 0, GDT_WIRE_BIG, 0, NOSUB)                                   \
    X(DEVICE_SM_COUNT, "sm_count", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                            \
    X(DEVICE_L2_BYTES, "l2_bytes", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                            \
    X(DEVICE_SMEM_PER_BLOCK, "smem_per_block", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                \
    X(DEVICE_REGS_PER_BLOCK, "regs_per_block", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                \
    X(DEVICE_MAX_THREADS_PER_BLOCK, "max_threads_per_block", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)  \
    X(DEVICE_SM_CLOCK_KHZ, "sm_clock_khz", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                    \
    X(DEVICE_MEM_CLOCK_KHZ, "mem_clock_khz", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                  \
    X(DEVICE_DRIVER_VERSION, "driver_version", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                \
    X(DEVICE_CUDA_VERSION, "cuda_version", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                    \
    X(DEVICE_CUDNN_VERSION, "cudnn_version", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                  \
    X(DEVICE_NVRTC_VERSION, "nvrtc_version", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)                  \
    /* the sweep starts one worker per device */                                                  \
    X(DEVICE_DEVICE_COUNT, "device_count", GDT__INT, false, 0, GDT_WIRE_BIG, 0, NOSUB)
/* One burst size's series (gdt_measure.h, gdt_burst_result). */
#define GDT_WIRE_BURST_OBJ(X)                                                                      \
    X(BURST_BURST, "burst", GDT__INT, true, 1, GDT_BURST_MAX, 0, NOSUB)                                   \
    X(BURST_HOST_US, "host_us", GDT__NUMS, true, 0, GDT_RECORD_US, 0, NOSUB)                              \
    X(BURST_DEVICE_US, "device_us", GDT__NUMS, true, 0, GDT_RECORD_US, 0, NOSUB)                          \
    X(BURST_TOTAL_US, "total_us", GDT__NUMS, true, 0, GDT_RECORD_US, 0, NOSUB)                            \
    X(BURST_MEDIAN_HOST_US, "median_host_us", GDT__NUM, false, 0, GDT_RECORD_US, 0, NOSUB)                \
    X(BURST_MEDIAN_DEVICE_US, "median_device_us", GDT__NUM, false, 0, GDT_RECORD_US, 0, NOSUB)            \
    X(BURST_REL_SPREAD, "rel_spread", GDT__NUM, false, 0, GDT_WIRE_BIG, 0, NOSUB)                         \
    X(BURST_DROPPED, "dropped", GDT__INT, false, 0, INT_MAX, 0, NOSUB)                                    \
    /* absent in older journals */                                                                \
    X(BURST_CLOCK_MHZ, "clock_mhz", GDT__NUMS, false, 0, GDT_WIRE_BIG, 0, NOSUB)
/* What the clock probe saw (gdt_measure_clocks). */
#define GDT_WIRE_CLOCKS_OBJ(X)                                                                     \
    X(CLOCKS_RATED_MHZ, "rated_mhz", GDT__NUM, false, 0, GDT_WIRE_BIG, 0, NOSUB)                          \
    X(CLOCKS_MIN_MHZ, "min_mhz", GDT__NUM, false, 0, GDT_WIRE_BIG, 0, NOSUB)                              \
    X(CLOCKS_MAX_MHZ, "max_mhz", GDT__NUM, false, 0, GDT_WIRE_BIG, 0, NOSUB)                              \
    X(CLOCKS_PROBES, "probes", GDT__NUM, false, 0, GDT_WIRE_BIG, 0, NOSUB)                                \
    X(CLOCKS_THRESHOLD, "threshold", GDT__NUM, false, 0, GDT_WIRE_BIG, 0, NOSUB)

/* The traced burst (gdt_cupti.h, gdt_cupti_result) and its main kernel
 * (gdt_cupti_kernel). */
#define GDT_WIRE_CUPTI_OBJ(X)                                                                      \
    X(CUPTI_BURST, "burst", GDT__INT, true, 1, GDT_BURST_MAX, 0, NOSUB)                            \
    X(CUPTI_KERNELS, "kernels", GDT__NUM, true, 0, GDT_WIRE_BIG, 0, NOSUB)                         \
    X(CUPTI_KERNEL_US, "kernel_us", GDT__NUM, true, 0, GDT_RECORD_US, 0, NOSUB)                    \
    X(CUPTI_EVENT_US, "event_us", GDT__NUM, true, 0, GDT_RECORD_US, 0, NOSUB)                      \
    X(CUPTI_GAP_US, "gap_us", GDT__NUM, true, -GDT_RECORD_US, GDT_RECORD_US, 0, NOSUB)             \
    X(CUPTI_SPAN_US, "span_us", GDT__NUM, true, 0, GDT_RECORD_US, 0, NOSUB)                        \
    /* absent before 2026-12-02 */                                                                \
    X(CUPTI_KERNEL, "kernel", GDT__OBJ, false, 0, 0, 0, CUPTI_KERNEL_O)
#define GDT_WIRE_CUPTI_KERNEL_OBJ(X)                                                               \
    X(CUPTI_K_NAME, "name", GDT__STR, true, 0, 0, 0, NOSUB)                                        \
    X(CUPTI_K_GRID, "grid", GDT__NUMS, true, 1, INT_MAX, 0, NOSUB)                                 \
    X(CUPTI_K_BLOCK, "block", GDT__NUMS, true, 1, 1024, 0, NOSUB)                                  \
    X(CUPTI_K_CLUSTER, "cluster", GDT__NUMS, true, 0, 16, 0, NOSUB)                                \
    X(CUPTI_K_REGISTERS, "registers", GDT__INT, true, 0, 255, 0, NOSUB)                            \
    X(CUPTI_K_SMEM, "smem", GDT__INT, true, 0, INT_MAX, 0, NOSUB)                                  \
    X(CUPTI_K_SHARE, "share", GDT__NUM, true, 0, 1, 0, NOSUB)

/* Every message, X(MSG, op, rows); the nested objects, X(OBJ, first row, rows). */
#define GDT_WIRE_MSG_MAP(X)                                                                        \
    X(HELLO, "hello", GDT_WIRE_HELLO_REQ)                                                          \
    X(CELL, "cell", GDT_WIRE_CELL_REQ)                                                             \
    X(PLAN, "plan", GDT_WIRE_PLAN_REQ)                                                             \
    X(ROUNDS, "rounds", GDT_WIRE_ROUNDS_REQ)                                                       \
    X(QUIT, "quit", GDT_WIRE_QUIT_REQ)                                                             \
    X(ERROR_R, "error", GDT_WIRE_ERROR_REP)                                                        \
    X(HELLO_R, "hello", GDT_WIRE_HELLO_REP)                                                        \
    X(CELL_R, "cell", GDT_WIRE_CELL_REP)                                                           \
    X(RESULT_R, "result", GDT_WIRE_RESULT_REP)                                                     \
    X(ROUNDS_R, "rounds", GDT_WIRE_ROUNDS_REP)
#define GDT_WIRE_OBJ_MAP(X)                                                                        \
    X(DEVICE_O, DEVICE_NAME, GDT_WIRE_DEVICE_OBJ)                                                  \
    X(BURST_O, BURST_BURST, GDT_WIRE_BURST_OBJ)                                                    \
    X(CLOCKS_O, CLOCKS_RATED_MHZ, GDT_WIRE_CLOCKS_OBJ)                                             \
    X(CUPTI_O, CUPTI_BURST, GDT_WIRE_CUPTI_OBJ)                                                    \
    X(CUPTI_KERNEL_O, CUPTI_K_NAME, GDT_WIRE_CUPTI_KERNEL_OBJ)

typedef enum gdt__wire_msg {
#define GDT_WIRE_MSG_ENUM(m, op, rows) GDT__WM_##m,
#define GDT_WIRE_OBJ_ENUM(m, first, rows) GDT__WM_##m,
    GDT_WIRE_MSG_MAP(GDT_WIRE_MSG_ENUM)
    GDT_WIRE_OBJ_MAP(GDT_WIRE_OBJ_ENUM)
#undef GDT_WIRE_OBJ_ENUM
#undef GDT_WIRE_MSG_ENUM
    GDT__WM_COUNT
} gdt__wire_msg;
/* The messages are those before the first nested object. */
#define GDT__WM_MESSAGES GDT__WM_DEVICE_O

/* One id per row of every message: GDT__W_PLAN_TARGET_REL, ... */
typedef enum gdt__wire_field {
#define GDT_WIRE_FIELD_ENUM(id, key, kind, req, lo, hi, def, sub) GDT__W_##id,
#define GDT_WIRE_MSG_FIELDS(m, op, rows) rows(GDT_WIRE_FIELD_ENUM)
    GDT_WIRE_MSG_MAP(GDT_WIRE_MSG_FIELDS)
    GDT_WIRE_OBJ_MAP(GDT_WIRE_MSG_FIELDS)
#undef GDT_WIRE_MSG_FIELDS
#undef GDT_WIRE_FIELD_ENUM
    GDT__W_COUNT
} gdt__wire_field;

/* A row as gdt_table.h's gdt__field, for the two files that hold the rows
 * as tables: wire.c (every message) and record.c (the journal's result
 * record, which is the result reply's body). */
#define GDT__WIRE_SUB_NOSUB NULL
#define GDT__WIRE_SUB_DEVICE_O (&gdt__wire_tables[GDT__WM_DEVICE_O])
#define GDT__WIRE_SUB_BURST_O (&gdt__wire_tables[GDT__WM_BURST_O])
#define GDT__WIRE_SUB_CLOCKS_O (&gdt__wire_tables[GDT__WM_CLOCKS_O])
#define GDT__WIRE_SUB_CUPTI_O (&gdt__wire_tables[GDT__WM_CUPTI_O])
#define GDT__WIRE_SUB_CUPTI_KERNEL_O (&gdt__wire_tables[GDT__WM_CUPTI_KERNEL_O])
#define GDT__WIRE_FIELD(id, key, kind, req, lo, hi, def, sub)                                      \
    {key, kind, req, lo, hi, GDT__WIRE_SUB_##sub, def},

/* Message or nested object m's rows (a gdt_table.h table; as an array,
 * gdt__wire_tables in gdt_table.h) and a message's "op" value (NULL for
 * a nested object). */
const struct gdt__table *gdt__wire_table(gdt__wire_msg m);
const char *gdt__wire_op(gdt__wire_msg m);
/* Field f's key, range and default. */
const char *gdt__wire_key(gdt__wire_field f);
double gdt__wire_lo(gdt__wire_field f);
double gdt__wire_hi(gdt__wire_field f);
double gdt__wire_def(gdt__wire_field f);

/* A new message of m with its "op" (NULL when out of memory). */
cJSON *gdt__wire_new(gdt__wire_msg m);
/* Field f of o: added (the row's key; the value of the row's kind, else an
 * assertion fails), or read (NULL when absent). */
void gdt__wire_add_num(cJSON *o, gdt__wire_field f, double v);
void gdt__wire_add_str(cJSON *o, gdt__wire_field f, const char *v);
void gdt__wire_add_bool(cJSON *o, gdt__wire_field f, bool v);
void gdt__wire_add(cJSON *o, gdt__wire_field f, cJSON *item); /* takes item */
cJSON *gdt__wire_get(const cJSON *o, gdt__wire_field f);
/* o is a message of m: its "op" is m's. */
bool gdt__wire_is(const cJSON *o, gdt__wire_msg m);
bool gdt__wire_true(const cJSON *o, gdt__wire_field f);
double gdt__wire_num_or(const cJSON *o, gdt__wire_field f, double def); /* def: absent or no number */
const char *gdt__wire_str(const cJSON *o, gdt__wire_field f); /* NULL: absent or no string */

/* o holds only m's keys, each once: else BAD_INPUT "AT: /key: unknown
 * field \"key\"" (or "duplicate field").  Kinds and ranges are the
 * reader's, field by field. */
gdt_status gdt__wire_known(gdt__wire_msg m, const char *at, const cJSON *o, gdt_error *e);
/* key is a row of m. */
bool gdt__wire_has(gdt__wire_msg m, const char *key);
/* The same against any gdt_table.h table t. */
gdt_status gdt__wire_keys(const struct gdt__table *t, const char *at, const cJSON *o, gdt_error *e);

/* An optional integer or number field of o in its row's range: *out keeps
 * its value when absent; else BAD_INPUT "AT: /key: expected an integer in
 * [lo, hi], got v" (or "a number in"). */
gdt_status gdt__wire_int(const cJSON *o, gdt__wire_field f, const char *at, int64_t *out,
                         gdt_error *e);
gdt_status gdt__wire_number(const cJSON *o, gdt__wire_field f, const char *at, double *out,
                            gdt_error *e);

#endif
