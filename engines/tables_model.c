/* The tables' time model (gdt_predict.h) on measured cells: fitted on the
 * swept cells for the writer, scored on cells it did not see (a validation
 * sweep), and its picks and figures read back from loaded tables. */
#include <stdlib.h>
#include <string.h>

#include "gdt_tables_impl.h"

/* Measured cells of f as the model reads them (ours and the backend's
 * plans, as fit_model takes them): c[0..k), src[i] the caller's cell of
 * c[i], at[] mapping a train cell's plans back to the caller's. */
typedef struct model_cells {
    gdt__train_cell *c;
    gdt_measured_plan *kept;
    int *at, *src;
    int k;
} model_cells;

static void model_cells_free(model_cells *mc)
{
    free(mc->c), free(mc->kept), free(mc->at), free(mc->src);
    memset(mc, 0, sizeof *mc);
}

static gdt_status model_cells_of(gdt_family f, int arch, const gdt_measured_cell *cells, int n, model_cells *mc,
                                 gdt_error *e)
{
    int total = 1, used = 0;
    for (int i = 0; i < n; i++) total += cells[i].nplans;
    *mc = (model_cells){calloc((size_t)(n ? n : 1), sizeof *mc->c), calloc((size_t)total, sizeof *mc->kept),
                        calloc((size_t)total, sizeof *mc->at), calloc((size_t)(n ? n : 1), sizeof *mc->src), 0};
    if (!mc->c || !mc->kept || !mc->at || !mc->src) {
        model_cells_free(mc);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables: out of memory");
    }
    for (int i = 0; i < n; i++) {
        if (cells[i].problem.family != f) continue;
        gdt_facts facts;
        gdt__facts_for(&cells[i].problem, arch, &facts);
        gdt__train_cell *tc = &mc->c[mc->k];
        *tc = (gdt__train_cell){facts, mc->kept + used, 0};
        for (int j = 0; j < cells[i].nplans; j++)
            if (gdt_measured_side(&cells[i].plans[j]) != GDT_PLAN_SIDE_LIBRARY)
                mc->at[used] = j, mc->kept[used++] = cells[i].plans[j], tc->nplans++;
        mc->src[mc->k++] = i;
    }
    return GDT_STATUS_OK;
}

/* The model of the swept cells (in key order), its choices weighing the
 * validation cells of f too (val: NULL, none), or none when too few cells
 * to cross-validate (*fitted false). */
static gdt_status fit_model(gdt_family f, int arch, const gdt__cell_work *w, int n, const model_cells *val,
                            gdt__predictor *m, bool *fitted, gdt_error *e)
{
    *fitted = false;
    if (n < GDT__PREDICT_MIN_CELLS) return GDT_STATUS_OK;
    int total = 0;
    for (int i = 0; i < n; i++) total += w[i].c->nplans;
    gdt__train_cell *c = calloc((size_t)n, sizeof *c);
    gdt_measured_plan *kept = calloc((size_t)(total ? total : 1), sizeof *kept), *at = kept;
    if (!c || !kept) {
        free(c), free(kept);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    }
    /* The model predicts ours and the backend (what placement weighs); a
     * library's plans would count as ours in its ratio. */
    for (int i = 0; i < n; i++) {
        c[i] = (gdt__train_cell){w[i].facts, at, 0};
        for (int k = 0; k < w[i].c->nplans; k++)
            if (gdt_measured_side(&w[i].c->plans[k]) != GDT_PLAN_SIDE_LIBRARY) at[c[i].nplans++] = w[i].c->plans[k];
        at += c[i].nplans;
    }
    gdt_status s = gdt__predictor_fit(f, arch, c, n, val ? val->c : NULL, val ? val->k : 0, m, e);
    free(c);
    free(kept);
    *fitted = s == GDT_STATUS_OK;
    return s;
}

/* A pick's plan in the caller's cells: k indexes the train cell's plans,
 * at[] maps them back. */
