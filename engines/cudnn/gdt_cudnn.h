/* The cuDNN backend engine's private parts: graph building blocks, the
 * lowering of each family to a backend operation graph, heuristics, knob
 * enumeration, and plan build/execute.
 *
 * Files: cudnn_common.c (descriptors, tensors, handles, support rules),
 * cudnn_heur.c (heuristics, knobs, plan finalization), cudnn_engine.c (the
 * engine ops, lists of configs), cudnn_plan_cache.c (finalized plans in the
 * kernel cache), cudnn_gemm.c (matmul graph), cudnn_sdpa.c (SDPA forward
 * and backward graphs). */
#ifndef GDT_CUDNN_H
#define GDT_CUDNN_H

#include "gdt_cuda.h"
#include "gdt_engines.h"

/* Sized generously: the largest graph (GQA causal backward, bottom-right)
 * creates about 110 descriptors and 26 operations. */
#define GDT__CUDNN_MAX_DESCS 192
#define GDT__CUDNN_MAX_OPS 40
#define GDT__CUDNN_MAX_BINDS 16
/* Knob slots pre-created when reading configs: the 9.19 count (44) plus room
 * for a later runtime that knows more knob types than our headers. */
#define GDT__CUDNN_MAX_KNOB_SLOTS 64

/* Graph forms a backend plan can be built from (the GDT_KNOB_GRAPH value). */
enum { GDT__CUDNN_FORM_COMPOSITE = 0, GDT__CUDNN_FORM_UNIFIED = 1 };

/* What one variant-pack uid is bound to at execute. */
typedef enum gdt__cudnn_bind_kind {
    GDT__BIND_OPERAND,  /* a caller buffer (gdt_operands.ptr[role]) */
    GDT__BIND_HOST_F32, /* a by-value fp32 scalar held in the bind */
    GDT__BIND_HOST_I32, /* a by-value int32 scalar held in the bind */
    GDT__BIND_SCRATCH   /* a slice at the front of the workspace */
} gdt__cudnn_bind_kind;

typedef struct gdt__cudnn_bind {
    int64_t uid;
    gdt__cudnn_bind_kind kind;
    int role;      /* GDT__BIND_OPERAND */
    float f32;     /* GDT__BIND_HOST_F32 */
    int32_t i32;   /* GDT__BIND_HOST_I32 */
    size_t offset; /* GDT__BIND_SCRATCH */
} gdt__cudnn_bind;

/* One problem lowered to a finalized backend operation graph.  Every
 * descriptor it creates is recorded and destroyed with it. */
typedef struct gdt__cudnn_graph {
    gdt_problem problem;
    int form;
    cudnnBackendDescriptor_t graph; /* finalized op graph */
    cudnnBackendDescriptor_t descs[GDT__CUDNN_MAX_DESCS];
    int ndescs;
    cudnnBackendDescriptor_t ops[GDT__CUDNN_MAX_OPS];
    int nops;
    gdt__cudnn_bind binds[GDT__CUDNN_MAX_BINDS];
    int nbinds;
    size_t scratch_bytes; /* front of the workspace (softmax_sum, dQ_accum) */
    int64_t next_uid;     /* for virtual tensors */
} gdt__cudnn_graph;

/* Descriptors outside a graph (heuristics, engines, configs, knob
 * choices), destroyed together. */
typedef struct gdt__cudnn_pool {
    cudnnBackendDescriptor_t *d;
    int n, cap;
} gdt__cudnn_pool;

gdt_status gdt__cudnn_pool_desc(gdt__cudnn_pool *p, cudnnBackendDescriptorType_t type,
                                cudnnBackendDescriptor_t *out, gdt_error *e);
/* Destroys in reverse creation order and empties the pool. */
void gdt__cudnn_pool_free(gdt__cudnn_pool *p);

/* One thread's cuDNN handle (cudnn_common.c, "handles") and the stream it
 * was last given: remembering it keeps cudnnSetStream off the per-call
 * path.  Executes on a handle take turns (the worker drives one GPU from
 * one thread); a plan finalized on a builder thread runs on that thread's
 * handle. */
