/* The tables' time model (gdt_predict.h): a ridge least-squares fit of log
 * time on the family's features and the log of the useful flops, one
 * intercept per plan, slopes shared and per plan, lambda and the ranking
 * rule's width chosen by leave-one-cell-out cross-validation.  Every
 * loop runs in a fixed order over the cells and plans it is given, so one
 * journal fits one model, byte for byte. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_predict.h"
#include "gdt_util.h"

/* Candidate blends, from one law per plan to one shared law. */
static const double lambdas[] = {0.01, 0.1, 1, 10, 100, 10000};
#define NLAMBDAS (int)(sizeof lambdas / sizeof lambdas[0])
/* Candidate widths of the ranking rule, in units of the model's error:
 * the widest first, so that a tie keeps more of the untimed order. */
static const double noises[] = {4, 2, 1, 0.5, 0.25, 0};
#define NNOISES (int)(sizeof noises / sizeof noises[0])
/* Keeps the shared slopes and intercepts solvable when a feature does not
 * vary over the cells. */
#define RIDGE_FLOOR 1e-8

int gdt__predict_sm_count(int arch)
{
    static const struct { int arch, sms; } known[] = {{80, 108}, {90, 132}, {100, 148}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].arch == arch) return known[i].sms;
    return 132;
}

void gdt__predictor_clear(gdt__predictor *p)
{
    if (!p) return;
    free(p->plans);
    free(p->anchors);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------------ fit */

/* In-place Cholesky solve of the n x n SPD system a x = b (b becomes x). */
static bool solve_spd(double *a, double *b, int n)
{
    for (int j = 0; j < n; j++) {
        double d = a[j * n + j];
        for (int k = 0; k < j; k++) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0)) return false;
        a[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double s = a[i * n + j];
            for (int k = 0; k < j; k++) s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / a[j * n + j];
        }
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < i; k++) b[i] -= a[i * n + k] * b[k];
        b[i] /= a[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k < n; k++) b[i] -= a[k * n + i] * b[k];
        b[i] /= a[i * n + i];
    }
    return true;
}

/* The distinct plans of the cells but skip, sorted by name, with the
 * number of cells each was measured in. */
static gdt_status gather_plans(const gdt__train_cell *c, int n, int skip, gdt__predictor *m, gdt_error *e)
{
    int cap = 0;
    for (int i = 0; i < n; i++) cap += i == skip ? 0 : c[i].nplans;
    m->plans = calloc((size_t)(cap ? cap : 1), sizeof *m->plans);
    if (!m->plans) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
    for (int i = 0; i < n; i++)
        for (int k = 0; i != skip && k < c[i].nplans; k++) {
            int j = 0;
            while (j < m->nplans && !gdt_plan_id_equal(&m->plans[j].id, &c[i].plans[k].id)) j++;
            if (j == m->nplans) {
                gdt__pred_plan_named(&m->plans[j], &c[i].plans[k].id);
                m->plans[j].is_backend = c[i].plans[k].is_backend;
                m->nplans++;
            }
            m->plans[j].ncells++;
        }
    qsort(m->plans, (size_t)m->nplans, sizeof *m->plans, gdt__pred_plan_cmp);
    return GDT_STATUS_OK;
}

static void set_center(const gdt__train_cell *c, int n, int skip, gdt_family fam, gdt__predictor *m)
{
    double phi[GDT__PRED_FEATURES_MAX];
    int rows = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; i != skip && k < c[i].nplans; k++, rows++) {
            gdt__predict_features(fam, &c[i].facts, &c[i].plans[k].id, m->sm_count, phi);
            for (int j = 0; j < m->nfeatures; j++) m->center[j] += phi[j];
        }
    for (int j = 0; j < m->nfeatures; j++) m->center[j] /= rows ? rows : 1;
}

/* Adds one measurement to the normal equations: its nonzero columns are
 * the shared slopes, its plan's intercept and its plan's slopes. */
static void accumulate(double *a, double *b, int ncol, const int *col, const double *x, int nx, double y)
{
    for (int r = 0; r < nx; r++) {
        b[col[r]] += x[r] * y;
        for (int s = 0; s < nx; s++) a[col[r] * ncol + col[s]] += x[r] * x[s];
    }
}

