/* gdt_tables_write: every measured cell checked and derived (ranking,
 * placement, facts), the model fitted, and both files published as one
 * step, each first read back by the loader. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_tables_impl.h"
#include "gdt_tables_pair.h"

static int work_key_cmp(const void *a, const void *b)
{
    return strcmp(((const gdt__cell_work *)a)->key, ((const gdt__cell_work *)b)->key);
}

static gdt_status check_measured(const gdt_measured_cell *c, const char *key, gdt_error *e)
{
    for (int i = 0; i < c->nplans; i++) {
        const gdt_measured_plan *p = &c->plans[i];
        char name[GDT__PLAN_NAME_MAX];
        gdt_plan_id_format(&p->id, name, sizeof name);
        if (!isfinite(p->time_us) || p->time_us <= 0 || !isfinite(p->noise) || p->noise < 0 ||
            !isfinite(p->host_us) || p->host_us < 0)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "tables writer: cell %s: plan %s: expected time_us > 0, noise >= 0 "
                                 "and host_us >= 0 (finite), got %g, %g, %g",
                                 key, name, p->time_us, p->noise, p->host_us);
        bool backend;
        gdt_family ef;
        int slot;
        gdt_error de;
        if (gdt_engine_id_decode(p->id.engine_id, &backend, &ef, &slot, &de))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables writer: cell %s: plan %s: engine_id: %s",
                                 key, name, de.msg);
        for (int k = 0; k < p->id.nknobs; k++)
            if (!gdt_knob_name(p->id.knobs[k].type))
                return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                     "tables writer: cell %s: plan %s: knob type %d has no name",
                                     key, name, (int)p->id.knobs[k].type);
        for (int j = 0; j < i; j++)
            if (gdt_plan_id_equal(&c->plans[j].id, &p->id))
                return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                     "tables writer: cell %s: plan %s measured twice (plans %d and %d)",
                                     key, name, j, i);
    }
    return GDT_STATUS_OK;
}

/* A NAME field is printed as names[value]: a value outside them (validate
 * does not judge enums) is refused here. */
static gdt_status check_names(const gdt_problem *p, gdt_error *e)
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    for (int i = 0; i < d->nproblem_fields; i++) {
        const gdt__field *fd = &d->problem_fields[i];
        int64_t v = gdt__scalar_load(fd, p);
        if (fd->kind == GDT__FIELD_NAME && (v < 0 || v >= fd->n))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables writer: %s cell: %s %" PRId64
                                 " outside the enum (expected 0 to %d)", d->name, fd->name, v, fd->n - 1);
    }
    return GDT_STATUS_OK;
}

static gdt_status prepare_cell(gdt__cell_work *w, const gdt_measured_cell *c, gdt_family f, int arch,
                               gdt_error *e)
{
    w->c = c;
    if (c->problem.family != f)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "tables writer: cell of family %s given to the %s writer",
                             gdt_family_name(c->problem.family), gdt_family_name(f));
    gdt_status s = gdt_problem_validate(&c->problem, e);
    if (!s) s = check_names(&c->problem, e);
    if (s) return s;
    gdt_problem_key(&c->problem, w->key, sizeof w->key);
    if (c->nplans < 0 || (c->nplans > 0 && !c->plans))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables writer: cell %s: no plans array",
                             w->key);
    if ((s = check_measured(c, w->key, e))) return s;
    gdt__facts_for(&c->problem, arch, &w->facts);
    w->order = malloc((size_t)(c->nplans ? c->nplans : 1) * sizeof *w->order);
    if (!w->order) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    gdt__rank_cell(c, w->order);
    w->backend_pos = gdt__backend_pos_of(c, w->order);
    w->fallback = gdt__fallback_of(c);
    gdt__place_cell(c, &w->pl);
    gdt__group_of(&w->facts, &w->group);
    w->metric = gdt__metric_of(&w->facts);
    return GDT_STATUS_OK;
}

static void free_work(gdt__cell_work *w, int n)
{
    for (int i = 0; w && i < n; i++) free(w[i].order);
    free(w);
}

