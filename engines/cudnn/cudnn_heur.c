/* Engine configs: heuristics per mode, knob enumeration, reading a config
 * back to a plan identity, and finalizing an identity into an execution
 * plan (cudnn-backend.md §2.4-2.7). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn/gdt_cudnn.h"
#include "nvrtc/gdt_nvrtc_cache.h"

#define SET(d, attr, type, n, p) GDT_CHECK_CUDNN(e, cudnnBackendSetAttribute((d), (attr), (type), (n), (p)))
#define GET(d, attr, type, n, got, p) GDT_CHECK_CUDNN(e, cudnnBackendGetAttribute((d), (attr), (type), (n), (got), (p)))

/* cudnn-frontend serializes mode-B heuristic finalizes process-wide: mode B
 * crashed when finalized from several threads at once. */
static pthread_mutex_t heur_b_lock = PTHREAD_MUTEX_INITIALIZER;

gdt_status gdt__cudnn_list_push(gdt_plan_entry **list, int *n, const gdt_plan_entry *x, gdt_error *e)
{
    gdt_plan_entry *l = realloc(*list, (size_t)(*n + 1) * sizeof *l);
    if (!l)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "cudnn: out of memory for the plan list");
    l[(*n)++] = *x;
    *list = l;
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------ config -> plan id */

static gdt_status knob_array(gdt__cudnn_pool *p, cudnnBackendDescriptorType_t type,
                             cudnnBackendDescriptor_t arr[GDT__CUDNN_MAX_KNOB_SLOTS], gdt_error *e)
{
    for (int i = 0; i < GDT__CUDNN_MAX_KNOB_SLOTS; i++) {
        gdt_status s = gdt__cudnn_pool_desc(p, type, &arr[i], e);
        if (s != GDT_STATUS_OK)
            return s;
    }
    return GDT_STATUS_OK;
}

/* Starts an identity: engine global index, plus GRAPH=1 for the unified
 * form (composite is the default and goes unnamed). */
static void id_start(gdt_plan_id *id, int64_t engine, int form)
{
    memset(id, 0, sizeof *id);
    id->engine_id = engine;
    if (form != GDT__CUDNN_FORM_COMPOSITE)
        gdt_plan_id_set_knob(id, GDT_KNOB_GRAPH, form);
}

