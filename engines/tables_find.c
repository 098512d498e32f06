/* Where a family's tables are: the search path's places in order, the
 * first whose pair loads (gdt_tables_find, gdt_tables_load). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gdt_tables_impl.h"
#include "gdt_tables_pair.h"

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static bool has_tables(const char *dir, gdt_family f, int arch)
{
    char path[4096];
    struct stat st;
    int k = snprintf(path, sizeof path, "%s/sm%d/%s.placement.json", dir, arch, gdt_family_name(f));
    return dir[0] && k > 0 && (size_t)k < sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

typedef struct search_state {
    gdt_family f;
    int arch;
    const gdt_tables_search *how;
    char *dir;
    size_t n;
} search_state;

/* One place of the search: its tables when they load; a place whose
 * tables are refused is passed over with a warning, so that a broken
 * ./tables does not hide the installed ones.  dir gets the place's
 * absolute path (what a report shows must name it wherever it is read). */
static bool try_place(void *ctx, const char *place, const char *origin)
{
    search_state *st = ctx;
    char abs[PATH_MAX];
    gdt_tables *t = NULL;
    gdt_error e;
    (void)origin;
    gdt_error_clear(&e);
    if (!has_tables(place, st->f, st->arch)) return false;
    if (gdt_tables_load(place, st->f, st->arch, &t, &e) != GDT_STATUS_OK) {
        if (st->how && st->how->warn) st->how->warn(st->how->ctx, e.msg);
        return false;
    }
    const char *name = realpath(place, abs) ? abs : place;
    if (strlen(name) >= st->n) {
        gdt_tables_destroy(t);
        return false;
    }
    if (st->how && st->how->out) *st->how->out = t;
    else gdt_tables_destroy(t);
    memcpy(st->dir, name, strlen(name) + 1);
    return true;
}

bool gdt_tables_search_path(gdt_family f, int arch, const gdt_tables_search *how, char *dir, size_t n)
{
    if (how && how->out) *how->out = NULL;
    search_state st = {.f = f, .arch = arch, .how = how, .dir = dir, .n = n};
    return gdt_tables_search_places(try_place, &st);
}

bool gdt_tables_find(gdt_family f, int arch, char *dir, size_t n)
{
    return gdt_tables_search_path(f, arch, NULL, dir, n);
}

gdt_status gdt_tables_load(const char *dir, gdt_family f, int arch, gdt_tables **out, gdt_error *e)
{
    *out = NULL;
    if (!dir || (unsigned)f >= GDT_FAMILY_COUNT)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_tables_load: missing argument");
    char folder[4096], tp[4200], pp[4200];
    snprintf(folder, sizeof folder, "%s/sm%d", dir, arch);
    gdt_status s = gdt__pair_resolve(folder, f, tp, pp, sizeof tp, e);
    if (s) return s;
    bool ht = exists(tp), hp = exists(pp);
    if (!ht && !hp)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "no tables for %s on sm%d: %s and %s are absent",
                             gdt_family_name(f), arch, tp, pp);
    if (!ht || !hp)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: missing (its pair %s exists; one sweep "
                             "writes both)", ht ? pp : tp, ht ? tp : pp);
    return gdt__tables_load_pair(tp, pp, (int)f, arch, out, e);
}

gdt_status gdt_tables_load_files(const char *tuning, const char *placement, gdt_tables **out,
                                 gdt_error *e)
{
    *out = NULL;
    if (!tuning || !placement)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_tables_load_files: missing argument");
    return gdt__tables_load_pair(tuning, placement, -1, 0, out, e);
}
