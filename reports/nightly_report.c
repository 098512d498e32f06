/* nightly.md and its figures (gdt_nightly_report.h). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_gnuplot.h"
#include "gdt_markdown.h"
#include "gdt_mfile.h"
#include "gdt_nightly_report.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

#define NAME_MAX_ 512

/* One side of a cell: its fastest measured plan. */
typedef struct side {
    bool has;
    char plan[NAME_MAX_];
    double us, noise;
} side;

typedef struct row {
    char key[256];
    gdt_family family;
    int arch;
    side old_w, new_w;
    const char *verdict;
    char regret[128], slowdown[128]; /* the diff's two costs, as markdown */
} row;

typedef struct rows {
    row *v;
    int n;
} rows;

/* The tables' measured winner: the fastest plan, as `tables diff` has it. */
static void winner(const gdt_table_cell *c, side *out)
{
    const gdt_measured_plan *w = NULL;
    for (int i = 0; i < c->nranked; i++)
        if (!w || c->ranked[i].time_us < w->time_us)
            w = &c->ranked[i];
    out->has = w != NULL;
    if (w) {
        gdt_plan_id_format(&w->id, out->plan, sizeof out->plan);
        out->us = w->time_us;
        out->noise = w->noise;
    }
}

static row *add_row(rows *r, const char *key, gdt_family f, int arch)
{
    row *v = realloc(r->v, sizeof *v * (size_t)(r->n + 1));
    if (!v)
        return NULL;
    r->v = v;
    row *x = v + r->n++;
    memset(x, 0, sizeof *x);
    size_t len = strlen(key); /* memset above wrote the terminator */
    memcpy(x->key, key, len < sizeof x->key ? len : sizeof x->key - 1);
    x->family = f;
    x->arch = arch;
    return x;
}

/* The diff's cell of a row, NULL when the diff does not name it (the diff
 * names every cell that differs). */
static const cJSON *diff_cell(const cJSON *diff, const row *x)
{
    char arch[16];
    const cJSON *c;
    snprintf(arch, sizeof arch, "sm%d", x->arch);
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(diff, "cells")) {
        const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(c, "key"));
        const char *f = cJSON_GetStringValue(cJSON_GetObjectItem(c, "family"));
        const char *a = cJSON_GetStringValue(cJSON_GetObjectItem(c, "arch"));
        if (k && f && a && !strcmp(k, x->key) && !strcmp(f, gdt_family_name(x->family)) && !strcmp(a, arch))
            return c;
    }
    return NULL;
}

/* The diff's status of a cell. */
static const char *verdict(const cJSON *diff, const cJSON *c)
{
    static const char *const names[][2] = {
        {"beyond_noise", "**beyond noise**"}, {"within_noise", "within noise"},
        {"added", "added"}, {"removed", "removed"}, {"same", "same"},
        {"faster", "faster (not an alarm)"},
    };
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(c, "status"));
    if (!diff)
        return "added (no committed tables)";
    if (!c)
        return "same";
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i][0]))
            return names[i][1];
    return "unknown";
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* One of the diff's costs (gdtune.tables_diff/1): "**+33.00%** (noise
 * 4.66%, floor 2.00%)", bold when beyond noise; "—" where it has none. */
static void cost_md(const cJSON *k, char *buf, size_t n)
{
    bool beyond = cJSON_IsTrue(cJSON_GetObjectItem(k, "beyond_noise"));
    double v = num(k, "value"), noise = num(k, "noise"), floor = num(k, "floor");
    if (!k || !cJSON_IsTrue(cJSON_GetObjectItem(k, "applies")))
        snprintf(buf, n, "—");
    else if (isnan(v))
        snprintf(buf, n, "**unknown** (not measured in NEW)");
    else
        snprintf(buf, n, "%s%+.2f%%%s (noise %.2f%%, floor %.2f%%)", beyond ? "**" : "", 100 * v,
                 beyond ? "**" : "", 100 * noise, 100 * floor);
}

/* The row's verdict and its worst regret and slowdown. */
static void judged(const cJSON *diff, row *x)
{
    const cJSON *c = diff ? diff_cell(diff, x) : NULL, *r = cJSON_GetObjectItem(c, "regret");
    const char *w = cJSON_GetStringValue(cJSON_GetObjectItem(r, "worst"));
    x->verdict = verdict(diff, c);
    cost_md(w ? cJSON_GetObjectItem(r, w) : NULL, x->regret, sizeof x->regret);
    cost_md(cJSON_GetObjectItem(c, "slowdown"), x->slowdown, sizeof x->slowdown);
}

