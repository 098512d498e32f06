/* Problem buffers, random inputs, poisoned outputs, trial state, and
 * verification against a reference (the cuDNN plan's output or an fp64 CPU
 * reference on small shapes) by relative L2 error.  Runs in the worker. */
#ifndef GDT_VERIFY_H
#define GDT_VERIFY_H

#include "gdt_family.h" /* gdt__operand_geometry */
#include "gdtune/plan.h"

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

/* ------------------------------------------------------------ additions */

/* Saved contents (what restore puts back): every output holds the NaN
 * pattern (0xFF bytes), the workspace zeros.  Inputs are never written by a
 * plan and are not restored.
 *
 * sdpa_bwd: Q, K, V and dO are random; O and Stats are consistent with them
 * (the fp64 forward on the host) when the forward costs at most
 * GDT_BUFFERS_EXACT_FWD_FLOPS; above that Stats holds the expected
 * log-sum-exp of the random scores (log of the unmasked count + var/2) and O
 * small random values, and the sweep replaces both with the cuDNN forward's
 * outputs through gdt_buffers_set_input. */
#define GDT_BUFFERS_EXACT_FWD_FLOPS 1e9

/* Replaces an input's contents with host data in the operand's device
 * format (dtype, strides), bytes = its span (ops.bytes[r]); updates the
 * host copy too.  BAD_INPUT naming the operand for an output role, a role the
 * family does not bind, or a size mismatch. */
gdt_status gdt_buffers_set_input(gdt_buffers *b, gdt_operand_role r, const void *host,
                                 size_t bytes, gdt_error *e);

/* The same, from logical doubles (count = the operand's element count, in
 * logical order), stored through the strides in the operand's dtype; e.g.
 * O and Stats read back with gdt_outputs_read from a cuDNN forward run on
 * sdpa_fwd buffers created with the same problem dims and seed, whose Q, K
 * and V are then identical to the sdpa_bwd buffers' (the fill depends only
 * on seed, role, distribution and span). */
gdt_status gdt_buffers_set_input_logical(gdt_buffers *b, gdt_operand_role r, const double *logical,
                                         size_t count, gdt_error *e);

/* Element i of an array of dtype t, as a double; and the store, rounded to
 * nearest even. */
double gdt__dtype_load(gdt_dtype t, const void *base, int64_t i);
void gdt__dtype_store(gdt_dtype t, void *base, int64_t i, double v);
/* Keys [0, limit) that query row i of an SDPA problem attends to under its
 * causal alignment (all s_kv when not causal; harness/reference.c). */
int64_t gdt__sdpa_key_limit(const gdt_sdpa_desc *s, int64_t i);
/* Runs fn(ctx, i) for i in [0, n) spread over the machine's cores
 * (harness/parallel.c); fn must not fail. */
void gdt__parallel_for(int64_t n, void (*fn)(const void *ctx, int64_t i), const void *ctx);
/* Logical element count of an operand (product of its dims; this and the
 * dtype loads and stores are harness/elements.c's). */
size_t gdt__operand_count(const gdt_problem *p, gdt_operand_role r);
/* An operand's elements in logical order: read from raw (dtype and strides
 * of the operand) into doubles, or stored from doubles into raw, rounded. */
void gdt__operand_to_logical(const gdt_problem *p, gdt_operand_role r, const void *raw, double *v);
void gdt__operand_from_logical(const gdt_problem *p, gdt_operand_role r, void *raw, const double *v);

/* Verification of many plans against one reference on the same buffers
 * (the sweep's cell), without a per-plan double copy of the outputs: the
 * reference is kept in the output's device format (dtype and strides, as
 * the reference plan left it: lossless) or, from gdt_reference_cpu, as
 * logical doubles; each check copies an output's span into one host buffer
 * reused for the verifier's life (pinned when possible) and accumulates the
 * relative-L2 sums in chunks of logical elements over every core, added in
 * chunk order (the result does not depend on the thread count).  Statuses,
 * errors and messages are those of gdt_outputs_read + gdt_outputs_compare:
 * NaN never passes, equal infinities contribute nothing, INCORRECT names
 * the operand, the error and the bound. */
typedef struct gdt_verifier gdt_verifier;
/* The reference: b's outputs as they are now on the device. */
gdt_status gdt_verifier_create_device(const gdt_buffers *b, gdt_verifier **out, gdt_error *e);
/* The reference: logical doubles for every output of b's problem (copied);
 * INTERNAL naming the output when one is missing or its count differs. */
gdt_status gdt_verifier_create(const gdt_buffers *b, const gdt_outputs *ref, gdt_verifier **out,
                               gdt_error *e);
void gdt_verifier_destroy(gdt_verifier *v);
/* Compares b's outputs (on the device, after draining every stream) with
 * the reference.  b's outputs must have the reference buffers' dtype, dims
 * and strides (INTERNAL otherwise).  err[i] is output i's error in family
 * order, *nerr the number of outputs. */
gdt_status gdt_verifier_check(gdt_verifier *v, const gdt_buffers *b, double err[4], int *nerr,
                              gdt_error *e);

#endif