static const gdt_measured_plan *source_plan(const gdt_measured_cell *mc, const int *at, int k)
{
    return k < 0 ? NULL : &mc->plans[at[k]];
}

static void source_pick(const gdt_measured_cell *mc, const int *at, const gdt__pred_pick *pk, gdt_model_pick *out)
{
    *out = (gdt_model_pick){NULL, pk->lead, pk->ratio, source_plan(mc, at, pk->mode_a), source_plan(mc, at, pk->ours),
                            source_plan(mc, at, pk->backend), source_plan(mc, at, pk->best),
                            source_plan(mc, at, pk->best_ours), source_plan(mc, at, pk->heuristic),
                            pk->first.ours_margin, pk->first.width, pk->first.distance};
}

/* The model's figures on measured cells of f, each planned as a shape no
 * cell covers; picks (may be NULL) receive, per cell of f in order, the
 * picks pointing into cells. */
static gdt_status score_cells(const gdt__predictor *m, gdt_family f, int arch, const gdt_measured_cell *cells,
                              int n, gdt__pred_cv *cv, gdt_model_pick *picks, gdt_error *e)
{
    model_cells mc;
    gdt_status s = model_cells_of(f, arch, cells, n, &mc, e);
    gdt__pred_pick *pk = s ? NULL : calloc((size_t)(mc.k ? mc.k : 1), sizeof *pk);
    if (!s && !pk) s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables: out of memory");
    if (!s) s = gdt__predictor_score(m, mc.c, mc.k, pk, cv, e);
    for (int i = 0; !s && picks && i < mc.k; i++)
        source_pick(&cells[mc.src[i]], mc.at + (mc.c[i].plans - mc.kept), &pk[i], &picks[i]);
    free(pk);
    model_cells_free(&mc);
    return s;
}

gdt_status gdt__model_fit(gdt_family f, int arch, const gdt__cell_work *w, int n, const gdt_measured_cell *validation,
                          int nvalidation, gdt__predictor *m, bool *fitted, gdt__pred_cv *vcv, gdt_error *e)
{
    model_cells val = {0};
    gdt_status s = GDT_STATUS_OK;
    *fitted = false;
    if (validation) s = model_cells_of(f, arch, validation, nvalidation, &val, e);
    if (!s) s = fit_model(f, arch, w, n, validation ? &val : NULL, m, fitted, e);
    model_cells_free(&val);
    if (!s && *fitted && validation) s = score_cells(m, f, arch, validation, nvalidation, vcv, NULL, e);
    return s;
}

bool gdt_tables_model_cv(const gdt_tables *t, gdt_model_cv *out)
{
    memset(out, 0, sizeof *out);
    if (!t || !t->have_model) return false;
    out->ncells = t->model.cv.ncells;
    out->lambda = t->model.lambda;
    out->noise = t->model.noise;
    out->median_abs_error = t->model.cv.err;
    for (int m = 0; m < 2; m++) out->geomean[m] = t->model.cv.geomean[m], out->worst[m] = t->model.cv.worst[m];
    return true;
}

/* The model's training cells from the loaded tuning cells: ours and the
 * backend's plans (as fit_model takes them), at[] their ranking indices. */
static void train_cells(const gdt_tables *t, gdt__train_cell *c, gdt_measured_plan *kept, int *at)
{
    int used = 0;
    for (int i = 0; i < t->nt; i++) {
        c[i] = (gdt__train_cell){t->p[i].facts, kept + used, 0};
        for (int k = 0; k < t->t[i].nranked; k++)
            if (gdt_measured_side(&t->t[i].measured[k]) != GDT_PLAN_SIDE_LIBRARY) {
                at[used] = k;
                kept[used++] = t->t[i].measured[k];
                c[i].nplans++;
            }
    }
}

static const gdt_measured_plan *ranked_at(const gdt__tcell *c, const int *at, int k)
{
    return k < 0 ? NULL : &c->measured[at[k]];
}

