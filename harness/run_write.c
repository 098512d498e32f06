/* The journal's one writer, beside its reader (run.c): records from typed
 * values, their keys in the order sweeps have always written them (see
 * gdt_run.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_journal.h"
#include "gdt_record.h"
#include "gdt_metric_clock.h"
#include "gdt_run.h"
#include "gdt_run_write.h"
#include "gdt_util.h"
#include "gdt_wire.h"

static cJSON *drop(cJSON *o)
{
    cJSON_Delete(o);
    return NULL;
}

/* cJSON_AddItemToObject, freeing the item when it cannot be added. */
static bool add(cJSON *o, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObject(o, key, item))
        return true;
    cJSON_Delete(item);
    return false;
}

/* rec against its table, as the strict reader will check it: a record it
 * would refuse is the writer's failure (INTERNAL), never appended. */
static gdt_status contract(gdt_journal *j, gdt_record_type t, const cJSON *rec, gdt_error *e)
{
    char at[PATH_MAX + 64];
    snprintf(at, sizeof at, "%s: a %s record the reader would refuse, not appended",
             gdt_journal_path(j), gdt_record_type_name(t));
    gdt_status s = gdt__record_check(gdt__record_table(t), at, "", rec, e);
    return s == GDT_STATUS_OK ? s : gdt_error_prefix(e, GDT_STATUS_INTERNAL, "");
}

/* Checks, prints and appends rec, which it frees; NULL is a record that
 * could not be built. */
static gdt_status put(gdt_journal *j, gdt_record_type t, cJSON *rec, gdt_error *e)
{
    gdt_status s = rec ? contract(j, t, rec, e) : GDT_STATUS_OK;
    char *txt = rec && s == GDT_STATUS_OK ? cJSON_PrintUnformatted(rec) : NULL;
    cJSON_Delete(rec);
    if (s == GDT_STATUS_OK)
        s = txt ? gdt_journal_append(j, txt, e)
                : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "journal: out of memory building a %s "
                                "record", gdt_record_type_name(t));
    free(txt);
    return s;
}

static cJSON *typed(gdt_record_type t)
{
    cJSON *o = cJSON_CreateObject();
    if (o && !cJSON_AddStringToObject(o, "type", gdt_record_type_name(t)))
        return drop(o);
    return o;
}

/* The keys every record about a cell starts with. */
static cJSON *cell_keys(gdt_record_type t, int ci, const gdt_sweep_cell *c)
{
    char key[512];
    gdt_problem_key(&c->problem, key, sizeof key);
    cJSON *o = typed(t);
    if (o && cJSON_AddNumberToObject(o, "cell", ci) &&
        cJSON_AddStringToObject(o, "family", gdt_family_name(c->family)) &&
        cJSON_AddStringToObject(o, "shape", c->shape) && cJSON_AddStringToObject(o, "key", key))
        return o;
    return drop(o);
}

/* An array of the strings v[0..n). */
static cJSON *strings_json(const char *const *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        cJSON *s = cJSON_CreateString(v[i]);
        if (!s || !cJSON_AddItemToArray(a, s)) {
            cJSON_Delete(s);
            return drop(a);
        }
    }
    return a;
}

static cJSON *options_json(const gdt_run_options *op)
{
    cJSON *o = cJSON_CreateObject();
    if (o && add(o, "bursts", cJSON_CreateIntArray(op->bursts, op->nbursts)) &&
        cJSON_AddNumberToObject(o, "target_rel", op->target_rel) &&
        cJSON_AddNumberToObject(o, "max_plan_seconds", op->max_plan_seconds) &&
        cJSON_AddNumberToObject(o, "deadline", op->deadline) &&
        cJSON_AddNumberToObject(o, "cudnn_knob_cap", op->knob_cap) &&
        cJSON_AddNumberToObject(o, "shard_i", op->shard_i) &&
        cJSON_AddNumberToObject(o, "shard_n", op->shard_n) &&
        (!op->shard_source || !op->shard_source[0] ||
         cJSON_AddStringToObject(o, "shard_source", op->shard_source)) &&
        (!op->cupti || cJSON_AddBoolToObject(o, "cupti", true)) &&
        (!op->rounds || cJSON_AddNumberToObject(o, "rounds", op->rounds)) &&
        (!op->planted || !op->planted[0] || cJSON_AddStringToObject(o, "planted", op->planted)) &&
        cJSON_AddBoolToObject(o, "race", op->race))
        return o;
    return drop(o);
}

