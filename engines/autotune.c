/* Autotune at first use (gdtune/autotune.h): the short candidate list of a
 * planned graph, each built and timed with CUDA events on the caller's
 * operands and stream, the choice made by gdt_autotune_choose, and the
 * graph left built with the winner. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gdt_cuda.h"
#include "gdt_util.h"
#include "gdtune/autotune.h"

#define AUTOTUNE_REPS_MAX 1000

void gdt_autotune_opts_default(gdt_autotune_opts *o)
{
    *o = (gdt_autotune_opts){.backend = 3, .ours = 3, .library = 3, .margin = 0.01, .warmup = 3, .reps = 11};
}

/* The integer options and their ranges (the header's). */
static const struct {
    const char *name;
    size_t off;
    int lo, hi;
} int_opts[] = {
    {"backend", offsetof(gdt_autotune_opts, backend), 0, 16},
    {"ours", offsetof(gdt_autotune_opts, ours), 0, 16},
    {"library", offsetof(gdt_autotune_opts, library), 0, 16},
    {"warmup", offsetof(gdt_autotune_opts, warmup), 0, 100},
    {"reps", offsetof(gdt_autotune_opts, reps), 1, AUTOTUNE_REPS_MAX},
};
_Static_assert(1 + 3 * 16 <= GDT_AUTOTUNE_MAX, "the list's first plus the three sides' maxima fit the report");

static gdt_status check_opts(const gdt_autotune_opts *o, gdt_error *e)
{
    for (size_t i = 0; i < sizeof int_opts / sizeof *int_opts; i++) {
        int v = *(const int *)((const char *)o + int_opts[i].off);
        if (v < int_opts[i].lo || v > int_opts[i].hi)
            return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_autotune: %s: expected %d..%d, got %d",
                                 int_opts[i].name, int_opts[i].lo, int_opts[i].hi, v);
    }
    if (!(o->margin >= 0 && o->margin <= 1))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_autotune: margin: expected 0..1, got %g",
                             o->margin);
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ candidates */

static gdt_plan_side entry_side(const gdt_plan_entry *x)
{
    return x->is_backend ? GDT_PLAN_SIDE_BACKEND : gdt_engine_side(NULL, x->id.engine_id);
}

/* The list's first plan, then each side's first entries up to its quota,
 * in list order. */
static void pick(const gdt_graph *g, const gdt_autotune_opts *o, gdt_autotune_report *r)
{
    int quota[GDT_PLAN_SIDE_COUNT] = {
        [GDT_PLAN_SIDE_OURS] = o->ours, [GDT_PLAN_SIDE_BACKEND] = o->backend, [GDT_PLAN_SIDE_LIBRARY] = o->library};
    int taken[GDT_PLAN_SIDE_COUNT] = {0};
    for (int i = 0; i < gdt_graph_plan_count(g) && r->n < GDT_AUTOTUNE_MAX; i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, i);
        gdt_plan_side side = entry_side(x);
        if (x->is_marker || (r->n > 0 && taken[side] >= quota[side])) continue;
        taken[side]++;
        r->c[r->n] = (gdt_autotune_candidate){
            .index = i, .id = x->id, .side = side, .status = GDT_STATUS_NOT_SUPPORTED, .median_us = NAN};
        snprintf(r->c[r->n++].why, sizeof r->c[0].why, "not measured (the autotune stopped before it)");
    }
}

/* ------------------------------------------------------------- timing */

typedef struct tuner {
    gdt_graph *g;
    const gdt_operands *ops;
    void *ws;                 /* the caller's */
    size_t ws_bytes;
    void *tmp;                /* ours, for a plan that needs more */
    size_t tmp_bytes;
    cudaStream_t stream;
    const gdt_autotune_opts *o;
    cudaEvent_t ev[AUTOTUNE_REPS_MAX + 1];
    int nev;
    double us[AUTOTUNE_REPS_MAX];
} tuner;

static gdt_status events_create(tuner *t, gdt_error *e)
{
    for (; t->nev <= t->o->reps; t->nev++)
        GDT_CHECK_CUDA(e, cudaEventCreate(&t->ev[t->nev]));
    return GDT_STATUS_OK;
}

