/* `gdtune tables check FILE...`: validates placement and tuning tables with
 * the same strict loader libgdtune ranks by; `emit` writes them from
 * journals; `diff` is cli/cli_tables_diff.c. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "gdt_cli_options.h"
#include "gdt_cli_summary.h"
#include "gdt_emit.h"
#include "gdt_sweep.h"
#include "gdt_json.h"
#include "gdt_tables_diff.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

static const char usage_text[] =
    "usage: gdtune tables check FILE... [--cells] [--validation RUNDIR]... [--format text|json]\n"
    "       gdtune tables emit RUNDIR... [--tables-dir DIR] [--validation RUNDIR]...\n"
    "                          [--format text|json]\n"
    "       gdtune tables diff OLD NEW [--family F] [--format text|json|md|csv]\n"
    "                          [--runs OLDRUN NEWRUN]   (see gdtune tables diff --help)\n"
    "\n"
    "Validates each placement or tuning table (the kind is read from its schema\n"
    "string) as strictly as libgdtune loads it: schema, arch, family, every field's\n"
    "type, unknown fields, keys and facts re-derived from each cell's problem.\n"
    "Prints \"FILE: ok (<kind>, smXY, <family>, N cells)\" or the error, and for a\n"
    "placement table its time model's leave-one-cell-out figures.  --cells also\n"
    "prints, per swept cell, what the model fitted on the other cells puts first in\n"
    "mode A and OPENSOURCE, their measured time over the cell's best, and the best\n"
    "plans (refitted from the tuning table beside it, <family>.tuning.json).\n"
    "--validation RUNDIR scores each placement table's model on a validation sweep's\n"
    "journal (shapes off the grid, every plan measured): each cell planned as a shape\n"
    "no cell covers, by the times the journal measured (no GPU), beside the LOO figures;\n"
    "emit --validation records the same in the placement table (model.validation).\n"
    "\n"
    "emit writes DIR/sm<arch>/<family>.{tuning,placement}.json (DIR defaults to\n"
    "tables) from run directories' journals alone, without a GPU (the top-level verb\n"
    "`gdtune merge RUNDIR... [--tables-dir DIR]` is the same, by another name):\n"
    "every cell whose plans all have a result enters, with the provenance the first\n"
    "run's header recorded; cells a killed sweep cut short are named and left out.\n"
    "Several runs must be shards of one sweep (same arch, device model and spec:\n"
    "`gdtune sweep --shard i/n` on several machines), each shard 0..n-1 exactly once:\n"
    "a missing or doubled shard is refused, naming the indices, and so is a cell\n"
    "measured twice.  One journal is read at a time.\n";

/* --validation RUNDIR, repeatable: a validation sweep's run directories. */
#define MAX_VALIDATION 8
typedef struct validation_dirs {
    const char *dir[MAX_VALIDATION];
    int n;
} validation_dirs;

typedef struct emit_opts {
    const char *tables_dir;
    validation_dirs validation;
    int format; /* GDT_CLI_FORMAT_TEXT or _JSON */
} emit_opts;

typedef struct check_opts {
    bool cells;
    validation_dirs validation;
    int format;
} check_opts;

static bool add_validation(validation_dirs *v, const char *dir, char *why, size_t nwhy)
{
    if (v->n == MAX_VALIDATION) return snprintf(why, nwhy, "at most %d run directories", MAX_VALIDATION), false;
    v->dir[v->n++] = dir;
    return true;
}

static bool emit_validation(void *opts, const char *v, char *why, size_t nwhy)
{
    return add_validation(&((emit_opts *)opts)->validation, v, why, nwhy);
}

static bool check_validation(void *opts, const char *v, char *why, size_t nwhy)
{
    return add_validation(&((check_opts *)opts)->validation, v, why, nwhy);
}

#define VALIDATION_HELP                                                                            \
    "a validation sweep's run directory (shapes off the grid, swept --exhaustive);\n"             \
    "repeatable: the time model's picks on its cells, scored by its measured times"

