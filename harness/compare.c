/* Outputs read back as doubles in logical order, and compared with a
 * reference by relative L2 error (gdt_verify.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cuda.h"
#include "gdt_verify.h"

void gdt_outputs_free(gdt_outputs *o)
{
    if (!o)
        return;
    for (int i = 0; i < 4; i++)
        free(o->data[i]);
    memset(o, 0, sizeof *o);
}

static void to_logical(const gdt_problem *p, gdt_operand_role r, const void *raw, double *v)
{
    int64_t d[4], s[4], i = 0;
    gdt_dtype t = gdt_operand_dtype(p, r);
    gdt__operand_geometry(p, r, d, s);
    for (int64_t a = 0; a < d[0]; a++)
        for (int64_t b = 0; b < d[1]; b++)
            for (int64_t c = 0; c < d[2]; c++)
                for (int64_t x = 0; x < d[3]; x++)
                    v[i++] = gdt__dtype_load(t, raw, a * s[0] + b * s[1] + c * s[2] + x * s[3]);
}

static gdt_status copy_back(void *dst, const void *src, size_t n, gdt_error *e)
{
    GDT_CHECK_CUDA(e, cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost));
    return GDT_STATUS_OK;
}

static gdt_status read_one(const gdt_buffers *b, gdt_outputs *out, int i, gdt_error *e)
{
    gdt_operand_role r = out->role[i];
    size_t bytes = b->ops.bytes[r];
    out->count[i] = gdt__operand_count(&b->problem, r);
    out->data[i] = malloc(sizeof(double) * (out->count[i] ? out->count[i] : 1));
    void *raw = malloc(bytes ? bytes : 1);
    gdt_error ce;
    gdt_status st = !out->data[i] || !raw ? GDT_STATUS_NO_MEMORY : copy_back(raw, b->ops.ptr[r], bytes, &ce);
    if (st == GDT_STATUS_OK)
        to_logical(&b->problem, r, raw, out->data[i]);
    free(raw);
    if (st == GDT_STATUS_NO_MEMORY)
        return gdt_error_set(e, st, "outputs: reading %s: %zu bytes", gdt_operand_name(r), bytes);
    if (st != GDT_STATUS_OK)
        return gdt_error_set(e, st, "outputs: copying %s back: %s", gdt_operand_name(r), ce.msg);
    return GDT_STATUS_OK;
}

gdt_status gdt_outputs_read(const gdt_buffers *b, gdt_outputs *out, gdt_error *e)
{
    *out = (gdt_outputs){0};
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = 0, n = gdt_family_operands(b->problem.family, roles, &nout);
    /* Plans may run on any stream, blocking or not: drain them all. */
    GDT_CHECK_CUDA(e, cudaDeviceSynchronize());
    for (int i = 0; i < nout && i < 4; i++) {
        out->role[i] = roles[n - nout + i];
        out->n = i + 1;
        gdt_status st = read_one(b, out, i, e);
        if (st != GDT_STATUS_OK) {
            gdt_outputs_free(out);
            return st;
        }
    }
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ compare */

typedef struct diff {
    double err;          /* relative L2 error, NaN when any element is not finite */
    size_t bad;          /* elements NaN or infinite where the reference is not the same */
    size_t first_bad;
} diff;

/* Equal values (infinities included: a fully masked row's log-sum-exp is
 * -inf on both sides) contribute nothing; any other non-finite pair makes the
 * error NaN.  A zero reference norm falls back to the absolute error. */
static diff rel_l2(const double *got, const double *ref, size_t n)
{
    diff d = {0.0, 0, 0};
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (got[i] == ref[i]) {
            den += isfinite(ref[i]) ? ref[i] * ref[i] : 0.0;
            continue;
        }
        if (!isfinite(got[i]) || !isfinite(ref[i])) {
            if (!d.bad++)
                d.first_bad = i;
            continue;
        }
        num += (got[i] - ref[i]) * (got[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    d.err = d.bad ? NAN : den > 0.0 ? sqrt(num / den) : sqrt(num);
    return d;
}

static int find_role(const gdt_outputs *o, gdt_operand_role r)
{
    for (int i = 0; i < o->n; i++)
        if (o->role[i] == r)
            return i;
    return -1;
}

/* Appends one failure to the message. */
static void note(char *msg, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(char *msg, size_t cap, const char *fmt, ...)
{
    size_t used = strlen(msg);
    if (used + 3 >= cap)
        return;
    if (used)
        strcpy(msg + used, "; "), used += 2;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + used, cap - used, fmt, ap);
    va_end(ap);
}

static void judge(const gdt_problem *p, gdt_operand_role r, const double *got, const double *ref,
                  size_t n, double bound, double *err, char *msg, size_t cap)
{
    diff d = rel_l2(got, ref, n);
    *err = d.err;
    const char *dt = gdt_dtype_name(p->family == GDT_FAMILY_GEMM ? p->u.gemm.dtype : p->u.sdpa.dtype);
    if (d.bad)
        note(msg, cap, "%s: %zu of %zu elements NaN or infinite (first at logical index %zu: got %g, "
                       "expected %g); bound %.3g (%s)",
             gdt_operand_name(r), d.bad, n, d.first_bad, got[d.first_bad], ref[d.first_bad], bound, dt);
    else if (!(d.err <= bound))
        note(msg, cap, "%s: relative L2 error %.3g exceeds the %s bound %.3g", gdt_operand_name(r),
             d.err, dt, bound);
}

gdt_status gdt_outputs_compare(const gdt_problem *p, const gdt_outputs *got, const gdt_outputs *ref,
                               double err[4], gdt_error *e)
{
    gdt_dtype dt = p->family == GDT_FAMILY_GEMM ? p->u.gemm.dtype : p->u.sdpa.dtype;
    double bound = gdt_dtype_tolerance(dt);
    char msg[GDT_ERROR_MAX - 64] = "";
    for (int i = 0; i < 4; i++)
        err[i] = 0.0;
    for (int i = 0; i < ref->n && i < 4; i++) {
        int g = find_role(got, ref->role[i]);
        if (g < 0 || got->count[g] != ref->count[i])
            return gdt_error_set(e, GDT_STATUS_INTERNAL,
                                 "compare: output %s: reference has %zu elements, result has %zu",
                                 gdt_operand_name(ref->role[i]), ref->count[i],
                                 g < 0 ? (size_t)0 : got->count[g]);
        judge(p, ref->role[i], got->data[g], ref->data[i], ref->count[i], bound, &err[i], msg, sizeof msg);
    }
    if (msg[0])
        return gdt_error_set(e, GDT_STATUS_INCORRECT, "%s", msg);
    return GDT_STATUS_OK;
}
