/* gdtune candidates FAMILY --journal RUN... [--within PCT]: per candidate
 * row of each NVRTC slot FAMILY offers, what the journals measured of the
 * plan it binds (harness/row_wins.c): cells listed and measured, cells
 * where it is the best generated plan, cells within PCT of the best
 * generated plan and of the cell's best plan, its best ratio to the best
 * generated plan, its plans' wall seconds, and a verdict ("dominated":
 * measured, never within PCT of the best generated plan). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gdt_cli_candidates.h"
#include "gdt_cli_csv.h"
#include "gdt_cli_options.h"
#include "gdt_json_rows.h"
#include "gdt_row_wins.h"
#include "gdt_rows.h"

#define VERB GDT_CLI_CANDIDATES_VERB
/* --within when the first journal's spec sets no noise floor: the default specs' floor. */
#define DEFAULT_WITHIN 0.02

typedef struct runs {
    gdt_run *r[GDT_CLI_CANDIDATES_MAX_JOURNALS];
    int n;
} runs;

static void runs_free(runs *rs)
{
    for (int i = 0; i < rs->n; i++)
        gdt_run_destroy(rs->r[i]);
    rs->n = 0;
}

/* A directory named twice would count its cells twice. */
static bool named_before(const gdt_cli_wins_args *a, int i)
{
    char x[PATH_MAX], y[PATH_MAX];
    for (int k = 0; k < i; k++)
        if (realpath(a->journals[i], x) && realpath(a->journals[k], y) && !strcmp(x, y))
            return true;
    return false;
}

static int load_runs(const gdt_cli_wins_args *a, runs *rs)
{
    for (int i = 0; i < a->njournals; i++) {
        gdt_error e = {0};
        if (named_before(a, i)) {
            runs_free(rs);
            return gdt_cli_usage_error(VERB, "--journal %s: the run directory again (expected each run "
                                       "directory once)", a->journals[i]);
        }
        gdt_status s = gdt_run_load(a->journals[i], &rs->r[rs->n], &e);
        if (s != GDT_STATUS_OK) {
            fprintf(stderr, VERB ": %s\n", e.msg);
            runs_free(rs);
            return gdt_status_exit_code(s);
        }
        rs->n++;
    }
    return 0;
}

/* ------------------------------------------------------------ output */

static double per_plan(const gdt_row_win *w)
{
    return w->timed ? w->seconds / w->timed : NAN;
}

static void values_text(const int64_t *v, int n, char *buf, size_t size)
{
    size_t w = (size_t)snprintf(buf, size, "[");
    for (int k = 0; k < n && w < size; k++)
        w += (size_t)snprintf(buf + w, size - w, "%s%lld", k ? "," : "", (long long)v[k]);
    if (w < size)
        snprintf(buf + w, size - w, "]");
}

