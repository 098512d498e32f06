/* The JSON text of a tuning and a placement table from the writer's cells:
 * fixed key order and number formats, so that one journal emits the same
 * bytes every time (tables/README.md is the schema). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_plan_json.h"
#include "gdt_tables_impl.h"

/* The text buffer's first size, in bytes; it doubles as the text grows. */
#define SB_FIRST_CAP 4096

/* Backend entries from knob enumeration carry GDT_MODE_COUNT. */
static const char *mode_text(gdt_mode m)
{
    return m == GDT_MODE_COUNT ? "enumerated" : gdt_mode_name(m);
}

__attribute__((format(printf, 2, 3))) static void sb_printf(gdt__sb *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (w < 0) { b->oom = true; return; }
        if (b->p && b->n + (size_t)w < b->cap) { b->n += (size_t)w; return; }
        size_t cap = (b->cap ? b->cap * 2 : SB_FIRST_CAP) + (size_t)w;
        char *q = realloc(b->p, cap);
        if (!q) { b->oom = true; return; }
        b->p = q;
        b->cap = cap;
    }
}

static void sb_str(gdt__sb *b, const char *s)
{
    sb_printf(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') sb_printf(b, "\\%c", *c);
        else if (*c < 0x20) sb_printf(b, "\\u%04x", *c);
        else sb_printf(b, "%c", *c);
    }
    sb_printf(b, "\"");
}

/* Fixed formatting: %.6g for measured quantities, never "-0". */
static void sb_num(gdt__sb *b, double v) { sb_printf(b, "%.6g", v == 0 ? 0.0 : v); }
static void sb_exact(gdt__sb *b, double v) { sb_printf(b, "%.17g", v == 0 ? 0.0 : v); }

/* lead (", \"key\": ") and a value: one member of an object. */
static void sb_member_num(gdt__sb *b, const char *lead, double v)
{
    sb_printf(b, "%s", lead);
    sb_num(b, v);
}

static void sb_member_str(gdt__sb *b, const char *lead, const char *s)
{
    sb_printf(b, "%s", lead);
    sb_str(b, s);
}

static void sb_ints(gdt__sb *b, const int64_t *v, int n)
{
    sb_printf(b, "[");
    for (int i = 0; i < n; i++) sb_printf(b, "%s%" PRId64, i ? ", " : "", v[i]);
    sb_printf(b, "]");
}

static void emit_scalar(gdt__sb *b, const gdt__field *fd, int64_t v)
{
    switch (fd->kind) {
    case GDT__FIELD_DTYPE: sb_printf(b, "\"%s\"", gdt_dtype_name((gdt_dtype)v)); break;
    case GDT__FIELD_NAME: sb_printf(b, "\"%s\"", fd->names[v]); break;
    case GDT__FIELD_BOOL: sb_printf(b, "%s", v ? "true" : "false"); break;
    default: sb_printf(b, "%" PRId64, v); break;
    }
}

/* {"name": value, ...} in field order, from the record base the offsets
 * point into. */
static void emit_fields(gdt__sb *b, const gdt__field *fields, int n, const void *base)
{
    sb_printf(b, "{");
    for (int i = 0; i < n; i++) {
        const gdt__field *fd = &fields[i];
        const char *at = (const char *)base + fd->off;
        sb_printf(b, "%s\"%s\": ", i ? ", " : "", fd->name);
        if (fd->kind == GDT__FIELD_INTS) sb_ints(b, (const int64_t *)at, fd->n);
        else if (fd->kind == GDT__FIELD_EXACT) sb_exact(b, *(const double *)at);
        else emit_scalar(b, fd, gdt__scalar_load(fd, base));
    }
    sb_printf(b, "}");
}

static void emit_problem(gdt__sb *b, const gdt_problem *p)
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    emit_fields(b, d->problem_fields, d->nproblem_fields, p);
}

static void emit_facts(gdt__sb *b, const gdt_facts *f)
{
    const gdt_family_desc *d = gdt__family_desc(f->family);
    emit_fields(b, d->facts_fields, d->nfacts_fields, f);
}

/* "plan", "engine_id", "knobs", "is_backend", "mode": the identity part of
 * a ranked entry and of the FALLBACK entry. */
