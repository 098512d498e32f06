/* The worker side: the process that owns the GPU during a sweep (the verb
 * `gdtune worker`, cli/cli_worker.c, calls gdt_worker_serve).  It reads
 * one JSON request per line on stdin and answers one JSON line on its
 * private copy of stdout (protocol: gdt_worker.h).  A plan that poisons the
 * context makes it answer "fatal" and exit; the parent respawns it. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_ab.h"
#include "gdt_cuda.h"
#include "gdt_cupti.h"
#include "gdt_engines.h"
#include "gdt_json.h"
#include "gdt_plan_json.h"
#include "gdt_measure.h"
#include "gdt_plant.h"
#include "gdt_limits.h"
#include "gdt_trial.h"
#include "gdt_util.h"
#include "gdt_wire.h"
#include "gdt_worker.h"

typedef struct worker {
    bool have_device;
    gdt_device_props dev;
    gdt_row_table *rows;
    /* the current cell: its buffers and reference, and every plan of it */
    gdt_trial *cell;
    gdt_graph *g;
    /* its prebuild: the threads asked, the plans kept, the wall time */
    int build_threads, prebuilt;
    double prebuild_s;
    gdt_plant plant; /* GDTUNE_PLANT_SLOWDOWN, opt-in (gdt_plant.h); n = 0: none */
} worker;

/* A plan request's settings beyond the measurement's. */
typedef struct plan_opts {
    gdt_measure_opts mo;
    bool cupti;   /* one traced burst beside the timed ones */
} plan_opts;

static cJSON *error_reply(const gdt_error *e)
{
    cJSON *r = gdt__wire_new(GDT__WM_ERROR_R);
    gdt__wire_add_str(r, GDT__W_ERROR_R_STATUS, gdt_status_name(e->status));
    gdt__wire_add_str(r, GDT__W_ERROR_R_ERROR, e->msg);
    return r;
}

/* ------------------------------------------------------ request fields */

/* The parent is another gdtune, but a request is still input: every field
 * is read strictly, in the ranges the command line and the sweep spec allow
 * (gdt_limits.h), so that no value outside them reaches a measurement. */
#define REQUEST "worker request"

/* Optional "bursts": 1 to GDT_MAX_BURSTS increasing sizes in
 * 1..GDT_BURST_MAX, as `gdtune sweep --bursts` takes them. */
static gdt_status request_bursts(const cJSON *req, gdt__wire_field f, gdt_measure_opts *mo,
                                 gdt_error *e)
{
    const cJSON *b = gdt__wire_get(req, f), *x;
    char got[96];
    int n = cJSON_IsArray(b) ? cJSON_GetArraySize(b) : 0;
    if (!b)
        return GDT_STATUS_OK;
    if (n < 1 || n > GDT_MAX_BURSTS) {
        gdt_json_describe(b, got, sizeof got);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /%s: expected an array of 1 to %d "
                             "burst sizes, got %s", REQUEST, gdt__wire_key(f), GDT_MAX_BURSTS, got);
    }
    mo->nbursts = 0;
    cJSON_ArrayForEach(x, b)
    {
        char jp[32], jk[32];
        int64_t v = 0;
        gdt_json_path_key(jk, sizeof jk, "", gdt__wire_key(f));
        gdt_json_path_index(jp, sizeof jp, jk, mo->nbursts);
        gdt_status s = gdt_json_int(x, REQUEST, jp, &v, e);
        if (s == GDT_STATUS_OK &&
            (v < gdt__wire_lo(f) || v > gdt__wire_hi(f) ||
             (mo->nbursts && v <= mo->bursts[mo->nbursts - 1])))
            s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected increasing burst sizes in "
                              "%.0f..%.0f, got %lld", REQUEST, jp, gdt__wire_lo(f),
                              gdt__wire_hi(f), (long long)v);
        if (s != GDT_STATUS_OK)
            return s;
        mo->bursts[mo->nbursts++] = (int)v;
    }
    return GDT_STATUS_OK;
}


/* ---------------------------------------------------------- plan list */

/* One entry of the cell's list as the parent journals it. */
static cJSON *entry_json(const gdt_plan_entry *x)
{
    cJSON *o = gdt_plan_json(&x->id);
    cJSON_AddBoolToObject(o, "backend", x->is_backend);
    cJSON_AddStringToObject(o, "tag", gdt_plan_entry_tag(x));
    cJSON_AddNumberToObject(o, "untimed", x->untimed);
    return o;
}

