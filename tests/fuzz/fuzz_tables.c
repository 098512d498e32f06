/* libFuzzer target: both table kinds (engines/tables_read.c).  The loaders take
 * paths, so the input goes to a scratch file: first `tables check`
 * (gdt_table_check_file, the file says its kind and family); a table that
 * passes is then loaded as one half of a pair (gdt_tables_load) whose other
 * half is the committed tables/sm90 file of its family, which exercises the
 * provenance and cell-set checks across the pair. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gdt_fuzz.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

static const char *json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The committed partner, read once per file. */
static const char *partner(gdt_family f, bool tuning, size_t *n)
{
    static char *text[GDT_FAMILY_COUNT][2];
    static size_t len[GDT_FAMILY_COUNT][2];
    if (!text[f][tuning]) {
        char path[4096];
        gdt_error e;
        snprintf(path, sizeof path, "%s/tables/sm90/%s.%s.json", GDT_SOURCE_DIR, gdt_family_name(f),
                 tuning ? "tuning" : "placement");
        if (gdt_file_read(path, &text[f][tuning], &len[f][tuning], &e) != GDT_STATUS_OK)
            fprintf(stderr, "fuzz_tables: %s\n", e.msg), abort();
    }
    *n = len[f][tuning];
    return text[f][tuning];
}

static void load_pair(const uint8_t *data, size_t size)
{
    cJSON *root = cJSON_ParseWithLength((const char *)data, size);
    const char *schema = json_str(root, "schema"), *fam = json_str(root, "family");
    gdt_family f;
    gdt_error e;
    if (schema && fam && gdt_family_parse(fam, &f, &e) == GDT_STATUS_OK) {
        bool tuning = !strcmp(schema, GDT_TABLE_SCHEMA_TUNING);
        char leaf[2][128];
        snprintf(leaf[0], sizeof leaf[0], "pair/sm90/%s.tuning.json", fam);
        snprintf(leaf[1], sizeof leaf[1], "pair/sm90/%s.placement.json", fam);
        size_t pn;
        const char *pt = partner(f, !tuning, &pn);
        gdt_fuzz_file(leaf[tuning ? 0 : 1], data, size);
        gdt_fuzz_file(leaf[tuning ? 1 : 0], pt, pn);
        char dir[512];
        snprintf(dir, sizeof dir, "%s/pair", gdt_fuzz_dir());
        gdt_tables *t = NULL;
        gdt_error_clear(&e);
        gdt_fuzz_outcome(gdt_tables_load(dir, f, 90, &t, &e), &e, NULL);
        if (t) gdt_tables_provenance(t);
        gdt_tables_destroy(t);
    }
    cJSON_Delete(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s", gdt_fuzz_file("check.json", data, size));
    gdt_error e;
    gdt_error_clear(&e);
    gdt_status s = gdt_table_check_file(path, &e);
    gdt_fuzz_outcome(s, &e, path);
    if (s == GDT_STATUS_OK) load_pair(data, size);
    return 0;
}