static gdt_status solve_model(const gdt__train_cell *c, int n, int skip, gdt_family fam, gdt__predictor *m,
                              gdt_error *e)
{
    int nf = m->nfeatures, per = 1 + nf, ncol = nf + m->nplans * per;
    double *a = calloc((size_t)ncol * (size_t)ncol, sizeof *a), *b = calloc((size_t)ncol, sizeof *b);
    if (!a || !b) {
        free(a), free(b);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; i != skip && k < c[i].nplans; k++) {
            const gdt_measured_plan *mp = &c[i].plans[k];
            int p = (int)(gdt__predictor_find(m, &mp->id) - m->plans), col[1 + 2 * GDT__PRED_FEATURES_MAX];
            double phi[GDT__PRED_FEATURES_MAX], x[1 + 2 * GDT__PRED_FEATURES_MAX];
            gdt__predict_features(fam, &c[i].facts, &mp->id, m->sm_count, phi);
            col[0] = nf + p * per, x[0] = 1;
            for (int j = 0; j < nf; j++) {
                col[1 + j] = j, x[1 + j] = phi[j] - m->center[j];
                col[1 + nf + j] = nf + p * per + 1 + j, x[1 + nf + j] = phi[j] - m->center[j];
            }
            accumulate(a, b, ncol, col, x, 1 + 2 * nf, log(mp->time_us));
        }
    for (int j = 0; j < ncol; j++) {
        bool slope = j >= nf && (j - nf) % per != 0;
        a[j * ncol + j] += slope ? m->lambda : RIDGE_FLOOR;
    }
    bool ok = solve_spd(a, b, ncol);
    for (int j = 0; ok && j < nf; j++) m->shared[j] = b[j];
    for (int p = 0; ok && p < m->nplans; p++) {
        m->plans[p].intercept = b[nf + p * per];
        for (int j = 0; j < nf; j++) m->plans[p].slope[j] = b[nf + p * per + 1 + j];
    }
    free(a), free(b);
    return ok ? GDT_STATUS_OK
              : gdt_error_set(e, GDT_STATUS_BAD_INPUT, "time model: the least-squares system is singular");
}

/* The backend block's head: its mode-A heuristic's first plan. */
static int heuristic_first(const gdt__train_cell *c)
{
    int best = -1;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int k = 0; k < c->nplans; k++) {
            const gdt_measured_plan *p = &c->plans[k];
            if (!p->is_backend || (pass == 0 && p->mode != GDT_MODE_A)) continue;
            if (best < 0 || p->untimed_position < c->plans[best].untimed_position) best = k;
        }
    return best;
}

/* log(best ours / the backend's heuristic first) of one cell: on a shape
 * no cell covers, the BACKEND marker runs the heuristic's first plan, not
 * the best one a sweep found.  false when a side measured nothing. */
static bool cell_log_ratio(const gdt__train_cell *c, double *y)
{
    double ours = INFINITY;
    int h = heuristic_first(c);
    for (int k = 0; k < c->nplans; k++)
        if (!c->plans[k].is_backend) ours = fmin(ours, c->plans[k].time_us);
    *y = h < 0 ? INFINITY : log(ours / c->plans[h].time_us);
    return isfinite(*y);
}

/* One cell as the ratio reads it: its features and log ratio (ok false:
 * no ratio, or the cell left out). */
typedef struct ratio_row {
    double phi[GDT__RATIO_NF_MAX], y;
    bool ok;
} ratio_row;

static void ratio_rows(const gdt__train_cell *c, int n, int skip, const gdt__predictor *m, ratio_row *r)
{
    for (int i = 0; i < n; i++) {
        r[i].ok = i != skip && cell_log_ratio(&c[i], &r[i].y);
        if (r[i].ok) gdt__predict_ratio_features(m, &c[i].facts, r[i].phi);
    }
}

/* The range of the ratio's features over the rows it is fitted on (all
 * but leave), and where they are the family's own, their means; false
 * when no row has a ratio. */
