/* `gdtune tables diff OLD NEW`: finds and loads both sets of tables with the
 * strict loader, builds the diff model (harness/tables_diff.c) and prints
 * it as text, JSON (gdtune.tables_diff/1), markdown or CSV (a line per
 * cell of the JSON). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gdt_cli_csv.h"
#include "gdt_cli_options.h"
#include "gdt_json_rows.h"
#include "gdt_tables_diff.h"
#include "gdt_util.h"

static const char diff_verb[] = "gdtune tables diff";

static const char diff_usage[] =
    "usage: gdtune tables diff OLD NEW [--family F] [--format text|json|md|csv]\n"
    "                          [--runs OLDRUN NEWRUN] [--noise-floor F] [--verbose]\n"
    "\n"
    "Compares two sets of tables cell by cell (cells matched by problem key) in cost.\n"
    "OLD and NEW are each a tables directory (DIR/sm<arch>/<family>.{tuning,placement}\n"
    ".json, as --tables-dir writes it), one arch's folder (DIR/sm90), or one table\n"
    "file of a pair (its other file is found beside it). Provenance differences come\n"
    "first, as the likely cause; then the worst regret and the worst slowdown of all\n"
    "cells; then per cell that differs its two verdicts, then the detail.\n"
    "\n"
    "  regret    the committed (OLD) choice's time in NEW over NEW's best, less one:\n"
    "            the winner (fastest plan) and the first entry over NEW's winner, the\n"
    "            decision's side (its fastest plan) over the faster of NEW's best of\n"
    "            ours and best of the backend (the decision chooses between those);\n"
    "            the worst of the three is shown (all with --verbose or in JSON);\n"
    "  slowdown  NEW's winner's time over OLD's winner's, less one, same plan or not.\n"
    "A regret is judged by what NEW adds to the regret OLD already held for that choice\n"
    "(a first entry or decision the ranking kept within noise of OLD's winner):\n"
    "(1 + regret) / (1 + committed regret) - 1; the winner's committed regret is 0.\n"
    "Each is beyond noise only when that is larger than both the noise floor and the\n"
    "two times' combined noise ((n1 t1 + n2 t2) / t2, the noise recorded with each).\n"
    "A slowdown below minus both is an improvement: reported (faster), not an alarm.\n"
    "A committed choice NEW did not measure has an unknown cost: beyond noise.\n"
    "The noise floor is the sweep spec's noise_floor: the tables raise every plan's\n"
    "noise to it, so each set's floor is the larger of its two tables' smallest plan\n"
    "noise; --noise-floor sets it; --runs takes the runs' spec noise_floor.\n"
    "\n"
    "The detail, which decides nothing: decision flips (LEAD/TRAIL), winner and\n"
    "first-entry changes, each with its shift judged by the tables' ranking rule\n"
    "(tables/README.md) on the placement ratio or on t_x/t_y (gap in units of the\n"
    "combined noise) and how far each table's choice was ahead of the other's in that\n"
    "table (\"ahead by\"; below 1: within its noise); ranking moves (--verbose; always\n"
    "in JSON); cells added and removed; a summary line.\n"
    "\n"
    "--runs OLDRUN NEWRUN (run directories with journal.jsonl) also tests the raw\n"
    "device-time samples, at each journal's largest burst, of every plan a changed\n"
    "cell names: Mann-Whitney U, two-sided: exact when a side has fewer than 8\n"
    "samples (the permutation distribution of the pooled mid-ranks), else the normal\n"
    "approximation with tie and continuity corrections; and\n"
    "judges those cells' costs with each plan's measured spread as journaled (the\n"
    "tables raise it to the floor) against the runs' floor.\n";

static const char diff_footer[] =
    "exit codes: 0 no regret and no slowdown beyond noise (improvements and plan moves\n"
    "included); 3 a regret or a slowdown beyond noise, or a cell added or removed;\n"
    "2 bad usage or a file that does not load (the message names the file and JSON\n"
    "path); 1 failure while running\n";

enum { FMT_TEXT, FMT_JSON, FMT_MD, FMT_CSV };
static const char *const diff_formats[] = {"text", "json", "md", "csv", NULL};

typedef struct diff_opts {
    const char *family;
    int format;
    bool runs, verbose;
    double noise_floor; /* < 0: not given */
} diff_opts;

static const gdt_cli_option diff_options[] = {
    {"--family", NULL, GDT_CLI_STRING, offsetof(diff_opts, family), .metavar = "F",
     .help = "gemm, sdpa_fwd, sdpa_bwd or sdpa (both); default: every family found"},
    {"--format", NULL, GDT_CLI_CHOICE, offsetof(diff_opts, format), .choices = diff_formats,
     .def = "text", .metavar = "text|json|md",
     .help = "text for people; json: one gdtune.tables_diff/1 document;\n"
             "md: markdown tables (a CI job summary)"},
    {"--runs", NULL, GDT_CLI_FLAG, offsetof(diff_opts, runs), .metavar = "OLDRUN NEWRUN",
     .help = "OLDRUN NEWRUN: the two sweeps' run directories; tests the samples"},
    {"--noise-floor", NULL, GDT_CLI_DOUBLE, offsetof(diff_opts, noise_floor), .lo = 0,
     .hi = GDT_NOISE_FLOOR_MAX, .metavar = "F",
     .help = "the noise floor, relative (0.02: 2%), instead of the tables' or runs'"},
    {"--verbose", "-v", GDT_CLI_FLAG, offsetof(diff_opts, verbose),
     .help = "text and md: every regret and every ranking move"},
};

static const gdt_cli_spec diff_spec = {diff_verb, diff_usage, diff_footer, diff_options,
                                       GDT_CLI_NOPTS(diff_options)};

/* ============================================================ finding tables */

