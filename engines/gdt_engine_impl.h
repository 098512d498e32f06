/* The engine interface: what every engine (cudnn, nvrtc, hand, cublaslt,
 * test) implements, the manifest's slots that point at it, and the backend
 * as the planner sees it.  Private to libgdtune and to what drives engines
 * in this tree (the harness, the tests); never installed.  The public
 * headers (gdtune/) hand out gdt_engine_slot, gdt_manifest and gdt_backend
 * as handles, as ggml's ggml-backend.h does with ggml-backend-impl.h.
 *
 * Accept means run: once check_support accepts (facts, plan), build and
 * execute succeed on buffers bound as declared, and the result matches the
 * backend's within the dtype's tolerance.  A buffer smaller than declared is
 * refused at execute naming the operand; nothing else refuses after accept.
 *
 * Streams and contexts are passed as void* so that this header needs no CUDA
 * header; they are cudaStream_t. */
#ifndef GDT_ENGINE_IMPL_H
#define GDT_ENGINE_IMPL_H

#include "gdt_rows.h"
#include "gdtune/plan.h"

typedef struct gdt_compiled gdt_compiled; /* each engine defines its own */

typedef struct gdt_engine_ops {
    /* Accept (OK) or decline (NOT_SUPPORTED, reason in e). */
    gdt_status (*check_support)(const gdt_engine_slot *slot, const gdt_facts *f,
                                const gdt_plan_id *plan, gdt_error *e);
    /* The expensive step: compile/finalize.  With opts->compile_only the
     * engine stops after compiling and returns *out = NULL. */
    gdt_status (*build)(const gdt_engine_slot *slot, const gdt_facts *f, const gdt_plan_id *plan,
                        const gdt_build_opts *opts, gdt_compiled **out, gdt_build_info *info,
                        gdt_error *e);
    size_t (*workspace_size)(const gdt_compiled *c);
    gdt_status (*execute)(gdt_compiled *c, const gdt_operands *ops, void *workspace,
                          size_t workspace_bytes, void *stream, gdt_error *e);
    void (*destroy)(gdt_compiled *c);
    /* Optional, for an engine of fixed configurations (a slot without
     * candidate rows): writes the configurations it offers for a problem,
     * in the order to try them untimed, into out[0 .. cap-1] and returns
     * how many.  NULL: the planner lists the slot once, by its bare id. */
    int (*fixed_plans)(const gdt_engine_slot *slot, const gdt_facts *f, gdt_plan_id *out, int cap);
    /* true when check_support and build may run on several threads at once,
     * each thread building its own plan (gdt_graph_prebuild), and the
     * compiled plan then executes on the thread that asks for it.  Each
     * builder thread has the caller's CUDA device current before its first
     * build.  false (the default): the engine builds only on the caller's
     * thread, when a plan is requested. */
    bool build_thread_safe;
} gdt_engine_ops;

/* The members every engine sets, over its static functions of the same
 * names; an ops table adds its optional members after them:
 *     const gdt_engine_ops gdt__nvrtc_ops = {GDT_ENGINE_OPS_NAMED}; */
#define GDT_ENGINE_OPS_NAMED                                                                       \
    .check_support = check_support, .build = build, .workspace_size = workspace_size,             \
    .execute = execute, .destroy = destroy

/* The most fixed configurations one slot may list. */
#define GDT_FIXED_PLANS_MAX 24

/* Capability row: what a slot can serve.  Judged against facts. */
typedef struct gdt_capability {
    int sm_lo, sm_hi;        /* major*10+minor, inclusive */
    unsigned dtypes;         /* bitmask of 1u << gdt_dtype */
    int head_dim_lo, head_dim_hi, head_dim_multiple; /* sdpa only; 0 = any */
} gdt_capability;

struct gdt_engine_slot {
    gdt_family family;
    int slot;
    const char *name;          /* "gemm.nvrtc" */
    gdt_engine_kind kind;
    /* The NVRTC template a row-bound engine instantiates (its row family is
     * tmpl->rows), or NULL for an engine with fixed plans. */
    const struct gdt_nvrtc_template *tmpl;
    gdt_capability cap;
    bool opt_in;               /* enabled only when GDTUNE_ENABLE_OPT_IN=1 (or the manifest says so) */
    const gdt_engine_ops *ops;
};

struct gdt_manifest {
    const gdt_engine_slot *slots;
    int nslots;
    bool enable_opt_in;        /* tests set this for their stand-ins */
};

/* list() returns the backend's entries for one heuristic mode (malloc'd,
 * tagged with that mode); NULL backend or a list() failure leaves the
 * marker unexpanded.  enumerate() (may be NULL) returns every config
 * reachable through the backend's knobs, at most cap per engine, with mode
 * GDT_MODE_COUNT ("enumerated"); only gdt_graph_enumerate asks for it. */
struct gdt_backend {
    gdt_status (*list)(void *ctx, const gdt_facts *f, gdt_mode mode, gdt_plan_entry **out, int *n,
                       gdt_error *e);
    const gdt_engine_ops *ops; /* builds and executes backend entries */
    void *ctx;
    gdt_status (*enumerate)(void *ctx, const gdt_facts *f, int cap, gdt_plan_entry **out, int *n,
                            gdt_error *e);
};

/* The candidate-row family of slot s (its template's), or NULL for an
 * engine with fixed plans. */
const gdt_row_family *gdt__slot_rows(const gdt_engine_slot *s);

#endif