static bool ratio_range(const ratio_row *r, int n, int leave, gdt__predictor *m)
{
    int nf = gdt__predict_ratio_nf(m), k = 0;
    memset(m->ratio_center, 0, sizeof m->ratio_center);
    for (int i = 0; i < n; i++) {
        if (i == leave || !r[i].ok) continue;
        for (int j = 0; j < nf; j++) {
            m->ratio_lo[j] = k ? fmin(m->ratio_lo[j], r[i].phi[j]) : r[i].phi[j];
            m->ratio_hi[j] = k ? fmax(m->ratio_hi[j], r[i].phi[j]) : r[i].phi[j];
        }
        for (int j = 0; j < m->nratio; j++) m->ratio_center[j] += r[i].phi[j];
        k++;
    }
    for (int j = 0; k && j < m->nratio; j++) m->ratio_center[j] /= k;
    return k > 0;
}

/* The placement ratio's own small fit on the rows but leave: its features,
 * their products two by two (where ours and the backend cross over depends
 * on the shape's facts together: sdpa_fwd's handwritten kernel leads at d
 * 128 and long sequences only), ridged by m->ratio_lambda on everything
 * but the intercept. */
static void solve_ratio_rows(const ratio_row *r, int n, int leave, gdt__predictor *m)
{
    int nc = GDT__RATIO_TERMS(gdt__predict_ratio_nf(m)), col[GDT__RATIO_MAX];
    double a[GDT__RATIO_MAX * GDT__RATIO_MAX] = {0}, b[GDT__RATIO_MAX] = {0}, x[GDT__RATIO_MAX];
    m->has_ratio = ratio_range(r, n, leave, m);
    if (!m->has_ratio) return;
    for (int j = 0; j < nc; j++) col[j] = j;
    for (int i = 0; i < n; i++) {
        if (i == leave || !r[i].ok) continue;
        gdt__predict_ratio_terms(m, r[i].phi, x);
        accumulate(a, b, nc, col, x, nc, r[i].y);
    }
    for (int j = 0; j < nc; j++) a[j * nc + j] += j ? m->ratio_lambda : RIDGE_FLOOR;
    m->has_ratio = solve_spd(a, b, nc);
    for (int j = 0; m->has_ratio && j < nc; j++) m->ratio[j] = b[j];
}

/* The squared held-out errors of the ratio's log at ridge rl, each row
 * predicted by the ratio of the others: *sse their sum, *sq2 the sum of
 * their squares; returns how many. */
static int ratio_errors(const ratio_row *r, int n, const gdt__predictor *m, double rl, double *sse, double *sq2)
{
    int used = 0;
    double x[GDT__RATIO_MAX];
    *sse = *sq2 = 0;
    for (int i = 0; i < n; i++) {
        if (!r[i].ok) continue;
        gdt__predictor t = *m;
        t.ratio_lambda = rl;
        solve_ratio_rows(r, n, i, &t);
        if (!t.has_ratio) continue;
        int k = gdt__predict_ratio_terms(&t, r[i].phi, x);
        double y = 0;
        for (int j = 0; j < k; j++) y += t.ratio[j] * x[j];
        double p = exp(y);
        if (!isfinite(p)) continue;
        double e2 = (log(p) - r[i].y) * (log(p) - r[i].y);
        *sse += e2, *sq2 += e2 * e2, used++;
    }
    return used;
}

/* The ratio's ridge for the rows: the largest candidate lambda whose
 * held-out error (each cell's log ratio predicted by the ratio of the
 * others) is within one standard error of the smallest (the one-standard-
 * error rule); NaN when none has an error (the plans' lambda then).  The ratio is a small fit
 * of its own (a dozen terms on a few dozen cells) beside the plans'
 * (thousands of times), so it need not share their lambda; the rule keeps
 * it from following the grid's noise into a curvature off the grid. */
static double ratio_ridge(const ratio_row *r, int n, const gdt__predictor *m)
{
    double mse[NLAMBDAS], se[NLAMBDAS], best = INFINITY, sse, sq2;
    int at = -1;
    for (int l = 0; l < NLAMBDAS; l++) {
        int k = ratio_errors(r, n, m, lambdas[l], &sse, &sq2);
        mse[l] = k ? sse / k : INFINITY;
        se[l] = k > 1 ? sqrt(fmax(0, sq2 / k - mse[l] * mse[l]) / (k - 1)) : 0;
        if (mse[l] < best) best = mse[l], at = l;
    }
    if (at < 0) return NAN;
    for (int l = NLAMBDAS - 1; l > at; l--)
        if (mse[l] <= mse[at] + se[at]) return lambdas[l];
    return lambdas[at];
}