#define MAX_SETS 64

typedef struct side {
    const char *path;
    gdt_tables *t[MAX_SETS];
    int n;
    bool is_file;
} side;

static gdt_status keep(side *sd, gdt_tables *t, gdt_error *e)
{
    if (sd->n == MAX_SETS) {
        gdt_tables_destroy(t);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: more than %d table pairs", sd->path,
                             MAX_SETS);
    }
    sd->t[sd->n++] = t;
    return GDT_STATUS_OK;
}

/* One pair named by its files: both absent is no table, one absent bad. */
static gdt_status load_named(side *sd, const char *tp, const char *pp, gdt_error *e)
{
    bool ht = gdt_path_is_file(tp), hp = gdt_path_is_file(pp);
    gdt_tables *t = NULL;
    if (!ht && !hp) return GDT_STATUS_OK;
    if (!ht || !hp)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: missing (its pair %s exists; one sweep "
                             "writes both)", ht ? pp : tp, ht ? tp : pp);
    gdt_status s = gdt_tables_load_files(tp, pp, &t, e);
    return s ? s : keep(sd, t, e);
}

/* A file of a pair: its other file has the same name but the kind. */
static gdt_status load_file(side *sd, gdt_error *e)
{
    static const char tun[] = ".tuning.json", pla[] = ".placement.json";
    size_t n = strlen(sd->path);
    char tp[4096], pp[4096];
    bool t = n > strlen(tun) && !strcmp(sd->path + n - strlen(tun), tun);
    bool p = n > strlen(pla) && !strcmp(sd->path + n - strlen(pla), pla);
    if (!t && !p)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s: expected a tables directory or a file "
                             "named <family>.tuning.json or <family>.placement.json", sd->path);
    int stem = (int)(n - strlen(t ? tun : pla));
    snprintf(tp, sizeof tp, "%.*s%s", stem, sd->path, tun);
    snprintf(pp, sizeof pp, "%.*s%s", stem, sd->path, pla);
    sd->is_file = true;
    return load_named(sd, tp, pp, e);
}

/* dir holds <family>.{tuning,placement}.json for the families of mask. */
static gdt_status load_arch_dir(side *sd, const char *dir, unsigned mask, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    for (int f = 0; f < GDT_FAMILY_COUNT && !s; f++) {
        char tp[4096], pp[4096];
        if (!(mask & (1u << f))) continue;
        const char *fam = gdt_family_name((gdt_family)f);
        if (snprintf(tp, sizeof tp, "%s/%s.tuning.json", dir, fam) >= (int)sizeof tp ||
            snprintf(pp, sizeof pp, "%s/%s.placement.json", dir, fam) >= (int)sizeof pp)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables diff: %.200s...: directory path too long "
                                 "(%zu bytes) for its %s tables", dir, strlen(dir), fam);
        s = load_named(sd, tp, pp, e);
    }
    return s;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++) free(names[i]);
}

/* The sm<arch> folders of DIR as the tables loader names them; an arch
 * spelled another way (sm_90, sm90a, sm090: dispatch never reads it, so a
 * diff of it would compare what nothing runs) and more folders than fit
 * are refused, not skipped. */
static gdt_status arch_dirs(const side *sd, char **names, int *n, gdt_error *e)
{
    DIR *dp = opendir(sd->path);
    if (!dp) return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: cannot read the directory", sd->path);
    gdt_status s = GDT_STATUS_OK;
    *n = 0;
    for (struct dirent *de; !s && (de = readdir(dp));) {
        char sub[4096];
        int arch, kind = gdt_arch_dir_kind(de->d_name, &arch);
        snprintf(sub, sizeof sub, "%s/%s", sd->path, de->d_name);
        if (kind == 0 || !gdt_path_is_dir(sub)) continue;
        if (kind < 0)
            s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables diff: %s: expected a folder named "
                              "sm<major*10+minor> (like sm90), as the tables loader reads them, got "
                              "\"%.64s\": dispatch never reads it; rename or move it", sub, de->d_name);
        else if (*n == MAX_SETS)
            s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables diff: %s: expected at most %d "
                              "sm<arch> folders, got more", sd->path, MAX_SETS);
        else if (!(names[*n] = strdup(de->d_name)))
            s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables diff: out of memory");
        else
            ++*n;
    }
    closedir(dp);
    if (s) free_names(names, *n);
    return s;
}

/* DIR/sm<arch>/ folders in name order, else DIR itself as one arch's. */
static gdt_status load_dir(side *sd, unsigned mask, gdt_error *e)
{
    char *names[MAX_SETS];
    int n = 0;
    gdt_status s = arch_dirs(sd, names, &n, e);
    if (s) return s;
    qsort(names, (size_t)n, sizeof *names, name_cmp);
    for (int i = 0; i < n && !s; i++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", sd->path, names[i]);
        s = load_arch_dir(sd, sub, mask, e);
    }
    free_names(names, n);
    return s || sd->n ? s : load_arch_dir(sd, sd->path, mask, e);
}

static gdt_status load_side(side *sd, unsigned mask, gdt_error *e)
{
    gdt_status s = gdt_path_is_dir(sd->path) ? load_dir(sd, mask, e) : load_file(sd, e);
    if (!s && sd->n == 0)
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: no tables there (expected DIR/sm<arch>/"
                          "<family>.{tuning,placement}.json, DIR/sm<arch>, or one table file)",
                          sd->path);
    for (int i = 0; !s && i < sd->n; i++)
        if (!(mask & (1u << gdt_tables_family(sd->t[i])))) {
            gdt_tables_destroy(sd->t[i]);
            sd->t[i--] = sd->t[--sd->n];
        }
    return s;
}