/* A table of one side, or NULL when that side has none (NOT_SUPPORTED). */
static gdt_status load(const char *dir, gdt_family f, int arch, gdt_tables **t, gdt_error *e)
{
    gdt_status s = gdt_tables_load(dir, f, arch, t, e);
    if (s == GDT_STATUS_NOT_SUPPORTED) {
        *t = NULL;
        gdt_error_clear(e);
        return GDT_STATUS_OK;
    }
    return s;
}

/* Cells of both tables by key (each sorted by key), as `tables diff` walks them. */
static gdt_status merge(rows *r, const gdt_tables *o, const gdt_tables *n, gdt_family f, int arch, gdt_error *e)
{
    int no = o ? gdt_tables_ncells(o) : 0, nn = n ? gdt_tables_ncells(n) : 0;
    for (int i = 0, j = 0; i < no || j < nn;) {
        gdt_table_cell oc, nc;
        bool ho = i < no && gdt_tables_cell(o, i, &oc), hn = j < nn && gdt_tables_cell(n, j, &nc);
        int c = !ho ? 1 : !hn ? -1 : strcmp(oc.key, nc.key);
        row *x = add_row(r, c <= 0 ? oc.key : nc.key, f, arch);
        if (!x)
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "nightly report: out of memory");
        if (c <= 0)
            winner(&oc, &x->old_w), i++;
        if (c >= 0)
            winner(&nc, &x->new_w), j++;
    }
    return GDT_STATUS_OK;
}

static gdt_status collect_arch(rows *r, const gdt_nightly_in *in, int arch, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    for (int f = 0; f < GDT_FAMILY_COUNT && s == GDT_STATUS_OK; f++) {
        gdt_tables *o = NULL, *n = NULL;
        if (!(in->families & (1u << f)))
            continue;
        s = load(in->new_tables, (gdt_family)f, arch, &n, e);
        if (s == GDT_STATUS_OK && in->diff_json)
            s = load(in->old_tables, (gdt_family)f, arch, &o, e);
        if (s == GDT_STATUS_OK)
            s = merge(r, o, n, (gdt_family)f, arch, e);
        gdt_tables_destroy(o);
        gdt_tables_destroy(n);
    }
    return s;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every arch folder of the staged tables, in name order. */
static gdt_status collect(rows *r, const gdt_nightly_in *in, gdt_error *e)
{
    char *names[64];
    int n = 0, arch;
    DIR *dp = opendir(in->new_tables);
    if (!dp)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot read the directory", in->new_tables);
    for (struct dirent *de; n < 64 && (de = readdir(dp));)
        if (gdt_arch_parse(de->d_name, &arch, NULL) == GDT_STATUS_OK && (names[n] = strdup(de->d_name)))
            n++;
    closedir(dp);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < n; i++) {
        if (s == GDT_STATUS_OK && gdt_arch_parse(names[i], &arch, NULL) == GDT_STATUS_OK)
            s = collect_arch(r, in, arch, e);
        free(names[i]);
    }
    return s;
}

/* ------------------------------------------------------------ history */

typedef struct point {
    char date[16];
    double us;
    int series;
} point;

typedef struct history {
    char **series; /* "family key" of each line of the figure */
    int nseries;
    point *p;
    int np;
} history;

static int series_of(history *h, const char *name)
{
    for (int i = 0; i < h->nseries; i++)
        if (!strcmp(h->series[i], name))
            return i;
    char **v = realloc(h->series, sizeof *v * (size_t)(h->nseries + 1));
    if (!v)
        return -1;
    h->series = v;
    return (v[h->nseries] = strdup(name)) ? h->nseries++ : -1;
}

/* One history.tsv line: date, family, key, winner, winner_us, decision,
 * status.  Lines without a cell or a time (a family's "same" line) and
 * the header draw nothing. */
