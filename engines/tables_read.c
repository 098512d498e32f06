/* The tables' loader: both files of a pair, every field checked against
 * what this release derives, all or nothing (gdt_tables_load reads through
 * it, `tables check` and the writer's last check too). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_tables_impl.h"
#include "gdt_util.h"

/* What a table of another version of one of our schemas needs, as the
 * end of the refusal's message; "" for anything else. */
static const char *other_version(const char *schema)
{
    static const char *const ours[] = {GDT_TABLE_SCHEMA_TUNING, GDT_TABLE_SCHEMA_PLACEMENT};
    for (size_t i = 0; i < sizeof ours / sizeof *ours; i++) {
        size_t stem = (size_t)(strchr(ours[i], '/') - ours[i]) + 1;
        if (!strncmp(schema, ours[i], stem))
            return ": another version of gdtune wrote it (the layout differs); emit the tables again "
                   "from the journal they come from (gdtune tables emit RUNDIR)";
    }
    return "";
}

void gdt_tables_destroy(gdt_tables *t)
{
    if (!t) return;
    for (int i = 0; i < t->nt; i++) {
        free(t->t[i].ranked);
        free(t->t[i].is_backend);
        free(t->t[i].measured);
    }
    gdt__predictor_clear(&t->model);
    free(t->t);
    free(t->p);
    free(t->s);
    free(t);
}

/* ------------------------------------------------------------- provenance */

static gdt_status read_provenance(const gdt__ld *l, const cJSON *o, const char *jp, gdt_provenance *v)
{
    static const char *const keys[] = {"device_name", "arch", "driver_version", "cuda_version",
                                       "cudnn_version", "nvrtc_version", "gdtune_version",
                                       "source_digest", "sweep_digest", "candidates_digest"};
    gdt_status s = GDT__CHECK_KEYS(l, o, keys, jp);
    memset(v, 0, sizeof *v);
    if (!s) s = gdt__ld_text(l, o, "device_name", jp, v->device_name, sizeof v->device_name);
    if (!s) s = gdt__ld_int32(l, o, "arch", jp, 0, &v->arch);
    if (!s) s = gdt__ld_int32(l, o, "driver_version", jp, 0, &v->driver_version);
    if (!s) s = gdt__ld_int32(l, o, "cuda_version", jp, 0, &v->cuda_version);
    if (!s) s = gdt__ld_int32(l, o, "cudnn_version", jp, 0, &v->cudnn_version);
    if (!s) s = gdt__ld_int32(l, o, "nvrtc_version", jp, 0, &v->nvrtc_version);
    if (!s) s = gdt__ld_text(l, o, "gdtune_version", jp, v->gdtune_version, sizeof v->gdtune_version);
    if (!s) s = gdt__ld_text(l, o, "source_digest", jp, v->source_digest, sizeof v->source_digest);
    if (!s) s = gdt__ld_text(l, o, "sweep_digest", jp, v->sweep_digest, sizeof v->sweep_digest);
    if (!s) s = gdt__ld_text(l, o, "candidates_digest", jp, v->candidates_digest, sizeof v->candidates_digest);
    gdt__jpath p;
    if (!s && v->arch != l->arch)
        return gdt__ld_bad(l, gdt__jp_key(p, jp, "arch"), "expected %d (the table's arch), got %d", l->arch, v->arch);
    return s;
}

/* ---------------------------------------------------------------- problem */

static gdt_status int_item(const gdt__ld *l, const cJSON *x, const char *jp, void *dst, int i, void *ctx)
{
    (void)ctx;
    return gdt_json_int(x, l->file, jp, (int64_t *)dst + i, l->e);
}

static gdt_status get_ints(const gdt__ld *l, const cJSON *o, const char *key, const char *jp,
                           int64_t *dst, int n)
{
    return gdt__ld_fixed(l, o, key, jp, n, "integers", int_item, dst, NULL);
}

static gdt_status check_fields(const gdt__ld *l, const cJSON *o, const gdt__field *fields, int n,
                               const char *jp)
{
    const char *keys[GDT__FIELDS_MAX];
    if (n > GDT__FIELDS_MAX) n = GDT__FIELDS_MAX;
    for (int i = 0; i < n; i++) keys[i] = fields[i].name;
    return gdt__ld_keys(l, o, keys, n, jp);
}