static void free_side(side *sd)
{
    for (int i = 0; i < sd->n; i++) gdt_tables_destroy(sd->t[i]);
    sd->n = 0;
}

/* The tables of one family on one arch in a side, or NULL. */
static const gdt_tables *find_set(const side *sd, gdt_family f, int arch)
{
    for (int i = 0; i < sd->n; i++)
        if (gdt_tables_family(sd->t[i]) == f && gdt_tables_arch(sd->t[i]) == arch) return sd->t[i];
    return NULL;
}

/* Every (family, arch) of either side, family by family, arch by arch. */
static gdt_status diff_sides(const side *o, const side *n, gdt_tables_diff *d, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    for (int f = 0; f < GDT_FAMILY_COUNT; f++)
        for (int arch = 0; arch < 1000 && !s; arch++) {
            const gdt_tables *a = find_set(o, (gdt_family)f, arch), *b = find_set(n, (gdt_family)f, arch);
            if (a || b) s = gdt_tables_diff_add(d, a, b, e);
        }
    return s;
}

/* Two files: one family on both sides. */
static gdt_status same_family(const side *o, const side *n, gdt_error *e)
{
    if (!o->is_file || !n->is_file || !o->n || !n->n) return GDT_STATUS_OK;
    gdt_family a = gdt_tables_family(o->t[0]), b = gdt_tables_family(n->t[0]);
    if (a == b) return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s holds %s tables but %s holds %s (expected two "
                         "files of one family)", o->path, gdt_family_name(a), n->path,
                         gdt_family_name(b));
}

static gdt_status add_runs(gdt_tables_diff *d, const char *old_dir, const char *new_dir, gdt_error *e)
{
    gdt_run *a = NULL, *b = NULL;
    gdt_status s = gdt_run_load(old_dir, &a, e);
    if (!s) s = gdt_run_load(new_dir, &b, e);
    if (!s) s = gdt_tables_diff_runs(d, a, b, e);
    gdt_run_destroy(a);
    gdt_run_destroy(b);
    return s;
}

/* ============================================================ text */

static const char *noise_word(bool beyond) { return beyond ? "beyond noise" : "within noise"; }

static void text_provenance(const gdt_tables_diff *d)
{
    printf("provenance (the likely cause of what follows):\n");
    for (int i = 0; i < d->nsets; i++) {
        const gdt_diff_set *s = &d->sets[i];
        printf("  %s sm%d: ", gdt_family_name(s->family), s->arch);
        if (!s->in_old || !s->in_new)
            printf("in %s only\n", s->in_old ? "OLD" : "NEW");
        else if (!s->nfields)
            printf("identical\n");
        for (int k = 0; k < s->nfields; k++)
            printf("%s%s %s -> %s%s", k ? "; " : "", s->fields[k].field, s->fields[k].old_v,
                   s->fields[k].new_v, k + 1 == s->nfields ? "\n" : "");
    }
}

/* ------------------------------------------------------------ costs */

static const char *cost_word(const gdt_diff_cost *c)
{
    return c->beyond ? "beyond noise" : c->faster ? "faster beyond noise, not an alarm" : "within noise";
}

/* "beyond noise (noise 4.00%, floor 2.00%)" */
static void text_verdict(const gdt_diff_cost *c)
{
    printf(": %s (", cost_word(c));
    if (c->has && c->accepted > 0)
        printf("committed %+.2f%%, %+.2f%% over it; ", 100 * c->accepted, 100 * c->excess);
    if (c->has) printf("noise %.2f%%, ", 100 * c->noise);
    printf("floor %.2f%%)\n", 100 * c->floor);
}

static const char *choice_words(const gdt_diff_cell *c, int i)
{
    static const char *const w[] = {"winner", "first entry"};
    if (i < GDT_DIFF_DECISION) return w[i];
    return strcmp(c->decision.old_name, "LEAD") ? "decision TRAIL" : "decision LEAD";
}

/* "+0.80% winner A over NEW's winner B: within noise (...)" */
static void text_regret(const char *label, const gdt_diff_cell *c, int i)
{
    const gdt_diff_cost *r = &c->regret[i];
    const char *what = choice_words(c, i);
    printf("  %-12s ", label);
    if (!r->has)
        printf("unknown: %s %s not measured in NEW", what, r->plan);
    else if (!strcmp(r->plan, r->base))
        printf("%+.2f%% %s %s, NEW's best too", 100 * r->value, what, r->plan);
    else
        printf("%+.2f%% %s %s over NEW's %s %s", 100 * r->value, what, r->plan,
               i == GDT_DIFF_DECISION ? "best of both sides" : "winner", r->base);
    text_verdict(r);
}

static void text_slowdown(const gdt_diff_cost *s)
{
    printf("  %-12s %+.2f%% %.4g -> %.4g us, winner %s", "slowdown", 100 * s->value, s->base_us, s->us,
           s->plan);
    if (strcmp(s->plan, s->base)) printf(" (OLD's: %s)", s->base);
    else printf(" (OLD's too)");
    text_verdict(s);
}

static void text_costs(const gdt_diff_cell *c, bool verbose)
{
    int w = gdt_diff_worst_regret(c->regret);
    if (c->regret[w].applies) text_regret("regret", c, w);
    for (int i = 0; i < GDT_DIFF_CHOICES; i++)
        if (i != w && c->regret[i].applies && (verbose || c->regret[i].beyond)) text_regret("", c, i);
    text_slowdown(&c->slowdown);
}

/* The cells' worst regret and worst slowdown, first in the report. */
static void text_worst(const gdt_tables_diff *d)
{
    int wr, ws;
    if (!gdt_tables_diff_worst(d, &wr, &ws)) {
        printf("worst regret and slowdown: none (no compared cell differs)\n");
        return;
    }
    const gdt_diff_cell *r = &d->cells[wr], *l = &d->cells[ws];
    printf("worst regret   %s [%s sm%d]:\n", r->key, gdt_family_name(r->family), r->arch);
    text_regret("", r, gdt_diff_worst_regret(r->regret));
    printf("worst slowdown %s [%s sm%d]:\n", l->key, gdt_family_name(l->family), l->arch);
    text_slowdown(&l->slowdown);
}

