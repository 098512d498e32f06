/* `gdtune report`'s figures (docs/figures.md): figures.gp and its data
 * files in the report folder, then gnuplot there.  Every figure names its
 * cells by shape (gdt_cell_label), draws each kind of engine in its own
 * colour under its own name (gdt_figure_style.h), gives each time or ratio
 * its measured noise as an error bar, fits its axes to the data and keeps
 * its legend outside the plot.  The scripts follow gdt_gnuplot.h: numbers
 * in data files, every string quoted, only relative names.  Private to
 * reports/. */
#ifndef GDT_REPORT_FIGURES_H
#define GDT_REPORT_FIGURES_H

#include <stdio.h>

#include "gdt_run.h"
#include "gdtune/gdtune.h"

/* Writes rdir/figures.gp and its data files (whether or not gnuplot is
 * installed, so that `gnuplot figures.gp` draws them later) and runs gnuplot
 * in rdir.  OK, said on stderr, when there is nothing to draw or no gnuplot;
 * IO naming the script when gnuplot fails. */
gdt_status gdt_report_figures_write(const gdt_run *r, const char *rdir, gdt_error *e);

/* summary.md's "## Figures" section: a link per figure, relative to it. */
void gdt_report_figures_markdown(FILE *f, const gdt_run *r);

#endif