static cJSON *plans_json(const gdt_graph *g)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < gdt_graph_plan_count(g); i++)
        cJSON_AddItemToArray(a, entry_json(gdt_graph_plan_at(g, i)));
    return a;
}

/* A backend block that could not be listed is reported, not fatal. */
static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "gdtune worker: %s\n", msg);
}

/* Every plan of the cell, as libgdtune enumerates it for a sweep. */
static gdt_status enumerate_cell(worker *w, const gdt_problem *p, int knob_cap, gdt_error *e)
{
    gdt_plan_options po = {.rows = w->rows, .backend = gdt_cudnn_backend(), .knob_cap = knob_cap,
                           .warn = warn};
    gdt_status s = gdt_graph_create(p, &w->dev, &w->g, e);
    return s == GDT_STATUS_OK ? gdt_graph_enumerate(w->g, &po, e) : s;
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
    gdt__wire_add_str(d, GDT__W_DEVICE_NAME, p.name);
    gdt__wire_add_num(d, GDT__W_DEVICE_ARCH, w->dev.arch);
    gdt__wire_add_num(d, GDT__W_DEVICE_SM_COUNT, p.multiProcessorCount);
    gdt__wire_add_num(d, GDT__W_DEVICE_L2_BYTES, p.l2CacheSize);
    gdt__wire_add_num(d, GDT__W_DEVICE_SMEM_PER_BLOCK, (double)p.sharedMemPerBlockOptin);
    gdt__wire_add_num(d, GDT__W_DEVICE_REGS_PER_BLOCK, p.regsPerBlock);
    gdt__wire_add_num(d, GDT__W_DEVICE_MAX_THREADS_PER_BLOCK, p.maxThreadsPerBlock);
    gdt__wire_add_num(d, GDT__W_DEVICE_SM_CLOCK_KHZ, clk);
    gdt__wire_add_num(d, GDT__W_DEVICE_MEM_CLOCK_KHZ, mclk);
    gdt__wire_add_num(d, GDT__W_DEVICE_DRIVER_VERSION, drv);
    gdt__wire_add_num(d, GDT__W_DEVICE_CUDA_VERSION, rt);
    gdt__wire_add_num(d, GDT__W_DEVICE_CUDNN_VERSION, gdt_cudnn_runtime_version());
    gdt__wire_add_num(d, GDT__W_DEVICE_NVRTC_VERSION, nmaj * 1000 + nmin * 10);
    gdt__wire_add_str(d, GDT__W_DEVICE_UUID, uuid);
    return GDT_STATUS_OK;
}

static gdt_status count_devices(int *n, gdt_error *e)
{
    GDT_CHECK_CUDA(e, cudaGetDeviceCount(n));
    return GDT_STATUS_OK;
}

/* hello with "cupti": true asks whether CUPTI works here: "cupti_error"
 * says why not, so that the sweep can refuse --cupti before it measures. */
static void hello_cupti(const cJSON *req, cJSON *r)
{
    gdt_error e = {0};
    if (gdt__wire_true(req, GDT__W_HELLO_CUPTI) && gdt_cupti_check(&e) != GDT_STATUS_OK)
        gdt__wire_add_str(r, GDT__W_HELLO_R_CUPTI_ERROR, e.msg);
}

/* hello with "rows": the candidate rows every later cell lists (the
 * sweep's, as its run header records them), in place of the defaults
 * loaded at start. */
static gdt_status hello_rows(worker *w, const cJSON *req, gdt_error *e)
{
    const cJSON *rows = gdt__wire_get(req, GDT__W_HELLO_ROWS);
    gdt_row_table *t = NULL;
    char got[96];
    if (!rows)
        return GDT_STATUS_OK;
    if (!cJSON_IsString(rows)) {
        gdt_json_describe(rows, got, sizeof got);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /rows: expected a rows file's text, got %s",
                             REQUEST, got);
    }
    const char *text = rows->valuestring;
    gdt_status s = gdt_rows_load_text(text, strlen(text), REQUEST ": /rows", &t, e);
    if (s != GDT_STATUS_OK)
        return s;
    gdt_rows_destroy(w->rows);
    w->rows = t;
    return GDT_STATUS_OK;
}