/* "changed beyond noise: regret +3.10% (winner), slowdown +33.00%" */
static void text_status(const gdt_diff_cell *c)
{
    if (c->status == GDT_DIFF_FASTER) {
        printf("faster beyond noise: slowdown %+.2f%% (not an alarm)\n", 100 * c->slowdown.value);
        return;
    }
    printf("changed %s", noise_word(c->status == GDT_DIFF_BEYOND));
    const char *sep = ": ";
    for (int i = 0; i < GDT_DIFF_CHOICES; i++) {
        const gdt_diff_cost *r = &c->regret[i];
        if (!r->beyond) continue;
        if (r->has) printf("%sregret %+.2f%% (%s)", sep, 100 * r->value, choice_words(c, i));
        else printf("%sregret unknown (%s)", sep, choice_words(c, i));
        sep = ", ";
    }
    if (c->slowdown.beyond) printf("%sslowdown %+.2f%%", sep, 100 * c->slowdown.value);
    printf("\n");
}

/* ------------------------------------------------------------ detail */

static void text_gap(bool has, double gap)
{
    if (has) printf(", gap %.3g x noise", gap);
}

static void text_pick(const char *label, const char *what, const gdt_diff_pick *k)
{
    if (!k->changed) return;
    printf("  %-12s %s -> %s: shift %s", label, k->old_name, k->new_name, noise_word(k->beyond));
    if (k->has_values) printf(" (%s %.4g -> %.4g", what, k->old_value, k->new_value);
    else printf(" (measured on one side only");
    text_gap(k->has_gap, k->gap);
    if (k->has_ahead) printf("; ahead by %.3g x noise in OLD, %.3g in NEW", k->old_ahead, k->new_ahead);
    printf(")\n");
}

static void text_moves(const gdt_diff_cell *c, bool verbose)
{
    int quiet = 0, shown = 0;
    if (!verbose) {
        if (c->nmoves) printf("  %-12s %d plan%s moved (--verbose lists them)\n", "ranking", c->nmoves,
                              c->nmoves == 1 ? "" : "s");
        return;
    }
    for (int i = 0; i < c->nmoves; i++) {
        const gdt_diff_move *m = &c->moves[i];
        if (m->has_time && !m->time.beyond) {
            quiet++;
            continue;
        }
        printf("  %-12s %s: ", shown++ ? "" : "ranking", m->plan);
        if (!m->has_time)
            printf("%s\n", m->old_pos < 0 ? "ranked in NEW only" : "ranked in OLD only");
        else
            printf("#%d -> #%d, %.4g -> %.4g us (%+.2f%%), time beyond noise, gap %.3g x noise\n",
                   m->old_pos, m->new_pos, m->time.old_us, m->time.new_us, m->time.pct, m->time.gap);
    }
    if (quiet) printf("  %-12s %d plan%s moved with a time change within noise\n", shown ? "" : "ranking",
                      quiet, quiet == 1 ? "" : "s");
}

static void text_tests(const gdt_diff_cell *c)
{
    if (!c->tested) return;
    for (int i = 0; i < c->ntests; i++) {
        const gdt_diff_test *t = &c->tests[i];
        printf("  %-12s %s: U = %g, p = %.3g (%d old vs %d new samples, bursts %d/%d", i ? "" : "samples",
               t->plan, t->u, t->p, t->n_old, t->n_new, t->burst_old, t->burst_new);
        if (t->median_mhz_old > 0 && t->median_mhz_new > 0)
            printf(", median clock %.0f / %.0f MHz", t->median_mhz_old, t->median_mhz_new);
        printf(")\n");
    }
}

static void text_cell(const gdt_diff_cell *c, bool verbose)
{
    printf("%s [%s sm%d]: ", c->key, gdt_family_name(c->family), c->arch);
    if (!gdt_diff_cell_compared(c)) {
        int s = c->status == GDT_DIFF_ADDED;
        printf("%s (in %s only): best ours %s, best backend %s\n", gdt_diff_status_name(c->status),
               s ? "NEW" : "OLD", c->best_ours[s][0] ? c->best_ours[s] : "(none)",
               c->best_backend[s][0] ? c->best_backend[s] : "(none)");
        return;
    }
    text_status(c);
    text_costs(c, verbose);
    text_pick("decision", "ratio ours/backend", &c->decision);
    if (c->decision.changed)
        printf("  %-12s ours %s vs backend %s\n", "", c->best_ours[1], c->best_backend[1]);
    text_pick("winner", "t_new/t_old", &c->winner);
    text_pick("first entry", "t_new/t_old", &c->first);
    text_moves(c, verbose);
    text_tests(c);
}

static void summary_line(const gdt_tables_diff *d)
{
    printf("%d cells compared, %d changed beyond noise, %d within noise, %d added, %d removed, "
           "%d faster beyond noise\n",
           d->compared, d->beyond, d->within, d->added, d->removed, d->faster);
}

static int print_text(const gdt_tables_diff *d, bool verbose)
{
    text_provenance(d);
    text_worst(d);
    for (int i = 0; i < d->ncells; i++) text_cell(&d->cells[i], verbose);
    summary_line(d);
    return 0;
}

/* ============================================================ markdown */

static void md_row(const gdt_diff_cell *c, const char *change, const char *o, const char *n,
                   const char *judged, bool has_gap, double gap)
{
    printf("| `%s` | %s | %s | %s | %s | ", c->key, change, o, n, judged);
    if (has_gap) printf("%.3g", gap);
    printf(" |\n");
}