/* NOT_SUPPORTED when the config carries more knobs than an identity holds. */
static gdt_status cfg_id(cudnnBackendDescriptor_t cfg, int form, gdt__cudnn_pool *p, gdt_plan_id *id,
                         gdt_error *e)
{
    cudnnBackendDescriptor_t eng, kc[GDT__CUDNN_MAX_KNOB_SLOTS];
    int64_t got = 0, idx = 0;
    gdt_status s = gdt__cudnn_pool_desc(p, CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng, e);
    if (s == GDT_STATUS_OK)
        s = knob_array(p, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, kc, e);
    if (s != GDT_STATUS_OK)
        return s;
    GET(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &eng);
    GET(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &idx);
    GET(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        GDT__CUDNN_MAX_KNOB_SLOTS, &got, kc);
    id_start(id, idx, form);
    for (int64_t i = 0; i < got; i++) {
        cudnnBackendKnobType_t type;
        int64_t n = 0, value = 0;
        GET(kc[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &n, &type);
        GET(kc[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &n, &value);
        if (!gdt_plan_id_set_knob(id, (int)type, value))
            return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                                 "cudnn: engine %lld config has more than %d knobs",
                                 (long long)idx, GDT_MAX_KNOBS);
    }
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ heuristics */

static cudnnBackendHeurMode_t heur_mode(gdt_mode m)
{
    return m == GDT_MODE_B ? CUDNN_HEUR_MODE_B
         : m == GDT_MODE_FALLBACK ? CUDNN_HEUR_MODE_FALLBACK : CUDNN_HEUR_MODE_A;
}

static gdt_status finalize(cudnnBackendDescriptor_t h, gdt_error *e)
{
    GDT_CHECK_CUDNN(e, cudnnBackendFinalize(h));
    return GDT_STATUS_OK;
}

static gdt_status heur_finalize(cudnnBackendDescriptor_t h, gdt_mode mode, gdt_error *e)
{
    if (mode != GDT_MODE_B)
        return finalize(h, e);
    pthread_mutex_lock(&heur_b_lock);
    gdt_status s = finalize(h, e);
    pthread_mutex_unlock(&heur_b_lock);
    return s;
}

/* The ranked configs of one mode, created in p. */
static gdt_status heur_run(gdt__cudnn_graph *g, gdt_mode mode, gdt__cudnn_pool *p,
                           cudnnBackendDescriptor_t **cfgs, int64_t *ncfg, gdt_error *e)
{
    cudnnBackendDescriptor_t h;
    cudnnBackendHeurMode_t hm = heur_mode(mode);
    gdt_status s = gdt__cudnn_pool_desc(p, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &h, e);
    if (s != GDT_STATUS_OK)
        return s;
    SET(h, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->graph);
    SET(h, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm);
    if ((s = heur_finalize(h, mode, e)) != GDT_STATUS_OK)
        return s;
    int64_t n = 0;
    GET(h, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n, NULL);
    *ncfg = 0;
    *cfgs = calloc(n > 0 ? (size_t)n : 1, sizeof **cfgs);
    if (!*cfgs)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "cudnn: out of memory for %lld configs", (long long)n);
    for (int64_t i = 0; i < n && s == GDT_STATUS_OK; i++)
        s = gdt__cudnn_pool_desc(p, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &(*cfgs)[i], e);
    if (s == GDT_STATUS_OK && n > 0)
        GET(h, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, ncfg, *cfgs);
    return s;
}

static const char *mode_why(gdt_mode m)
{
    return m == GDT_MODE_B ? "cuDNN heuristics mode B"
         : m == GDT_MODE_FALLBACK ? "cuDNN heuristics mode FALLBACK" : "cuDNN heuristics mode A";
}

gdt_status gdt__cudnn_heuristics(gdt__cudnn_graph *g, gdt_mode mode, gdt_plan_entry **list,
                                 int *n, gdt_error *e)
{
    gdt__cudnn_pool p = {0};
    cudnnBackendDescriptor_t *cfgs = NULL;
    int64_t ncfg = 0;
    gdt_status s = heur_run(g, mode, &p, &cfgs, &ncfg, e);
    /* A mode that does not cover this graph proposes nothing: the list is
     * empty rather than failed. */
    if (s == GDT_STATUS_NOT_SUPPORTED)
        s = GDT_STATUS_OK, ncfg = 0;
    for (int64_t i = 0; i < ncfg && s == GDT_STATUS_OK; i++) {
        gdt_plan_entry x = {.is_backend = true, .mode = mode, .why = mode_why(mode)};
        gdt_error skip;
        /* A config we cannot name is left out, not a failure of the list. */
        if (cfg_id(cfgs[i], g->form, &p, &x.id, &skip) == GDT_STATUS_OK)
            s = gdt__cudnn_list_push(list, n, &x, e);
    }
    free(cfgs);
    gdt__cudnn_pool_free(&p);
    return s;
}

/* ------------------------------------------------------ knob enumeration */

typedef struct knob_space {
    int n;
    int32_t type[GDT__CUDNN_MAX_KNOB_SLOTS];
    int64_t lo[GDT__CUDNN_MAX_KNOB_SLOTS], hi[GDT__CUDNN_MAX_KNOB_SLOTS], step[GDT__CUDNN_MAX_KNOB_SLOTS];
} knob_space;

/* An engine that will not finalize for this graph does not support it:
 * NOT_SUPPORTED, and the walk moves on. */
static gdt_status engine_open(gdt__cudnn_graph *g, int64_t idx, gdt__cudnn_pool *p,
                              cudnnBackendDescriptor_t *eng, gdt_error *e)
{
    gdt_status s = gdt__cudnn_pool_desc(p, CUDNN_BACKEND_ENGINE_DESCRIPTOR, eng, e);
    if (s != GDT_STATUS_OK)
        return s;
    SET(*eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->graph);
    SET(*eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx);
    GDT_CHECK_CUDNN(e, cudnnBackendFinalize(*eng));
    return GDT_STATUS_OK;
}

static gdt_status knob_space_read(cudnnBackendDescriptor_t eng, gdt__cudnn_pool *p, knob_space *k,
                                  gdt_error *e)
{
    cudnnBackendDescriptor_t ki[GDT__CUDNN_MAX_KNOB_SLOTS];
    int64_t got = 0, n = 0;
    gdt_status s = knob_array(p, CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, ki, e);
    if (s != GDT_STATUS_OK)
        return s;
    GET(eng, CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_TYPE_BACKEND_DESCRIPTOR, GDT__CUDNN_MAX_KNOB_SLOTS, &got, ki);
    k->n = (int)got;
    for (int i = 0; i < k->n; i++) {
        cudnnBackendKnobType_t t;
        GET(ki[i], CUDNN_ATTR_KNOB_INFO_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &n, &t);
        GET(ki[i], CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, CUDNN_TYPE_INT64, 1, &n, &k->lo[i]);
        GET(ki[i], CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, CUDNN_TYPE_INT64, 1, &n, &k->hi[i]);
        GET(ki[i], CUDNN_ATTR_KNOB_INFO_STRIDE, CUDNN_TYPE_INT64, 1, &n, &k->step[i]);
        k->type[i] = (int32_t)t;
        if (k->step[i] <= 0 || k->hi[i] < k->lo[i]) /* a degenerate range has one value */
            k->step[i] = 1, k->hi[i] = k->lo[i];
    }
    return GDT_STATUS_OK;
}

/* Odometer over the knob values, the first knob turning fastest; stops
 * after cap configs. */
static gdt_status odometer(const knob_space *k, int64_t idx, int form, int cap, gdt_plan_entry **list,
                           int *n, gdt_error *e)
{
    int64_t v[GDT__CUDNN_MAX_KNOB_SLOTS];
    for (int i = 0; i < k->n; i++)
        v[i] = k->lo[i];
    for (int made = 0; made < cap;) {
        gdt_plan_entry x = {.is_backend = true, .mode = GDT_MODE_COUNT, .why = "cuDNN knob enumeration"};
        id_start(&x.id, idx, form);
        bool fits = true;
        for (int i = 0; i < k->n; i++)
            fits = fits && gdt_plan_id_set_knob(&x.id, k->type[i], v[i]);
        if (!fits) /* more knobs than an identity holds: not reachable by replay */
            return GDT_STATUS_OK;
        gdt_status s = gdt__cudnn_list_push(list, n, &x, e);
        if (s != GDT_STATUS_OK)
            return s;
        made++;
        int i = 0;
        for (; i < k->n; i++) {
            if (v[i] + k->step[i] <= k->hi[i]) {
                v[i] += k->step[i];
                break;
            }
            v[i] = k->lo[i];
        }
        if (i == k->n)
            break;
    }
    return GDT_STATUS_OK;
}

gdt_status gdt__cudnn_knob_walk(gdt__cudnn_graph *g, int cap, gdt_plan_entry **list, int *n,
                                gdt_error *e)
{
    int64_t count = 0;
    gdt_status s = gdt__cudnn_engine_count(g, &count, e);
    for (int64_t idx = 0; idx < count && s == GDT_STATUS_OK; idx++) {
        gdt__cudnn_pool p = {0};
        cudnnBackendDescriptor_t eng;
        knob_space k;
        gdt_error skip;
        if (engine_open(g, idx, &p, &eng, &skip) == GDT_STATUS_OK &&
            (s = knob_space_read(eng, &p, &k, e)) == GDT_STATUS_OK)
            s = odometer(&k, idx, g->form, cap, list, n, e);
        gdt__cudnn_pool_free(&p);
    }
    return s;
}

/* ------------------------------------------------------------- plan build */

static gdt_status declined(gdt_compiled *c, const char *step, cudnnStatus_t r, gdt_error *e)
{
    char name[256], last[512] = "";
    gdt_plan_id_format(&c->id, name, sizeof name);
    cudnnGetLastErrorString(last, sizeof last);
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "cudnn: %s declined: %s finalize: %s (%d)%s%s",
                         name, step, cudnnGetErrorString(r), (int)r, last[0] ? ": " : "", last);
}

