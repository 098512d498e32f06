/* The cuDNN backend engine: support check, build, execute, the ops table,
 * the backend's plan lists per heuristic mode, and knob enumeration.
 *
 * A plan id is (engine global index, knob choices); GDT_KNOB_GRAPH=1 marks
 * plans of the unified SDPA_FWD op, absent means the composite graph.
 * Workspace layout: the graph's scratch tensors (sdpa_bwd: softmax_sum,
 * dQ_accum) at the front, the cuDNN plan's own workspace after them. */
#include <stdlib.h>
#include <string.h>

#include "cudnn/gdt_cudnn.h"
#include "gdt_util.h"

int gdt_cudnn_runtime_version(void) { return (int)cudnnGetVersion(); }

static gdt_status cudnn_check_support(const gdt_engine_slot *slot, const gdt_facts *f,
                                      const gdt_plan_id *plan, gdt_error *e)
{
    (void)slot;
    return gdt__cudnn_support(f, plan, gdt_cudnn_runtime_version(), e);
}

static void cudnn_destroy(gdt_compiled *c)
{
    if (!c)
        return;
    if (c->pack)
        cudnnBackendDestroyDescriptor(c->pack);
    gdt__cudnn_pool_free(&c->own);
    gdt__cudnn_graph_destroy(c->graph);
    free(c);
}

static gdt_status compile_only(const gdt_plan_id *plan, const gdt_build_opts *opts, gdt_error *e)
{
    char name[256];
    gdt_plan_id_format(plan, name, sizeof name);
    return gdt_error_set(e, GDT_STATUS_NO_DEVICE,
                         "cudnn: %s: cuDNN plans cannot be finalized without a GPU (compile-only "
                         "build for sm%d)", name, opts->device.arch);
}

static gdt_status cudnn_build(const gdt_engine_slot *slot, const gdt_facts *f, const gdt_plan_id *plan,
                              const gdt_build_opts *opts, gdt_compiled **out, gdt_build_info *info,
                              gdt_error *e)
{
    *out = NULL;
    if (info)
        memset(info, 0, sizeof *info);
    gdt_status s = cudnn_check_support(slot, f, plan, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (opts && opts->compile_only)
        return compile_only(plan, opts, e);
    gdt_compiled *c = calloc(1, sizeof *c);
    if (!c)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "cudnn: out of memory for a plan");
    c->id = *plan;
    double t0 = gdt_now();
    bool hit = false;
    s = gdt__cudnn_thread_handle(&c->hs, e);
    if (s == GDT_STATUS_OK)
        c->handle = c->hs->h;
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_graph_create(&f->problem, (int)gdt_plan_id_knob(plan, GDT_KNOB_GRAPH, 0),
                                    c->handle, &c->graph, e);
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_plan_finalize(c, opts, &hit, e);
    if (s != GDT_STATUS_OK) {
        cudnn_destroy(c);
        return s;
    }
    if (info) {
        info->compile_seconds = gdt_now() - t0;
        info->cache_hit = hit;
    }
    *out = c;
    return GDT_STATUS_OK;
}

static size_t cudnn_workspace_size(const gdt_compiled *c) { return c ? c->workspace : 0; }

static void *bind_ptr(gdt__cudnn_bind *b, const gdt_operands *ops, char *ws)
{
    switch (b->kind) {
    case GDT__BIND_OPERAND: return ops->ptr[b->role];
    case GDT__BIND_HOST_F32: return &b->f32;
    case GDT__BIND_HOST_I32: return &b->i32;
    default: return ws + b->offset;
    }
}

/* The variant pack is finalized once per set of pointers: the benchmark
 * loop calls with the same buffers, so the pack is built on the first call
 * and reused. */