/* The ratio of the cells but skip: its ridge (*memo when not NaN: it
 * depends on the cells and skip alone, not on the plans' lambda; else
 * chosen and kept there), then its fit; false out of memory. */
static bool solve_ratio(const gdt__train_cell *c, int n, int skip, gdt__predictor *m, double *memo)
{
    ratio_row *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    if (!r) return false;
    ratio_rows(c, n, skip, m, r);
    double rl = memo && !isnan(*memo) ? *memo : ratio_ridge(r, n, m);
    if (memo) *memo = rl;
    m->ratio_lambda = isnan(rl) ? m->lambda : rl;
    solve_ratio_rows(r, n, -1, m);
    free(r);
    return true;
}

/* The model of all cells but skip (-1: all); memo: solve_ratio's (NULL:
 * none). */
static gdt_status fit_one(gdt_family fam, int sms, const gdt__train_cell *c, int n, int skip, double lambda,
                          double *memo, gdt__predictor *m, gdt_error *e)
{
    memset(m, 0, sizeof *m);
    m->sm_count = sms;
    m->nfeatures = gdt__predict_nfeatures(fam);
    m->nratio = gdt__family_desc(fam)->nratio_features;
    m->lambda = lambda;
    gdt_status s = gather_plans(c, n, skip, m, e);
    if (!s) set_center(c, n, skip, fam, m);
    if (!s) s = solve_model(c, n, skip, fam, m, e);
    if (!s && !solve_ratio(c, n, skip, m, memo)) s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
    for (int i = 0; !s && i < n; i++)
        if (i != skip && !gdt__predictor_anchor(m, &c[i].facts))
            s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
    if (s) gdt__predictor_clear(m);
    return s;
}

/* -------------------------------------------------------- cross-validation */

/* Ours in untimed order: the known ones by the ranking rule, then the rest. */
static int pick_ours(const gdt__train_cell *c, const double *pred, double err, double *best_pred)
{
    int idx[512], n = 0, order[512], first = -1;
    double t[512];
    for (int k = 0; k < c->nplans; k++) {
        const gdt_measured_plan *p = &c->plans[k];
        if (p->is_backend) continue;
        if (first < 0 || p->untimed_position < c->plans[first].untimed_position) first = k;
        if (isnan(pred[k]) || n == 512) continue;
        int at = n++;
        while (at > 0 && c->plans[idx[at - 1]].untimed_position > p->untimed_position)
            idx[at] = idx[at - 1], t[at] = t[at - 1], at--;
        idx[at] = k, t[at] = pred[k];
    }
    *best_pred = NAN;
    if (n == 0) return first;
    gdt__predict_rank(t, n, err, order);
    *best_pred = t[order[0]];
    return idx[order[0]];
}

/* The cell's index of a measured backend plan, -1 when it measured none. */
static int measured_backend(const gdt__train_cell *c, const gdt_plan_id *id)
{
    for (int k = 0; k < c->nplans; k++)
        if (c->plans[k].is_backend && gdt_plan_id_equal(&c->plans[k].id, id)) return k;
    return -1;
}

/* The backend block as the planner orders it with the held-out model, its
 * plans walked as the build walks them: one the cell did not measure was
 * not offered there and is passed over. */
static int pick_backend(const gdt__train_cell *c, const gdt__predictor *m, double rel)
{
    int nh = 0, pick = -1, cap = c->nplans + m->nplans;
    gdt_plan_id *heur = malloc((size_t)(cap ? cap : 1) * sizeof *heur), *block = malloc((size_t)(cap ? cap : 1) * sizeof *block);
    int *at = malloc((size_t)(cap ? cap : 1) * sizeof *at);
    for (int k = 0; heur && at && k < c->nplans; k++) { /* mode A in the heuristic's order */
        if (!c->plans[k].is_backend || c->plans[k].mode != GDT_MODE_A) continue;
        int j = nh++;
        for (; j > 0 && at[j - 1] > c->plans[k].untimed_position; j--) heur[j] = heur[j - 1], at[j] = at[j - 1];
        heur[j] = c->plans[k].id, at[j] = c->plans[k].untimed_position;
    }
    int n = heur && block && at ? gdt__predict_block(m, &c->facts, rel, heur, nh, block) : -1;
    for (int i = 0; i < n && pick < 0; i++) pick = measured_backend(c, &block[i]);
    free(heur), free(block), free(at);
    return pick;
}

