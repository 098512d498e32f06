/* `gdtune worker`: the process that owns the GPU during a sweep.  It reads
 * one JSON request per line on stdin and answers one JSON line on its
 * private copy of stdout (protocol: gdt_worker.h).  A plan that poisons the
 * context makes it answer "fatal" and exit; the parent respawns it. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gdt_cuda.h"
#include "nvrtc/gdt_nvrtc_cache.h"
#include "gdt_engines.h"
#include "gdt_json.h"
#include "gdt_measure.h"
#include "gdt_sweep.h"
#include "gdt_util.h"
#include "gdt_verify.h"
#include "gdt_worker.h"

/* Shapes up to this many flops are also checked against the fp64 CPU
 * reference (a few seconds on one core at most). */
#define CPU_REFERENCE_MAX_FLOPS 2e9

typedef struct worker {
    bool have_device;
    gdt_device_props dev;
    gdt_row_table *rows;
    /* the current cell */
    bool cell_ready;
    gdt_problem problem;
    gdt_facts facts;
    gdt_buffers *buf;
    void *stream;
    gdt_verifier *ref;     /* every plan of the cell is checked against it */
} worker;

static cJSON *error_reply(const char *op, const gdt_error *e)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "op", op);
    cJSON_AddStringToObject(r, "status", gdt_status_name(e->status));
    cJSON_AddStringToObject(r, "error", e->msg);
    return r;
}

/* ------------------------------------------------------ request fields */

/* The parent is another gdtune, but a request is still input: every field
 * is read strictly, in the ranges the command line and the sweep spec allow
 * (gdt_sweep.h), so that no value outside them reaches a measurement. */
#define REQUEST "worker request"

/* An optional integer field in [lo, hi]; *out keeps its default when the
 * field is absent. */
static gdt_status request_int(const cJSON *req, const char *key, int64_t lo, int64_t hi,
                              int64_t *out, gdt_error *e)
{
    const cJSON *n = gdt_json_get(req, key);
    char jp[64];
    int64_t v = 0;
    if (!n)
        return GDT_STATUS_OK;
    gdt_json_path_key(jp, sizeof jp, "", key);
    gdt_status s = gdt_json_int(n, REQUEST, jp, &v, e);
    if (s == GDT_STATUS_OK && (v < lo || v > hi))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected an integer in [%lld, %lld], "
                          "got %lld", REQUEST, jp, (long long)lo, (long long)hi, (long long)v);
    if (s == GDT_STATUS_OK)
        *out = v;
    return s;
}

static gdt_status request_number(const cJSON *req, const char *key, double lo, double hi,
                                 double *out, gdt_error *e)
{
    const cJSON *n = gdt_json_get(req, key);
    char jp[64];
    double v = 0;
    if (!n)
        return GDT_STATUS_OK;
    gdt_json_path_key(jp, sizeof jp, "", key);
    gdt_status s = gdt_json_number(n, REQUEST, jp, &v, e);
    if (s == GDT_STATUS_OK && !(v >= lo && v <= hi))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected a number in [%g, %g], got %g",
                          REQUEST, jp, lo, hi, v);
    if (s == GDT_STATUS_OK)
        *out = v;
    return s;
}

/* Optional "bursts": 1 to GDT_MAX_BURSTS increasing sizes in
 * 1..GDT_BURST_MAX, as `gdtune sweep --bursts` takes them. */
static gdt_status request_bursts(const cJSON *req, gdt_measure_opts *mo, gdt_error *e)
{
    const cJSON *b = gdt_json_get(req, "bursts"), *x;
    char got[96];
    int n = cJSON_IsArray(b) ? cJSON_GetArraySize(b) : 0;
    if (!b)
        return GDT_STATUS_OK;
    if (n < 1 || n > GDT_MAX_BURSTS) {
        gdt_json_describe(b, got, sizeof got);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /bursts: expected an array of 1 to %d "
                             "burst sizes, got %s", REQUEST, GDT_MAX_BURSTS, got);
    }
    mo->nbursts = 0;
    cJSON_ArrayForEach(x, b)
    {
        char jp[32];
        int64_t v = 0;
        gdt_json_path_index(jp, sizeof jp, "/bursts", mo->nbursts);
        gdt_status s = gdt_json_int(x, REQUEST, jp, &v, e);
        if (s == GDT_STATUS_OK &&
            (v < 1 || v > GDT_BURST_MAX || (mo->nbursts && v <= mo->bursts[mo->nbursts - 1])))
            s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected increasing burst sizes in "
                              "1..%d, got %lld", REQUEST, jp, GDT_BURST_MAX, (long long)v);
        if (s != GDT_STATUS_OK)
            return s;
        mo->bursts[mo->nbursts++] = (int)v;
    }
    return GDT_STATUS_OK;
}


