/* engines/gdt_tables_impl.h — what the pieces of the tables share.  Private.
 *
 * The placement and tuning tables (their schemas: tables/README.md) are
 * cut along their jobs, one file each:
 *   tables_fields.c      a cell's record: a field as an integer, its facts,
 *                        its shard group and metric, its key's order
 *   tables_rank.c        the ranking and placement rule of a measured cell
 *   tables_emit.c        the JSON text of the two files, deterministic
 *   tables_model.c       the time model: fitted for the writer, scored on
 *                        cells it did not see, its picks and figures
 *   tables_write.c       gdt_tables_write: check and derive every cell,
 *                        then publish both files or neither
 *   tables_get.c         the loader's getters: one JSON value each (a plan's
 *                        identity too), refused with the file, the JSON
 *                        path, expected and got
 *   tables_read.c        the loader: both files, all or nothing
 *   tables_read_model.c  the loader of the placement table's model
 *   tables_find.c        where tables are (the search path), gdt_tables_load
 *   tables_lookup.c      what the planner reads: a cell, a shard, a time
 * Calls run one way: write to emit, model, rank and read (the loader checks
 * what is about to be published); find to read; read to read_model and
 * get; lookup and model to gdt_predict.h, which calls back only into the
 * rank rule. */
#ifndef GDT_TABLES_IMPL_H
#define GDT_TABLES_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdt_family.h"
#include "gdt_json.h"
#include "gdt_predict.h"
#include "gdtune/tables.h"

/* A cell's key (gdt_problem_key) and a plan's name (gdt_plan_id_format). */
#define GDT__TABLE_KEY_MAX 256
#define GDT__PLAN_NAME_MAX 512

/* The two files of a pair; each names its kind in "schema". */
typedef enum gdt__table_kind { GDT__TABLE_TUNING, GDT__TABLE_PLACEMENT } gdt__table_kind;

/* The region a placement shard describes: cells that share these derived
 * facts (the family's group fields, in order; unused values 0) are ordered
 * along the family's metric, as a hand-written placement does. */
typedef struct gdt__shard_group {
    int64_t v[GDT__GROUP_MAX];
} gdt__shard_group;

/* Placement of one cell: our fastest against the backend's fastest; the
 * library's fastest is recorded beside them and decides nothing. */
typedef struct gdt__placement {
    int best_ours, best_backend, best_library; /* plan indices or -1 */
    bool lead;
    bool has_ratio;
    double ratio, noise;
} gdt__placement;

/* The writer's text as it grows; oom: an allocation failed and nothing is
 * written (publish_pair refuses it). */
typedef struct gdt__sb {
    char *p;
    size_t n, cap;
    bool oom;
} gdt__sb;

/* Everything the writer derives for one cell. */
typedef struct gdt__cell_work {
    const gdt_measured_cell *c;
    char key[GDT__TABLE_KEY_MAX];
    gdt_facts facts;
    int *order;
    int backend_pos, fallback;
    gdt__placement pl;
    gdt__shard_group group;
    double metric;
} gdt__cell_work;

/* A tuning cell as loaded: its ranking, where the backend's block starts
 * and its fallback. */
typedef struct gdt__tcell {
    char key[GDT__TABLE_KEY_MAX];
    int nranked;
    gdt_plan_id *ranked;
    bool *is_backend;
    gdt_measured_plan *measured; /* the ranking's entries whole, for gdt_tables_cell */
    int backend_pos;
    bool has_fallback;
    gdt_plan_id fallback;
} gdt__tcell;

/* A placement cell as loaded. */
typedef struct gdt__pcell {
    char key[GDT__TABLE_KEY_MAX];
    gdt_facts facts;
    bool lead, has_ratio;
    double ratio, noise;
} gdt__pcell;

/* A cell of either table by its key, its first member: qsort, bsearch. */
_Static_assert(offsetof(gdt__tcell, key) == 0 && offsetof(gdt__pcell, key) == 0, "a cell starts with its key");

