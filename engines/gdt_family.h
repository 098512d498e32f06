/* engines/gdt_family.h — the family descriptor.  Private.
 *
 * One ops table per family, so that what a family is lives in one file
 * (engines/family_gemm.c, engines/family_sdpa.c): its default problem, its
 * --shape keys, strides, validation, canonical key, flops, operands and
 * their geometry, its facts, the JSON shape of its problem, facts and shard
 * group in the tables, and the metric that orders a shard.  The generic code
 * (engines/family.c, facts.c, tables_*.c) reads a family only through it. */
#ifndef GDT_FAMILY_H
#define GDT_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "gdtune/gdtune.h"

/* ------------------------------------------------------------ shape keys */

typedef enum gdt__key_kind {
    GDT__KEY_DIM,    /* a positive int32 into the int64s at off[0] and off[1] (may be equal) */
    GDT__KEY_DTYPE,  /* a dtype name into the gdt_dtype at off[0] */
    GDT__KEY_CHOICE, /* names[i] (value i) or an alias into the int-sized enum at off[0] */
    GDT__KEY_MAJOR,  /* names[0] (row) or names[1] (col): the layout mark on the int64[3]
                        strides at off[0], which set_strides completes */
    GDT__KEY_NUMBER, /* a finite number > 0 into the double at off[0] */
} gdt__key_kind;

typedef struct gdt__key_alias {
    const char *name;
    int value;
} gdt__key_alias;

/* A CHOICE key's names and aliases together, as the parser lists them. */
#define GDT__KEY_CHOICES_MAX 8
/* The parser marks the keys given in one unsigned bitmask. */
#define GDT__KEYS_MAX 32

typedef struct gdt__shape_key {
    const char *name;
    gdt__key_kind kind;
    size_t off[2];                 /* offsetof(gdt_problem, ...) */
    const char *const *names;      /* CHOICE, MAJOR */
    int nnames;
    const gdt__key_alias *aliases; /* CHOICE: other spellings, listed after the names */
    int naliases;
} gdt__shape_key;

/* ----------------------------------------------------------- JSON fields */

/* One field of a table's "problem", "facts" or shard "group" object, in the
 * order it is written and read. */
typedef enum gdt__field_kind {
    GDT__FIELD_INT,   /* int64_t: an integer */
    GDT__FIELD_INTS,  /* int64_t[n]: an array of n integers */
    GDT__FIELD_DTYPE, /* gdt_dtype: its name */
    GDT__FIELD_NAME,  /* an int-sized enum: names[value] */
    GDT__FIELD_EXACT, /* double: %.17g; as a fact, equal within 1e-9 relative */
    GDT__FIELD_BOOL,  /* bool: true or false */
} gdt__field_kind;

typedef struct gdt__field {
    const char *name;
    gdt__field_kind kind;
    size_t off;               /* offsetof(gdt_problem or gdt_facts, ...); unused in a group */
    int n;                    /* INTS: the length; NAME: how many names */
    const char *const *names; /* NAME */
} gdt__field;

/* A shard group is a few integers (dtype, flags, enums, sizes), one per
 * group field, compared in field order. */
#define GDT__GROUP_MAX 4
/* Fields of one problem or facts object. */
#define GDT__FIELDS_MAX 16
/* Operands of one family. */
#define GDT__OPERANDS_MAX 9
/* Features of the tables' time model (gdt_predict.h). */
#define GDT__FEATURES_MAX 3
/* Features of the placement ratio where the family has its own
 * (gdt_predict.h). */
#define GDT__RATIO_FEATURES_MAX 4

/* Rows of the tables above, their optional members zero. */
#define GDT__KEY_ROW(key, kind_, a, b) {.name = key, .kind = GDT__KEY_##kind_, .off = {a, b}}
#define GDT__FIELD_ROW(key, kind_, offset) {.name = key, .kind = GDT__FIELD_##kind_, .off = offset}
/* An INTS field of n integers, and a NAME field whose count is its names
 * array's length. */
#define GDT__FIELD_INTS_ROW(key, offset, n_) {.name = key, .kind = GDT__FIELD_INTS, .off = offset, .n = n_}
#define GDT__FIELD_NAME_ROW(key, offset, names_)                                                   \
    {.name = key, .kind = GDT__FIELD_NAME, .off = offset, .n = (int)(sizeof names_ / sizeof names_[0]), \
     .names = names_}

/* Rows keyed by their member's name, so that the key and the member are one
 * spelling: member m of gdt_problem's u.fam (an INTS one as long as the
 * member's array, a NAME one over names_) and member m of gdt_facts. */
#define GDT__PROBLEM_ROW(fam, kind_, m) GDT__FIELD_ROW(#m, kind_, offsetof(gdt_problem, u.fam.m))
#define GDT__PROBLEM_INTS_ROW(fam, m)                                                              \
    GDT__FIELD_INTS_ROW(#m, offsetof(gdt_problem, u.fam.m),                                        \
                        (int)(sizeof((gdt_problem *)0)->u.fam.m / sizeof((gdt_problem *)0)->u.fam.m[0]))
