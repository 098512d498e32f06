/* The sweep's prior order from earlier tuning tables (gdt_prior.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_json.h"
#include "gdt_prior.h"
#include "gdt_run.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

typedef struct prior_table {
    gdt_family family;
    char path[PATH_MAX];
    char sha256[65];              /* "" when not used */
    char note[GDT_ERROR_MAX + 64]; /* why not, when not used */
    gdt_tables *t;                /* NULL when not used */
} prior_table;

struct gdt_prior {
    char dir[PATH_MAX];
    prior_table tab[GDT_FAMILY_COUNT];
    int n;
};

static void warn(const prior_table *pt)
{
    fprintf(stderr, "gdtune sweep: warning: prior %s %s: the sweep goes on without it "
            "(its cells in untimed order)\n", pt->path, pt->note);
}

/* pt not used, with the warning that says why (pt->note). */
static void drop(prior_table *pt)
{
    gdt_tables_destroy(pt->t);
    pt->t = NULL;
    pt->sha256[0] = '\0';
    warn(pt);
}

/* The sha256 of the file at pt->path; false (noted) when it cannot be read. */
static bool digest_file(prior_table *pt)
{
    char *text = NULL;
    size_t len = 0;
    gdt_error e = {0};
    if (gdt_file_read(pt->path, &text, &len, &e) != GDT_STATUS_OK) {
        snprintf(pt->note, sizeof pt->note, "not read: %s", e.msg);
        return false;
    }
    gdt_digest_hex(text, len, pt->sha256);
    free(text);
    return true;
}

/* Loads one family's table into pt; a missing one is noted silently, a
 * refused one with a warning. */
static void load_table(const char *dir, gdt_family f, int arch, prior_table *pt)
{
    gdt_error e = {0};
    pt->family = f;
    snprintf(pt->path, sizeof pt->path, "%s/sm%d/%s.tuning.json", dir, arch, gdt_family_name(f));
    gdt_status s = gdt_tables_load(dir, f, arch, &pt->t, &e);
    if (s == GDT_STATUS_NOT_SUPPORTED) {
        snprintf(pt->note, sizeof pt->note, "no table");
        return;
    }
    if (s == GDT_STATUS_OK && digest_file(pt))
        return;
    if (s != GDT_STATUS_OK)
        snprintf(pt->note, sizeof pt->note, "refused: %s", e.msg);
    drop(pt);
}

/* The journal header records the folder as an absolute path: "tables"
 * says nothing once the run directory is read elsewhere. */
static gdt_prior *prior_new(const char *dir)
{
    gdt_prior *p = calloc(1, sizeof *p);
    char abs[PATH_MAX];
    if (p)
        snprintf(p->dir, sizeof p->dir, "%s", realpath(dir, abs) ? abs : dir);
    return p;
}

gdt_status gdt_prior_load(const char *dir, unsigned families, int arch, gdt_prior **out,
                          gdt_error *e)
{
    gdt_prior *p = *out = prior_new(dir);
    if (!p)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "prior: out of memory");
    for (int f = 0; f < GDT_FAMILY_COUNT; f++)
        if (families & (1u << f))
            load_table(p->dir, (gdt_family)f, arch, &p->tab[p->n++]);
    return GDT_STATUS_OK;
}

/* One table of the recorded prior: used again only when it was used then
 * and its file still has the digest recorded. */
static void reload_table(gdt_prior *p, const gdt_run_prior_table *rt, int arch)
{
    prior_table *pt = &p->tab[p->n++];
    if (!rt->sha256) { /* not used then: not now either */
        pt->family = rt->family;
        snprintf(pt->path, sizeof pt->path, "%s", rt->path);
        snprintf(pt->note, sizeof pt->note, "%s", rt->note);
        return;
    }
    load_table(p->dir, rt->family, arch, pt);
    if (!pt->t || !strcmp(pt->sha256, rt->sha256))
        return;
    char now[65];
    memcpy(now, pt->sha256, sizeof now);
    snprintf(pt->note, sizeof pt->note, "changed since the run started (sha256 %.16s, the header "
             "recorded %.16s)", now, rt->sha256);
    drop(pt);
}

gdt_status gdt_prior_reload(const gdt_run_prior *recorded, int arch, gdt_prior **out, gdt_error *e)
{
    *out = NULL;
    if (!recorded->recorded)
        return GDT_STATUS_OK;
    gdt_prior *p = *out = prior_new(recorded->dir);
    if (!p)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "prior: out of memory");
    for (int i = 0; i < recorded->ntables && i < GDT_FAMILY_COUNT; i++)
        reload_table(p, &recorded->tables[i], arch);
    return GDT_STATUS_OK;
}

void gdt_prior_destroy(gdt_prior *p)
{
    for (int i = 0; p && i < p->n; i++)
        gdt_tables_destroy(p->tab[i].t);
    free(p);
}

static cJSON *table_json(const prior_table *pt)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "family", gdt_family_name(pt->family)) &&
              cJSON_AddStringToObject(o, "path", pt->path) &&
              (pt->t ? cJSON_AddStringToObject(o, "sha256", pt->sha256)
                     : cJSON_AddStringToObject(o, "note", pt->note));
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

cJSON *gdt_prior_json(const gdt_prior *p)
{
    if (!p)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject(), *a = cJSON_CreateArray();
    bool ok = o && a && cJSON_AddStringToObject(o, "dir", p->dir) && cJSON_AddItemToObject(o, "tables", a);
    if (!ok)
        cJSON_Delete(a);
    for (int i = 0; ok && i < p->n; i++) {
        cJSON *t = table_json(&p->tab[i]);
        ok = t && cJSON_AddItemToArray(a, t);
        if (!ok)
            cJSON_Delete(t);
    }
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

void gdt_prior_describe(const gdt_prior *p, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, p ? "prior order from %s:" : "no prior order: untimed order",
                                p ? p->dir : "");
    for (int i = 0; p && i < p->n && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, p->tab[i].t ? " %s sha256 %.12s" : " %s %s",
                              gdt_family_name(p->tab[i].family),
                              p->tab[i].t ? p->tab[i].sha256 : p->tab[i].note);
}

static bool find_cell(const gdt_prior *p, gdt_family f, const char *key, gdt_table_cell *c)
{
    for (int i = 0; p && i < p->n; i++) {
        if (p->tab[i].family != f || !p->tab[i].t)
            continue;
        for (int k = 0; gdt_tables_cell(p->tab[i].t, k, c); k++)
            if (!strcmp(c->key, key))
                return true;
    }
    return false;
}

/* Where the plan named name is in order[from..n), or -1. */
static int find_plan(const cJSON *plans, const int *order, int from, int n, const char *name)
{
    for (int k = from; k < n; k++)
        if (!strcmp(gdt_json_str_or(cJSON_GetArrayItem(plans, order[k]), "plan", ""), name))
            return k;
    return -1;
}

int gdt_prior_order(const gdt_prior *p, gdt_family f, const char *key, const cJSON *plans,
                    int *order, int n)
{
    gdt_table_cell c;
    int placed = 0;
    if (!find_cell(p, f, key, &c))
        return 0;
    for (int j = 0; j < c.nranked && placed < n; j++) {
        char name[320];
        gdt_plan_id_format(&c.ranked[j].id, name, sizeof name);
        int k = find_plan(plans, order, placed, n, name);
        if (k < 0)
            continue;
        int pi = order[k];
        memmove(&order[placed + 1], &order[placed], sizeof *order * (size_t)(k - placed));
        order[placed++] = pi;
    }
    return placed;
}
