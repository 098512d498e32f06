/* The changes a diff names, decided on interleaved rounds (gdt_confirm.h):
 * the model, without the worker (confirm_run.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_ab.h"
#include "gdt_confirm.h"
#include "gdt_json.h"
#include "gdt_json_rows.h"
#include "gdtune/tables.h"

#define WHERE "tables diff JSON"

const char *gdt_confirm_verdict_name(gdt_confirm_verdict v)
{
    static const char *const names[] = {"held", "dissolved", "unconfirmed"};
    return (unsigned)v < sizeof names / sizeof *names ? names[v] : "?";
}

/* ------------------------------------------------------------ from the diff */

/* The diff's cost verdicts (gdtune.tables_diff/1, docs/tables-diff.md):
 * regret.{winner,first_entry,decision} set a committed choice (plan)
 * against NEW's best (base), both measured tonight, so rounds can decide
 * them; slowdown sets tonight's winner against the committed run's time:
 * the rounds measure tonight's winner again against that time. */
static const char *const costs[] = {"winner", "first_entry", "decision"};

/* A string field of the diff, or BAD_INPUT naming its path. */
static gdt_status field(const cJSON *o, const char *jp, const char *key, const char **out, gdt_error *e)
{
    *out = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
    return *out ? GDT_STATUS_OK
                : gdt_error_set(e, GDT_STATUS_BAD_INPUT, WHERE ": %s/%s: expected a string", jp, key);
}

/* What the rounds can set apart: the committed plan against NEW's best,
 * both measured tonight; anything else stays unconfirmed with why. */
static void set_plans(gdt_confirm_change *c, const cJSON *cost, bool slowdown)
{
    snprintf(c->old_plan, sizeof c->old_plan, "%s", c->old_choice);
    snprintf(c->new_plan, sizeof c->new_plan, "%s", c->new_choice);
    c->verdict = GDT_CONFIRM_UNCONFIRMED;
    if (!slowdown)
        c->accepted = fmax(0, gdt_json_num_or(cost, "accepted", 0));
    if (slowdown)
        c->base_us = gdt_json_num_or(cost, "base_us", 0);
    if (slowdown && !(c->base_us > 0))
        snprintf(c->why, sizeof c->why, "no committed time to set the rounds against");
    else if (!cJSON_IsTrue(cJSON_GetObjectItem(cost, "measured")))
        snprintf(c->why, sizeof c->why, "the committed choice was not measured tonight");
    else if (!c->old_plan[0] || !c->new_plan[0])
        snprintf(c->why, sizeof c->why, "no plan to measure on one side");
    else if (!slowdown && !strcmp(c->old_plan, c->new_plan))
        snprintf(c->why, sizeof c->why, "both sides name one plan (%s)", c->old_plan);
    else
        snprintf(c->why, sizeof c->why, "not measured yet");
}

/* A plan of the cell other than c's: NEW's best of ours, else of the backend. */
static void partner_of(gdt_confirm_change *c, const cJSON *cell)
{
    static const char *const sides[] = {"best_ours", "best_backend"};
    for (int i = 0; i < 2 && !c->partner[0]; i++) {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(cell, sides[i]), "new"));
        if (p && *p && strcmp(p, "(none)") && strcmp(p, c->old_plan) && strcmp(p, c->new_plan))
            snprintf(c->partner, sizeof c->partner, "%s", p);
    }
}

/* One cost beyond noise of the cell at jp: what (a regret's choice or
 * "slowdown"), its JSON object cost at cj. */
static gdt_status add_change(gdt_confirm *out, const cJSON *cell, const char *jp, const char *what,
                             const cJSON *cost, const char *cj, gdt_error *e)
{
    const char *fam, *arch, *key, *o, *n;
    gdt_status s = field(cell, jp, "family", &fam, e);
    if (!s) s = field(cell, jp, "arch", &arch, e);
    if (!s) s = field(cell, jp, "key", &key, e);
    if (!s) s = field(cost, cj, "plan", &n, e);      /* NEW's: the new winner, or tonight's */
    if (!s) s = field(cost, cj, "base", &o, e);
    if (!s && strcmp(what, "slowdown")) {            /* a regret: plan is the committed choice */
        const char *t = o;
        o = n, n = t;
    } /* a slowdown: the committed winner (base) and tonight's (plan), the faster of the
         two in the rounds set against the committed time */
    gdt_confirm_change *v = s ? NULL : realloc(out->v, sizeof *v * (size_t)(out->n + 1));
    if (s || !v)
        return s ? s : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "confirm: out of memory");
    out->v = v;
    gdt_confirm_change *c = memset(&v[out->n++], 0, sizeof *v);
    snprintf(c->family, sizeof c->family, "%s", fam);
    snprintf(c->arch, sizeof c->arch, "%s", arch);
    snprintf(c->key, sizeof c->key, "%s", key);
    snprintf(c->old_choice, sizeof c->old_choice, "%s", o);
    snprintf(c->new_choice, sizeof c->new_choice, "%s", n);
    c->what = what;
    set_plans(c, cost, !strcmp(what, "slowdown"));
    if (!strcmp(what, "slowdown"))
        partner_of(c, cell);
    return GDT_STATUS_OK;
}

