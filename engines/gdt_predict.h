/* engines/gdt_predict.h — the time model of the tables.  Private.
 *
 * Per family, one log-linear model fitted at `tables emit` from the swept
 * cells: log t = intercept[plan] + (shared + slope[plan]) . (phi - center),
 * phi the family's features of (plan, shape) (gdt_family_desc.features)
 * followed by the log of the shape's useful flops.  Ridge on the per-plan
 * slopes (lambda) blends one shared law (lambda large) with one law per
 * plan (lambda small); lambda, the ranking rule's width (noise) and the
 * lead rule are chosen by leave-one-cell-out cross-validation, whose
 * figures the model carries (tables/README.md). */
#ifndef GDT_PREDICT_H
#define GDT_PREDICT_H

#include "gdt_family.h"
#include "gdtune/tables.h"

/* The family's features and log_flops. */
#define GDT__PRED_FEATURES_MAX (GDT__FEATURES_MAX + 1)
/* The placement ratio's terms over nf features: the intercept, nf slopes,
 * then one per pair of features (i <= j). */
#define GDT__RATIO_QUADRATIC(nf) ((nf) * ((nf) + 1) / 2)
#define GDT__RATIO_TERMS(nf) (1 + (nf) + GDT__RATIO_QUADRATIC(nf))
/* The placement ratio's features: the family's own
 * (gdt_family_desc.ratio_features), else the model's at the backend's
 * default tiles. */
#define GDT__RATIO_NF_MAX \
    (GDT__RATIO_FEATURES_MAX > GDT__PRED_FEATURES_MAX ? GDT__RATIO_FEATURES_MAX : GDT__PRED_FEATURES_MAX)
#define GDT__RATIO_MAX GDT__RATIO_TERMS(GDT__RATIO_NF_MAX)

#define GDT__PRED_NAME_MAX 512
typedef struct gdt__pred_plan {
    gdt_plan_id id;
    char name[GDT__PRED_NAME_MAX]; /* id's name (gdt__pred_plan_named): the plans' order and key */
    bool is_backend;
    int ncells; /* cells it was measured in */
    double intercept;
    double slope[GDT__PRED_FEATURES_MAX]; /* its deviation from the shared slopes */
} gdt__pred_plan;

/* Leave-one-cell-out figures: [0] mode A, [1] OPENSOURCE. */
/* Sets pp's id, normalized, and its name from it. */
void gdt__pred_plan_named(gdt__pred_plan *pp, const gdt_plan_id *id);

typedef struct gdt__pred_cv {
    int ncells;
    double err; /* median |predicted / measured - 1| over the held-out plans */
    double geomean[2], worst[2];
    int slower; /* cells where mode A's first ran slower than the heuristic's first beyond noise */
} gdt__pred_cv;

/* What puts ours ahead of the backend's block on a shape no cell covers:
 * the placement ratio's own fit (RATIO), or our first plan's predicted
 * time against that of the block's first (DIRECT; the ratio where the
 * block's first is unknown). */
typedef enum { GDT__LEAD_RATIO, GDT__LEAD_DIRECT, GDT__LEAD_RULES } gdt__lead_rule;
const char *gdt__lead_rule_name(gdt__lead_rule r);

/* The lead's interval: how far a predicted lead over the backend's
 * heuristic first can be wrong at a distance D from the swept cells,
 * calibrated on the cross-validation's residuals of that lead (predicted
 * minus measured log(heuristic first / the plan put first)), apart for
 * our first plan and for a backend config the ranked block moves ahead:
 * W(D) = scale * (1 + D / dref), scale the quantile q of residual /
 * (1 + D_i / dref) over the held-out cells (one-sided: only a lead
 * predicted too large costs time; at least 0), D_i each one's distance to
 * the nearest other cell, dref their median.  A plan goes ahead of the
 * heuristic's first only when its predicted lead exceeds W(D); n == 0 (no
 * residual): never.  q is one of gdt__lead_quantiles, chosen per family
 * with lambda, the width and the lead rule (gdt__predictor_fit). */
#define GDT__LEAD_NQUANTILES 5
extern const double gdt__lead_quantiles[GDT__LEAD_NQUANTILES];
/* Whether q is one of the candidates (the loader refuses another). */
bool gdt__lead_quantile_known(double q);
typedef enum { GDT__LEAD_OURS, GDT__LEAD_BLOCK, GDT__LEAD_KINDS } gdt__lead_kind;
typedef struct gdt__pred_interval {
    int n[GDT__LEAD_KINDS];        /* residuals calibrated on */
    double scale[GDT__LEAD_KINDS]; /* W at D = 0, in log time */
    double dref;                   /* the distance at which W doubles */
    double quantile;               /* q, one of gdt__lead_quantiles */
} gdt__pred_interval;