/* One INT, DTYPE, NAME or BOOL field, as an integer. */
static gdt_status read_scalar(const gdt__ld *l, const cJSON *o, const gdt__field *fd, const char *jp,
                              int64_t *v)
{
    const char *dtypes[GDT_DTYPE_COUNT];
    int i = 0;
    bool flag = false;
    gdt_status s;
    switch (fd->kind) {
    case GDT__FIELD_DTYPE:
        for (int j = 0; j < GDT_DTYPE_COUNT; j++) dtypes[j] = gdt_dtype_name((gdt_dtype)j);
        s = gdt__ld_names(l, o, fd->name, jp, dtypes, GDT_DTYPE_COUNT, &i);
        *v = i;
        return s;
    case GDT__FIELD_NAME:
        s = gdt__ld_names(l, o, fd->name, jp, fd->names, fd->n, &i);
        *v = i;
        return s;
    case GDT__FIELD_BOOL:
        s = gdt__ld_bool(l, o, fd->name, jp, &flag);
        *v = flag;
        return s;
    default: return gdt__ld_int(l, o, fd->name, jp, v);
    }
}

/* The object's fields, exactly these, into the record base. */
static gdt_status read_fields(const gdt__ld *l, const cJSON *o, const char *jp, const gdt__field *fields,
                              int n, void *base)
{
    gdt_status s = check_fields(l, o, fields, n, jp);
    for (int i = 0; i < n && !s; i++) {
        const gdt__field *fd = &fields[i];
        char *at = (char *)base + fd->off;
        int64_t v = 0;
        if (fd->kind == GDT__FIELD_INTS) s = get_ints(l, o, fd->name, jp, (int64_t *)at, fd->n);
        else if (fd->kind == GDT__FIELD_EXACT) s = gdt__ld_num(l, o, fd->name, jp, (double *)at);
        else if (!(s = read_scalar(l, o, fd, jp, &v))) gdt__scalar_store(fd, base, v);
    }
    return s;
}

/* The problem as written, validated, and its key as this release computes
 * it: a key that does not follow from the fields is refused. */
static gdt_status read_problem(const gdt__ld *l, const cJSON *cell, const char *jp, gdt_problem *p,
                               char key[GDT__TABLE_KEY_MAX])
{
    const cJSON *o;
    const char *written;
    gdt__jpath pp;
    gdt_status s = gdt__ld_str(l, cell, "key", jp, &written);
    if (!s) s = gdt__ld_node(l, cell, "problem", jp, &o);
    if (s) return s;
    memset(p, 0, sizeof *p);
    p->family = l->family;
    gdt__jp_key(pp, jp, "problem");
    const gdt_family_desc *d = gdt__family_desc(l->family);
    s = read_fields(l, o, pp, d->problem_fields, d->nproblem_fields, p);
    if (s) return s;
    gdt_error pe;
    gdt_error_clear(&pe);
    if (gdt_problem_validate(p, &pe)) return gdt__ld_bad(l, pp, "%s", pe.msg);
    gdt_problem_key(p, key, GDT__TABLE_KEY_MAX);
    if (strcmp(key, written))
        return gdt__ld_bad(l, gdt__jp_key(pp, jp, "key"),
                           "expected \"%s\" (the key of the problem's fields), got \"%s\"", key, written);
    return GDT_STATUS_OK;
}

/* An EXACT fact (flops) is written with %.17g; what this release derives
 * may differ from it in the last bits. */
#define FACT_REL_TOL 1e-9

/* A fact as written must be the fact derived (flops within FACT_REL_TOL
 * relative). */
static gdt_status check_fact(const gdt__ld *l, const cJSON *o, const gdt__field *fd, const char *jp,
                             const gdt_facts *f)
{
    gdt__jpath p;
    gdt_status s;
    if (fd->kind == GDT__FIELD_EXACT) {
        double v, want = *(const double *)((const char *)f + fd->off);
        if ((s = gdt__ld_num(l, o, fd->name, jp, &v))) return s;
        if (fabs(v - want) > FACT_REL_TOL * fabs(want))
            return gdt__ld_bad(l, gdt__jp_key(p, jp, fd->name), "expected %.17g (derived from the problem), got %.17g",
                               want, v);
        return GDT_STATUS_OK;
    }
    int64_t v = 0, want = gdt__scalar_load(fd, f);
    if ((s = read_scalar(l, o, fd, jp, &v)) || v == want) return s;
    if (fd->kind == GDT__FIELD_BOOL)
        return gdt__ld_bad(l, gdt__jp_key(p, jp, fd->name), "expected %s (derived from the problem), got %s",
                           want ? "true" : "false", v ? "true" : "false");
    return gdt__ld_bad(l, gdt__jp_key(p, jp, fd->name), "expected %" PRId64 " (derived from the problem), got %" PRId64,
                       want, v);
}