static gdt_status release(tuner *t, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    cudaError_t r;
    for (int i = 0; i < t->nev; i++)
        if ((r = cudaEventDestroy(t->ev[i])) != cudaSuccess && !s)
            s = gdt__fail_cuda(e, r, "cudaEventDestroy(t->ev[i])", __FILE__, __LINE__);
    if (t->tmp && (r = cudaFree(t->tmp)) != cudaSuccess && !s)
        s = gdt__fail_cuda(e, r, "cudaFree(t->tmp)", __FILE__, __LINE__);
    t->nev = 0, t->tmp = NULL;
    return s;
}

/* The workspace the built plan runs on: the caller's when it is enough. */
static gdt_status workspace(tuner *t, void **ws, size_t *bytes, gdt_error *e)
{
    size_t need = gdt_graph_workspace_size(t->g);
    if (need <= t->ws_bytes) return *ws = t->ws, *bytes = t->ws_bytes, GDT_STATUS_OK;
    if (need > t->tmp_bytes) {
        void *old = t->tmp;
        t->tmp = NULL, t->tmp_bytes = 0;
        GDT_CHECK_CUDA(e, cudaFree(old));
        GDT_CHECK_CUDA(e, cudaMalloc(&t->tmp, need));
        t->tmp_bytes = need;
    }
    return *ws = t->tmp, *bytes = t->tmp_bytes, GDT_STATUS_OK;
}

/* warmup launches, then reps launches each between two events. */
static gdt_status time_built(tuner *t, double *median_us, gdt_error *e)
{
    void *ws = NULL;
    size_t bytes = 0;
    gdt_status s = workspace(t, &ws, &bytes, e);
    for (int i = 0; !s && i < t->o->warmup; i++) s = gdt_graph_execute(t->g, t->ops, ws, bytes, t->stream, e);
    if (s) return s;
    GDT_CHECK_CUDA(e, cudaEventRecord(t->ev[0], t->stream));
    for (int i = 0; i < t->o->reps; i++) {
        if ((s = gdt_graph_execute(t->g, t->ops, ws, bytes, t->stream, e))) return s;
        GDT_CHECK_CUDA(e, cudaEventRecord(t->ev[i + 1], t->stream));
    }
    GDT_CHECK_CUDA(e, cudaEventSynchronize(t->ev[t->o->reps]));
    for (int i = 0; i < t->o->reps; i++) {
        float ms = 0;
        GDT_CHECK_CUDA(e, cudaEventElapsedTime(&ms, t->ev[i], t->ev[i + 1]));
        t->us[i] = 1e3 * ms;
    }
    *median_us = gdt_median_inplace(t->us, t->o->reps);
    return GDT_STATUS_OK;
}

/* One candidate built and timed; what goes wrong is its outcome, and the
 * stream is drained so that the next one starts clean. */
static void measure(tuner *t, const gdt_build_opts *bo, gdt_autotune_candidate *c, int *installed)
{
    gdt_error why;
    gdt_error_clear(&why);
    gdt_status s = gdt_graph_select(t->g, c->index, &why);
    if (!s && !(s = gdt_graph_build(t->g, bo, NULL, &why))) *installed = c->index;
    if (!s) s = time_built(t, &c->median_us, &why);
    cudaError_t r = cudaStreamSynchronize(t->stream);
    if (!s && r != cudaSuccess) s = gdt__fail_cuda(&why, r, "cudaStreamSynchronize(stream)", __FILE__, __LINE__);
    c->status = s;
    if (s) c->median_us = NAN;
    snprintf(c->why, sizeof c->why, "%.*s", (int)sizeof c->why - 1, s ? why.msg : ""); /* cut, not overrun */
}

/* The graph pinned on the winner and built with it (already, when it was
 * the last plan built). */
static gdt_status keep_winner(tuner *t, const gdt_build_opts *bo, int index, int installed, gdt_error *e)
{
    gdt_status s = gdt_graph_select(t->g, index, e);
    if (!s && index != installed) s = gdt_graph_build(t->g, bo, NULL, e);
    return s;
}

/* ------------------------------------------------------------- wisdom */