static const gdt_cli_option emit_options[] = {
    GDT_CLI_OPT_TABLES_DIR(emit_opts, tables_dir, "where emit and merge write the tables (default: tables)"),
    {"--validation", NULL, GDT_CLI_CUSTOM, .parse = emit_validation, .metavar = "RUNDIR",
     .help = VALIDATION_HELP " (model.validation of the placement tables)"},
    GDT_CLI_OPT_SUMMARY_FORMAT(emit_opts, format,
                               "json: one summary document on stdout, written or refused\n"
                               "(" GDT_CLI_SCHEMA_EMIT ", or " GDT_CLI_SCHEMA_MERGE " for merge: the\n"
                               "journals read, the tables written, conflicts; docs/formats.md)"),
};

static const gdt_cli_option check_options[] = {
    {"--cells", NULL, GDT_CLI_FLAG, offsetof(check_opts, cells),
     .help = "per swept cell: the time model's held-out picks in mode A and OPENSOURCE,\n"
             "their time over the best, and the best plans"},
    {"--validation", NULL, GDT_CLI_CUSTOM, .parse = check_validation, .metavar = "RUNDIR",
     .help = VALIDATION_HELP " (placement tables; no GPU)"},
    GDT_CLI_OPT_SUMMARY_FORMAT(check_opts, format,
                               "json: the verdicts in one document on stdout (" GDT_CLI_SCHEMA_CHECK ":\n"
                               "per file ok, or the error's file, JSON path, expected and actual;\n"
                               "docs/formats.md); every text line, --cells' included, on stderr"),
};

/* One table for all three; check has its own options. */
static const gdt_cli_spec tables_spec = {
    "gdtune tables", usage_text,
    "exit codes: 0 every file valid / tables written, 1 failure while writing,\n"
    "2 bad usage, any file invalid, a journal that cannot be read, or --cells\n"
    "without a readable tuning table (or model) beside the file\n",
    emit_options, GDT_CLI_NOPTS(emit_options)};

static void print_validation(FILE *out, const char *label, const gdt_model_validation *v)
{
    fprintf(out, "  %s over %d cells, median |error| of predicted times %.1f%%\n", label, v->ncells,
           100 * v->median_abs_error);
    static const char *const modes[] = {"A", "OPENSOURCE"};
    for (int m = 0; m < 2; m++)
        fprintf(out, "    mode %-10s first plan / best measured: geomean %.4g, worst %.4g\n", modes[m], v->geomean[m],
               v->worst[m]);
    fprintf(out, "    mode A's first slower than the backend heuristic's first beyond noise: %d of %d cells\n", v->slower,
           v->ncells);
}