/* Facts are written for people and for the shards; they must be the facts
 * this release derives from the problem. */
static gdt_status read_facts(const gdt__ld *l, const cJSON *cell, const char *jp, const gdt_problem *p,
                             gdt_facts *f)
{
    const gdt_family_desc *d = gdt__family_desc(l->family);
    const cJSON *o;
    gdt__jpath fp;
    gdt_status s = gdt__ld_sub(l, cell, "facts", jp, &o, fp);
    if (s) return s;
    s = check_fields(l, o, d->facts_fields, d->nfacts_fields, fp);
    gdt__facts_for(p, l->arch, f);
    for (int i = 0; i < d->nfacts_fields && !s; i++) s = check_fact(l, o, &d->facts_fields[i], fp, f);
    return s;
}

static gdt_status read_identity(const gdt__ld *l, const cJSON *o, const char *jp, gdt_plan_id *id,
                                bool *is_backend, gdt_mode *mode_out)
{
    static const char *const modes[] = {"A", "B", "FALLBACK", "OPENSOURCE", "enumerated"};
    _Static_assert(sizeof modes / sizeof *modes == GDT_MODE_COUNT + 1, "a name per gdt_mode, then \"enumerated\"");
    int mode = 0;
    gdt_status s = gdt__ld_plan_id(l, o, jp, id, is_backend);
    if (!s) s = gdt__ld_names(l, o, "mode", jp, modes, GDT_MODE_COUNT + 1, &mode);
    if (!s) *mode_out = (gdt_mode)mode; /* modes[] is in gdt_mode order, "enumerated" last */
    return s;
}

static gdt_status read_ranked(const gdt__ld *l, const cJSON *o, const char *jp, gdt_plan_id *id,
                              bool *is_backend, gdt_measured_plan *m)
{
    static const char *const keys[] = {"plan", "engine_id", "knobs", "is_backend", "mode", "time_us",
                                       "noise", "host_us", "samples", "untimed_position"};
    double t = 0, noise = 0, host;
    int samples, pos;
    gdt__jpath p;
    gdt_status s = GDT__CHECK_KEYS(l, o, keys, jp);
    if (!s) s = read_identity(l, o, jp, id, is_backend, &m->mode);
    if (!s) s = gdt__ld_num(l, o, "time_us", jp, &t);
    if (!s) s = gdt__ld_num(l, o, "noise", jp, &noise);
    if (!s) s = gdt__ld_num(l, o, "host_us", jp, &host);
    if (!s) s = gdt__ld_int32(l, o, "samples", jp, 0, &samples);
    if (!s) s = gdt__ld_int32(l, o, "untimed_position", jp, 0, &pos);
    if (!s && !(t > 0)) return gdt__ld_bad(l, gdt__jp_key(p, jp, "time_us"), "expected a time > 0, got %g", t);
    if (!s && noise < 0) return gdt__ld_bad(l, gdt__jp_key(p, jp, "noise"), "expected noise >= 0, got %g", noise);
    if (!s && host < 0) return gdt__ld_bad(l, gdt__jp_key(p, jp, "host_us"), "expected a time >= 0, got %g", host);
    if (!s) {
        m->id = *id;
        m->is_backend = *is_backend;
        m->untimed_position = pos;
        m->time_us = t;
        m->noise = noise;
        m->host_us = host;
        m->samples = samples;
    }
    return s;
}

/* ------------------------------------------------------------ tuning cell */

/* winner and runner_up: the names of the ranking's first two entries
 * (each checked against its engine and knobs), null past its end. */
static gdt_status check_named(const gdt__ld *l, const cJSON *n, const char *jp, const gdt__tcell *c, int i)
{
    char want[GDT__PLAN_NAME_MAX];
    const char *got;
    if (i >= c->nranked)
        return cJSON_IsNull(n) ? GDT_STATUS_OK
                               : gdt__ld_bad(l, jp, "expected null (%d entries in the ranking), got %s", c->nranked,
                                             gdt_json_type_name(n));
    gdt_plan_id_format(&c->ranked[i], want, sizeof want);
    if (!cJSON_IsString(n))
        return gdt__ld_bad(l, jp, "expected \"%s\" (ranking/%d), got %s", want, i, gdt_json_type_name(n));
    gdt_status s = gdt_json_string(n, l->file, jp, &got, l->e);
    if (!s) s = gdt__ld_check_text(l, jp, got);
    if (!s && strcmp(got, want)) return gdt__ld_bad(l, jp, "expected \"%s\" (ranking/%d), got \"%s\"", want, i, got);
    return s;
}

