/* The tables' time model evaluated (gdt_predict.h): a plan's predicted
 * time, the placement ratio, the lead rule, the ranking rule on predicted
 * times and the backend's block.  The fit (predict.c) and the lead's
 * interval (predict_interval.c) build on these; nothing here calls them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_predict.h"


void gdt__pred_plan_named(gdt__pred_plan *pp, const gdt_plan_id *id)
{
    pp->id = *id;
    gdt_plan_id_normalize(&pp->id);
    gdt_plan_id_format(&pp->id, pp->name, sizeof pp->name);
}

/* By name, formatted once per plan: the fit looks plans up for every
 * measured time of every fold. */
int gdt__pred_plan_cmp(const void *a, const void *b)
{
    return strcmp(((const gdt__pred_plan *)a)->name, ((const gdt__pred_plan *)b)->name);
}

const gdt__pred_plan *gdt__predictor_find(const gdt__predictor *p, const gdt_plan_id *id)
{
    if (!p || !p->nplans) return NULL;
    gdt__pred_plan probe;
    gdt__pred_plan_named(&probe, id);
    return bsearch(&probe, p->plans, (size_t)p->nplans, sizeof *p->plans, gdt__pred_plan_cmp);
}

int gdt__predict_nfeatures(gdt_family f) { return gdt__family_desc(f)->nfeatures + 1; }

const char *gdt__predict_feature_name(gdt_family f, int j)
{
    const gdt_family_desc *d = gdt__family_desc(f);
    return j < d->nfeatures ? d->feature_names[j] : "log_flops";
}

/* The family's features count the work paid (padding and idle tails
 * included), a split-K plan's over the slices it runs; the useful flops
 * beside them let the fit tell that waste from the work itself. */
void gdt__predict_features(gdt_family fam, const gdt_facts *f, const gdt_plan_id *id, int sms, double *phi)
{
    const gdt_family_desc *d = gdt__family_desc(fam);
    gdt_facts run;
    gdt__facts_split_k(f, gdt_plan_id_knob(id, GDT_KNOB_SPLIT_K, 1), &run);
    d->features(&run, id, sms, phi);
    phi[d->nfeatures] = log(f->flops > 1 ? f->flops : 1);
}

double gdt__predict_rel(const gdt__predictor *p) { return p->noise * p->cv.err; }

bool gdt__predict_time(const gdt__predictor *p, const gdt_facts *f, const gdt_plan_id *id, double *t_us)
{
    const gdt__pred_plan *pp = gdt__predictor_find(p, id);
    if (!pp) return false;
    double phi[GDT__PRED_FEATURES_MAX], y = pp->intercept;
    gdt__predict_features(f->family, f, id, p->sm_count, phi);
    for (int j = 0; j < p->nfeatures; j++) y += (p->shared[j] + pp->slope[j]) * (phi[j] - p->center[j]);
    *t_us = exp(y);
    return isfinite(*t_us);
}

/* The backend's plans carry no tile knobs: its features use the defaults. */
static const gdt_plan_id no_knobs = {.engine_id = -1};

void gdt__predict_default_features(const gdt__predictor *p, const gdt_facts *f, double *phi)
{
    gdt__predict_features(f->family, f, &no_knobs, p->sm_count, phi);
}

/* The placement ratio's features of f (the family's own, else the model's
 * at the backend's default tiles); returns their number. */
int gdt__predict_ratio_features(const gdt__predictor *p, const gdt_facts *f, double *phi)
{
    double model[GDT__PRED_FEATURES_MAX];
    if (p->nratio <= 0) {
        gdt__predict_features(f->family, f, &no_knobs, p->sm_count, phi);
        return p->nfeatures;
    }
    gdt__predict_features(f->family, f, &no_knobs, p->sm_count, model);
    gdt__family_desc(f->family)->ratio_features(f, model, phi);
    return p->nratio;
}

int gdt__predict_ratio_nf(const gdt__predictor *p) { return p->nratio > 0 ? p->nratio : p->nfeatures; }

static double ratio_center(const gdt__predictor *p, int j) { return p->nratio > 0 ? p->ratio_center[j] : p->center[j]; }

/* The placement ratio's terms of its features phi: 1, the centred
 * features, then their products two by two, each feature clamped to the
 * fitted cells' range first (a curvature is not extrapolated). */