/* The time model's leave-one-cell-out figures a placement table records. */
static void print_model_cv(FILE *out, const cJSON *model)
{
    const cJSON *cv = model ? gdt_json_get(model, "cv") : NULL;
    if (!cv) return;
    fprintf(out, "  time model (%s, lambda %g, lead rule %s): leave-one-cell-out over %d cells, median |error| of "
           "predicted times %.1f%%\n", cJSON_GetStringValue(gdt_json_get(model, "form")),
           gdt_json_num_or(model, "lambda", 0), cJSON_GetStringValue(gdt_json_get(model, "lead")),
           (int)gdt_json_num_or(cv, "cells", 0),
           100 * gdt_json_num_or(cv, "median_abs_error", 0));
    static const char *const modes[] = {"A", "OPENSOURCE"};
    for (int m = 0; m < 2; m++) {
        const cJSON *o = gdt_json_get(cv, modes[m]);
        fprintf(out, "    mode %-10s first plan / best measured: geomean %.4g, worst %.4g\n", modes[m],
               gdt_json_num_or(o, "geomean", 0), gdt_json_num_or(o, "worst", 0));
    }
    fprintf(out, "    mode A's first slower than the backend heuristic's first beyond noise: %d of %d cells\n",
           (int)gdt_json_num_or(cv, "slower_than_heuristic", 0), (int)gdt_json_num_or(cv, "cells", 0));
    const cJSON *iv = gdt_json_get(model, "interval");
    const cJSON *ours = gdt_json_get(iv, "ours"), *block = gdt_json_get(iv, "block");
    fprintf(out, "  lead interval (the %g quantile of the held-out residuals, D the distance to the nearest swept cell): "
           "ours ahead of the backend heuristic's first when predicted faster by more than %.1f%% x (1 + D / %.3g) "
           "(%d residuals), a backend config by more than %.1f%% x (1 + D / %.3g) (%d)\n",
           gdt_json_num_or(iv, "quantile", 0), 100 * expm1(gdt_json_num_or(ours, "scale", 0)),
           gdt_json_num_or(iv, "distance", 0), (int)gdt_json_num_or(ours, "residuals", 0),
           100 * expm1(gdt_json_num_or(block, "scale", 0)), gdt_json_num_or(iv, "distance", 0),
           (int)gdt_json_num_or(block, "residuals", 0));
    const cJSON *val = gdt_json_get(model, "validation");
    if (val && cJSON_IsObject(val)) {
        gdt_model_validation v = {(int)gdt_json_num_or(val, "cells", 0), 0, gdt_json_num_or(val, "median_abs_error", 0),
                                  {0, 0}, {0, 0}, (int)gdt_json_num_or(val, "slower_than_heuristic", 0)};
        for (int m = 0; m < 2; m++) {
            const cJSON *o = gdt_json_get(val, modes[m]);
            v.geomean[m] = gdt_json_num_or(o, "geomean", 0), v.worst[m] = gdt_json_num_or(o, "worst", 0);
        }
        print_validation(out, "validation sweep recorded at emit:", &v);
    }
}

/* ------------------------------------------------ --cells: held-out picks */

/* "<plan> <time> us" of a measured plan, or "none". */
static void plan_text(const gdt_measured_plan *p, char *out, size_t n)
{
    char name[512];
    if (!p) {
        snprintf(out, n, "none");
        return;
    }
    gdt_plan_id_format(&p->id, name, sizeof name);
    snprintf(out, n, "%s %.4g us", name, p->time_us);
}

static double over(const gdt_measured_plan *p, const gdt_measured_plan *best)
{
    return p && best ? p->time_us / best->time_us : NAN;
}

static void print_pick(FILE *out, const char *key, const gdt_model_pick *k)
{
    char a[600], o[600], b[600], bo[600], h[600];
    plan_text(k->mode_a, a, sizeof a), plan_text(k->ours, o, sizeof o);
    plan_text(k->best, b, sizeof b), plan_text(k->best_ours, bo, sizeof bo);
    fprintf(out, "  %s\n", key);
    fprintf(out, "    A          %.4f  %s (%s, predicted ours / the backend's first %.3f)\n", over(k->mode_a, k->best), a,
           k->lead ? "ours ahead of the backend's block" : "the backend's block first", k->ratio);
    plan_text(k->heuristic, h, sizeof h);
    fprintf(out, "               predicted lead of ours over the heuristic's first %+.1f%%, interval %.1f%% at distance "
           "%.3g; heuristic's first %.4f  %s\n", 100 * expm1(k->ours_margin), 100 * expm1(k->width), k->distance,
           over(k->heuristic, k->best), h);
    fprintf(out, "    OPENSOURCE %.4f  %s\n", over(k->ours, k->best_ours), o);
    fprintf(out, "    best               %s; of ours %s\n", b, bo);
}

/* The pair's cells, held out one at a time; the pair is the placement
 * file and the tuning file beside it (or the reverse). */
