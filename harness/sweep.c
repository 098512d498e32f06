/* The sweep's run loop: cells handed to one worker per GPU, every plan's
 * attempt and result journaled, a resumed run continued from its journal,
 * then the tables (emit.c).  Spec parsing is spec.c, compile-only
 * compile_only.c. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gdt_emit.h"
#include "gdt_journal.h"
#include "gdt_json.h"
#include "gdt_plan_json.h"
#include "gdt_plant.h"
#include "gdt_lock.h"
#include "gdt_metric_clock.h"
#include "gdt_prior.h"
#include "gdt_race.h"
#include "gdt_run.h"
#include "gdt_run_write.h"
#include "gdt_sweep.h"
#include "gdt_util.h"
#include "gdt_wire.h"
#include "gdt_worker_proto.h"

/* -------------------------------------------------------------- run */

void gdt_sweep_opts_default(gdt_sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->knob_cap = -1;
}

#define HELLO_DEADLINE_S 120.0
#define CELL_DEADLINE_S 900.0

/* Per plan, what its clock outlier check needs (gdt_metric_clock.h). */
typedef struct plan_series {
    gdt_series_clock first; /* its first series' kind and clock */
    double first_us;        /* and time */
    double full_noise;      /* the noise of its series that counts, when measured in full */
    bool again;             /* measured again for its clock (journaled) */
    double metric_us;       /* its series that counts, when a metric one (verified, measured
                             * in full or raced late): what the tables rank; else 0 */
    double metric_mhz;      /* that series' clock (0: none read) */
} plan_series;

typedef struct run_cell {
    cJSON *plans;    /* the plan list as journaled (owned), NULL until listed */
    bool *has_result; /* per plan */
    int *order;      /* the order racing meets the plans: likely winners first set its bar */
    int nplans;
    bool journaled;  /* its "cell" record is in the journal */
    gdt_race_marks race; /* the plans measured in full so far */
    double *full_us; /* per plan: its time when measured in full (verified, not raced out), else 0 */
    plan_series *series; /* per plan */
    bool rounds_done; /* its rounds record is in the journal (--rounds) */
    int bursts[GDT_MAX_BURSTS]; /* those its first plan measured in full measured (cell_bursts) */
    int nbursts;     /* 0 until then */
} run_cell;

struct run;

/* One worker and the GPU it owns; cells are spread over the lanes. */
typedef struct lane {
    struct run *r;
    int index;       /* in the journal's results ("gpu") */
    int gpu;         /* -1: the first worker, which sees every device */
    gdt_worker *w;
    bool hello;
    int prepared;    /* cell prepared in the current worker, -1 none */
    cJSON *device;   /* its hello's device object (owned) */
    pthread_t thread;
    gdt_status status;
    gdt_error err;
} lane;

#define MAX_LANES GDT_GPUS_MAX

typedef struct run {
    gdt_sweep_opts o;
    gdt_sweep_spec *spec;
    run_cell *cells;
    char dir[PATH_MAX];
    char family[32]; /* a resumed run's FAMILY, from its header */
    gdt_journal *j;
    int lock_fd;      /* the run directory's lock (gdt_lock.h), -1 until held */
    gdt_prior *prior; /* the cells' prior order; NULL: none */
    lane lanes[MAX_LANES];
    int nlanes;
    cJSON *device;   /* the first lane's device: provenance */
    char journal_source[65]; /* the run header's gdtune source digest */
    gdt_sweep_rows rows;     /* the candidate rows measured: the header's, every hello's */
    gdt_journal_tail tail;   /* a resumed journal's end, for resume_repair */
    int arch;
    /* Shared between lanes, under mu: the journal, the counts, the next
     * cell, the cells' plan lists. */
    pthread_mutex_t mu;
    int next_cell;
    bool stop;
    int done, total, verified, incorrect, failed, declined, cell_errors;
    int session_plans;
    double t0;
    bool tty;
    char planted[GDT_PLANT_TEXT]; /* the environment's planted slowdown (gdt_plant.h); "": none */
} run;



static double plan_deadline(const run *r)
{
    if (r->o.deadline > 0)
        return r->o.deadline;
    /* Build (NVRTC or finalize), verification and the measurement cap (a
     * contender's included) with its warm-up, heat-up and cold samples,
     * plus a margin for a slow first load. */
    double cap = r->o.max_plan_seconds * (r->o.exhaustive ? 1.0 : 1.0 + GDT_CONTENDER_FACTOR);
    return 120.0 + 30.0 + 3.0 * cap + r->spec->heat_seconds + 30.0;
}

static void effective_settings(gdt_sweep_opts *o, const gdt_sweep_spec *sp)
{
    static const int def_bursts[] = {GDT_BURSTS_DEFAULT};
    if (!o->nbursts && sp->nbursts) {
        memcpy(o->bursts, sp->bursts, sizeof sp->bursts);
        o->nbursts = sp->nbursts;
    }
    if (!o->nbursts) {
        memcpy(o->bursts, def_bursts, sizeof def_bursts);
        o->nbursts = (int)(sizeof def_bursts / sizeof *def_bursts);
    }
    if (o->target_rel <= 0)
        o->target_rel = sp->target_rel > 0 ? sp->target_rel : GDT_TARGET_REL_DEFAULT;
    if (o->max_plan_seconds <= 0)
        o->max_plan_seconds = sp->max_plan_seconds > 0 ? sp->max_plan_seconds : GDT_PLAN_SECONDS_DEFAULT;
    if (o->knob_cap < 0)
        o->knob_cap = sp->knob_cap >= 0 ? sp->knob_cap : GDT_KNOB_CAP_DEFAULT;
}

/* ------------------------------------------------------ the worker side */

static gdt_status call(lane *ln, cJSON *req, double deadline, cJSON **reply, gdt_error *e)
{
    char *txt = cJSON_PrintUnformatted(req), *line = NULL;
    *reply = NULL;
    if (!txt)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "worker request: out of memory");
    gdt_status s = gdt_worker_call(ln->w, txt, deadline, &line, e);
    free(txt);
    /* cJSON_Parse records its error position in a global: lanes take turns. */
    pthread_mutex_lock(&ln->r->mu);
    if (s == GDT_STATUS_OK)
        *reply = cJSON_Parse(line);
    pthread_mutex_unlock(&ln->r->mu);
    if (s == GDT_STATUS_OK && !*reply)
        s = gdt_error_set(e, GDT_STATUS_INTERNAL, "worker reply is not JSON: %.200s", line);
    free(line);
    return s;
}

static gdt_status no_device(const char *detail, gdt_error *e)
{
    return gdt_error_set(e, GDT_STATUS_NO_DEVICE,
                         "no CUDA device found: measuring needs an NVIDIA GPU with its driver; "
                         "`--compile-only` checks every candidate row for --arch without one\n"
                         "  (worker: %s)", detail);
}

/* Starts (or restarts) the lane's worker and greets it. */
static gdt_status worker_up(run *r, lane *ln, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    if (!ln->w)
        s = gdt_worker_spawn_gpu(r->o.worker_exe, ln->gpu, &ln->w, e);
    else if (!ln->hello) /* lost: dead, killed, or exiting after a fatal reply */
        s = gdt_worker_respawn(ln->w, e);
    if (s != GDT_STATUS_OK || ln->hello)
        return s;
    ln->prepared = -1;
    cJSON *req = gdt__wire_new(GDT__WM_HELLO), *rep = NULL;
    if (r->o.cupti)
        gdt__wire_add_bool(req, GDT__W_HELLO_CUPTI, true);
    if (r->rows.text)
        gdt__wire_add_str(req, GDT__W_HELLO_ROWS, r->rows.text);
    s = call(ln, req, HELLO_DEADLINE_S, &rep, e);
    cJSON_Delete(req);
    if (s != GDT_STATUS_OK) {
        char why[GDT_ERROR_MAX];
        snprintf(why, sizeof why, "%s", e->msg);
        cJSON_Delete(rep);
        return no_device(why, e);
    }
    if (gdt__wire_is(rep, GDT__WM_ERROR_R)) { /* the hello itself refused: our bug, not the device */
        s = gdt_error_set(e, GDT_STATUS_INTERNAL, "the worker refused the hello: %s",
                          gdt_json_str_or(rep, gdt__wire_key(GDT__W_ERROR_R_ERROR), "?"));
        cJSON_Delete(rep);
        return s;
    }
    cJSON *dev = cJSON_DetachItemFromObjectCaseSensitive(rep, gdt__wire_key(GDT__W_HELLO_R_DEVICE));
    const char *cupti_why = gdt__wire_str(rep, GDT__W_HELLO_R_CUPTI_ERROR);
    if (!cJSON_IsObject(dev)) {
        const char *why = gdt__wire_str(rep, GDT__W_HELLO_R_ERROR);
        s = no_device(why ? why : "no device", e);
        cJSON_Delete(dev);
    } else if (cupti_why) {
        s = gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--cupti: CUPTI is not available on %s: %s "
                          "(drop --cupti to sweep without the traced burst)",
                          gdt_json_str_or(dev, gdt__wire_key(GDT__W_DEVICE_NAME), "the device"), cupti_why);
        cJSON_Delete(dev);
    } else {
        /* A respawned worker owns the same device: the first hello stays
         * (the run's provenance may point at it). */
        if (!ln->device)
            ln->device = dev;
        else
            cJSON_Delete(dev);
        ln->hello = true;
    }
    cJSON_Delete(rep);
    return s;
}

