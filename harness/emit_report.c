/* What an emission did (gdt_emit_report, gdt_emit.h): the runs it read,
 * the cells it left out or found twice, the tables it wrote.  emit.c fills
 * it as it goes; the verbs' --format json summaries print it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_emit.h"
#include "gdt_emit_report.h"

static gdt_status no_memory(gdt_error *e)
{
    return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
}

/* Room for one more item of an array of n (realloc'd one at a time: a
 * merge reads a few hundred runs at most). */
static bool room(void **items, int n, size_t size)
{
    void *p = realloc(*items, (size_t)(n + 1) * size);
    if (p)
        *items = p;
    return p != NULL;
}

gdt_status gdt__emit_report_input(gdt_emit_report *rep, const gdt_run *r, gdt_error *e)
{
    if (!rep)
        return GDT_STATUS_OK;
    if (!room((void **)&rep->inputs, rep->ninputs, sizeof *rep->inputs))
        return no_memory(e);
    gdt_emit_input *in = &rep->inputs[rep->ninputs];
    *in = (gdt_emit_input){.path = strdup(r->path), .family = strdup(r->family),
                           .shard_i = r->options.shard_i, .shard_n = r->options.shard_n,
                           .cells = r->ncells, .results = r->results};
    for (int ci = 0; ci < r->ncells; ci++)
        in->cells_complete += gdt_run_cell_complete(&r->cells[ci]);
    rep->ninputs++;
    return in->path && in->family ? GDT_STATUS_OK : no_memory(e);
}

void gdt__emit_report_taken(gdt_emit_report *rep)
{
    if (rep && rep->ninputs)
        rep->inputs[rep->ninputs - 1].cells_merged++;
}

gdt_status gdt__emit_report_left_out(gdt_emit_report *rep, const char *key, const char *path, int results,
                                     int plans, gdt_error *e)
{
    if (!rep)
        return GDT_STATUS_OK;
    if (!room((void **)&rep->left_out, rep->nleft_out, sizeof *rep->left_out))
        return no_memory(e);
    gdt_emit_left_out *l = &rep->left_out[rep->nleft_out++];
    *l = (gdt_emit_left_out){.key = strdup(key), .path = strdup(path), .results = results, .plans = plans};
    return l->key && l->path ? GDT_STATUS_OK : no_memory(e);
}

gdt_status gdt__emit_report_conflict(gdt_emit_report *rep, const char *what, const char *first,
                                     const char *second, gdt_error *e)
{
    if (!rep)
        return GDT_STATUS_OK;
    if (!room((void **)&rep->conflicts, rep->nconflicts, sizeof *rep->conflicts))
        return no_memory(e);
    gdt_emit_conflict *c = &rep->conflicts[rep->nconflicts++];
    *c = (gdt_emit_conflict){.what = strdup(what), .first = strdup(first), .second = strdup(second)};
    return c->what && c->first && c->second ? GDT_STATUS_OK : no_memory(e);
}

gdt_status gdt__emit_report_table(gdt_emit_report *rep, gdt_family f, int cells, const char *dir, gdt_error *e)
{
    if (!rep || rep->ntables == GDT_FAMILY_COUNT)
        return GDT_STATUS_OK;
    gdt_emit_table *t = &rep->tables[rep->ntables++];
    *t = (gdt_emit_table){.family = f, .cells = cells};
    if (!dir)
        return GDT_STATUS_OK; /* not written */
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.tuning.json", dir, gdt_family_name(f));
    t->tuning = strdup(path);
    snprintf(path, sizeof path, "%s/%s.placement.json", dir, gdt_family_name(f));
    t->placement = strdup(path);
    return t->tuning && t->placement ? GDT_STATUS_OK : no_memory(e);
}

void gdt_emit_report_free(gdt_emit_report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->ninputs; i++)
        free(r->inputs[i].path), free(r->inputs[i].family);
    for (int i = 0; i < r->nleft_out; i++)
        free(r->left_out[i].key), free(r->left_out[i].path);
    for (int i = 0; i < r->nconflicts; i++)
        free(r->conflicts[i].what), free(r->conflicts[i].first), free(r->conflicts[i].second);
    for (int i = 0; i < r->ntables; i++)
        free(r->tables[i].tuning), free(r->tables[i].placement);
    free(r->inputs);
    free(r->left_out);
    free(r->conflicts);
    memset(r, 0, sizeof *r);
}
