/* What the planner reads from loaded tables: a swept cell or the shard a
 * shape falls in, a plan's measured or predicted time, the model's order
 * and lead. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_tables_impl.h"
#include "gdt_tables_lookup.h"

static bool in_shard(const gdt__shard *s, double metric)
{
    return (!s->has_lo || metric >= s->lo) && (!s->has_hi || metric < s->hi);
}

bool gdt_tables_lookup(const gdt_tables *t, const gdt_facts *f, gdt_cell_decision *out)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->noise = NAN;
    /* Measurements of one arch say nothing about another. */
    if (!t || !f || f->family != t->family || f->device.arch != t->arch) return false;
    gdt__tcell probe;
    gdt_problem_key(&f->problem, probe.key, sizeof probe.key);
    const gdt__tcell *c = bsearch(&probe, t->t, (size_t)t->nt, sizeof *t->t, gdt__key_cmp);
    const gdt__pcell *p = c ? bsearch(probe.key, t->p, (size_t)t->np, sizeof *t->p, gdt__key_cmp) : NULL;
    if (c && p) {
        out->measured = true;
        out->lead = p->lead;
        if (p->has_ratio) out->ratio = p->ratio, out->noise = p->noise;
        out->nranked = c->nranked;
        out->ranked = c->ranked;
        out->ranked_is_backend = c->is_backend;
        out->backend_pos = c->backend_pos;
        out->fallback = c->has_fallback ? &c->fallback : NULL;
        return true;
    }
    gdt__shard_group g;
    gdt__group_of(f, &g);
    double metric = gdt__metric_of(f);
    for (int i = 0; i < t->ns; i++) {
        const gdt__shard *s = &t->s[i];
        if (!gdt__group_equal(&s->g, &g) || !in_shard(s, metric)) continue;
        out->lead = s->lead;
        if (s->has_ratio) out->ratio = s->ratio, out->noise = s->noise;
        return true;
    }
    return false;
}

const gdt_provenance *gdt_tables_provenance(const gdt_tables *t)
{
    return t && t->have_prov ? &t->prov : NULL;
}

gdt_family gdt_tables_family(const gdt_tables *t) { return t->family; }

int gdt_tables_arch(const gdt_tables *t) { return t->arch; }

int gdt_tables_ncells(const gdt_tables *t) { return t ? t->nt : 0; }

/* A load pairs the files cell by cell (tables_read.c), both sorted by key:
 * index i is one cell in both. */
bool gdt_tables_cell(const gdt_tables *t, int i, gdt_table_cell *out)
{
    memset(out, 0, sizeof *out);
    if (!t || i < 0 || i >= t->nt || i >= t->np) return false;
    const gdt__tcell *c = &t->t[i];
    const gdt__pcell *p = &t->p[i];
    out->key = c->key;
    out->lead = p->lead;
    out->has_ratio = p->has_ratio;
    out->ratio = p->has_ratio ? p->ratio : NAN;
    out->noise = p->has_ratio ? p->noise : NAN;
    out->nranked = c->nranked;
    out->ranked = c->measured;
    out->backend_pos = c->backend_pos;
    return true;
}

/* ========================================================== time model */

/* The swept cell nearest f in the model's features of the backend's
 * default tiles (every cell has them). */
static void nearest_cell(const gdt_tables *t, const gdt_facts *f, char *out, size_t n)
{
    static const gdt_plan_id none = {.engine_id = -1};
    const gdt_family_desc *d = gdt__family_desc(t->family);
    double x[GDT__FEATURES_MAX], y[GDT__FEATURES_MAX], best = INFINITY;
    d->features(f, &none, t->model.sm_count, x);
    out[0] = 0;
    for (int i = 0; i < t->np; i++) {
        double dist = 0;
        d->features(&t->p[i].facts, &none, t->model.sm_count, y);
        for (int j = 0; j < d->nfeatures; j++) dist += (x[j] - y[j]) * (x[j] - y[j]);
        if (dist < best) best = dist, snprintf(out, n, "%s", t->p[i].key);
    }
}

bool gdt_tables_group_swept(const gdt_tables *t, const gdt_facts *f)
{
    gdt__shard_group want, g;
    if (!t || !f || f->family != t->family) return false;
    gdt__group_of(f, &want);
    for (int i = 0; i < t->np; i++) {
        gdt__group_of(&t->p[i].facts, &g);
        if (gdt__group_equal(&g, &want)) return true;
    }
    return false;
}

const char *gdt_tables_group_field(gdt_family f, int i)
{
    const gdt_family_desc *d = (unsigned)f < GDT_FAMILY_COUNT ? gdt__family_desc(f) : NULL;
    return d && i >= 0 && i < d->ngroup_fields ? d->group_fields[i].name : NULL;
}

