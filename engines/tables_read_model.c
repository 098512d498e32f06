/* The loader of a placement table's time model: its features as this
 * release names them, its plans sorted, its ratio, interval and figures in
 * range. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_tables_impl.h"

/* An array of exactly n numbers, each what `per` says ("one per feature"). */
static gdt_status num_item(const gdt__ld *l, const cJSON *x, const char *jp, void *dst, int i, void *ctx)
{
    (void)ctx;
    return gdt_json_number(x, l->file, jp, (double *)dst + i, l->e);
}

static gdt_status get_nums_per(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, double *dst, int n,
                               const char *per)
{
    char what[128];
    snprintf(what, sizeof what, "numbers (%s)", per);
    return gdt__ld_fixed(l, o, key, jp, n, what, num_item, dst, NULL);
}

static gdt_status get_nums(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, double *dst, int n)
{
    return get_nums_per(l, o, key, jp, dst, n, "one per feature");
}

/* A figure of the cross-validation: a ratio to the best is at least 1. */
static gdt_status get_ratio(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, double *v)
{
    gdt__jpath p;
    gdt_status s = gdt__ld_num(l, o, key, jp, v);
    if (!s && !(*v >= 1)) return gdt__ld_bad(l, gdt__jp_key(p, jp, key), "expected a ratio >= 1, got %g", *v);
    return s;
}

/* Figures of the model's picks under key (as tables_emit.c writes them);
 * null only where nullable (*present false then). */
static gdt_status read_figures(const gdt__ld *l, const cJSON *model, const char *key, const char *jp, bool nullable,
                               gdt__pred_cv *cv, bool *present)
{
    static const char *const keys[] = {"cells", "median_abs_error", "A", "OPENSOURCE", "slower_than_heuristic"};
    static const char *const fig_keys[] = {"geomean", "worst"};
    const cJSON *o, *m;
    gdt__jpath cp, mp, p;
    gdt_status s = gdt__ld_sub(l, model, key, jp, &o, cp);
    *present = false;
    memset(cv, 0, sizeof *cv);
    if (s || (nullable && cJSON_IsNull(o))) return s;
    if (!cJSON_IsObject(o))
        return gdt__ld_bad(l, cp, "expected an object%s, got %s", nullable ? " or null" : "", gdt_json_type_name(o));
    s = GDT__CHECK_KEYS(l, o, keys, cp);
    if (!s) s = gdt__ld_int32(l, o, "cells", cp, 0, &cv->ncells);
    if (!s) s = gdt__ld_num(l, o, "median_abs_error", cp, &cv->err);
    if (!s && !(cv->err >= 0))
        return gdt__ld_bad(l, gdt__jp_key(p, cp, "median_abs_error"), "expected an error >= 0, got %g", cv->err);
    for (int i = 0; i < 2 && !s; i++) {
        s = gdt__ld_sub(l, o, keys[2 + i], cp, &m, mp);
        if (!s) s = GDT__CHECK_KEYS(l, m, fig_keys, mp);
        if (!s) s = get_ratio(l, m, "geomean", mp, &cv->geomean[i]);
        if (!s) s = get_ratio(l, m, "worst", mp, &cv->worst[i]);
    }
    if (!s) s = gdt__ld_int32(l, o, "slower_than_heuristic", cp, 0, &cv->slower);
    if (!s && cv->slower > cv->ncells)
        return gdt__ld_bad(l, gdt__jp_key(p, cp, "slower_than_heuristic"), "expected at most the %d cells, got %d",
                           cv->ncells, cv->slower);
    *present = !s;
    return s;
}

/* One kind of lead's residuals and scale >= 0. */
static gdt_status read_interval_kind(const gdt__ld *l, const cJSON *iv, int kind, const char *jp,
                                     gdt__pred_interval *out)
{
    static const char *const keys[] = {"residuals", "scale"};
    const cJSON *o;
    gdt__jpath kp, p;
    gdt_status s = gdt__ld_sub(l, iv, gdt__lead_kind_keys[kind], jp, &o, kp);
    if (s) return s;
    s = GDT__CHECK_KEYS(l, o, keys, kp);
    if (!s) s = gdt__ld_int32(l, o, "residuals", kp, 0, &out->n[kind]);
    if (!s) s = gdt__ld_num(l, o, "scale", kp, &out->scale[kind]);
    if (!s && !(out->scale[kind] >= 0))
        return gdt__ld_bad(l, gdt__jp_key(p, kp, "scale"), "expected a scale >= 0, got %g", out->scale[kind]);
    return s;
}

/* The lead's interval: one of this release's quantiles, a distance >= 0,
 * a scale per kind of lead. */