static void emit_plan_id(gdt__sb *b, const gdt_plan_id *id, bool is_backend)
{
    char text[2 * GDT__PLAN_NAME_MAX];
    gdt_plan_json_print(id, text, sizeof text);
    sb_printf(b, "%s, \"is_backend\": %s", text, is_backend ? "true" : "false");
}

static void emit_identity(gdt__sb *b, const gdt_measured_plan *p)
{
    emit_plan_id(b, &p->id, p->is_backend);
    sb_printf(b, ", \"mode\": \"%s\"", mode_text(p->mode));
}

static void emit_measured(gdt__sb *b, const gdt_measured_plan *p)
{
    sb_printf(b, "{");
    emit_identity(b, p);
    sb_member_num(b, ", \"time_us\": ", p->time_us);
    sb_member_num(b, ", \"noise\": ", p->noise);
    sb_member_num(b, ", \"host_us\": ", p->host_us);
    sb_printf(b, ", \"samples\": %d, \"untimed_position\": %d}", p->samples, p->untimed_position);
}

static void emit_provenance(gdt__sb *b, const gdt_provenance *v)
{
    sb_member_str(b, "  \"provenance\": {\n    \"device_name\": ", v->device_name);
    sb_printf(b, ",\n    \"arch\": %d,\n    \"driver_version\": %d,\n    \"cuda_version\": %d,\n"
                 "    \"cudnn_version\": %d,\n    \"nvrtc_version\": %d,\n    \"gdtune_version\": ",
              v->arch, v->driver_version, v->cuda_version, v->cudnn_version, v->nvrtc_version);
    sb_str(b, v->gdtune_version);
    sb_member_str(b, ",\n    \"source_digest\": ", v->source_digest);
    sb_member_str(b, ",\n    \"sweep_digest\": ", v->sweep_digest);
    sb_member_str(b, ",\n    \"candidates_digest\": ", v->candidates_digest);
    sb_printf(b, "\n  },\n");
}

static void emit_header(gdt__sb *b, gdt__table_kind k, gdt_family f, const gdt_provenance *prov)
{
    sb_printf(b, "{\n  \"schema\": \"%s\",\n  \"family\": \"%s\",\n  \"arch\": \"sm%d\",\n",
              gdt__table_schema(k), gdt_family_name(f), prov->arch);
    emit_provenance(b, prov);
}

static void emit_evidence(gdt__sb *b, const gdt__cell_work *w)
{
    const gdt_measured_cell *c = w->c;
    sb_printf(b, "      \"evidence\": {\"measured\": %d, \"winner\": ", c->nplans);
    if (c->nplans == 0) {
        sb_printf(b, "null, \"runner_up\": null, \"margin\": null, \"beyond_noise\": false}\n");
        return;
    }
    char name[GDT__PLAN_NAME_MAX];
    const gdt_measured_plan *win = &c->plans[w->order[0]];
    gdt_plan_id_format(&win->id, name, sizeof name);
    sb_str(b, name);
    sb_printf(b, ", \"runner_up\": ");
    if (c->nplans < 2) {
        sb_printf(b, "null, \"margin\": null, \"beyond_noise\": false}\n");
        return;
    }
    const gdt_measured_plan *run = &c->plans[w->order[1]];
    gdt_plan_id_format(&run->id, name, sizeof name);
    sb_str(b, name);
    sb_printf(b, ", \"margin\": ");
    sb_num(b, (run->time_us - win->time_us) / win->time_us);
    sb_printf(b, ", \"beyond_noise\": %s}\n", gdt_measured_beats(win, run) ? "true" : "false");
}

