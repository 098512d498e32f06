/* The lead's interval (gdt_predict.h): how far the time model's predicted
 * lead over the backend's heuristic first can be wrong at a distance from
 * the swept cells, calibrated on the cross-validation's residuals, and the
 * first-place decision of mode A on a shape no cell covers that uses it.
 * The heuristic's first is what mode A ran before the tables existed: a
 * plan goes ahead of it only when predicted faster beyond that error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_predict.h"
#include "gdt_util.h"

bool gdt__predictor_anchor(gdt__predictor *p, const gdt_facts *f)
{
    void *v = realloc(p->anchors, (size_t)(p->nanchors + 1) * sizeof *p->anchors);
    if (!v) return false;
    p->anchors = v;
    gdt__predict_default_features(p, f, p->anchors[p->nanchors++]);
    return true;
}

double gdt__predict_distance(const gdt__predictor *p, const gdt_facts *f)
{
    double phi[GDT__PRED_FEATURES_MAX], best = INFINITY;
    gdt__predict_default_features(p, f, phi);
    for (int i = 0; i < p->nanchors; i++) {
        double d = 0;
        for (int j = 0; j < p->nfeatures; j++) d += (phi[j] - p->anchors[i][j]) * (phi[j] - p->anchors[i][j]);
        best = fmin(best, sqrt(d));
    }
    return best;
}

double gdt__predict_width(const gdt__predictor *p, double distance, gdt__lead_kind kind)
{
    const gdt__pred_interval *iv = &p->interval;
    if (iv->n[kind] <= 0 || !isfinite(distance)) return INFINITY;
    return iv->scale[kind] * (1 + (iv->dref > 0 ? distance / iv->dref : 0));
}

/* The widest first: a tie in the choice keeps the more careful. */
const double gdt__lead_quantiles[GDT__LEAD_NQUANTILES] = {1, 0.95, 0.9, 0.75, 0.5};

bool gdt__lead_quantile_known(double q)
{
    for (int i = 0; i < GDT__LEAD_NQUANTILES; i++)
        if (q == gdt__lead_quantiles[i]) return true;
    return false;
}

/* Per kind, the smallest scaled residual with at least q of them at or
 * below it, at least 0. */
void gdt__interval_calibrate(const gdt__lead_residual *r, int n, int skip, double dref, double q,
                             gdt__pred_interval *out)
{
    double *s = malloc((size_t)(n ? n : 1) * sizeof *s);
    memset(out, 0, sizeof *out);
    out->dref = dref;
    out->quantile = q;
    for (int kind = 0; s && kind < GDT__LEAD_KINDS; kind++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (r[i].kind == (gdt__lead_kind)kind && r[i].cell != skip && !isnan(r[i].resid) && isfinite(r[i].dist))
                s[m++] = r[i].resid / (1 + (dref > 0 ? r[i].dist / dref : 0));
        if (m == 0) continue;
        gdt_sort_doubles(s, m);
        int k = (int)ceil(q * m - 1e-9) - 1;
        out->n[kind] = m;
        out->scale[kind] = fmax(0, s[k < 0 ? 0 : k]);
    }
    free(s);
}

/* Our first plan's predicted ratio to the heuristic's first by the lead
 * rule: the two predicted times (direct, both known), else the placement
 * ratio's own fit; NaN: none. */
static double ours_over_heuristic(const gdt__predictor *p, const gdt_facts *f, double ours_us, double heur_us)
{
    double r;
    if (isnan(ours_us)) return NAN;
    if (p->lead == GDT__LEAD_DIRECT && isfinite(heur_us) && heur_us > 0) return ours_us / heur_us;
    return gdt__predict_ratio(p, f, &r) ? r : NAN;
}

void gdt__predict_first(const gdt__predictor *p, const gdt_facts *f, double ours_us, double heur_us,
                        double block_us, bool moved, double rel, gdt__first *out)
{
    memset(out, 0, sizeof *out);
    out->distance = gdt__predict_distance(p, f);
    out->width = gdt__predict_width(p, out->distance, GDT__LEAD_OURS);
    out->block_width = gdt__predict_width(p, out->distance, GDT__LEAD_BLOCK);
    out->block_margin = moved && isfinite(heur_us) && isfinite(block_us) && block_us > 0 ? log(heur_us / block_us)
                                                                                      : NAN;
    out->ranked = !moved || out->block_margin > out->block_width;
    double first_us = out->ranked ? block_us : heur_us;
    bool lead = gdt__predict_lead(p, p->lead, f, ours_us, first_us, rel, &out->ratio);
    out->ours_margin = -log(ours_over_heuristic(p, f, ours_us, heur_us));
    out->lead = lead && out->ours_margin > out->width;
}