static cJSON *on_hello(worker *w, const cJSON *req)
{
    gdt_error e = {0};
    int n = 0;
    if (hello_rows(w, req, &e) != GDT_STATUS_OK)
        return error_reply(&e);
    cJSON *r = gdt__wire_new(GDT__WM_HELLO_R);
    cJSON *d = cJSON_CreateObject();
    gdt_status s = count_devices(&n, &e);
    if (s == GDT_STATUS_OK && n == 0)
        s = gdt_error_set(&e, GDT_STATUS_NO_DEVICE, "cudaGetDeviceCount found 0 devices");
    if (s == GDT_STATUS_OK)
        s = device_json(w, d, &e);
    if (s != GDT_STATUS_OK) {
        cJSON_Delete(d);
        gdt__wire_add(r, GDT__W_HELLO_R_DEVICE, cJSON_CreateNull());
        gdt__wire_add_str(r, GDT__W_HELLO_R_ERROR, e.msg);
        return r;
    }
    w->have_device = true;
    gdt__wire_add_num(d, GDT__W_DEVICE_DEVICE_COUNT, n); /* the sweep starts one worker per device */
    gdt__wire_add(r, GDT__W_HELLO_R_DEVICE, d);
    hello_cupti(req, r);
    return r;
}

/* -------------------------------------------------------------- cell */

static void cell_free(worker *w)
{
    gdt_graph_destroy(w->g); /* with the prebuilt plans never measured */
    w->g = NULL;
    w->build_threads = w->prebuilt = 0;
    w->prebuild_s = 0;
    gdt_trial_destroy(w->cell);
    w->cell = NULL;
}

/* The cell request: family and problem, seed, knob cap and build threads,
 * all checked before anything touches the device. */
static gdt_status cell_request(const cJSON *req, gdt_problem *p, int64_t *seed, int64_t *cap,
                               int64_t *threads, gdt_error *e)
{
    const char *fam = gdt__wire_str(req, GDT__W_CELL_FAMILY);
    const char *shape = gdt__wire_str(req, GDT__W_CELL_PROBLEM);
    gdt_family f;
    gdt_status s;
    *seed = (int64_t)gdt__wire_def(GDT__W_CELL_SEED);
    *cap = (int64_t)gdt__wire_def(GDT__W_CELL_KNOB_CAP);
    *threads = (int64_t)gdt__wire_def(GDT__W_CELL_BUILD_THREADS);
    if (!fam || !shape)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "worker: cell request needs family and problem");
    if ((s = gdt_family_parse(fam, &f, e)) != GDT_STATUS_OK ||
        (s = gdt_problem_parse(f, shape, p, e)) != GDT_STATUS_OK ||
        (s = gdt__wire_int(req, GDT__W_CELL_SEED, REQUEST, seed, e)) != GDT_STATUS_OK ||
        (s = gdt__wire_int(req, GDT__W_CELL_BUILD_THREADS, REQUEST, threads, e)) != GDT_STATUS_OK)
        return s;
    return gdt__wire_int(req, GDT__W_CELL_KNOB_CAP, REQUEST, cap, e);
}

/* The cell's cuDNN plans finalized on several threads now, before anything
 * is measured, so that no builder holds driver locks while a timed burst is
 * enqueued; each plan's build then takes its finalized plan.  A prebuild
 * that fails leaves its plans to build when measured: only time is lost. */
static void prebuild_cell(worker *w, int threads)
{
    gdt_error e = {0};
    double t0 = gdt_now();
    w->build_threads = threads;
    if (gdt_trial_prebuild(w->cell, w->g, threads, &w->prebuilt, &e) != GDT_STATUS_OK)
        fprintf(stderr, "gdtune worker: %s (those plans build when measured)\n", e.msg);
    w->prebuild_s = gdt_now() - t0;
}

static gdt_status prepare_cell(worker *w, const cJSON *req, gdt_error *e)
{
    gdt_problem p;
    int64_t seed, cap, threads;
    gdt_status s = cell_request(req, &p, &seed, &cap, &threads, e);
    if (s == GDT_STATUS_OK && !w->have_device)
        s = gdt_error_set(e, GDT_STATUS_NO_DEVICE, "worker: no device (hello first)");
    if (s == GDT_STATUS_OK)
        s = gdt_trial_create(&p, &w->dev, (uint64_t)seed, "gdtune worker", &w->cell, e);
    if (s == GDT_STATUS_OK)
        s = enumerate_cell(w, &p, (int)cap, e);
    if (s == GDT_STATUS_OK)
        prebuild_cell(w, (int)threads);
    return s == GDT_STATUS_OK ? gdt_trial_reference(w->cell, w->g, e) : s;
}