static int print_cells(FILE *out, const char *path)
{
    char other[4096];
    const char *cut = strstr(path, ".placement.json"), *tcut = strstr(path, ".tuning.json");
    bool placement = cut != NULL;
    const char *at = placement ? cut : tcut;
    if (!at) return fprintf(stderr, "%s: --cells: expected <family>.placement.json or .tuning.json\n", path), 2;
    if (snprintf(other, sizeof other, "%.*s%s", (int)(at - path), path,
                 placement ? ".tuning.json" : ".placement.json") >= (int)sizeof other)
        return fprintf(stderr, "%.200s...: --cells: path too long for the table beside it\n", path), 2;
    gdt_tables *t = NULL;
    gdt_error e;
    gdt_error_clear(&e);
    gdt_status s = gdt_tables_load_files(placement ? other : path, placement ? path : other, &t, &e);
    int n = gdt_tables_ncells(t);
    gdt_model_pick *k = s ? NULL : calloc((size_t)(n ? n : 1), sizeof *k);
    double err = NAN, logsum[2] = {0, 0}, worst[2] = {1, 1};
    if (!s && !k) s = gdt_error_set(&e, GDT_STATUS_NO_MEMORY, "out of memory");
    if (!s) s = gdt_tables_model_picks(t, k, &err, &e);
    if (!s) fprintf(out, "  held out, each cell predicted by the model of the others (ratio: measured time / the "
                   "cell's best, of all plans for A, of ours for OPENSOURCE):\n");
    for (int i = 0; !s && i < n; i++) {
        print_pick(out, k[i].key, &k[i]);
        double r[2] = {over(k[i].mode_a, k[i].best), over(k[i].ours, k[i].best_ours)};
        for (int m = 0; m < 2; m++)
            if (!isnan(r[m])) logsum[m] += log(r[m]), worst[m] = fmax(worst[m], r[m]);
    }
    if (!s)
        fprintf(out, "  recomputed from the tuning table: median |error| %.1f%%, A %.4g / %.4g, OPENSOURCE %.4g / %.4g\n",
               100 * err, exp(logsum[0] / (n ? n : 1)), worst[0], exp(logsum[1] / (n ? n : 1)), worst[1]);
    if (s) fprintf(stderr, "%s: --cells: %s\n", path, e.msg);
    free(k);
    gdt_tables_destroy(t);
    return s ? gdt_status_exit_code(s) : 0;
}

/* The summary line of a file the loader accepted: these reads cannot fail
 * in a way the loader did not already refuse. */
static void summarize(FILE *out, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    cJSON *root = NULL;
    gdt_error e;
    if (gdt_file_read(path, &text, &len, &e) || gdt_json_parse(text, len, path, &root, &e)) {
        fprintf(out, "%s: ok\n", path);
        free(text);
        return;
    }
    const cJSON *schema = gdt_json_get(root, "schema"), *arch = gdt_json_get(root, "arch");
    const cJSON *family = gdt_json_get(root, "family"), *cells = gdt_json_get(root, "cells");
    const char *s = cJSON_GetStringValue(schema);
    fprintf(out, "%s: ok (%s, %s, %s, %d cells)\n", path,
           s && !strcmp(s, GDT_TABLE_SCHEMA_TUNING) ? "tuning" : "placement",
           cJSON_GetStringValue(arch), cJSON_GetStringValue(family), cJSON_GetArraySize(cells));
    print_model_cv(out, gdt_json_get(root, "model"));
    cJSON_Delete(root);
    free(text);
}

/* ------------------------------------------- --validation: off the grid */

/* A validation sweep's cells, all families in one array (the scorer takes
 * the table's family). */
typedef struct validation_set {
    gdt_run_cells by_family;
    gdt_measured_cell *all;
    int n;
} validation_set;

static int load_validation(const validation_dirs *d, validation_set *v)
{
    gdt_error e;
    memset(v, 0, sizeof *v);
    if (d->n == 0) return 0;
    if (gdt_run_cells_load(d->dir, d->n, &v->by_family, &e))
        return fprintf(stderr, "gdtune tables check: --validation: %s\n", e.msg), 2;
    for (int f = 0; f < GDT_FAMILY_COUNT; f++) v->n += v->by_family.n[f];
    if (!(v->all = calloc((size_t)(v->n ? v->n : 1), sizeof *v->all)))
        return fprintf(stderr, "gdtune tables check: out of memory\n"), 1;
    for (int f = 0, k = 0; f < GDT_FAMILY_COUNT; f++)
        for (int i = 0; i < v->by_family.n[f]; i++) v->all[k++] = v->by_family.cells[f][i];
    return 0;
}