static gdt_status pack_make(gdt_compiled *c, void **ptrs, void *plan_ws, gdt_error *e)
{
    gdt__cudnn_graph *g = c->graph;
    int64_t uids[GDT__CUDNN_MAX_BINDS];
    for (int i = 0; i < g->nbinds; i++)
        uids[i] = g->binds[i].uid;
    if (c->pack)
        cudnnBackendDestroyDescriptor(c->pack);
    c->pack = NULL;
    GDT_CHECK_CUDNN(e, cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &c->pack));
    GDT_CHECK_CUDNN(e, cudnnBackendSetAttribute(c->pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                                CUDNN_TYPE_INT64, g->nbinds, uids));
    GDT_CHECK_CUDNN(e, cudnnBackendSetAttribute(c->pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                                CUDNN_TYPE_VOID_PTR, g->nbinds, ptrs));
    GDT_CHECK_CUDNN(e, cudnnBackendSetAttribute(c->pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                                CUDNN_TYPE_VOID_PTR, 1, &plan_ws));
    GDT_CHECK_CUDNN(e, cudnnBackendFinalize(c->pack));
    memcpy(c->pack_ptrs, ptrs, (size_t)g->nbinds * sizeof *ptrs);
    c->pack_workspace = plan_ws;
    return GDT_STATUS_OK;
}

static gdt_status check_workspace(const gdt_compiled *c, const void *ws, size_t bytes, gdt_error *e)
{
    if (bytes < c->workspace || (c->workspace > 0 && !ws))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "cudnn: workspace: declared %zu bytes (scratch %zu + plan %zu), got %zu%s",
                             c->workspace, c->graph->scratch_bytes, c->plan_workspace, bytes,
                             ws ? "" : " (NULL pointer)");
    return GDT_STATUS_OK;
}

/* The stream last set is remembered per handle: plans finalized on
 * different builder threads execute on different handles. */
static gdt_status set_stream(gdt__cudnn_hslot *hs, void *stream, gdt_error *e)
{
    if (hs->stream_known && stream == hs->stream)
        return GDT_STATUS_OK;
    GDT_CHECK_CUDNN(e, cudnnSetStream(hs->h, (cudaStream_t)stream));
    hs->stream = stream, hs->stream_known = true;
    return GDT_STATUS_OK;
}

static gdt_status cudnn_execute(gdt_compiled *c, const gdt_operands *ops, void *workspace,
                                size_t workspace_bytes, void *stream, gdt_error *e)
{
    gdt__cudnn_graph *g = c->graph;
    gdt_status s = gdt_operands_check(&g->problem, ops, e);
    if (s == GDT_STATUS_OK)
        s = check_workspace(c, workspace, workspace_bytes, e);
    if (s != GDT_STATUS_OK)
        return s;
    void *ptrs[GDT__CUDNN_MAX_BINDS];
    for (int i = 0; i < g->nbinds; i++)
        ptrs[i] = bind_ptr(&g->binds[i], ops, workspace);
    void *plan_ws = workspace ? (char *)workspace + g->scratch_bytes : NULL;
    if (!c->pack || plan_ws != c->pack_workspace ||
        memcmp(ptrs, c->pack_ptrs, (size_t)g->nbinds * sizeof *ptrs) != 0)
        if ((s = pack_make(c, ptrs, plan_ws, e)) != GDT_STATUS_OK)
            return s;
    if ((s = set_stream(c->hs, stream, e)) != GDT_STATUS_OK)
        return s;
    GDT_CHECK_CUDNN(e, cudnnBackendExecute(c->handle, c->plan, c->pack));
    return GDT_STATUS_OK;
}

const gdt_engine_ops gdt__cudnn_ops = {
    .check_support = cudnn_check_support,
    .build = cudnn_build,
    .workspace_size = cudnn_workspace_size,
    .execute = cudnn_execute,
    .destroy = cudnn_destroy,
    /* Support rules are pure, and a build touches only its own graph and
     * plan descriptors on the building thread's own handle; cuDNN's last
     * error string, which a decline quotes, is per thread. */
    .build_thread_safe = true,
};

/* ------------------------------------------------------- lists of configs */

/* Runs one per-graph step over every graph form of the problem, in
 * listing order.  A unified graph the runtime refuses to finalize is
 * skipped: the composite form serves the same problem. */
typedef gdt_status (*form_step)(gdt__cudnn_graph *g, int arg, gdt_plan_entry **list, int *n,
                                gdt_error *e);