static gdt_status read_evidence(const gdt__ld *l, const cJSON *cell, const char *jp, const gdt__tcell *c)
{
    static const char *const keys[] = {"measured", "winner", "runner_up", "margin", "beyond_noise"};
    const cJSON *o, *n;
    gdt__jpath ep, p;
    int measured;
    bool has, beyond;
    double margin;
    gdt_status s = gdt__ld_sub(l, cell, "evidence", jp, &o, ep);
    if (s) return s;
    if ((s = GDT__CHECK_KEYS(l, o, keys, ep))) return s;
    if ((s = gdt__ld_int32(l, o, "measured", ep, 0, &measured))) return s;
    if (measured != c->nranked)
        return gdt__ld_bad(l, gdt__jp_key(p, ep, "measured"), "expected %d (entries in the ranking), got %d",
                           c->nranked, measured);
    for (int i = 1; i <= 2; i++) {
        const char *key = keys[i];
        if ((s = gdt__ld_node(l, o, key, ep, &n))) return s;
        if ((s = check_named(l, n, gdt__jp_key(p, ep, key), c, i - 1))) return s;
    }
    if ((s = gdt__ld_opt_num(l, o, "margin", ep, &has, &margin))) return s;
    return gdt__ld_bool(l, o, "beyond_noise", ep, &beyond);
}

/* Ranking entry i into the cell's (cell) arrays; rp: the ranking's path. */
static gdt_status ranked_item(const gdt__ld *l, const cJSON *x, const char *jp, void *cell, int i, void *rp)
{
    gdt__tcell *c = cell;
    gdt_status s = read_ranked(l, x, jp, &c->ranked[i], &c->is_backend[i], &c->measured[i]);
    for (int j = 0; j < i && !s; j++)
        if (gdt_plan_id_equal(&c->ranked[j], &c->ranked[i]))
            return gdt__ld_bad(l, jp, "plan ranked twice (also at %s/%d)", (const char *)rp, j);
    return s;
}

static gdt_status read_ranking(const gdt__ld *l, const cJSON *cell, const char *jp, gdt__tcell *c)
{
    const cJSON *a;
    int n = 0;
    gdt__jpath rp;
    gdt_status s = gdt__ld_array(l, cell, "ranking", jp, rp, &a, &n);
    if (s) return s;
    c->ranked = calloc((size_t)(n ? n : 1), sizeof *c->ranked);
    c->is_backend = calloc((size_t)(n ? n : 1), sizeof *c->is_backend);
    c->measured = calloc((size_t)(n ? n : 1), sizeof *c->measured);
    if (!c->ranked || !c->is_backend || !c->measured) return gdt__ld_oom(l);
    return gdt__ld_items(l, a, rp, ranked_item, c, rp, &c->nranked);
}

static gdt_status read_tuning_cell(const gdt__ld *l, const cJSON *o, const char *jp, gdt__tcell *c)
{
    static const char *const keys[] = {"key", "problem", "facts", "ranking", "backend_pos",
                                       "fallback", "evidence"};
    static const char *const fb_keys[] = {"plan", "engine_id", "knobs", "is_backend", "mode"};
    gdt_problem prob;
    gdt_facts facts;
    const cJSON *fb;
    gdt__jpath p;
    gdt_status s = GDT__CHECK_KEYS(l, o, keys, jp);
    if (!s) s = read_problem(l, o, jp, &prob, c->key);
    if (!s) s = read_facts(l, o, jp, &prob, &facts);
    if (!s) s = read_ranking(l, o, jp, c);
    if (!s) s = gdt__ld_int32(l, o, "backend_pos", jp, 0, &c->backend_pos);
    if (!s && c->backend_pos > c->nranked)
        return gdt__ld_bad(l, gdt__jp_key(p, jp, "backend_pos"), "expected a position in [0, %d], got %d", c->nranked,
                           c->backend_pos);
    if (!s) s = gdt__ld_node(l, o, "fallback", jp, &fb);
    if (!s && !cJSON_IsNull(fb)) {
        bool is_backend;
        gdt_mode mode;
        gdt__jp_key(p, jp, "fallback");
        c->has_fallback = true;
        s = GDT__CHECK_KEYS(l, fb, fb_keys, p);
        if (!s) s = read_identity(l, fb, p, &c->fallback, &is_backend, &mode);
    }
    if (!s) s = read_evidence(l, o, jp, c);
    return s;
}

/* --------------------------------------------------------- placement cell */

static const char *const decisions[] = {"TRAIL", "LEAD"};