gdt_status gdt_run_write_header(gdt_journal *j, const gdt_run_header_rec *h, gdt_error *e)
{
    cJSON *o = typed(GDT_REC_RUN);
    bool ok = o && cJSON_AddStringToObject(o, "gdtune_version", GDT_VERSION_STRING) &&
              cJSON_AddStringToObject(o, "source_digest", gdt__source_digest) &&
              cJSON_AddStringToObject(o, "started", h->started) &&
              cJSON_AddStringToObject(o, "family", h->family) &&
              cJSON_AddBoolToObject(o, "quick", h->quick) &&
              cJSON_AddStringToObject(o, "spec_source", h->spec->source) &&
              cJSON_AddStringToObject(o, "spec_digest", h->spec->digest) &&
              cJSON_AddStringToObject(o, "spec", h->spec->text) &&
              cJSON_AddStringToObject(o, "candidates_digest", h->candidates_digest) &&
              (!h->candidates || cJSON_AddStringToObject(o, "candidates", h->candidates)) &&
              cJSON_AddNumberToObject(o, "arch", h->arch) &&
              add(o, "device", cJSON_Duplicate(h->device, 1)) &&
              add(o, "gpus", strings_json(h->gpus, h->ngpus)) &&
              add(o, "options", options_json(&h->options)) &&
              add(o, "prior", h->prior ? cJSON_Duplicate(h->prior, 1) : cJSON_CreateNull()) &&
              (!h->argv.v || add(o, "argv", strings_json(h->argv.v, h->argv.n)));
    return put(j, GDT_REC_RUN, ok ? o : drop(o), e);
}

gdt_status gdt_run_write_resume(gdt_journal *j, const char *started, int results_before,
                                const char *const *gpus, int ngpus, gdt_run_argv argv, gdt_error *e)
{
    cJSON *o = typed(GDT_REC_RESUME);
    bool ok = o && cJSON_AddStringToObject(o, "started", started) &&
              cJSON_AddStringToObject(o, "source_digest", gdt__source_digest) &&
              cJSON_AddNumberToObject(o, "results_before", results_before) &&
              add(o, "gpus", strings_json(gpus, ngpus)) &&
              (!argv.v || add(o, "argv", strings_json(argv.v, argv.n)));
    return put(j, GDT_REC_RESUME, ok ? o : drop(o), e);
}

gdt_status gdt_run_write_cell(gdt_journal *j, int ci, const gdt_sweep_cell *c, gdt_error *e)
{
    return put(j, GDT_REC_CELL, cell_keys(GDT_REC_CELL, ci, c), e);
}

gdt_status gdt_run_write_cell_error(gdt_journal *j, int ci, const gdt_sweep_cell *c,
                                    const char *error, gdt_error *e)
{
    cJSON *o = cell_keys(GDT_REC_CELL_ERROR, ci, c);
    bool ok = o && cJSON_AddStringToObject(o, "error", error);
    return put(j, GDT_REC_CELL_ERROR, ok ? o : drop(o), e);
}

static bool add_prebuild(cJSON *o, const gdt_run_prebuild *p)
{
    return cJSON_AddNumberToObject(o, "build_threads", p->threads) &&
           cJSON_AddNumberToObject(o, "prebuilt", p->prebuilt) &&
           cJSON_AddNumberToObject(o, "prebuild_s", p->seconds);
}

gdt_status gdt_run_write_plans(gdt_journal *j, int ci, const gdt_sweep_cell *c, const cJSON *plans,
                               const char *reference, const bool *reference_cpu,
                               const gdt_run_prebuild *prebuild, gdt_error *e)
{
    cJSON *o = cell_keys(GDT_REC_PLANS, ci, c);
    bool ok = o && add(o, "plans", cJSON_Duplicate(plans, 1)) &&
              (!reference || cJSON_AddStringToObject(o, "reference", reference)) &&
              (!reference_cpu || cJSON_AddBoolToObject(o, "reference_cpu", *reference_cpu)) &&
              (!prebuild || add_prebuild(o, prebuild));
    return put(j, GDT_REC_PLANS, ok ? o : drop(o), e);
}

gdt_status gdt_run_write_attempt(gdt_journal *j, int ci, const gdt_sweep_cell *c, int plan,
                                 const char *name, gdt_error *e)
{
    cJSON *o = cell_keys(GDT_REC_ATTEMPT, ci, c);
    bool ok = o && cJSON_AddNumberToObject(o, "plan", plan) && cJSON_AddStringToObject(o, "name", name);
    return put(j, GDT_REC_ATTEMPT, ok ? o : drop(o), e);
}

