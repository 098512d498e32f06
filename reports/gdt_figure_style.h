/* What every figure of reports/ draws alike: each kind of engine (the
 * comparison's sides: generated, handwritten, cuDNN, cuBLASLt) with its own
 * legend name, colour and point, and a cell named by its shape in a short
 * label ("m4096 n4096 k4096", "fwd b4 h32 s4096 d128 causal").  Private to
 * reports/. */
#ifndef GDT_FIGURE_STYLE_H
#define GDT_FIGURE_STYLE_H

#include <stddef.h>

#include "gdt_run.h"
#include "gdtune/gdtune.h"

typedef struct gdt_kind_style {
    gdt_engine_kind kind;
    const char *name;   /* raw.h5's `kind` column: "nvrtc", "hand", "cudnn", "cublaslt", "test" */
    const char *legend; /* "generated (NVRTC)", "cuBLASLt": never "gdtune" for a library */
    const char *colour; /* gnuplot rgb, "#1f77b4" */
    int point;          /* gnuplot point type */
} gdt_kind_style;

/* The kinds in the order the figures draw them (and their legends list
 * them); GDT_FIGURE_NKINDS of them. */
#define GDT_FIGURE_NKINDS GDT_ENGINE_KIND_COUNT
extern const gdt_engine_kind gdt_figure_kinds[GDT_FIGURE_NKINDS];

/* The kind's row (every kind has one). */
const gdt_kind_style *gdt_kind_style_of(gdt_engine_kind k);

/* The kind of plan i of a cell (the default manifest's; an engine id no slot
 * holds counts as a test engine). */
gdt_engine_kind gdt_cell_plan_kind(const gdt_run_cell *c, int i);

/* The cell's fastest verified plan of kind k; -1 when none. */
int gdt_cell_best_of_kind(const gdt_run_cell *c, gdt_engine_kind k);

/* The short label of a problem: its sizes, the dtype when not bf16, SDPA's
 * direction and mask.  Returns the length written (cut to fit n). */
int gdt_cell_label(const gdt_problem *p, char *buf, size_t n);

#endif