/* A best_* entry: null, or a plan measured in time_us > 0 with noise >= 0. */
typedef struct best {
    bool has;
    double t, noise;
} best;

static gdt_status read_best(const gdt__ld *l, const cJSON *cell, const char *key, const char *jp, best *b)
{
    static const char *const keys[] = {"plan", "time_us", "noise"};
    const cJSON *o;
    const char *name;
    gdt__jpath p, q;
    gdt_status s = gdt__ld_sub(l, cell, key, jp, &o, p);
    *b = (best){0};
    if (s || cJSON_IsNull(o)) return s;
    s = GDT__CHECK_KEYS(l, o, keys, p);
    if (!s) s = gdt__ld_str(l, o, "plan", p, &name);
    if (!s) s = gdt__ld_num(l, o, "time_us", p, &b->t);
    if (!s) s = gdt__ld_num(l, o, "noise", p, &b->noise);
    if (!s && !(b->t > 0)) return gdt__ld_bad(l, gdt__jp_key(q, p, "time_us"), "expected a time > 0, got %g", b->t);
    if (!s && !(b->noise >= 0))
        return gdt__ld_bad(l, gdt__jp_key(q, p, "noise"), "expected noise >= 0, got %g", b->noise);
    b->has = !s;
    return s;
}

static gdt_status read_decision(const gdt__ld *l, const cJSON *o, const char *jp, bool *lead,
                                bool *has_ratio, double *ratio, double *noise)
{
    int d = 0;
    bool has_noise;
    gdt__jpath p;
    gdt_status s = gdt__ld_names(l, o, "decision", jp, decisions, 2, &d);
    *lead = d == 1;
    if (!s) s = gdt__ld_opt_num(l, o, "ratio", jp, has_ratio, ratio);
    if (!s) s = gdt__ld_opt_num(l, o, "noise", jp, &has_noise, noise);
    if (!s && has_noise != *has_ratio)
        return gdt__ld_bad(l, gdt__jp_key(p, jp, "noise"), "expected %s (ratio is %s)",
                           *has_ratio ? "a number" : "null", *has_ratio ? "a number" : "null");
    if (!s && *has_ratio && !(*ratio > 0))
        return gdt__ld_bad(l, gdt__jp_key(p, jp, "ratio"), "expected a ratio > 0, got %g", *ratio);
    if (!s && has_noise && !(*noise >= 0))
        return gdt__ld_bad(l, gdt__jp_key(p, jp, "noise"), "expected noise >= 0, got %g", *noise);
    return s;
}

/* The writer's %.6g leaves a stored ratio and the quotient of the stored
 * times apart by at most about 1.5e-6 of their value. */
#define RATIO_REL_TOL 1e-5

/* The ratio is best_ours' time over best_backend's, and there is one
 * exactly when both were measured. */
static gdt_status check_ratio(const gdt__ld *l, const char *jp, const gdt__pcell *c, const best *ours,
                              const best *back)
{
    gdt__jpath p;
    gdt__jp_key(p, jp, "ratio");
    if (c->has_ratio != (ours->has && back->has))
        return gdt__ld_bad(l, p, "expected %s (best_ours is %s, best_backend is %s), got %s",
                           c->has_ratio ? "null" : "a number", ours->has ? "measured" : "null",
                           back->has ? "measured" : "null", c->has_ratio ? "a number" : "null");
    if (!c->has_ratio) return GDT_STATUS_OK;
    double q = ours->t / back->t;
    if (fabs(c->ratio - q) > RATIO_REL_TOL * q)
        return gdt__ld_bad(l, p, "expected %.6g (best_ours.time_us / best_backend.time_us = %.6g / %.6g), got %.6g",
                           q, ours->t, back->t, c->ratio);
    return GDT_STATUS_OK;
}

static gdt_status read_placement_cell(const gdt__ld *l, const cJSON *o, const char *jp, gdt__pcell *c)
{
    static const char *const keys[] = {"key", "problem", "facts", "decision", "ratio", "noise",
                                       "best_ours", "best_backend", "best_library"};
    gdt_problem prob;
    best ours, back, lib;
    gdt_status s = GDT__CHECK_KEYS(l, o, keys, jp);
    if (!s) s = read_problem(l, o, jp, &prob, c->key);
    if (!s) s = read_facts(l, o, jp, &prob, &c->facts);
    if (!s) s = read_decision(l, o, jp, &c->lead, &c->has_ratio, &c->ratio, &c->noise);
    if (!s) s = read_best(l, o, "best_ours", jp, &ours);
    if (!s) s = read_best(l, o, "best_backend", jp, &back);
    if (!s) s = read_best(l, o, "best_library", jp, &lib);
    if (!s) s = check_ratio(l, jp, c, &ours, &back);
    return s;
}

