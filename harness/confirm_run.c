/* The confirmation's rounds (gdt_confirm.h): per cell one worker "rounds"
 * request of the plans its changes set apart, on the cell as the night's
 * sweep prepared it (shape, seed, knob cap, largest burst), journaled in
 * RUNDIR/confirm/ and found there again on a rerun. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gdt_confirm_run.h"
#include "gdt_journal.h"
#include "gdt_json.h"
#include "gdt_plan_json.h"
#include "gdt_run.h"
#include "gdt_wire.h"
#include "gdt_worker.h"

#define CELL_DEADLINE_S 900.0
#define REC_TYPE "confirm_rounds"

/* One run directory of the night: its journal and its confirmation journal. */
typedef struct night_run {
    const char *dir;
    gdt_run *jr;
    char cdir[PATH_MAX], cpath[PATH_MAX + 32];
    gdt_journal_lines done;   /* the confirm records already journaled */
    gdt_journal *j;           /* opened at the first new record */
} night_run;

typedef struct ctx {
    const gdt_confirm_runs *runs;
    gdt_confirm *c;
    night_run nr[GDT_FAMILY_COUNT];
    int nnr;
    gdt_worker *w;
    bool w_ok;
} ctx;

/* The plans of one cell the rounds measure, and their times per round. */
typedef struct cell_rounds {
    const char *name[GDT_ROUNDS_PLANS_MAX];
    int k, rounds, burst;
    double us[GDT_ROUNDS_PLANS_MAX][GDT_ROUNDS_MAX];
    char error[GDT_ERROR_MAX];
} cell_rounds;

/* ------------------------------------------------------------ the runs */

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static gdt_status open_run(night_run *n, const char *dir, gdt_error *e)
{
    char cdir[sizeof n->cdir];
    n->dir = dir;
    snprintf(cdir, sizeof cdir, "%.3900s/" GDT_CONFIRM_DIR, dir);
    memcpy(n->cdir, cdir, sizeof cdir);
    snprintf(n->cpath, sizeof n->cpath, "%s/" GDT_JOURNAL_NAME, cdir);
    gdt_status s = gdt_run_load(dir, &n->jr, e);
    if (s == GDT_STATUS_OK && exists(n->cpath))
        s = gdt_journal_read(n->cpath, &n->done, e);
    return s;
}

/* The night's run of family name fam (shared by sdpa_fwd and sdpa_bwd);
 * NULL with why when there is none. */
static night_run *run_of(ctx *x, const char *fam, char *why, size_t nwhy, gdt_error *e)
{
    gdt_family f;
    const char *dir = gdt_family_parse(fam, &f, NULL) == GDT_STATUS_OK ? x->runs->run_dir[f] : NULL;
    if (!dir)
        return snprintf(why, nwhy, "no run of %s tonight", fam), NULL;
    for (int i = 0; i < x->nnr; i++)
        if (!strcmp(x->nr[i].dir, dir))
            return &x->nr[i];
    night_run *n = &x->nr[x->nnr++];
    if (open_run(n, dir, e) != GDT_STATUS_OK)
        return NULL;
    return n;
}

static int run_cell_of(const gdt_run *jr, const char *fam, const char *key)
{
    for (int i = 0; i < jr->ncells; i++) {
        char k[GDT_DIFF_KEY];
        gdt_problem_key(&jr->cells[i].spec->problem, k, sizeof k);
        if (!strcmp(k, key) && !strcmp(gdt_family_name(jr->cells[i].spec->family), fam))
            return i;
    }
    return -1;
}

/* The largest burst the cell's results were measured at (the tables'
 * time's), else the run's. */
static int cell_burst(const gdt_run *jr, const gdt_run_cell *c)
{
    for (int i = 0; i < c->nplans; i++) {
        const gdt_run_burst *b = gdt_run_largest_burst(&c->result[i]);
        if (b && b->burst >= 1)
            return b->burst;
    }
    return jr->options.nbursts ? jr->options.bursts[jr->options.nbursts - 1] : 1;
}

/* ------------------------------------------------------------ the journal */

/* n positive numbers in a (false otherwise). */
static bool numbers(const cJSON *a, int n, double *out)
{
    const cJSON *v;
    int i = 0;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return false;
    cJSON_ArrayForEach(v, a)
        if (!cJSON_IsNumber(v) || !(v->valuedouble > 0)) return false;
        else out[i++] = v->valuedouble;
    return true;
}