typedef struct gdt__cudnn_hslot {
    cudnnHandle_t h;
    int device;        /* current when h was created */
    bool busy;         /* a live thread holds it */
    void *stream;      /* last cudnnSetStream on h */
    bool stream_known;
} gdt__cudnn_hslot;

/* A built plan: its graph, the finalized execution plan, and the variant
 * pack of the last pointers it ran with (rebuilt only when they change). */
struct gdt_compiled {
    gdt__cudnn_graph *graph;
    gdt_plan_id id;
    cudnnBackendDescriptor_t plan;
    gdt__cudnn_pool own; /* engine, knob choices, config, plan */
    cudnnHandle_t handle;    /* the building thread's: hs->h */
    gdt__cudnn_hslot *hs;
    size_t plan_workspace;   /* the cuDNN plan's own workspace */
    size_t workspace;        /* what we report: scratch + plan workspace */
    cudnnBackendDescriptor_t pack;
    void *pack_ptrs[GDT__CUDNN_MAX_BINDS];
    void *pack_workspace;
};

/* Tensor flags. */
enum { GDT__T_VIRTUAL = 1, GDT__T_BY_VALUE = 2 };

/* ------------------------------------------------------ cudnn_common.c */

cudnnDataType_t gdt__cudnn_dtype(gdt_dtype t);
/* Creates a descriptor owned by g. */
gdt_status gdt__cudnn_desc(gdt__cudnn_graph *g, cudnnBackendDescriptorType_t type,
                           cudnnBackendDescriptor_t *out, gdt_error *e);
/* A finalized tensor; uid 0 assigns a fresh virtual-range uid. */
gdt_status gdt__cudnn_tensor(gdt__cudnn_graph *g, int64_t uid, cudnnDataType_t dt, int nd,
                             const int64_t *dim, const int64_t *stride, unsigned flags,
                             cudnnBackendDescriptor_t *out, gdt_error *e);
/* Pointwise op y = mode(x[, b[, t]]); axis < 0 leaves the axis unset. */
gdt_status gdt__cudnn_pointwise(gdt__cudnn_graph *g, cudnnPointwiseMode_t mode,
                                cudnnDataType_t prec, int64_t axis, cudnnBackendDescriptor_t x,
                                cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t,
                                cudnnBackendDescriptor_t y, gdt_error *e);
gdt_status gdt__cudnn_matmul(gdt__cudnn_graph *g, cudnnBackendDescriptor_t a,
                             cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c, gdt_error *e);
gdt_status gdt__cudnn_reduction(gdt__cudnn_graph *g, cudnnReduceTensorOp_t op,
                                cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y, gdt_error *e);
gdt_status gdt__cudnn_reshape(gdt__cudnn_graph *g, cudnnBackendDescriptor_t x,
                              cudnnBackendDescriptor_t y, gdt_error *e);
/* Appends an operation descriptor the caller finalized. */
gdt_status gdt__cudnn_add_op(gdt__cudnn_graph *g, cudnnBackendDescriptor_t op, gdt_error *e);
gdt_status gdt__cudnn_bind_operand(gdt__cudnn_graph *g, int64_t uid, gdt_operand_role r, gdt_error *e);
gdt_status gdt__cudnn_bind_f32(gdt__cudnn_graph *g, int64_t uid, float v, gdt_error *e);
gdt_status gdt__cudnn_bind_i32(gdt__cudnn_graph *g, int64_t uid, int32_t v, gdt_error *e);
gdt_status gdt__cudnn_bind_scratch(gdt__cudnn_graph *g, int64_t uid, size_t bytes, gdt_error *e);

/* Destroys a graph (cudnn_graph.c creates them); NULL is a no-op. */
void gdt__cudnn_graph_destroy(gdt__cudnn_graph *g);
/* CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT. */
gdt_status gdt__cudnn_engine_count(const gdt__cudnn_graph *g, int64_t *n, gdt_error *e);

/* Graph forms worth listing for a problem, in listing order (unified first
 * where the runtime accepts it); returns the count. */
int gdt__cudnn_forms(const gdt_problem *p, int version, int forms[2]);
/* Pure support rules (no cuDNN call): OK or NOT_SUPPORTED with the reason. */
gdt_status gdt__cudnn_support(const gdt_facts *f, const gdt_plan_id *id, int version, gdt_error *e);