static const char *md_noise(bool beyond) { return beyond ? "beyond" : "within"; }

static void md_pick(const gdt_diff_cell *c, const char *label, const gdt_diff_pick *k)
{
    char o[GDT_DIFF_NAME + 8], n[GDT_DIFF_NAME + 8];
    if (!k->changed) return;
    snprintf(o, sizeof o, "`%s`", k->old_name);
    snprintf(n, sizeof n, "`%s`", k->new_name);
    md_row(c, label, o, n, md_noise(k->beyond), k->has_gap, k->gap);
}

/* The detail rows of a compared cell: what moved, deciding nothing. */
static void md_moves(const gdt_diff_cell *c, bool verbose)
{
    char o[64], n[96];
    md_pick(c, "decision", &c->decision);
    md_pick(c, "winner", &c->winner);
    md_pick(c, "first entry", &c->first);
    int beyond = 0;
    for (int i = 0; i < c->nmoves; i++) beyond += !c->moves[i].has_time || c->moves[i].time.beyond;
    if (c->nmoves && verbose) {
        snprintf(o, sizeof o, "%d plans moved", c->nmoves);
        snprintf(n, sizeof n, "%d with a time beyond noise or on one side only", beyond);
        md_row(c, "ranking", o, n, md_noise(beyond > 0), false, 0);
    }
}

/* "+0.80%" with its noise and floor, bold when beyond noise. */
static void md_cost(const gdt_diff_cost *k)
{
    const char *b = k->beyond ? "**" : "";
    if (!k->applies) printf(" — | | |");
    else if (!k->has) printf(" **unknown** | | %.2f%% |", 100 * k->floor);
    else {
        printf(" %s%+.2f%%%s", b, 100 * k->value, b);
        if (k->accepted > 0) printf(" (committed %+.2f%%)", 100 * k->accepted);
        printf(" | %.2f%% | %.2f%% |", 100 * k->noise, 100 * k->floor);
    }
}

static const char *md_verdict(const gdt_diff_cell *c)
{
    switch (c->status) {
    case GDT_DIFF_BEYOND: return "**beyond noise**";
    case GDT_DIFF_FASTER: return "faster (not an alarm)";
    case GDT_DIFF_ADDED: return "**added**";
    case GDT_DIFF_REMOVED: return "**removed**";
    default: return "within noise";
    }
}

static void md_cost_row(const gdt_diff_cell *c)
{
    static const char *const of[] = {"winner", "first entry", "decision"};
    printf("| `%s` | %s |", c->key, md_verdict(c));
    if (!gdt_diff_cell_compared(c)) {
        printf(" | | | | | | |\n");
        return;
    }
    int w = gdt_diff_worst_regret(c->regret);
    md_cost(&c->regret[w]);
    printf(" %s |", of[w]);
    md_cost(&c->slowdown);
    printf("\n");
}

static void md_worst(const gdt_tables_diff *d)
{
    int wr, ws;
    if (!gdt_tables_diff_worst(d, &wr, &ws)) return;
    const gdt_diff_cost *r = &d->cells[wr].regret[gdt_diff_worst_regret(d->cells[wr].regret)];
    const gdt_diff_cost *l = &d->cells[ws].slowdown;
    printf("\nWorst regret: ");
    if (r->has) printf("%+.2f%% ", 100 * r->value);
    else printf("unknown ");
    printf("`%s` (%s", d->cells[wr].key, r->plan);
    if (r->has) printf("; noise %.2f%%", 100 * r->noise);
    printf(", floor %.2f%%): %s. Worst slowdown: %+.2f%% `%s` (noise %.2f%%, floor %.2f%%): %s.\n",
           100 * r->floor, cost_word(r), 100 * l->value, d->cells[ws].key, 100 * l->noise, 100 * l->floor,
           cost_word(l));
}

static void md_tests(const gdt_tables_diff *d)
{
    bool any = false;
    for (int i = 0; i < d->ncells; i++)
        for (int k = 0; k < d->cells[i].ntests; k++) {
            const gdt_diff_test *t = &d->cells[i].tests[k];
            if (!any) printf("\n### Samples (Mann-Whitney U, two-sided)\n\n| cell | plan | U | p | n old | n new "
                             "| MHz old | MHz new |\n|---|---|---|---|---|---|---|---|\n");
            any = true;
            printf("| `%s` | `%s` | %g | %.3g | %d | %d | ", d->cells[i].key, t->plan, t->u, t->p, t->n_old,
                   t->n_new);
            printf(t->median_mhz_old > 0 ? "%.0f | " : "— | ", t->median_mhz_old);
            printf(t->median_mhz_new > 0 ? "%.0f |\n" : "— |\n", t->median_mhz_new);
        }
}

static void md_provenance(const gdt_tables_diff *d)
{
    printf("\n### Provenance\n\n| tables | field | old | new |\n|---|---|---|---|\n");
    for (int i = 0; i < d->nsets; i++) {
        const gdt_diff_set *s = &d->sets[i];
        const char *fam = gdt_family_name(s->family);
        if (!s->in_old || !s->in_new)
            printf("| %s sm%d | (tables) | %s | %s |\n", fam, s->arch, s->in_old ? "present" : "absent",
                   s->in_new ? "present" : "absent");
        else if (!s->nfields)
            printf("| %s sm%d | (all) | identical | identical |\n", fam, s->arch);
        for (int k = 0; k < s->nfields; k++)
            printf("| %s sm%d | %s | `%s` | `%s` |\n", fam, s->arch, s->fields[k].field,
                   s->fields[k].old_v, s->fields[k].new_v);
    }
}

