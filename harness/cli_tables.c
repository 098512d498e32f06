/* `gdtune tables check FILE...`: validates placement and tuning tables with
 * the same strict loader libgdtune ranks by. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gdt_sweep.h"
#include "gdt_json.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

static const char usage_text[] =
    "usage: gdtune tables check FILE...\n"
    "       gdtune tables emit RUNDIR... [--tables-dir DIR]\n"
    "       gdtune merge RUNDIR... [--tables-dir DIR]\n"
    "\n"
    "Validates each placement or tuning table (the kind is read from its schema\n"
    "string) as strictly as libgdtune loads it: schema, arch, family, every field's\n"
    "type, unknown fields, keys and facts re-derived from each cell's problem.\n"
    "Prints \"FILE: ok (<kind>, smXY, <family>, N cells)\" or the error.\n"
    "\n"
    "emit (and merge, its other name) writes DIR/sm<arch>/<family>.{tuning,placement}.json\n"
    "(DIR defaults to tables) from run directories' journals alone, without a GPU:\n"
    "every cell whose plans all have a result enters, with the provenance the first\n"
    "run's header recorded; cells a killed sweep cut short are named and left out.\n"
    "Several runs must be shards of one sweep (same arch, device model and spec:\n"
    "`gdtune sweep --shard i/n` on several machines); a cell measured twice is refused.\n"
    "\n"
    "exit codes: 0 every file valid / tables written, 1 failure while writing,\n"
    "2 bad usage, any file invalid, or a journal that cannot be read\n";

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

/* ------------------------------------------------- the tables directory */

/* Creates and removes one file of a name nobody else uses: the only way to
 * know the directory takes files (access(2) says nothing of read-only
 * mounts, ACLs or quotas). */
static gdt_status probe_writable(const char *dir, const char *label, gdt_error *e)
{
    char path[PATH_MAX];
    int err = 0;
    for (int attempt = 0; attempt < 8; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        if (snprintf(path, sizeof path, "%s/.gdtune-probe-%ld-%ld-%d", dir, (long)getpid(),
                     (long)ts.tv_nsec, attempt) >= (int)sizeof path)
            return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--tables-dir %s%s: %s", dir, label,
                                 strerror(ENAMETOOLONG));
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            close(fd);
            unlink(path);
            return GDT_STATUS_OK;
        }
        if ((err = errno) != EEXIST)
            break;
    }
    return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--tables-dir %s%s: cannot write there: %s "
                         "(expected a writable directory)", dir, label, strerror(err));
}

gdt_status gdt__cli_tables_dir_check(const char *dir, gdt_error *e)
{
    const char *d = dir ? dir : "tables", *label = dir ? "" : " (the default)";
    struct stat sb;
    gdt_error me;
    if (stat(d, &sb) != 0 && errno == ENOENT && gdt_mkdirs(d, &me) != GDT_STATUS_OK)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--tables-dir %s%s: cannot create it: %s",
                             d, label, me.msg);
    if (stat(d, &sb) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--tables-dir %s%s: %s (expected a "
                             "directory for the tables)", d, label, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--tables-dir %s%s: %s (expected a "
                             "directory for the tables)", d, label, strerror(ENOTDIR));
    return probe_writable(d, label, e);
}

/* ------------------------------------------------------------- emitting */

static int emit_usage(const char *verb, const char *what, const char *arg)
{
    fprintf(stderr, "gdtune %s: %s%s%s\n(gdtune tables --help for usage)\n", verb, what,
            arg ? arg : "", arg ? "'" : "");
    return 2;
}

/* `tables emit RUNDIR...` and `merge RUNDIR...`: tables from journals. */
static int emit(const char *verb, int argc, char **argv)
{
    const char *tables_dir = NULL;
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    int n = 0, rc = 0;
    if (!dirs)
        return fprintf(stderr, "gdtune %s: out of memory\n", verb), 1;
    for (int i = 0; !rc && i < argc; i++) {
        if (!strcmp(argv[i], "--tables-dir") && i + 1 < argc)
            tables_dir = argv[++i];
        else if (!strncmp(argv[i], "--tables-dir=", 13))
            tables_dir = argv[i] + 13;
        else if (!strcmp(argv[i], "--tables-dir"))
            rc = emit_usage(verb, "--tables-dir needs a value", NULL);
        else if (argv[i][0] == '-')
            rc = emit_usage(verb, "unexpected argument '", argv[i]);
        else
            dirs[n++] = argv[i];
    }
    if (!rc && n == 0)
        rc = emit_usage(verb, "no RUNDIR given", NULL);
    if (rc) {
        free(dirs);
        return rc;
    }
    gdt_error e;
    gdt_error_clear(&e);
    gdt_status s = gdt__cli_tables_dir_check(tables_dir, &e);
    if (s == GDT_STATUS_OK)
        s = gdt_sweep_emit(dirs, n, tables_dir, &e);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "gdtune %s: %s\n", verb, e.msg);
    free(dirs);
    return gdt_status_exit_code(s);
}

int gdt_cli_merge(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(usage_text, stdout), 0;
    return emit("merge", argc - 1, argv + 1);
}

int gdt_cli_tables(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(usage_text, stdout), 0;
    if (argc >= 2 && !strcmp(argv[1], "emit"))
        return emit("tables emit", argc - 2, argv + 2);
    if (argc < 2 || strcmp(argv[1], "check")) {
        fprintf(stderr, "gdtune tables: %s%s%s\n(gdtune tables --help for usage)\n",
                argc < 2 ? "missing sub-command (expected: check or emit)" : "unknown sub-command '",
                argc < 2 ? "" : argv[1], argc < 2 ? "" : "' (expected: check or emit)");
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