/* A key the worker measured: a row of the result reply's body (the reply's
 * "op" and the keys the writer adds are not; a second one would damage
 * the record). */
static bool measured_key(const char *key)
{
    return strcmp(key, gdt__wire_key(GDT__W_RESULT_R_OP)) && gdt__wire_has(GDT__WM_RESULT_R, key);
}

/* The reply's fields in its order, the typed disposition and error in
 * their places (first, where the reply has none). */
static bool add_measured(cJSON *o, const gdt_run_result_rec *res)
{
    const cJSON *m = res->measured;
    const char *disp = gdt_disposition_name(res->disposition);
    bool ok = cJSON_GetObjectItemCaseSensitive(m, "disposition") ||
              cJSON_AddStringToObject(o, "disposition", disp);
    ok = ok && (cJSON_GetObjectItemCaseSensitive(m, "error") ||
                cJSON_AddStringToObject(o, "error", res->error));
    for (const cJSON *c = m ? m->child : NULL; ok && c; c = c->next) {
        if (!c->string || !measured_key(c->string))
            continue;
        if (!strcmp(c->string, "disposition"))
            ok = cJSON_AddStringToObject(o, "disposition", disp) != NULL;
        else if (!strcmp(c->string, "error"))
            ok = cJSON_AddStringToObject(o, "error", res->error) != NULL;
        else
            ok = add(o, c->string, cJSON_Duplicate(c, 1));
    }
    return ok;
}

/* A re-measure's mark, after the keys every result has; nothing for a
 * plan's first result. */
static bool add_clock_outlier(cJSON *o, const gdt_run_clock_outlier *co)
{
    if (!co)
        return true;
    cJSON *x = cJSON_CreateObject();
    bool ok = x && cJSON_AddNumberToObject(x, "first_mhz", co->first_mhz) &&
              cJSON_AddNumberToObject(x, "cell_mhz", co->cell_mhz) &&
              cJSON_AddNumberToObject(x, "limit", GDT_CLOCK_OUTLIER) &&
              cJSON_AddBoolToObject(x, "counts", co->counts);
    return ok ? add(o, "clock_outlier", x) : (cJSON_Delete(x), false);
}

gdt_status gdt_run_write_result(gdt_journal *j, const gdt_run_result_rec *res, gdt_error *e)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_measured(o, res) &&
              cJSON_AddStringToObject(o, "type", gdt_record_type_name(GDT_REC_RESULT)) &&
              cJSON_AddNumberToObject(o, "cell", res->cell) &&
              cJSON_AddNumberToObject(o, "plan", res->plan) &&
              cJSON_AddStringToObject(o, "family", gdt_family_name(res->family)) &&
              cJSON_AddStringToObject(o, "name", res->name) &&
              cJSON_AddNumberToObject(o, "gpu", res->gpu) && add_clock_outlier(o, res->clock_outlier);
    return put(j, GDT_REC_RESULT, ok ? o : drop(o), e);
}

static cJSON *round_us_json(const gdt_run_rounds_rec *r)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < r->nplans; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateDoubleArray(r->round_us[i], r->rounds)))
            return drop(a);
    return a;
}

/* What the rounds measured; nothing when they did not. */
static bool add_rounds_measured(cJSON *o, const gdt_run_rounds_rec *r)
{
    if (r->error[0])
        return true;
    return add(o, "time_us", cJSON_CreateDoubleArray(r->time_us, r->nplans)) &&
           add(o, "noise", cJSON_CreateDoubleArray(r->noise, r->nplans)) &&
           add(o, "ratios", cJSON_CreateDoubleArray(r->ratios, r->nplans)) &&
           add(o, "round_us", round_us_json(r)) && cJSON_AddNumberToObject(o, "measure_s", r->seconds);
}

gdt_status gdt_run_write_rounds(gdt_journal *j, const gdt_run_rounds_rec *r, gdt_error *e)
{
    cJSON *o = cell_keys(GDT_REC_ROUNDS, r->cell, r->spec);
    bool ok = o && add(o, "plans", cJSON_CreateIntArray(r->plans, r->nplans)) &&
              cJSON_AddNumberToObject(o, "rounds", r->rounds) &&
              cJSON_AddStringToObject(o, "error", r->error) && add_rounds_measured(o, r) &&
              cJSON_AddNumberToObject(o, "gpu", r->gpu);
    return put(j, GDT_REC_ROUNDS, ok ? o : drop(o), e);
}