static gdt_status read_interval(const gdt__ld *l, const cJSON *model, const char *jp, gdt__pred_interval *iv)
{
    static const char *const keys[] = {"quantile", "distance", "ours", "block"};
    const cJSON *o;
    char known[128] = "";
    gdt__jpath ip, p;
    gdt_status s = gdt__ld_sub(l, model, "interval", jp, &o, ip);
    if (s) return s;
    s = GDT__CHECK_KEYS(l, o, keys, ip);
    if (!s) s = gdt__ld_num(l, o, "quantile", ip, &iv->quantile);
    if (!s && !gdt__lead_quantile_known(iv->quantile)) {
        for (int i = 0; i < GDT__LEAD_NQUANTILES; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%g", i ? ", " : "",
                     gdt__lead_quantiles[i]);
        return gdt__ld_bad(l, gdt__jp_key(p, ip, "quantile"), "expected one of %s (this release's quantiles), got %g",
                           known, iv->quantile);
    }
    if (!s) s = gdt__ld_num(l, o, "distance", ip, &iv->dref);
    if (!s && !(iv->dref >= 0))
        return gdt__ld_bad(l, gdt__jp_key(p, ip, "distance"), "expected a distance >= 0, got %g", iv->dref);
    for (int k = 0; !s && k < GDT__LEAD_KINDS; k++) s = read_interval_kind(l, o, k, ip, iv);
    return s;
}

/* A family's name of feature i. */
typedef struct feature_names {
    const char *(*name_of)(gdt_family f, int i);
} feature_names;

static gdt_status feature_item(const gdt__ld *l, const cJSON *x, const char *jp, void *recs, int i, void *names)
{
    (void)recs;
    const char *v, *name = ((const feature_names *)names)->name_of(l->family, i);
    gdt_status s = gdt_json_string(x, l->file, jp, &v, l->e);
    if (!s && strcmp(v, name))
        return gdt__ld_bad(l, jp, "expected \"%s\" (this release's feature %d), got \"%s\"", name, i, v);
    return s;
}

/* o[key]: exactly the n names name(l->family, i), in order. */
static gdt_status read_feature_names(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, int want,
                                     const char *(*name_of)(gdt_family, int))
{
    feature_names names = {name_of};
    return gdt__ld_fixed(l, o, key, jp, want, "features", feature_item, NULL, &names);
}

static gdt_status read_features(const gdt__ld *l, const cJSON *o, const char *jp)
{
    return read_feature_names(l, o, "features", jp, gdt__predict_nfeatures(l->family), gdt__predict_feature_name);
}

static const char *ratio_feature_name(gdt_family f, int j) { return gdt__family_desc(f)->ratio_feature_names[j]; }

static gdt_status read_model_plan(const gdt__ld *l, const cJSON *o, const char *jp, int nf, gdt__pred_plan *pp)
{
    static const char *const keys[] = {"plan", "engine_id", "knobs", "is_backend", "cells", "intercept", "slope"};
    gdt_status s = GDT__CHECK_KEYS(l, o, keys, jp);
    if (!s) s = gdt__ld_plan_id(l, o, jp, &pp->id, &pp->is_backend);
    if (!s) gdt__pred_plan_named(pp, &pp->id);
    if (!s) s = gdt__ld_int32(l, o, "cells", jp, 1, &pp->ncells);
    if (!s) s = gdt__ld_num(l, o, "intercept", jp, &pp->intercept);
    if (!s) s = get_nums(l, o, "slope", jp, pp->slope, nf);
    return s;
}

/* Plan i, after plan i - 1 by name (the lookup bisects them); m: the model. */
static gdt_status model_plan(const gdt__ld *l, const cJSON *x, const char *jp, void *plans, int i, void *m)
{
    gdt__pred_plan *v = plans;
    gdt__jpath p;
    gdt_status s = read_model_plan(l, x, jp, ((const gdt__predictor *)m)->nfeatures, &v[i]);
    const char *cur = v[i].name, *prev = i > 0 ? v[i - 1].name : "";
    if (!s && i > 0 && strcmp(prev, cur) >= 0)
        return gdt__ld_bad(l, gdt__jp_key(p, jp, "plan"), "expected plans sorted by name, each once: \"%s\" follows \"%s\"",
                           cur, prev);
    return s;
}

/* Plans sorted by name, each once. */
static gdt_status read_model_plans(const gdt__ld *l, const cJSON *o, const char *jp, gdt__predictor *m)
{
    gdt__jpath pp;
    void *plans = NULL;
    gdt_status s = gdt__ld_records(l, o, "plans", jp, pp, sizeof *m->plans, model_plan, m, &plans, &m->nplans);
    m->plans = plans;
    return s;
}

/* The placement ratio (null: none): its parts and a range lo <= hi per
 * feature. */