/* CUDNN_ATTR_OPERATIONGRAPH_HANDLE and CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
 * which cuDNN 9.19's headers mark deprecated but which bind graphs and
 * plans to the device. */
extern const cudnnBackendAttributeName_t gdt__cudnn_attr_graph_handle;
extern const cudnnBackendAttributeName_t gdt__cudnn_attr_plan_handle;

/* The calling thread's handle, created (or taken from the pool) lazily on
 * the thread's current device; NO_DEVICE without a GPU. */
gdt_status gdt__cudnn_thread_handle(gdt__cudnn_hslot **out, gdt_error *e);
/* Its cudnnHandle_t. */
gdt_status gdt__cudnn_handle(cudnnHandle_t *h, gdt_error *e);

/* Heuristic results of one mode for a finalized graph, appended to
 * (*list, *n) as backend entries tagged with the mode. */
gdt_status gdt__cudnn_heuristics(gdt__cudnn_graph *g, gdt_mode mode, gdt_plan_entry **list,
                                 int *n, gdt_error *e);
/* Knob enumeration of one graph (odometer order, at most cap per engine). */
gdt_status gdt__cudnn_knob_walk(gdt__cudnn_graph *g, int cap, gdt_plan_entry **list, int *n,
                                gdt_error *e);
/* Appends one entry to a malloc'd list. */
gdt_status gdt__cudnn_list_push(gdt_plan_entry **list, int *n, const gdt_plan_entry *x, gdt_error *e);
/* Finalizes the execution plan of c->id over c->graph into c (engine ->
 * knob choices -> config -> plan), or from its text in the cache under
 * o->cache_dir (*hit).  A step cuDNN refuses is a decline: NOT_SUPPORTED
 * with cuDNN's last error string. */
gdt_status gdt__cudnn_plan_finalize(gdt_compiled *c, const gdt_build_opts *o, bool *hit,
                                    gdt_error *e);

/* ------------------------------------------------------ cudnn_plan_cache.c */

struct gdt_nvrtc_key;
/* The cache key of c's plan on dev; false when it cannot be named (no
 * driver, no device name). */
bool gdt__cudnn_plan_key(const gdt_compiled *c, const gdt_device_props *dev,
                         struct gdt_nvrtc_key *k);
/* c->plan finalized from the cached text; false on a miss or any failure. */
bool gdt__cudnn_plan_load(gdt_compiled *c, const char *root, const struct gdt_nvrtc_key *k);
/* c->plan's text into the cache, when the backend serializes it. */
void gdt__cudnn_plan_store(const gdt_compiled *c, const char *root, const struct gdt_nvrtc_key *k);

/* ------------------------------------------------------ cudnn_graph.c */

/* Lowers a problem in one graph form and finalizes the op graph.  h binds
 * the graph to the device; NULL (no GPU) still finalizes the graph, but
 * heuristics and plans need it: a handle-less graph targets no device
 * (on the H200 its plans failed execute with ARCH_MISMATCH and every SDPA
 * engine config refused to finalize).  NOT_SUPPORTED when the form does
 * not apply. */
gdt_status gdt__cudnn_graph_create(const gdt_problem *p, int form, cudnnHandle_t h,
                                   gdt__cudnn_graph **out, gdt_error *e);

/* ------------------------------------------------ cudnn_gemm.c, cudnn_sdpa.c */

gdt_status gdt__cudnn_gemm_graph(gdt__cudnn_graph *g, const gdt_gemm_desc *d, gdt_error *e);
gdt_status gdt__cudnn_sdpa_fwd_graph(gdt__cudnn_graph *g, const gdt_sdpa_desc *d, gdt_error *e);
gdt_status gdt__cudnn_sdpa_fwd_unified_graph(gdt__cudnn_graph *g, const gdt_sdpa_desc *d,
                                             gdt_error *e);
gdt_status gdt__cudnn_sdpa_bwd_graph(gdt__cudnn_graph *g, const gdt_sdpa_desc *d, gdt_error *e);

#endif