static bool model_for(const gdt_tables *t, const gdt_facts *f)
{
    return t && f && t->have_model && f->family == t->family && f->device.arch == t->arch;
}

static const gdt__tcell *swept_cell(const gdt_tables *t, const gdt_facts *f)
{
    gdt__tcell probe;
    gdt_problem_key(&f->problem, probe.key, sizeof probe.key);
    return bsearch(&probe, t->t, (size_t)t->nt, sizeof *t->t, gdt__key_cmp);
}

void gdt_tables_plan_time(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *id, gdt_plan_time *out)
{
    memset(out, 0, sizeof *out);
    out->time_us = out->error = NAN;
    if (!t || !f || !id || f->family != t->family || f->device.arch != t->arch) return;
    gdt_plan_id norm = *id;
    gdt_plan_id_normalize(&norm);
    const gdt__tcell *c = swept_cell(t, f);
    for (int i = 0; c && i < c->nranked; i++)
        if (gdt_plan_id_equal(&c->ranked[i], &norm)) {
            out->source = GDT_TIME_MEASURED;
            out->time_us = c->measured[i].time_us;
            out->error = c->measured[i].noise;
            return;
        }
    const gdt__pred_plan *pp = model_for(t, f) ? gdt__predictor_find(&t->model, &norm) : NULL;
    if (!pp || !gdt__predict_time(&t->model, f, &norm, &out->time_us)) {
        out->time_us = NAN;
        return;
    }
    out->source = GDT_TIME_PREDICTED;
    out->error = t->model.cv.err;
    out->ncells = pp->ncells;
    nearest_cell(t, f, out->nearest, sizeof out->nearest);
}

bool gdt_tables_predict_order(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *ids, int n,
                              int *order, bool *lead)
{
    if (!model_for(t, f) || n <= 0) return false;
    double *v = malloc((size_t)n * sizeof *v);
    int *known = malloc((size_t)n * sizeof *known), *rank = malloc((size_t)n * sizeof *rank), nk = 0, k = 0;
    bool ok = v && known && rank;
    for (int i = 0; ok && i < n; i++)
        if (gdt__predict_time(&t->model, f, &ids[i], &v[nk])) known[nk++] = i;
    ok = ok && nk > 0;
    if (ok) {
        gdt__predict_rank(v, nk, gdt__predict_rel(&t->model), rank);
        for (int i = 0; i < nk; i++) order[k++] = known[rank[i]];
        for (int i = 0, j = 0; i < n; i++) {
            if (j < nk && known[j] == i) { j++; continue; }
            order[k++] = i;
        }
        if (lead) *lead = gdt__tables_lead(t, f, &ids[order[0]], NULL);
    }
    free(v), free(known), free(rank);
    return ok;
}

/* The model's predicted time of id on f; NaN when id is NULL or unknown. */
static double predicted_us(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *id)
{
    double us;
    return id && gdt__predict_time(&t->model, f, id, &us) ? us : NAN;
}

bool gdt__tables_first(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *ours_first,
                       const gdt_plan_id *heur_first, const gdt_plan_id *block_first, gdt__first *out)
{
    memset(out, 0, sizeof *out);
    out->ranked = true, out->ratio = out->ours_margin = out->block_margin = NAN;
    if (!model_for(t, f)) return false;
    bool moved = heur_first && block_first && !gdt_plan_id_equal(heur_first, block_first);
    gdt__predict_first(&t->model, f, predicted_us(t, f, ours_first), predicted_us(t, f, heur_first),
                       predicted_us(t, f, block_first), moved, gdt__predict_rel(&t->model), out);
    return true;
}

bool gdt__tables_lead(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *ours_first,
                      const gdt_plan_id *block_first)
{
    gdt__first first;
    double us;
    if (!model_for(t, f) || !ours_first || !gdt__predict_time(&t->model, f, ours_first, &us)) return false;
    return gdt__tables_first(t, f, ours_first, block_first, block_first, &first) && first.lead;
}

bool gdt__tables_backend_block(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *heur, int nh,
                               gdt_plan_id **out, int *n)
{
    *out = NULL, *n = 0;
    if (!model_for(t, f) || nh < 0) return false;
    gdt_plan_id *v = malloc((size_t)(nh + t->model.nplans + 1) * sizeof *v);
    int k = v ? gdt__predict_block(&t->model, f, gdt__predict_rel(&t->model), heur, nh, v) : -1;
    if (k < 0) {
        free(v);
        return false;
    }
    *out = v, *n = k;
    return true;
}
