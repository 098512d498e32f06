/* Placement and tuning tables: schema-versioned JSON with provenance and
 * per-cell evidence.  The writer is deterministic (same input, byte-identical
 * file); the loader is strict and all-or-nothing. */
#ifndef GDTUNE_TABLES_H
#define GDTUNE_TABLES_H

#include "gdtune/gdtune.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GDT_TABLE_SCHEMA_PLACEMENT "gdtune.placement/7"
#define GDT_TABLE_SCHEMA_TUNING "gdtune.tuning/1"

typedef struct gdt_provenance {
    char device_name[128];
    int arch;
    int driver_version;  /* cudaDriverGetVersion */
    int cuda_version;    /* cudaRuntimeGetVersion */
    int cudnn_version;   /* cudnnGetVersion */
    int nvrtc_version;   /* major*1000 + minor*10 */
    char gdtune_version[32];
    char source_digest[65];
    char sweep_digest[65];
    char candidates_digest[65];
} gdt_provenance;

/* One plan measured in one cell.  Times are device time per call in
 * microseconds at the sweep's largest burst (the device rate), with the
 * relative noise of that estimate; host_us is host enqueue per call at
 * burst 1.  Plans that were not measured (declined, incorrect, failed) are
 * not given to the writer. */
typedef struct gdt_measured_plan {
    gdt_plan_id id;
    bool is_backend;
    gdt_mode mode;         /* backend: the heuristic mode that produced it */
    int untimed_position;  /* position in the untimed default order */
    double time_us;
    double noise;          /* relative spread, e.g. 0.004 */
    double host_us;
    int samples;
} gdt_measured_plan;

typedef struct gdt_measured_cell {
    gdt_problem problem;
    gdt_measured_plan *plans;
    int nplans;
} gdt_measured_cell;

/* The tables' one comparison (tables/README.md, "Ranking rule"), which
 * ranks plans and decides LEAD: a beats b when a is faster by more than the
 * combined measured noise, a.noise*a.time_us + b.noise*b.time_us. */
bool gdt_measured_beats(const gdt_measured_plan *a, const gdt_measured_plan *b);
/* A plan's side as the placement takes it: the backend's, else its
 * engine's (a library plan, cuBLASLt, is not ours and decides nothing). */
gdt_plan_side gdt_measured_side(const gdt_measured_plan *p);
/* By how much a is ahead of b in units of that combined noise:
 * (b.time_us - a.time_us) / (a.noise*a.time_us + b.noise*b.time_us).
 * Negative when b is faster; infinite or NaN when neither has noise.
 * gdt_measured_beats decides; this says how far from the bar. */
double gdt_measured_gap(const gdt_measured_plan *a, const gdt_measured_plan *b);

/* Writes <dir>/<family>.tuning.json and <dir>/<family>.placement.json as
 * one pair: both are staged as unique temporaries before either is renamed,
 * so a failure leaves the previous pair as it was.  dir is e.g.
 * tables/sm90.  What the loader would refuse (the arch outside smXY, an
 * engine id outside every block, or anything `tables check` refuses in the
 * serialized text) is BAD_INPUT naming the field, and nothing is written. */
gdt_status gdt_tables_write(const char *dir, gdt_family f, const gdt_provenance *prov,
                            const gdt_measured_cell *cells, int ncells, gdt_error *e);
/* The same, the time model also scored on a validation sweep's cells
 * (shapes off the grid; cells of other families are passed over): the
 * placement table's model.validation (tables/README.md). */
gdt_status gdt_tables_write_validated(const char *dir, gdt_family f, const gdt_provenance *prov,
                                      const gdt_measured_cell *cells, int ncells,
                                      const gdt_measured_cell *validation, int nvalidation, gdt_error *e);

/* Loaded tables of one family for one arch (opaque). */
typedef struct gdt_tables gdt_tables;

/* Loads <dir>/sm<arch>/<family>.{placement,tuning}.json.  A missing pair is
 * NOT_SUPPORTED (no table: untimed order); anything malformed, or a schema,
 * arch or family that does not match, is BAD_INPUT naming the file and
 * field. */
gdt_status gdt_tables_load(const char *dir, gdt_family f, int arch, gdt_tables **out, gdt_error *e);
void gdt_tables_destroy(gdt_tables *t);
/* Loads a pair named by its two files, wherever they are: the tuning file
 * says the family and arch (its schema must be the tuning one), the
 * placement file must say the same, and the pair is checked as
 * gdt_tables_load checks it.  BAD_INPUT naming the file and field. */
gdt_status gdt_tables_load_files(const char *tuning, const char *placement, gdt_tables **out,
                                 gdt_error *e);