gdt_status gdt_tables_model_picks(const gdt_tables *t, gdt_model_pick *out, double *err, gdt_error *e)
{
    if (!t || !t->have_model)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "tables: no time model (fewer than %d cells)",
                             GDT__PREDICT_MIN_CELLS);
    size_t total = 1, nc = t->nt > 0 ? (size_t)t->nt : 1;
    for (int i = 0; i < t->nt; i++) total += (size_t)t->t[i].nranked;
    gdt__train_cell *c = calloc(nc, sizeof *c);
    gdt_measured_plan *kept = calloc(total, sizeof *kept);
    int *at = calloc(total, sizeof *at);
    gdt__pred_pick *pk = calloc(nc, sizeof *pk);
    gdt_status s = c && kept && at && pk ? GDT_STATUS_OK
                                         : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables: out of memory");
    if (!s) train_cells(t, c, kept, at);
    if (!s)
        s = gdt__predictor_picks(t->family, t->arch, c, t->nt, t->model.lambda, t->model.noise, t->model.lead,
                                 t->model.interval.quantile, pk, err, e);
    for (int i = 0; !s && i < t->nt; i++) {
        const int *a = at + (c[i].plans - kept);
        out[i] = (gdt_model_pick){t->t[i].key, pk[i].lead, pk[i].ratio, ranked_at(&t->t[i], a, pk[i].mode_a),
                                  ranked_at(&t->t[i], a, pk[i].ours), ranked_at(&t->t[i], a, pk[i].backend),
                                  ranked_at(&t->t[i], a, pk[i].best), ranked_at(&t->t[i], a, pk[i].best_ours),
                                  ranked_at(&t->t[i], a, pk[i].heuristic), pk[i].first.ours_margin,
                                  pk[i].first.width, pk[i].first.distance};
    }
    free(c), free(kept), free(at), free(pk);
    return s;
}

/* ============================================================ validation */

static void validation_of(const gdt__pred_cv *cv, gdt_model_validation *out)
{
    memset(out, 0, sizeof *out);
    out->ncells = cv->ncells, out->median_abs_error = cv->err, out->slower = cv->slower;
    for (int m = 0; m < 2; m++) out->geomean[m] = cv->geomean[m], out->worst[m] = cv->worst[m];
}

bool gdt_tables_model_validation(const gdt_tables *t, gdt_model_validation *out)
{
    memset(out, 0, sizeof *out);
    if (!t || !t->have_model || !t->has_validation) return false;
    validation_of(&t->validation, out);
    return true;
}

/* The cells of the table's family that it swept. */
static int swept_count(const gdt_tables *t, const gdt_measured_cell *cells, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        gdt__pcell probe;
        if (cells[i].problem.family != t->family) continue;
        gdt_problem_key(&cells[i].problem, probe.key, sizeof probe.key);
        k += bsearch(&probe, t->p, (size_t)t->np, sizeof *t->p, gdt__key_cmp) != NULL;
    }
    return k;
}

gdt_status gdt_tables_validate_file(const char *placement, const gdt_measured_cell *cells, int n,
                                    gdt_model_validation *out, gdt_model_pick *picks, gdt_error *e)
{
    memset(out, 0, sizeof *out);
    if (!placement || n < 0 || (n > 0 && !cells))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_tables_validate_file: missing argument");
    gdt_tables *t = calloc(1, sizeof *t);
    if (!t) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_tables_validate_file: out of memory");
    gdt__table_kind k = GDT__TABLE_TUNING;
    gdt__pred_cv cv;
    gdt_status s = gdt__tables_load_one(placement, -1, 0, &k, t, e);
    if (!s && k != GDT__TABLE_PLACEMENT)
        s = gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s: --validation: expected a placement table (its time "
                          "model), got a tuning table", placement);
    if (!s && !t->have_model)
        s = gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: no time model (fewer than %d cells)", placement,
                          GDT__PREDICT_MIN_CELLS);
    if (!s) s = score_cells(&t->model, t->family, t->arch, cells, n, &cv, picks, e);
    if (!s) validation_of(&cv, out), out->swept = swept_count(t, cells, n);
    gdt_tables_destroy(t);
    return s;
}