static int print_md(const gdt_tables_diff *d, const char *old_p, const char *new_p, bool verbose)
{
    printf("## gdtune tables diff\n\n`%s` → `%s`: **", old_p, new_p);
    printf("%d cells compared, %d changed beyond noise, %d within noise, %d added, %d removed, "
           "%d faster beyond noise**\n", d->compared, d->beyond, d->within, d->added, d->removed, d->faster);
    md_worst(d);
    md_provenance(d);
    printf("\n### Cost\n\nRegret: the committed choice's time in NEW over NEW's best; slowdown: NEW's "
           "winner's time over OLD's. Beyond noise: above both the noise floor and the two times' "
           "combined noise.\n\n");
    if (!d->ncells) printf("No cell differs.\n");
    else printf("| cell | verdict | worst regret | noise | floor | of | slowdown | noise | floor |\n"
                "|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < d->ncells; i++) md_cost_row(&d->cells[i]);
    bool any = false;
    for (int i = 0; i < d->ncells && !any; i++)
        any = d->cells[i].decision.changed || d->cells[i].winner.changed || d->cells[i].first.changed ||
              (verbose && d->cells[i].nmoves);
    if (any) printf("\n### Plan moves (detail: they decide nothing)\n\n| cell | change | old | new | shift "
                    "| gap (x noise) |\n|---|---|---|---|---|---|\n");
    for (int i = 0; any && i < d->ncells; i++)
        if (gdt_diff_cell_compared(&d->cells[i])) md_moves(&d->cells[i], verbose);
    md_tests(d);
    return 0;
}

/* ============================================================ JSON */

static void add_num_or_null(cJSON *o, const char *k, bool has, double v)
{
    if (has && isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

static const gdt_json_row pick_names[] = {
    GDT_JSON_TEXT(gdt_diff_pick, "old", old_name),
    GDT_JSON_TEXT(gdt_diff_pick, "new", new_name),
    GDT_JSON_FIELD(gdt_diff_pick, changed),
};
static const gdt_json_row pick_ahead[] = {
    GDT_JSON_FIELD_IF(gdt_diff_pick, old_ahead, has_ahead),
    GDT_JSON_FIELD_IF(gdt_diff_pick, new_ahead, has_ahead),
};

static cJSON *json_pick(const gdt_diff_pick *k, const char *value_name)
{
    char ok[64], nk[64];
    cJSON *o = gdt_json_rows_object(k, pick_names, GDT_JSON_ROWS_N(pick_names));
    cJSON_AddBoolToObject(o, "beyond_noise", k->changed && k->beyond);
    add_num_or_null(o, "gap", k->has_gap, k->gap);
    snprintf(ok, sizeof ok, "old_%s", value_name);
    snprintf(nk, sizeof nk, "new_%s", value_name);
    add_num_or_null(o, ok, k->has_values, k->old_value);
    add_num_or_null(o, nk, k->has_values, k->new_value);
    gdt_json_rows_add(o, k, pick_ahead, GDT_JSON_ROWS_N(pick_ahead));
    return o;
}

/* A cost: fractions (0.008: 0.8%), null where unknown. */
static const gdt_json_row cost_rows[] = {
    GDT_JSON_FIELD_TEXT(gdt_diff_cost, plan),
    GDT_JSON_FIELD_TEXT(gdt_diff_cost, base),
    GDT_JSON_FIELD(gdt_diff_cost, applies),
    GDT_JSON_ROW(gdt_diff_cost, "measured", has),
    GDT_JSON_FIELD_IF(gdt_diff_cost, us, has),
    GDT_JSON_FIELD_IF(gdt_diff_cost, base_us, applies),
    GDT_JSON_FIELD_IF(gdt_diff_cost, value, has),
    GDT_JSON_FIELD(gdt_diff_cost, accepted),
    GDT_JSON_FIELD_IF(gdt_diff_cost, excess, has),
    GDT_JSON_FIELD_IF(gdt_diff_cost, noise, has),
    GDT_JSON_FIELD(gdt_diff_cost, floor),
    GDT_JSON_ROW(gdt_diff_cost, "beyond_noise", beyond),
    GDT_JSON_FIELD(gdt_diff_cost, faster),
};

static cJSON *json_cost(const gdt_diff_cost *k) { return gdt_json_rows_object(k, cost_rows, GDT_JSON_ROWS_N(cost_rows)); }

static cJSON *json_regret(const gdt_diff_cell *c)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < GDT_DIFF_CHOICES; i++)
        cJSON_AddItemToObject(o, gdt_diff_choice_name((gdt_diff_choice)i), json_cost(&c->regret[i]));
    cJSON_AddStringToObject(o, "worst", gdt_diff_choice_name((gdt_diff_choice)gdt_diff_worst_regret(c->regret)));
    return o;
}

static void json_time(cJSON *o, const gdt_diff_time *t)
{
    cJSON_AddNumberToObject(o, "old_us", t->old_us);
    cJSON_AddNumberToObject(o, "new_us", t->new_us);
    cJSON_AddNumberToObject(o, "change_pct", t->pct);
    cJSON_AddBoolToObject(o, "beyond_noise", t->beyond);
    add_num_or_null(o, "gap", true, t->gap);
}

static cJSON *json_moves(const gdt_diff_cell *c)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < c->nmoves; i++) {
        const gdt_diff_move *m = &c->moves[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "plan", m->plan);
        add_num_or_null(o, "old_pos", m->old_pos >= 0, m->old_pos);
        add_num_or_null(o, "new_pos", m->new_pos >= 0, m->new_pos);
        if (m->has_time) json_time(o, &m->time);
        else cJSON_AddBoolToObject(o, "beyond_noise", true);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* A test; a median clock is null where the journal had none. */
static const gdt_json_row test_rows[] = {
    GDT_JSON_FIELD_TEXT(gdt_diff_test, plan),
    GDT_JSON_FIELD(gdt_diff_test, u),
    GDT_JSON_FIELD(gdt_diff_test, p),
    GDT_JSON_FIELD(gdt_diff_test, n_old),
    GDT_JSON_FIELD(gdt_diff_test, n_new),
    GDT_JSON_FIELD(gdt_diff_test, burst_old),
    GDT_JSON_FIELD(gdt_diff_test, burst_new),
    GDT_JSON_FIELD_POSITIVE(gdt_diff_test, median_mhz_old),
    GDT_JSON_FIELD_POSITIVE(gdt_diff_test, median_mhz_new),
};

static cJSON *json_tests(const gdt_diff_cell *c)
{
    if (!c->tested) return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < c->ntests; i++)
        cJSON_AddItemToArray(a, gdt_json_rows_object(&c->tests[i], test_rows, GDT_JSON_ROWS_N(test_rows)));
    return a;
}