static gdt_status config_make(gdt_compiled *c, cudnnBackendDescriptor_t *cfg, gdt_error *e)
{
    cudnnBackendDescriptor_t eng, kc[GDT_MAX_KNOBS];
    int nk = 0;
    gdt_status s = gdt__cudnn_pool_desc(&c->own, CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng, e);
    if (s != GDT_STATUS_OK)
        return s;
    SET(eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c->graph->graph);
    SET(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &c->id.engine_id);
    cudnnStatus_t r = cudnnBackendFinalize(eng);
    if (r != CUDNN_STATUS_SUCCESS)
        return declined(c, "engine", r, e);
    for (int i = 0; i < c->id.nknobs; i++) {
        if (c->id.knobs[i].type >= GDT_KNOB_BAND)
            continue; /* gdtune's own axes (GRAPH) chose the graph, not a backend knob */
        cudnnBackendKnobType_t t = (cudnnBackendKnobType_t)c->id.knobs[i].type;
        if ((s = gdt__cudnn_pool_desc(&c->own, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &kc[nk], e)))
            return s;
        SET(kc[nk], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &t);
        SET(kc[nk], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &c->id.knobs[i].value);
        if ((r = cudnnBackendFinalize(kc[nk++])) != CUDNN_STATUS_SUCCESS)
            return declined(c, "knob choice", r, e);
    }
    if ((s = gdt__cudnn_pool_desc(&c->own, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, cfg, e)))
        return s;
    SET(*cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &eng);
    if (nk > 0)
        SET(*cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, nk, kc);
    if ((r = cudnnBackendFinalize(*cfg)) != CUDNN_STATUS_SUCCESS)
        return declined(c, "engine config", r, e);
    return GDT_STATUS_OK;
}

