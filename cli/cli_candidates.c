/* gdtune candidates FAMILY [--tuning-config FILE] [--shape k=v,...] [--arch smXY]
 *                         [--format text|json|csv]
 * gdtune candidates FAMILY --journal RUN... [--within PCT] [--tuning-config FILE]
 *
 * Shows what the candidate rows bind for one problem: for each offered NVRTC
 * slot of the family, every row as a plan (with the values actually bound),
 * a duplicate of an earlier row, or a rejection with its reason.  With
 * --journal, which rows earn their place in the journals' cells instead
 * (cli/cli_candidates_wins.c). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "gdt_cli_candidates.h"
#include "gdt_cli_csv.h"
#include "gdt_cli_options.h"
#include "gdt_rows.h"
#include "gdtune/candidates.h"

#define VERB GDT_CLI_CANDIDATES_VERB

typedef struct opts {
    const char *family, *tuning_config, *arch;
    char shape[1024]; /* merged --shape; "" for the family's defaults */
    int format;
    const char *journals[GDT_CLI_CANDIDATES_MAX_JOURNALS]; /* --journal, in order */
    int njournals;
    double within_pct; /* --within; < 0: the first journal's noise floor */
    bool among_rows;   /* --among-rows */
    cJSON *doc;       /* --format json or csv: the document being built */
} opts;

static const char usage_text[] =
    "usage: " VERB " FAMILY [--tuning-config FILE] [--shape k=v,...] [--arch smXY]\n"
    "                         [--format text|json|csv]\n"
    "       " VERB " FAMILY --journal RUN [--journal RUN...] [--within PCT]\n"
    "                         [--among-rows] [--tuning-config FILE] [--format text|json|csv]\n\n"
    "Prints, for each offered NVRTC engine slot of FAMILY, every candidate row as the\n"
    "plan it binds (with the values actually bound, and what was requested where\n"
    "projection changed a value), each duplicate with the row it duplicates, and each\n"
    "rejected row with its reason; then the counts.  FAMILY is gemm, sdpa_fwd, sdpa_bwd,\n"
    "or sdpa (both SDPA families).\n\n"
    "With --journal: which rows earn their place.  Each row is materialized for every\n"
    "cell of the sweep journals (RUN/journal.jsonl) and matched to the NVRTC plan with\n"
    "the knob values it binds; per row: cells where its plan was listed, where it has a\n"
    "verified time (measured), where it is the best generated plan (best), within PCT\n"
    "of the best generated plan (~gen) and of the cell's best plan of any engine\n"
    "(~cell), its least time over the best generated (best/gen), its plans' mean wall\n"
    "seconds (build, heat, measure), and a verdict: best, within, dominated (measured,\n"
    "never within PCT of the best generated plan) or unmeasured.  A cell of two\n"
    "journals counts twice.\n";

/* --journal RUN: repeatable, in order. */
static bool parse_journal(void *opts_, const char *value, char *why, size_t nwhy)
{
    opts *o = opts_;
    if (o->njournals >= GDT_CLI_CANDIDATES_MAX_JOURNALS) {
        snprintf(why, nwhy, "expected at most %d run directories", GDT_CLI_CANDIDATES_MAX_JOURNALS);
        return false;
    }
    o->journals[o->njournals++] = value;
    return true;
}