/* The plan the planner would put first in one cell, given predicted times
 * (NaN: unknown to the model), and what mode A would run: ours, the ranked
 * block's first or the heuristic's first, as gdt__predict_first says with
 * the model's lead rule and interval. */
static gdt__pred_pick pick_cell(const gdt__train_cell *c, const double *pred, const gdt__predictor *m, double rel)
{
    double ours_t;
    gdt__pred_pick pk = {.ours = pick_ours(c, pred, rel, &ours_t), .backend = pick_backend(c, m, rel),
                         .heuristic = pick_backend(c, m, INFINITY)};
    double h_t = pk.heuristic < 0 ? NAN : pred[pk.heuristic], x_t = pk.backend < 0 ? NAN : pred[pk.backend];
    gdt__predict_first(m, &c->facts, ours_t, h_t, x_t, pk.backend != pk.heuristic, rel, &pk.first);
    pk.lead = pk.first.lead, pk.ratio = pk.first.ratio;
    int block = pk.first.ranked ? pk.backend : pk.heuristic;
    pk.mode_a = pk.lead || block < 0 ? pk.ours : block;
    return pk;
}

/* The median of v (sorted in place); fallback when n is 0. */
static double median_of(double *v, int n, double fallback)
{
    if (n <= 0) return fallback;
    return gdt_median_inplace(v, n);
}

/* The median |predicted / measured - 1| over the held-out predictions. */
static double median_error(const gdt__train_cell *c, int n, double *const *pred)
{
    int cap = 0, ne = 0;
    for (int i = 0; i < n; i++) cap += c[i].nplans;
    double *errs = malloc((size_t)(cap ? cap : 1) * sizeof *errs), err = 1;
    for (int i = 0; errs && i < n; i++)
        for (int k = 0; k < c[i].nplans; k++)
            if (!isnan(pred[i][k])) errs[ne++] = fabs(pred[i][k] / c[i].plans[k].time_us - 1);
    if (errs) err = median_of(errs, ne, 1);
    free(errs);
    return err;
}

/* Figures of the held-out picks: pick/best over all plans (mode A) and
 * over ours (OPENSOURCE). */
static void figures(const gdt__train_cell *c, int n, const gdt__pred_pick *pk, double err, gdt__pred_cv *cv)
{
    double logsum[2] = {0, 0};
    int counted[2] = {0, 0};
    memset(cv, 0, sizeof *cv);
    cv->ncells = n;
    cv->err = err;
    for (int i = 0; i < n; i++) {
        int pick[2] = {pk[i].mode_a, pk[i].ours}, best[2] = {pk[i].best, pk[i].best_ours};
        for (int m = 0; m < 2; m++) {
            if (pick[m] < 0) continue;
            double r = c[i].plans[pick[m]].time_us / c[i].plans[best[m]].time_us;
            logsum[m] += log(r), counted[m]++;
            cv->worst[m] = fmax(cv->worst[m], r);
        }
        int h = pk[i].heuristic;
        if (h >= 0 && pk[i].mode_a >= 0 && gdt_measured_beats(&c[i].plans[h], &c[i].plans[pk[i].mode_a]))
            cv->slower++;
    }
    for (int m = 0; m < 2; m++) cv->geomean[m] = counted[m] ? exp(logsum[m] / counted[m]) : 1;
    for (int m = 0; m < 2; m++) cv->worst[m] = counted[m] ? cv->worst[m] : 1;
}

/* The cell's fastest plan, of all (ours false) or of ours; -1 when none. */
static int fastest(const gdt__train_cell *c, bool ours)
{
    int best = -1;
    for (int k = 0; k < c->nplans; k++)
        if ((!ours || !c->plans[k].is_backend) && (best < 0 || c->plans[k].time_us < c->plans[best].time_us))
            best = k;
    return best;
}

/* The picks of every cell with the ranking rule at rel, each by its own
 * model (its lead rule and interval). */