static gdt_status add_cell(gdt_confirm *out, const cJSON *cell, int i, gdt_error *e)
{
    char jp[48], cj[96];
    const char *st;
    snprintf(jp, sizeof jp, "/cells/%d", i);
    gdt_status s = field(cell, jp, "status", &st, e);
    if (!s && !strcmp(st, "added")) out->added++;
    if (!s && !strcmp(st, "removed")) out->removed++;
    if (s || strcmp(st, "beyond_noise"))
        return s;
    const cJSON *regret = cJSON_GetObjectItem(cell, "regret");
    for (int k = 0; !s && k < 3; k++) {
        const cJSON *r = cJSON_GetObjectItem(regret, costs[k]);
        snprintf(cj, sizeof cj, "%s/regret/%s", jp, costs[k]);
        if (cJSON_IsTrue(cJSON_GetObjectItem(r, "beyond_noise")))
            s = add_change(out, cell, jp, costs[k], r, cj, e);
    }
    const cJSON *sd = cJSON_GetObjectItem(cell, "slowdown");
    snprintf(cj, sizeof cj, "%s/slowdown", jp);
    if (!s && cJSON_IsTrue(cJSON_GetObjectItem(sd, "beyond_noise")))
        s = add_change(out, cell, jp, "slowdown", sd, cj, e);
    return s;
}

gdt_status gdt_confirm_from_diff(const char *diff_json, gdt_confirm *out, gdt_error *e)
{
    memset(out, 0, sizeof *out);
    cJSON *doc = diff_json ? cJSON_Parse(diff_json) : NULL;
    const cJSON *cells = cJSON_GetObjectItem(doc, "cells"), *c;
    gdt_status s = cJSON_IsArray(cells) ? GDT_STATUS_OK
                 : gdt_error_set(e, GDT_STATUS_BAD_INPUT, WHERE ": /cells: expected an array%s",
                                 doc ? "" : " (the document does not parse)");
    int i = 0;
    cJSON_ArrayForEach(c, cells)
        if (!s) s = add_cell(out, c, i++, e);
    cJSON_Delete(doc);
    if (s) gdt_confirm_free(out);
    return s;
}

/* ------------------------------------------------------------ the rule */

void gdt_confirm_decide(gdt_confirm_change *c, const double *old_us, const double *new_us, int rounds,
                        double floor)
{
    const double *us[2] = {old_us, new_us};
    gdt_rounds_stats st;
    gdt_rounds_stats_compute(us, 2, rounds, &st);
    c->rounds = st.rounds;
    c->old_us = st.time_us[0];
    c->new_us = st.time_us[1];
    c->old_noise = fmax(floor, st.noise[0]);
    c->new_noise = fmax(floor, st.noise[1]);
    c->ratio = st.ratio[1];
    c->lo = st.lo[1];
    c->hi = st.hi[1];
    /* the paired ratio, less the regret the committed tables accepted,
     * against 1, each side with its own (floored) noise */
    gdt_measured_plan o = {.time_us = 1, .noise = c->old_noise};
    gdt_measured_plan n = {.time_us = c->ratio * (1 + c->accepted), .noise = c->new_noise};
    c->verdict = gdt_measured_beats(&n, &o) ? GDT_CONFIRM_HELD : GDT_CONFIRM_DISSOLVED;
    c->why[0] = '\0';
}