static void emit_tuning_cell(gdt__sb *b, const gdt__cell_work *w, bool last)
{
    const gdt_measured_cell *c = w->c;
    sb_printf(b, "    {\n      \"key\": ");
    sb_str(b, w->key);
    sb_printf(b, ",\n      \"problem\": ");
    emit_problem(b, &c->problem);
    sb_printf(b, ",\n      \"facts\": ");
    emit_facts(b, &w->facts);
    sb_printf(b, ",\n      \"ranking\": [");
    for (int i = 0; i < c->nplans; i++) {
        sb_printf(b, "%s\n        ", i ? "," : "");
        emit_measured(b, &c->plans[w->order[i]]);
    }
    sb_printf(b, "%s],\n      \"backend_pos\": %d,\n      \"fallback\": ", c->nplans ? "\n      " : "",
              w->backend_pos);
    if (w->fallback < 0) {
        sb_printf(b, "null");
    } else {
        sb_printf(b, "{");
        emit_identity(b, &c->plans[w->fallback]);
        sb_printf(b, "}");
    }
    sb_printf(b, ",\n");
    emit_evidence(b, w);
    sb_printf(b, "    }%s\n", last ? "" : ",");
}

static void emit_best(gdt__sb *b, const gdt_measured_cell *c, int i)
{
    if (i < 0) {
        sb_printf(b, "null");
        return;
    }
    char name[GDT__PLAN_NAME_MAX];
    gdt_plan_id_format(&c->plans[i].id, name, sizeof name);
    sb_member_str(b, "{\"plan\": ", name);
    sb_member_num(b, ", \"time_us\": ", c->plans[i].time_us);
    sb_member_num(b, ", \"noise\": ", c->plans[i].noise);
    sb_printf(b, "}");
}

static void emit_ratio(gdt__sb *b, bool has, double ratio, double noise)
{
    sb_printf(b, "\"ratio\": ");
    if (has) sb_num(b, ratio);
    else sb_printf(b, "null");
    sb_printf(b, ", \"noise\": ");
    if (has) sb_num(b, noise);
    else sb_printf(b, "null");
}

static void emit_placement_cell(gdt__sb *b, const gdt__cell_work *w, bool last)
{
    sb_printf(b, "    {\n      \"key\": ");
    sb_str(b, w->key);
    sb_printf(b, ",\n      \"problem\": ");
    emit_problem(b, &w->c->problem);
    sb_printf(b, ",\n      \"facts\": ");
    emit_facts(b, &w->facts);
    sb_printf(b, ",\n      \"decision\": \"%s\", ", w->pl.lead ? "LEAD" : "TRAIL");
    emit_ratio(b, w->pl.has_ratio, w->pl.ratio, w->pl.noise);
    sb_printf(b, ",\n      \"best_ours\": ");
    emit_best(b, w->c, w->pl.best_ours);
    sb_printf(b, ",\n      \"best_backend\": ");
    emit_best(b, w->c, w->pl.best_backend);
    sb_printf(b, ",\n      \"best_library\": ");
    emit_best(b, w->c, w->pl.best_library);
    sb_printf(b, "\n    }%s\n", last ? "" : ",");
}

static void emit_group(gdt__sb *b, gdt_family f, const gdt__shard_group *g)
{
    const gdt_family_desc *d = gdt__family_desc(f);
    sb_printf(b, "{");
    for (int i = 0; i < d->ngroup_fields; i++) {
        sb_printf(b, "%s\"%s\": ", i ? ", " : "", d->group_fields[i].name);
        emit_scalar(b, &d->group_fields[i], g->v[i]);
    }
    sb_printf(b, "}");
}

static int work_shard_cmp(const void *pa, const void *pb)
{
    const gdt__cell_work *a = *(const gdt__cell_work *const *)pa, *b = *(const gdt__cell_work *const *)pb;
    int c = gdt__group_cmp(&a->group, &b->group);
    if (c) return c;
    if (a->metric != b->metric) return a->metric < b->metric ? -1 : 1;
    return strcmp(a->key, b->key);
}

/* One shard: the run of cells [i, j) of one group with one decision.
 * Boundaries sit at the geometric midpoint between neighbouring cells; the
 * first and last run of a group are open-ended. */
