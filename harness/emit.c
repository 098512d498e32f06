/* Tables from journals: the complete cells of one or more runs, as the
 * journal's model read them, through gdt_tables_write.  One path for the
 * end of a sweep, `tables emit` and `merge`. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_emit.h"
#include "gdt_json.h"
#include "gdtune/tables.h"

static gdt_mode tag_mode(const char *tag, bool backend)
{
    gdt_mode m;
    if (!backend)
        return GDT_MODE_OPENSOURCE;
    if (gdt_mode_parse(tag, &m, NULL) == GDT_STATUS_OK)
        return m;
    return GDT_MODE_COUNT; /* knob-enumerated: no heuristic mode made it */
}

/* The verified plans of one cell as the table writer takes them. */
static gdt_status measured_cell(const gdt_run_cell *c, gdt_measured_cell *mc, gdt_error *e)
{
    mc->problem = c->spec->problem;
    mc->nplans = 0;
    if (!(mc->plans = calloc((size_t)c->nplans + 1, sizeof *mc->plans)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
    for (int pi = 0; pi < c->nplans; pi++) {
        const gdt_run_result *res = &c->result[pi];
        const gdt_run_plan *pl = &c->plan[pi];
        if (res->disposition != GDT_DISP_VERIFIED)
            continue;
        mc->plans[mc->nplans++] = (gdt_measured_plan){
            .id = pl->id, .is_backend = pl->backend, .mode = tag_mode(pl->tag, pl->backend),
            .untimed_position = pl->untimed, .time_us = res->time_us, .noise = res->noise,
            .host_us = res->host_us, .samples = res->samples};
    }
    return GDT_STATUS_OK;
}

/* The run's header: what measured it, on what (the tables name it). */
static void provenance(const gdt_run *r, gdt_provenance *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->device_name, sizeof p->device_name, "%s", gdt_json_str_or(r->device, "name", ""));
    p->arch = r->arch;
    p->driver_version = (int)gdt_json_num_or(r->device, "driver_version", 0);
    p->cuda_version = (int)gdt_json_num_or(r->device, "cuda_version", 0);
    p->cudnn_version = (int)gdt_json_num_or(r->device, "cudnn_version", 0);
    p->nvrtc_version = (int)gdt_json_num_or(r->device, "nvrtc_version", 0);
    snprintf(p->gdtune_version, sizeof p->gdtune_version, "%s", r->gdtune_version);
    snprintf(p->source_digest, sizeof p->source_digest, "%s", r->source_digest);
    snprintf(p->sweep_digest, sizeof p->sweep_digest, "%s", r->spec->digest);
    snprintf(p->candidates_digest, sizeof p->candidates_digest, "%s", r->candidates_digest);
}

/* A cell enters the tables only when every plan of its list has a result:
 * a cell cut short by a killed sweep would rank a partial list. */
static bool cell_complete(const gdt_run_cell *c)
{
    if (c->plans && !gdt_run_cell_complete(c))
        fprintf(stderr, "gdtune sweep: %s: %d of %d plans have a result: cell left out of the "
                "tables\n", c->spec->shape, c->nresults, c->nplans);
    return gdt_run_cell_complete(c);
}

/* Appends the complete cells of family f in run r to cells[*n]; a cell that
 * an earlier run already gave is refused, naming both runs. */
static gdt_status collect_family(const gdt_run *r, gdt_family f, gdt_measured_cell *cells,
                                 const gdt_run **from, int *n, gdt_error *e)
{
    for (int ci = 0; ci < r->ncells; ci++) {
        const gdt_run_cell *c = &r->cells[ci];
        if (c->spec->family != f || !cell_complete(c))
            continue;
        char key[512], other[512];
        gdt_problem_key(&c->spec->problem, key, sizeof key);
        for (int k = 0; k < *n; k++)
            if (gdt_problem_key(&cells[k].problem, other, sizeof other) >= 0 && !strcmp(key, other))
                return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "cell %s is measured in both %s and "
                                     "%s: merge runs of disjoint cells (--shard)", key,
                                     from[k]->path, r->path);
        gdt_status s = measured_cell(c, &cells[*n], e);
        if (s != GDT_STATUS_OK || cells[*n].nplans == 0) {
            free(cells[*n].plans);
            if (s != GDT_STATUS_OK)
                return s;
            continue;
        }
        from[(*n)++] = r;
    }
    return GDT_STATUS_OK;
}