/* The model of a placement file scored on the validation cells of its
 * family; a tuning file has no model and is passed over. */
static int check_validation_file(FILE *out, const char *path, const validation_set *v, bool cells)
{
    gdt_model_validation res;
    gdt_error e;
    gdt_error_clear(&e);
    if (strstr(path, ".tuning.json")) return 0;
    gdt_model_pick *k = cells ? calloc((size_t)(v->n ? v->n : 1), sizeof *k) : NULL;
    if (cells && !k) return fprintf(stderr, "gdtune tables check: out of memory\n"), 1;
    gdt_status s = gdt_tables_validate_file(path, v->all, v->n, &res, k, &e);
    if (s) free(k);
    if (s) return fprintf(stderr, "%s: --validation: %s\n", path, e.msg), gdt_status_exit_code(s);
    if (cells && res.ncells) fprintf(out, "  validation cells, each planned as a shape no cell covers:\n");
    for (int i = 0, j = 0; cells && i < v->n; i++) {
        char key[512];
        gdt_problem_key(&v->all[i].problem, key, sizeof key);
        if (j < res.ncells && k[j].best && v->all[i].plans <= k[j].best && k[j].best < v->all[i].plans + v->all[i].nplans)
            print_pick(out, key, &k[j++]);
    }
    free(k);
    if (res.ncells == 0) return fprintf(out, "  validation: no cell of this table's family in the validation runs\n"), 0;
    char label[96];
    snprintf(label, sizeof label, "validation sweep (%d of the cells swept here, scored as unswept)", res.swept);
    print_validation(out, label, &res);
    return 0;
}

/* A valid file's lines (under json, on stderr: the verdict is the
 * document's); the exit code of its --cells and --validation. */
static int check_valid(FILE *out, const char *path, const check_opts *o, const validation_set *v)
{
    int rc = 0;
    summarize(out, path);
    if (o->cells && print_cells(out, path)) rc = 2;
    int vrc = o->validation.n ? check_validation_file(out, path, v, o->cells) : 0;
    return vrc ? vrc : rc;
}

/* --format json: the verdicts in one document (gdtune.tables_check/1). */
static int check_json(cJSON *files, int bad, int rc)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", GDT_CLI_SCHEMA_CHECK);
    cJSON_AddBoolToObject(doc, "ok", rc == 0);
    cJSON_AddNumberToObject(doc, "exit_code", rc);
    cJSON_AddNumberToObject(doc, "invalid", bad);
    cJSON_AddItemToObject(doc, "files", files);
    int jrc = gdt_cli_json_emit("gdtune tables check", files ? doc : (cJSON_Delete(doc), NULL));
    return jrc ? jrc : rc;
}

