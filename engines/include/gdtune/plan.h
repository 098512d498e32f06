/* The one ranked plan list per problem.
 *
 * A gdt_graph holds one problem.  Planning is one-shot: gdt_graph_plan
 * gathers the facts, the manifest's offered slots with their candidate
 * plans, the backend's entries (tagged with the heuristic mode that produced
 * them), and the tables, and assembles the list: per mode block, the
 * family's proposals with the BACKEND marker where the placement puts it,
 * deduplicated by (engine_id, knobs), first position wins. */
#ifndef GDTUNE_PLAN_H
#define GDTUNE_PLAN_H

#include "gdtune/candidates.h"
#include "gdtune/tables.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend (cuDNN), as the planner sees it: a handle.  NULL in
 * gdt_plan_options leaves the BACKEND marker unexpanded. */
typedef struct gdt_backend gdt_backend;

/* What gdt_graph_execute binds.  Streams are passed as void* so that this
 * header needs no CUDA header; they are cudaStream_t. */
typedef struct gdt_operands {
    void *ptr[GDT_OPERAND_COUNT];    /* device pointers, indexed by role */
    size_t bytes[GDT_OPERAND_COUNT]; /* capacity of each buffer */
} gdt_operands;

/* Refuses (BAD_INPUT, naming the operand, declared and actual bytes) a
 * buffer smaller than the problem declares or a missing pointer. */
gdt_status gdt_operands_check(const gdt_problem *p, const gdt_operands *ops, gdt_error *e);

typedef struct gdt_build_opts {
    gdt_device_props device; /* the target: arch drives code generation */
    bool compile_only;       /* no GPU: compile for device.arch, load nothing */
    const char *cache_dir;   /* compiled-kernel cache root, NULL disables */
} gdt_build_opts;

/* What a build reports beside the compiled plan. */
typedef struct gdt_build_info {
    double compile_seconds;  /* NVRTC or plan finalize */
    double load_seconds;     /* module load */
    bool cache_hit;
    char log[1024];          /* compiler log head, when any */
} gdt_build_info;

typedef struct gdt_plan_options {
    const gdt_manifest *manifest;   /* NULL: gdt_manifest_default() */
    const gdt_row_table *rows;      /* NULL: the embedded default rows */
    const gdt_tables *tables;       /* NULL: untimed default order */
    const gdt_backend *backend;     /* NULL: BACKEND marker unexpanded */
    gdt_mode modes[GDT_MODE_COUNT]; /* mode blocks in order */
    int nmodes;                     /* 0: {A} */
    int knob_cap;                   /* gdt_graph_enumerate: backend knob configs per engine (0: none) */
    /* Told (may be NULL) why a backend block could not be listed; the list
     * goes on without it. */
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
} gdt_plan_options;

typedef struct gdt_graph gdt_graph;

gdt_status gdt_graph_create(const gdt_problem *p, const gdt_device_props *dev, gdt_graph **out,
                            gdt_error *e);
void gdt_graph_destroy(gdt_graph *g);
const gdt_facts *gdt_graph_facts(const gdt_graph *g);

/* One-shot: a second call is BAD_USAGE. */
gdt_status gdt_graph_plan(gdt_graph *g, const gdt_plan_options *opts, gdt_error *e);
int gdt_graph_plan_count(const gdt_graph *g);
const gdt_plan_entry *gdt_graph_plan_at(const gdt_graph *g, int i);

/* Why mode A's first entry is first (`gdtune plans`): the swept cell's
 * measurement, the time model's prediction beyond its interval, the
 * backend's heuristic (the predicted lead within the model's error at that
 * distance, or nothing predicted), a shard's decision, or the untimed
 * order (no tables). */
typedef enum {
    GDT_FIRST_UNTIMED,
    GDT_FIRST_MEASURED,
    GDT_FIRST_PREDICTED,
    GDT_FIRST_HEURISTIC,
    GDT_FIRST_SHARD,
} gdt_first_source;

typedef struct gdt_first_reason {
    gdt_first_source source;
    bool ours;       /* PREDICTED: our plan leads (else a backend config the model ranked first) */
    double lead;     /* PREDICTED, HEURISTIC: the predicted lead over the heuristic's first
                        (its time / the candidate's - 1) of the plan placed first, or of the
                        strongest candidate kept behind it; NaN: none predicted */
    double width;    /* the model's interval at that distance (relative, exp(W) - 1); INF: none */
    double distance; /* to the nearest swept cell in the model's features (log units) */
} gdt_first_reason;