static cJSON *on_cell(worker *w, const cJSON *req)
{
    gdt_error e = {0};
    cell_free(w);
    if (prepare_cell(w, req, &e) != GDT_STATUS_OK) {
        cell_free(w);
        cJSON *r = error_reply(&e);
        gdt__wire_add_bool(r, GDT__W_ERROR_R_FATAL,
                           w->have_device && cudaDeviceSynchronize() != cudaSuccess);
        return r;
    }
    cJSON *r = gdt__wire_new(GDT__WM_CELL_R);
    gdt__wire_add(r, GDT__W_CELL_R_PLANS, plans_json(w->g));
    gdt__wire_add_str(r, GDT__W_CELL_R_REFERENCE, w->cell->ref_name);
    gdt__wire_add_bool(r, GDT__W_CELL_R_REFERENCE_CPU,
                       w->cell->ref_is_cpu || w->cell->ref_cpu_checked);
    gdt__wire_add_num(r, GDT__W_CELL_R_BUILD_THREADS, w->build_threads);
    gdt__wire_add_num(r, GDT__W_CELL_R_PREBUILT, w->prebuilt);
    gdt__wire_add_num(r, GDT__W_CELL_R_PREBUILD_S, w->prebuild_s);
    return r;
}

/* -------------------------------------------------------------- plan */


cJSON *gdt__clocks_json(const gdt_measure_clocks *c)
{
    cJSON *o = cJSON_CreateObject();
    gdt__wire_add_num(o, GDT__W_CLOCKS_RATED_MHZ, c->rated_mhz);
    gdt__wire_add_num(o, GDT__W_CLOCKS_MIN_MHZ, c->min_mhz);
    gdt__wire_add_num(o, GDT__W_CLOCKS_MAX_MHZ, c->max_mhz);
    gdt__wire_add_num(o, GDT__W_CLOCKS_PROBES, c->probes);
    gdt__wire_add_num(o, GDT__W_CLOCKS_THRESHOLD, c->threshold);
    return o;
}

/* The measurement settings of a plan request; absent fields keep the
 * defaults. */
static gdt_status measure_opts(const cJSON *req, plan_opts *po, gdt_error *e)
{
    gdt_measure_opts *mo = &po->mo;
    const cJSON *cupti = gdt__wire_get(req, GDT__W_PLAN_CUPTI);
    gdt_measure_opts_default(mo);
    po->cupti = cJSON_IsTrue(cupti);
    if (cupti && !cJSON_IsBool(cupti)) {
        char got[96];
        gdt_json_describe(cupti, got, sizeof got);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /%s: expected a boolean, got %s",
                             REQUEST, gdt__wire_key(GDT__W_PLAN_CUPTI), got);
    }
    /* absent fields keep gdt_measure_opts_default's values */
    const gdt__wire_field f[] = {
        GDT__W_PLAN_TARGET_REL, GDT__W_PLAN_MAX_SECONDS, GDT__W_PLAN_RACE_US,
        GDT__W_PLAN_RACE_NOISE, GDT__W_PLAN_RACE_MARGIN, GDT__W_PLAN_CONTENDER_SECONDS,
        GDT__W_PLAN_HEAT_S, GDT__W_PLAN_METRIC_SAMPLE_S,
    };
    double *const at[sizeof f / sizeof *f] = {
        &mo->target_rel, &mo->max_seconds, &mo->race_us, &mo->race_noise, &mo->race_margin,
        &mo->contender_seconds, &mo->heat_seconds, &mo->metric_sample_s,
    };
    gdt_status s = request_bursts(req, GDT__W_PLAN_BURSTS, mo, e);
    for (size_t i = 0; s == GDT_STATUS_OK && i < sizeof f / sizeof *f; i++)
        s = gdt__wire_number(req, f[i], REQUEST, at[i], e);
    mo->cold = true;
    /* A sweep decides by the largest burst alone; the others draw its
     * curve (measure.c: Targets). */
    mo->curve_rel = GDT_CURVE_REL;
    return s;
}