typedef struct gdt__predictor {
    int sm_count; /* the SMs waves are counted over */
    int nfeatures;
    double lambda;
    double ratio_lambda; /* the ridge on the placement ratio's terms (its own, by the one-SE rule) */
    double noise; /* the ranking rule's width, in units of cv.err */
    gdt__lead_rule lead;
    double center[GDT__PRED_FEATURES_MAX], shared[GDT__PRED_FEATURES_MAX];
    /* log(best ours / the backend's heuristic first) of a cell: intercept,
     * slopes on the features of the backend's default tiles, then the
     * products of those features two by two (i <= j), each clamped to
     * [ratio_lo, ratio_hi], the range of the cells the ratio was fitted on,
     * so that the curvature is not extrapolated; the BACKEND marker's place
     * (has_ratio false when no cell measured both sides). */
    bool has_ratio;
    double ratio[GDT__RATIO_MAX];
    double ratio_lo[GDT__RATIO_NF_MAX], ratio_hi[GDT__RATIO_NF_MAX];
    /* The family's own ratio features (nratio > 0) and their means over
     * the cells the ratio was fitted on; 0: the model's features, centred
     * at center. */
    int nratio;
    double ratio_center[GDT__RATIO_NF_MAX];
    gdt__pred_plan *plans; /* sorted by plan name */
    int nplans;
    gdt__pred_cv cv;
    gdt__pred_interval interval;
    /* The features (the backend's default tiles) of the cells it was
     * fitted on: distances are measured to them. */
    double (*anchors)[GDT__PRED_FEATURES_MAX];
    int nanchors;
} gdt__predictor;

/* One swept cell as the fit reads it. */
typedef struct gdt__train_cell {
    gdt_facts facts;
    const gdt_measured_plan *plans;
    int nplans;
} gdt__train_cell;

/* The model's features of a family: its own, then "log_flops". */
int gdt__predict_nfeatures(gdt_family f);
const char *gdt__predict_feature_name(gdt_family f, int j);

/* The facts a plan with SPLIT_K = splits pays for (engines/facts.c): a GEMM
 * as a batch of splits GEMMs over K / splits; f itself otherwise. */
void gdt__facts_split_k(const gdt_facts *f, int64_t splits, gdt_facts *out);

/* The SMs of the arch's sweep device (waves are counted over them). */
int gdt__predict_sm_count(int arch);

/* Fits on the cells (in the given order; the result depends on nothing
 * else) and cross-validates.  lambda, the ranking rule's width, the lead
 * rule and the interval's quantile are chosen by the held-out picks: the
 * leave-one-cell-out ones and, when val holds cells (a validation sweep
 * off the grid, nval of them; NULL, 0: none), those of the model of all
 * cells on them; fewest mode-A firsts slower than the heuristic's first
 * first, then the geo-means and worsts of both modes.  Fewer than
 * GDT__PREDICT_MIN_CELLS cells: NOT_SUPPORTED (no model). */
#define GDT__PREDICT_MIN_CELLS 3
gdt_status gdt__predictor_fit(gdt_family f, int arch, const gdt__train_cell *cells, int n,
                              const gdt__train_cell *val, int nval, gdt__predictor *out, gdt_error *e);
void gdt__predictor_clear(gdt__predictor *p);

/* The plan's entry, or NULL when no swept cell measured it. */
const gdt__pred_plan *gdt__predictor_find(const gdt__predictor *p, const gdt_plan_id *id);
/* false when the model does not know the plan. */
bool gdt__predict_time(const gdt__predictor *p, const gdt_facts *f, const gdt_plan_id *id, double *t_us);

/* What the fit (predict.c) reads the model through, as its evaluation
 * (predict_eval.c) does: plans in name order (qsort, bsearch), the
 * features phi of (f, id) on sms SMs, the placement ratio's features of f
 * (returns their number: gdt__predict_ratio_nf) and its terms x of phi
 * (returns their number). */
int gdt__pred_plan_cmp(const void *a, const void *b);
void gdt__predict_features(gdt_family fam, const gdt_facts *f, const gdt_plan_id *id, int sms, double *phi);
int gdt__predict_ratio_features(const gdt__predictor *p, const gdt_facts *f, double *phi);
int gdt__predict_ratio_nf(const gdt__predictor *p);
int gdt__predict_ratio_terms(const gdt__predictor *p, const double *phi, double *x);

/* The predicted placement ratio (best ours / best backend); false when the
 * model has none. */
bool gdt__predict_ratio(const gdt__predictor *p, const gdt_facts *f, double *ratio);
/* Whether ours lead the backend's block on f by the rule: ours_us is the
 * predicted time of our first plan (NaN: none, never a lead), block_us
 * that of the block's first (NaN: unknown, the ratio decides); *ratio the
 * ratio decided on (NaN: none). */
bool gdt__predict_lead(const gdt__predictor *p, gdt__lead_rule rule, const gdt_facts *f, double ours_us,
                       double block_us, double rel, double *ratio);

