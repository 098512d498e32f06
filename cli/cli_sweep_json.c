/* `gdtune sweep --format json`: the run in one document
 * (gdtune.sweep_summary/1, docs/formats.md) from its journal, finished or
 * stopped: what a CI script needs to tell a finished run from one to
 * resume, and where the tables went. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gdt_cli_summary.h"
#include "gdt_util.h"

/* Per plan of a listed cell: its result's disposition, or not_run. */
typedef struct plan_counts {
    int cells, complete, skipped, plans, not_run, disp[GDT_DISP_COUNT];
} plan_counts;

static plan_counts count_plans(const gdt_run *r)
{
    plan_counts n = {.cells = r->ncells};
    for (int ci = 0; ci < r->ncells; ci++) {
        const gdt_run_cell *c = &r->cells[ci];
        n.complete += gdt_run_cell_complete(c);
        n.skipped += c->error != NULL;
        n.plans += c->nplans;
        for (int pi = 0; pi < c->nplans; pi++) {
            if (c->result[pi].journaled)
                n.disp[c->result[pi].disposition]++;
            else
                n.not_run++;
        }
    }
    return n;
}

static void add_counts(cJSON *doc, const gdt_run *r)
{
    if (!r) {
        static const char *const keys[] = {"cells", "cells_complete", "cells_skipped", "plans", "counts"};
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
            cJSON_AddNullToObject(doc, keys[i]);
        return;
    }
    plan_counts n = count_plans(r);
    cJSON_AddNumberToObject(doc, "cells", n.cells);
    cJSON_AddNumberToObject(doc, "cells_complete", n.complete);
    cJSON_AddNumberToObject(doc, "cells_skipped", n.skipped);
    cJSON_AddNumberToObject(doc, "plans", n.plans);
    cJSON *c = cJSON_AddObjectToObject(doc, "counts");
    for (int d = 0; c && d < GDT_DISP_COUNT; d++)
        cJSON_AddNumberToObject(c, gdt_disposition_name((gdt_disposition)d), n.disp[d]);
    cJSON_AddNumberToObject(c, "not_run", n.not_run);
}

/* An empty string is unknown too: null. */
static void add_str(cJSON *o, const char *key, const char *s)
{
    gdt_cli_json_add_text(o, key, s && *s ? s : NULL);
}

/* Who the run is: its header's when there is one, else the command line's. */
static void add_identity(cJSON *doc, const gdt_cli_sweep_outcome *out, const gdt_run *r)
{
    char arch[16] = "";
    if (r || out->o->arch)
        snprintf(arch, sizeof arch, "sm%d", r ? r->arch : out->o->arch);
    add_str(doc, "family", r ? r->family : out->o->family);
    add_str(doc, "arch", arch);
    add_str(doc, "device", r ? r->dev.name : NULL);
    /* none when it stopped before making one */
    add_str(doc, "run_dir", access(out->run_dir, F_OK) == 0 ? out->run_dir : NULL);
    cJSON_AddBoolToObject(doc, "resumed", out->o->resume_dir != NULL);
}

/* A stopped run's journal as --resume would read it; NULL: finished, or
 * none to resume. */
static gdt_run *stopped_journal(const gdt_cli_sweep_outcome *out)
{
    gdt_run *r = NULL;
    gdt_error e = {0};
    if (out->journal || !out->run_dir[0] || gdt_run_load(out->run_dir, &r, &e) != GDT_STATUS_OK)
        return NULL;
    return r;
}

cJSON *gdt__cli_sweep_json(const gdt_cli_sweep_outcome *out)
{
    gdt_run *stopped = stopped_journal(out);
    const gdt_run *r = out->journal ? out->journal : stopped;
    char raw[4200];
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", GDT_CLI_SCHEMA_SWEEP);
    add_identity(doc, out, r);
    cJSON_AddBoolToObject(doc, "finished", out->error == NULL);
    /* the same build: --resume refuses a journal another build wrote */
    cJSON_AddBoolToObject(doc, "resumable", stopped && !strcmp(stopped->source_digest, gdt__source_digest));
    cJSON_AddNumberToObject(doc, "exit_code", out->exit_code);
    add_str(doc, "error", out->error);
    cJSON_AddNumberToObject(doc, "wall_s", out->wall_s);
    add_counts(doc, r);
    cJSON_AddStringToObject(doc, "tables_dir", out->o->tables_dir ? out->o->tables_dir : "tables");
    bool ok = gdt__cli_emit_tables_json(doc, out->emitted);
    snprintf(raw, sizeof raw, "%s/raw.h5", out->run_dir);
    add_str(doc, "raw_h5", out->raw_h5 ? raw : NULL);
    gdt_run_destroy(stopped);
    if (ok)
        return doc;
    cJSON_Delete(doc);
    return NULL;
}