static cJSON *burst_json(const gdt_burst_result *b)
{
    cJSON *o = cJSON_CreateObject();
    gdt__wire_add_num(o, GDT__W_BURST_BURST, b->burst);
    gdt__wire_add(o, GDT__W_BURST_HOST_US, cJSON_CreateDoubleArray(b->host_us, b->n));
    gdt__wire_add(o, GDT__W_BURST_DEVICE_US, cJSON_CreateDoubleArray(b->device_us, b->n));
    gdt__wire_add(o, GDT__W_BURST_TOTAL_US, cJSON_CreateDoubleArray(b->total_us, b->n));
    gdt__wire_add(o, GDT__W_BURST_CLOCK_MHZ, cJSON_CreateDoubleArray(b->clock_mhz, b->n));
    gdt__wire_add_num(o, GDT__W_BURST_MEDIAN_HOST_US, b->median_host_us);
    gdt__wire_add_num(o, GDT__W_BURST_MEDIAN_DEVICE_US, b->median_device_us);
    gdt__wire_add_num(o, GDT__W_BURST_REL_SPREAD, b->rel_spread);
    gdt__wire_add_num(o, GDT__W_BURST_DROPPED, b->dropped);
    return o;
}

static void add_measurement(cJSON *r, const gdt_measure_result *m)
{
    cJSON *bs = cJSON_CreateArray();
    gdt__wire_add(r, GDT__W_RESULT_R_BURSTS, bs);
    for (int i = 0; i < m->nbursts; i++)
        cJSON_AddItemToArray(bs, burst_json(&m->bursts[i]));
    gdt__wire_add(r, GDT__W_RESULT_R_COLD_US, cJSON_CreateDoubleArray(m->cold_us, m->ncold));
    gdt__wire_add_num(r, GDT__W_RESULT_R_MEDIAN_COLD_US, m->median_cold_us);
    gdt__wire_add_bool(r, GDT__W_RESULT_R_CONVERGED, m->converged);
    gdt__wire_add_bool(r, GDT__W_RESULT_R_RACED_OUT, m->raced_out);
    if (m->raced_late)
        gdt__wire_add_bool(r, GDT__W_RESULT_R_RACED_LATE, true);
    if (m->race_burst)
        gdt__wire_add_num(r, GDT__W_RESULT_R_RACE_BURST, m->race_burst);
    if (m->heat_s > 0) {
        gdt__wire_add_num(r, GDT__W_RESULT_R_HEAT_S, m->heat_s);
        gdt__wire_add_num(r, GDT__W_RESULT_R_HEAT_MHZ, m->heat_mhz);
    }
    gdt__wire_add_num(r, GDT__W_RESULT_R_MEASURE_S, m->seconds);
    double noise = 0, t = gdt_measure_best_us(m, &noise);
    gdt__wire_add_num(r, GDT__W_RESULT_R_TIME_US, t);
    gdt__wire_add_num(r, GDT__W_RESULT_R_NOISE, noise);
}

static gdt_status exec_plan(void *ctx, void *stream, gdt_error *e)
{
    worker *w = ctx;
    (void)stream; /* the trial's own */
    return gdt_trial_execute(w->cell, w->g, e);
}

/* One traced burst of `burst` calls, apart from the timed ones: CUPTI's
 * kernel durations beside the event time, per call, and the kernel that
 * took most of them. */
static gdt_status trace_plan(worker *w, int burst, cJSON *r, gdt_error *e)
{
    gdt_exec_fn fn = {exec_plan, w};
    gdt_cupti_burst c;
    gdt_status s = gdt_cupti_trace(&fn, w->cell->stream, burst, &c, e);
    if (s != GDT_STATUS_OK)
        return s;
    gdt__wire_add(r, GDT__W_RESULT_R_CUPTI, gdt_cupti_json(burst, &c));
    return GDT_STATUS_OK;
}

/* The relative errors, null where one is not finite (an output that held
 * NaN or Inf: JSON has no number for it, and the journal's contract takes
 * null there, gdt_record.h). */
static cJSON *errors_json(const double *err, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, isfinite(err[i]) ? cJSON_CreateNumber(err[i]) : cJSON_CreateNull());
    return a;
}

/* Verifies then measures the built plan, and traces it when asked: a
 * contender with a burst of its metric's size, a plan raced out with one
 * call, which is enough to name its main kernel and launch shape (64
 * calls of every raced-out plan would have cost 155 s of the 2026-12-01
 * default GEMM sweep, one call 2.4 s). */