/* The lead's interval (engines/predict_interval.c). */
/* The model's features of f at the backend's default tiles. */
void gdt__predict_default_features(const gdt__predictor *p, const gdt_facts *f, double *phi);
/* Adds f to the cells distances are measured to; false: out of memory. */
bool gdt__predictor_anchor(gdt__predictor *p, const gdt_facts *f);
/* The distance from f to the nearest anchor in the model's features
 * (Euclidean, log units); INFINITY without anchors. */
double gdt__predict_distance(const gdt__predictor *p, const gdt_facts *f);
/* W(D) of a kind of lead, in log time; INFINITY without an interval. */
double gdt__predict_width(const gdt__predictor *p, double distance, gdt__lead_kind kind);
/* One residual of a held-out cell: its kind, the cell and its distance. */
typedef struct gdt__lead_residual {
    gdt__lead_kind kind;
    int cell;
    double resid, dist;
} gdt__lead_residual;
/* The interval of residuals r[0..n), leaving out those of cell skip (-1:
 * none), at the reference distance dref and quantile q. */
void gdt__interval_calibrate(const gdt__lead_residual *r, int n, int skip, double dref, double q,
                             gdt__pred_interval *out);

/* Where the first place of mode A goes on a shape no cell covers: our
 * first plan (predicted ours_us), the backend's heuristic first (heur_us,
 * NaN: unknown to the model) or the ranked block's first (block_us; moved:
 * it is not the heuristic's first).  A plan goes ahead of the heuristic's
 * first only when its predicted lead over it exceeds W(D); otherwise the
 * heuristic's order stands. */
typedef struct gdt__first {
    bool lead;          /* ours ahead of the backend's block */
    bool ranked;        /* the block in the model's order (false: the heuristic's) */
    double ratio;       /* the lead rule's ratio (ours / the block's first), NaN: none */
    double ours_margin; /* predicted log(heuristic first / our first), NaN: none */
    double block_margin; /* predicted log(heuristic first / the ranked block's first), NaN: not moved */
    double width, block_width; /* W(D) of our lead and of a block's move */
    double distance;
} gdt__first;
void gdt__predict_first(const gdt__predictor *p, const gdt_facts *f, double ours_us, double heur_us,
                        double block_us, bool moved, double rel, gdt__first *out);

/* The ranking rule on predicted times: the fastest left sets the bar and of
 * those within rel of it (gap <= rel/2 * (a + b)) the earliest in the given
 * order takes the place.  order[] receives indices into t. */
void gdt__predict_rank(const double *t, int n, double rel, int *order);
/* The backend's mode-A block on a shape no cell covers: the heuristic's
 * plans (heur, its order), then the backend configs the model knows that
 * the heuristic did not list, by name.  Those the model knows well (a
 * backend config measured in GDT__PREDICT_BLOCK_CELLS cells or more) take
 * the places they hold between them by the ranking rule at rel; the rest
 * keep their places.  out holds nh + p->nplans; returns its length, -1
 * out of memory. */
#define GDT__PREDICT_BLOCK_CELLS 3
int gdt__predict_block(const gdt__predictor *p, const gdt_facts *f, double rel, const gdt_plan_id *heur, int nh,
                       gdt_plan_id *out);
/* One held-out cell's picks, indices into its plans (-1: none). */
typedef struct gdt__pred_pick {
    int ours;             /* OPENSOURCE's first plan */
    int backend;          /* the first measured plan of the backend's block */
    bool lead;            /* mode A put ours ahead of the block */
    double ratio;         /* the predicted ratio lead was decided on, NaN: none */
    int mode_a;           /* ours when lead (or no block), else backend */
    int best, best_ours;  /* the fastest measured, of all plans and of ours */
    int heuristic;        /* the first measured plan of the heuristic's own order */
    gdt__first first;     /* how mode A's first place was decided */
} gdt__pred_pick;

/* Leave-one-cell-out at one lambda, width (noise, in units of the
 * held-out error, *err), lead rule and the interval's quantile q: out[i]
 * for cells[i], as the figures count them. */
gdt_status gdt__predictor_picks(gdt_family f, int arch, const gdt__train_cell *cells, int n, double lambda,
                                double noise, gdt__lead_rule rule, double q, gdt__pred_pick *out, double *err,
                                gdt_error *e);

/* The figures of model p on cells it may not have been fitted on (a
 * validation sweep of shapes off the grid), each cell planned as a shape
 * no cell covers; out (may be NULL) receives the picks. */
gdt_status gdt__predictor_score(const gdt__predictor *p, const gdt__train_cell *cells, int n, gdt__pred_pick *out,
                                gdt__pred_cv *cv, gdt_error *e);

/* The rel the planner ranks predictions with: noise * cv.err. */
double gdt__predict_rel(const gdt__predictor *p);
/* a ahead of b beyond rel: the rule's comparison. */
bool gdt__predict_beats(double a, double b, double rel);

#endif