static void worker_lost(lane *ln)
{
    ln->hello = false;
    ln->prepared = -1;
}

/* ------------------------------------------------------------ progress */

/* Plans of cells not listed yet are estimated from the listed ones. */
static int estimated_total(const run *r)
{
    int listed = 0;
    for (int i = 0; i < r->spec->ncells; i++)
        listed += r->cells[i].plans != NULL;
    if (!listed)
        return r->total;
    return r->total + (r->spec->ncells - listed) * r->total / listed;
}

static void progress(run *r, const gdt_run_result_rec *res)
{
    int total = estimated_total(r), left = total - r->done;
    double per = r->session_plans ? (gdt_now() - r->t0) / r->session_plans : 0;
    double eta = per * left;
    if (r->tty) {
        fprintf(stderr, "\r\033[Kcell %d/%d  plans %d/%d  verified %d  incorrect %d  failed %d  "
                "declined %d  ETA %dm%02ds", res->cell + 1, r->spec->ncells, r->done, total,
                r->verified, r->incorrect, r->failed, r->declined, (int)(eta / 60), (int)eta % 60);
        fflush(stderr);
        return;
    }
    const gdt_sweep_cell *c = &r->spec->cells[res->cell];
    const cJSON *t = gdt__wire_get(res->measured, GDT__W_RESULT_R_TIME_US);
    fprintf(stderr, "gdtune sweep: [%d/%d] %s %s: %s%s: %s", r->done, total, gdt_family_name(c->family),
            c->shape, res->name, res->clock_outlier ? " (again)" : "", gdt_disposition_name(res->disposition));
    if (cJSON_IsNumber(t) && res->disposition == GDT_DISP_VERIFIED)
        fprintf(stderr, " %.2f us%s", t->valuedouble,
                gdt__wire_true(res->measured, GDT__W_RESULT_R_RACED_OUT) ? " (raced out)" : "");
    else if (*res->error)
        fprintf(stderr, " (%.300s)", res->error);
    fprintf(stderr, "  [verified %d incorrect %d failed %d declined %d, ETA %.0f s]\n",
            r->verified, r->incorrect, r->failed, r->declined, eta);
}

/* A plan's result counted (by 1), or no longer (by -1: a re-measure counts). */
static void count_by(run *r, gdt_disposition d, int by)
{
    int *n[GDT_DISP_COUNT] = {[GDT_DISP_VERIFIED] = &r->verified, [GDT_DISP_INCORRECT] = &r->incorrect,
                              [GDT_DISP_FAILED] = &r->failed, [GDT_DISP_DECLINED] = &r->declined};
    r->done += by;
    *n[d] += by;
}

static void count(run *r, gdt_disposition d)
{
    count_by(r, d, 1);
}

/* ---------------------------------------------------------- the cells */

/* Plan indices by untimed position (ties by index): the backend's mode-A
 * entries come first, so racing has a strong bar from the start (the prior,
 * when there is one, reorders this: plan_order). */
static int *untimed_order(const cJSON *plans)
{
    int n = cJSON_GetArraySize(plans);
    int *order = malloc(sizeof *order * (size_t)(n + 1));
    for (int i = 0; order && i < n; i++) {
        int u = (int)gdt_json_num_or(cJSON_GetArrayItem(plans, i), "untimed", 0), k = i;
        while (k > 0 && gdt_json_num_or(cJSON_GetArrayItem(plans, order[k - 1]), "untimed", 0) > u)
            order[k] = order[k - 1], k--;
        order[k] = i;
    }
    return order;
}

/* The order cell ci's plans are measured in: the prior's ranking of the
 * cell first (gdt_prior.h), then the rest in untimed order. */
static int *plan_order(const run *r, int ci, const cJSON *plans)
{
    const gdt_sweep_cell *c = &r->spec->cells[ci];
    char key[512];
    int *order = untimed_order(plans);
    gdt_problem_key(&c->problem, key, sizeof key);
    if (order)
        gdt_prior_order(r->prior, c->family, key, plans, order, cJSON_GetArraySize(plans));
    return order;
}

static gdt_engine_kind plan_kind(const cJSON *plan)
{
    return gdt_engine_kind_of(NULL, (int64_t)gdt_json_num_or(plan, "engine_id", 0));
}

/* What racing, the rounds' candidates and the clock check take of a
 * series: a worker's reply (as the sweep journals it) or a result the
 * journal's reader typed (--resume). */
typedef struct series_view {
    gdt_disposition d;
    bool raced_out;
    double time_us, noise;
    double sizes[GDT_MAX_BURSTS + 1]; /* its bursts' sizes in order; one more: too many */
    int nsizes;
    gdt_series_clock clock;
} series_view;

static series_view reply_view(gdt_disposition d, const cJSON *measured)
{
    series_view v = {.d = d, .raced_out = gdt__wire_true(measured, GDT__W_RESULT_R_RACED_OUT),
                     .time_us = gdt__wire_num_or(measured, GDT__W_RESULT_R_TIME_US, 0),
                     .noise = gdt__wire_num_or(measured, GDT__W_RESULT_R_NOISE, 0),
                     .clock = gdt_series_clock_of(measured)};
    const cJSON *b;
    cJSON_ArrayForEach(b, gdt__wire_get(measured, GDT__W_RESULT_R_BURSTS))
        if (v.nsizes <= GDT_MAX_BURSTS)
            v.sizes[v.nsizes++] = gdt__wire_num_or(b, GDT__W_BURST_BURST, 0);
    return v;
}

static series_view result_view(const gdt_run_result *res)
{
    series_view v = {.d = res->disposition, .raced_out = res->raced_out, .time_us = res->time_us,
                     .noise = res->noise, .clock = gdt_run_series_clock(res)};
    for (int i = 0; i < res->nbursts && v.nsizes <= GDT_MAX_BURSTS; i++)
        v.sizes[v.nsizes++] = res->bursts[i].burst;
    return v;
}

/* The cell's bursts from its first plan measured in full (cell_bursts):
 * left unset when they are not 1 to GDT_MAX_BURSTS increasing sizes. */
static void fix_bursts(run_cell *rc, const series_view *v)
{
    for (int i = 0; i < v->nsizes; i++) {
        double b = v->sizes[i];
        if (rc->nbursts == GDT_MAX_BURSTS || !(b >= 1 && b <= GDT_BURST_MAX) ||
            (rc->nbursts && b <= rc->bursts[rc->nbursts - 1])) {
            rc->nbursts = 0;
            return;
        }
        rc->bursts[rc->nbursts++] = (int)b;
    }
}

/* Racing's bars: a plan measured in full joins them.  The rounds'
 * candidates: any metric series (measured in full, or raced out late). */
static void note_best(run_cell *rc, int pi, const series_view *v)
{
    if (v->d != GDT_DISP_VERIFIED || v->clock.kind != GDT_SERIES_METRIC)
        return;
    rc->series[pi].metric_us = v->time_us;
    rc->series[pi].metric_mhz = v->clock.mhz;
    if (v->raced_out)
        return;
    if (!rc->nbursts)
        fix_bursts(rc, v);
    rc->full_us[pi] = v->time_us;
    rc->series[pi].full_noise = v->noise;
    gdt_race_note(&rc->race, plan_kind(cJSON_GetArrayItem(rc->plans, pi)), rc->full_us[pi],
                  rc->series[pi].full_noise);
}

/* Racing's marks from the cell's plans measured in full, but plan skip
 * (-1: none): a re-measure is not raced against its own first series. */
static void marks_without(const run_cell *rc, int skip, gdt_race_marks *m)
{
    memset(m, 0, sizeof *m);
    for (int pi = 0; pi < rc->nplans; pi++)
        if (pi != skip && rc->full_us[pi] > 0)
            gdt_race_note(m, plan_kind(cJSON_GetArrayItem(rc->plans, pi)), rc->full_us[pi],
                          rc->series[pi].full_noise);
}