static void picks_at(const gdt__train_cell *c, int n, double *const *pred, const gdt__predictor *models, double rel,
                     gdt__pred_pick *out)
{
    for (int i = 0; i < n; i++) {
        out[i] = pick_cell(&c[i], pred[i], &models[i], rel);
        out[i].best = fastest(&c[i], false), out[i].best_ours = fastest(&c[i], true);
    }
}

/* The residuals of the leads a pick weighed against the heuristic's first
 * (predicted minus measured log(heuristic first / the candidate)): our
 * first plan's, and the ranked block's first where it is not the
 * heuristic's.  Returns their number; r holds 2n. */
static int lead_residuals(const gdt__train_cell *c, int n, const gdt__pred_pick *pk, gdt__lead_residual *r)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        int h = pk[i].heuristic, cand[GDT__LEAD_KINDS] = {pk[i].ours, pk[i].backend};
        double margin[GDT__LEAD_KINDS] = {pk[i].first.ours_margin, pk[i].first.block_margin};
        for (int j = 0; h >= 0 && j < GDT__LEAD_KINDS; j++) {
            if (cand[j] < 0 || cand[j] == h || isnan(margin[j])) continue;
            double measured = log(c[i].plans[h].time_us / c[i].plans[cand[j]].time_us);
            r[m++] = (gdt__lead_residual){(gdt__lead_kind)j, i, margin[j] - measured, pk[i].first.distance};
        }
    }
    return m;
}

/* The held-out picks under the interval: first ungated (a width of 0), for
 * the residuals; then each cell with the interval of the other cells'
 * residuals.  *iv: the interval of all of them. */
static gdt_status gated_picks(const gdt__train_cell *c, int n, double *const *pred, gdt__predictor *models,
                              double rel, gdt__lead_rule rule, double q, gdt__pred_pick *out, gdt__pred_interval *iv)
{
    static const gdt__pred_interval ungated = {{1, 1}, {0, 0}, 0, 0};
    gdt__lead_residual *r = malloc((size_t)(2 * n + 1) * sizeof *r);
    double *d = malloc((size_t)(n + 1) * sizeof *d);
    int nd = 0;
    if (!r || !d) {
        free(r), free(d);
        return GDT_STATUS_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) models[i].lead = rule, models[i].interval = ungated;
    picks_at(c, n, pred, models, rel, out);
    int m = lead_residuals(c, n, out, r);
    for (int i = 0; i < n; i++)
        if (isfinite(out[i].first.distance)) d[nd++] = out[i].first.distance;
    double dref = median_of(d, nd, 0);
    for (int i = 0; i < n; i++) gdt__interval_calibrate(r, m, i, dref, q, &models[i].interval);
    picks_at(c, n, pred, models, rel, out);
    gdt__interval_calibrate(r, m, -1, dref, q, iv);
    free(r), free(d);
    return GDT_STATUS_OK;
}

/* The held-out models of one lambda and their predictions pred[cell][plan]
 * (NaN: a plan the other cells never measured).  *pred and *models are
 * the caller's to release with release_held_out.  memo (NULL: none): the
 * ratio's ridges, memo[1 + i] that of the model without cell i. */
static gdt_status held_out(gdt_family fam, int sms, const gdt__train_cell *c, int n, double lambda, double *memo,
                           double ***pred, gdt__predictor **models, gdt_error *e)
{
    *pred = calloc((size_t)n, sizeof **pred);
    *models = calloc((size_t)n, sizeof **models);
    gdt_status s = *pred && *models ? GDT_STATUS_OK : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
    for (int i = 0; !s && i < n; i++) {
        if (!((*pred)[i] = malloc((size_t)(c[i].nplans ? c[i].nplans : 1) * sizeof ***pred))) {
            s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
            break;
        }
        if ((s = fit_one(fam, sms, c, n, i, lambda, memo ? &memo[1 + i] : NULL, &(*models)[i], e))) break;
        for (int k = 0; k < c[i].nplans; k++)
            if (!gdt__predict_time(&(*models)[i], &c[i].facts, &c[i].plans[k].id, &(*pred)[i][k])) (*pred)[i][k] = NAN;
    }
    return s;
}