static gdt_status verify_and_measure(worker *w, const plan_opts *po, cJSON *r, gdt_error *e)
{
    const gdt_measure_opts *mo = &po->mo;
    double err[4] = {0};
    int nerr = 0;
    gdt_status s = gdt_trial_verify(w->cell, w->g, err, &nerr, e);
    if (s == GDT_STATUS_OK || s == GDT_STATUS_INCORRECT)
        gdt__wire_add(r, GDT__W_RESULT_R_VERIFY_ERR, errors_json(err, nerr));
    if (s != GDT_STATUS_OK)
        return s;
    gdt_measure_result *m = calloc(1, sizeof *m);
    if (!m)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "worker: out of memory");
    gdt_measure_clocks clk = {0};
    s = gdt_trial_measure(w->cell, w->g, mo, m, &clk, e);
    if (s == GDT_STATUS_OK) {
        add_measurement(r, m);
        gdt__wire_add(r, GDT__W_RESULT_R_CLOCKS, gdt__clocks_json(&clk));
    }
    gdt_error te = {0};
    /* The timed measurement stands without the trace: a tracing failure is
     * journaled beside it, not as the plan's disposition. */
    if (s == GDT_STATUS_OK && po->cupti &&
        trace_plan(w, m->raced_out ? 1 : m->bursts[m->nbursts - 1].burst, r, &te) != GDT_STATUS_OK)
        gdt__wire_add_str(r, GDT__W_RESULT_R_CUPTI_ERROR, te.msg);
    free(m);
    return s;
}

/* The plan the parent names, replayed on the cell's graph and built. */
static gdt_status build_plan(worker *w, const cJSON *req, double *build_s, gdt_error *e)
{
    gdt_plan_id id;
    if (!w->cell)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "worker: plan before cell");
    gdt_status s = gdt_plan_json_read(gdt__wire_get(req, GDT__W_PLAN_PLAN), REQUEST, "/plan", false, &id, NULL, e);
    if (s == GDT_STATUS_OK)
        s = gdt_graph_replay(w->g, &id, e);
    if (s == GDT_STATUS_OK)
        s = gdt_trial_slow(w->cell, w->g, gdt_plant_fraction(&w->plant, &id), e);
    return s == GDT_STATUS_OK ? gdt_trial_build(w->cell, w->g, NULL, build_s, e) : s;
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
    plan_opts po;
    if (measure_opts(req, &po, &e) != GDT_STATUS_OK)
        return error_reply(&e); /* a bad request, not a plan's disposition */
    cJSON *r = gdt__wire_new(GDT__WM_RESULT_R);
    double build_s = 0;
    gdt_status s = build_plan(w, req, &build_s, &e);
    if (s == GDT_STATUS_OK)
        s = verify_and_measure(w, &po, r, &e);
    gdt__wire_add_str(r, GDT__W_RESULT_R_DISPOSITION, disposition(s));
    gdt__wire_add_str(r, GDT__W_RESULT_R_ERROR, s == GDT_STATUS_OK ? "" : e.msg);
    gdt__wire_add_num(r, GDT__W_RESULT_R_BUILD_S, build_s);
    /* A fault poisons the context for good: say so, and let the parent
     * start a fresh worker. */
    cudaError_t sticky = s == GDT_STATUS_OK || !w->have_device ? cudaSuccess : cudaDeviceSynchronize();
    gdt__wire_add_bool(r, GDT__W_RESULT_R_FATAL, sticky != cudaSuccess);
    if (sticky != cudaSuccess)
        gdt__wire_add_str(r, GDT__W_RESULT_R_FATAL_ERROR, cudaGetErrorName(sticky));
    return r;
}


/* ------------------------------------------------------------ rounds */

/* A rounds request: the plans, the rounds, and one round's measurement of
 * one plan. */
typedef struct rounds_opts {
    gdt_plan_id id[GDT_ROUNDS_PLANS_MAX];
    int k;
    int64_t rounds;
    gdt_measure_opts mo;
} rounds_opts;

