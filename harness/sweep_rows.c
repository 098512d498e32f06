/* The candidate rows a sweep measures (gdt_sweep.h): the embedded
 * defaults, or with --tuning-config FILE the defaults with FILE's families
 * in place of theirs; as a table (--compile-only), and as the text and
 * digest the run header keeps and every worker's hello carries, so that
 * each worker, a respawned or resumed one too, lists exactly those rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_sweep.h"
#include "gdt_util.h"

gdt_status gdt_sweep_rows_table(const char *tuning_config, gdt_row_table **out, gdt_error *e)
{
    gdt_status s = gdt_rows_load_default(out, e);
    if (s == GDT_STATUS_OK && tuning_config && (s = gdt_rows_override(*out, tuning_config, e)))
        gdt_error_prefix(e, s, "--tuning-config: ");
    if (s != GDT_STATUS_OK) {
        gdt_rows_destroy(*out);
        *out = NULL;
    }
    return s;
}

/* The defaults' text as embedded: a run without a rows file keeps the
 * file itself, byte for byte, as every run header before --tuning-config. */
static gdt_status default_text(char **text, gdt_error *e)
{
    const gdt_embedded *d = gdt_embedded_find(GDT_ROWS_DEFAULT_PATH);
    if (!d)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "%s: not embedded in this build", GDT_ROWS_DEFAULT_PATH);
    *text = strdup(d->data);
    return *text ? GDT_STATUS_OK : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
}

gdt_status gdt_sweep_rows_load(const char *tuning_config, gdt_sweep_rows *out, gdt_error *e)
{
    gdt_row_table *t = NULL;
    *out = (gdt_sweep_rows){0};
    gdt_status s = gdt_sweep_rows_table(tuning_config, &t, e);
    if (s == GDT_STATUS_OK)
        s = tuning_config ? gdt_rows_print(t, &out->text, e) : default_text(&out->text, e);
    if (s == GDT_STATUS_OK)
        gdt_rows_digest(t, out->digest);
    gdt_rows_destroy(t);
    if (s != GDT_STATUS_OK)
        gdt_sweep_rows_free(out);
    return s;
}

gdt_status gdt_sweep_rows_of_header(const char *text, const char *digest, gdt_sweep_rows *out,
                                    gdt_error *e)
{
    *out = (gdt_sweep_rows){0};
    if (!text)
        return GDT_STATUS_OK;
    if (!(out->text = strdup(text)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    snprintf(out->digest, sizeof out->digest, "%s", digest ? digest : "");
    return GDT_STATUS_OK;
}

void gdt_sweep_rows_free(gdt_sweep_rows *r)
{
    free(r->text);
    *r = (gdt_sweep_rows){0};
}
