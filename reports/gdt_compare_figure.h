/* The figure of `gdtune compare`: per cell the ratio handwritten /
 * generated time and handwritten / cuDNN time (the handwritten engines'
 * goal, 1/0.9, drawn), each with its noise, on a linear axis fitted
 * to the data; cells named by shape, the legend below.  Written like the
 * report's figures (gdt_gnuplot.h): the numbers in a data file, the title
 * quoted and typeset literally, the script naming only relative files. */
#ifndef GDT_COMPARE_FIGURE_H
#define GDT_COMPARE_FIGURE_H

#include <stdbool.h>

#include "gdtune/gdtune.h"

typedef struct gdt_compare_point {
    int cell;          /* the cell's number in the comparison */
    const gdt_problem *problem; /* its shape, for the tic (gdt_cell_label) */
    double ratio;      /* handwritten / generated time, > 0; 0: none */
    double noise;      /* relative */
    double ratio_cudnn; /* handwritten / cuDNN time, > 0; 0: none */
    double ratio_cudnn_noise;
} gdt_compare_point;

#define GDT_COMPARE_FIGURE "compare.svg"

/* Writes compare.dat and compare.gp into dir (created when missing), then
 * runs gnuplot there for compare.svg.  *drawn: whether the figure was
 * drawn (false with OK when there is no point or gnuplot is not in PATH;
 * the script stays for a later `gnuplot compare.gp`).  title is any text. */
gdt_status gdt_compare_figure_write(const char *dir, const char *title, const gdt_compare_point *pts,
                                    int n, bool *drawn, gdt_error *e);

#endif
