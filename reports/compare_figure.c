/* compare.svg: per cell the two ratios with their noise as error bars,
 * parity drawn at 1 and the handwritten goal at 0.9 (gdt_compare_figure.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gdt_compare_figure.h"
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

/* A ratio, its low and its high end (noise as the bar), or three '-' (gnuplot's missing). */
static void ratio_columns(FILE *f, double r, double noise)
{
    if (r > 0)
        fprintf(f, " %.6g %.6g %.6g", r, r * fmax(1 - noise, 1e-3), /* above 0 on the log axis */
                r * (1 + noise));
    else
        fprintf(f, " - - -");
}

static gdt_status write_data(const char *dir, const gdt_compare_point *pts, int n, gdt_error *e)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s/compare.dat: out of memory", dir);
    fprintf(f, "# cell, then ratio low high of: generated / handwritten throughput; handwritten / cuDNN "
               "throughput (noise as the bar; - where a side has no winner)\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%d", pts[i].cell);
        ratio_columns(f, pts[i].ratio, pts[i].noise);
        ratio_columns(f, pts[i].vs_cudnn, pts[i].vs_cudnn_noise);
        fputc('\n', f);
    }
    return publish(dir, "compare.dat", f, &text, &len, e);
}

/* At most about 24 labelled cells on the x axis: 48 labels of two digits overlap. */
static int xtics_step(int n) { return n > 24 ? (n + 23) / 24 : 1; }

static gdt_status write_script(const char *dir, const char *title, int n, gdt_error *e)
{
    char quoted[1024], *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s/compare.gp: out of memory", dir);
    gdt_gnuplot_quote(quoted, sizeof quoted, title);
    fprintf(f, "# gdtune compare figure: in this folder, run: gnuplot compare.gp\n"
               "set terminal svg size 900,540 noenhanced\nset output '" GDT_COMPARE_FIGURE "'\n"
               "set title %s noenhanced\nset key bottom left\nset grid\nset logscale y 2\n"
               "set datafile missing '-'\nset yrange [*:1.25<*]\n"
               "set xlabel 'cell (as gdtune compare numbers them)'\nset xtics %d\n"
               "set ylabel 'throughput ratio (> 1: the first named faster)'\n"
               "set offsets 0.5, 0.5, 0, 0\n"
               "plot 'compare.dat' using 1:2:3:4 with yerrorbars pt 7 title 'generated / handwritten', "
               "'' using 1:5:6:7 with yerrorbars pt 5 title 'handwritten / cuDNN (best plans)', "
               "1 with lines dt 2 title 'parity', 0.9 with lines dt 3 title 'handwritten goal (0.9)'\n",
            quoted, xtics_step(n));
    return publish(dir, "compare.gp", f, &text, &len, e);
}

gdt_status gdt_compare_figure_write(const char *dir, const char *title, const gdt_compare_point *pts,
                                    int n, bool *drawn, gdt_error *e)
{
    *drawn = false;
    if (n <= 0)
        return GDT_STATUS_OK; /* gnuplot refuses an empty plot */
    gdt_status s = gdt_mkdirs(dir, e);
    if (s == GDT_STATUS_OK)
        s = write_data(dir, pts, n, e);
    if (s == GDT_STATUS_OK)
        s = write_script(dir, title, n, e);
    if (s == GDT_STATUS_OK)
        s = gdt_gnuplot_run(dir, "compare.gp", e);
    if (s == GDT_STATUS_NOT_SUPPORTED) {
        gdt_error_clear(e);
        return GDT_STATUS_OK;
    }
    *drawn = s == GDT_STATUS_OK;
    return s;
}