static void emit_shard(gdt__sb *b, gdt_family f, gdt__cell_work **v, int i, int j, int n, bool first)
{
    bool open_lo = i == 0 || !gdt__group_equal(&v[i - 1]->group, &v[i]->group);
    bool open_hi = j == n || !gdt__group_equal(&v[j]->group, &v[i]->group);
    double logsum = 0, noise = 0;
    int nratio = 0;
    for (int k = i; k < j; k++)
        if (v[k]->pl.has_ratio) {
            logsum += log(v[k]->pl.ratio);
            noise = fmax(noise, v[k]->pl.noise);
            nratio++;
        }
    sb_printf(b, "%s    {\"group\": ", first ? "" : ",\n");
    emit_group(b, f, &v[i]->group);
    sb_printf(b, ", \"metric\": \"%s\", \"lo\": ", gdt__family_desc(f)->metric_name);
    if (open_lo) sb_printf(b, "null");
    else sb_exact(b, sqrt(v[i - 1]->metric * v[i]->metric));
    sb_printf(b, ", \"hi\": ");
    if (open_hi) sb_printf(b, "null");
    else sb_exact(b, sqrt(v[j - 1]->metric * v[j]->metric));
    sb_printf(b, ",\n     \"decision\": \"%s\", ", v[i]->pl.lead ? "LEAD" : "TRAIL");
    emit_ratio(b, nratio > 0, nratio ? exp(logsum / nratio) : 0, noise);
    sb_printf(b, ", \"cells\": [");
    for (int k = i; k < j; k++) {
        sb_printf(b, "%s", k > i ? ", " : "");
        sb_str(b, v[k]->key);
    }
    sb_printf(b, "]}");
}