static gdt_status rounds_plans(const cJSON *req, rounds_opts *q, gdt_error *e)
{
    const cJSON *pl = gdt__wire_get(req, GDT__W_ROUNDS_PLANS), *x;
    char got[96];
    q->k = cJSON_IsArray(pl) ? cJSON_GetArraySize(pl) : 0;
    if (q->k < 2 || q->k > GDT_ROUNDS_PLANS_MAX) {
        gdt_json_describe(pl, got, sizeof got);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /%s: expected an array of 2 to %d "
                             "plans, got %s", REQUEST, gdt__wire_key(GDT__W_ROUNDS_PLANS),
                             GDT_ROUNDS_PLANS_MAX, pl ? got : "nothing");
    }
    int i = 0;
    cJSON_ArrayForEach(x, pl)
    {
        char jp[64];
        gdt_json_path_index(jp, sizeof jp, "/plans", i);
        if (gdt_plan_json_read(x, REQUEST, jp, false, &q->id[i++], NULL, e) != GDT_STATUS_OK)
            return GDT_STATUS_BAD_INPUT;
    }
    return GDT_STATUS_OK;
}

/* Each round of a plan is min_samples samples of the bursts asked (the
 * sweep asks its largest): the target is the loosest the ranges allow, so
 * that a series stops at that floor. */
static gdt_status rounds_request(const cJSON *req, rounds_opts *q, gdt_error *e)
{
    gdt_measure_opts_default(&q->mo);
    q->mo.target_rel = GDT_TARGET_REL_MAX;
    q->rounds = 0;
    gdt_status s = rounds_plans(req, q, e);
    if (s == GDT_STATUS_OK)
        s = gdt__wire_int(req, GDT__W_ROUNDS_ROUNDS, REQUEST, &q->rounds, e);
    if (s == GDT_STATUS_OK && !q->rounds)
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /%s: expected an integer in [%.0f, %.0f], "
                          "got nothing", REQUEST, gdt__wire_key(GDT__W_ROUNDS_ROUNDS),
                          gdt__wire_lo(GDT__W_ROUNDS_ROUNDS), gdt__wire_hi(GDT__W_ROUNDS_ROUNDS));
    if (s == GDT_STATUS_OK)
        s = request_bursts(req, GDT__W_ROUNDS_BURSTS, &q->mo, e);
    if (s == GDT_STATUS_OK)
        s = gdt__wire_number(req, GDT__W_ROUNDS_MAX_SECONDS, REQUEST, &q->mo.max_seconds, e);
    return s;
}

/* The plans on graphs of their own, each verified again (one execute
 * against the cell's reference: cheap beside the rounds), so that what
 * the rounds time is what the sweep verified. */
static gdt_status rounds_build(worker *w, const rounds_opts *q, gdt_graph **g, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < q->k && s == GDT_STATUS_OK; i++) {
        double err[4];
        int nerr = 0;
        gdt_error pe = {0};
        char name[320];
        s = gdt_rounds_plan_build(w->cell, &q->id[i], &g[i], &pe);
        if (s == GDT_STATUS_OK)
            s = gdt_trial_verify(w->cell, g[i], err, &nerr, &pe);
        if (s == GDT_STATUS_OK)
            s = gdt_trial_slow(w->cell, g[i], gdt_plant_fraction(&w->plant, &q->id[i]), &pe);
        gdt_plan_id_format(&q->id[i], name, sizeof name);
        if (s != GDT_STATUS_OK)
            gdt_error_set(e, s, "rounds: plan %d %s: %s", i, name, pe.msg);
    }
    return s;
}

static void rounds_json(cJSON *r, const rounds_opts *q, double *const *us, double seconds)
{
    gdt_rounds_stats st;
    gdt_rounds_stats_compute((const double *const *)us, q->k, (int)q->rounds, &st);
    gdt__wire_add(r, GDT__W_ROUNDS_R_TIME_US, cJSON_CreateDoubleArray(st.time_us, q->k));
    gdt__wire_add(r, GDT__W_ROUNDS_R_NOISE, cJSON_CreateDoubleArray(st.noise, q->k));
    gdt__wire_add(r, GDT__W_ROUNDS_R_RATIOS, cJSON_CreateDoubleArray(st.ratio, q->k));
    cJSON *a = cJSON_CreateArray();
    gdt__wire_add(r, GDT__W_ROUNDS_R_ROUND_US, a);
    for (int i = 0; i < q->k; i++)
        cJSON_AddItemToArray(a, cJSON_CreateDoubleArray(us[i], (int)q->rounds));
    gdt__wire_add_num(r, GDT__W_ROUNDS_R_SECONDS, seconds);
}