/* ---------------------------------------------------------- plan list */

/* One plan of a cell as the worker runs it. */
typedef struct gdt_wplan {
    gdt_plan_id id;
    bool is_backend;
    char tag[12];          /* A, B, FALLBACK (heuristic mode), KNOB, OURS */
    char name[320];
    int untimed;           /* position in the untimed default order */
    const gdt_engine_slot *slot;
    const gdt_engine_ops *ops;
} gdt_wplan;

typedef struct gdt_wplan_list {
    gdt_wplan *p;
    int n, cap;
} gdt_wplan_list;

static void wplan_list_free(gdt_wplan_list *l)
{
    free(l->p);
    memset(l, 0, sizeof *l);
}

/* Appends unless an equal (engine_id, knobs) is already listed: the first
 * tag wins. */
static gdt_status wplan_add(gdt_wplan_list *l, const gdt_plan_id *id, bool backend, const char *tag,
                            const gdt_engine_slot *slot, gdt_error *e)
{
    for (int i = 0; i < l->n; i++)
        if (gdt_plan_id_equal(&l->p[i].id, id))
            return GDT_STATUS_OK;
    if (l->n == l->cap) {
        gdt_wplan *g = realloc(l->p, sizeof *g * (size_t)(l->cap = l->cap * 2 + 16));
        if (!g)
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "worker: out of memory listing plans");
        l->p = g;
    }
    gdt_wplan *w = &l->p[l->n];
    memset(w, 0, sizeof *w);
    w->id = *id;
    gdt_plan_id_normalize(&w->id);
    w->is_backend = backend;
    snprintf(w->tag, sizeof w->tag, "%s", tag);
    gdt_plan_id_format(&w->id, w->name, sizeof w->name);
    w->slot = slot;
    w->ops = backend ? gdt_cudnn_backend()->ops : slot->ops;
    w->untimed = -1;
    l->n++;
    return GDT_STATUS_OK;
}

/* Our plans: per offered slot, every surviving row (a slot without rows
 * offers its one fixed plan). */
static gdt_status list_ours(const gdt_facts *f, const gdt_row_table *rows, gdt_wplan_list *l,
                            gdt_error *e)
{
    const gdt_manifest *m = gdt_manifest_default();
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < m->nslots && s == GDT_STATUS_OK; i++) {
        const gdt_engine_slot *sl = &m->slots[i];
        if (sl->family != f->family || !sl->ops || !gdt_slot_offered(m, sl, f, NULL, 0))
            continue;
        if (!sl->row_family) {
            gdt_plan_id id = {.engine_id = gdt_engine_id(sl->family, sl->slot)};
            s = wplan_add(l, &id, false, "OURS", sl, e);
            continue;
        }
        gdt_candidate *c = NULL;
        int n = 0;
        if (!rows || (s = gdt_candidates_materialize(rows, sl, f, &c, &n, e)) != GDT_STATUS_OK)
            continue;
        for (int k = 0; k < n && s == GDT_STATUS_OK; k++)
            if (!c[k].rejected && !c[k].duplicate_of_earlier)
                s = wplan_add(l, &c[k].id, false, "OURS", sl, e);
        free(c);
    }
    return s;
}

static gdt_status add_entries(gdt_wplan_list *l, const gdt_plan_entry *en, int n, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < n && s == GDT_STATUS_OK; i++)
        if (!en[i].is_marker)
            s = wplan_add(l, &en[i].id, true,
                          en[i].mode < GDT_MODE_COUNT ? gdt_mode_name(en[i].mode) : "KNOB", NULL, e);
    return s;
}

/* The backend's entries per heuristic mode, then its knob-enumerated
 * configs.  A mode the backend cannot list is reported, not fatal. */
