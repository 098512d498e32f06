/* The bounds the command line, the sweep spec, the worker protocol and the
 * journal share: the ranges of the sweep settings, of the rounds, and of
 * the figures a worker call can produce.  Constants only, no .c file
 * implements this header: the modules that check a value against a bound
 * (spec.c, record.c, wire.c, ab.c, race.c, worker.c, the CLI) include it
 * without depending on one another.  Private to the harness. */
#ifndef GDT_LIMITS_H
#define GDT_LIMITS_H

/* The ranges of the sweep settings, one set for the command line, the spec
 * and a resumed run's journal header. */
#define GDT_BURST_MAX 4096
#define GDT_TARGET_REL_MIN 1e-5
#define GDT_TARGET_REL_MAX 0.5
#define GDT_NOISE_FLOOR_MAX 0.5
#define GDT_PLAN_SECONDS_MIN 0.01
#define GDT_PLAN_SECONDS_MAX 3600.0
#define GDT_DEADLINE_MIN 1.0
#define GDT_DEADLINE_MAX 86400.0
#define GDT_KNOB_CAP_MAX 1000
/* --cudnn-knob-cap where neither the command line nor the spec sets it. */
#define GDT_KNOB_CAP_DEFAULT 8
/* build_threads: threads that build a cell's cuDNN plans before its
 * measurements (gdt_graph_prebuild); 0 or 1: each plan when measured. */
#define GDT_BUILD_THREADS_MAX 64
#define GDT_SHARDS_MAX 100000
/* --rounds (and `compare --rounds`): interleaved rounds of a cell's best
 * plans, at most GDT_ROUNDS_PLANS_MAX of them (the sweep takes its
 * GDT_ROUNDS_TOP fastest measured in full and each engine kind's fastest). */
#define GDT_ROUNDS_MAX 100
#define GDT_ROUNDS_PLANS_MAX 8
#define GDT_ROUNDS_TOP 3

/* A racing sweep's contenders (plans not raced out): their largest burst,
 * the metric, may take GDT_CONTENDER_FACTOR x max_plan_seconds to reach
 * target_rel (gdt_measure_opts.contender_seconds). */
#define GDT_CONTENDER_FACTOR 2.0

/* The longest worker call a journal can hold the figures of: --deadline
 * is at most GDT_DEADLINE_MAX, and without it a plan's deadline (build,
 * verification, 3 x (1 + GDT_CONTENDER_FACTOR) x GDT_PLAN_SECONDS_MAX of
 * measurement, the heat-up, margins: about 9 hours) stays below it.  A
 * heat-up runs whole bursts, so heat_s passes heat_seconds by up to one
 * burst, and one burst of GDT_BURST_MAX calls may take any part of it. */
#define GDT_RECORD_CALL_S GDT_DEADLINE_MAX
/* A rounds call: one plan deadline per plan. */
#define GDT_RECORD_ROUNDS_S (GDT_ROUNDS_PLANS_MAX * GDT_RECORD_CALL_S)
/* A time per call in microseconds: at most the whole call. */
#define GDT_RECORD_US (GDT_RECORD_CALL_S * 1e6)
/* The lanes a sweep runs (one worker per GPU). */
#define GDT_RECORD_GPUS 1024
/* The largest count and number a field takes when nothing bounds it
 * closer (2^53 - 1: JSON's exact integers). */
#define GDT_RECORD_BIG 9007199254740991.0

#endif