static const gdt_cli_option options[] = {
    {"--tuning-config", NULL, GDT_CLI_STRING, offsetof(opts, tuning_config), .metavar = "FILE",
     .help = "override rows: each structural family FILE names replaces\n"
             "the default rows of that family (tables/candidates/nvrtc.json)"},
    GDT_CLI_OPT_SHAPE(opts, shape,
                      "problem over the family's defaults; repeatable (keys merge)\n"
                      "gemm: batch, m, n, k, dtype=bf16|fp16, a=row|col, b=row|col\n"
                      "  (default batch=1,m=4096,n=4096,k=4096,dtype=bf16,a=row,b=row)\n"
                      "sdpa: b, h, h_q, h_kv, s, s_q, s_kv, d, dtype=bf16|fp16,\n"
                      "  causal=0|1|none|top_left|bottom_right, layout=bhsd|bshd, scale\n"
                      "  (default b=4,h=32,s=4096,d=128,bf16,causal=top_left,bshd)"),
    {"--arch", NULL, GDT_CLI_STRING, offsetof(opts, arch), .metavar = "smXY",
     .help = "target architecture for the resource rules (default sm90;\n"
             "known: sm80, sm86, sm87, sm89, sm90, sm100, sm120)"},
    {"--journal", NULL, GDT_CLI_CUSTOM, .parse = parse_journal, .metavar = "RUN",
     .help = "a sweep's run directory (RUN/journal.jsonl); repeatable: show\n"
             "which rows earn their place in its cells instead"},
    {"--within", NULL, GDT_CLI_DOUBLE, offsetof(opts, within_pct), .lo = 0, .hi = 100, .metavar = "PCT",
     .help = "with --journal: the margin over the best generated plan, in\n"
             "percent (default the first journal's noise floor, 2% today)"},
    {"--among-rows", NULL, GDT_CLI_FLAG, offsetof(opts, among_rows),
     .help = "with --journal: a cell's best generated plan is the best of\n"
             "the plans the rows bind there (how a set of rows, e.g. one\n"
             "template form's in --tuning-config, fares among itself),\n"
             "not of every NVRTC plan the cell measured"},
    GDT_CLI_OPT_FORMAT(opts, format),
};

static const gdt_cli_spec spec = {
    VERB, usage_text, "exit codes: 0 success, 1 failure while running, 2 bad usage or bad input\n",
    options, GDT_CLI_NOPTS(options)};

/* Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, opts *o)
{
    o->within_pct = -1;
    int npos, rc = gdt_cli_parse(&spec, argc, argv, o, &o->family, 1, &npos);
    if (rc >= 0) return rc;
    if (!o->family) return gdt_cli_usage_error(VERB, "missing FAMILY (gemm, sdpa_fwd, sdpa_bwd or sdpa)");
    if (o->njournals && (o->shape[0] || o->arch))
        return gdt_cli_usage_error(VERB, "--journal takes each cell's problem and the journal's arch "
                                   "(expected no --shape or --arch with it)");
    if (!o->njournals && (o->within_pct >= 0 || o->among_rows))
        return gdt_cli_usage_error(VERB, "%s needs --journal", o->among_rows ? "--among-rows" : "--within");
    return -1;
}

/* ------------------------------------------------------------ JSON */

static cJSON *values_json(const gdt_row_family *rf, const int64_t *v, int n)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < n && k < rf->ncols; k++) cJSON_AddNumberToObject(o, rf->cols[k].name, (double)v[k]);
    return o;
}

static cJSON *row_json(const gdt_row_family *rf, const gdt_candidate *c)
{
    cJSON *r = cJSON_CreateObject();
    char name[1024];
    cJSON_AddNumberToObject(r, "row", c->row_index);
    cJSON_AddStringToObject(r, "status", c->rejected               ? "rejected"
                                         : c->duplicate_of_earlier ? "duplicate"
                                                                   : "plan");
    if (c->rejected) {
        cJSON_AddStringToObject(r, "reason", c->reason);
    } else {
        gdt_plan_id_format(&c->id, name, sizeof name);
        cJSON_AddStringToObject(r, "plan", name);
        cJSON_AddNumberToObject(r, "engine_id", (double)c->id.engine_id);
        if (c->duplicate_of_earlier) cJSON_AddNumberToObject(r, "duplicate_of", c->dup_of);
        cJSON_AddItemToObject(r, "bound", values_json(rf, c->bound, c->ncols));
    }
    cJSON_AddItemToObject(r, "requested", values_json(rf, c->requested, c->ncols));
    return r;
}

static void slot_json(cJSON *slots, const gdt_row_family *rf, const gdt_engine_slot *s,
                      const char *source, const gdt_candidate *c, int n)
{
    cJSON *o = cJSON_CreateObject(), *rows = cJSON_CreateArray();
    int count[3] = {0, 0, 0}; /* plans, duplicates, rejected */
    cJSON_AddStringToObject(o, "slot", gdt_engine_slot_name(s));
    cJSON_AddBoolToObject(o, "offered", true);
    cJSON_AddStringToObject(o, "row_family", gdt_engine_slot_row_family(s));
    cJSON_AddStringToObject(o, "rows_from", source);
    for (int i = 0; rf && i < n; i++) {
        count[c[i].rejected ? 2 : c[i].duplicate_of_earlier ? 1 : 0]++;
        cJSON_AddItemToArray(rows, row_json(rf, &c[i]));
    }
    cJSON_AddItemToObject(o, "rows", rows);
    cJSON *counts = cJSON_AddObjectToObject(o, "counts");
    cJSON_AddNumberToObject(counts, "rows", n);
    cJSON_AddNumberToObject(counts, "plans", count[0]);
    cJSON_AddNumberToObject(counts, "duplicates", count[1]);
    cJSON_AddNumberToObject(counts, "rejected", count[2]);
    cJSON_AddItemToArray(slots, o);
}