/* false when the graph is not planned or planned no mode-A block. */
bool gdt_graph_first_reason(const gdt_graph *g, gdt_first_reason *out);

/* Instead of a ranked list, every plan a sweep measures for the problem:
 * our candidates (every surviving row of every offered slot, in manifest and
 * row order), then the backend's entries of modes A, B and FALLBACK, then
 * its knob-enumerated configs (opts->knob_cap per engine), each once (the
 * first source wins).  Each entry carries its source (gdt_plan_entry_tag) and
 * its position in the untimed mode-A order (entry.untimed: the order
 * gdt_graph_plan gives without tables; plans that order does not hold follow
 * it, in list order).  opts->tables and opts->modes are not read.  One-shot
 * like gdt_graph_plan (either of the two, once); select, replay, build and
 * execute then work on this list. */
gdt_status gdt_graph_enumerate(gdt_graph *g, const gdt_plan_options *opts, gdt_error *e);

/* Pins plan i: build then tries only that plan, and its decline is an error
 * instead of advancing. */
gdt_status gdt_graph_select(gdt_graph *g, int i, gdt_error *e);

/* Replays a recorded (engine_id, knobs): builds exactly that plan, whether or
 * not this release's ranking lists it. */
gdt_status gdt_graph_replay(gdt_graph *g, const gdt_plan_id *id, gdt_error *e);

/* Walks the list from the selected index (0 unless pinned) and builds the
 * first plan that builds; *built_index receives its position (-1 for a
 * replayed plan).  The compiled plan stays owned by the graph. */
gdt_status gdt_graph_build(gdt_graph *g, const gdt_build_opts *opts, int *built_index,
                           gdt_error *e);

/* What the graph's last build attempt reported (gdt_graph_build's plan, or
 * the last one a failed walk tried; zeros before any build). */
typedef struct gdt_build_report {
    gdt_build_info info;  /* the engine's: compile or finalize seconds, cache hit, log */
    double seconds;       /* wall time of the support check and the build */
    bool prebuilt;        /* taken from gdt_graph_prebuild: seconds is its builder thread's */
} gdt_build_report;
void gdt_graph_last_build(const gdt_graph *g, gdt_build_report *out);

/* Builds plans ahead, on up to `threads` threads (at most 64), and keeps
 * each outcome in the graph: the compiled plan, or the status and message
 * of its decline or failure.  The next gdt_graph_build of such a plan
 * (replayed, pinned or walked to) with the same options takes it instead of
 * building: the same plan, status, message and gdt_build_report as a build
 * at that moment would give (prebuilt set).  A plan is taken once; a later
 * build of it builds again.  Plans never taken are destroyed with the graph.
 *
 * ids[0 .. n-1] names the plans (NULL, n 0: every plan of the graph's list,
 * after gdt_graph_plan or gdt_graph_enumerate).  Only plans whose engine
 * may build on several threads at once (the cuDNN backend's) are
 * prebuilt; the rest, and plans already kept, are left to build when
 * requested.  threads <= 1 builds nothing: every plan builds when
 * requested, exactly as without this call.  *prebuilt (may be NULL)
 * receives how many plans were kept.
 *
 * Each builder thread makes the caller's current CUDA device its own; for
 * cuDNN it builds on a handle of its own (from a process-wide pool, reused
 * by later prebuilds), and the plan executes on that handle.  The call
 * returns once every builder has ended, so nothing it runs overlaps the
 * caller's own work; but it must not run while another thread executes
 * plans an earlier prebuild made (their handles may be reused).  An error
 * (a builder could not start or set the device, options other than those
 * of the plans kept, out of memory) keeps what was built; the rest build
 * when requested. */
gdt_status gdt_graph_prebuild(gdt_graph *g, const gdt_plan_id *ids, int n, int threads,
                              const gdt_build_opts *opts, int *prebuilt, gdt_error *e);

size_t gdt_graph_workspace_size(const gdt_graph *g);
gdt_status gdt_graph_execute(gdt_graph *g, const gdt_operands *ops, void *workspace,
                             size_t workspace_bytes, void *stream, gdt_error *e);

#ifdef __cplusplus
}
#endif
#endif
