/* `gdtune tables check FILE...`: validates placement and tuning tables with
 * the same strict loader libgdtune ranks by. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gdt_json.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

static const char usage_text[] =
    "usage: gdtune tables check FILE...\n"
    "\n"
    "Validates each placement or tuning table (the kind is read from its schema\n"
    "string) as strictly as libgdtune loads it: schema, arch, family, every field's\n"
    "type, unknown fields, keys and facts re-derived from each cell's problem.\n"
    "Prints \"FILE: ok (<kind>, smXY, <family>, N cells)\" or the error.\n"
    "\n"
    "exit codes: 0 every file valid, 2 bad usage or any file invalid\n";

/* The summary line of a file the loader accepted: these reads cannot fail
 * in a way the loader did not already refuse. */
static void summarize(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    cJSON *root = NULL;
    gdt_error e;
    if (gdt_file_read(path, &text, &len, &e) || gdt_json_parse(text, len, path, &root, &e)) {
        printf("%s: ok\n", path);
        free(text);
        return;
    }
    const cJSON *schema = gdt_json_get(root, "schema"), *arch = gdt_json_get(root, "arch");
    const cJSON *family = gdt_json_get(root, "family"), *cells = gdt_json_get(root, "cells");
    const char *s = cJSON_GetStringValue(schema);
    printf("%s: ok (%s, %s, %s, %d cells)\n", path,
           s && !strcmp(s, GDT_TABLE_SCHEMA_TUNING) ? "tuning" : "placement",
           cJSON_GetStringValue(arch), cJSON_GetStringValue(family), cJSON_GetArraySize(cells));
    cJSON_Delete(root);
    free(text);
}

static int check_files(int n, char **files)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        gdt_error e;
        gdt_error_clear(&e);
        if (gdt_table_check_file(files[i], &e) == GDT_STATUS_OK) {
            summarize(files[i]);
            continue;
        }
        bad++;
        /* The loader's messages start with the file name already. */
        if (strncmp(e.msg, files[i], strlen(files[i])))
            fprintf(stderr, "%s: %s\n", files[i], e.msg);
        else
            fprintf(stderr, "%s\n", e.msg);
    }
    if (bad) fprintf(stderr, "gdtune tables check: %d of %d files invalid\n", bad, n);
    return bad ? 2 : 0;
}

int gdt_cli_tables(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(usage_text, stdout), 0;
    if (argc < 2 || strcmp(argv[1], "check")) {
        fprintf(stderr, "gdtune tables: %s%s%s\n(gdtune tables --help for usage)\n",
                argc < 2 ? "missing sub-command (expected: check)" : "unknown sub-command '",
                argc < 2 ? "" : argv[1], argc < 2 ? "" : "' (expected: check)");
        return 2;
    }
    if (argc < 3) {
        fprintf(stderr, "gdtune tables check: no FILE given\n(gdtune tables --help for usage)\n");
        return 2;
    }
    for (int i = 2; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gdtune tables check: unknown option '%s'\n", argv[i]);
            return 2;
        }
    return check_files(argc - 2, argv + 2);
}
