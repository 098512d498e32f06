/* `gdtune report`'s figures (gdt_report_figures.h, docs/figures.md).  One
 * script, figures.gp, draws them all; each figure starts with `reset` so
 * that nothing one sets leaks into the next. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cell_top.h"
#include "gdt_ceiling.h"
#include "gdt_figure_style.h"
#include "gdt_gnuplot.h"
#include "gdt_mfile.h"
#include "gdt_report_figures.h"
#include "gdt_util.h"

#define LABEL_MAX 96
#define QUOTED_MAX 1024

/* Text (journal text included) as one quoted gdt_gnuplot_quote string. */
static void quotef(char out[QUOTED_MAX], const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void quotef(char out[QUOTED_MAX], const char *fmt, ...)
{
    char text[QUOTED_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    gdt_gnuplot_quote(out, QUOTED_MAX, text);
}

/* A figure's first lines: its size, file and title; the key below the
 * plot (outside the data), a grid, '-' as a missing value. */
static void begin(FILE *gp, int width, int height, const char *output, const char *title)
{
    char q[QUOTED_MAX];
    gdt_gnuplot_quote(q, sizeof q, title);
    fprintf(gp, "\nreset\nset terminal svg size %d,%d noenhanced\nset output '%s'\nset title %s noenhanced\n"
                "set key below horizontal noenhanced\nset grid\nset datafile missing '-'\n",
            width, height, output, q);
}

/* The cells' shapes as the x axis' tics, at 0..n-1, slanted to fit. */
static void shape_tics(FILE *gp, const gdt_run *r, const int *cells, int n)
{
    fprintf(gp, "set xtics rotate by 45 right font ',8' (");
    for (int i = 0; i < n; i++) {
        char label[LABEL_MAX], q[2 * LABEL_MAX];
        gdt_cell_label(&r->cells[cells[i]].spec->problem, label, sizeof label);
        gdt_gnuplot_quote(q, sizeof q, label);
        fprintf(gp, "%s%s %d", i ? ", " : "", q, i);
    }
    fprintf(gp, ")\nset xrange [-0.6:%g]\nset lmargin 18\n", n - 0.4);
}

/* A width that gives each of n cells room for its tic. */
static int width_for(int n) { return n * 26 + 160 > 900 ? n * 26 + 160 : 900; }

/* ------------------------------------------------------------ overview */

/* The kinds set against cuDNN in the overview: every kind but cuDNN. */
static bool overview_kind(gdt_engine_kind k) { return k != GDT_ENGINE_CUDNN; }

/* Kind k's best plan's time over the best cuDNN plan's (the ratio, < 1:
 * faster than cuDNN), with the two relative noises added as the bar; false
 * when either has none. */
static bool ratio_to_cudnn(const gdt_run_cell *c, gdt_engine_kind k, double v[3])
{
    int o = gdt_cell_best_of_kind(c, k), b = gdt_cell_best_of_kind(c, GDT_ENGINE_CUDNN);
    if (o < 0 || b < 0)
        return false;
    double r = c->result[o].time_us / c->result[b].time_us, n = c->result[o].noise + c->result[b].noise;
    v[0] = r, v[1] = r * (1 - n), v[2] = r * (1 + n);
    return true;
}

static bool has_overview(const gdt_run_cell *c)
{
    double v[3];
    for (int j = 0; j < GDT_FIGURE_NKINDS; j++)
        if (overview_kind(gdt_figure_kinds[j]) && ratio_to_cudnn(c, gdt_figure_kinds[j], v))
            return true;
    return false;
}

/* The y range: the data's bars and 1 (parity), with a margin. */
typedef struct span {
    double lo, hi;
} span;

static void span_add(span *s, double x)
{
    s->lo = fmin(s->lo, x);
    s->hi = fmax(s->hi, x);
}

static void span_yrange(FILE *gp, span s)
{
    double pad = fmax(0.08 * (s.hi - s.lo), 0.01);
    fprintf(gp, "set yrange [%.4g:%.4g]\n", s.lo - pad, s.hi + pad);
}

/* overview.dat: x, then per kind (gdt_figure_kinds order) ratio, low, high. */
static int overview_rows(FILE *f, const gdt_run *r, int *cells, bool *present, span *s)
{
    int n = 0;
    fprintf(f, "# x, then per kind (generated, handwritten, cuDNN, cuBLASLt, test) its best plan's "
               "time / the best cuDNN plan's, low, high (noise of both added; - where none)\n");
    for (int ci = 0; ci < r->ncells; ci++) {
        const gdt_run_cell *c = &r->cells[ci];
        if (!c->journaled || !has_overview(c))
            continue;
        fprintf(f, "%d", n);
        for (int j = 0; j < GDT_FIGURE_NKINDS; j++) {
            double v[3];
            if (!overview_kind(gdt_figure_kinds[j]) || !ratio_to_cudnn(c, gdt_figure_kinds[j], v)) {
                fprintf(f, " - - -");
                continue;
            }
            fprintf(f, " %.6g %.6g %.6g", v[0], v[1], v[2]);
            span_add(s, v[1]), span_add(s, v[2]);
            present[j] = true;
        }
        fputc('\n', f);
        cells[n++] = ci;
    }
    return n;
}

/* Series side by side in a cell's slot: the j-th of m, centred. */
static double slot_offset(int j, int m, double width) { return m > 1 ? width * ((j + 0.5) / m - 0.5) : 0; }

static int count_present(const bool *present)
{
    int m = 0;
    for (int j = 0; j < GDT_FIGURE_NKINDS; j++)
        m += present[j];
    return m;
}

/* An overview figure's data file dir/dat and its cells' index (a cell a
 * point, r->ncells + 1 at most); on failure neither is left open. */
static gdt_status cells_open(const gdt_run *r, const char *dir, const char *dat, gdt_mfile *m, int **cells,
                             gdt_error *e)
{
    *cells = malloc(sizeof **cells * (size_t)(r->ncells + 1));
    gdt_status s = *cells ? gdt_mfile_open(m, dir, dat, e)
                          : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s/%s: out of memory", dir, dat);
    if (s != GDT_STATUS_OK) {
        free(*cells);
        *cells = NULL;
    }
    return s;
}

/* Per cell, each kind's best plan against the best cuDNN plan: points
 * with their noise, on a linear axis fitted to the data with parity (1.0)
 * drawn. */
static gdt_status overview_figure(FILE *gp, const gdt_run *r, const char *rdir, int *figures, gdt_error *e)
{
    gdt_mfile m;
    bool present[GDT_FIGURE_NKINDS] = {false};
    span s = {1, 1};
    int *cells = NULL;
    gdt_status st = cells_open(r, rdir, "overview.dat", &m, &cells, e);
    if (st != GDT_STATUS_OK)
        return st;
    int n = overview_rows(m.f, r, cells, present, &s);
    if ((st = gdt_mfile_save(&m, rdir, "overview.dat", e)) != GDT_STATUS_OK || !n) {
        free(cells);
        return st;
    }
    begin(gp, width_for(n), 640, "overview.svg",
          "best plan of each kind / best cuDNN plan, time per cell (ratio under 1: faster than cuDNN)");
    shape_tics(gp, r, cells, n);
    span_yrange(gp, s);
    fprintf(gp, "set xlabel 'cell (shape)'\nset ylabel 'ratio: time / best cuDNN plan''s (under 1: faster; bars: noise of both)'\nplot ");
    for (int j = 0, k = 0, mm = count_present(present); j < GDT_FIGURE_NKINDS; j++) {
        if (!present[j])
            continue;
        const gdt_kind_style *ks = gdt_kind_style_of(gdt_figure_kinds[j]);
        char q[QUOTED_MAX];
        quotef(q, "%s / cuDNN", ks->legend);
        fprintf(gp, "'overview.dat' using ($1%+.3f):%d:%d:%d with yerrorbars pt %d ps 0.8 lc rgb '%s' title %s, ",
                slot_offset(k++, mm, 0.5), 2 + 3 * j, 3 + 3 * j, 4 + 3 * j, ks->point, ks->colour, q);
    }
    fprintf(gp, "1 with lines dt 2 lw 1.5 lc rgb 'black' title 'parity (1.0)'\n");
    free(cells);
    ++*figures;
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ ceiling */

/* Kind k's best plan as a fraction of the cell's floor, and that
 * fraction's noise; false when the kind has none verified. */
static bool ceiling_fraction(const gdt_run_cell *c, gdt_engine_kind k, const gdt_roofline *rl, double v[2])
{
    int i = gdt_cell_best_of_kind(c, k);
    if (i < 0)
        return false;
    v[0] = gdt_roofline_fraction(rl, c->result[i].time_us);
    v[1] = v[0] * c->result[i].noise;
    return true;
}

static bool has_plans(const gdt_run_cell *c)
{
    if (!c->journaled || !c->listed)
        return false;
    for (int i = 0; i < c->nplans; i++)
        if (gdt_cell_verified(c, i))
            return true;
    return false;
}

/* overview_ceiling.dat: x, then per kind fraction and its noise ('-'
 * where none); cells[]: the cell of each x; *top: the highest bar's end. */
static int ceiling_rows(FILE *f, const gdt_run *r, const gdt_ceiling *cl, int *cells, bool *present, double *top)
{
    int n = 0;
    fprintf(f, "# x, then per kind (generated, handwritten, cuDNN, cuBLASLt, test) its best plan's "
               "fraction of the measured ceiling by the cell's lower bound, and its noise\n");
    for (int ci = 0; ci < r->ncells; ci++) {
        const gdt_run_cell *c = &r->cells[ci];
        gdt_roofline rl;
        if (!has_plans(c))
            continue;
        gdt_roofline_of(&c->spec->problem, cl, &rl);
        fprintf(f, "%d", n);
        for (int j = 0; j < GDT_FIGURE_NKINDS; j++) {
            double v[2];
            if (!ceiling_fraction(c, gdt_figure_kinds[j], &rl, v)) {
                fprintf(f, " - -");
                continue;
            }
            fprintf(f, " %.6g %.6g", v[0], v[1]);
            *top = fmax(*top, v[0] + v[1]);
            present[j] = true;
        }
        fputc('\n', f);
        cells[n++] = ci;
    }
    return n;
}

/* The ceiling figure's tics: each shape with its bound. */
static void bound_tics(FILE *gp, const gdt_run *r, const gdt_ceiling *cl, const int *cells, int n)
{
    fprintf(gp, "set xtics rotate by 45 right font ',8' (");
    for (int i = 0; i < n; i++) {
        char label[LABEL_MAX + 8], q[2 * LABEL_MAX + 16];
        gdt_roofline rl;
        const gdt_problem *p = &r->cells[cells[i]].spec->problem;
        gdt_roofline_of(p, cl, &rl);
        int k = gdt_cell_label(p, label, LABEL_MAX);
        snprintf(label + k, sizeof label - (size_t)k, rl.memory_bound ? " (mem)" : " (fl)");
        gdt_gnuplot_quote(q, sizeof q, label);
        fprintf(gp, "%s%s %d", i ? ", " : "", q, i);
    }
    fprintf(gp, ")\nset xrange [-0.6:%g]\nset lmargin 18\n", n - 0.4);
}

static void ceiling_plot(FILE *gp, const gdt_ceiling *cl, const bool *present)
{
    int m = count_present(present), k = 0;
    char q[QUOTED_MAX];
    quotef(q, "measured ceiling: %s sm%d, %.0f TFLOP/s dense bf16, %.1f TB/s HBM (docs/method.md)", cl->device,
           cl->arch, cl->dense_tflops, cl->hbm_tbps);
    fprintf(gp, "set label 1 %s at graph 0.01, first 1 offset 0,0.7 left font ',8' noenhanced\n", q);
    fprintf(gp, "set boxwidth %.3f absolute\nset style fill solid 0.7 border -1\nplot ", 0.8 / m);
    for (int j = 0; j < GDT_FIGURE_NKINDS; j++) {
        if (!present[j])
            continue;
        const gdt_kind_style *ks = gdt_kind_style_of(gdt_figure_kinds[j]);
        gdt_gnuplot_quote(q, sizeof q, ks->legend);
        fprintf(gp, "'overview_ceiling.dat' using ($1%+.3f):%d:%d with boxerrorbars lc rgb '%s' title %s, ",
                slot_offset(k++, m, 0.8), 2 + 2 * j, 3 + 2 * j, ks->colour, q);
    }
    fprintf(gp, "1 with lines dt 2 lw 2 lc rgb 'black' title 'measured ceiling (1.0)'\n");
}

/* Per cell, each kind's best plan as a fraction of the measured ceiling
 * (linear: 1 is the ceiling, and fractions add up as work left). */
static gdt_status ceiling_figure(FILE *gp, const gdt_run *r, const char *rdir, int *figures, gdt_error *e)
{
    const gdt_ceiling *cl = gdt_ceiling_find(r->arch);
    bool present[GDT_FIGURE_NKINDS] = {false};
    double top = 1;
    gdt_mfile m;
    if (!cl)
        return GDT_STATUS_OK;
    int *cells = NULL;
    gdt_status s = cells_open(r, rdir, "overview_ceiling.dat", &m, &cells, e);
    if (s != GDT_STATUS_OK)
        return s;
    int n = ceiling_rows(m.f, r, cl, cells, present, &top);
    if ((s = gdt_mfile_save(&m, rdir, "overview_ceiling.dat", e)) != GDT_STATUS_OK || !n) {
        free(cells);
        return s;
    }
    begin(gp, width_for(n), 640, "overview_ceiling.svg",
          "best plan of each kind per cell, as a fraction of the measured ceiling");
    bound_tics(gp, r, cl, cells, n);
    fprintf(gp, "set yrange [0:%.4g]\nset xlabel 'cell (shape) and its lower bound (fl: flops, mem: HBM bytes)'\n"
                "set ylabel 'fraction of the measured ceiling (bars: noise)'\n", top * 1.08);
    ceiling_plot(gp, cl, present);
    free(cells);
    ++*figures;
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ per cell */

/* Before a cell's label in a title: SDPA's label says fwd or bwd itself. */
static const char *family_word(const gdt_run_cell *c)
{
    return c->spec->family == GDT_FAMILY_GEMM ? "gemm" : "sdpa";
}

/* The cell's verified plans, fastest first (insertion: a cell holds a few
 * hundred plans at most); returns how many. */
static int ranked(const gdt_run_cell *c, int *order)
{
    int n = 0;
    for (int i = 0; i < c->nplans; i++) {
        if (!gdt_cell_verified(c, i))
            continue;
        int k = n++;
        while (k > 0 && c->result[order[k - 1]].time_us > c->result[i].time_us) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    return n;
}

/* cell_NNN_plans.dat: one block per kind present, rows rank, time, low,
 * high (the plan's noise); count[j]: the kind's plans (0: no block). */
static void plans_rows(FILE *f, const gdt_run_cell *c, const int *order, int n, int *count)
{
    fprintf(f, "# one block per kind (generated, handwritten, cuDNN, cuBLASLt, test; empty ones left out): "
               "rank (1: fastest), device us per call, low, high (its noise)\n");
    for (int j = 0; j < GDT_FIGURE_NKINDS; j++) {
        count[j] = 0;
        for (int r = 0; r < n; r++) {
            const gdt_run_result *res = &c->result[order[r]];
            if (gdt_cell_plan_kind(c, order[r]) != gdt_figure_kinds[j])
                continue;
            fprintf(f, "%d %.6g %.6g %.6g\n", r + 1, res->time_us, res->time_us * (1 - res->noise),
                    res->time_us * (1 + res->noise));
            count[j]++;
        }
        if (count[j])
            fprintf(f, "\n\n");
    }
}

/* The fastest three named in a list between the title and the plot. */
static void plans_labels(FILE *gp, const gdt_run_cell *c, const int *order, int n)
{
    for (int k = 0; k < n && k < 3; k++) {
        char q[QUOTED_MAX];
        const gdt_run_result *res = &c->result[order[k]];
        quotef(q, "#%d %s %.2f us ± %.1f%% (%s)", k + 1, c->plan[order[k]].name, res->time_us,
               100 * res->noise, gdt_kind_style_of(gdt_cell_plan_kind(c, order[k]))->legend);
        fprintf(gp, "set label %d %s at screen 0.02, screen %.3f left front font ',8' noenhanced\n", k + 1, q,
                0.97 - 0.025 * k);
    }
}

static void plans_plot(FILE *gp, const char *dat, const int *count)
{
    fprintf(gp, "plot ");
    for (int j = 0, block = 0; j < GDT_FIGURE_NKINDS; j++) {
        if (!count[j])
            continue;
        const gdt_kind_style *ks = gdt_kind_style_of(gdt_figure_kinds[j]);
        char q[QUOTED_MAX];
        quotef(q, "%s (%d plan%s)", ks->legend, count[j], count[j] == 1 ? "" : "s");
        fprintf(gp, "%s'%s' index %d using 1:2:3:4 with yerrorbars pt %d ps 0.7 lc rgb '%s' title %s", block ? ", " : "",
                dat, block, ks->point, ks->colour, q);
        block++;
    }
    fputc('\n', gp);
}

/* Tics at 1, 2, 5 times a power of ten inside [lo, hi], or at finer
 * steps when that gives fewer than four: a range under a decade has no
 * power of ten in it for gnuplot's own log tics to name. */
static void log_tics(FILE *gp, double lo, double hi)
{
    static const double coarse[] = {1, 2, 5}, fine[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9};
    static const struct { const double *m; int n; } steps[] = {{coarse, 3}, {fine, 12}};
    for (int s = 0; s < 2; s++) {
        char list[1024];
        int k = 0, at = 0;
        for (double d = pow(10, floor(log10(lo))); d <= hi && at < 900; d *= 10)
            for (int i = 0; i < steps[s].n && at < 900; i++) {
                double v = steps[s].m[i] * d;
                if (v >= lo && v <= hi)
                    at += snprintf(list + at, sizeof list - (size_t)at, "%s%g", k++ ? ", " : "", v);
            }
        if (k >= 4 || (s == 1 && k > 0)) { /* none at all: gnuplot's own */
            fprintf(gp, "set ytics (%s)\n", list);
            return;
        }
    }
}

/* The log axis around the plans' bars (a margin of a twentieth of the span
 * each side), not out to the next powers of ten. */
static void log_yrange(FILE *gp, const gdt_run_cell *c, const int *order, int n)
{
    if (n == 0)
        return;
    double lo = INFINITY, hi = 0;
    for (int r = 0; r < n; r++) {
        const gdt_run_result *res = &c->result[order[r]];
        lo = fmin(lo, res->time_us * (1 - res->noise));
        hi = fmax(hi, res->time_us * (1 + res->noise));
    }
    if (!(lo > 0))
        return; /* a noise of 100% or more: gnuplot's own range */
    double pad = pow(hi / lo, 0.05);
    fprintf(gp, "set yrange [%.4g:%.4g]\n", lo / pad, hi * pad);
    log_tics(gp, lo / pad, hi * pad);
}

/* Every verified plan of a cell, fastest first, each kind apart, on a log
 * time axis (a cell's plans span decades). */
static gdt_status plans_figure(FILE *gp, const gdt_run *r, int ci, const char *rdir, int *figures, gdt_error *e)
{
    const gdt_run_cell *c = &r->cells[ci];
    char dat[64], svg[64], label[LABEL_MAX], title[QUOTED_MAX];
    int count[GDT_FIGURE_NKINDS], *order = malloc(sizeof *order * (size_t)(c->nplans + 1));
    gdt_mfile m;
    snprintf(dat, sizeof dat, "cell_%03d_plans.dat", ci);
    gdt_status s = order ? gdt_mfile_open(&m, rdir, dat, e) : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s/%s: out of memory", rdir, dat);
    if (s != GDT_STATUS_OK) {
        free(order);
        return s;
    }
    int n = ranked(c, order);
    plans_rows(m.f, c, order, n, count);
    if ((s = gdt_mfile_save(&m, rdir, dat, e)) == GDT_STATUS_OK) {
        gdt_cell_label(&c->spec->problem, label, sizeof label);
        snprintf(svg, sizeof svg, "cell_%03d_plans.svg", ci);
        snprintf(title, sizeof title, "%s %s (cell %d): %d verified plans, fastest first", family_word(c), label,
                 ci, n);
        begin(gp, 1000, 640, svg, title);
        plans_labels(gp, c, order, n);
        fprintf(gp, "set xlabel 'rank among the cell''s verified plans (1: fastest)'\n"
                    "set ylabel 'device time per call (us, log; bars: noise)'\nset logscale y\n"
                    "set xrange [0:%d]\nset tmargin 7\n", n + 1);
        log_yrange(gp, c, order, n);
        plans_plot(gp, dat, count);
        ++*figures;
    }
    free(order);
    return s;
}

/* Whether any kind's best plan was measured at two burst sizes or more:
 * a curve needs two points (long kernels run a single burst). */
static bool has_burst_curve(const gdt_run_cell *c)
{
    for (int j = 0; j < GDT_FIGURE_NKINDS; j++) {
        int i = gdt_cell_best_of_kind(c, gdt_figure_kinds[j]);
        if (i >= 0 && c->result[i].nbursts > 1)
            return true;
    }
    return false;
}

/* A median the burst left out (NaN) as 0, as the figures' data had it. */
static double or0(double v)
{
    return isnan(v) ? 0 : v;
}

/* One block per kind with a verified plan: its best plan's bursts (burst,
 * host and device medians, the device median's spread as low and high). */
static void burst_rows(FILE *f, const gdt_run_cell *c, const int *best)
{
    fprintf(f, "# one block per kind's best plan: burst, host us, device us, low, high (rel_spread)\n");
    for (int j = 0; j < GDT_FIGURE_NKINDS; j++) {
        if (best[j] < 0)
            continue;
        const gdt_run_result *res = &c->result[best[j]];
        for (int k = 0; k < res->nbursts; k++) {
            const gdt_run_burst *b = &res->bursts[k];
            double dev = or0(b->median_device_us), sp = or0(b->rel_spread);
            fprintf(f, "%d %.6g %.6g %.6g %.6g\n", b->burst, or0(b->median_host_us), dev, dev * (1 - sp),
                    dev * (1 + sp));
        }
        fprintf(f, "\n\n");
    }
}

/* One panel's plot: column col of each kind's block (with bars when
 * bars), each named by its kind and its plan. */
static void burst_plot(FILE *gp, const gdt_run_cell *c, const char *dat, const int *best, bool bars)
{
    fprintf(gp, "plot ");
    for (int j = 0, block = 0; j < GDT_FIGURE_NKINDS; j++) {
        if (best[j] < 0)
            continue;
        const gdt_kind_style *ks = gdt_kind_style_of(gdt_figure_kinds[j]);
        char q[QUOTED_MAX];
        quotef(q, "%s: %s", ks->legend, c->plan[best[j]].name);
        fprintf(gp, "%s'%s' index %d using 1:%s with %s pt %d lc rgb '%s' title %s", block ? ", " : "", dat, block,
                bars ? "3:4:5" : "2", bars ? "yerrorlines" : "linespoints", ks->point, ks->colour, q);
        block++;
    }
    fputc('\n', gp);
}

/* Host enqueue and device time per call against the burst size, on two
 * axes of their own (microseconds of different things), the best plan of
 * each kind named. */
static gdt_status burst_figure(FILE *gp, const gdt_run *r, int ci, const char *rdir, int *figures, gdt_error *e)
{
    const gdt_run_cell *c = &r->cells[ci];
    int best[GDT_FIGURE_NKINDS], nbest = 0;
    char dat[64], svg[64], label[LABEL_MAX], title[QUOTED_MAX], q[QUOTED_MAX];
    gdt_mfile m;
    for (int j = 0; j < GDT_FIGURE_NKINDS; j++)
        nbest += (best[j] = gdt_cell_best_of_kind(c, gdt_figure_kinds[j])) >= 0;
    snprintf(dat, sizeof dat, "cell_%03d_bursts.dat", ci);
    gdt_status s = gdt_mfile_open(&m, rdir, dat, e);
    if (s != GDT_STATUS_OK)
        return s;
    burst_rows(m.f, c, best);
    if ((s = gdt_mfile_save(&m, rdir, dat, e)) != GDT_STATUS_OK)
        return s;
    gdt_cell_label(&c->spec->problem, label, sizeof label);
    snprintf(svg, sizeof svg, "cell_%03d_bursts.svg", ci);
    snprintf(title, sizeof title, "%s %s (cell %d): per call vs burst size, the best plan of each kind",
             family_word(c), label, ci);
    begin(gp, 1000, 700 + 30 * nbest, svg, "");
    gdt_gnuplot_quote(q, sizeof q, title);
    fprintf(gp, "set multiplot layout 2,1 title %s noenhanced\nset logscale x 2\nunset key\n"
                "set title 'host enqueue' noenhanced\nset xlabel ''\nset ylabel 'host us per call'\n", q);
    burst_plot(gp, c, dat, best, false);
    fprintf(gp, "set title 'device time (bars: the burst''s spread)' noenhanced\nset xlabel 'burst size (log 2)'\n"
                "set ylabel 'device us per call'\nset key below vertical Left reverse font ',8'\n");
    burst_plot(gp, c, dat, best, true);
    fprintf(gp, "unset multiplot\n");
    ++*figures;
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ script */

static gdt_status write_script(const gdt_run *r, const char *rdir, int *figures, gdt_error *e)
{
    gdt_mfile gp;
    gdt_status s = gdt_mfile_open(&gp, rdir, "figures.gp", e);
    if (s != GDT_STATUS_OK)
        return s;
    fprintf(gp.f, "# gdtune report figures: in this folder, run: gnuplot figures.gp\n");
    s = overview_figure(gp.f, r, rdir, figures, e);
    if (s == GDT_STATUS_OK)
        s = ceiling_figure(gp.f, r, rdir, figures, e);
    for (int ci = 0; s == GDT_STATUS_OK && ci < r->ncells; ci++) {
        if (!has_plans(&r->cells[ci]))
            continue;
        s = plans_figure(gp.f, r, ci, rdir, figures, e);
        if (s == GDT_STATUS_OK && has_burst_curve(&r->cells[ci]))
            s = burst_figure(gp.f, r, ci, rdir, figures, e);
    }
    if (s != GDT_STATUS_OK) {
        gdt_mfile_discard(&gp);
        return s;
    }
    return gdt_mfile_save(&gp, rdir, "figures.gp", e);
}

gdt_status gdt_report_figures_write(const gdt_run *r, const char *rdir, gdt_error *e)
{
    int figures = 0;
    gdt_status s = write_script(r, rdir, &figures, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (figures == 0) {
        fprintf(stderr, "gdtune report: no cell has a verified plan: no figures (summary.md written)\n");
        return GDT_STATUS_OK;
    }
    s = gdt_gnuplot_run(rdir, "figures.gp", e);
    if (s == GDT_STATUS_NOT_SUPPORTED) {
        fprintf(stderr, "gdtune report: gnuplot not installed: no figures (summary.md and figures.gp written)\n");
        gdt_error_clear(e);
        return GDT_STATUS_OK;
    }
    return s;
}

void gdt_report_figures_markdown(FILE *f, const gdt_run *r)
{
    bool any = false, overview = false;
    fprintf(f, "\n## Figures\n\n");
    for (int ci = 0; ci < r->ncells; ci++) {
        any = any || has_plans(&r->cells[ci]);
        overview = overview || (r->cells[ci].journaled && has_overview(&r->cells[ci]));
    }
    if (overview)
        fprintf(f, "- [overview: each kind's best plan / the best cuDNN plan, per cell](overview.svg)\n");
    if (any && gdt_ceiling_find(r->arch))
        fprintf(f, "- [overview: each side's best plan as a fraction of the measured ceiling](overview_ceiling.svg)\n");
    for (int ci = 0; ci < r->ncells; ci++) {
        char label[LABEL_MAX];
        if (!has_plans(&r->cells[ci]))
            continue;
        gdt_cell_label(&r->cells[ci].spec->problem, label, sizeof label);
        fprintf(f, "- cell %d, %s %s: [plans](cell_%03d_plans.svg)", ci, family_word(&r->cells[ci]), label, ci);
        if (has_burst_curve(&r->cells[ci]))
            fprintf(f, ", [per call vs burst](cell_%03d_bursts.svg)", ci);
        fputc('\n', f);
    }
    if (!any)
        fprintf(f, "None (no cell has a verified plan).\n");
    else
        fprintf(f, "\n(Drawn when gnuplot is installed; `gnuplot figures.gp` in this folder draws them later.)\n");
}