static gdt_status emit_shards(gdt__sb *b, gdt_family f, gdt__cell_work *w, int n, gdt_error *e)
{
    gdt__cell_work **v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    for (int i = 0; i < n; i++) v[i] = &w[i];
    qsort(v, (size_t)n, sizeof *v, work_shard_cmp);
    sb_printf(b, "  \"shards\": [\n");
    for (int i = 0, first = 1; i < n; first = 0) {
        int j = i + 1;
        while (j < n && gdt__group_equal(&v[j]->group, &v[i]->group) && v[j]->pl.lead == v[i]->pl.lead)
            j++;
        emit_shard(b, f, v, i, j, n, first);
        i = j;
    }
    sb_printf(b, "%s  ],\n", n ? "\n" : "");
    free(v);
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ time model */

static void emit_nums(gdt__sb *b, const double *v, int n)
{
    sb_printf(b, "[");
    for (int i = 0; i < n; i++) {
        sb_printf(b, "%s", i ? ", " : "");
        sb_exact(b, v[i]);
    }
    sb_printf(b, "]");
}

/* Figures of the model's picks under key: leave-one-cell-out ("cv") or a
 * validation sweep's ("validation", null when none was given). */
static void emit_figures(gdt__sb *b, const char *key, const gdt__pred_cv *cv)
{
    static const char *const modes[2] = {"A", "OPENSOURCE"};
    if (!cv) {
        sb_printf(b, "    \"%s\": null,\n", key);
        return;
    }
    sb_printf(b, "    \"%s\": {\"cells\": %d, \"median_abs_error\": ", key, cv->ncells);
    sb_num(b, cv->err);
    for (int m = 0; m < 2; m++) {
        sb_printf(b, ", \"%s\": {\"geomean\": ", modes[m]);
        sb_num(b, cv->geomean[m]);
        sb_printf(b, ", \"worst\": ");
        sb_num(b, cv->worst[m]);
        sb_printf(b, "}");
    }
    sb_printf(b, ", \"slower_than_heuristic\": %d},\n", cv->slower);
}

/* The lead's interval (gdt_predict.h): W(D) = scale * (1 + D / distance)
 * for our lead and a backend config's move. */
static void emit_interval(gdt__sb *b, const gdt__pred_interval *iv)
{
    sb_printf(b, "    \"interval\": {\"quantile\": ");
    sb_exact(b, iv->quantile);
    sb_printf(b, ", \"distance\": ");
    sb_exact(b, iv->dref);
    for (int k = 0; k < GDT__LEAD_KINDS; k++) {
        sb_printf(b, ", \"%s\": {\"residuals\": %d, \"scale\": ", gdt__lead_kind_keys[k], iv->n[k]);
        sb_exact(b, iv->scale[k]);
        sb_printf(b, "}");
    }
    sb_printf(b, "},\n");
}

/* The placement ratio: its linear part, its quadratic part and the range
 * its features are clamped to there, or null. */
static void emit_ratio_model(gdt__sb *b, gdt_family f, const gdt__predictor *m)
{
    const gdt_family_desc *d = gdt__family_desc(f);
    int nf = m->nratio > 0 ? m->nratio : m->nfeatures;
    if (!m->has_ratio) {
        sb_printf(b, "null");
        return;
    }
    sb_printf(b, "{\"lambda\": ");
    sb_exact(b, m->ratio_lambda);
    sb_printf(b, ", ");
    if (m->nratio > 0) {
        sb_printf(b, "\"features\": [");
        for (int j = 0; j < m->nratio; j++) sb_printf(b, "%s\"%s\"", j ? ", " : "", d->ratio_feature_names[j]);
        sb_printf(b, "], \"center\": ");
        emit_nums(b, m->ratio_center, m->nratio);
        sb_printf(b, ",\n      ");
    }
    sb_printf(b, "\"linear\": ");
    emit_nums(b, m->ratio, 1 + nf);
    sb_printf(b, ", \"quadratic\": ");
    emit_nums(b, m->ratio + 1 + nf, GDT__RATIO_QUADRATIC(nf));
    sb_printf(b, ",\n      \"lo\": ");
    emit_nums(b, m->ratio_lo, nf);
    sb_printf(b, ", \"hi\": ");
    emit_nums(b, m->ratio_hi, nf);
    sb_printf(b, "}");
}

void gdt__emit_model(gdt__sb *b, gdt_family f, const gdt__predictor *m, const gdt__pred_cv *validation)
{
    if (!m) {
        sb_printf(b, "  \"model\": null\n}\n");
        return;
    }
    sb_printf(b, "  \"model\": {\n    \"form\": \"log_linear\", \"features\": [");
    for (int j = 0; j < m->nfeatures; j++) sb_printf(b, "%s\"%s\"", j ? ", " : "", gdt__predict_feature_name(f, j));
    sb_printf(b, "], \"sm_count\": %d, \"lambda\": ", m->sm_count);
    sb_exact(b, m->lambda);
    sb_printf(b, ", \"noise\": ");
    sb_exact(b, m->noise);
    sb_printf(b, ", \"lead\": \"%s\",\n    \"center\": ", gdt__lead_rule_name(m->lead));
    emit_nums(b, m->center, m->nfeatures);
    sb_printf(b, ", \"shared\": ");
    emit_nums(b, m->shared, m->nfeatures);
    sb_printf(b, ",\n    \"ratio\": ");
    emit_ratio_model(b, f, m);
    sb_printf(b, ",\n");
    emit_interval(b, &m->interval);
    emit_figures(b, "cv", &m->cv);
    emit_figures(b, "validation", validation);
    sb_printf(b, "    \"plans\": [");
    for (int i = 0; i < m->nplans; i++) {
        const gdt__pred_plan *p = &m->plans[i];
        sb_printf(b, "%s\n      {", i ? "," : "");
        emit_plan_id(b, &p->id, p->is_backend);
        sb_printf(b, ", \"cells\": %d, \"intercept\": ", p->ncells);
        sb_exact(b, p->intercept);
        sb_printf(b, ", \"slope\": ");
        emit_nums(b, p->slope, m->nfeatures);
        sb_printf(b, "}");
    }
    sb_printf(b, "%s]\n  }\n}\n", m->nplans ? "\n    " : "");
}

void gdt__emit_tuning(gdt__sb *b, gdt_family f, const gdt_provenance *prov, const gdt__cell_work *w, int n)
{
    emit_header(b, GDT__TABLE_TUNING, f, prov);
    sb_printf(b, "  \"cells\": [\n");
    for (int i = 0; i < n; i++) emit_tuning_cell(b, &w[i], i == n - 1);
    sb_printf(b, "  ]\n}\n");
}

gdt_status gdt__emit_placement(gdt__sb *b, gdt_family f, const gdt_provenance *prov, gdt__cell_work *w, int n,
                               gdt_error *e)
{
    emit_header(b, GDT__TABLE_PLACEMENT, f, prov);
    sb_printf(b, "  \"cells\": [\n");
    for (int i = 0; i < n; i++) emit_placement_cell(b, &w[i], i == n - 1);
    sb_printf(b, "  ],\n");
    return emit_shards(b, f, w, n, e);
}