static gdt_status emit_family(gdt_run *const *runs, int nruns, gdt_family f, const char *dir,
                              gdt_error *e)
{
    int cap = 1, n = 0;
    for (int i = 0; i < nruns; i++)
        cap += runs[i]->ncells;
    gdt_measured_cell *cells = calloc((size_t)cap, sizeof *cells);
    const gdt_run **from = calloc((size_t)cap, sizeof *from);
    gdt_status s = cells && from ? GDT_STATUS_OK
                                 : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
    for (int i = 0; i < nruns && s == GDT_STATUS_OK; i++)
        s = collect_family(runs[i], f, cells, from, &n, e);
    gdt_provenance prov;
    provenance(runs[0], &prov);
    if (s == GDT_STATUS_OK && n > 0) {
        s = gdt_tables_write(dir, f, &prov, cells, n, e);
        if (s == GDT_STATUS_OK)
            fprintf(stderr, "gdtune sweep: wrote %s/%s.{tuning,placement}.json (%d cells)\n", dir,
                    gdt_family_name(f), n);
    } else if (s == GDT_STATUS_OK)
        fprintf(stderr, "gdtune sweep: %s: no cell has a verified plan: no table written\n",
                gdt_family_name(f));
    for (int i = 0; i < n; i++)
        free(cells[i].plans);
    free(cells);
    free(from);
    return s;
}

/* Runs merged into one set of tables must describe one measurement: the
 * same arch, device model and sweep spec (the provenance names one). */
static gdt_status same_sweep(const gdt_run *a, const gdt_run *b, gdt_error *e)
{
    const char *da = gdt_json_str_or(a->device, "name", ""), *db = gdt_json_str_or(b->device, "name", "");
    if (a->arch != b->arch || strcmp(da, db) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s ran on %s (sm%d) but %s on %s (sm%d): "
                             "tables merge runs of one device model", a->path, da, a->arch, b->path,
                             db, b->arch);
    if (strcmp(a->spec->digest, b->spec->digest) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s swept spec %s (digest %.16s) but %s "
                             "spec %s (digest %.16s): tables merge shards of one sweep", a->path,
                             a->spec->source, a->spec->digest, b->path, b->spec->source,
                             b->spec->digest);
    return GDT_STATUS_OK;
}

gdt_status gdt_emit_runs(gdt_run *const *runs, int nruns, const char *tables_dir, gdt_error *e)
{
    char dir[PATH_MAX + 16];
    unsigned families = 0;
    gdt_status s = nruns > 0 ? GDT_STATUS_OK
                             : gdt_error_set(e, GDT_STATUS_BAD_USAGE, "no run directory given");
    for (int i = 0; i < nruns && s == GDT_STATUS_OK; i++) {
        families |= runs[i]->spec->families;
        if (i > 0)
            s = same_sweep(runs[0], runs[i], e);
    }
    if (s != GDT_STATUS_OK)
        return s;
    /* the table writer makes the folder once the tables pass its checks */
    snprintf(dir, sizeof dir, "%s/sm%d", tables_dir ? tables_dir : "tables", runs[0]->arch);
    for (int f = 0; f < GDT_FAMILY_COUNT && s == GDT_STATUS_OK; f++)
        if (families & (1u << f))
            s = emit_family(runs, nruns, (gdt_family)f, dir, e);
    return s;
}

gdt_status gdt_emit_dirs(const char *const *run_dirs, int nruns, const char *tables_dir,
                         gdt_error *e)
{
    gdt_run **runs = calloc((size_t)(nruns > 0 ? nruns : 1), sizeof *runs);
    gdt_status s = runs ? GDT_STATUS_OK : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
    for (int i = 0; i < nruns && s == GDT_STATUS_OK; i++)
        s = gdt_run_load(run_dirs[i], &runs[i], e);
    if (s == GDT_STATUS_OK)
        s = gdt_emit_runs(runs, nruns, tables_dir, e);
    for (int i = 0; runs && i < nruns; i++)
        gdt_run_destroy(runs[i]);
    free(runs);
    return s;
}