static void number_or_null(cJSON *o, const char *key, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

/* A row's counts of cells, its best ratio (null: never measured) and its
 * seconds. */
static const gdt_json_row win_rows[] = {
    GDT_JSON_FIELD(gdt_row_win, listed),
    GDT_JSON_FIELD(gdt_row_win, measured),
    GDT_JSON_FIELD(gdt_row_win, best),
    GDT_JSON_FIELD(gdt_row_win, within_generated),
    GDT_JSON_FIELD(gdt_row_win, within_cell),
    GDT_JSON_FINITE(gdt_row_win, "best_ratio", best_ratio),
    GDT_JSON_FIELD(gdt_row_win, seconds),
};

static cJSON *row_json(const gdt_row_win *w, const gdt_candidate *c)
{
    cJSON *o = cJSON_CreateObject();
    char v[256];
    values_text(c->requested, c->ncols, v, sizeof v);
    cJSON_AddNumberToObject(o, "row", w->row);
    cJSON_AddStringToObject(o, "values", v);
    gdt_json_rows_add(o, w, win_rows, GDT_JSON_ROWS_N(win_rows));
    number_or_null(o, "seconds_per_plan", per_plan(w));
    cJSON_AddStringToObject(o, "verdict", gdt_row_verdict_name(gdt_row_wins_verdict(w)));
    return o;
}

static void count_verdicts(const gdt_row_wins *w, int count[4])
{
    for (int i = 0; i < w->nrows; i++)
        count[gdt_row_wins_verdict(&w->rows[i])]++;
}

static void family_json(cJSON *families, const gdt_row_wins *w, const gdt_engine_slot *slot,
                        const char *source, const gdt_candidate *c)
{
    cJSON *o = cJSON_CreateObject(), *rows = cJSON_CreateArray();
    int count[4] = {0};
    count_verdicts(w, count);
    cJSON_AddStringToObject(o, "row_family", w->row_family);
    cJSON_AddStringToObject(o, "slot", gdt_engine_slot_name(slot));
    cJSON_AddStringToObject(o, "rows_from", source);
    cJSON_AddNumberToObject(o, "cells", w->cells);
    cJSON_AddNumberToObject(o, "plans", w->plans);
    cJSON_AddNumberToObject(o, "seconds", w->seconds);
    for (int v = 0; v < 4; v++)
        cJSON_AddNumberToObject(o, gdt_row_verdict_name((gdt_row_verdict)v), count[v]);
    for (int i = 0; i < w->nrows; i++)
        cJSON_AddItemToArray(rows, row_json(&w->rows[i], &c[i]));
    cJSON_AddItemToObject(o, "rows", rows);
    cJSON_AddItemToArray(families, o);
}

static void row_text(const gdt_row_win *w, const gdt_candidate *c)
{
    char v[256], ratio[32], sec[32];
    values_text(c->requested, c->ncols, v, sizeof v);
    snprintf(ratio, sizeof ratio, isnan(w->best_ratio) ? "-" : "%.3f", w->best_ratio);
    snprintf(sec, sizeof sec, isnan(per_plan(w)) ? "-" : "%.2f", per_plan(w));
    printf("%4d  %-34s %6d %8d %4d %7d %8d %10s %7s  %s\n", w->row, v, w->listed, w->measured, w->best,
           w->within_generated, w->within_cell, ratio, sec, gdt_row_verdict_name(gdt_row_wins_verdict(w)));
}

static void family_text(const gdt_row_wins *w, const gdt_engine_slot *slot, const char *source,
                        const gdt_candidate *c)
{
    int count[4] = {0};
    count_verdicts(w, count);
    printf("%s (%s): %d rows from %s; %d cells, %d plans of the slot, %.1f s\n", w->row_family,
           gdt_engine_slot_name(slot), w->nrows, source, w->cells, w->plans, w->seconds);
    printf("%4s  %-34s %6s %8s %4s %7s %8s %10s %7s  %s\n", "row", "values", "listed", "measured", "best",
           "~gen", "~cell", "best/gen", "s/plan", "verdict");
    for (int i = 0; i < w->nrows; i++)
        row_text(&w->rows[i], &c[i]);
    printf("%s: %d best, %d within, %d dominated, %d unmeasured; dominated rows:", w->row_family,
           count[GDT_ROW_BEST], count[GDT_ROW_WITHIN], count[GDT_ROW_DOMINATED], count[GDT_ROW_UNMEASURED]);
    for (int i = 0; i < w->nrows; i++)
        if (gdt_row_wins_verdict(&w->rows[i]) == GDT_ROW_DOMINATED)
            printf(" %d", i);
    printf(count[GDT_ROW_DOMINATED] ? "\n" : " none\n");
}

/* ------------------------------------------------------------ one slot */

/* The rows as written: materialized for the family's default problem
 * (only the requested values are read). */
static int rows_as_written(const gdt_row_table *t, const gdt_engine_slot *slot, gdt_candidate **c, int *n)
{
    gdt_problem p;
    gdt_device_props dev;
    gdt_facts f;
    gdt_error e = {0};
    gdt_status s = gdt_problem_parse(gdt_engine_slot_family(slot), NULL, &p, &e);
    gdt_arch_limits(90, &dev);
    gdt_facts_analyze(&p, &dev, &f);
    if (s == GDT_STATUS_OK)
        s = gdt_candidates_materialize(t, slot, &f, c, n, &e);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, VERB ": %s\n", e.msg);
    return gdt_status_exit_code(s);
}