static void release_held_out(int n, double **pred, gdt__predictor *models)
{
    for (int i = 0; pred && i < n; i++) free(pred[i]);
    for (int i = 0; models && i < n; i++) gdt__predictor_clear(&models[i]);
    free(pred);
    free(models);
}

/* The candidates of one lambda: a lead rule, a width of the ranking rule
 * and a quantile of the interval; they change the picks, not the
 * predictions. */
typedef struct choice {
    gdt__pred_cv cv[GDT__LEAD_RULES][NNOISES][GDT__LEAD_NQUANTILES];
    gdt__pred_interval iv[GDT__LEAD_RULES][NNOISES][GDT__LEAD_NQUANTILES];
    gdt__pred_cv val[GDT__LEAD_RULES][NNOISES][GDT__LEAD_NQUANTILES]; /* on the validation cells */
} choice;

/* The leave-one-cell-out figures of one lambda at every candidate (memo:
 * held_out's). */
static gdt_status cross_validate(gdt_family fam, int sms, const gdt__train_cell *c, int n, double lambda,
                                 double *memo, choice *ch, gdt_error *e)
{
    double **pred = NULL;
    gdt__predictor *models = NULL;
    gdt__pred_pick *pk = calloc((size_t)n, sizeof *pk);
    gdt_status s = pk ? held_out(fam, sms, c, n, lambda, memo, &pred, &models, e)
                      : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
    double err = s ? 1 : median_error(c, n, pred);
    for (int r = 0; !s && r < GDT__LEAD_RULES; r++)
        for (int j = 0; !s && j < NNOISES; j++)
            for (int q = 0; !s && q < GDT__LEAD_NQUANTILES; q++) {
                if (gated_picks(c, n, pred, models, noises[j] * err, (gdt__lead_rule)r, gdt__lead_quantiles[q], pk,
                                &ch->iv[r][j][q]))
                    s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
                figures(c, n, pk, err, &ch->cv[r][j][q]);
            }
    release_held_out(n, pred, models);
    free(pk);
    return s;
}

gdt_status gdt__predictor_picks(gdt_family f, int arch, const gdt__train_cell *cells, int n, double lambda,
                                double noise, gdt__lead_rule rule, double q, gdt__pred_pick *out, double *err,
                                gdt_error *e)
{
    double **pred = NULL;
    gdt__predictor *models = NULL;
    gdt__pred_interval iv;
    gdt_status s = held_out(f, gdt__predict_sm_count(arch), cells, n, lambda, NULL, &pred, &models, e);
    *err = s ? NAN : median_error(cells, n, pred);
    if (!s && gated_picks(cells, n, pred, models, noise * *err, rule, q, out, &iv))
        s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
    release_held_out(n, pred, models);
    return s;
}

gdt_status gdt__predictor_score(const gdt__predictor *p, const gdt__train_cell *cells, int n, gdt__pred_pick *out,
                                gdt__pred_cv *cv, gdt_error *e)
{
    double **pred = calloc((size_t)(n ? n : 1), sizeof *pred);
    gdt__pred_pick *pk = out ? out : calloc((size_t)(n ? n : 1), sizeof *pk);
    gdt_status s = pred && pk ? GDT_STATUS_OK : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
    for (int i = 0; !s && i < n; i++) {
        if (!(pred[i] = malloc((size_t)(cells[i].nplans ? cells[i].nplans : 1) * sizeof **pred)))
            s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
        for (int k = 0; !s && k < cells[i].nplans; k++)
            if (!gdt__predict_time(p, &cells[i].facts, &cells[i].plans[k].id, &pred[i][k])) pred[i][k] = NAN;
    }
    for (int i = 0; !s && i < n; i++) {
        pk[i] = pick_cell(&cells[i], pred[i], p, gdt__predict_rel(p));
        pk[i].best = fastest(&cells[i], false), pk[i].best_ours = fastest(&cells[i], true);
    }
    if (!s) figures(cells, n, pk, median_error(cells, n, pred), cv);
    for (int i = 0; pred && i < n; i++) free(pred[i]);
    free(pred);
    if (pk != out) free(pk);
    return s;
}

/* Lower is better: the pick ratios of both modes (geometric mean and
 * worst). */
static double cv_score(const gdt__pred_cv *a)
{
    return log(a->geomean[0]) + log(a->geomean[1]) + log(a->worst[0]) + log(a->worst[1]);
}