void gdt_confirm_decide_slowdown(gdt_confirm_change *c, const double *old_us, const double *new_us,
                                 int rounds, double floor)
{
    const double *us[2] = {old_us, new_us};
    gdt_rounds_stats st;
    gdt_rounds_stats_compute(us, 2, rounds, &st);
    int best = st.time_us[0] < st.time_us[1] ? 0 : 1; /* tonight's best of the two */
    snprintf(c->faster, sizeof c->faster, "%s", best ? c->new_plan : c->old_plan);
    c->rounds = st.rounds;
    c->old_us = c->base_us;
    c->new_us = st.time_us[best];
    c->old_noise = floor;
    c->new_noise = fmax(floor, st.noise[best]);
    c->ratio = c->new_us / c->base_us;
    c->lo = INFINITY, c->hi = -INFINITY; /* the faster plan's rounds over the committed time */
    for (int j = 0; j < st.rounds; j++) {
        c->lo = fmin(c->lo, us[best][j] / c->base_us);
        c->hi = fmax(c->hi, us[best][j] / c->base_us);
    }
    gdt_measured_plan base = {.time_us = c->base_us, .noise = c->old_noise};
    gdt_measured_plan now = {.time_us = c->new_us, .noise = c->new_noise};
    c->verdict = gdt_measured_beats(&base, &now) ? GDT_CONFIRM_HELD : GDT_CONFIRM_DISSOLVED;
    c->why[0] = '\0';
}

int gdt_confirm_exit(const gdt_confirm *c)
{
    bool hold = c->added || c->removed;
    for (int i = 0; i < c->n && !hold; i++)
        hold = c->v[i].verdict != GDT_CONFIRM_DISSOLVED;
    return hold ? 3 : 0;
}

/* ------------------------------------------------------------ output */

static const gdt_json_row change_rows[] = {
    GDT_JSON_FIELD_TEXT(gdt_confirm_change, family),
    GDT_JSON_FIELD_TEXT(gdt_confirm_change, arch),
    GDT_JSON_FIELD_TEXT(gdt_confirm_change, key),
    GDT_JSON_FIELD(gdt_confirm_change, what),
    GDT_JSON_TEXT(gdt_confirm_change, "old", old_choice),
    GDT_JSON_TEXT(gdt_confirm_change, "new", new_choice),
    GDT_JSON_FIELD_TEXT(gdt_confirm_change, old_plan),
    GDT_JSON_FIELD_TEXT(gdt_confirm_change, new_plan),
};
/* What the rounds measured (all but an unconfirmed change). */
static const gdt_json_row rounds_rows[] = {
    GDT_JSON_FIELD(gdt_confirm_change, rounds),
    GDT_JSON_FIELD(gdt_confirm_change, old_us),
    GDT_JSON_FIELD(gdt_confirm_change, new_us),
    GDT_JSON_FIELD(gdt_confirm_change, old_noise),
    GDT_JSON_FIELD(gdt_confirm_change, new_noise),
    GDT_JSON_FIELD(gdt_confirm_change, ratio),
    GDT_JSON_FIELD(gdt_confirm_change, lo),
    GDT_JSON_FIELD(gdt_confirm_change, hi),
    GDT_JSON_FIELD(gdt_confirm_change, accepted),
};

static cJSON *change_json(const gdt_confirm_change *c)
{
    cJSON *o = gdt_json_rows_object(c, change_rows, GDT_JSON_ROWS_N(change_rows));
    cJSON_AddStringToObject(o, "verdict", gdt_confirm_verdict_name(c->verdict));
    if (c->verdict == GDT_CONFIRM_UNCONFIRMED)
        cJSON_AddStringToObject(o, "why", c->why);
    else
        gdt_json_rows_add(o, c, rounds_rows, GDT_JSON_ROWS_N(rounds_rows));
    if (c->verdict != GDT_CONFIRM_UNCONFIRMED && !strcmp(c->what, "slowdown"))
        cJSON_AddStringToObject(o, "faster", c->faster);
    return o;
}

cJSON *gdt_confirm_json(const gdt_confirm *c)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", GDT_CONFIRM_SCHEMA);
    cJSON_AddNumberToObject(doc, "rounds", c->rounds);
    cJSON_AddNumberToObject(doc, "added", c->added);
    cJSON_AddNumberToObject(doc, "removed", c->removed);
    cJSON_AddNumberToObject(doc, "exit_code", gdt_confirm_exit(c));
    cJSON *a = cJSON_AddArrayToObject(doc, "changes");
    for (int i = 0; i < c->n; i++)
        cJSON_AddItemToArray(a, change_json(&c->v[i]));
    return doc;
}

void gdt_confirm_free(gdt_confirm *c)
{
    if (!c) return;
    free(c->v);
    memset(c, 0, sizeof *c);
}
