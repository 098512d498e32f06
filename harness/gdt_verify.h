/* Problem buffers, random inputs, poisoned outputs, trial state, and
 * verification against a reference (the cuDNN plan's output or an fp64 CPU
 * reference on small shapes) by relative L2 error.  Runs in the worker. */
#ifndef GDT_VERIFY_H
#define GDT_VERIFY_H

#include "gdtune/engine.h"

/* Device buffers for every operand of a problem, inputs filled with random
 * data from a seed (never zeros), plus a saved copy of every output's
 * initial contents (trial state). */
typedef struct gdt_buffers {
    gdt_problem problem;
    gdt_operands ops;           /* device pointers and capacities */
    void *host[GDT_OPERAND_COUNT]; /* host copies of the inputs as filled */
    void *workspace;
    size_t workspace_bytes;
} gdt_buffers;

gdt_status gdt_buffers_create(const gdt_problem *p, uint64_t seed, gdt_buffers **out, gdt_error *e);
void gdt_buffers_destroy(gdt_buffers *b);
/* Grows the workspace to at least n bytes. */
gdt_status gdt_buffers_reserve_workspace(gdt_buffers *b, size_t n, gdt_error *e);
/* Fills every output with a NaN pattern, so an unwritten element fails. */
gdt_status gdt_buffers_poison(gdt_buffers *b, void *stream, gdt_error *e);
/* Trial state: restores every buffer a plan writes (outputs, workspace) to
 * the same contents before each trial. */
gdt_status gdt_buffers_restore(gdt_buffers *b, void *stream, gdt_error *e);

/* Host copies of a problem's outputs, as doubles, in logical (BHSD / batch,
 * row, col) order. */
typedef struct gdt_outputs {
    int n;                              /* outputs */
    gdt_operand_role role[4];
    double *data[4];
    size_t count[4];                    /* elements */
} gdt_outputs;

gdt_status gdt_outputs_read(const gdt_buffers *b, gdt_outputs *out, gdt_error *e);
void gdt_outputs_free(gdt_outputs *o);

/* fp64 CPU reference of the problem on b's host inputs (small shapes only:
 * refuses more than max_flops with NOT_SUPPORTED). */
gdt_status gdt_reference_cpu(const gdt_buffers *b, double max_flops, gdt_outputs *out, gdt_error *e);

/* Relative L2 error of each output against the reference; NaN never passes.
 * INCORRECT (naming the operand, error and bound) when any exceeds the
 * dtype's bound.  err[i] receives each error. */
gdt_status gdt_outputs_compare(const gdt_problem *p, const gdt_outputs *got, const gdt_outputs *ref,
                               double err[4], gdt_error *e);

#endif
