/* A problem's operation graph: the family lowering its (family, form)
 * names (cudnn_gemm.c, cudnn_sdpa.c), then the finalized op graph. */
#include <stdlib.h>

#include "cudnn/gdt_cudnn.h"
#include "gdt_util.h"

#define SET(d, attr, type, n, p) GDT_CHECK_CUDNN(e, cudnnBackendSetAttribute((d), (attr), (type), (n), (p)))

/* Virtual tensors take uids from here up; caller-bound tensors stay below. */
#define GDT__CUDNN_VIRTUAL_UID0 1000

static gdt_status lower(gdt__cudnn_graph *g, const gdt_problem *p, int form, gdt_error *e)
{
    if (p->family == GDT_FAMILY_GEMM && form == GDT__CUDNN_FORM_COMPOSITE)
        return gdt__cudnn_gemm_graph(g, &p->u.gemm, e);
    if (p->family == GDT_FAMILY_SDPA_FWD && form == GDT__CUDNN_FORM_COMPOSITE)
        return gdt__cudnn_sdpa_fwd_graph(g, &p->u.sdpa, e);
    if (p->family == GDT_FAMILY_SDPA_FWD && form == GDT__CUDNN_FORM_UNIFIED)
        return gdt__cudnn_sdpa_fwd_unified_graph(g, &p->u.sdpa, e);
    if (p->family == GDT_FAMILY_SDPA_BWD && form == GDT__CUDNN_FORM_COMPOSITE)
        return gdt__cudnn_sdpa_bwd_graph(g, &p->u.sdpa, e);
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "cudnn: family %s has no graph form GRAPH=%d",
                         gdt_family_name(p->family), form);
}

static gdt_status graph_finalize(gdt__cudnn_graph *g, cudnnHandle_t h, gdt_error *e)
{
    gdt_status s = gdt__cudnn_desc(g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g->graph, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (h)
        SET(g->graph, gdt__cudnn_attr_graph_handle, CUDNN_TYPE_HANDLE, 1, &h);
    SET(g->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, g->nops, g->ops);
    GDT_CHECK_CUDNN(e, cudnnBackendFinalize(g->graph));
    return GDT_STATUS_OK;
}

gdt_status gdt__cudnn_graph_create(const gdt_problem *p, int form, cudnnHandle_t h,
                                   gdt__cudnn_graph **out, gdt_error *e)
{
    *out = NULL;
    gdt__cudnn_graph *g = calloc(1, sizeof *g);
    if (!g)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "cudnn: out of memory for a graph");
    g->problem = *p;
    g->form = form;
    g->next_uid = GDT__CUDNN_VIRTUAL_UID0;
    gdt_status s = lower(g, p, form, e);
    if (s == GDT_STATUS_OK)
        s = graph_finalize(g, h, e);
    return GDT_CREATED(s, g, gdt__cudnn_graph_destroy, out);
}