static cJSON *json_pair(const char *o, const char *n)
{
    cJSON *x = cJSON_CreateObject();
    if (o[0]) cJSON_AddStringToObject(x, "old", o);
    else cJSON_AddNullToObject(x, "old");
    if (n[0]) cJSON_AddStringToObject(x, "new", n);
    else cJSON_AddNullToObject(x, "new");
    return x;
}

static cJSON *json_cell(const gdt_diff_cell *c)
{
    cJSON *o = cJSON_CreateObject();
    char arch[16];
    snprintf(arch, sizeof arch, "sm%d", c->arch);
    cJSON_AddStringToObject(o, "key", c->key);
    cJSON_AddStringToObject(o, "family", gdt_family_name(c->family));
    cJSON_AddStringToObject(o, "arch", arch);
    cJSON_AddStringToObject(o, "status", gdt_diff_status_name(c->status));
    cJSON_AddItemToObject(o, "best_ours", json_pair(c->best_ours[0], c->best_ours[1]));
    cJSON_AddItemToObject(o, "best_backend", json_pair(c->best_backend[0], c->best_backend[1]));
    if (!gdt_diff_cell_compared(c)) return o;
    cJSON_AddItemToObject(o, "regret", json_regret(c));
    cJSON_AddItemToObject(o, "slowdown", json_cost(&c->slowdown));
    cJSON_AddBoolToObject(o, "runs_noise", c->runs_noise);
    cJSON_AddItemToObject(o, "decision", json_pick(&c->decision, "ratio"));
    cJSON_AddItemToObject(o, "winner", json_pick(&c->winner, "ratio"));
    cJSON_AddItemToObject(o, "first_entry", json_pick(&c->first, "ratio"));
    cJSON *wt = cJSON_AddObjectToObject(o, "winner_time");
    json_time(wt, &c->winner_time);
    cJSON_AddBoolToObject(wt, "changed", c->winner_time_changed);
    cJSON_AddItemToObject(o, "moves", json_moves(c));
    cJSON_AddItemToObject(o, "tests", json_tests(c));
    return o;
}

static cJSON *json_set(const gdt_diff_set *s)
{
    cJSON *o = cJSON_CreateObject();
    char arch[16];
    snprintf(arch, sizeof arch, "sm%d", s->arch);
    cJSON_AddStringToObject(o, "family", gdt_family_name(s->family));
    cJSON_AddStringToObject(o, "arch", arch);
    cJSON_AddBoolToObject(o, "in_old", s->in_old);
    cJSON_AddBoolToObject(o, "in_new", s->in_new);
    cJSON_AddNumberToObject(o, "noise_floor", s->floor);
    cJSON *a = cJSON_AddArrayToObject(o, "differences");
    for (int k = 0; k < s->nfields; k++) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "field", s->fields[k].field);
        cJSON_AddStringToObject(f, "old", s->fields[k].old_v);
        cJSON_AddStringToObject(f, "new", s->fields[k].new_v);
        cJSON_AddItemToArray(a, f);
    }
    return o;
}

/* The worst regret and slowdown: the cell's key and the cost; null: none. */
static void json_worst(cJSON *s, const gdt_tables_diff *d)
{
    int wr, ws;
    if (!gdt_tables_diff_worst(d, &wr, &ws)) {
        cJSON_AddNullToObject(s, "worst_regret");
        cJSON_AddNullToObject(s, "worst_slowdown");
        return;
    }
    const gdt_diff_cell *r = &d->cells[wr];
    int w = gdt_diff_worst_regret(r->regret);
    cJSON *x = json_cost(&r->regret[w]);
    cJSON_AddStringToObject(x, "key", r->key);
    cJSON_AddStringToObject(x, "family", gdt_family_name(r->family));
    cJSON_AddStringToObject(x, "choice", gdt_diff_choice_name((gdt_diff_choice)w));
    cJSON_AddItemToObject(s, "worst_regret", x);
    x = json_cost(&d->cells[ws].slowdown);
    cJSON_AddStringToObject(x, "key", d->cells[ws].key);
    cJSON_AddStringToObject(x, "family", gdt_family_name(d->cells[ws].family));
    cJSON_AddItemToObject(s, "worst_slowdown", x);
}

/* The summary's counts (docs/fields.md). */
static const gdt_json_row summary_rows[] = {
    GDT_JSON_FIELD(gdt_tables_diff, compared),
    GDT_JSON_ROW(gdt_tables_diff, "beyond_noise", beyond),
    GDT_JSON_ROW(gdt_tables_diff, "within_noise", within),
    GDT_JSON_FIELD(gdt_tables_diff, added),
    GDT_JSON_FIELD(gdt_tables_diff, removed),
    GDT_JSON_FIELD(gdt_tables_diff, faster),
};