static bool same_plans(const cJSON *plans, const cell_rounds *cr)
{
    if (!cJSON_IsArray(plans) || cJSON_GetArraySize(plans) != cr->k)
        return false;
    for (int i = 0; i < cr->k; i++) {
        const char *name = cJSON_GetStringValue(cJSON_GetArrayItem(plans, i));
        if (!name || strcmp(name, cr->name[i]))
            return false;
    }
    return true;
}

/* A journaled record of these plans and rounds into cr: true when found;
 * BAD_INPUT naming the line when it is there but damaged. */
static gdt_status journaled(const night_run *n, const char *key, cell_rounds *cr, bool *found, gdt_error *e)
{
    *found = false;
    for (int i = n->done.n - 1; i >= 0 && !*found; i--) {
        const cJSON *r = n->done.rec[i], *per = gdt_json_get(r, "round_us");
        if (strcmp(gdt_json_str_or(r, "type", ""), REC_TYPE) || strcmp(gdt_json_str_or(r, "key", ""), key) ||
            (int)gdt_json_num_or(r, "rounds", 0) != cr->rounds || !same_plans(gdt_json_get(r, "plans"), cr))
            continue;
        *found = true;
        snprintf(cr->error, sizeof cr->error, "%s", gdt_json_str_or(r, "error", ""));
        bool ok = cr->error[0] || (cJSON_IsArray(per) && cJSON_GetArraySize(per) == cr->k);
        for (int p = 0; ok && !cr->error[0] && p < cr->k; p++)
            ok = numbers(cJSON_GetArrayItem(per, p), cr->rounds, cr->us[p]);
        if (!ok)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s:%d: /round_us: expected %d arrays of %d "
                                 "times above 0 us", n->cpath, i + 1, cr->k, cr->rounds);
    }
    return GDT_STATUS_OK;
}

static gdt_status append(night_run *n, const char *fam, const char *key, const char *shape,
                         const cell_rounds *cr, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    size_t cut = 0;
    if (!n->j && exists(n->cpath))
        s = gdt_journal_repair(n->cpath, &n->done.tail, &cut, e);
    if (s == GDT_STATUS_OK && !n->j)
        s = gdt_journal_open(n->cdir, exists(n->cpath), &n->j, e);
    if (s != GDT_STATUS_OK)
        return s;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", REC_TYPE);
    cJSON_AddStringToObject(o, "family", fam);
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddStringToObject(o, "shape", shape);
    cJSON *plans = cJSON_AddArrayToObject(o, "plans");
    for (int i = 0; i < cr->k; i++)
        cJSON_AddItemToArray(plans, cJSON_CreateString(cr->name[i]));
    cJSON_AddNumberToObject(o, "rounds", cr->rounds);
    cJSON_AddNumberToObject(o, "burst", cr->burst);
    cJSON_AddStringToObject(o, "error", cr->error);
    cJSON *per = cr->error[0] ? NULL : cJSON_AddArrayToObject(o, "round_us");
    for (int i = 0; per && i < cr->k; i++)
        cJSON_AddItemToArray(per, cJSON_CreateDoubleArray(cr->us[i], cr->rounds));
    char *txt = cJSON_PrintUnformatted(o);
    s = txt ? gdt_journal_append(n->j, txt, e) : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "confirm: out of memory");
    free(txt);
    cJSON_Delete(o);
    return s;
}

/* ------------------------------------------------------------ the worker */

/* One request and its reply; false with why when the worker failed or
 * refused (a lost worker is respawned at the next call). */
static bool ask(ctx *x, cJSON *req, double deadline, gdt__wire_msg want, cJSON **rep, char *why,
                size_t nwhy)
{
    gdt_error pe = {0};
    char *txt = cJSON_PrintUnformatted(req), *line = NULL;
    *rep = NULL;
    gdt_status s = !x->w ? gdt_worker_spawn(x->runs->worker_exe, &x->w, &pe)
                 : !x->w_ok ? gdt_worker_respawn(x->w, &pe) : GDT_STATUS_OK;
    x->w_ok = s == GDT_STATUS_OK;
    if (s == GDT_STATUS_OK)
        s = txt ? gdt_worker_call(x->w, txt, deadline, &line, &pe) : GDT_STATUS_NO_MEMORY;
    free(txt);
    if (s == GDT_STATUS_OK && !(*rep = cJSON_Parse(line)))
        snprintf(pe.msg, sizeof pe.msg, "the worker's reply is not JSON"), s = GDT_STATUS_INTERNAL;
    free(line);
    if (s != GDT_STATUS_OK || gdt__wire_true(*rep, GDT__W_ERROR_R_FATAL))
        x->w_ok = false;
    if (s == GDT_STATUS_OK && !gdt__wire_is(*rep, want)) {
        const char *refused = gdt__wire_str(*rep, GDT__W_ERROR_R_ERROR);
        snprintf(pe.msg, sizeof pe.msg, "%s", refused ? refused : "the worker refused");
        s = GDT_STATUS_FAULT;
    }
    if (s != GDT_STATUS_OK)
        snprintf(why, nwhy, "%s", pe.msg[0] ? pe.msg : gdt_status_name(s));
    return s == GDT_STATUS_OK;
}