/* The list's entry of id (markers passed over); -1: the list holds none. */
static int list_index(const gdt_graph *g, const gdt_plan_id *id)
{
    for (int i = 0; i < gdt_graph_plan_count(g); i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, i);
        if (!x->is_marker && gdt_plan_id_equal(&x->id, id)) return i;
    }
    return -1;
}

/* The wisdom's plan for g built without measuring, said in r; false (r
 * untouched) when the wisdom holds none or it does not build. */
static bool use_wisdom(gdt_graph *g, const gdt_build_opts *bo, const gdt_wisdom *w, gdt_autotune_report *r)
{
    gdt_wisdom_entry probe;
    gdt_wisdom_probe(g, &probe);
    const gdt_wisdom_entry *x = gdt_wisdom_find(w, &probe);
    if (!x) return false;
    int index = list_index(g, &x->id);
    gdt_error why;
    gdt_error_clear(&why);
    gdt_status s = index >= 0 ? gdt_graph_select(g, index, &why) : gdt_graph_replay(g, &x->id, &why);
    if (!s) s = gdt_graph_build(g, bo, NULL, &why);
    if (s) return false;
    r->n = 1, r->winner = 0, r->first = r->heuristic = -1;
    r->c[0] = (gdt_autotune_candidate){.index = index, .id = x->id, .status = GDT_STATUS_OK,
                                       .median_us = x->median_us,
                                       .side = index >= 0 ? entry_side(gdt_graph_plan_at(g, index))
                                                          : gdt_engine_side(NULL, x->id.engine_id)};
    r->from_wisdom = true;
    r->wisdom_first_us = x->first_us;
    snprintf(r->wisdom_measured, sizeof r->wisdom_measured, "%s", x->measured);
    return true;
}

/* The measured winner into the wisdom. */
static gdt_status remember(const gdt_graph *g, gdt_wisdom *w, const gdt_autotune_report *r, gdt_error *e)
{
    gdt_wisdom_entry x;
    struct tm tm;
    time_t now = time(NULL);
    gdt_wisdom_probe(g, &x);
    x.id = r->c[r->winner].id;
    x.median_us = r->c[r->winner].median_us;
    x.first_us = r->c[r->first].median_us;
    if (gmtime_r(&now, &tm)) strftime(x.measured, sizeof x.measured, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return gdt_wisdom_put(w, &x, e);
}

gdt_status gdt_graph_autotune(gdt_graph *g, const gdt_build_opts *bopts, const gdt_operands *ops,
                              void *workspace, size_t workspace_bytes, void *stream,
                              const gdt_autotune_opts *o, gdt_autotune_report *report, gdt_error *e)
{
    gdt_autotune_opts def;
    gdt_autotune_report local;
    gdt_autotune_report *r = report ? report : &local;
    memset(r, 0, sizeof *r);
    r->winner = r->first = r->heuristic = -1;
    if (!o) gdt_autotune_opts_default(&def), o = &def;
    if (!g || !bopts || !ops) return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_autotune: NULL argument");
    if (gdt_graph_plan_count(g) == 0)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_autotune: the graph lists no plans (plan it first)");
    gdt_status s = check_opts(o, e);
    if (!s) s = gdt_operands_check(&gdt_graph_facts(g)->problem, ops, e);
    if (s) return s;
    if (o->wisdom && use_wisdom(g, bopts, o->wisdom, r)) return GDT_STATUS_OK;
    tuner *t = calloc(1, sizeof *t);
    if (!t) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_graph_autotune: out of memory");
    *t = (tuner){.g = g, .ops = ops, .ws = workspace, .ws_bytes = workspace ? workspace_bytes : 0,
                 .stream = (cudaStream_t)stream, .o = o};
    int installed = -1;
    pick(g, o, r);
    s = events_create(t, e);
    for (int i = 0; !s && i < r->n; i++) measure(t, bopts, &r->c[i], &installed);
    if (!s) s = gdt_autotune_choose(r, o->margin, e);
    if (!s) s = keep_winner(t, bopts, r->c[r->winner].index, installed, e);
    if (!s && o->wisdom) s = remember(g, o->wisdom, r, e);
    gdt_status rs = release(t, s ? NULL : e);
    free(t);
    return s ? s : rs;
}