static cJSON *json_doc(const gdt_tables_diff *d, const char *old_p, const char *new_p)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", "gdtune.tables_diff/1");
    cJSON_AddStringToObject(doc, "old", old_p);
    cJSON_AddStringToObject(doc, "new", new_p);
    cJSON *p = cJSON_AddArrayToObject(doc, "provenance");
    for (int i = 0; i < d->nsets; i++) cJSON_AddItemToArray(p, json_set(&d->sets[i]));
    cJSON *c = cJSON_AddArrayToObject(doc, "cells");
    for (int i = 0; i < d->ncells; i++) cJSON_AddItemToArray(c, json_cell(&d->cells[i]));
    cJSON *s = cJSON_AddObjectToObject(doc, "summary");
    gdt_json_rows_add(s, d, summary_rows, GDT_JSON_ROWS_N(summary_rows));
    json_worst(s, d);
    cJSON_AddNumberToObject(s, "exit_code", gdt_tables_diff_exit(d));
    return doc;
}

/* ============================================================ the verb */

/* "--runs OLDRUN NEWRUN": the parser takes one value per option, so the
 * two run directories are taken out of argv here, wherever --runs is. */
static int take_runs(int argc, char **argv, char **rest, int *nrest, const char **runs)
{
    *nrest = 0;
    runs[0] = runs[1] = NULL;
    for (int i = 0; i < argc; i++) {
        rest[(*nrest)++] = argv[i];
        if (i == 0 || strcmp(argv[i], "--runs")) continue;
        if (i + 2 >= argc || argv[i + 1][0] == '-' || argv[i + 2][0] == '-')
            return gdt_cli_usage_error(diff_verb, "--runs needs two values (expected OLDRUN NEWRUN)");
        runs[0] = argv[++i];
        runs[1] = argv[++i];
    }
    return -1;
}

static gdt_status run_diff(const char *const *pos, const char *const *runs, unsigned mask,
                           gdt_tables_diff *d, gdt_error *e)
{
    side o = {.path = pos[0]}, n = {.path = pos[1]};
    gdt_status s = load_side(&o, mask, e);
    if (!s) s = load_side(&n, mask, e);
    if (!s) s = same_family(&o, &n, e);
    if (!s) s = diff_sides(&o, &n, d, e);
    if (!s && runs[0]) s = add_runs(d, runs[0], runs[1], e);
    free_side(&o);
    free_side(&n);
    return s;
}

/* --format csv: one line per cell the JSON lists, its two verdicts' figures
 * (fractions, as the JSON has them). */
#define COST_COLS(k, path)                                                                       \
    {k "_plan", 0, path ".plan"}, {k "_value", 0, path ".value"}, {k "_excess", 0, path ".excess"}, \
        {k "_noise", 0, path ".noise"}, {k "_beyond_noise", 0, path ".beyond_noise"}
static const gdt_cli_csv_col csv_cols[] = {
    {"family", 0, "family"}, {"arch", 0, "arch"}, {"key", 0, "key"}, {"status", 0, "status"},
    {"worst_regret", 0, "regret.worst"},
    COST_COLS("regret_winner", "regret.winner"), COST_COLS("regret_first_entry", "regret.first_entry"),
    COST_COLS("regret_decision", "regret.decision"), COST_COLS("slowdown", "slowdown"),
    {"slowdown_base_us", 0, "slowdown.base_us"}, {"slowdown_us", 0, "slowdown.us"},
    {"floor", 0, "slowdown.floor"},
};
static const gdt_cli_csv_view csv_view = {{"cells"}, 1, csv_cols, sizeof csv_cols / sizeof csv_cols[0]};

static int print_diff(const gdt_tables_diff *d, int format, bool verbose, const char *const *pos)
{
    int rc = format == FMT_JSON  ? gdt_cli_json_emit(diff_verb, json_doc(d, pos[0], pos[1]))
             : format == FMT_CSV ? gdt_cli_csv_emit(diff_verb, json_doc(d, pos[0], pos[1]), &csv_view, 1)
             : format == FMT_MD ? print_md(d, pos[0], pos[1], verbose)
                                : print_text(d, verbose);
    if (!rc && fflush(stdout)) rc = (fprintf(stderr, "%s: cannot write standard output\n", diff_verb), 1);
    return rc ? rc : gdt_tables_diff_exit(d);
}

int gdt__cli_tables_diff(int argc, char **argv)
{
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    const char *pos[2], *runs[2];
    int nrest = 0, npos = 0;
    diff_opts o = {.noise_floor = -1};
    if (!rest) return fprintf(stderr, "%s: out of memory\n", diff_verb), 1;
    int rc = take_runs(argc, argv, rest, &nrest, runs);
    if (rc < 0) rc = gdt_cli_parse(&diff_spec, nrest, rest, &o, pos, 2, &npos);
    if (rc < 0 && npos != 2) rc = gdt_cli_usage_error(diff_verb, "expected OLD and NEW, got %d of them", npos);
    unsigned mask = (1u << GDT_FAMILY_COUNT) - 1;
    gdt_error e;
    gdt_error_clear(&e);
    if (rc < 0 && o.family && gdt_family_parse_set(o.family, &mask, &e))
        rc = gdt_cli_usage_error(diff_verb, "--family: %s", e.msg);
    free(rest);
    if (rc >= 0) return rc;
    gdt_tables_diff d = {.floor_set = o.noise_floor >= 0, .floor = o.noise_floor};
    gdt_status s = run_diff(pos, runs, mask, &d, &e);
    if (s) {
        fprintf(stderr, "%s: %s\n", diff_verb, e.msg);
        rc = gdt_status_exit_code(s);
    } else {
        rc = print_diff(&d, o.format, o.verbose, pos);
    }
    gdt_tables_diff_free(&d);
    return rc;
}