/* A plan's first series: what its clock outlier check reads. */
static void note_first(run_cell *rc, int pi, const series_view *v)
{
    rc->series[pi].first = v->clock;
    rc->series[pi].first_us = v->time_us;
}

/* A plan's re-measure that counts replaces its first series in racing's
 * marks and the rounds' candidates. */
static void note_again(run_cell *rc, int pi, const series_view *v)
{
    rc->full_us[pi] = rc->series[pi].metric_us = 0;
    note_best(rc, pi, v);
    marks_without(rc, -1, &rc->race);
}

/* The cell reply's prebuild (NULL in *out's place when the worker did not
 * say: a worker older than it, or a value out of range). */
static const gdt_run_prebuild *reply_prebuild(const cJSON *rep, gdt_run_prebuild *out)
{
    double threads = gdt__wire_num_or(rep, GDT__W_CELL_R_BUILD_THREADS, 0);
    double kept = gdt__wire_num_or(rep, GDT__W_CELL_R_PREBUILT, 0);
    double sec = gdt__wire_num_or(rep, GDT__W_CELL_R_PREBUILD_S, -1);
    /* The journal's reader takes these ranges only: a value outside them is
     * left out rather than written into a journal that would not load. */
    if (!(threads >= 0 && threads <= GDT_BUILD_THREADS_MAX && kept >= 0 && kept <= INT_MAX &&
          sec >= 0 && sec <= GDT_DEADLINE_MAX))
        return NULL;
    *out = (gdt_run_prebuild){(int)threads, (int)kept, sec};
    return out;
}

/* The worker's list: an array, each entry's identity in the one spelling
 * (gdt_plan_json.h), as the journal takes it. */
static gdt_status check_plans(const cJSON *plans, gdt_error *e)
{
    int i = 0;
    if (!cJSON_IsArray(plans))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "worker reply: /plans: expected an array");
    for (const cJSON *x = plans->child; x; x = x->next, i++) {
        char jp[64];
        gdt_plan_id id;
        gdt_json_path_index(jp, sizeof jp, "/plans", i);
        if (gdt_plan_json_read(x, "worker reply", jp, false, &id, NULL, e) != GDT_STATUS_OK)
            return GDT_STATUS_BAD_INPUT;
    }
    return GDT_STATUS_OK;
}

static gdt_status set_plans(run *r, int ci, cJSON *plans, const cJSON *rep, gdt_error *e)
{
    run_cell *rc = &r->cells[ci];
    if (check_plans(plans, e) != GDT_STATUS_OK) {
        cJSON_Delete(plans);
        return GDT_STATUS_BAD_INPUT;
    }
    bool *has = calloc((size_t)cJSON_GetArraySize(plans) + 1, sizeof *has);
    double *full = calloc((size_t)cJSON_GetArraySize(plans) + 1, sizeof *full);
    plan_series *series = calloc((size_t)cJSON_GetArraySize(plans) + 1, sizeof *series);
    int *order = plan_order(r, ci, plans);
    if (!has || !full || !series || !order) {
        free(has);
        free(full);
        free(series);
        free(order);
        cJSON_Delete(plans);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    }
    pthread_mutex_lock(&r->mu);
    rc->plans = plans;
    rc->nplans = cJSON_GetArraySize(plans);
    rc->has_result = has;
    rc->full_us = full;
    rc->series = series;
    rc->order = order;
    r->total += rc->nplans;
    const cJSON *cpu = gdt__wire_get(rep, GDT__W_CELL_R_REFERENCE_CPU);
    bool checked = cJSON_IsTrue(cpu);
    gdt_run_prebuild pb;
    gdt_status s = !rep ? GDT_STATUS_OK
                        : gdt_run_write_plans(r->j, ci, &r->spec->cells[ci], plans,
                                              gdt__wire_str(rep, GDT__W_CELL_R_REFERENCE),
                                              cJSON_IsBool(cpu) ? &checked : NULL,
                                              reply_prebuild(rep, &pb), e);
    pthread_mutex_unlock(&r->mu);
    return s;
}

/* Hands the cell to the worker (buffers, reference, and, the first time,
 * the plan list).  A cell that cannot be prepared is journaled as a
 * cell_error and returns NOT_SUPPORTED with the reason in e. */
static gdt_status prepare(run *r, lane *ln, int ci, gdt_error *e)
{
    gdt_status s = worker_up(r, ln, e);
    if (s != GDT_STATUS_OK || ln->prepared == ci)
        return s;
    const gdt_sweep_cell *c = &r->spec->cells[ci];
    cJSON *req = gdt__wire_new(GDT__WM_CELL), *rep = NULL;
    gdt__wire_add_str(req, GDT__W_CELL_FAMILY, gdt_family_name(c->family));
    gdt__wire_add_str(req, GDT__W_CELL_PROBLEM, c->shape);
    gdt__wire_add_num(req, GDT__W_CELL_SEED, 1000 + ci);
    gdt__wire_add_num(req, GDT__W_CELL_KNOB_CAP, r->o.knob_cap);
    gdt__wire_add_num(req, GDT__W_CELL_BUILD_THREADS, gdt_sweep_build_threads(r->spec));
    s = call(ln, req, CELL_DEADLINE_S, &rep, e);
    cJSON_Delete(req);
    if (s != GDT_STATUS_OK)
        worker_lost(ln);
    else if (!gdt__wire_is(rep, GDT__WM_CELL_R)) {
        const char *why = gdt__wire_str(rep, GDT__W_ERROR_R_ERROR);
        s = gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s", why ? why : "worker refused the cell");
        if (gdt__wire_true(rep, GDT__W_ERROR_R_FATAL))
            worker_lost(ln);
    } else {
        ln->prepared = ci;
        if (!r->cells[ci].plans)
            s = set_plans(r, ci,
                          cJSON_DetachItemFromObjectCaseSensitive(rep, gdt__wire_key(GDT__W_CELL_R_PLANS)),
                          rep, e);
    }
    cJSON_Delete(rep);
    if (s == GDT_STATUS_FAULT || s == GDT_STATUS_TIMEOUT || s == GDT_STATUS_INTERNAL)
        s = gdt_error_prefix(e, GDT_STATUS_NOT_SUPPORTED, "preparing the cell: ");
    return s;
}

static const char *plan_name(const run *r, int ci, int pi)
{
    return gdt_json_str_or(cJSON_GetArrayItem(r->cells[ci].plans, pi), "plan", "");
}

/* A journaled result into the run's state: a plan's first result, or its
 * re-measure (the counts move to it when it counts).  Under r->mu. */
static void note_result(run *r, int ci, int pi, const gdt_run_result_rec *res)
{
    run_cell *rc = &r->cells[ci];
    if (res->clock_outlier) {
        rc->series[pi].again = true;
        if (res->clock_outlier->counts) {
            count_by(r, GDT_DISP_VERIFIED, -1); /* a plan re-measured was verified */
            count(r, res->disposition);
            series_view v = reply_view(res->disposition, res->measured);
            note_again(rc, pi, &v);
        }
        return;
    }
    series_view v = reply_view(res->disposition, res->measured);
    rc->has_result[pi] = true;
    note_first(rc, pi, &v);
    note_best(rc, pi, &v);
    count(r, res->disposition);
    r->session_plans++;
}

/* res: its disposition, error and what was measured; the rest is the
 * plan's and the lane's. */
static gdt_status record_result(run *r, const lane *ln, int ci, int pi, gdt_run_result_rec res,
                                gdt_error *e)
{
    res.cell = ci;
    res.plan = pi;
    res.gpu = ln->index;
    res.family = r->spec->cells[ci].family;
    res.name = plan_name(r, ci, pi);
    pthread_mutex_lock(&r->mu);
    gdt_status s = gdt_run_write_result(r->j, &res, e);
    note_result(r, ci, pi, &res);
    progress(r, &res);
    pthread_mutex_unlock(&r->mu);
    return s;
}

static gdt_run_result_rec failed_result(const char *why)
{
    return (gdt_run_result_rec){.disposition = GDT_DISP_FAILED, .error = why};
}

/* A reply's error text (a result's or an error reply's: one key), or
 * otherwise when it has none. */
static const char *reply_error(const cJSON *rep, const char *otherwise)
{
    const char *why = gdt__wire_str(rep, GDT__W_ERROR_R_ERROR);
    return why ? why : otherwise;
}

/* The reply's disposition; false (why says so) when it has none the
 * journal knows. */