/* ------------------------------------------------------------------ shards */

static gdt_status read_group(const gdt__ld *l, const cJSON *sh, const char *jp, gdt__shard_group *g)
{
    const gdt_family_desc *d = gdt__family_desc(l->family);
    const cJSON *o;
    gdt__jpath gp;
    gdt_status s = gdt__ld_sub(l, sh, "group", jp, &o, gp);
    if (s) return s;
    memset(g, 0, sizeof *g);
    s = check_fields(l, o, d->group_fields, d->ngroup_fields, gp);
    for (int i = 0; i < d->ngroup_fields && !s; i++)
        s = read_scalar(l, o, &d->group_fields[i], gp, &g->v[i]);
    return s;
}

static gdt_status read_shard_cells(const gdt__ld *l, const cJSON *o, const char *jp, const gdt_tables *t)
{
    const cJSON *a;
    int n = 0;
    gdt__jpath cp, p;
    gdt_status s = gdt__ld_array(l, o, "cells", jp, cp, &a, &n);
    if (s) return s;
    if (n == 0) return gdt__ld_bad(l, cp, "expected at least one cell key, got an empty array");
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        const char *k;
        if ((s = gdt_json_string(x, l->file, gdt__jp_at(p, cp, i), &k, l->e))) return s;
        gdt__pcell probe;
        snprintf(probe.key, sizeof probe.key, "%s", k);
        if (!bsearch(&probe, t->p, (size_t)t->np, sizeof *t->p, gdt__key_cmp))
            return gdt__ld_bad(l, p, "expected the key of a cell in /cells, got \"%s\"", k);
    }
    return GDT_STATUS_OK;
}

static gdt_status read_shard(const gdt__ld *l, const cJSON *o, const char *jp, const gdt_tables *t, gdt__shard *sh)
{
    static const char *const keys[] = {"group", "metric", "lo", "hi", "decision", "ratio", "noise", "cells"};
    const char *metrics[] = {gdt__family_desc(l->family)->metric_name};
    int metric;
    gdt__jpath p;
    gdt_status s = GDT__CHECK_KEYS(l, o, keys, jp);
    if (!s) s = read_group(l, o, jp, &sh->g);
    if (!s) s = gdt__ld_names(l, o, "metric", jp, metrics, 1, &metric);
    if (!s) s = gdt__ld_opt_num(l, o, "lo", jp, &sh->has_lo, &sh->lo);
    if (!s) s = gdt__ld_opt_num(l, o, "hi", jp, &sh->has_hi, &sh->hi);
    if (!s && sh->has_lo && sh->has_hi && sh->lo > sh->hi)
        return gdt__ld_bad(l, gdt__jp_key(p, jp, "hi"), "expected hi >= lo (%.17g), got %.17g", sh->lo, sh->hi);
    if (!s) s = read_decision(l, o, jp, &sh->lead, &sh->has_ratio, &sh->ratio, &sh->noise);
    if (!s) s = read_shard_cells(l, o, jp, t);
    return s;
}

/* ------------------------------------------------------------ whole files */

static gdt_status read_header(const gdt__ld *l, const cJSON *root, gdt__table_kind k, gdt_provenance *prov)
{
    static const char *const tuning_keys[] = {"schema", "family", "arch", "provenance", "cells"};
    static const char *const placement_keys[] = {"schema", "family", "arch", "provenance", "cells",
                                                 "shards", "model"};
    const char *schema, *fam, *arch;
    const cJSON *pv;
    gdt_status s = gdt__ld_str(l, root, "schema", "", &schema);
    if (s) return s;
    if (strcmp(schema, gdt__table_schema(k)))
        return gdt__ld_bad(l, "/schema", "expected \"%s\", got \"%s\"%s", gdt__table_schema(k), schema,
                           other_version(schema));
    if ((s = gdt__ld_str(l, root, "family", "", &fam))) return s;
    if (strcmp(fam, gdt_family_name(l->family)))
        return gdt__ld_bad(l, "/family", "expected \"%s\", got \"%s\"", gdt_family_name(l->family), fam);
    if ((s = gdt__ld_str(l, root, "arch", "", &arch))) return s;
    char want[16];
    snprintf(want, sizeof want, "sm%d", l->arch);
    if (strcmp(arch, want)) return gdt__ld_bad(l, "/arch", "expected \"%s\", got \"%s\"", want, arch);
    s = k == GDT__TABLE_TUNING ? GDT__CHECK_KEYS(l, root, tuning_keys, "")
                         : GDT__CHECK_KEYS(l, root, placement_keys, "");
    if (!s) s = gdt__ld_node(l, root, "provenance", "", &pv);
    if (!s) s = read_provenance(l, pv, "/provenance", prov);
    return s;
}