static gdt_status list_backend(const gdt_facts *f, int knob_cap, gdt_wplan_list *l, gdt_error *e)
{
    const gdt_backend *be = gdt_cudnn_backend();
    static const gdt_mode modes[] = {GDT_MODE_A, GDT_MODE_B, GDT_MODE_FALLBACK};
    gdt_status s = GDT_STATUS_OK;
    for (size_t i = 0; be && i < sizeof modes / sizeof modes[0] && s == GDT_STATUS_OK; i++) {
        gdt_plan_entry *en = NULL;
        int n = 0;
        gdt_error le = {0};
        if (be->list(be->ctx, f, modes[i], &en, &n, &le) == GDT_STATUS_OK)
            s = add_entries(l, en, n, e);
        else
            fprintf(stderr, "gdtune worker: backend mode %s: %s\n", gdt_mode_name(modes[i]), le.msg);
        free(en);
    }
    gdt_plan_entry *en = NULL;
    int n = 0;
    gdt_error le = {0};
    if (s == GDT_STATUS_OK && knob_cap > 0) {
        if (gdt_cudnn_enumerate(f, knob_cap, &en, &n, &le) == GDT_STATUS_OK)
            s = add_entries(l, en, n, e);
        else
            fprintf(stderr, "gdtune worker: backend knob enumeration: %s\n", le.msg);
    }
    free(en);
    return s;
}

/* Positions in the order libgdtune tries without tables (mode A); plans
 * that order does not hold follow it in list order. */
static void untimed_positions(const gdt_facts *f, const gdt_row_table *rows, gdt_wplan_list *l)
{
    gdt_graph *g = NULL;
    gdt_plan_options po = {.rows = rows, .backend = gdt_cudnn_backend(), .nmodes = 1};
    po.modes[0] = GDT_MODE_A;
    int n = 0;
    gdt_error e = {0};
    if (gdt_graph_create(&f->problem, &f->device, &g, &e) == GDT_STATUS_OK &&
        gdt_graph_plan(g, &po, &e) == GDT_STATUS_OK)
        n = gdt_graph_plan_count(g);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < l->n; k++)
            if (l->p[k].untimed < 0 && gdt_plan_id_equal(&l->p[k].id, &gdt_graph_plan_at(g, i)->id))
                l->p[k].untimed = i;
    for (int k = 0; k < l->n; k++)
        if (l->p[k].untimed < 0)
            l->p[k].untimed = n + k;
    gdt_graph_destroy(g);
}

static gdt_status wplan_list_build(const gdt_facts *f, const gdt_row_table *rows, int knob_cap,
                                   gdt_wplan_list *l, gdt_error *e)
{
    gdt_status s = list_ours(f, rows, l, e);
    if (s == GDT_STATUS_OK)
        s = list_backend(f, knob_cap, l, e);
    if (s == GDT_STATUS_OK)
        untimed_positions(f, rows, l);
    return s;
}

static cJSON *wplan_json(const gdt_wplan *w)
{
    cJSON *o = gdt__plan_id_json(&w->id);
    cJSON_AddStringToObject(o, "name", w->name);
    cJSON_AddBoolToObject(o, "backend", w->is_backend);
    cJSON_AddStringToObject(o, "tag", w->tag);
    cJSON_AddNumberToObject(o, "untimed", w->untimed);
    return o;
}

static cJSON *wplan_list_json(const gdt_wplan_list *l)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < l->n; i++)
        cJSON_AddItemToArray(a, wplan_json(&l->p[i]));
    return a;
}

/* A plan handed over by the parent: its identity and where its engine is. */
static gdt_status wplan_from_json(const cJSON *o, gdt_wplan *w, gdt_error *e)
{
    memset(w, 0, sizeof *w);
    gdt_status s = gdt__plan_id_from_json(o, &w->id, e);
    if (s != GDT_STATUS_OK)
        return s;
    w->is_backend = cJSON_IsTrue(cJSON_GetObjectItem(o, "backend"));
    gdt_plan_id_format(&w->id, w->name, sizeof w->name);
    if (w->is_backend) {
        const gdt_backend *be = gdt_cudnn_backend();
        w->ops = be ? be->ops : NULL;
    } else if ((w->slot = gdt_manifest_find(gdt_manifest_default(), w->id.engine_id)))
        w->ops = w->slot->ops;
    if (!w->ops)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: no engine serves engine id %lld",
                             w->name, (long long)w->id.engine_id);
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------- hello */

