/* A sweep's spec (spec.c): its grid of cells and the settings it carries,
 * parsed, loaded and sharded.  The sweep (gdt_sweep.h) runs it; the
 * journal's reader (gdt_run.h) parses the spec a header carries.  Private
 * to the harness. */
#ifndef GDT_SPEC_H
#define GDT_SPEC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "gdt_measure.h"
#include "gdtune/gdtune.h"

/* One point of the grid: a family and the shape text gdt_problem_parse
 * reads ("m=128,n=4096,k=4096,dtype=bf16"). */
typedef struct gdt_sweep_cell {
    gdt_family family;
    char shape[256];
    gdt_problem problem;
} gdt_sweep_cell;

typedef struct gdt_sweep_spec {
    char source[PATH_MAX];  /* "sweeps/gemm.json" (embedded) or the --spec path */
    char digest[65];        /* of the spec text */
    char *text;             /* the spec as read (NUL-terminated) */
    unsigned families;      /* 1u << gdt_family */
    gdt_sweep_cell *cells;
    int ncells;
    bool quick;
    /* Settings the spec carries; 0 where it says nothing (defaults apply). */
    int bursts[GDT_MAX_BURSTS];
    int nbursts;
    double target_rel, max_plan_seconds;
    /* The least relative noise the tables give a measured time (emit.c):
     * the run-to-run spread of this machine, which a run's own confidence
     * interval does not see. */
    double noise_floor;
    /* The largest burst run back to back for this long before a contender's
     * metric series (gdt_measure_opts.heat_seconds); 0: none. */
    double heat_seconds;
    /* The longest sample a cell's metric may take: its largest burst is the
     * largest whose sample fits this at the time per call of the cell's
     * first plan measured in full (gdt_measure_opts.metric_sample_s; the
     * sweep, sweep.c: cell_bursts); 0: every burst, always. */
    double metric_sample_s;
    int knob_cap;
    /* Threads that build a cell's cuDNN plans before its measurements;
     * -1: unset (gdt_sweep_build_threads' default). */
    int build_threads;
} gdt_sweep_spec;

/* The spec's build_threads, or when unset min(8, online CPUs - 1): one core
 * stays for the worker's own thread and the parent.  0 or 1: serial. */
int gdt_sweep_build_threads(const gdt_sweep_spec *sp);

/* Parses a spec (strict: unknown fields, wrong types, empty axes, values a
 * problem refuses, each named with file and JSON path).  With quick the
 * "quick" subset's grid and settings replace the full grid's. */
gdt_status gdt_sweep_spec_parse(const char *text, size_t len, const char *file, bool quick,
                                gdt_sweep_spec **out, gdt_error *e);
/* The embedded default for a family argument ("gemm", "sdpa", "sdpa_fwd",
 * "sdpa_bwd": the SDPA families share sweeps/sdpa.json) or a --spec file.
 * Cells of families the argument does not name are dropped. */
gdt_status gdt_sweep_spec_load(const char *family_arg, const char *path, bool quick,
                               gdt_sweep_spec **out, gdt_error *e);
void gdt_sweep_spec_destroy(gdt_sweep_spec *s);
/* The text of the spec gdt_sweep_spec_load reads (path NULL: the embedded
 * one) and its name (malloc'd text, NUL-terminated). */
gdt_status gdt__sweep_spec_text(const char *family_arg, const char *path, char **text, size_t *len,
                                char *name, size_t nname, gdt_error *e);

/* Keeps cells whose index i satisfies i % n == k (deterministic shard). */
void gdt_sweep_spec_shard(gdt_sweep_spec *s, int k, int n);

#endif