static cJSON *new_doc(int arch)
{
    char name[16];
    cJSON *doc = cJSON_CreateObject();
    snprintf(name, sizeof name, "sm%d", arch);
    cJSON_AddStringToObject(doc, "schema", "gdtune.candidates/2");
    cJSON_AddStringToObject(doc, "arch", name);
    cJSON_AddArrayToObject(doc, "families");
    return doc;
}

/* The family's entry of the document; its slots go in "slots". */
static cJSON *family_json(cJSON *doc, gdt_family fam, const char *key)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "family", gdt_family_name(fam));
    cJSON_AddStringToObject(f, "key", key);
    cJSON_AddItemToArray(cJSON_GetObjectItem(doc, "families"), f);
    return cJSON_AddArrayToObject(f, "slots");
}

/* ------------------------------------------------------------ text */

static void print_values(const gdt_row_family *rf, const gdt_candidate *c, bool requested_only)
{
    printf("%20s", requested_only ? "requested" : "bound");
    for (int k = 0; k < c->ncols; k++) {
        if (requested_only) {
            printf(" %s=%lld", rf->cols[k].name, (long long)c->requested[k]);
            continue;
        }
        printf(" %s=%lld", rf->cols[k].name, (long long)c->bound[k]);
        if (c->bound[k] != c->requested[k]) printf(" (requested %lld)", (long long)c->requested[k]);
    }
    printf("\n");
}

static void print_slot(const gdt_row_family *rf, const gdt_engine_slot *s, const gdt_candidate *c,
                       int n)
{
    int plans = 0, dups = 0, rejected = 0;
    for (int i = 0; i < n; i++) {
        char name[1024];
        if (c[i].rejected) {
            rejected++;
            printf("  row %-3d rejected   %s\n", c[i].row_index, c[i].reason);
            print_values(rf, &c[i], true);
            continue;
        }
        gdt_plan_id_format(&c[i].id, name, sizeof name);
        if (c[i].duplicate_of_earlier) {
            dups++;
            printf("  row %-3d duplicate  of row %d: %s\n", c[i].row_index, c[i].dup_of, name);
        } else {
            plans++;
            printf("  row %-3d plan       %s\n", c[i].row_index, name);
        }
        print_values(rf, &c[i], false);
    }
    printf("%s: %d rows: %d plans, %d duplicates, %d rejected\n", gdt_engine_slot_name(s), n, plans,
           dups, rejected);
}

static void not_offered(cJSON *slots, const gdt_engine_slot *s, const char *why)
{
    if (!slots) {
        printf("%s: not offered: %s\n", gdt_engine_slot_name(s), why);
        return;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "slot", gdt_engine_slot_name(s));
    cJSON_AddBoolToObject(o, "offered", false);
    cJSON_AddStringToObject(o, "why", why);
    cJSON_AddItemToArray(slots, o);
}

/* slots: the family's JSON array under --format json, else NULL (text). */
static int run_slot(const gdt_row_table *t, const gdt_engine_slot *s, const gdt_facts *f,
                    const opts *o, cJSON *slots)
{
    char why[256];
    if (!gdt_slot_offered(gdt_manifest_default(), s, f, why, sizeof why)) {
        not_offered(slots, s, why);
        return 0;
    }
    const char *row_family = gdt_engine_slot_row_family(s);
    const gdt_row_family *rf = gdt__row_family_find(row_family);
    gdt_candidate *c;
    int n;
    gdt_error e;
    gdt_status st = gdt_candidates_materialize(t, s, f, &c, &n, &e);
    if (st) {
        fprintf(stderr, VERB ": %s\n", e.msg);
        return gdt_status_exit_code(st);
    }
    if (slots) {
        slot_json(slots, rf, s, gdt__cli_rows_source(o->tuning_config, row_family), c, n);
    } else {
        printf("%s: row family %s, %d rows from %s\n", gdt_engine_slot_name(s), row_family, n,
               gdt__cli_rows_source(o->tuning_config, row_family));
        if (rf) print_slot(rf, s, c, n);
    }
    free(c);
    return 0;
}