static int run_slot(const gdt_cli_wins_args *a, const runs *rs, const gdt_engine_slot *slot, double within,
                    cJSON *families)
{
    const char *rf = gdt_engine_slot_row_family(slot);
    const char *source = gdt__cli_rows_source(a->tuning_config, rf);
    gdt_row_wins w;
    gdt_error e = {0};
    gdt_candidate *c = NULL;
    int n = 0, rc = rows_as_written(a->rows, slot, &c, &n);
    gdt_status s = rc ? GDT_STATUS_OK : gdt_row_wins_init(&w, a->rows, rf, within, a->among_rows, &e);
    if (rc)
        return rc;
    for (int i = 0; i < rs->n && s == GDT_STATUS_OK; i++)
        s = gdt_row_wins_add(&w, a->rows, rs->r[i], &e);
    if (s == GDT_STATUS_OK && families)
        family_json(families, &w, slot, source, c);
    else if (s == GDT_STATUS_OK)
        family_text(&w, slot, source, c);
    else
        fprintf(stderr, VERB ": %s\n", e.msg);
    gdt_row_wins_free(&w);
    free(c);
    return gdt_status_exit_code(s);
}

static const gdt_cli_csv_col csv_cols[] = {
    {"row_family", 0, "row_family"}, {"slot", 0, "slot"}, {"row", 1, "row"}, {"values", 1, "values"},
    {"listed", 1, "listed"}, {"measured", 1, "measured"}, {"best", 1, "best"},
    {"within_generated", 1, "within_generated"}, {"within_cell", 1, "within_cell"},
    {"best_ratio", 1, "best_ratio"}, {"seconds", 1, "seconds"}, {"seconds_per_plan", 1, "seconds_per_plan"},
    {"verdict", 1, "verdict"},
};
static const gdt_cli_csv_view csv_view = {{"families", "rows"}, 2, csv_cols,
                                          sizeof csv_cols / sizeof csv_cols[0]};

static cJSON *new_doc(const gdt_cli_wins_args *a, double within)
{
    cJSON *doc = cJSON_CreateObject(), *j = cJSON_CreateArray();
    cJSON_AddStringToObject(doc, "schema", "gdtune.candidates.wins/1");
    cJSON_AddNumberToObject(doc, "within", within);
    cJSON_AddBoolToObject(doc, "among_rows", a->among_rows);
    for (int i = 0; i < a->njournals; i++)
        cJSON_AddItemToArray(j, cJSON_CreateString(a->journals[i]));
    cJSON_AddItemToObject(doc, "journals", j);
    cJSON_AddArrayToObject(doc, "families");
    return doc;
}

int gdt__cli_candidates_wins(const gdt_cli_wins_args *a)
{
    runs rs = {0};
    int rc = load_runs(a, &rs);
    if (rc)
        return rc;
    double floor = rs.r[0]->spec->noise_floor;
    double within = a->within_pct >= 0 ? a->within_pct / 100 : floor > 0 ? floor : DEFAULT_WITHIN;
    const char *why = a->within_pct >= 0 ? "--within"
                      : floor > 0        ? "the first journal's noise floor"
                                         : "the first journal's spec sets no noise floor";
    cJSON *doc = a->format != GDT_CLI_FORMAT_TEXT ? new_doc(a, within) : NULL;
    if (!doc)
        printf("within %.3g%% (%s), %d journal%s; best generated: %s\n", within * 100, why, rs.n,
               rs.n == 1 ? "" : "s", a->among_rows ? "of these rows' plans" : "of every NVRTC plan");
    const gdt_manifest *m = gdt_manifest_default();
    for (int i = 0; i < gdt_manifest_count(m) && !rc; i++) {
        const gdt_engine_slot *s = gdt_manifest_slot(m, i);
        if ((a->families & (1u << gdt_engine_slot_family(s))) && gdt_engine_slot_kind(s) == GDT_ENGINE_NVRTC)
            rc = run_slot(a, &rs, s, within, doc ? cJSON_GetObjectItem(doc, "families") : NULL);
    }
    runs_free(&rs);
    if (doc && !rc)
        return gdt_cli_doc_emit(VERB, doc, a->format, &csv_view, 1);
    cJSON_Delete(doc);
    return rc;
}