static int check_files(int n, const char *const *files, const check_opts *o)
{
    int bad = 0, rc = 0;
    bool json = o->format == GDT_CLI_FORMAT_JSON;
    validation_set v;
    if ((rc = load_validation(&o->validation, &v))) return rc;
    cJSON *verdicts = json ? cJSON_CreateArray() : NULL;
    for (int i = 0; i < n; i++) {
        gdt_error e;
        gdt_error_clear(&e);
        bool ok = gdt_table_check_file(files[i], &e) == GDT_STATUS_OK;
        if (verdicts) cJSON_AddItemToArray(verdicts, gdt__cli_check_file_json(files[i], ok ? NULL : e.msg));
        if (ok) {
            int frc = check_valid(json ? stderr : stdout, files[i], o, &v);
            rc = frc ? frc : rc;
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
    gdt_run_cells_free(&v.by_family);
    free(v.all);
    rc = bad ? 2 : rc;
    return json ? check_json(verdicts, bad, rc) : rc;
}

/* ------------------------------------------------- the tables directory */

/* Creates and removes one file of a name nobody else uses: the only way to
 * know the directory takes files (access(2) says nothing of read-only
 * mounts, ACLs or quotas). */
/* One file gdtune creates there (unique, O_EXCL|O_NOFOLLOW) and removes. */
static gdt_status probe_writable(const char *dir, const char *label, gdt_error *e)
{
    char path[PATH_MAX], *tmp = NULL;
    int fd = -1;
    if (snprintf(path, sizeof path, "%s/.gdtune-probe", dir) >= (int)sizeof path)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--tables-dir %s%s: %s", dir, label,
                             strerror(ENAMETOOLONG));
    if (gdt_temp_create(path, &tmp, &fd, NULL) != GDT_STATUS_OK)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--tables-dir %s%s: cannot write there: %s "
                             "(expected a writable directory)", dir, label, strerror(errno));
    close(fd);
    unlink(tmp);
    free(tmp);
    gdt_temps_clean(path); /* probes a killed gdtune left */
    return GDT_STATUS_OK;
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

/* `tables emit RUNDIR...` and `merge RUNDIR...`: tables from journals.
 * argv[0] is the verb's last word. */
static int emit(const char *verb, int argc, char **argv)
{
    gdt_cli_spec spec = tables_spec;
    emit_opts o = {0};
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    int n = 0;
    if (!dirs)
        return fprintf(stderr, "%s: out of memory\n", verb), 1;
    spec.verb = verb;
    int rc = gdt_cli_parse(&spec, argc, argv, &o, dirs, argc, &n);
    if (rc < 0 && n == 0)
        rc = gdt_cli_usage_error(verb, "no RUNDIR given");
    if (rc >= 0) {
        free(dirs);
        return rc;
    }
    gdt_error e;
    gdt_error_clear(&e);
    gdt_status s = gdt__cli_tables_dir_check(o.tables_dir, &e);
    gdt_run_cells v = {0};
    gdt_emit_report rep = {0};
    if (s == GDT_STATUS_OK && o.validation.n)
        s = gdt_run_cells_load(o.validation.dir, o.validation.n, &v, &e);
    if (s == GDT_STATUS_OK)
        s = gdt_emit_dirs_validated(verb, dirs, n, o.tables_dir, o.validation.n ? &v : NULL, &rep, &e);
    gdt_run_cells_free(&v);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "%s: %s\n", verb, e.msg);
    free(dirs);
    rc = gdt_status_exit_code(s);
    if (o.format == GDT_CLI_FORMAT_JSON) {
        const char *schema = strcmp(verb, "gdtune merge") ? GDT_CLI_SCHEMA_EMIT : GDT_CLI_SCHEMA_MERGE;
        int jrc = gdt_cli_json_emit(verb, gdt__cli_emit_json(schema, o.tables_dir, &rep, rc, s ? e.msg : NULL));
        rc = jrc ? jrc : rc;
    }
    gdt_emit_report_free(&rep);
    return rc;
}

/* `tables check FILE... [--cells]`. */
static int check(int argc, char **argv)
{
    gdt_cli_spec spec = tables_spec;
    check_opts o = {0};
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    int n = 0;
    if (!files)
        return fprintf(stderr, "gdtune tables check: out of memory\n"), 1;
    spec.verb = "gdtune tables check";
    spec.opts = check_options, spec.nopts = GDT_CLI_NOPTS(check_options);
    int rc = gdt_cli_parse(&spec, argc, argv, &o, files, argc, &n);
    if (rc < 0 && n == 0)
        rc = gdt_cli_usage_error(spec.verb, "no FILE given");
    if (rc < 0)
        rc = check_files(n, files, &o);
    free(files);
    return rc;
}

int gdt_cli_merge(int argc, char **argv)
{
    return emit("gdtune merge", argc, argv);
}

int gdt_cli_tables(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "emit"))
        return emit("gdtune tables emit", argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "check"))
        return check(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "diff"))
        return gdt__cli_tables_diff(argc - 1, argv + 1);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return gdt_cli_help(&tables_spec, stdout), 0;
    if (argc < 2)
        return gdt_cli_usage_error("gdtune tables", "missing sub-command (expected: check, emit or diff)");
    return gdt_cli_usage_error("gdtune tables", "unknown sub-command '%s' (expected: check, emit or diff)",
                               argv[1]);
}