static int run_family(const gdt_row_table *t, gdt_family fam, const opts *o, int arch)
{
    gdt_problem p;
    gdt_error e;
    gdt_status st = gdt_problem_parse(fam, o->shape[0] ? o->shape : NULL, &p, &e);
    if (st) return fprintf(stderr, VERB ": %s\n", e.msg), gdt_status_exit_code(st);
    gdt_device_props dev;
    gdt_arch_limits(arch, &dev);
    gdt_facts f;
    gdt_facts_analyze(&p, &dev, &f);
    char key[512];
    gdt_problem_key(&p, key, sizeof key);
    cJSON *slots = o->doc ? family_json(o->doc, fam, key) : NULL;
    if (!slots) printf("%s on sm%d\n", key, arch);
    const gdt_manifest *m = gdt_manifest_default();
    int rc = 0;
    for (int i = 0; i < gdt_manifest_count(m) && !rc; i++) {
        const gdt_engine_slot *s = gdt_manifest_slot(m, i);
        if (gdt_engine_slot_family(s) == fam && gdt_engine_slot_kind(s) == GDT_ENGINE_NVRTC)
            rc = run_slot(t, s, &f, o, slots);
    }
    return rc;
}

static int load_rows(const opts *o, gdt_row_table **t)
{
    gdt_error e;
    gdt_status st = gdt_rows_load_default(t, &e);
    if (!st && o->tuning_config) st = gdt_rows_override(*t, o->tuning_config, &e);
    if (!st) return 0;
    fprintf(stderr, VERB ": %s\n", e.msg);
    gdt_rows_destroy(*t);
    *t = NULL;
    return gdt_status_exit_code(st);
}

/* --format csv: one line per row of an offered slot (a slot not offered
 * has no rows: the JSON's slots[] say why). */
static const gdt_cli_csv_col csv_cols[] = {
    {"family", 0, "family"}, {"key", 0, "key"}, {"slot", 1, "slot"},
    {"row_family", 1, "row_family"}, {"row", 2, "row"}, {"status", 2, "status"},
    {"plan", 2, "plan"}, {"engine_id", 2, "engine_id"}, {"duplicate_of", 2, "duplicate_of"},
    {"reason", 2, "reason"},
    {"requested", 2, "requested"}, {"bound", 2, "bound"},
};
static const gdt_cli_csv_view csv_view = {{"families", "slots", "rows"}, 3, csv_cols,
                                          sizeof csv_cols / sizeof csv_cols[0]};

int gdt_cli_candidates(int argc, char **argv)
{
    opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    unsigned mask;
    int arch = 90;
    gdt_error e;
    if (gdt_family_parse_set(o.family, &mask, &e)) return gdt_cli_usage_error(VERB, "%s", e.msg);
    if (o.arch && gdt_arch_parse(o.arch, &arch, &e)) return gdt_cli_usage_error(VERB, "%s", e.msg);
    if (!gdt_arch_limits(arch, NULL))
        return gdt_cli_usage_error(VERB, "%s: no per-arch limits (known: sm80, sm86, sm87, sm89, "
                                   "sm90, sm100, sm120)", o.arch);
    gdt_row_table *t;
    if ((rc = load_rows(&o, &t))) return rc;
    if (o.njournals) {
        gdt_cli_wins_args a = {t, o.tuning_config, mask, o.journals, o.njournals, o.within_pct,
                               o.among_rows, o.format};
        rc = gdt__cli_candidates_wins(&a);
        gdt_rows_destroy(t);
        return rc;
    }
    if (o.format != GDT_CLI_FORMAT_TEXT) o.doc = new_doc(arch);
    for (int f = 0; f < GDT_FAMILY_COUNT && !rc; f++)
        if (mask & (1u << f)) rc = run_family(t, (gdt_family)f, &o, arch);
    gdt_rows_destroy(t);
    if (o.doc && !rc) return gdt_cli_doc_emit(VERB, o.doc, o.format, &csv_view, 1);
    cJSON_Delete(o.doc);
    return rc;
}