/* A placement shard as loaded: its group's shapes with the metric in
 * [lo, hi), each end open where has_lo or has_hi is false. */
typedef struct gdt__shard {
    gdt__shard_group g;
    bool has_lo, has_hi, lead, has_ratio;
    double lo, hi, ratio, noise;
} gdt__shard;

/* Both files of a pair, loaded: the cells of each sorted by key. */
struct gdt_tables {
    gdt_family family;
    int arch;
    bool have_prov;
    gdt_provenance prov;
    gdt__tcell *t;
    int nt;
    gdt__pcell *p;
    int np;
    gdt__shard *s;
    int ns;
    bool have_model, has_validation;
    gdt__predictor model;
    gdt__pred_cv validation; /* the model's figures on a validation sweep, when emitted with one */
};

/* What every reader needs: the file for messages and what the table must
 * describe. */
typedef struct gdt__ld {
    const char *file;
    gdt_family family;
    int arch;
    gdt_error *e;
} gdt__ld;

typedef char gdt__jpath[320];

/* ---------------------------------------------------- tables_fields.c */

/* The schema a table of kind k carries ("schema"). */
const char *gdt__table_schema(gdt__table_kind k);
/* INT, DTYPE, NAME and BOOL fields as one integer: how a shard group holds
 * them, and how the writer and the reader treat the four alike. */
int64_t gdt__scalar_load(const gdt__field *fd, const void *base);
void gdt__scalar_store(const gdt__field *fd, void *base, int64_t v);
/* The facts this release derives for p on arch (its limits, else arch alone). */
void gdt__facts_for(const gdt_problem *p, int arch, gdt_facts *f);
void gdt__group_of(const gdt_facts *f, gdt__shard_group *g);
int gdt__group_cmp(const gdt__shard_group *a, const gdt__shard_group *b);
bool gdt__group_equal(const gdt__shard_group *a, const gdt__shard_group *b);
double gdt__metric_of(const gdt_facts *f);
/* Cells of either table by their key, their first member: qsort, bsearch. */
int gdt__key_cmp(const void *a, const void *b);
/* The model interval's kinds of lead, by gdt__lead_kind ("ours", "block"). */
extern const char *const gdt__lead_kind_keys[GDT__LEAD_KINDS];

/* ------------------------------------------------------ tables_rank.c */

/* order[] receives the cell's plan indices in ranked order. */
void gdt__rank_cell(const gdt_measured_cell *c, int *order);
/* Where the backend's block starts in that order. */
int gdt__backend_pos_of(const gdt_measured_cell *c, const int *order);
/* The plan to fall back on, -1 none. */
int gdt__fallback_of(const gdt_measured_cell *c);
void gdt__place_cell(const gdt_measured_cell *c, gdt__placement *pl);

/* ------------------------------------------------------ tables_emit.c */

/* The tuning file of the cells w[0..n), in key order. */
void gdt__emit_tuning(gdt__sb *b, gdt_family f, const gdt_provenance *prov, const gdt__cell_work *w, int n);
/* The placement file's header, cells and shards; its model follows. */
gdt_status gdt__emit_placement(gdt__sb *b, gdt_family f, const gdt_provenance *prov, gdt__cell_work *w, int n,
                               gdt_error *e);
/* The placement file's model (m NULL: none) and its end. */
void gdt__emit_model(gdt__sb *b, gdt_family f, const gdt__predictor *m, const gdt__pred_cv *validation);

/* ----------------------------------------------------- tables_model.c */

/* The model of the swept cells w[0..n) (in key order), its choices weighing
 * the validation cells of f too, and its figures on them (*vcv, when
 * validation and *fitted); none when too few cells (*fitted false). */
gdt_status gdt__model_fit(gdt_family f, int arch, const gdt__cell_work *w, int n, const gdt_measured_cell *validation,
                          int nvalidation, gdt__predictor *m, bool *fitted, gdt__pred_cv *vcv, gdt_error *e);

/* ------------------------------------------------------- tables_get.c */