static gdt_status read_ratio(const gdt__ld *l, const cJSON *model, const char *jp, gdt__predictor *m)
{
    static const char *const keys[] = {"lambda", "linear", "quadratic", "lo", "hi"};
    static const char *const keys_own[] = {"lambda", "features", "center", "linear", "quadratic", "lo", "hi"};
    const cJSON *o;
    m->nratio = gdt__family_desc(l->family)->nratio_features;
    int nf = m->nratio > 0 ? m->nratio : m->nfeatures;
    gdt__jpath rp, p, q;
    gdt_status s = gdt__ld_sub(l, model, "ratio", jp, &o, rp);
    m->has_ratio = !s && !cJSON_IsNull(o);
    if (s || !m->has_ratio) return s;
    if (!cJSON_IsObject(o)) return gdt__ld_bad(l, rp, "expected an object or null, got %s", gdt_json_type_name(o));
    s = m->nratio ? GDT__CHECK_KEYS(l, o, keys_own, rp) : GDT__CHECK_KEYS(l, o, keys, rp);
    if (!s) s = gdt__ld_num(l, o, "lambda", rp, &m->ratio_lambda);
    if (!s && !(m->ratio_lambda >= 0))
        return gdt__ld_bad(l, gdt__jp_key(p, rp, "lambda"), "expected lambda >= 0, got %g", m->ratio_lambda);
    if (!s && m->nratio) s = read_feature_names(l, o, "features", rp, m->nratio, ratio_feature_name);
    if (!s && m->nratio) s = get_nums(l, o, "center", rp, m->ratio_center, m->nratio);
    if (!s) s = get_nums_per(l, o, "linear", rp, m->ratio, 1 + nf, "the intercept, then one per feature");
    if (!s) s = get_nums_per(l, o, "quadratic", rp, m->ratio + 1 + nf, GDT__RATIO_QUADRATIC(nf),
                             "one per pair of features");
    if (!s) s = get_nums(l, o, "lo", rp, m->ratio_lo, nf);
    if (!s) s = get_nums(l, o, "hi", rp, m->ratio_hi, nf);
    for (int j = 0; !s && j < nf; j++)
        if (!(m->ratio_lo[j] <= m->ratio_hi[j]))
            return gdt__ld_bad(l, gdt__jp_at(q, gdt__jp_key(p, rp, "hi"), j), "expected hi >= lo (%g), got %g",
                               m->ratio_lo[j], m->ratio_hi[j]);
    return s;
}

gdt_status gdt__read_model(const gdt__ld *l, const cJSON *root, gdt_tables *t)
{
    static const char *const keys[] = {"form", "features", "sm_count", "lambda", "noise", "lead", "center",
                                       "shared", "ratio", "interval", "cv", "validation", "plans"};
    static const char *const forms[] = {"log_linear"};
    const char *leads[GDT__LEAD_RULES];
    const cJSON *o;
    gdt__predictor *m = &t->model;
    int form, lead;
    for (int r = 0; r < GDT__LEAD_RULES; r++) leads[r] = gdt__lead_rule_name((gdt__lead_rule)r);
    gdt__jpath p;
    gdt_status s = gdt__ld_node(l, root, "model", "", &o);
    if (s || cJSON_IsNull(o)) return s;
    if (!cJSON_IsObject(o))
        return gdt__ld_bad(l, "/model", "expected an object or null, got %s", gdt_json_type_name(o));
    m->nfeatures = gdt__predict_nfeatures(l->family);
    s = GDT__CHECK_KEYS(l, o, keys, "/model");
    if (!s) s = gdt__ld_names(l, o, "form", "/model", forms, 1, &form);
    if (!s) s = read_features(l, o, "/model");
    if (!s) s = gdt__ld_int32(l, o, "sm_count", "/model", 1, &m->sm_count);
    if (!s) s = gdt__ld_num(l, o, "lambda", "/model", &m->lambda);
    if (!s && !(m->lambda >= 0))
        return gdt__ld_bad(l, gdt__jp_key(p, "/model", "lambda"), "expected lambda >= 0, got %g", m->lambda);
    if (!s) s = gdt__ld_num(l, o, "noise", "/model", &m->noise);
    if (!s && !(m->noise >= 0))
        return gdt__ld_bad(l, gdt__jp_key(p, "/model", "noise"), "expected noise >= 0, got %g", m->noise);
    if (!s) s = gdt__ld_names(l, o, "lead", "/model", leads, GDT__LEAD_RULES, &lead);
    m->lead = s ? GDT__LEAD_RATIO : (gdt__lead_rule)lead;
    if (!s) s = get_nums(l, o, "center", "/model", m->center, m->nfeatures);
    if (!s) s = get_nums(l, o, "shared", "/model", m->shared, m->nfeatures);
    if (!s) s = read_ratio(l, o, "/model", m);
    bool cv_present;
    if (!s) s = read_interval(l, o, "/model", &m->interval);
    if (!s) s = read_figures(l, o, "cv", "/model", false, &m->cv, &cv_present);
    if (!s) s = read_figures(l, o, "validation", "/model", true, &t->validation, &t->has_validation);
    if (!s) s = read_model_plans(l, o, "/model", m);
    for (int i = 0; !s && i < t->np; i++) /* distances are measured to the swept cells */
        if (!gdt__predictor_anchor(m, &t->p[i].facts))
            s = gdt__ld_oom(l);
    t->have_model = !s;
    return s;
}