int gdt__predict_ratio_terms(const gdt__predictor *p, const double *phi, double *x)
{
    int nf = gdt__predict_ratio_nf(p), n = 0;
    double q[GDT__RATIO_NF_MAX];
    x[n++] = 1;
    for (int j = 0; j < nf; j++) x[n++] = phi[j] - ratio_center(p, j);
    for (int j = 0; j < nf; j++) q[j] = fmin(fmax(phi[j], p->ratio_lo[j]), p->ratio_hi[j]) - ratio_center(p, j);
    for (int i = 0; i < nf; i++)
        for (int j = i; j < nf; j++) x[n++] = q[i] * q[j];
    return n;
}

bool gdt__predict_ratio(const gdt__predictor *p, const gdt_facts *f, double *ratio)
{
    double phi[GDT__RATIO_NF_MAX], x[GDT__RATIO_MAX], y = 0;
    if (!p->has_ratio) return false;
    gdt__predict_ratio_features(p, f, phi);
    int n = gdt__predict_ratio_terms(p, phi, x);
    for (int j = 0; j < n; j++) y += p->ratio[j] * x[j];
    *ratio = exp(y);
    return isfinite(*ratio);
}

const char *gdt__lead_rule_name(gdt__lead_rule r)
{
    return r == GDT__LEAD_DIRECT ? "direct" : "ratio";
}

bool gdt__predict_lead(const gdt__predictor *p, gdt__lead_rule rule, const gdt_facts *f, double ours_us,
                       double block_us, double rel, double *ratio)
{
    if (rule == GDT__LEAD_DIRECT && isfinite(ours_us) && isfinite(block_us) && block_us > 0)
        *ratio = ours_us / block_us;
    else if (!gdt__predict_ratio(p, f, ratio))
        *ratio = NAN;
    return !isnan(ours_us) && !isnan(*ratio) && gdt__predict_beats(*ratio, 1.0, rel);
}

bool gdt__predict_beats(double a, double b, double rel)
{
    return a < b && b - a > 0.5 * rel * (a + b);
}

void gdt__predict_rank(const double *t, int n, double rel, int *order)
{
    for (int i = 0; i < n; i++) order[i] = i;
    for (int k = 0; k < n; k++) {
        int fast = k, pick = k;
        for (int i = k + 1; i < n; i++)
            if (t[order[i]] < t[order[fast]]) fast = i;
        double w = t[order[fast]];
        for (int i = k; i < n; i++) {
            bool q_out = gdt__predict_beats(w, t[order[pick]], rel), p_in = !gdt__predict_beats(w, t[order[i]], rel);
            if (p_in && (q_out || order[i] < order[pick])) pick = i;
        }
        int x = order[k];
        order[k] = order[pick];
        order[pick] = x;
    }
}

static bool block_known(const gdt__predictor *p, const gdt_plan_id *id)
{
    const gdt__pred_plan *pp = gdt__predictor_find(p, id);
    return pp && pp->is_backend && pp->ncells >= GDT__PREDICT_BLOCK_CELLS;
}

static bool block_time(const gdt__predictor *p, const gdt_facts *f, const gdt_plan_id *id, double *t_us)
{
    return block_known(p, id) && gdt__predict_time(p, f, id, t_us);
}

static bool listed(const gdt_plan_id *v, int n, const gdt_plan_id *id)
{
    for (int i = 0; i < n; i++)
        if (gdt_plan_id_equal(&v[i], id)) return true;
    return false;
}

/* Many of the heuristic's configs were measured in one cell only: their
 * intercept is that one time, so they keep the heuristic's place. */
int gdt__predict_block(const gdt__predictor *p, const gdt_facts *f, double rel, const gdt_plan_id *heur, int nh,
                       gdt_plan_id *out)
{
    int n = 0, nk = 0, cap = nh + p->nplans;
    for (int i = 0; i < nh; i++) out[n++] = heur[i];
    for (int j = 0; j < p->nplans; j++)
        if (block_known(p, &p->plans[j].id) && !listed(heur, nh, &p->plans[j].id)) out[n++] = p->plans[j].id;
    double *t = malloc((size_t)(cap ? cap : 1) * sizeof *t);
    int *pos = malloc((size_t)(cap ? cap : 1) * sizeof *pos), *order = malloc((size_t)(cap ? cap : 1) * sizeof *order);
    gdt_plan_id *moved = malloc((size_t)(cap ? cap : 1) * sizeof *moved);
    if (t && pos && order && moved) {
        for (int i = 0; i < n; i++)
            if (block_time(p, f, &out[i], &t[nk])) pos[nk++] = i;
        gdt__predict_rank(t, nk, rel, order);
        for (int k = 0; k < nk; k++) moved[k] = out[pos[order[k]]];
        for (int k = 0; k < nk; k++) out[pos[k]] = moved[k];
    } else {
        n = -1;
    }
    free(t), free(pos), free(order), free(moved);
    return n;
}