static gdt_status device_json(worker *w, cJSON *d, gdt_error *e)
{
    struct cudaDeviceProp p;
    int drv = 0, rt = 0, clk = 0, mclk = 0, nmaj = 0, nmin = 0;
    GDT_CHECK_CUDA(e, cudaGetDeviceProperties(&p, 0));
    GDT_CHECK_CUDA(e, cudaDriverGetVersion(&drv));
    GDT_CHECK_CUDA(e, cudaRuntimeGetVersion(&rt));
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, 0));
    GDT_CHECK_NVRTC(e, nvrtcVersion(&nmaj, &nmin));
    w->dev.arch = p.major * 10 + p.minor;
    w->dev.sm_count = p.multiProcessorCount;
    w->dev.smem_per_block = (int64_t)p.sharedMemPerBlockOptin;
    w->dev.regs_per_block = p.regsPerBlock;
    w->dev.max_threads_per_block = p.maxThreadsPerBlock;
    w->dev.l2_bytes = p.l2CacheSize;
    snprintf(w->dev.name, sizeof w->dev.name, "%.127s", p.name);
    char uuid[64] = "GPU-";
    for (int i = 0; i < 16; i++)
        snprintf(uuid + strlen(uuid), sizeof uuid - strlen(uuid), "%s%02x",
                 (i == 4 || i == 6 || i == 8 || i == 10) ? "-" : "", (unsigned char)p.uuid.bytes[i]);
    cJSON_AddStringToObject(d, "name", p.name);
    cJSON_AddNumberToObject(d, "arch", w->dev.arch);
    cJSON_AddNumberToObject(d, "sm_count", p.multiProcessorCount);
    cJSON_AddNumberToObject(d, "l2_bytes", p.l2CacheSize);
    cJSON_AddNumberToObject(d, "smem_per_block", (double)p.sharedMemPerBlockOptin);
    cJSON_AddNumberToObject(d, "regs_per_block", p.regsPerBlock);
    cJSON_AddNumberToObject(d, "max_threads_per_block", p.maxThreadsPerBlock);
    cJSON_AddNumberToObject(d, "sm_clock_khz", clk);
    cJSON_AddNumberToObject(d, "mem_clock_khz", mclk);
    cJSON_AddNumberToObject(d, "driver_version", drv);
    cJSON_AddNumberToObject(d, "cuda_version", rt);
    cJSON_AddNumberToObject(d, "cudnn_version", gdt_cudnn_runtime_version());
    cJSON_AddNumberToObject(d, "nvrtc_version", nmaj * 1000 + nmin * 10);
    cJSON_AddStringToObject(d, "uuid", uuid);
    return GDT_STATUS_OK;
}

static gdt_status count_devices(int *n, gdt_error *e)
{
    GDT_CHECK_CUDA(e, cudaGetDeviceCount(n));
    return GDT_STATUS_OK;
}

static cJSON *on_hello(worker *w)
{
    gdt_error e = {0};
    int n = 0;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "op", "hello");
    cJSON *d = cJSON_CreateObject();
    gdt_status s = count_devices(&n, &e);
    if (s == GDT_STATUS_OK && n == 0)
        s = gdt_error_set(&e, GDT_STATUS_NO_DEVICE, "cudaGetDeviceCount found 0 devices");
    if (s == GDT_STATUS_OK)
        s = device_json(w, d, &e);
    if (s != GDT_STATUS_OK) {
        cJSON_Delete(d);
        cJSON_AddNullToObject(r, "device");
        cJSON_AddStringToObject(r, "error", e.msg);
        return r;
    }
    w->have_device = true;
    cJSON_AddNumberToObject(d, "device_count", n); /* the sweep starts one worker per device */
    cJSON_AddItemToObject(r, "device", d);
    return r;
}

/* -------------------------------------------------------------- cell */

static void cell_free(worker *w)
{
    gdt_buffers_destroy(w->buf);
    w->buf = NULL;
    if (w->stream)
        cudaStreamDestroy((cudaStream_t)w->stream);
    w->stream = NULL;
    gdt_verifier_destroy(w->ref);
    w->ref = NULL;
    w->cell_ready = false;
}