#define GDT__PROBLEM_NAME_ROW(fam, m, names_) GDT__FIELD_NAME_ROW(#m, offsetof(gdt_problem, u.fam.m), names_)
#define GDT__FACT_ROW(kind_, m) GDT__FIELD_ROW(#m, kind_, offsetof(gdt_facts, m))
/* A shard group's field: a key and a kind, no member. */
#define GDT__GROUP_ROW(key, kind_) GDT__FIELD_ROW(key, kind_, 0)

/* ----------------------------------------------------------- descriptor */

typedef struct gdt_family_desc {
    const char *name; /* gdt_family_name's text */

    /* The default shape (docs/commands.md), on a zeroed problem whose family is set;
     * set_strides follows. */
    void (*defaults)(gdt_problem *p);
    const gdt__shape_key *keys; /* --shape keys, in the order "valid keys" lists them */
    int nkeys;
    /* Optional (NULL: none): fields that follow others unless the shape
     * gave them; given has bit i set for keys[i]. */
    void (*complete)(gdt_problem *p, unsigned given);
    void (*set_strides)(gdt_problem *p);
    gdt_status (*validate)(const gdt_problem *p, gdt_error *e);
    int (*key)(const gdt_problem *p, char *buf, size_t n);
    double (*flops)(const gdt_problem *p);
    size_t dtype_off; /* offsetof(gdt_problem, ...) of the data operands' gdt_dtype */

    /* Operand roles, inputs first, then the noutputs outputs. */
    int noperands, noutputs;
    gdt_operand_role operands[GDT__OPERANDS_MAX];
    /* Logical dims and strides of a role the family binds (see
     * gdt__operand_geometry); returns the rank. */
    int (*geometry)(const gdt_problem *p, gdt_operand_role r, int64_t dims[4], int64_t strides[4]);
    /* The family's own facts; family, problem, device, dtype and flops are
     * already filled. */
    void (*facts)(const gdt_problem *p, gdt_facts *f);

    /* The tables: problem and facts objects, the shard group and the metric
     * that orders the cells of one group. */
    const gdt__field *problem_fields;
    int nproblem_fields;
    const gdt__field *facts_fields;
    int nfacts_fields;
    const gdt__field *group_fields;
    int ngroup_fields;
    void (*group)(const gdt_facts *f, int64_t v[GDT__GROUP_MAX]);
    const char *metric_name;
    double (*metric)(const gdt_facts *f);

    /* The time model's features of one plan on one shape: logs of the work
     * on the busiest SM (waves over sms SMs of the plan's tiles, padding
     * included), of its serial steps and of the bytes moved.  A plan
     * without tile knobs (the backend's) is counted with 128x128 tiles. */
    const char *const *feature_names;
    int nfeatures;
    void (*features)(const gdt_facts *f, const gdt_plan_id *id, int sms, double *phi);
    /* Optional (nratio_features 0: the model's features and log_flops):
     * what the placement ratio (ours against the backend's heuristic first)
     * weighs, from the shape's facts and the model's features of the
     * backend's default tiles (phi, log_flops last). */
    const char *const *ratio_feature_names;
    int nratio_features;
    void (*ratio_features)(const gdt_facts *f, const double *phi, double *out);
} gdt_family_desc;

/* NULL outside the enum. */
const gdt_family_desc *gdt__family_desc(gdt_family f);

/* Reads "k=v,..." as gdt_problem_parse does, without validating the problem
 * it makes: whether each key and value is one the family reads, whatever
 * the other keys will be (sweep --shape checks values one at a time). */
gdt_status gdt__problem_apply(gdt_family f, const char *spec, gdt_error *e);

extern const gdt_family_desc gdt__family_gemm, gdt__family_sdpa_fwd, gdt__family_sdpa_bwd;

/* gdt_causal and gdt_layout by value, as keys, shapes and tables spell them. */
extern const char *const gdt__causal_names[3];
extern const char *const gdt__layout_names[2];

/* ------------------------------------------------- helpers for families */

/* Logical geometry of an operand: dims and strides (elements) in logical
 * order (GEMM: batch, row, col; SDPA: b, h, s, d; Stats: b, h_q, s_q, 1
 * packed), unused axes 1 with stride 0.  Returns the rank, 0 when the family
 * does not bind the role. */
int gdt__operand_geometry(const gdt_problem *p, gdt_operand_role r, int64_t dims[4],
                          int64_t strides[4]);
/* Copies rank dims and strides into the geometry; returns rank. */
int gdt__geometry_set(int64_t dims[4], int64_t strides[4], const int64_t *d, const int64_t *s,
                      int rank);

/* BAD_INPUT "<fam>: <name> = <v>: expected 1..2147483647" for the first
 * value outside that range. */
gdt_status gdt__check_dims(const char *fam, const char *const *names, const int64_t *v, int n,
                           gdt_error *e);
/* BAD_INPUT naming the operand when its dims times size overflow int64. */
gdt_status gdt__check_operand(const char *fam, const char *op, const int64_t *dims, int n,
                              int64_t size, gdt_error *e);

/* Wraps instead of overflowing: strides of a problem that validate refuses
 * are never used, but computing them must not be undefined. */
static inline int64_t gdt__mul_wrap(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

#endif