static void history_line(history *h, char *line)
{
    char *f[7], *save = NULL, *end;
    int n = 0;
    for (char *t = strtok_r(line, "\t", &save); t && n < 7; t = strtok_r(NULL, "\t", &save))
        f[n++] = t;
    if (n < 5 || !strcmp(f[2], "-"))
        return;
    double us = strtod(f[4], &end);
    if (end == f[4] || *end || !(us > 0) || strlen(f[0]) != 8)
        return;
    char name[600];
    snprintf(name, sizeof name, "%s %s", f[1], f[2]);
    int s = series_of(h, name);
    point *p = s < 0 ? NULL : realloc(h->p, sizeof *p * (size_t)(h->np + 1));
    if (!p)
        return;
    h->p = p;
    snprintf(p[h->np].date, sizeof p[h->np].date, "%s", f[0]);
    p[h->np].us = us;
    p[h->np++].series = s;
}

static void history_parse(history *h, const char *text)
{
    char *copy = strdup(text ? text : ""), *save = NULL;
    for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
        history_line(h, l);
    free(copy);
}

static void history_free(history *h)
{
    for (int i = 0; i < h->nseries; i++)
        free(h->series[i]);
    free(h->series);
    free(h->p);
}

/* A log axis when the values span more than a decade. */
static const char *yscale(double lo, double hi)
{
    return lo > 0 && hi / lo > 10 ? "set logscale y\n" : "unset logscale y\n";
}

static void side_dat(FILE *f, const side *s)
{
    if (s->has)
        fprintf(f, " %.6g %.6g %.6g", s->us, s->us * fmax(1 - s->noise, 1e-3), s->us * (1 + s->noise));
    else
        fprintf(f, " - - -");
}

/* Row number, old time low high, new time low high ('-': no winner). */
static gdt_status winners_dat(const rows *r, const char *dir, double *lo, double *hi, gdt_error *e)
{
    gdt_mfile m;
    gdt_status s = gdt_mfile_open(&m, dir, "nightly_winners.dat", e);
    if (s != GDT_STATUS_OK)
        return s;
    *lo = INFINITY, *hi = 0;
    fprintf(m.f, "# row committed_us low high new_us low high (bars: the winner's noise)\n");
    for (int i = 0; i < r->n; i++) {
        const side *w[2] = {&r->v[i].old_w, &r->v[i].new_w};
        fprintf(m.f, "%d", i);
        for (int k = 0; k < 2; k++) {
            side_dat(m.f, w[k]);
            if (w[k]->has)
                *lo = fmin(*lo, w[k]->us), *hi = fmax(*hi, w[k]->us);
        }
        fputc('\n', m.f);
    }
    return gdt_mfile_save(&m, dir, "nightly_winners.dat", e);
}

/* One block per series (gnuplot's index), in night order. */
static gdt_status history_dat(const history *h, const char *dir, double *lo, double *hi, gdt_error *e)
{
    gdt_mfile m;
    gdt_status s = gdt_mfile_open(&m, dir, "nightly_history.dat", e);
    if (s != GDT_STATUS_OK)
        return s;
    *lo = INFINITY, *hi = 0;
    for (int k = 0; k < h->nseries; k++) {
        fprintf(m.f, "# series %d\n", k);
        for (int i = 0; i < h->np; i++)
            if (h->p[i].series == k) {
                fprintf(m.f, "%s %.6g\n", h->p[i].date, h->p[i].us);
                *lo = fmin(*lo, h->p[i].us), *hi = fmax(*hi, h->p[i].us);
            }
        fprintf(m.f, "\n\n");
    }
    return gdt_mfile_save(&m, dir, "nightly_history.dat", e);
}

/* ------------------------------------------------------------ script */

static void winners_plot(FILE *gp, const char *date, double lo, double hi)
{
    char title[128];
    snprintf(title, sizeof title, "winner time per cell, committed against night %s (bars: noise)", date);
    char q[256];
    gdt_gnuplot_quote(q, sizeof q, title);
    fprintf(gp, "set output '" GDT_NIGHTLY_WINNERS "'\nset title %s noenhanced\n"
                "set xlabel 'cell (row of the table in " GDT_NIGHTLY_MD ")'\n"
                "set ylabel 'device time per call (us)'\nset xtics 1\nset offsets 0.5, 0.5, 0, 0\n%s"
                "set datafile missing '-'\n"
                "plot 'nightly_winners.dat' using ($1-0.12):2:3:4 with yerrorbars pt 7 title 'committed winner', "
                "'' using ($1+0.12):5:6:7 with yerrorbars pt 5 title 'new winner'\n"
                "set xtics auto\nset offsets 0, 0, 0, 0\n",
            q, yscale(lo, hi));
}