static gdt_status plan_workspace(gdt_compiled *c, gdt_error *e)
{
    int64_t ws = 0, got = 0;
    GET(c->plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got, &ws);
    c->plan_workspace = (size_t)ws;
    c->workspace = c->graph->scratch_bytes + c->plan_workspace;
    return GDT_STATUS_OK;
}

gdt_status gdt__cudnn_plan_finalize(gdt_compiled *c, const gdt_build_opts *o, bool *hit,
                                    gdt_error *e)
{
    cudnnBackendDescriptor_t cfg;
    gdt_nvrtc_key k;
    bool keyed = o && o->cache_dir && gdt__cudnn_plan_key(c, &o->device, &k);
    *hit = keyed && gdt__cudnn_plan_load(c, o->cache_dir, &k);
    if (*hit)
        return plan_workspace(c, e);
    gdt_status s = config_make(c, &cfg, e);
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_pool_desc(&c->own, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &c->plan, e);
    if (s != GDT_STATUS_OK)
        return s;
    SET(c->plan, gdt__cudnn_attr_plan_handle, CUDNN_TYPE_HANDLE, 1, &c->handle);
    SET(c->plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
    cudnnStatus_t r = cudnnBackendFinalize(c->plan);
    if (r != CUDNN_STATUS_SUCCESS)
        return declined(c, "execution plan", r, e);
    if (keyed)
        gdt__cudnn_plan_store(c, o->cache_dir, &k);
    return plan_workspace(c, e);
}
