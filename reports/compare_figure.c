/* compare.svg: per cell (named by shape) the two ratios with their noise
 * as error bars, on a linear axis fitted to them, parity drawn at 1 and the
 * handwritten goal at 1/0.9 (0.9 of cuDNN's throughput), the legend below (gdt_compare_figure.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gdt_compare_figure.h"
#include "gdt_compare_summary.h"
#include "gdt_figure_style.h"
#include "gdt_gnuplot.h"
#include "gdt_util.h"

/* The memstream f, writing into *text and *len (set only once f is
 * closed), published as dir/name. */
static gdt_status publish(const char *dir, const char *name, FILE *f, char **text, size_t *len,
                          gdt_error *e)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gdt_status s = fclose(f) == 0 ? gdt_file_write_atomic(path, *text, *len, e)
                                  : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", path);
    free(*text);
    return s;
}

/* The y axis: every bar's ends, parity and the goal. */
typedef struct yspan {
    double lo, hi;
} yspan;

/* A ratio, its low and its high end (noise as the bar), or three '-' (gnuplot's missing). */
static void ratio_columns(FILE *f, double r, double noise, yspan *y)
{
    if (!(r > 0)) {
        fprintf(f, " - - -");
        return;
    }
    double lo = r * fmax(1 - noise, 0), hi = r * (1 + noise);
    fprintf(f, " %.6g %.6g %.6g", r, lo, hi);
    y->lo = fmin(y->lo, lo);
    y->hi = fmax(y->hi, hi);
}

static gdt_status write_data(const char *dir, const gdt_compare_point *pts, int n, yspan *y, gdt_error *e)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s/compare.dat: out of memory", dir);
    fprintf(f, "# cell, then ratio low high of: handwritten / generated time; handwritten / cuDNN "
               "time (noise as the bar; - where a side has no winner); x\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%d", pts[i].cell);
        ratio_columns(f, pts[i].ratio, pts[i].noise, y);
        ratio_columns(f, pts[i].ratio_cudnn, pts[i].ratio_cudnn_noise, y);
        fprintf(f, " %d\n", i);
    }
    return publish(dir, "compare.dat", f, &text, &len, e);
}

/* The cells' shapes as the x axis' tics, at 0..n-1, slanted to fit. */
static void shape_tics(FILE *f, const gdt_compare_point *pts, int n)
{
    fprintf(f, "set xtics rotate by 45 right font ',8' (");
    for (int i = 0; i < n; i++) {
        char label[96] = "", q[200];
        if (pts[i].problem)
            gdt_cell_label(pts[i].problem, label, sizeof label);
        else
            snprintf(label, sizeof label, "cell %d", pts[i].cell);
        gdt_gnuplot_quote(q, sizeof q, label);
        fprintf(f, "%s%s %d", i ? ", " : "", q, i);
    }
    fprintf(f, ")\nset xrange [-0.6:%g]\nset lmargin 18\n", n - 0.4);
}

/* Each ratio in its own side's colour (gdt_figure_style.h): generated
 * against handwritten, cuDNN against handwritten. */
static void plot_line(FILE *f)
{
    const gdt_kind_style *gen = gdt_kind_style_of(GDT_ENGINE_NVRTC), *hand = gdt_kind_style_of(GDT_ENGINE_HAND);
    fprintf(f, "plot 'compare.dat' using ($8-0.12):2:3:4 with yerrorbars pt %d lc rgb '%s' "
               "title 'handwritten / generated', "
               "'' using ($8+0.12):5:6:7 with yerrorbars pt %d lc rgb '%s' title 'handwritten / cuDNN (best plans)', "
               "1 with lines dt 2 lw 1.5 lc rgb 'black' title 'parity (1.0)', "
               "%.4g with lines dt 3 lw 1.5 lc rgb '%s' title 'handwritten goal (%.3g)'\n",
            gen->point, gen->colour, hand->point, hand->colour, GDT_COMPARE_GOAL, hand->colour,
            GDT_COMPARE_GOAL);
}

static gdt_status write_script(const char *dir, const char *title, const gdt_compare_point *pts, int n, yspan y,
                               gdt_error *e)
{
    char quoted[1024], *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s/compare.gp: out of memory", dir);
    gdt_gnuplot_quote(quoted, sizeof quoted, title);
    double pad = fmax(0.08 * (y.hi - y.lo), 0.01);
    fprintf(f, "# gdtune compare figure: in this folder, run: gnuplot compare.gp\n"
               "set terminal svg size %d,600 noenhanced\nset output '" GDT_COMPARE_FIGURE "'\n"
               "set title %s noenhanced\nset key below horizontal noenhanced\nset grid\n"
               "set datafile missing '-'\nset yrange [%.4g:%.4g]\n"
               "set xlabel 'cell (shape)'\n"
               "set ylabel 'ratio: time / time (under 1: the first named faster; bars: noise)'\n",
            n * 26 + 160 > 900 ? n * 26 + 160 : 900, quoted, y.lo - pad, y.hi + pad);
    shape_tics(f, pts, n);
    plot_line(f);
    return publish(dir, "compare.gp", f, &text, &len, e);
}

gdt_status gdt_compare_figure_write(const char *dir, const char *title, const gdt_compare_point *pts,
                                    int n, bool *drawn, gdt_error *e)
{
    *drawn = false;
    if (n <= 0)
        return GDT_STATUS_OK; /* gnuplot refuses an empty plot */
    yspan y = {1, GDT_COMPARE_GOAL}; /* parity and the goal */
    gdt_status s = gdt_mkdirs(dir, e);
    if (s == GDT_STATUS_OK)
        s = write_data(dir, pts, n, &y, e);
    if (s == GDT_STATUS_OK)
        s = write_script(dir, title, pts, n, y, e);
    if (s == GDT_STATUS_OK)
        s = gdt_gnuplot_run(dir, "compare.gp", e);
    if (s == GDT_STATUS_NOT_SUPPORTED) {
        gdt_error_clear(e);
        return GDT_STATUS_OK;
    }
    *drawn = s == GDT_STATUS_OK;
    return s;
}