static void table_path(char *path, size_t cap, const char *dir, gdt_family f, gdt__table_kind k)
{
    snprintf(path, cap, "%s/%s.%s.json", dir, gdt_family_name(f), k == GDT__TABLE_TUNING ? "tuning" : "placement");
}

/* Both files or neither, as one step (gdt_tables_pair.h): a failure or a
 * kill anywhere leaves the pair that was there or the new one. */
static gdt_status publish_pair(const char *dir, gdt_family f, const gdt__sb *t, const gdt__sb *p, gdt_error *e)
{
    if (t->oom || p->oom) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    char tp[4096], pp[4096];
    table_path(tp, sizeof tp, dir, f, GDT__TABLE_TUNING);
    table_path(pp, sizeof pp, dir, f, GDT__TABLE_PLACEMENT);
    gdt_status s = gdt__tables_check_texts(tp, t->p, t->n, pp, p->p, p->n, e);
    if (!s) s = gdt__pair_publish(dir, f, t->p, t->n, p->p, p->n, e);
    return s;
}

/* The arch names the folder the loader reads (sm<arch>, two or three
 * digits, as gdt_arch_parse reads it). */
static gdt_status check_provenance(const gdt_provenance *prov, gdt_error *e)
{
    if (prov->arch < 10 || prov->arch > 999)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables writer: provenance: arch: expected an arch "
                             "in [10, 999] (smXY), got %d", prov->arch);
    return GDT_STATUS_OK;
}

static gdt_status prepare_all(gdt_family f, const gdt_provenance *prov, const gdt_measured_cell *cells,
                              int ncells, gdt__cell_work **out, gdt_error *e)
{
    gdt__cell_work *w = calloc((size_t)(ncells > 0 ? ncells : 1), sizeof *w);
    if (!w) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    *out = w;
    for (int i = 0; i < ncells; i++) {
        gdt_status s = prepare_cell(&w[i], &cells[i], f, prov->arch, e);
        if (s) return s;
    }
    qsort(w, (size_t)ncells, sizeof *w, work_key_cmp);
    for (int i = 1; i < ncells; i++)
        if (!strcmp(w[i - 1].key, w[i].key))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables writer: cell %s given twice",
                                 w[i].key);
    return GDT_STATUS_OK;
}

gdt_status gdt_tables_write(const char *dir, gdt_family f, const gdt_provenance *prov,
                            const gdt_measured_cell *cells, int ncells, gdt_error *e)
{
    return gdt_tables_write_validated(dir, f, prov, cells, ncells, NULL, 0, e);
}

gdt_status gdt_tables_write_validated(const char *dir, gdt_family f, const gdt_provenance *prov,
                                      const gdt_measured_cell *cells, int ncells,
                                      const gdt_measured_cell *validation, int nvalidation, gdt_error *e)
{
    if (!dir || !prov || (ncells > 0 && !cells) || ncells < 0 || (unsigned)f >= GDT_FAMILY_COUNT ||
        nvalidation < 0 || (nvalidation > 0 && !validation))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_tables_write: missing argument");
    gdt__cell_work *w = NULL;
    gdt__sb t = {0}, p = {0};
    gdt_status s = check_provenance(prov, e);
    if (!s) s = prepare_all(f, prov, cells, ncells, &w, e);
    if (!s) {
        gdt__emit_tuning(&t, f, prov, w, ncells);
        s = gdt__emit_placement(&p, f, prov, w, ncells, e);
    }
    gdt__predictor model = {0};
    bool fitted = false;
    gdt__pred_cv vcv;
    if (!s) s = gdt__model_fit(f, prov->arch, w, ncells, validation, nvalidation, &model, &fitted, &vcv, e);
    if (!s) gdt__emit_model(&p, f, fitted ? &model : NULL, fitted && validation ? &vcv : NULL);
    gdt__predictor_clear(&model);
    if (!s) s = publish_pair(dir, f, &t, &p, e);
    free(t.p);
    free(p.p);
    free_work(w, ncells);
    return s;
}