/* The places searched for tables when the caller names no folder, in
 * order: each folder of $GDTUNE_TABLES_PATH (colon-separated), ./tables,
 * then the installed data folder <prefix>/share/gdtune/tables found from
 * where the code runs, not from a path compiled in: beside the shared
 * libgdtune (its folder's ../share/gdtune), then beside the executable
 * (its folder's ../share/gdtune; the only one a program linked with
 * libgdtune.a has).  each(ctx, dir, origin) gets each place as it is
 * tried (./tables and relative entries of the variable stay relative)
 * and where it comes from ("GDTUNE_TABLES_PATH", "beside libgdtune
 * /p/lib/libgdtune.so.0.2"); it returns true to stop, and so does this
 * function then. */
typedef bool (*gdt_tables_place_fn)(void *ctx, const char *dir, const char *origin);
bool gdt_tables_search_places(gdt_tables_place_fn each, void *ctx);

/* Where the tables of family f for arch are, when the caller names no
 * folder: the first place of gdt_tables_search_places whose
 * sm<arch>/<family>.{placement,tuning}.json load.  A place whose tables
 * are refused is passed over (warn, when given, gets the loader's message)
 * and the search goes on.  Copies the place's absolute path into dir (n
 * bytes); false when no place has tables that load.  out, when given,
 * receives the loaded tables (the caller destroys them). */
typedef struct gdt_tables_search {
    void (*warn)(void *ctx, const char *msg); /* optional */
    void *ctx;
    gdt_tables **out; /* optional */
} gdt_tables_search;
bool gdt_tables_search_path(gdt_family f, int arch, const gdt_tables_search *how, char *dir, size_t n);
/* gdt_tables_search_path with neither warning nor tables kept. */
bool gdt_tables_find(gdt_family f, int arch, char *dir, size_t n);

/* Validates one table file of either kind (`gdtune tables check`). */
gdt_status gdt_table_check_file(const char *path, gdt_error *e);

/* What the tables say for one problem. */
typedef struct gdt_cell_decision {
    bool measured;          /* an exact swept cell (else: a shard's decision) */
    bool lead;              /* ours ahead of the backend block */
    double ratio;           /* best ours time / best backend time ( <1: ours faster) */
    double noise;
    int nranked;
    const gdt_plan_id *ranked;     /* measured order, best first (owned by the tables) */
    const bool *ranked_is_backend;
    int backend_pos;        /* where the BACKEND marker goes in `ranked` (0..nranked) */
    const gdt_plan_id *fallback;   /* the FALLBACK entry, or NULL */
} gdt_cell_decision;

/* false when no cell or shard covers the problem (untimed order). */
bool gdt_tables_lookup(const gdt_tables *t, const gdt_facts *f, gdt_cell_decision *out);

/* What the loaded tables hold, read-only (`gdtune tables diff`). */
gdt_family gdt_tables_family(const gdt_tables *t);
int gdt_tables_arch(const gdt_tables *t);
/* The measured cells, sorted by key. */
int gdt_tables_ncells(const gdt_tables *t);

/* One measured cell: its placement and its tuning ranking as the files say
 * them (pointers owned by the tables). */
typedef struct gdt_table_cell {
    const char *key;        /* gdt_problem_key */
    bool lead;
    bool has_ratio;
    double ratio, noise;    /* best ours / best backend and its noise; NaN where null */
    int nranked;
    const gdt_measured_plan *ranked; /* best first, every field as the file has it */
    int backend_pos;
} gdt_table_cell;

/* Cell i (0..gdt_tables_ncells-1); false out of range. */
bool gdt_tables_cell(const gdt_tables *t, int i, gdt_table_cell *out);

/* Where a plan's time comes from, for one problem. */
typedef enum gdt_time_source {
    GDT_TIME_UNTIMED,   /* no cell measured it and no model predicts it */
    GDT_TIME_MEASURED,  /* the problem is a swept cell that measured the plan */
    GDT_TIME_PREDICTED, /* the placement table's time model */
} gdt_time_source;

typedef struct gdt_plan_time {
    gdt_time_source source;
    double time_us;   /* NaN when untimed */
    double error;     /* measured: the noise; predicted: the model's cross-validated
                         median relative error */
    int ncells;       /* predicted: swept cells that measured this plan */
    char nearest[256]; /* predicted: the key of the nearest swept cell (model features) */
} gdt_plan_time;

/* A plan's measured or predicted time on f's problem. */
void gdt_tables_plan_time(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *id,
                          gdt_plan_time *out);

/* Whether a swept cell of the tables shares f's shard group (the facts a
 * placement shard holds equal, gdt_tables_group_field).  false: the time
 * model's predictions for f extrapolate to a dtype, layout or mask no
 * sweep measured (the model's features do not hold them). */