gdt_status gdt__ld_bad(const gdt__ld *l, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *gdt__jp_key(char *buf, const char *parent, const char *key);
const char *gdt__jp_at(char *buf, const char *parent, int i);
gdt_status gdt__ld_node(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, const cJSON **n);
gdt_status gdt__ld_int(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, int64_t *out);
gdt_status gdt__ld_int32(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, int lo, int *out);
gdt_status gdt__ld_num(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, double *out);
gdt_status gdt__ld_check_text(const gdt__ld *l, const char *path, const char *v);
gdt_status gdt__ld_str(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, const char **out);
gdt_status gdt__ld_bool(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, bool *out);
gdt_status gdt__ld_opt_num(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, bool *has,
                           double *out);
/* o[key] and its JSON path into sp. */
gdt_status gdt__ld_sub(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, const cJSON **n,
                       char *sp);
/* o[key], an array of *n items, and its JSON path into ap. */
gdt_status gdt__ld_array(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, char *ap,
                         const cJSON **out, int *n);
/* Item i of an array (x, at JSON path jp) read by the caller's reader:
 * into recs' record i, for gdt__ld_records. */
typedef gdt_status (*gdt__ld_item)(const gdt__ld *l, const cJSON *x, const char *jp, void *recs, int i, void *ctx);
/* one(l, item, its path, recs, i, ctx) for each item of the array a (at
 * ap), in order, until one fails; *count (unless NULL) is the items
 * begun. */
gdt_status gdt__ld_items(const gdt__ld *l, const cJSON *a, const char *ap, gdt__ld_item one, void *recs, void *ctx,
                         int *count);
/* o[key], an array (its path into ap), read into *out: a zeroed array of
 * one size-byte record an item (room for one when empty), set before the
 * first item is read, each read by one; *count is the records begun, so
 * that a failure frees what was read. */
gdt_status gdt__ld_records(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, char *ap, size_t size,
                           gdt__ld_item one, void *ctx, void **out, int *count);
/* o[key], an array of exactly n items ("expected <n> <what>, got <len>"
 * else), each read by one into recs (gdt__ld_items). */
gdt_status gdt__ld_fixed(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, int n, const char *what,
                         gdt__ld_item one, void *recs, void *ctx);
gdt_status gdt__ld_oom(const gdt__ld *l);
gdt_status gdt__ld_names(const gdt__ld *l, const cJSON *o, const char *key, const char *jp,
                         const char *const *names, int nnames, int *out);
gdt_status gdt__ld_text(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, char *dst, size_t cap);
gdt_status gdt__ld_keys(const gdt__ld *l, const cJSON *o, const char *const *keys, int n, const char *jp);
#define GDT__CHECK_KEYS(l, o, keys, jp) gdt__ld_keys(l, o, keys, (int)(sizeof keys / sizeof keys[0]), jp)
/* plan, engine_id, knobs, is_backend: the name must be what engine_id and
 * knobs print as. */
gdt_status gdt__ld_plan_id(const gdt__ld *l, const cJSON *o, const char *jp, gdt_plan_id *id, bool *is_backend);

/* ------------------------------------------------------ tables_read.c */

/* One file into t.  family < 0: the file says (tables check). */
gdt_status gdt__tables_load_one(const char *path, int family, int arch, gdt__table_kind *kind, gdt_tables *t,
                                gdt_error *e);
/* Both files of a pair into one gdt_tables.  family < 0: the tuning file
 * says which family and arch, and the placement file must say the same. */
gdt_status gdt__tables_load_pair(const char *tp, const char *pp, int family, int arch, gdt_tables **out,
                                 gdt_error *e);
/* The texts of a pair about to be written (tp, pp their paths) as the
 * loader reads them. */
gdt_status gdt__tables_check_texts(const char *tp, const char *t, size_t tn, const char *pp, const char *p,
                                   size_t pn, gdt_error *e);

/* ------------------------------------------------ tables_read_model.c */

/* The placement table's "model" (null: none) into t->model. */
gdt_status gdt__read_model(const gdt__ld *l, const cJSON *root, gdt_tables *t);

#endif