static gdt_status run_rounds(worker *w, const rounds_opts *q, cJSON *r, gdt_error *e)
{
    gdt_graph *g[GDT_ROUNDS_PLANS_MAX] = {NULL};
    double *us[GDT_ROUNDS_PLANS_MAX] = {NULL};
    gdt_status s = w->cell ? GDT_STATUS_OK
                           : gdt_error_set(e, GDT_STATUS_BAD_INPUT, "worker: rounds before cell");
    for (int i = 0; i < q->k && s == GDT_STATUS_OK; i++)
        if (!(us[i] = calloc((size_t)q->rounds, sizeof *us[i])))
            s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "worker: out of memory");
    double t0 = gdt_now();
    if (s == GDT_STATUS_OK)
        s = rounds_build(w, q, g, e);
    if (s == GDT_STATUS_OK)
        s = gdt_rounds_measure(w->cell, g, q->k, (int)q->rounds, &q->mo, us, e);
    if (s == GDT_STATUS_OK)
        rounds_json(r, q, us, gdt_now() - t0);
    for (int i = 0; i < q->k; i++) {
        if (w->cell)
            gdt_trial_slow(w->cell, g[i], 0, NULL);
        gdt_graph_destroy(g[i]);
        free(us[i]);
    }
    return s;
}

static cJSON *on_rounds(worker *w, const cJSON *req)
{
    gdt_error e = {0};
    rounds_opts q;
    cJSON *r = gdt__wire_new(GDT__WM_ROUNDS_R);
    gdt_status s = rounds_request(req, &q, &e);
    if (s == GDT_STATUS_OK)
        s = run_rounds(w, &q, r, &e);
    if (s == GDT_STATUS_OK)
        return r;
    cJSON_Delete(r);
    r = error_reply(&e);
    gdt__wire_add_bool(r, GDT__W_ERROR_R_FATAL,
                       w->have_device && w->cell && cudaDeviceSynchronize() != cudaSuccess);
    return r;
}

/* -------------------------------------------------------------- loop */

typedef cJSON *handler(worker *w, const cJSON *req);

static cJSON *on_quit(worker *w, const cJSON *req)
{
    (void)w, (void)req;
    return NULL;
}

/* The requests, by message: what answers each. */
static handler *const handlers[] = {
    [GDT__WM_HELLO] = on_hello, [GDT__WM_CELL] = on_cell, [GDT__WM_PLAN] = on_plan,
    [GDT__WM_ROUNDS] = on_rounds, [GDT__WM_QUIT] = on_quit,
};

/* The request message whose op is op, GDT__WM_COUNT for none. */
static gdt__wire_msg request_msg(const char *op)
{
    int m = 0;
    while (m < (int)(sizeof handlers / sizeof *handlers) && strcmp(gdt__wire_op(m), op))
        m++;
    return m < (int)(sizeof handlers / sizeof *handlers) ? (gdt__wire_msg)m : GDT__WM_COUNT;
}

static cJSON *dispatch(worker *w, const char *line, bool *quit)
{
    cJSON *req = cJSON_Parse(line), *r;
    const char *op = cJSON_GetStringValue(gdt__wire_get(req, GDT__W_HELLO_OP));
    gdt__wire_msg m = op ? request_msg(op) : GDT__WM_COUNT;
    gdt_error e = {0};
    if (!op)
        r = (gdt_error_set(&e, GDT_STATUS_BAD_INPUT, "worker: request is not a JSON object with "
                           "\"op\": %.80s", line), error_reply(&e));
    else if (m == GDT__WM_COUNT)
        r = (gdt_error_set(&e, GDT_STATUS_BAD_INPUT, "worker: unknown op \"%s\"", op),
             error_reply(&e));
    else if (gdt__wire_known(m, REQUEST, req, &e) != GDT_STATUS_OK)
        r = error_reply(&e);
    else
        r = (*quit = m == GDT__WM_QUIT, handlers[m](w, req));
    cJSON_Delete(req);
    return r;
}

int gdt_worker_serve(void)
{
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
    bool ignored;
    if (gdt_plant_from_env(&w.plant, &ignored, &e) != GDT_STATUS_OK) {
        fprintf(stderr, "gdtune worker: %s\n", e.msg);
        fclose(out);
        return 2;
    }
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
        fatal = gdt__wire_true(r, GDT__W_ERROR_R_FATAL); /* every reply's "fatal" */
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