bool gdt_tables_group_swept(const gdt_tables *t, const gdt_facts *f);
/* The name of the family's shard-group field i ("dtype", "a_row_major",
 * ...); NULL past the last. */
const char *gdt_tables_group_field(gdt_family f, int i);

/* Orders n plans of ours by predicted time: order[] receives their indices,
 * those the model knows first by the ranking rule with the model's error
 * as the noise (a predicted gap within it keeps the given order), then the
 * rest in the given order.  *lead: the predicted placement ratio (our
 * first / the backend's first) puts ours ahead beyond the rule's width and
 * the model's lead interval at f's distance from the swept cells (the
 * planner, which knows the backend's block, applies the model's lead rule:
 * tables/README.md); NULL: not asked.  false (order and lead untouched)
 * when there is no model or it knows none of the plans. */
bool gdt_tables_predict_order(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *ids,
                              int n, int *order, bool *lead);

/* The time model's leave-one-cell-out figures, as the placement table
 * records them.  [0] mode A, [1] OPENSOURCE: geometric mean and worst of
 * (measured time of the plan the model puts first) / (the cell's best). */
typedef struct gdt_model_cv {
    int ncells;
    double lambda;
    double noise; /* the ranking rule's width, in units of median_abs_error */
    double median_abs_error;
    double geomean[2], worst[2];
} gdt_model_cv;

/* false when the tables carry no model. */
bool gdt_tables_model_cv(const gdt_tables *t, gdt_model_cv *out);

/* The time model's leave-one-cell-out picks in one swept cell
 * (`gdtune tables check --cells`): what the model fitted on the other
 * cells would put first.  Pointers into the cell's ranking (owned by the
 * tables), NULL when none. */
typedef struct gdt_model_pick {
    const char *key;
    bool lead;                         /* mode A put ours ahead of the backend's block */
    double ratio;                      /* the predicted ratio (our first / the backend's
                                          first, by the model's lead rule) lead was decided
                                          on; NaN: none */
    const gdt_measured_plan *mode_a;   /* mode A's first plan */
    const gdt_measured_plan *ours;     /* OPENSOURCE's first plan */
    const gdt_measured_plan *backend;  /* the first measured plan of the backend's block */
    const gdt_measured_plan *best, *best_ours; /* the fastest measured, of all and of ours */
    const gdt_measured_plan *heuristic; /* the first measured plan of the heuristic's own order */
    double ours_margin;                /* predicted lead of our first over the heuristic's first,
                                          log(heuristic / ours); NaN: none */
    double width, distance;            /* the interval W(D) (log) at the distance D to the
                                          nearest other cell */
} gdt_model_pick;

/* Refits the model's cross-validation at its lambda and noise from the
 * tuning table's measurements (ours and the backend's; times as the file
 * rounds them, so the figures may differ from `cv` in the 4th digit):
 * out[i] for cell i of gdt_tables_ncells, *err the held-out median
 * relative error.  NOT_SUPPORTED when the tables carry no model. */
gdt_status gdt_tables_model_picks(const gdt_tables *t, gdt_model_pick *out, double *err, gdt_error *e);

/* The time model's figures on a validation sweep: cells of shapes off the
 * grid, each planned as a shape no cell covers and scored by the times the
 * validation journal measured.  [0] mode A, [1] OPENSOURCE: geometric
 * mean and worst of (measured time of the plan the model puts first) /
 * (the cell's best); slower: cells where mode A's first ran slower than
 * the backend heuristic's first beyond the combined noise. */
typedef struct gdt_model_validation {
    int ncells; /* validation cells of the table's family */
    int swept;  /* of them, shapes the table swept (scored as unswept all the same) */
    double median_abs_error;
    double geomean[2], worst[2];
    int slower;
} gdt_model_validation;

/* Scores the model of one placement file (validated as gdt_table_check_file
 * does) on the measured cells of its family (others are passed over);
 * picks (may be NULL; room for n) receive each such cell's picks in order,
 * pointing into cells, key NULL.  NOT_SUPPORTED when the file carries no
 * model (fewer than 3 cells). */
gdt_status gdt_tables_validate_file(const char *placement, const gdt_measured_cell *cells, int n,
                                    gdt_model_validation *out, gdt_model_pick *picks, gdt_error *e);
/* The validation figures the placement table's model records
 * (model.validation, emitted with `tables emit --validation`); false when
 * none. */
bool gdt_tables_model_validation(const gdt_tables *t, gdt_model_validation *out);

/* The provenance the loaded files carry (NULL when they carry none): which
 * build, sweep and candidate rows measured them. */
const gdt_provenance *gdt_tables_provenance(const gdt_tables *t);

#ifdef __cplusplus
}
#endif
#endif
