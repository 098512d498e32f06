/* The engine interface: what every engine (cudnn, nvrtc, hand, test)
 * implements, and the operand vocabulary of each family.
 *
 * Accept means run: once check_support accepts (facts, plan), build and
 * execute succeed on buffers bound as declared, and the result matches the
 * backend's within the dtype's tolerance.  A buffer smaller than declared is
 * refused at execute naming the operand; nothing else refuses after accept.
 *
 * Streams and contexts are passed as void* so that this header needs no CUDA
 * header; they are cudaStream_t. */
#ifndef GDTUNE_ENGINE_H
#define GDTUNE_ENGINE_H

#include "gdtune/gdtune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operand roles, per family.  GEMM uses A, B, C; sdpa_fwd Q, K, V, O, STATS;
 * sdpa_bwd Q, K, V, O, DO, STATS (inputs) and DQ, DK, DV (outputs). */
#define GDT_OPERAND_MAP(X)                                                    \
    X(A, "A") X(B, "B") X(C, "C")                                             \
    X(Q, "Q") X(K, "K") X(V, "V") X(O, "O") X(STATS, "Stats")                 \
    X(DO, "dO") X(DQ, "dQ") X(DK, "dK") X(DV, "dV")

#define GDT__OPERAND_ENUM(name, str) GDT_OPERAND_##name,
typedef enum gdt_operand_role { GDT_OPERAND_MAP(GDT__OPERAND_ENUM) GDT_OPERAND_COUNT } gdt_operand_role;
#undef GDT__OPERAND_ENUM

const char *gdt_operand_name(gdt_operand_role r);
/* Roles a family binds, inputs first; returns the count.  *noutputs gets how
 * many of the trailing roles are outputs. */
int gdt_family_operands(gdt_family f, gdt_operand_role roles[GDT_OPERAND_COUNT], int *noutputs);
/* The roles a family writes, in family order (the trailing ones of
 * gdt_family_operands); returns their count. */
int gdt_family_outputs(gdt_family f, gdt_operand_role roles[GDT_OPERAND_COUNT]);
/* Bytes an operand spans under the problem's strides (0 when the family does
 * not bind the role). */
size_t gdt_operand_bytes(const gdt_problem *p, gdt_operand_role r);
gdt_dtype gdt_operand_dtype(const gdt_problem *p, gdt_operand_role r);

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

/* The most fixed configurations one slot may list. */
#define GDT_FIXED_PLANS_MAX 16

#ifdef __cplusplus
}
#endif
#endif