static gdt_status make_stream(worker *w, gdt_error *e)
{
    cudaStream_t s;
    GDT_CHECK_CUDA(e, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    w->stream = s;
    return GDT_STATUS_OK;
}

static gdt_status sync_stream(void *stream, gdt_error *e)
{
    GDT_CHECK_CUDA(e, cudaStreamSynchronize((cudaStream_t)stream));
    return GDT_STATUS_OK;
}

/* Builds and runs one plan once on poisoned outputs; *c stays built. */
static gdt_status run_once(worker *w, const gdt_wplan *pl, gdt_compiled **c, double *build_s,
                           gdt_error *e)
{
    const gdt_engine_ops *ops = pl->ops;
    gdt_status s = ops->check_support(pl->slot, &w->facts, &pl->id, e);
    if (s != GDT_STATUS_OK)
        return s;
    char root[PATH_MAX];
    gdt_build_opts bo = {.device = w->dev, .cache_dir = gdt_nvrtc_cache_root(root, sizeof root)};
    gdt_build_info info = {0};
    double t0 = gdt_now();
    s = ops->build(pl->slot, &w->facts, &pl->id, &bo, c, &info, e);
    *build_s = gdt_now() - t0;
    if (s != GDT_STATUS_OK)
        return s;
    size_t ws = ops->workspace_size ? ops->workspace_size(*c) : 0;
    if ((s = gdt_buffers_reserve_workspace(w->buf, ws, e)) != GDT_STATUS_OK ||
        (s = gdt_buffers_poison(w->buf, w->stream, e)) != GDT_STATUS_OK)
        return s;
    s = ops->execute(*c, &w->buf->ops, w->buf->workspace, w->buf->workspace_bytes, w->stream, e);
    if (s == GDT_STATUS_OK)
        s = sync_stream(w->stream, e);
    return s;
}

/* The fp64 CPU reference of a small shape, as a verifier (NULL when the
 * shape is too large or the reference fails). */
static gdt_verifier *cpu_reference(worker *w)
{
    gdt_outputs cpu = {0};
    gdt_verifier *v = NULL;
    if (gdt_problem_flops(&w->problem) <= CPU_REFERENCE_MAX_FLOPS &&
        gdt_reference_cpu(w->buf, CPU_REFERENCE_MAX_FLOPS, &cpu, NULL) == GDT_STATUS_OK)
        gdt_verifier_create(w->buf, &cpu, &v, NULL);
    gdt_outputs_free(&cpu);
    return v;
}

/* One reference candidate: it builds, runs, agrees with the CPU reference
 * when there is one, and its outputs become the cell's reference. */
static gdt_status try_reference(worker *w, const gdt_wplan *pl, gdt_verifier *cpu, gdt_error *e)
{
    gdt_compiled *c = NULL;
    double bs = 0, err[4];
    int nerr = 0;
    gdt_status s = run_once(w, pl, &c, &bs, e);
    if (s == GDT_STATUS_OK && cpu)
        s = gdt_verifier_check(cpu, w->buf, err, &nerr, e);
    if (s == GDT_STATUS_OK)
        s = gdt_verifier_create_device(w->buf, &w->ref, e);
    if (c)
        pl->ops->destroy(c);
    return s;
}

/* The reference: the first mode-A backend plan that builds and runs (and,
 * on small shapes, agrees with the fp64 CPU reference); the CPU reference
 * alone when no backend plan does.  It is kept in the outputs' device
 * format (gdt_verifier), not as doubles: a large GEMM's C is 235M
 * elements. */
static gdt_status find_reference(worker *w, const gdt_wplan_list *l, char *name, size_t nname,
                                 bool *cpu_checked, gdt_error *e)
{
    gdt_verifier *cpu = cpu_reference(w);
    *cpu_checked = cpu != NULL;
    for (int i = 0; i < l->n && !w->ref; i++) {
        const gdt_wplan *pl = &l->p[i];
        if (!pl->is_backend || strcmp(pl->tag, "A") != 0)
            continue;
        gdt_error pe = {0};
        if (try_reference(w, pl, cpu, &pe) == GDT_STATUS_OK)
            snprintf(name, nname, "%s", pl->name);
        else
            fprintf(stderr, "gdtune worker: reference candidate %s: %s\n", pl->name, pe.msg);
    }
    if (!w->ref && cpu) {
        w->ref = cpu;
        snprintf(name, nname, "cpu-fp64");
        return GDT_STATUS_OK;
    }
    gdt_verifier_destroy(cpu);
    if (!w->ref)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "no reference: no mode-A cuDNN plan built and ran for %s, and the "
                             "shape is too large for the fp64 CPU reference", gdt_family_name(w->problem.family));
    return GDT_STATUS_OK;
}