static bool reply_disposition(const cJSON *rep, gdt_disposition *d, char *why, size_t n)
{
    const cJSON *v = gdt__wire_get(rep, GDT__W_RESULT_R_DISPOSITION);
    if (gdt_disposition_parse(cJSON_GetStringValue(v), d))
        return true;
    if (cJSON_IsString(v))
        snprintf(why, n, "worker answered with an unknown disposition \"%.40s\": %s", v->valuestring,
                 reply_error(rep, "(no error text)"));
    else
        snprintf(why, n, "worker answered without a disposition: %s",
                 reply_error(rep, "(no error text)"));
    return false;
}

/* The cell's bursts (*n of them): until a plan of it is measured in full,
 * the sweep's; then the bursts that plan measured, so that every plan of
 * the cell, and its rounds, have one metric burst.  Under r->mu, or once
 * every plan of the cell has its result (the rounds). */
static const int *cell_bursts(const run *r, int ci, int *n)
{
    const run_cell *rc = &r->cells[ci];
    *n = rc->nbursts ? rc->nbursts : r->o.nbursts;
    return rc->nbursts ? rc->bursts : r->o.bursts;
}

/* The request's bursts: the cell's, and until they are fixed the spec's
 * metric_sample_s, for the worker to cut them by the plan's time per call. */
static void request_bursts(const run *r, int ci, cJSON *req)
{
    int n;
    const int *b = cell_bursts(r, ci, &n);
    gdt__wire_add(req, GDT__W_PLAN_BURSTS, cJSON_CreateIntArray(b, n));
    if (!r->cells[ci].nbursts && r->spec->metric_sample_s > 0)
        gdt__wire_add_num(req, GDT__W_PLAN_METRIC_SAMPLE_S, r->spec->metric_sample_s);
}

static bool backend_a(const cJSON *plan)
{
    return cJSON_IsTrue(cJSON_GetObjectItem(plan, "backend")) && !strcmp(gdt_json_str_or(plan, "tag", ""), "A");
}

/* The backend's mode-A heuristic first: what mode A runs where the tables
 * know nothing and the reference of every mode-A figure, so racing never
 * stops it at an estimate.  Until a mode-A backend plan before it in
 * untimed order is measured in full, a mode-A backend plan may be it (an
 * earlier one may yet decline). */
static bool heuristic_head(const run_cell *rc, const cJSON *plan)
{
    if (!backend_a(plan))
        return false;
    double u = gdt_json_num_or(plan, "untimed", 0);
    int j = 0;
    const cJSON *q;
    cJSON_ArrayForEach(q, rc->plans)
    {
        if (rc->full_us[j++] > 0 && backend_a(q) && gdt_json_num_or(q, "untimed", 0) < u)
            return false;
    }
    return true;
}

/* Plan pi's request; again: a re-measure, raced against the cell's other
 * plans only. */
static cJSON *plan_request(run *r, int ci, int pi, bool again)
{
    const cJSON *plan = cJSON_GetArrayItem(r->cells[ci].plans, pi);
    cJSON *req = gdt__wire_new(GDT__WM_PLAN);
    gdt__wire_add(req, GDT__W_PLAN_PLAN, cJSON_Duplicate(plan, 1));
    gdt__wire_add_num(req, GDT__W_PLAN_TARGET_REL, r->o.target_rel);
    gdt__wire_add_num(req, GDT__W_PLAN_MAX_SECONDS, r->o.max_plan_seconds);
    gdt_race_mark bar;
    gdt_race_marks marks;
    double margin;
    pthread_mutex_lock(&r->mu);
    request_bursts(r, ci, req);
    if (again)
        marks_without(&r->cells[ci], pi, &marks);
    bool race = !r->o.exhaustive && !heuristic_head(&r->cells[ci], plan) &&
                gdt_race_bar(again ? &marks : &r->cells[ci].race, plan_kind(plan), &bar, &margin);
    pthread_mutex_unlock(&r->mu);
    if (race) {
        gdt__wire_add_num(req, GDT__W_PLAN_RACE_US, bar.us);
        gdt__wire_add_num(req, GDT__W_PLAN_RACE_NOISE, bar.noise);
        gdt__wire_add_num(req, GDT__W_PLAN_RACE_MARGIN, margin);
    }
    /* Racing leaves few plans measured in full: their metric gets the time
     * to converge.  --exhaustive keeps the plain shares. */
    if (!r->o.exhaustive)
        gdt__wire_add_num(req, GDT__W_PLAN_CONTENDER_SECONDS,
                          GDT_CONTENDER_FACTOR * r->o.max_plan_seconds);
    if (r->o.cupti)
        gdt__wire_add_bool(req, GDT__W_PLAN_CUPTI, true);
    if (r->spec->heat_seconds > 0)
        gdt__wire_add_num(req, GDT__W_PLAN_HEAT_S, r->spec->heat_seconds);
    return req;
}

/* A re-measure's mark: its first series' clock, its cell's, and whether
 * it counts (gdt_clock_again_counts). */
static const gdt_run_clock_outlier *again_mark(const run_cell *rc, int pi, const double *cell_mhz,
                                               const cJSON *measured, gdt_run_clock_outlier *co)
{
    const plan_series *ps = &rc->series[pi];
    *co = (gdt_run_clock_outlier){ps->first.mhz, cell_mhz[ps->first.kind],
                                  gdt_clock_again_counts(ps->first_us, measured, cell_mhz)};
    return co;
}

static void again_progress(const run *r, int ci, int pi, const gdt_run_clock_outlier *co,
                           const cJSON *measured)
{
    const gdt_sweep_cell *c = &r->spec->cells[ci];
    gdt_series_clock now = gdt_series_clock_of(measured);
    fprintf(stderr, "%sgdtune sweep: %s %s: %s re-measured, its first series at %.0f MHz under %.2f "
            "of the cell's %.0f MHz; again %.2f us at %.0f MHz: the %s counts\n", r->tty ? "\n" : "",
            gdt_family_name(c->family), c->shape, plan_name(r, ci, pi), co->first_mhz,
            GDT_CLOCK_OUTLIER, co->cell_mhz, gdt__wire_num_or(measured, GDT__W_RESULT_R_TIME_US, 0), now.mhz,
            co->counts ? "re-measure" : "first series");
}

/* One plan: attempt record, the worker's verdict (or how it died), result.
 * cell_mhz: NULL for its first series; for a re-measure, the cell's clocks
 * its first series was judged against. */
static gdt_status run_plan(run *r, lane *ln, int ci, int pi, const double *cell_mhz, gdt_error *e)
{
    pthread_mutex_lock(&r->mu);
    gdt_status s = gdt_run_write_attempt(r->j, ci, &r->spec->cells[ci], pi, plan_name(r, ci, pi), e);
    pthread_mutex_unlock(&r->mu);
    if (s != GDT_STATUS_OK)
        return s;
    cJSON *req = plan_request(r, ci, pi, cell_mhz != NULL), *rep = NULL;
    gdt_error we = {0};
    gdt_status ws = call(ln, req, plan_deadline(r), &rep, &we);
    cJSON_Delete(req);
    char why[GDT_ERROR_MAX];
    gdt_run_result_rec res = {.measured = rep, .error = reply_error(rep, "")};
    gdt_run_clock_outlier co;
    if (ws != GDT_STATUS_OK) {
        res = failed_result(we.msg);
        worker_lost(ln);
    } else if (!reply_disposition(rep, &res.disposition, why, sizeof why)) {
        res = failed_result(why);
        worker_lost(ln); /* it lost the cell: start afresh */
    } else if (gdt__wire_true(rep, GDT__W_RESULT_R_FATAL))
        worker_lost(ln); /* it exits after a fatal reply; respawned on demand */
    if (cell_mhz)
        res.clock_outlier = again_mark(&r->cells[ci], pi, cell_mhz, res.measured, &co);
    s = record_result(r, ln, ci, pi, res, e);
    if (cell_mhz)
        again_progress(r, ci, pi, &co, res.measured);
    cJSON_Delete(rep);
    return s;
}

static gdt_status run_cell_plans(run *r, lane *ln, int ci, gdt_error *e)
{
    run_cell *rc = &r->cells[ci];
    for (int k = 0; rc->plans && k < rc->nplans; k++) {
        int pi = rc->order[k];
        if (rc->has_result[pi])
            continue;
        gdt_error pe = {0};
        gdt_status s = prepare(r, ln, ci, &pe);
        if (s == GDT_STATUS_NOT_SUPPORTED) {
            /* The cell was listed before but cannot be prepared now: every
             * plan left is failed with the reason, so the sweep goes on. */
            char why[GDT_ERROR_MAX + 64];
            snprintf(why, sizeof why, "cell preparation failed: %s", pe.msg);
            for (pi = 0; pi < rc->nplans && s != GDT_STATUS_IO; pi++)
                if (!rc->has_result[pi])
                    s = record_result(r, ln, ci, pi, failed_result(why), e);
            return s == GDT_STATUS_IO ? s : GDT_STATUS_OK;
        }
        if (s != GDT_STATUS_OK)
            return (*e = pe, s);
        if ((s = run_plan(r, ln, ci, pi, NULL, e)) != GDT_STATUS_OK)
            return s;
    }
    return GDT_STATUS_OK;
}

