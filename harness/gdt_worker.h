/* Worker isolation (the parent's calls: gdt_worker_proto.h).  The process
 * that runs a sweep never creates a CUDA context: it spawns `gdtune worker`
 * (the process that owns the GPU), talks to it in JSON lines over its stdin
 * and stdout, and kills (SIGKILL) and respawns it when it dies or overruns
 * a deadline.  Private to the harness.
 *
 * Protocol (one JSON object per line each way; every reply has "op"; each
 * message's fields, with their kinds, ranges and defaults, are the rows of
 * gdt_wire.h, which both sides read and write through, and a request with
 * a key its rows do not know is refused by name):
 *   {"op":"hello","cupti":bool,"rows":TEXT}
 *                                       -> {"op":"hello","device":{name, arch, sm_count,
 *                                           l2_bytes, clocks, versions, uuid, device_count}
 *                                           | null, "error":"...","cupti_error":"..."}
 *                                           or {"op":"error",...} (rows that do not load)
 *      (cupti_error only when "cupti" asked and CUPTI's activity API fails;
 *      rows: the candidate rows every cell lists, a rows file's text, the
 *      sweep's as its run header records them, sent to every worker it
 *      starts or respawns; absent, the embedded defaults)
 *   {"op":"cell","family":F,"problem":"k=v,...","seed":N,"knob_cap":N,"build_threads":N}
 *                                       -> {"op":"cell","plans":[plan...],"reference":NAME,
 *                                           "reference_cpu":bool,"build_threads":N,
 *                                           "prebuilt":N,"prebuild_s":x} or {"op":"error",...}
 *      (buffers with random inputs, the plan list, the cuDNN plans built
 *      ahead on build_threads threads (absent, 0 or 1: none; prebuilt: how
 *      many, prebuild_s: the wall time), the reference output; a respawned
 *      worker is handed the cell again and lists and prebuilds it again)
 *   {"op":"plan","plan":plan,"bursts":[...],"target_rel":x,"max_seconds":x,
 *    "race_us":x,"race_noise":x,"race_margin":x,"contender_seconds":x,"cupti":bool,
 *    "heat_s":x}
 *                                       -> {"op":"result","disposition":D,"error":"...",
 *                                           "build_s":x,"verify_err":[x|null],"bursts":[...],
 *                                           "cold_us":[...],"converged":bool,"raced_out":bool,
 *                                           "race_burst":N,"time_us":x,"noise":x,
 *                                           "clocks":{...},"cupti":{burst, kernels, kernel_us,
 *                                           event_us, gap_us, span_us} | "cupti_error":"...",
 *                                           "fatal":bool}
 *      (race_* absent: no race; contender_seconds absent: the largest burst
 *      keeps its share of max_seconds; cupti: one traced burst of the
 *      largest size for a verified plan not raced out, per call figures)
 *   {"op":"rounds","plans":[plan...],"rounds":R,"bursts":[B],"max_seconds":x}
 *                                       -> {"op":"rounds","time_us":[...],"noise":[...],
 *                                           "ratios":[...],"round_us":[[...]...],"seconds":x}
 *                                           or {"op":"error",...,"fatal":bool}
 *      (2 to GDT_ROUNDS_PLANS_MAX plans of the prepared cell, each built on a
 *      graph of its own and verified again, then measured in R interleaved
 *      rounds P1, P2, ..., P1, ...: per plan and round min_samples samples
 *      of the bursts given, max_seconds its cap; per plan the median over
 *      the rounds, the noise left beyond the drift common to all plans, the
 *      median of its per-round time over the first plan's, and each round's
 *      time: gdt_ab.h)
 *   {"op":"quit"}                       -> (exits)
 * plan = {"plan":S,"engine_id":N,"knobs":{KNOB:value,...}} (engines/gdt_plan_json.h: the
 *        identity as the journal and the tables spell it), and in the cell's list
 *        also "backend":bool,"tag":"A"|"B"|"FALLBACK"|"KNOB"|"OURS"|"LIBRARY","untimed":N
 * A reply with "fatal":true means the worker's context is poisoned: it exits
 * after replying and the parent respawns it. */
#ifndef GDT_WORKER_H
#define GDT_WORKER_H

#include <stdbool.h>

#include "gdt_worker_proto.h"
#include "gdtune/gdtune.h"

/* What the clock probe saw, as the worker's results and bench's JSON carry
 * it: {"rated_mhz", "min_mhz", "max_mhz", "probes", "threshold"}. */
struct gdt_measure_clocks;
struct cJSON *gdt__clocks_json(const struct gdt_measure_clocks *c);

/* The worker itself (harness/worker.c): serves the protocol above on stdin
 * and a private copy of stdout (stdout itself goes to stderr, so that a
 * library's printing cannot break a reply) until "quit", end of input or a
 * fatal reply.  Returns the exit code: 0, 1 after a fatal reply or when the
 * channel cannot be set up, 2 when GDTUNE_PLANT_SLOWDOWN is bad. */
int gdt_worker_serve(void);

#endif