/* The cell request: family and problem (parsed into w->problem), seed and
 * knob cap, all checked before anything touches the device. */
static gdt_status cell_request(worker *w, const cJSON *req, int64_t *seed, int64_t *cap,
                               gdt_error *e)
{
    const char *fam = cJSON_GetStringValue(cJSON_GetObjectItem(req, "family"));
    const char *shape = cJSON_GetStringValue(cJSON_GetObjectItem(req, "problem"));
    gdt_family f;
    gdt_status s;
    *seed = 1;
    *cap = 8;
    if (!fam || !shape)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "worker: cell request needs family and problem");
    if ((s = gdt_family_parse(fam, &f, e)) != GDT_STATUS_OK ||
        (s = gdt_problem_parse(f, shape, &w->problem, e)) != GDT_STATUS_OK ||
        (s = request_int(req, "seed", 1, GDT_JSON_INT_LIMIT - 1, seed, e)) != GDT_STATUS_OK)
        return s;
    return request_int(req, "knob_cap", 0, GDT_KNOB_CAP_MAX, cap, e);
}

static gdt_status prepare_cell(worker *w, int64_t seed, int64_t cap, gdt_wplan_list *l, gdt_error *e)
{
    gdt_status s;
    gdt_facts_analyze(&w->problem, &w->dev, &w->facts);
    if ((s = make_stream(w, e)) != GDT_STATUS_OK ||
        (s = gdt_buffers_create(&w->problem, (uint64_t)seed, &w->buf, e)) != GDT_STATUS_OK)
        return s;
    return wplan_list_build(&w->facts, w->rows, (int)cap, l, e);
}

static cJSON *on_cell(worker *w, const cJSON *req)
{
    gdt_error e = {0};
    gdt_wplan_list l = {0};
    char ref[400] = "";
    bool cpu = false;
    int64_t seed, cap;
    cell_free(w);
    gdt_status s = cell_request(w, req, &seed, &cap, &e);
    if (s == GDT_STATUS_OK && !w->have_device)
        s = gdt_error_set(&e, GDT_STATUS_NO_DEVICE, "worker: no device (hello first)");
    if (s == GDT_STATUS_OK)
        s = prepare_cell(w, seed, cap, &l, &e);
    if (s == GDT_STATUS_OK)
        s = find_reference(w, &l, ref, sizeof ref, &cpu, &e);
    if (s != GDT_STATUS_OK) {
        wplan_list_free(&l);
        cJSON *r = error_reply("error", &e);
        cJSON_AddBoolToObject(r, "fatal", w->have_device && cudaDeviceSynchronize() != cudaSuccess);
        return r;
    }
    w->cell_ready = true;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "op", "cell");
    cJSON_AddItemToObject(r, "plans", wplan_list_json(&l));
    cJSON_AddStringToObject(r, "reference", ref);
    cJSON_AddBoolToObject(r, "reference_cpu", cpu);
    wplan_list_free(&l);
    return r;
}

/* -------------------------------------------------------------- plan */

typedef struct exec_ctx {
    const gdt_engine_ops *ops;
    gdt_compiled *c;
    gdt_buffers *buf;
} exec_ctx;

static gdt_status exec_once(void *ctx, void *stream, gdt_error *e)
{
    exec_ctx *x = ctx;
    return x->ops->execute(x->c, &x->buf->ops, x->buf->workspace, x->buf->workspace_bytes, stream, e);
}

/* Trial state: every sample starts from the same buffer contents. */
static gdt_status restore_once(void *ctx, void *stream, gdt_error *e)
{
    exec_ctx *x = ctx;
    return gdt_buffers_restore(x->buf, stream, e);
}

cJSON *gdt__clocks_json(const gdt_measure_clocks *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rated_mhz", c->rated_mhz);
    cJSON_AddNumberToObject(o, "min_mhz", c->min_mhz);
    cJSON_AddNumberToObject(o, "max_mhz", c->max_mhz);
    cJSON_AddNumberToObject(o, "probes", c->probes);
    cJSON_AddNumberToObject(o, "threshold", c->threshold);
    return o;
}