/* A candidate's held-out figures: leave-one-cell-out and, where nval > 0,
 * on the validation cells. */
typedef struct verdict {
    int slower;
    double score, err;
} verdict;

static verdict verdict_of(const choice *ch, int r, int j, int q, int nval)
{
    const gdt__pred_cv *a = &ch->cv[r][j][q], *v = &ch->val[r][j][q];
    verdict x = {a->slower, cv_score(a), a->err};
    if (nval > 0) x.slower += v->slower, x.score += cv_score(v);
    return x;
}

/* Fewer firsts slower than the heuristic's, then the picks, then the error. */
static bool better(verdict a, verdict b)
{
    if (a.slower != b.slower) return a.slower < b.slower;
    if (fabs(a.score - b.score) > 1e-12) return a.score < b.score;
    return a.err < b.err - 1e-12;
}

/* The figures on the validation cells of the model of all cells at every
 * candidate of its lambda; nothing when there are none (memo: fit_one's). */
static gdt_status validate(gdt_family f, int sms, const gdt__train_cell *c, int n, double lambda, double *memo,
                           const gdt__train_cell *val, int nval, choice *ch, gdt_error *e)
{
    gdt__predictor m;
    if (nval <= 0) return GDT_STATUS_OK;
    gdt_status s = fit_one(f, sms, c, n, -1, lambda, memo, &m, e);
    bool fitted = !s;
    for (int r = 0; !s && r < GDT__LEAD_RULES; r++)
        for (int j = 0; !s && j < NNOISES; j++)
            for (int q = 0; !s && q < GDT__LEAD_NQUANTILES; q++) {
                m.lead = (gdt__lead_rule)r, m.noise = noises[j], m.cv = ch->cv[r][j][q];
                m.interval = ch->iv[r][j][q];
                s = gdt__predictor_score(&m, val, nval, NULL, &ch->val[r][j][q], e);
            }
    if (fitted) gdt__predictor_clear(&m);
    return s;
}

gdt_status gdt__predictor_fit(gdt_family f, int arch, const gdt__train_cell *cells, int n,
                              const gdt__train_cell *val, int nval, gdt__predictor *out, gdt_error *e)
{
    memset(out, 0, sizeof *out);
    if (n < GDT__PREDICT_MIN_CELLS)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "time model: %d cells: expected at least %d to "
                             "cross-validate", n, GDT__PREDICT_MIN_CELLS);
    int sms = gdt__predict_sm_count(arch), bl = 0, br = 0, bj = 0, bq = 0;
    choice *ch = calloc(NLAMBDAS, sizeof *ch);
    double *memo = malloc((size_t)(n + 1) * sizeof *memo); /* the ratio's ridges, by cell left out */
    if (!ch || !memo) {
        free(ch), free(memo);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "time model: out of memory");
    }
    for (int i = 0; i <= n; i++) memo[i] = NAN;
    gdt_status s = GDT_STATUS_OK;
    for (int l = 0; !s && l < NLAMBDAS; l++) s = cross_validate(f, sms, cells, n, lambdas[l], memo, &ch[l], e);
    for (int l = 0; !s && l < NLAMBDAS; l++)
        s = validate(f, sms, cells, n, lambdas[l], memo, val, nval, &ch[l], e);
    /* a tie keeps the earlier: the ratio rule, the widest width and
     * quantile, the smallest lambda */
    for (int r = 0; !s && r < GDT__LEAD_RULES; r++)
        for (int j = 0; j < NNOISES; j++)
            for (int q = 0; q < GDT__LEAD_NQUANTILES; q++)
                for (int l = 0; l < NLAMBDAS; l++)
                    if (better(verdict_of(&ch[l], r, j, q, nval), verdict_of(&ch[bl], br, bj, bq, nval)))
                        bl = l, br = r, bj = j, bq = q;
    if (!s) s = fit_one(f, sms, cells, n, -1, lambdas[bl], memo, out, e);
    if (!s) out->cv = ch[bl].cv[br][bj][bq], out->noise = noises[bj], out->lead = (gdt__lead_rule)br;
    if (!s) out->interval = ch[bl].iv[br][bj][bq];
    free(ch), free(memo);
    return s;
}