/* Distinct nights of the history: a tic per night while they are few. */
static int nights(const history *h)
{
    int n = 0;
    for (int i = 0; i < h->np; i++) {
        int j = 0;
        while (j < i && strcmp(h->p[j].date, h->p[i].date))
            j++;
        n += j == i;
    }
    return n;
}

/* One line per cell; named in the key when there are few, else by number
 * (nightly.md lists them). */
static void history_plot(FILE *gp, const history *h, double lo, double hi)
{
    fprintf(gp, "set output '" GDT_NIGHTLY_HISTORY "'\n"
                "set title 'winner time per cell per night (history.tsv)' noenhanced\n"
                "set xlabel 'night (UTC)'\nset ylabel 'winner device time per call (us)'\n%s"
                "set xdata time\nset timefmt '%%Y%%m%%d'\nset format x '%%Y-%%m-%%d'\n"
                "set xtics rotate by -30%s\n"
                "set offsets 43200, 43200, graph 0.05, graph 0.05\nplot ", /* half a night each side */
            yscale(lo, hi), nights(h) <= 14 ? " 86400" : "");
    for (int k = 0; k < h->nseries; k++) {
        char name[700], q[1500];
        if (h->nseries <= 8)
            snprintf(name, sizeof name, "%.600s", h->series[k]);
        else
            snprintf(name, sizeof name, "#%d", k);
        gdt_gnuplot_quote(q, sizeof q, name);
        fprintf(gp, "%s'nightly_history.dat' index %d using 1:2 with linespoints title %s noenhanced",
                k ? ", " : "", k, q);
    }
    fprintf(gp, "\nset xdata\nset format x '%% h'\nset xtics norotate auto\nset offsets 0, 0, 0, 0\n");
}

/* ------------------------------------------------------------ markdown */

static void md_side(FILE *f, const side *s)
{
    if (!s->has) {
        fprintf(f, " — | — |");
        return;
    }
    fputc(' ', f);
    gdt_md_code(f, s->plan);
    fprintf(f, " | %.3f ± %.1f%% |", s->us, 100 * s->noise);
}

static void md_cells(FILE *f, const rows *r)
{
    fprintf(f, "| row | family | arch | cell | diff | regret | slowdown | committed winner | us | new winner "
               "| us |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < r->n; i++) {
        const row *x = &r->v[i];
        fprintf(f, "| %d | %s | sm%d | ", i, gdt_family_name(x->family), x->arch);
        gdt_md_code(f, x->key);
        fprintf(f, " | %s | %s | %s |", x->verdict, x->regret, x->slowdown);
        md_side(f, &x->old_w);
        md_side(f, &x->new_w);
        fputc('\n', f);
    }
    if (!r->n)
        fprintf(f, "| — | | | no staged cell | | | | | | | |\n");
}

static void md_series(FILE *f, const history *h)
{
    if (h->nseries <= 8)
        return;
    fprintf(f, "\nLines of the history figure:\n\n");
    for (int k = 0; k < h->nseries; k++) {
        fprintf(f, "- #%d ", k);
        gdt_md_code(f, h->series[k]);
        fputc('\n', f);
    }
}

static void md_figures(FILE *f, bool winners, bool hist, bool drawn)
{
    fprintf(f, "\n## Figures\n\n");
    if (winners)
        fprintf(f, "- [committed and new winner time per cell, noise as bars](" GDT_NIGHTLY_WINNERS ")\n");
    if (hist)
        fprintf(f, "- [winner time per cell per night, from history.tsv](" GDT_NIGHTLY_HISTORY ")\n");
    if (!winners && !hist)
        fprintf(f, "None (no cell with a winner, no history).\n");
    else if (!drawn)
        fprintf(f, "\ngnuplot was not found in PATH, so the figures are not drawn yet: the script and "
                   "its data are in this folder; run `gnuplot nightly.gp` here to draw them.\n");
}