/* The measurement settings of a plan request; absent fields keep the
 * defaults. */
static gdt_status measure_opts(const worker *w, const cJSON *req, gdt_measure_opts *mo, gdt_error *e)
{
    gdt_measure_opts_default(mo);
    gdt_status s = request_bursts(req, mo, e);
    if (s == GDT_STATUS_OK)
        s = request_number(req, "target_rel", GDT_TARGET_REL_MIN, GDT_TARGET_REL_MAX,
                           &mo->target_rel, e);
    if (s == GDT_STATUS_OK)
        s = request_number(req, "max_seconds", GDT_PLAN_SECONDS_MIN, GDT_PLAN_SECONDS_MAX,
                           &mo->max_seconds, e);
    mo->cold = true;
    mo->l2_bytes = (size_t)w->dev.l2_bytes;
    return s;
}

static cJSON *burst_json(const gdt_burst_result *b)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "burst", b->burst);
    cJSON_AddItemToObject(o, "host_us", cJSON_CreateDoubleArray(b->host_us, b->n));
    cJSON_AddItemToObject(o, "device_us", cJSON_CreateDoubleArray(b->device_us, b->n));
    cJSON_AddItemToObject(o, "total_us", cJSON_CreateDoubleArray(b->total_us, b->n));
    cJSON_AddNumberToObject(o, "median_host_us", b->median_host_us);
    cJSON_AddNumberToObject(o, "median_device_us", b->median_device_us);
    cJSON_AddNumberToObject(o, "rel_spread", b->rel_spread);
    cJSON_AddNumberToObject(o, "dropped", b->dropped);
    return o;
}

static void add_measurement(cJSON *r, const gdt_measure_result *m)
{
    cJSON *bs = cJSON_AddArrayToObject(r, "bursts");
    for (int i = 0; i < m->nbursts; i++)
        cJSON_AddItemToArray(bs, burst_json(&m->bursts[i]));
    cJSON_AddItemToObject(r, "cold_us", cJSON_CreateDoubleArray(m->cold_us, m->ncold));
    cJSON_AddNumberToObject(r, "median_cold_us", m->median_cold_us);
    cJSON_AddBoolToObject(r, "converged", m->converged);
    cJSON_AddNumberToObject(r, "measure_s", m->seconds);
    double noise = 0, t = gdt_measure_best_us(m, &noise);
    cJSON_AddNumberToObject(r, "time_us", t);
    cJSON_AddNumberToObject(r, "noise", noise);
}

/* Verifies then measures a built plan; fills the result's disposition. */
static gdt_status verify_and_measure(worker *w, const gdt_measure_opts *mo, exec_ctx *x, cJSON *r,
                                     gdt_error *e)
{
    double err[4] = {0};
    int nerr = 0;
    gdt_status s = gdt_verifier_check(w->ref, w->buf, err, &nerr, e);
    if (s == GDT_STATUS_OK || s == GDT_STATUS_INCORRECT)
        cJSON_AddItemToObject(r, "verify_err", cJSON_CreateDoubleArray(err, nerr));
    if (s != GDT_STATUS_OK)
        return s;
    if ((s = gdt_buffers_restore(w->buf, w->stream, e)) != GDT_STATUS_OK)
        return s;
    gdt_measure_result *m = calloc(1, sizeof *m);
    if (!m)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "worker: out of memory");
    gdt_exec_fn fn = {exec_once, x}, restore = {restore_once, x};
    gdt_measure_clocks clk = {0};
    s = gdt_measure_trials(&fn, &restore, w->stream, mo, m, &clk, e);
    if (s == GDT_STATUS_OK) {
        add_measurement(r, m);
        cJSON_AddItemToObject(r, "clocks", gdt__clocks_json(&clk));
    }
    free(m);
    return s;
}

static const char *disposition(gdt_status s)
{
    if (s == GDT_STATUS_OK)
        return "verified";
    if (s == GDT_STATUS_INCORRECT)
        return "incorrect";
    if (s == GDT_STATUS_NOT_SUPPORTED)
        return "declined";
    return "failed";
}

