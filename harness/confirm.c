/* The changes a diff names, decided on interleaved rounds (gdt_confirm.h):
 * the model, without the worker (confirm_run.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_ab.h"
#include "gdt_confirm.h"
#include "gdt_json.h"
#include "gdtune/tables.h"

#define WHERE "tables diff JSON"

const char *gdt_confirm_verdict_name(gdt_confirm_verdict v)
{
    static const char *const names[] = {"held", "dissolved", "unconfirmed"};
    return (unsigned)v < sizeof names / sizeof *names ? names[v] : "?";
}

/* ------------------------------------------------------------ from the diff */

static const char *const picks[] = {"decision", "winner", "first_entry"};

/* A string field of the diff, or BAD_INPUT naming its path. */
static gdt_status field(const cJSON *o, const char *jp, const char *key, const char **out, gdt_error *e)
{
    *out = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
    return *out ? GDT_STATUS_OK
                : gdt_error_set(e, GDT_STATUS_BAD_INPUT, WHERE ": %s/%s: expected a string", jp, key);
}

/* The plan a decision's side puts first: the best of that side in the new tables. */
static const char *side_best(const cJSON *cell, const char *choice)
{
    const char *side = !strcmp(choice, "LEAD") ? "best_ours" : !strcmp(choice, "TRAIL") ? "best_backend" : NULL;
    const char *p = side ? cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(cell, side), "new")) : NULL;
    return p ? p : "";
}

static void set_plans(gdt_confirm_change *c, const cJSON *cell, bool decision)
{
    snprintf(c->old_plan, sizeof c->old_plan, "%s", decision ? side_best(cell, c->old_choice) : c->old_choice);
    snprintf(c->new_plan, sizeof c->new_plan, "%s", decision ? side_best(cell, c->new_choice) : c->new_choice);
    c->verdict = GDT_CONFIRM_UNCONFIRMED;
    if (!c->old_plan[0] || !c->new_plan[0] || !strcmp(c->old_plan, "(none)") || !strcmp(c->new_plan, "(none)"))
        snprintf(c->why, sizeof c->why, "no plan to measure on one side");
    else if (!strcmp(c->old_plan, c->new_plan))
        snprintf(c->why, sizeof c->why, "both sides name one plan (%s)", c->old_plan);
    else
        snprintf(c->why, sizeof c->why, "not measured yet");
}

static gdt_status add_change(gdt_confirm *out, const cJSON *cell, const char *jp, int k, gdt_error *e)
{
    const cJSON *pick = cJSON_GetObjectItem(cell, picks[k]);
    const char *fam, *arch, *key, *o, *n;
    char pj[96];
    snprintf(pj, sizeof pj, "%s/%s", jp, picks[k]);
    gdt_status s = field(cell, jp, "family", &fam, e);
    if (!s) s = field(cell, jp, "arch", &arch, e);
    if (!s) s = field(cell, jp, "key", &key, e);
    if (!s) s = field(pick, pj, "old", &o, e);
    if (!s) s = field(pick, pj, "new", &n, e);
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
    c->what = picks[k];
    set_plans(c, cell, k == 0);
    return GDT_STATUS_OK;
}

static gdt_status add_cell(gdt_confirm *out, const cJSON *cell, int i, gdt_error *e)
{
    char jp[48];
    const char *st;
    snprintf(jp, sizeof jp, "/cells/%d", i);
    gdt_status s = field(cell, jp, "status", &st, e);
    if (!s && !strcmp(st, "added")) out->added++;
    if (!s && !strcmp(st, "removed")) out->removed++;
    for (int k = 0; !s && !strcmp(st, "beyond_noise") && k < 3; k++)
        if (cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(cell, picks[k]), "beyond_noise")))
            s = add_change(out, cell, jp, k, e);
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
    /* the paired ratio against 1, each side with its own (floored) noise */
    gdt_measured_plan o = {.time_us = 1, .noise = c->old_noise}, n = {.time_us = c->ratio, .noise = c->new_noise};
    c->verdict = gdt_measured_beats(&n, &o) ? GDT_CONFIRM_HELD : GDT_CONFIRM_DISSOLVED;
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

static cJSON *change_json(const gdt_confirm_change *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "family", c->family);
    cJSON_AddStringToObject(o, "arch", c->arch);
    cJSON_AddStringToObject(o, "key", c->key);
    cJSON_AddStringToObject(o, "what", c->what);
    cJSON_AddStringToObject(o, "old", c->old_choice);
    cJSON_AddStringToObject(o, "new", c->new_choice);
    cJSON_AddStringToObject(o, "old_plan", c->old_plan);
    cJSON_AddStringToObject(o, "new_plan", c->new_plan);
    cJSON_AddStringToObject(o, "verdict", gdt_confirm_verdict_name(c->verdict));
    if (c->verdict == GDT_CONFIRM_UNCONFIRMED) {
        cJSON_AddStringToObject(o, "why", c->why);
        return o;
    }
    const char *keys[] = {"old_us", "new_us", "old_noise", "new_noise", "ratio", "lo", "hi"};
    const double vals[] = {c->old_us, c->new_us, c->old_noise, c->new_noise, c->ratio, c->lo, c->hi};
    cJSON_AddNumberToObject(o, "rounds", c->rounds);
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        cJSON_AddNumberToObject(o, keys[i], vals[i]);
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