/* "Worst regret: +0.80% (noise 4.00%, floor 2.00%), winner of `key`." */
static void md_worst(FILE *f, const cJSON *s, const char *what, const char *name)
{
    const cJSON *w = cJSON_GetObjectItem(s, name);
    const char *choice = cJSON_GetStringValue(cJSON_GetObjectItem(w, "choice"));
    char cost[128];
    if (!cJSON_IsObject(w)) {
        fprintf(f, "- %s: none (no compared cell differs).\n", what);
        return;
    }
    cost_md(w, cost, sizeof cost);
    fprintf(f, "- %s: %s, %s%s", what, cost, choice ? choice : "", choice ? " of " : "");
    gdt_md_code(f, cJSON_GetStringValue(cJSON_GetObjectItem(w, "key")));
    fprintf(f, ": %s.\n", cJSON_IsTrue(cJSON_GetObjectItem(w, "beyond_noise")) ? "**beyond noise**"
                           : cJSON_IsTrue(cJSON_GetObjectItem(w, "faster")) ? "faster, not an alarm"
                                                                            : "within noise");
}

static void md_summary(FILE *f, const cJSON *diff)
{
    const cJSON *s = cJSON_GetObjectItem(diff, "summary");
    if (!diff) {
        fprintf(f, "No committed tables of these families yet: every cell is new.\n\n");
        return;
    }
    md_worst(f, s, "Worst regret (the committed choice's time on this night over the night's best)",
             "worst_regret");
    md_worst(f, s, "Worst slowdown (the night's winner's time over the committed winner's)", "worst_slowdown");
    fprintf(f, "\nBeyond noise: above both the noise floor and the two times' combined noise; either "
               "beyond makes the night's exit status 3.\n\n");
    fprintf(f, "`tables diff`: %d cells compared, %d changed beyond noise, %d within noise, %d added, "
               "%d removed.\n\n",
            (int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "compared")),
            (int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "beyond_noise")),
            (int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "within_noise")),
            (int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "added")),
            (int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "removed")));
}

/* ------------------------------------------------------------ confirmation */

static const char *text(const cJSON *o, const char *k)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
    return v ? v : "";
}

/* One change of the confirmation: its cell and choice, the verdict and the
 * rounds' figures (or why there are none). */
static void md_change(FILE *f, const cJSON *c)
{
    const char *v = text(c, "verdict");
    fprintf(f, "| %s | %s | %s | ", !strcmp(v, "held") ? "**held**" : v, text(c, "family"), text(c, "arch"));
    gdt_md_code(f, text(c, "key"));
    fprintf(f, " | %s | ", text(c, "what"));
    gdt_md_code(f, text(c, "old"));
    fprintf(f, " → ");
    gdt_md_code(f, text(c, "new"));
    if (!strcmp(v, "unconfirmed")) {
        fprintf(f, " | — | — | — | %s |\n", text(c, "why"));
        return;
    }
    fprintf(f, " | %.4g / %.4g | %.4f [%.4f, %.4f]", num(c, "old_us"), num(c, "new_us"), num(c, "ratio"),
            num(c, "lo"), num(c, "hi"));
    if (num(c, "accepted") > 0) fprintf(f, " (committed %+.2f%%)", 100 * num(c, "accepted"));
    fprintf(f, " | %.1f%% + %.1f%% | %d rounds: ", 100 * num(c, "old_noise"), 100 * num(c, "new_noise"),
            (int)num(c, "rounds"));
    gdt_md_code(f, text(c, "old_plan"));
    fprintf(f, " against ");
    gdt_md_code(f, text(c, "new_plan"));
    fprintf(f, " |\n");
}

/* The confirmation section: which of the diff's changes beyond noise the
 * interleaved rounds confirmed (held) and which dissolved. */
static void md_confirm(FILE *f, const char *json)
{
    cJSON *doc = json ? cJSON_Parse(json) : NULL;
    const cJSON *c, *changes = cJSON_GetObjectItem(doc, "changes");
    if (!doc)
        return;
    fprintf(f, "\n## Confirmation in interleaved rounds\n\nEach change the diff calls beyond noise, "
               "measured again: the committed and the new plan together in %d interleaved rounds on "
               "this GPU. A change holds when the median per-round ratio new/old, times one plus the "
               "regret the committed tables already held for that choice (shown as committed), is below "
               "1 by more than the two plans' noise (each at least the spec's noise floor); else it "
               "dissolved. "
               "Exit status of the night: %d (%d cells added, %d removed).\n\n",
            (int)num(doc, "rounds"), (int)num(doc, "exit_code"), (int)num(doc, "added"), (int)num(doc, "removed"));
    fprintf(f, "| verdict | family | arch | cell | choice | committed → new | old / new us | ratio new/old "
               "[range] | noise old + new | plans |\n|---|---|---|---|---|---|---|---|---|---|\n");
    cJSON_ArrayForEach(c, changes)
        md_change(f, c);
    if (!cJSON_GetArraySize(changes))
        fprintf(f, "| — | | | no change beyond noise to confirm | | | | | | |\n");
    cJSON_Delete(doc);
}