static cJSON *on_plan(worker *w, const cJSON *req)
{
    gdt_error e = {0};
    gdt_wplan pl;
    gdt_measure_opts mo;
    if (measure_opts(w, req, &mo, &e) != GDT_STATUS_OK)
        return error_reply("error", &e); /* a bad request, not a plan's disposition */
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "op", "result");
    gdt_status s = w->cell_ready ? wplan_from_json(cJSON_GetObjectItem(req, "plan"), &pl, &e)
                                 : gdt_error_set(&e, GDT_STATUS_BAD_INPUT, "worker: plan before cell");
    double build_s = 0;
    exec_ctx x = {.buf = w->buf};
    if (s == GDT_STATUS_OK) {
        x.ops = pl.ops;
        s = run_once(w, &pl, &x.c, &build_s, &e);
    }
    if (s == GDT_STATUS_OK)
        s = verify_and_measure(w, &mo, &x, r, &e);
    if (x.c)
        x.ops->destroy(x.c);
    cJSON_AddStringToObject(r, "disposition", disposition(s));
    cJSON_AddStringToObject(r, "error", s == GDT_STATUS_OK ? "" : e.msg);
    cJSON_AddNumberToObject(r, "build_s", build_s);
    /* A fault poisons the context for good: say so, and let the parent
     * start a fresh worker. */
    cudaError_t sticky = s == GDT_STATUS_OK || !w->have_device ? cudaSuccess : cudaDeviceSynchronize();
    cJSON_AddBoolToObject(r, "fatal", sticky != cudaSuccess);
    if (sticky != cudaSuccess)
        cJSON_AddStringToObject(r, "fatal_error", cudaGetErrorName(sticky));
    return r;
}

/* -------------------------------------------------------------- loop */

static cJSON *dispatch(worker *w, const char *line, bool *quit)
{
    cJSON *req = cJSON_Parse(line), *r;
    const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(req, "op"));
    gdt_error e = {0};
    if (!op)
        r = (gdt_error_set(&e, GDT_STATUS_BAD_INPUT, "worker: request is not a JSON object with "
                           "\"op\": %.80s", line), error_reply("error", &e));
    else if (!strcmp(op, "hello"))
        r = on_hello(w);
    else if (!strcmp(op, "cell"))
        r = on_cell(w, req);
    else if (!strcmp(op, "plan"))
        r = on_plan(w, req);
    else if (!strcmp(op, "quit"))
        r = (*quit = true, NULL);
    else
        r = (gdt_error_set(&e, GDT_STATUS_BAD_INPUT, "worker: unknown op \"%s\"", op),
             error_reply("error", &e));
    cJSON_Delete(req);
    return r;
}

int gdt_cli_worker(int argc, char **argv)
{
    static const char usage[] = "usage: gdtune worker\n\nInternal: the process that owns the GPU "
                                "during a sweep.\n`gdtune sweep` starts it and talks JSON lines "
                                "over its stdin and stdout.\n";
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return fputs(usage, stdout), 0;
    if (argc > 1) {
        fprintf(stderr, "gdtune worker: unexpected argument '%s' (it takes none)\n%s", argv[1], usage);
        return 2;
    }
    /* Libraries may print on stdout: keep a private copy for the protocol
     * and send everything else to stderr. */
    int proto = dup(1);
    FILE *out = proto >= 0 ? fdopen(proto, "w") : NULL;
    if (!out || dup2(2, 1) < 0) {
        fprintf(stderr, "gdtune worker: cannot set up the protocol channel\n");
        return 1;
    }
    worker w = {0};
    gdt_error e = {0};
    if (gdt_rows_load_default(&w.rows, &e) != GDT_STATUS_OK)
        fprintf(stderr, "gdtune worker: %s\n", e.msg);
    char *line = NULL;
    size_t cap = 0;
    bool quit = false, fatal = false;
    ssize_t n;
    while (!quit && !fatal && (n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[n - 1] = 0;
        cJSON *r = dispatch(&w, line, &quit);
        if (!r)
            continue;
        fatal = cJSON_IsTrue(cJSON_GetObjectItem(r, "fatal"));
        char *txt = cJSON_PrintUnformatted(r);
        fprintf(out, "%s\n", txt ? txt : "{\"op\":\"error\",\"error\":\"worker: out of memory\"}");
        fflush(out);
        free(txt);
        cJSON_Delete(r);
    }
    free(line);
    if (!fatal)
        cell_free(&w);
    gdt_rows_destroy(w.rows);
    fclose(out);
    return fatal ? 1 : 0;
}