static bool cell_up(ctx *x, const gdt_run *jr, int ci, char *why, size_t nwhy)
{
    cJSON *rep = NULL, *req = gdt__wire_new(GDT__WM_HELLO);
    bool ok = x->w && x->w_ok;
    if (jr->candidates) /* the rows the night swept (a --tuning-config's too), as its workers had them */
        gdt__wire_add_str(req, GDT__W_HELLO_ROWS, jr->candidates);
    if (!ok) {
        ok = ask(x, req, CELL_DEADLINE_S, GDT__WM_HELLO_R, &rep, why, nwhy);
        const char *none = gdt__wire_str(rep, GDT__W_HELLO_R_ERROR);
        if (ok && !cJSON_IsObject(gdt__wire_get(rep, GDT__W_HELLO_R_DEVICE)))
            ok = (snprintf(why, nwhy, "%s", none ? none : "no device"), x->w_ok = false);
        cJSON_Delete(rep);
    }
    cJSON_Delete(req);
    req = gdt__wire_new(GDT__WM_CELL);
    gdt__wire_add_str(req, GDT__W_CELL_FAMILY, gdt_family_name(jr->cells[ci].spec->family));
    gdt__wire_add_str(req, GDT__W_CELL_PROBLEM, jr->cells[ci].spec->shape);
    gdt__wire_add_num(req, GDT__W_CELL_SEED, 1000 + ci); /* the sweep's seed: the same inputs */
    gdt__wire_add_num(req, GDT__W_CELL_KNOB_CAP, jr->options.knob_cap);
    ok = ok && ask(x, req, CELL_DEADLINE_S, GDT__WM_CELL_R, &rep, why, nwhy);
    cJSON_Delete(rep);
    cJSON_Delete(req);
    return ok;
}

static cJSON *rounds_req(const gdt_run *jr, const cell_rounds *cr)
{
    cJSON *req = gdt__wire_new(GDT__WM_ROUNDS), *plans = cJSON_CreateArray();
    gdt__wire_add(req, GDT__W_ROUNDS_PLANS, plans);
    for (int i = 0; i < cr->k; i++) {
        gdt_plan_id id;
        if (gdt_plan_id_parse(cr->name[i], &id, NULL) == GDT_STATUS_OK)
            cJSON_AddItemToArray(plans, gdt_plan_json(&id));
    }
    gdt__wire_add_num(req, GDT__W_ROUNDS_ROUNDS, cr->rounds);
    gdt__wire_add(req, GDT__W_ROUNDS_BURSTS, cJSON_CreateIntArray(&cr->burst, 1));
    double cap = jr->options.max_plan_seconds / cr->rounds;
    gdt__wire_add_num(req, GDT__W_ROUNDS_MAX_SECONDS,
                      cap > GDT_PLAN_SECONDS_MIN ? cap : GDT_PLAN_SECONDS_MIN);
    return req;
}

/* The worker's rounds of cr's plans on cell ci; cr->error says why not. */
static void measure(ctx *x, const gdt_run *jr, int ci, cell_rounds *cr)
{
    cJSON *rep = NULL, *req = NULL;
    const cJSON *per;
    if (!cell_up(x, jr, ci, cr->error, sizeof cr->error))
        return;
    req = rounds_req(jr, cr);
    double deadline = cr->k * (150.0 + 3.0 * jr->options.max_plan_seconds);
    bool ok = ask(x, req, deadline, GDT__WM_ROUNDS_R, &rep, cr->error, sizeof cr->error);
    per = gdt__wire_get(rep, GDT__W_ROUNDS_R_ROUND_US);
    ok = ok && cJSON_IsArray(per) && cJSON_GetArraySize(per) == cr->k;
    for (int i = 0; ok && i < cr->k; i++)
        ok = numbers(cJSON_GetArrayItem(per, i), cr->rounds, cr->us[i]);
    if (!ok && !cr->error[0])
        snprintf(cr->error, sizeof cr->error, "the worker's rounds reply is not one time per plan and round");
    cJSON_Delete(req);
    cJSON_Delete(rep);
}