/* A table's "cells": each read by one into an array of size-byte cells
 * (gdt__ld_records: *out, *count the cells begun), sorted by key, a key
 * twice refused. */
static gdt_status read_cells(const gdt__ld *l, const cJSON *root, size_t size, gdt__ld_item one, void **out,
                             int *count)
{
    gdt__jpath p;
    gdt_status s = gdt__ld_records(l, root, "cells", "", p, size, one, NULL, out, count);
    if (s) return s;
    char *cells = *out;
    qsort(cells, (size_t)*count, size, gdt__key_cmp);
    for (int i = 1; i < *count; i++)
        if (!strcmp(cells + (size_t)(i - 1) * size, cells + (size_t)i * size))
            return gdt__ld_bad(l, "/cells", "cell \"%s\" appears twice", cells + (size_t)i * size);
    return GDT_STATUS_OK;
}

static gdt_status tuning_cell(const gdt__ld *l, const cJSON *o, const char *jp, void *cells, int i, void *ctx)
{
    (void)ctx;
    return read_tuning_cell(l, o, jp, (gdt__tcell *)cells + i);
}

static gdt_status placement_cell(const gdt__ld *l, const cJSON *o, const char *jp, void *cells, int i, void *ctx)
{
    (void)ctx;
    return read_placement_cell(l, o, jp, (gdt__pcell *)cells + i);
}

/* Shard i; t: the tables, whose cells its keys must name. */
static gdt_status shard_item(const gdt__ld *l, const cJSON *o, const char *jp, void *shards, int i, void *t)
{
    return read_shard(l, o, jp, t, (gdt__shard *)shards + i);
}

static gdt_status read_tuning(const gdt__ld *l, const cJSON *root, gdt_tables *t)
{
    void *cells = NULL;
    gdt_status s = read_cells(l, root, sizeof *t->t, tuning_cell, &cells, &t->nt);
    t->t = cells;
    return s;
}

static gdt_status read_placement(const gdt__ld *l, const cJSON *root, gdt_tables *t)
{
    gdt__jpath p;
    void *cells = NULL, *shards = NULL;
    gdt_status s = read_cells(l, root, sizeof *t->p, placement_cell, &cells, &t->np);
    t->p = cells;
    if (s) return s;
    s = gdt__ld_records(l, root, "shards", "", p, sizeof *t->s, shard_item, t, &shards, &t->ns);
    t->s = shards;
    if (s) return s;
    return gdt__read_model(l, root, t);
}

/* `tables check`: the file says what it is; each claim is then checked
 * as strictly as a load checks it. */
static gdt_status self_describe(gdt__ld *l, const cJSON *root, gdt__table_kind *kind)
{
    const char *schema, *fam, *arch;
    gdt_error pe;
    gdt_error_clear(&pe);
    gdt_status s = gdt__ld_str(l, root, "schema", "", &schema);
    if (s) return s;
    if (!strcmp(schema, GDT_TABLE_SCHEMA_TUNING)) *kind = GDT__TABLE_TUNING;
    else if (!strcmp(schema, GDT_TABLE_SCHEMA_PLACEMENT)) *kind = GDT__TABLE_PLACEMENT;
    else return gdt__ld_bad(l, "/schema", "expected \"%s\" or \"%s\", got \"%s\"%s", GDT_TABLE_SCHEMA_TUNING,
                            GDT_TABLE_SCHEMA_PLACEMENT, schema, other_version(schema));
    if ((s = gdt__ld_str(l, root, "family", "", &fam))) return s;
    if (gdt_family_parse(fam, &l->family, &pe)) return gdt__ld_bad(l, "/family", "%s", pe.msg);
    if ((s = gdt__ld_str(l, root, "arch", "", &arch))) return s;
    if (gdt_arch_parse(arch, &l->arch, &pe)) return gdt__ld_bad(l, "/arch", "%s", pe.msg);
    return GDT_STATUS_OK;
}