static bool all_results(const run_cell *rc)
{
    for (int pi = 0; rc->plans && pi < rc->nplans; pi++)
        if (!rc->has_result[pi])
            return false;
    return true;
}

/* The cell's clock of each kind of series, from its plans' first series. */
static void cell_clocks(const run_cell *rc, double cell_mhz[GDT_SERIES_KINDS])
{
    gdt_series_clock *sc = malloc(sizeof *sc * (size_t)(rc->nplans + 1));
    for (int pi = 0; sc && pi < rc->nplans; pi++)
        sc[pi] = rc->series[pi].first;
    gdt_cell_clocks(sc, sc ? rc->nplans : 0, cell_mhz); /* out of memory: no outliers */
    free(sc);
}

/* Clock outliers (gdt_metric_clock.h): once every plan of the cell has its
 * result, and before its rounds, each verified plan whose first series ran
 * below GDT_CLOCK_OUTLIER x the cell's clock of its kind is measured again,
 * once (a resumed run finishes what is left).  A cell that cannot be
 * prepared again keeps its first series. */
static gdt_status run_cell_outliers(run *r, lane *ln, int ci, gdt_error *e)
{
    run_cell *rc = &r->cells[ci];
    double cell_mhz[GDT_SERIES_KINDS];
    if (!rc->plans || rc->rounds_done || !all_results(rc))
        return GDT_STATUS_OK;
    cell_clocks(rc, cell_mhz);
    for (int k = 0; k < rc->nplans; k++) {
        int pi = rc->order[k];
        if (rc->series[pi].again || !gdt_clock_outlier(rc->series[pi].first, cell_mhz))
            continue;
        gdt_error pe = {0};
        gdt_status s = prepare(r, ln, ci, &pe);
        if (s == GDT_STATUS_NOT_SUPPORTED) {
            fprintf(stderr, "%sgdtune sweep: %s %s: clock outliers not re-measured: %s\n", r->tty ? "\n" : "",
                    gdt_family_name(r->spec->cells[ci].family), r->spec->cells[ci].shape, pe.msg);
            return GDT_STATUS_OK;
        }
        if (s != GDT_STATUS_OK)
            return (*e = pe, s);
        if ((s = run_plan(r, ln, ci, pi, cell_mhz, e)) != GDT_STATUS_OK)
            return s;
    }
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ rounds */

/* The rounds' plans (gdt_rounds_pick), fastest first, by the figures the
 * tables rank them by: each metric series, at the cell's clock where the
 * cell is compute-bound (gdt_metric_clock.h), so that a plan raced out
 * late whose time at that clock ranks it among the top is measured in the
 * rounds too, rather than taking the tables on its own series.  How many. */
static int rounds_pick(const run *r, int ci, int pick[GDT_ROUNDS_PLANS_MAX])
{
    const run_cell *rc = &r->cells[ci];
    size_t n = (size_t)rc->nplans + 1;
    gdt_engine_kind *kind = malloc(sizeof *kind * n);
    gdt_series_clock *sc = malloc(sizeof *sc * n);
    double *figure = malloc(sizeof *figure * n), cell_mhz[GDT_SERIES_KINDS] = {0};
    int k = 0;
    if (kind && sc && figure) { /* out of memory: no rounds */
        for (int pi = 0; pi < rc->nplans; pi++) {
            const plan_series *ps = &rc->series[pi];
            kind[pi] = plan_kind(cJSON_GetArrayItem(rc->plans, pi));
            sc[pi] = (gdt_series_clock){GDT_SERIES_METRIC, ps->metric_us > 0 ? ps->metric_mhz : 0};
        }
        if (gdt_problem_clock_bound(&r->spec->cells[ci].problem))
            gdt_cell_clocks(sc, rc->nplans, cell_mhz);
        for (int pi = 0; pi < rc->nplans; pi++)
            figure[pi] = gdt_time_at_clock(rc->series[pi].metric_us, sc[pi].mhz, cell_mhz[GDT_SERIES_METRIC]);
        k = gdt_rounds_pick(figure, kind, rc->nplans, pick);
    }
    free(kind);
    free(sc);
    free(figure);
    return k;
}

/* Each round of a plan: min_samples samples of the cell's largest burst (the
 * metric), its cap the plan's measurement cap shared by the rounds. */
static cJSON *rounds_request(run *r, int ci, const int *pick, int k)
{
    cJSON *req = gdt__wire_new(GDT__WM_ROUNDS), *plans = cJSON_CreateArray();
    gdt__wire_add(req, GDT__W_ROUNDS_PLANS, plans);
    for (int i = 0; i < k; i++)
        cJSON_AddItemToArray(plans, cJSON_Duplicate(cJSON_GetArrayItem(r->cells[ci].plans, pick[i]), 1));
    gdt__wire_add_num(req, GDT__W_ROUNDS_ROUNDS, r->o.rounds);
    int n;
    const int *b = cell_bursts(r, ci, &n);
    gdt__wire_add(req, GDT__W_ROUNDS_BURSTS, cJSON_CreateIntArray(&b[n - 1], 1));
    double cap = r->o.max_plan_seconds / r->o.rounds;
    gdt__wire_add_num(req, GDT__W_ROUNDS_MAX_SECONDS,
                      cap > GDT_PLAN_SECONDS_MIN ? cap : GDT_PLAN_SECONDS_MIN);
    return req;
}

/* n finite numbers in the array a (above 0 when positive, else at least 0). */
static bool reply_numbers(const cJSON *a, int n, bool positive, double *out)
{
    const cJSON *x;
    int i = 0;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return false;
    cJSON_ArrayForEach(x, a)
    {
        double v = cJSON_GetNumberValue(x);
        if (!cJSON_IsNumber(x) || !isfinite(v) || v < 0 || (positive && v == 0))
            return false;
        out[i++] = v;
    }
    return true;
}

/* The worker's rounds reply into rec (round_us: its storage); false when
 * it is not one. */
static bool rounds_reply(const cJSON *rep, gdt_run_rounds_rec *rec,
                         double round_us[GDT_ROUNDS_PLANS_MAX][GDT_ROUNDS_MAX])
{
    const cJSON *per = gdt__wire_get(rep, GDT__W_ROUNDS_R_ROUND_US);
    bool ok = reply_numbers(gdt__wire_get(rep, GDT__W_ROUNDS_R_TIME_US), rec->nplans, true, rec->time_us) &&
              reply_numbers(gdt__wire_get(rep, GDT__W_ROUNDS_R_NOISE), rec->nplans, false, rec->noise) &&
              reply_numbers(gdt__wire_get(rep, GDT__W_ROUNDS_R_RATIOS), rec->nplans, true, rec->ratios) &&
              cJSON_IsArray(per) && cJSON_GetArraySize(per) == rec->nplans;
    for (int i = 0; ok && i < rec->nplans; i++) {
        ok = reply_numbers(cJSON_GetArrayItem(per, i), rec->rounds, true, round_us[i]);
        rec->round_us[i] = round_us[i];
    }
    rec->seconds = gdt__wire_num_or(rep, GDT__W_ROUNDS_R_SECONDS, 0);
    return ok && rec->seconds >= 0;
}

static void rounds_progress(const run *r, const gdt_run_rounds_rec *rec)
{
    const gdt_sweep_cell *c = &r->spec->cells[rec->cell];
    fprintf(stderr, "%sgdtune sweep: %s %s: %d rounds:", r->tty ? "\n" : "", gdt_family_name(c->family),
            c->shape, rec->rounds);
    for (int i = 0; !rec->error[0] && i < rec->nplans; i++)
        fprintf(stderr, "%s %s %.2f us", i ? "," : "", plan_name(r, rec->cell, rec->plans[i]),
                rec->time_us[i]);
    fprintf(stderr, "%s%.300s\n", rec->error[0] ? " not measured: " : "", rec->error);
}

/* The worker's rounds of the picked plans into rec; the reason in why
 * when there are none (the rounds record says so; the sweep goes on). */
static gdt_status call_rounds(run *r, lane *ln, gdt_run_rounds_rec *rec,
                              double round_us[GDT_ROUNDS_PLANS_MAX][GDT_ROUNDS_MAX], char *why,
                              size_t nwhy, gdt_error *e)
{
    gdt_error pe = {0};
    gdt_status s = prepare(r, ln, rec->cell, &pe);
    if (s == GDT_STATUS_NOT_SUPPORTED)
        return (snprintf(why, nwhy, "cell preparation failed: %s", pe.msg), GDT_STATUS_OK);
    if (s != GDT_STATUS_OK)
        return (*e = pe, s);
    cJSON *req = rounds_request(r, rec->cell, rec->plans, rec->nplans), *rep = NULL;
    s = call(ln, req, rec->nplans * plan_deadline(r), &rep, &pe);
    cJSON_Delete(req);
    if (s != GDT_STATUS_OK)
        snprintf(why, nwhy, "%s", pe.msg);
    else if (!gdt__wire_is(rep, GDT__WM_ROUNDS_R))
        snprintf(why, nwhy, "%s", reply_error(rep, "the worker refused the rounds"));
    else if (!rounds_reply(rep, rec, round_us))
        snprintf(why, nwhy, "the worker's rounds reply is not one figure per plan and round");
    if (s != GDT_STATUS_OK || gdt__wire_true(rep, GDT__W_ERROR_R_FATAL))
        worker_lost(ln);
    cJSON_Delete(rep);
    return GDT_STATUS_OK;
}

/* --rounds: once every plan of the cell has its result, its top plans
 * measured in full are measured again together in interleaved rounds, so
 * that drift over the sweep reaches them alike (gdt_ab.h); the tables rank
 * them by that.  A cell with fewer than two such plans has none. */
static gdt_status run_cell_rounds(run *r, lane *ln, int ci, gdt_error *e)
{
    run_cell *rc = &r->cells[ci];
    gdt_run_rounds_rec rec = {.cell = ci, .gpu = ln->index, .spec = &r->spec->cells[ci],
                              .rounds = r->o.rounds, .error = ""};
    double round_us[GDT_ROUNDS_PLANS_MAX][GDT_ROUNDS_MAX];
    char why[GDT_ERROR_MAX + 64] = "";
    if (!all_results(rc))
        return GDT_STATUS_OK;
    if (!r->o.rounds || rc->rounds_done || !rc->plans || (rec.nplans = rounds_pick(r, ci, rec.plans)) < 2)
        return GDT_STATUS_OK;
    gdt_status s = call_rounds(r, ln, &rec, round_us, why, sizeof why, e);
    if (s != GDT_STATUS_OK)
        return s;
    rec.error = why;
    pthread_mutex_lock(&r->mu);
    s = gdt_run_write_rounds(r->j, &rec, e);
    rc->rounds_done = true;
    rounds_progress(r, &rec);
    pthread_mutex_unlock(&r->mu);
    return s;
}

static gdt_status sweep_cell(run *r, lane *ln, int ci, gdt_error *e)
{
    run_cell *rc = &r->cells[ci];
    gdt_status s;
    if (!rc->journaled) {
        pthread_mutex_lock(&r->mu);
        s = gdt_run_write_cell(r->j, ci, &r->spec->cells[ci], e);
        pthread_mutex_unlock(&r->mu);
        if (s != GDT_STATUS_OK)
            return s;
        rc->journaled = true;
    }
    if (!rc->plans) {
        gdt_error pe = {0};
        s = prepare(r, ln, ci, &pe);
        if (s == GDT_STATUS_NOT_SUPPORTED) {
            pthread_mutex_lock(&r->mu);
            s = gdt_run_write_cell_error(r->j, ci, &r->spec->cells[ci], pe.msg, e);
            r->cell_errors++;
            pthread_mutex_unlock(&r->mu);
            fprintf(stderr, "%sgdtune sweep: %s %s: cell skipped: %s\n", r->tty ? "\n" : "",
                    gdt_family_name(r->spec->cells[ci].family), r->spec->cells[ci].shape, pe.msg);
            return s;
        }
        if (s != GDT_STATUS_OK)
            return (*e = pe, s);
    }
    s = run_cell_plans(r, ln, ci, e);
    if (s == GDT_STATUS_OK)
        s = run_cell_outliers(r, ln, ci, e);
    return s == GDT_STATUS_OK ? run_cell_rounds(r, ln, ci, e) : s;
}

/* --------------------------------------------------- header and resume */

static gdt_run_options run_options(const run *r)
{
    gdt_run_options op = {.nbursts = r->o.nbursts, .target_rel = r->o.target_rel,
                          .max_plan_seconds = r->o.max_plan_seconds, .deadline = r->o.deadline,
                          .knob_cap = r->o.knob_cap, .shard_i = r->o.shard_i, .shard_n = r->o.shard_n,
                          .race = !r->o.exhaustive, .cupti = r->o.cupti, .rounds = r->o.rounds,
                          .shard_source = r->o.shard_source, .planted = r->planted};
    memcpy(op.bursts, r->o.bursts, sizeof op.bursts);
    return op;
}

static void utc_now(char when[32])
{
    time_t now = time(NULL);
    strftime(when, 32, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

/* The lanes' GPU UUIDs, in lane order: results name their lane ("gpu"). */
static int lane_uuids(const run *r, const char *uuid[MAX_LANES])
{
    for (int i = 0; i < r->nlanes; i++)
        uuid[i] = gdt_json_str_or(r->lanes[i].device, gdt__wire_key(GDT__W_DEVICE_UUID), "");
    return r->nlanes;
}

/* The header and the resume record are written before any lane runs: no
 * lock. */
static gdt_status write_header(run *r, gdt_error *e)
{
    char when[32];
    const char *gpus[MAX_LANES];
    utc_now(when);
    cJSON *prior = gdt_prior_json(r->prior);
    /* The candidate rows measured, whole: a later release may ship other
     * rows, and --tuning-config's are in no release. */
    gdt_run_header_rec h = {
        .started = when, .family = r->o.family, .quick = r->o.quick, .spec = r->spec,
        .candidates_digest = r->rows.digest, .candidates = r->rows.text,
        .arch = r->arch, .device = r->device, .gpus = gpus, .ngpus = lane_uuids(r, gpus),
        .options = run_options(r), .prior = prior, .argv = {r->o.argv, r->o.argc},
    };
    gdt_status s = prior ? gdt_run_write_header(r->j, &h, e)
                         : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    cJSON_Delete(prior);
    return s;
}

/* Where a resumed part begins, on what devices, and how much was left. */
static gdt_status write_resume(run *r, gdt_error *e)
{
    char when[32];
    const char *gpus[MAX_LANES];
    utc_now(when);
    int ngpus = lane_uuids(r, gpus);
    return gdt_run_write_resume(r->j, when, r->done, gpus, ngpus, (gdt_run_argv){r->o.argv, r->o.argc}, e);
}

/* The settings of the run being resumed: its header wins over the command
 * line, so the resumed part measures what the first part did.  The model
 * checked them with the command line's ranges. */
static gdt_status resume_settings(run *r, gdt_run *jr, gdt_error *e)
{
    if (r->o.family && strcmp(r->o.family, jr->family) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s:1: the run sweeps \"%s\", not \"%s\"",
                             jr->path, jr->family, r->o.family);
    snprintf(r->family, sizeof r->family, "%s", jr->family);
    r->o.family = r->family;
    r->o.quick = jr->quick;
    const gdt_run_options *op = &jr->options;
    memcpy(r->o.bursts, op->bursts, sizeof op->bursts);
    r->o.nbursts = op->nbursts;
    r->o.target_rel = op->target_rel;
    r->o.max_plan_seconds = op->max_plan_seconds;
    r->o.deadline = r->o.deadline > 0 ? r->o.deadline : op->deadline;
    r->o.knob_cap = op->knob_cap;
    if (r->o.shards && r->o.shards != op->shard_n)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s:1: --shards %d, but the run is shard "
                             "%d/%d (its header): a resumed shard keeps its count", jr->path,
                             r->o.shards, op->shard_i, op->shard_n);
    r->o.shard_i = op->shard_i;
    r->o.shard_n = op->shard_n;
    r->o.exhaustive = !op->race;
    r->o.cupti = op->cupti;
    r->o.rounds = op->rounds;
    if (strcmp(op->planted ? op->planted : "", r->planted) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s:1: the run was measured with planted "
                             "slowdown \"%s\" (options.planted), now \"%s\" (" GDT_PLANT_ENV
                             " with " GDT_PLANT_GATE_ENV "=1): resume it with the same", jr->path,
                             op->planted ? op->planted : "", r->planted);
    if (op->shard_n)
        fprintf(stderr, "gdtune sweep: resuming shard %d/%d (from %s)\n", op->shard_i, op->shard_n,
                op->shard_source[0] ? op->shard_source : "its journal header");
    r->spec = jr->spec; /* the run owns it from here; the model's cells point into it */
    jr->spec = NULL;
    r->arch = jr->arch;
    snprintf(r->journal_source, sizeof r->journal_source, "%s", jr->source_digest);
    return GDT_STATUS_OK;
}

/* The cell's plan list as the sweep sends its plans to workers, from the
 * journal's typed plans: what the worker listed (identity, name, side,
 * tag, untimed position).  NULL: out of memory. */
static cJSON *plans_of(const gdt_run_cell *c)
{
    cJSON *a = cJSON_CreateArray();
    for (int pi = 0; a && pi < c->nplans; pi++) {
        const gdt_run_plan *p = &c->plan[pi];
        cJSON *o = gdt_plan_json(&p->id);
        bool ok = o && cJSON_AddBoolToObject(o, "backend", p->backend) && cJSON_AddStringToObject(o, "tag", p->tag) &&
                  cJSON_AddNumberToObject(o, "untimed", p->untimed) && cJSON_AddItemToArray(a, o);
        if (!ok) {
            cJSON_Delete(o);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

/* The journal's cells, plan lists and results as the run's state. */
static gdt_status replay(run *r, const gdt_run *jr, gdt_error *e)
{
    for (int ci = 0; ci < jr->ncells; ci++) {
        const gdt_run_cell *c = &jr->cells[ci];
        r->cells[ci].journaled = c->journaled;
        r->cells[ci].rounds_done = c->rounds.journaled;
        if (!c->listed)
            continue;
        cJSON *plans = plans_of(c);
        gdt_status s = plans ? set_plans(r, ci, plans, NULL, e)
                             : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
        for (int pi = 0; s == GDT_STATUS_OK && pi < c->nplans; pi++) {
            if (!c->result[pi].journaled)
                continue;
            series_view first = result_view(gdt_run_first_series(c, pi)), counts = result_view(&c->result[pi]);
            r->cells[ci].has_result[pi] = true;
            r->cells[ci].series[pi].again = c->other[pi].journaled;
            count(r, c->result[pi].disposition);
            note_first(&r->cells[ci], pi, &first);
            note_best(&r->cells[ci], pi, &counts);
        }
        if (s != GDT_STATUS_OK)
            return s;
    }
    return GDT_STATUS_OK;
}

/* A resumed sweep adds results to the ones in the journal: from another
 * build (other kernels, other measurement code) they would be ranked
 * together in one table.  Emission reads any journal. */
static gdt_status same_build(const run *r, const char *path, gdt_error *e)
{
    if (!r->journal_source[0] || !strcmp(r->journal_source, gdt__source_digest))
        return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s:1: the run was measured by gdtune source "
                         "%.16s, this gdtune is %.16s: a resumed sweep would rank plans measured by "
                         "two builds in one table; start a new run, or write the tables of its "
                         "complete cells with `gdtune tables emit %s`", path, r->journal_source,
                         gdt__source_digest, r->dir);
}

/* Reads the run's journal through the model; nothing is changed on disk
 * here (a torn tail is cut only once the resume goes ahead: resume_repair). */
static gdt_status load_resume(run *r, gdt_error *e)
{
    gdt_run *jr = NULL;
    gdt_status s = gdt_run_load(r->dir, &jr, e);
    if (s == GDT_STATUS_OK)
        s = gdt_emit_check_candidates(jr, e);
    if (s == GDT_STATUS_OK) /* its rows, never this build's defaults: it may have had a rows file */
        s = gdt_sweep_rows_of_header(jr->candidates, jr->candidates_digest, &r->rows, e);
    if (s == GDT_STATUS_OK)
        s = resume_settings(r, jr, e);
    if (s == GDT_STATUS_OK)
        s = same_build(r, jr->path, e);
    if (s == GDT_STATUS_OK) /* the header's prior, before replay orders the cells */
        s = gdt_prior_reload(&jr->prior, jr->arch, &r->prior, e);
    if (s == GDT_STATUS_OK && !(r->cells = calloc((size_t)r->spec->ncells + 1, sizeof *r->cells)))
        s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    if (s == GDT_STATUS_OK)
        s = replay(r, jr, e);
    if (jr)
        r->tail = jr->tail;
    gdt_run_destroy(jr);
    return s;
}

/* Cuts the torn tail the resumed journal had, now that the resume goes
 * ahead (the header, build and device checks passed). */
static gdt_status resume_repair(run *r, gdt_error *e)
{
    char path[PATH_MAX + 32];
    size_t cut = 0;
    snprintf(path, sizeof path, "%s/%s", r->dir, GDT_JOURNAL_NAME);
    gdt_status s = gdt_journal_repair(path, &r->tail, &cut, e);
    if (s == GDT_STATUS_OK && cut)
        fprintf(stderr, "gdtune sweep: %s: cut a torn last record (%zu bytes)\n", path, cut);
    return s;
}

/* ------------------------------------------------------------- the run */

/* One sweep per run directory, for its whole life: two would append to one
 * journal (a plan measured twice, a journal every reader refuses).  A
 * resume locks before it reads the journal, so that what it replays is not
 * a running sweep's half; a new run once it is about to write (no folder
 * is made before a device answered).  A resume of a folder that is not
 * one is left to load_resume to refuse. */
static gdt_status lock_run(run *r, gdt_error *e)
{
    struct stat st;
    if (r->o.resume_dir && (stat(r->dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        return GDT_STATUS_OK;
    gdt_status s = r->o.resume_dir ? GDT_STATUS_OK : gdt_mkdirs(r->dir, e);
    if (s == GDT_STATUS_OK)
        s = gdt_dir_lock(r->dir, "gdtune sweep", "two sweeps appending to one journal would ruin it",
                         &r->lock_fd, e);
    return s;
}

static gdt_status check_arch(run *r, gdt_error *e)
{
    int dev = (int)gdt__wire_num_or(r->device, GDT__W_DEVICE_ARCH, 0);
    if (r->o.arch && r->o.arch != dev)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                             "--arch sm%d names sm%d, but the device is sm%d (%s): measuring for "
                             "another arch is refused; `--arch sm%d --compile-only` checks its rows "
                             "without measuring", r->o.arch, r->o.arch, dev, gdt_json_str_or(r->device, gdt__wire_key(GDT__W_DEVICE_NAME), "?"),
                             r->o.arch);
    if (r->arch && r->arch != dev)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s: the run was measured on sm%d, but this "
                             "device is sm%d (%s): resume it on an sm%d device", r->dir, r->arch,
                             dev, gdt_json_str_or(r->device, gdt__wire_key(GDT__W_DEVICE_NAME), "?"), r->arch);
    r->arch = dev;
    return GDT_STATUS_OK;
}

static gdt_status setup_new(run *r, gdt_error *e)
{
    gdt_status s = gdt_sweep_spec_of(&r->o, &r->spec, e);
    if (s != GDT_STATUS_OK)
        return s;
    effective_settings(&r->o, r->spec);
    gdt_sweep_spec_shard(r->spec, r->o.shard_i, r->o.shard_n);
    if ((s = gdt_sweep_rows_load(r->o.tuning_config, &r->rows, e)) != GDT_STATUS_OK)
        return s;
    if (!(r->cells = calloc((size_t)r->spec->ncells + 1, sizeof *r->cells)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    if (r->o.out_dir)
        snprintf(r->dir, sizeof r->dir, "%s", r->o.out_dir);
    else {
        time_t now = time(NULL);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", gmtime(&now));
        snprintf(r->dir, sizeof r->dir, "runs/%s-%s", r->o.family, stamp);
    }
    return GDT_STATUS_OK;
}

/* A new run's prior: --prior DIR, else the tables directory, unless
 * --no-prior.  Loaded once the device's arch is known, before any cell. */
static gdt_status load_prior(run *r, gdt_error *e)
{
    const char *dir = r->o.prior_dir ? r->o.prior_dir : r->o.tables_dir ? r->o.tables_dir : "tables";
    if (r->o.no_prior)
        return GDT_STATUS_OK;
    return gdt_prior_load(dir, r->spec->families, r->arch, &r->prior, e);
}

static void lanes_stop(run *r)
{
    for (int i = 0; i < r->nlanes; i++) {
        gdt_worker_destroy(r->lanes[i].w);
        r->lanes[i].w = NULL;
    }
}

static void run_free(run *r)
{
    for (int i = 0; r->cells && i < r->spec->ncells; i++) {
        free(r->cells[i].has_result);
        free(r->cells[i].full_us);
        free(r->cells[i].series);
        free(r->cells[i].order);
        cJSON_Delete(r->cells[i].plans);
    }
    free(r->cells);
    gdt_sweep_spec_destroy(r->spec);
    lanes_stop(r);
    for (int i = 0; i < r->nlanes; i++)
        cJSON_Delete(r->lanes[i].device);
    gdt_journal_close(r->j);
    gdt_dir_unlock(r->lock_fd);
    gdt_prior_destroy(r->prior);
    gdt_sweep_rows_free(&r->rows);
    pthread_mutex_destroy(&r->mu);
}

static bool same_model(const cJSON *a, const cJSON *b)
{
    return gdt__wire_num_or(a, GDT__W_DEVICE_ARCH, 0) == gdt__wire_num_or(b, GDT__W_DEVICE_ARCH, -1) &&
           !strcmp(gdt_json_str_or(a, gdt__wire_key(GDT__W_DEVICE_NAME), ""),
                   gdt_json_str_or(b, gdt__wire_key(GDT__W_DEVICE_NAME), "?"));
}

/* One lane per device, at most --gpus and no more than there are cells.
 * Lane 0's worker sees every device (and uses the first); each further
 * lane's worker sees only its own.  A device that does not answer, or is
 * another model than the first, is left out: its numbers would not belong
 * in the same tables. */
static void start_lanes(run *r)
{
    int want = (int)gdt__wire_num_or(r->lanes[0].device, GDT__W_DEVICE_DEVICE_COUNT, 1);
    if (r->o.gpus > 0 && r->o.gpus < want)
        want = r->o.gpus;
    want = want > r->spec->ncells ? r->spec->ncells : want;
    want = want > MAX_LANES ? MAX_LANES : want;
    for (int g = 1; g < want; g++) {
        lane *ln = &r->lanes[r->nlanes];
        *ln = (lane){.r = r, .index = r->nlanes, .gpu = g, .prepared = -1};
        gdt_error le = {0};
        if (worker_up(r, ln, &le) == GDT_STATUS_OK && same_model(ln->device, r->lanes[0].device)) {
            r->nlanes++;
            continue;
        }
        fprintf(stderr, "gdtune sweep: GPU %d left out: %s\n", g,
                le.msg[0] ? le.msg : "another model than GPU 0");
        gdt_worker_destroy(ln->w);
        cJSON_Delete(ln->device);
        memset(ln, 0, sizeof *ln);
    }
}

/* A lane takes the next cell until none is left or one lane fails. */
static void *lane_main(void *arg)
{
    lane *ln = arg;
    run *r = ln->r;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        int ci = !r->stop && r->next_cell < r->spec->ncells ? r->next_cell++ : -1;
        pthread_mutex_unlock(&r->mu);
        if (ci < 0)
            return NULL;
        ln->status = sweep_cell(r, ln, ci, &ln->err);
        if (ln->status != GDT_STATUS_OK) {
            pthread_mutex_lock(&r->mu);
            r->stop = true;
            pthread_mutex_unlock(&r->mu);
            return NULL;
        }
    }
}

static int spawn_count(const run *r)
{
    int n = 0;
    for (int i = 0; i < r->nlanes; i++)
        n += gdt_worker_spawn_count(r->lanes[i].w);
    return n;
}

static gdt_status sweep_cells(run *r, gdt_error *e)
{
    bool started[MAX_LANES] = {false};
    fprintf(stderr, "gdtune sweep: %s on %s (sm%d)%s%.0d: %d cells, run directory %s\n",
            r->o.family, gdt_json_str_or(r->device, gdt__wire_key(GDT__W_DEVICE_NAME), "?"), r->arch, r->nlanes > 1 ? ", GPUs: " : "",
            r->nlanes > 1 ? r->nlanes : 0, r->spec->ncells, r->dir);
    char prior[1024];
    gdt_prior_describe(r->prior, prior, sizeof prior);
    fprintf(stderr, "gdtune sweep: %s\n", prior);
    for (int i = 1; i < r->nlanes; i++)
        started[i] = pthread_create(&r->lanes[i].thread, NULL, lane_main, &r->lanes[i]) == 0;
    lane_main(&r->lanes[0]);
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < r->nlanes; i++) {
        if (started[i])
            pthread_join(r->lanes[i].thread, NULL);
        if (s == GDT_STATUS_OK && r->lanes[i].status != GDT_STATUS_OK) {
            s = r->lanes[i].status;
            *e = r->lanes[i].err;
        }
    }
    if (r->tty)
        fputc('\n', stderr);
    fprintf(stderr, "gdtune sweep: %d plans in %d cells: %d verified, %d incorrect, %d failed, "
            "%d declined; %d cells skipped; %.1f s; worker started %d times\n", r->done,
            r->spec->ncells, r->verified, r->incorrect, r->failed, r->declined, r->cell_errors,
            gdt_now() - r->t0, spawn_count(r));
    return s;
}

/* ------------------------------------------------------- convergence */

/* The fastest verified plan slower than (after, in index order on ties)
 * plan `after`; -1 for none.  after < 0: the fastest. */
static int next_fastest(const gdt_run_cell *c, int after)
{
    int best = -1;
    for (int pi = 0; pi < c->nplans; pi++) {
        const gdt_run_result *x = &c->result[pi];
        if (!x->journaled || x->disposition != GDT_DISP_VERIFIED)
            continue;
        if (after >= 0 && (x->time_us < c->result[after].time_us ||
                           (x->time_us == c->result[after].time_us && pi <= after)))
            continue;
        if (best < 0 || x->time_us < c->result[best].time_us)
            best = pi;
    }
    return best;
}

int gdt_sweep_top_converged(const gdt_run_cell *c, int top, int *converged)
{
    int n = 0;
    *converged = 0;
    for (int pi = next_fastest(c, -1); pi >= 0 && n < top; pi = next_fastest(c, pi), n++)
        *converged += c->result[pi].converged;
    return n;
}

static void report_convergence(const gdt_run *j)
{
    for (int ci = 0; ci < j->ncells; ci++) {
        int conv = 0, n = gdt_sweep_top_converged(&j->cells[ci], 3, &conv);
        if (n)
            fprintf(stderr, "gdtune sweep: %s %s: top-%d converged: %d of %d\n",
                    gdt_family_name(j->cells[ci].spec->family), j->cells[ci].spec->shape, n, conv, n);
    }
}

/* The opt-in planted slowdown the workers will apply (they read the same
 * environment), checked before anything is written; said on stderr. */
static gdt_status plant_setup(run *r, gdt_error *e)
{
    gdt_plant p;
    return gdt_plant_announce("gdtune sweep", "; journaled in the header", &p, r->planted, sizeof r->planted, e);
}

gdt_status gdt_sweep_run(const gdt_sweep_opts *o, char *run_dir, size_t nrun_dir, gdt_run **journal,
                         gdt_emit_report *emitted, gdt_error *e)
{
    *journal = NULL;
    run r = {.o = *o, .t0 = gdt_now(), .tty = isatty(2), .nlanes = 1, .lock_fd = -1};
    r.lanes[0] = (lane){.r = &r, .index = 0, .gpu = -1, .prepared = -1};
    pthread_mutex_init(&r.mu, NULL);
    gdt_status s = plant_setup(&r, e);
    if (s == GDT_STATUS_OK && o->resume_dir) {
        snprintf(r.dir, sizeof r.dir, "%s", o->resume_dir);
        s = lock_run(&r, e);
        if (s == GDT_STATUS_OK)
            s = load_resume(&r, e);
    } else if (s == GDT_STATUS_OK)
        s = setup_new(&r, e);
    if (s == GDT_STATUS_OK)
        s = worker_up(&r, &r.lanes[0], e);
    r.device = r.lanes[0].device;
    if (s == GDT_STATUS_OK)
        s = check_arch(&r, e);
    if (s == GDT_STATUS_OK && !o->resume_dir)
        s = load_prior(&r, e);
    if (s == GDT_STATUS_OK)
        start_lanes(&r);
    if (s == GDT_STATUS_OK && !o->resume_dir)
        s = lock_run(&r, e);
    if (s == GDT_STATUS_OK && o->resume_dir)
        s = resume_repair(&r, e);
    if (s == GDT_STATUS_OK)
        s = gdt_journal_open(r.dir, o->resume_dir != NULL, &r.j, e);
    if (s == GDT_STATUS_OK)
        s = o->resume_dir ? write_resume(&r, e) : write_header(&r, e);
    if (run_dir)
        snprintf(run_dir, nrun_dir, "%s", r.dir);
    if (s == GDT_STATUS_OK)
        s = sweep_cells(&r, e);
    lanes_stop(&r);
    if (s == GDT_STATUS_OK)
        s = gdt_run_readback(r.dir, journal, e); /* success only once it reads back */
    if (s == GDT_STATUS_OK)
        report_convergence(*journal);
    if (s == GDT_STATUS_OK)
        s = gdt_emit_runs(journal, 1, r.o.tables_dir, emitted, e);
    run_free(&r);
    return s;
}