/* ------------------------------------------------------------ per cell */

static bool measurable(const gdt_confirm_change *c)
{
    return c->verdict == GDT_CONFIRM_UNCONFIRMED && !strcmp(c->why, "not measured yet");
}

static int plan_slot(cell_rounds *cr, const char *name)
{
    for (int i = 0; i < cr->k; i++)
        if (!strcmp(cr->name[i], name)) return i;
    if (cr->k == GDT_ROUNDS_PLANS_MAX) return -1;
    cr->name[cr->k] = name;
    return cr->k++;
}

static bool same_cell(const gdt_confirm_change *a, const gdt_confirm_change *b)
{
    return !strcmp(a->family, b->family) && !strcmp(a->key, b->key) && !strcmp(a->arch, b->arch);
}

/* Every change of c->v[first]'s cell decided on one set of rounds. */
static void decide_cell(ctx *x, int first, cell_rounds *cr, double floor)
{
    for (int i = first; i < x->c->n; i++) {
        gdt_confirm_change *c = &x->c->v[i];
        if (!measurable(c) || !same_cell(c, &x->c->v[first])) continue;
        int o = plan_slot(cr, c->old_plan), n = plan_slot(cr, c->new_plan);
        if (cr->error[0] || o < 0 || n < 0)
            snprintf(c->why, sizeof c->why, "rounds not measured: %.2000s", cr->error);
        else if (!strcmp(c->what, "slowdown"))
            gdt_confirm_decide_slowdown(c, cr->us[o], cr->us[n], cr->rounds, floor);
        else
            gdt_confirm_decide(c, cr->us[o], cr->us[n], cr->rounds, floor);
    }
}

static gdt_status confirm_cell(ctx *x, int first, gdt_error *e)
{
    gdt_confirm_change *c0 = &x->c->v[first];
    cell_rounds *cr = calloc(1, sizeof *cr);
    char why[GDT_ERROR_MAX] = "";
    if (!cr) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "confirm: out of memory");
    cr->rounds = x->c->rounds;
    for (int i = first; i < x->c->n; i++)
        if (measurable(&x->c->v[i]) && same_cell(&x->c->v[i], c0) &&
            (plan_slot(cr, x->c->v[i].old_plan) < 0 || plan_slot(cr, x->c->v[i].new_plan) < 0))
            snprintf(why, sizeof why, "more than %d plans in one cell", GDT_ROUNDS_PLANS_MAX);
    for (int i = first; i < x->c->n && cr->k == 1; i++) /* rounds need two plans */
        if (measurable(&x->c->v[i]) && same_cell(&x->c->v[i], c0) && x->c->v[i].partner[0])
            plan_slot(cr, x->c->v[i].partner);
    night_run *n = why[0] ? NULL : run_of(x, c0->family, why, sizeof why, e);
    int ci = n ? run_cell_of(n->jr, c0->family, c0->key) : -1;
    if (n && ci < 0) snprintf(why, sizeof why, "the cell is not in %.1900s", n->jr->path);
    bool found = false;
    gdt_status s = !n && !why[0] ? e->status : GDT_STATUS_OK;
    if (s == GDT_STATUS_OK && ci >= 0)
        s = journaled(n, c0->key, cr, &found, e);
    if (s == GDT_STATUS_OK && ci >= 0 && !found) {
        cr->burst = cell_burst(n->jr, &n->jr->cells[ci]);
        fprintf(stderr, "gdtune nightly: confirming %s %s: %d rounds of %d plans\n", c0->family, c0->key,
                cr->rounds, cr->k);
        measure(x, n->jr, ci, cr);
        s = append(n, c0->family, c0->key, n->jr->cells[ci].spec->shape, cr, e);
    }
    if (why[0]) snprintf(cr->error, sizeof cr->error, "%s", why);
    if (s == GDT_STATUS_OK)
        decide_cell(x, first, cr, n && n->jr->spec ? n->jr->spec->noise_floor : 0);
    free(cr);
    return s;
}

gdt_status gdt_confirm_run(gdt_confirm *c, const gdt_confirm_runs *runs, gdt_error *e)
{
    ctx x = {.runs = runs, .c = c};
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < c->n && s == GDT_STATUS_OK; i++)
        if (measurable(&c->v[i]))
            s = confirm_cell(&x, i, e);
    gdt_worker_destroy(x.w);
    for (int i = 0; i < x.nnr; i++) {
        gdt_journal_close(x.nr[i].j);
        gdt_journal_lines_free(&x.nr[i].done);
        gdt_run_destroy(x.nr[i].jr);
    }
    return s;
}