static gdt_status write_md(const gdt_nightly_in *in, const rows *r, const history *h, const cJSON *diff,
                           bool winners, bool hist, bool drawn, const char *dir, gdt_error *e)
{
    gdt_mfile m;
    gdt_status s = gdt_mfile_open(&m, dir, GDT_NIGHTLY_MD, e);
    if (s != GDT_STATUS_OK)
        return s;
    fprintf(m.f, "# gdtune nightly %s\n\nCommitted tables ", in->date);
    gdt_md_code(m.f, in->old_tables);
    fprintf(m.f, ", staged ");
    gdt_md_code(m.f, in->new_tables);
    fprintf(m.f, ". Winner: a cell's fastest measured plan, device time per call at the largest "
                 "burst with its relative noise; diff: the cell's status in `tables diff` (same: "
                 "nothing differs); regret: the committed choice's time on this night over the night's "
                 "best, the worst of the winner, the first entry and the decision's side; slowdown: the "
                 "night's winner's time over the committed winner's.\n\n");
    md_summary(m.f, diff);
    md_cells(m.f, r);
    md_confirm(m.f, in->confirm_json);
    md_figures(m.f, winners, hist, drawn);
    md_series(m.f, h);
    return gdt_mfile_save(&m, dir, GDT_NIGHTLY_MD, e);
}

/* ------------------------------------------------------------ entry */

static gdt_status write_script(const gdt_nightly_in *in, const rows *r, const history *h, const char *dir,
                               bool *winners, bool *hist, gdt_error *e)
{
    double wlo, whi, hlo, hhi;
    gdt_mfile gp;
    gdt_status s = winners_dat(r, dir, &wlo, &whi, e);
    if (s == GDT_STATUS_OK)
        s = history_dat(h, dir, &hlo, &hhi, e);
    if (s == GDT_STATUS_OK)
        s = gdt_mfile_open(&gp, dir, "nightly.gp", e);
    if (s != GDT_STATUS_OK)
        return s;
    *winners = whi > 0; /* gnuplot refuses a plot with no point */
    *hist = h->np > 0;
    fprintf(gp.f, "# gdtune nightly figures: in this folder, run: gnuplot nightly.gp\n"
                  "set terminal svg size 1000,600 noenhanced\nset key below\nset grid\n");
    if (*winners)
        winners_plot(gp.f, in->date, wlo, whi);
    if (*hist)
        history_plot(gp.f, h, hlo, hhi);
    return gdt_mfile_save(&gp, dir, "nightly.gp", e);
}

static gdt_status draw(const char *dir, bool any, bool *drawn, gdt_error *e)
{
    *drawn = false;
    if (!any)
        return GDT_STATUS_OK;
    gdt_status s = gdt_gnuplot_run(dir, "nightly.gp", e);
    if (s == GDT_STATUS_NOT_SUPPORTED) {
        gdt_error_clear(e);
        return GDT_STATUS_OK;
    }
    *drawn = s == GDT_STATUS_OK;
    return s;
}

gdt_status gdt_nightly_report_write(const gdt_nightly_in *in, const char *dir, bool *drawn, gdt_error *e)
{
    rows r = {0};
    history h = {0};
    bool winners = false, hist = false;
    *drawn = false;
    cJSON *diff = in->diff_json ? cJSON_Parse(in->diff_json) : NULL;
    gdt_status s = in->diff_json && !diff
                       ? gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: the diff's JSON does not parse", dir)
                       : collect(&r, in, e);
    for (int i = 0; s == GDT_STATUS_OK && i < r.n; i++)
        judged(diff, &r.v[i]);
    history_parse(&h, in->history);
    if (s == GDT_STATUS_OK)
        s = write_script(in, &r, &h, dir, &winners, &hist, e);
    if (s == GDT_STATUS_OK)
        s = draw(dir, winners || hist, drawn, e);
    if (s == GDT_STATUS_OK)
        s = write_md(in, &r, &h, diff, winners, hist, *drawn, dir, e);
    history_free(&h);
    free(r.v);
    cJSON_Delete(diff);
    return s;
}