/* Reads one file's text into t.  family < 0: the file says (tables check). */
static gdt_status load_text(const char *path, const char *text, size_t len, int family, int arch,
                            gdt__table_kind *kind, gdt_tables *t, gdt_error *e)
{
    cJSON *root = NULL;
    gdt_provenance prov;
    gdt__ld l = {path, (gdt_family)(family < 0 ? 0 : family), arch, e};
    gdt_status s = gdt_json_parse(text, len, path, &root, e);
    if (!s && family < 0) s = self_describe(&l, root, kind);
    if (!s) s = read_header(&l, root, *kind, &prov);
    if (!s && t->have_prov && memcmp(&prov, &t->prov, sizeof prov))
        s = gdt__ld_bad(&l, "/provenance", "expected the provenance of its pair (one sweep writes both "
                                   "files), got a different one");
    if (!s) {
        t->prov = prov;
        t->have_prov = true;
        t->family = l.family;
        t->arch = l.arch;
        s = *kind == GDT__TABLE_TUNING ? read_tuning(&l, root, t) : read_placement(&l, root, t);
    }
    cJSON_Delete(root);
    return s;
}

gdt_status gdt__tables_load_one(const char *path, int family, int arch, gdt__table_kind *kind, gdt_tables *t,
                                gdt_error *e)
{
    char *text = NULL;
    size_t len = 0;
    gdt_status s = gdt_file_read(path, &text, &len, e);
    if (!s) s = load_text(path, text, len, family, arch, kind, t, e);
    free(text);
    return s;
}

/* Both files describe the same cells. */
static gdt_status check_pair(const gdt_tables *t, const char *tuning, const char *placement,
                             gdt_error *e)
{
    for (int i = 0, j = 0; i < t->nt || j < t->np; i++, j++) {
        int c = i >= t->nt ? 1 : j >= t->np ? -1 : strcmp(t->t[i].key, t->p[j].key);
        if (c < 0)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /cells: cell \"%s\" is in %s but not here",
                                 placement, t->t[i].key, tuning);
        if (c > 0)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /cells: cell \"%s\" is in %s but not here",
                                 tuning, t->p[j].key, placement);
    }
    return GDT_STATUS_OK;
}

/* Both files of a pair into one gdt_tables.  family < 0: the tuning file
 * says which family and arch (as `tables check` reads it), and the
 * placement file must say the same. */
gdt_status gdt__tables_load_pair(const char *tp, const char *pp, int family, int arch, gdt_tables **out,
                                 gdt_error *e)
{
    gdt_tables *t = calloc(1, sizeof *t);
    if (!t) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_tables_load: out of memory");
    gdt__table_kind kt = GDT__TABLE_TUNING, kp = GDT__TABLE_PLACEMENT;
    gdt_status s = gdt__tables_load_one(tp, family, arch, &kt, t, e);
    if (!s && kt != GDT__TABLE_TUNING)
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /schema: expected \"%s\", got \"%s\"", tp,
                          GDT_TABLE_SCHEMA_TUNING, GDT_TABLE_SCHEMA_PLACEMENT);
    if (!s) s = gdt__tables_load_one(pp, (int)t->family, t->arch, &kp, t, e);
    if (!s) s = check_pair(t, tp, pp, e);
    if (s) {
        gdt_tables_destroy(t);
        return s;
    }
    *out = t;
    return GDT_STATUS_OK;
}

/* The writer's last word: what it is about to publish is checked by the
 * code `tables check` runs on each file, then paired as a load pairs them,
 * so that nothing written is refused when read. */
gdt_status gdt__tables_check_texts(const char *tp, const char *t, size_t tn, const char *pp, const char *p,
                                   size_t pn, gdt_error *e)
{
    gdt_tables *tb = calloc(1, sizeof *tb);
    if (!tb) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    gdt__table_kind kt = GDT__TABLE_TUNING, kp = GDT__TABLE_PLACEMENT;
    gdt_error le;
    gdt_error_clear(&le);
    gdt_status s = load_text(tp, t, tn, -1, 0, &kt, tb, &le);
    if (!s) s = load_text(pp, p, pn, -1, 0, &kp, tb, &le);
    if (!s) s = check_pair(tb, tp, pp, &le);
    gdt_tables_destroy(tb);
    if (s) return gdt_error_set(e, s, "tables writer: nothing written, the loader would refuse it: %s", le.msg);
    return GDT_STATUS_OK;
}

gdt_status gdt_table_check_file(const char *path, gdt_error *e)
{
    if (!path) return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_table_check_file: no path");
    gdt_tables *t = calloc(1, sizeof *t);
    if (!t) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_table_check_file: out of memory");
    gdt__table_kind k = GDT__TABLE_TUNING;
    gdt_status s = gdt__tables_load_one(path, -1, 0, &k, t, e);
    gdt_tables_destroy(t);
    return s;
}