static gdt_status over_forms(const gdt_facts *f, cudnnHandle_t h, form_step step, int arg,
                             gdt_plan_entry **out, int *n, gdt_error *e)
{
    int forms[2], nf = gdt__cudnn_forms(&f->problem, gdt_cudnn_runtime_version(), forms);
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < nf && s == GDT_STATUS_OK; i++) {
        gdt__cudnn_graph *g = NULL;
        gdt_error ge;
        s = gdt__cudnn_graph_create(&f->problem, forms[i], h, &g, &ge);
        if (s != GDT_STATUS_OK && forms[i] == GDT__CUDNN_FORM_UNIFIED) {
            s = GDT_STATUS_OK;
            continue;
        }
        if (s != GDT_STATUS_OK)
            memcpy(e, &ge, sizeof ge);
        else
            s = step(g, arg, out, n, e);
        gdt__cudnn_graph_destroy(g);
    }
    return s;
}

/* Shared preamble of list and enumerate: an empty answer for problems the
 * backend does not serve, NO_DEVICE without a GPU. */
static gdt_status lists_ready(const gdt_facts *f, bool *serves, cudnnHandle_t *h, gdt_error *e)
{
    gdt_error why;
    *h = NULL;
    *serves = gdt__cudnn_support(f, NULL, gdt_cudnn_runtime_version(), &why) == GDT_STATUS_OK;
    if (!*serves)
        return GDT_STATUS_OK;
    return gdt__cudnn_handle(h, e);
}

static gdt_status heur_step(gdt__cudnn_graph *g, int mode, gdt_plan_entry **list, int *n, gdt_error *e)
{
    return gdt__cudnn_heuristics(g, (gdt_mode)mode, list, n, e);
}

static gdt_status cudnn_list(void *ctx, const gdt_facts *f, gdt_mode mode, gdt_plan_entry **out,
                             int *n, gdt_error *e)
{
    (void)ctx;
    *out = NULL, *n = 0;
    if ((int)mode < 0 || mode >= GDT_MODE_COUNT)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "cudnn: no heuristic mode %d", (int)mode);
    if (mode == GDT_MODE_OPENSOURCE)
        return GDT_STATUS_OK; /* the backend has no open-source plans */
    bool serves;
    cudnnHandle_t h;
    gdt_status s = lists_ready(f, &serves, &h, e);
    if (s == GDT_STATUS_OK && serves)
        s = over_forms(f, h, heur_step, (int)mode, out, n, e);
    if (s != GDT_STATUS_OK) {
        free(*out);
        *out = NULL, *n = 0;
    }
    return s;
}

static gdt_status cudnn_enumerate(void *ctx, const gdt_facts *f, int cap, gdt_plan_entry **out, int *n,
                                  gdt_error *e)
{
    (void)ctx;
    return gdt_cudnn_enumerate(f, cap, out, n, e);
}

const gdt_backend *gdt_cudnn_backend(void)
{
    static const gdt_backend backend = {.list = cudnn_list, .ops = &gdt__cudnn_ops,
                                        .enumerate = cudnn_enumerate};
    return &backend;
}

/* The cap bounds each engine's odometer (first knob fastest): an engine's
 * knob space can run to thousands of combinations (KERNEL_CFG alone has 37
 * values for SDPA), and a sweep wants the first cap of them, not all. */
gdt_status gdt_cudnn_enumerate(const gdt_facts *f, int cap_per_engine, gdt_plan_entry **out, int *n,
                               gdt_error *e)
{
    *out = NULL, *n = 0;
    if (cap_per_engine <= 0)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                             "cudnn: enumerate: cap_per_engine must be positive (got %d)",
                             cap_per_engine);
    bool serves;
    cudnnHandle_t h;
    gdt_status s = gdt__cudnn_support(f, NULL, gdt_cudnn_runtime_version(), e);
    if (s == GDT_STATUS_OK)
        s = lists_ready(f, &serves, &h, e);
    if (s == GDT_STATUS_OK && serves)
        s = over_forms(f, h, gdt__cudnn_knob_walk, cap_per_engine, out, n, e);
    if (s != GDT_STATUS_OK) {
        free(*out);
        *out = NULL, *n = 0;
    }
    return s;
}
