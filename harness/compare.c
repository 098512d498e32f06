/* Outputs read back as doubles in logical order, and compared with a
 * reference by relative L2 error (gdt_verify.h).
 *
 * The sweep verifies every plan of a cell against one reference, and a GEMM
 * cell's C can hold 235M elements (16384 x 14336).  Converting each plan's
 * output to a malloc'd double array and comparing it on one core with a
 * double reference (1.9 GB each) cost seconds per plan, more than measuring
 * it.  gdt_verifier keeps the reference as the device held it (its dtype and
 * strides, so lossless and 4 bytes or fewer an element) or, for the small
 * fp64 CPU reference, as logical doubles; it copies each plan's output into
 * one host buffer reused for the whole cell (pinned when possible); and both
 * paths compare in chunks of logical elements spread over every core, whose
 * sums are added in chunk order, so the error does not depend on the
 * number of threads. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cuda.h"
#include "gdt_util.h"
#include "gdt_verify.h"

void gdt_outputs_free(gdt_outputs *o)
{
    if (!o)
        return;
    for (int i = 0; i < 4; i++)
        free(o->data[i]);
    memset(o, 0, sizeof *o);
}

/* Plans may run on any stream, blocking or not: drain them all. */
static gdt_status drain(gdt_error *e)
{
    GDT_CHECK_CUDA(e, cudaDeviceSynchronize());
    return GDT_STATUS_OK;
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
        gdt__operand_to_logical(&b->problem, r, raw, out->data[i]);
    free(raw);
    if (st == GDT_STATUS_NO_MEMORY)
        return gdt_error_set(e, st, "outputs: reading %s: %zu bytes", gdt_operand_name(r), bytes);
    if (st != GDT_STATUS_OK)
        return gdt_error_set(e, st, "outputs: copying %s back: %s", gdt_operand_name(r), ce.msg);
    return GDT_STATUS_OK;
}

/* The output roles of a problem's family, in family order. */
static int output_roles(gdt_family f, gdt_operand_role out[4])
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int n = gdt_family_outputs(f, roles), k = 0;
    for (; k < n && k < 4; k++)
        out[k] = roles[k];
    return k;
}

gdt_status gdt_outputs_read(const gdt_buffers *b, gdt_outputs *out, gdt_error *e)
{
    *out = (gdt_outputs){0};
    gdt_operand_role roles[4];
    int nout = output_roles(b->problem.family, roles);
    /* Plans may run on any stream, blocking or not: drain them all. */
    GDT_CHECK_CUDA(e, cudaDeviceSynchronize());
    for (int i = 0; i < nout; i++) {
        out->role[i] = roles[i];
        out->n = i + 1;
        gdt_status st = read_one(b, out, i, e);
        if (st != GDT_STATUS_OK) {
            gdt_outputs_free(out);
            return st;
        }
    }
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ relative L2 */

/* One side of a comparison: an array in an operand's device format, read
 * at the stride offset of each logical element, or logical doubles. */
typedef struct side {
    const void *base;
    gdt_dtype t;
    bool logical;
} side;

/* What one chunk of logical elements contributes. */
typedef struct part {
    double num[4], den[4]; /* by logical index mod 4 (block_sums) */
    size_t bad;          /* elements NaN or infinite where the reference is not the same */
    size_t first_bad;    /* logical index */
    double got_bad, ref_bad;
} part;

/* At most this many chunks (sums kept on the stack); at least this many
 * elements in one, so that a small output is not split across threads. */
enum { MAX_CHUNKS = 1024, MIN_CHUNK = 1 << 14 };

typedef struct cmp_job {
    side got, ref;
    int64_t d[4], s[4];
    size_t n, chunk;
    part *parts;
} cmp_job;

static inline double bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline double load(const side *sd, size_t i, int64_t off)
{
    if (sd->logical)
        return ((const double *)sd->base)[i];
    if (sd->t == GDT_DTYPE_FP32)
        return ((const float *)sd->base)[off];
    if (sd->t == GDT_DTYPE_BF16)
        return bf16(((const uint16_t *)sd->base)[off]);
    return gdt__dtype_load(sd->t, sd->base, off);
}

/* One pair.  Finite pairs add (g - r)^2 and r^2 (equal ones r^2 alone, as
 * their difference is 0); equal infinities (a fully masked row's
 * log-sum-exp is -inf on both sides) contribute nothing; any other
 * non-finite pair is counted bad. */
static inline void pair(part *pt, double a, double b, size_t idx, double *num, double *den)
{
    if (isfinite(a) && isfinite(b)) {
        *num += (a - b) * (a - b);
        *den += b * b;
    } else if (!(a == b) && !pt->bad++) {
        pt->first_bad = idx, pt->got_bad = a, pt->ref_bad = b;
    }
}

/* Sums over len loaded pairs from logical index i, into four sums per
 * quantity by logical index mod 4: one chain of dependent adds would bound
 * the loop at one element per add latency, and tying the four to the
 * logical index keeps the result independent of how a chunk is cut into
 * rows and blocks. */
static void block_sums(part *pt, const double *g, const double *r, size_t i, size_t len)
{
    size_t k = 0;
    for (; k < len && (i + k) % 4; k++)
        pair(pt, g[k], r[k], i + k, &pt->num[(i + k) % 4], &pt->den[(i + k) % 4]);
    double n0 = pt->num[0], n1 = pt->num[1], n2 = pt->num[2], n3 = pt->num[3];
    double d0 = pt->den[0], d1 = pt->den[1], d2 = pt->den[2], d3 = pt->den[3];
    for (; k + 4 <= len; k += 4) {
        pair(pt, g[k], r[k], i + k, &n0, &d0);
        pair(pt, g[k + 1], r[k + 1], i + k + 1, &n1, &d1);
        pair(pt, g[k + 2], r[k + 2], i + k + 2, &n2, &d2);
        pair(pt, g[k + 3], r[k + 3], i + k + 3, &n3, &d3);
    }
    pt->num[0] = n0, pt->num[1] = n1, pt->num[2] = n2, pt->num[3] = n3;
    pt->den[0] = d0, pt->den[1] = d1, pt->den[2] = d2, pt->den[3] = d3;
    for (; k < len; k++)
        pair(pt, g[k], r[k], i + k, &pt->num[(i + k) % 4], &pt->den[(i + k) % 4]);
}

enum { BLOCK = 512 };

/* len elements of one innermost row from logical index i, stride offset
 * off, loaded BLOCK at a time.  The common pairings get their own loads:
 * they are most of a comparison's time, and a 235M-element output is
 * compared per plan. */
static void row(const side *g, const side *r, size_t i, int64_t off, int64_t st, size_t len,
                part *pt)
{
    if (g->logical && r->logical) {
        block_sums(pt, (const double *)g->base + i, (const double *)r->base + i, i, len);
        return;
    }
    bool same = !g->logical && !r->logical && g->t == r->t;
    double ga[BLOCK], ra[BLOCK];
    for (size_t k0 = 0; k0 < len; k0 += BLOCK) {
        size_t n = len - k0 < BLOCK ? len - k0 : BLOCK;
        int64_t o = off + (int64_t)k0 * st;
        if (same && g->t == GDT_DTYPE_BF16 && st == 1) { /* unit stride: vectorized */
            const uint16_t *a = (const uint16_t *)g->base + o, *b = (const uint16_t *)r->base + o;
            for (size_t k = 0; k < n; k++)
                ga[k] = bf16(a[k]), ra[k] = bf16(b[k]);
        } else if (same && g->t == GDT_DTYPE_BF16) {
            const uint16_t *a = g->base, *b = r->base;
            for (size_t k = 0; k < n; k++, o += st)
                ga[k] = bf16(a[o]), ra[k] = bf16(b[o]);
        } else if (same && g->t == GDT_DTYPE_FP32) {
            const float *a = g->base, *b = r->base;
            for (size_t k = 0; k < n; k++, o += st)
                ga[k] = a[o], ra[k] = b[o];
        } else {
            for (size_t k = 0; k < n; k++, o += st)
                ga[k] = load(g, i + k0 + k, o), ra[k] = load(r, i + k0 + k, o);
        }
        block_sums(pt, ga, ra, i + k0, n);
    }
}

/* Chunk k: logical elements [k * chunk, ...), walked through the strides
 * with a carry from the innermost dimension out. */
static void cmp_chunk(const void *ctx, int64_t k)
{
    const cmp_job *j = ctx;
    size_t i0 = (size_t)k * j->chunk, i1 = i0 + j->chunk < j->n ? i0 + j->chunk : j->n;
    int64_t c[4], rest = (int64_t)i0, off = 0;
    for (int a = 3; a >= 0; a--) {
        c[a] = rest % j->d[a], rest /= j->d[a];
        off += c[a] * j->s[a];
    }
    part pt = {0};
    for (size_t i = i0; i < i1;) {
        /* the rest of an innermost row at once, then the carry */
        size_t run = (size_t)(j->d[3] - c[3]) < i1 - i ? (size_t)(j->d[3] - c[3]) : i1 - i;
        row(&j->got, &j->ref, i, off, j->s[3], run, &pt);
        off += (int64_t)run * j->s[3];
        i += run, c[3] += (int64_t)run;
        for (int a = 3; a > 0 && c[a] == j->d[a]; a--) {
            c[a] = 0, c[a - 1]++;
            off += j->s[a - 1] - j->d[a] * j->s[a];
        }
    }
    j->parts[k] = pt;
}

/* The same logical order with as long an innermost run as possible: dims
 * of 1 dropped (a GEMM's C is (batch, row, col, 1)) and a dim merged into
 * the one inside it when they are contiguous, right-aligned in 4 slots. */
static void coalesce(const int64_t d[4], const int64_t s[4], int64_t od[4], int64_t os[4])
{
    int n = 0;
    int64_t cd[4], cs[4];
    for (int a = 0; a < 4; a++) {
        if (d[a] == 1)
            continue;
        if (n && cs[n - 1] == d[a] * s[a])
            cd[n - 1] *= d[a], cs[n - 1] = s[a];
        else
            cd[n] = d[a], cs[n] = s[a], n++;
    }
    for (int a = 0; a < 4; a++) {
        int from = a - (4 - n);
        od[a] = from >= 0 ? cd[from] : 1;
        os[a] = from >= 0 ? cs[from] : 0;
    }
}

/* The error, NaN when any element is bad; a zero reference norm falls back
 * to the absolute error. */
static part rel_l2(const side *got, const side *ref, const int64_t d[4], const int64_t s[4],
                   size_t n, double *err)
{
    part parts[MAX_CHUNKS], sum = {0};
    double num = 0.0, den = 0.0;
    size_t chunk = (n + MAX_CHUNKS - 1) / MAX_CHUNKS;
    chunk = chunk < MIN_CHUNK ? MIN_CHUNK : chunk;
    cmp_job j = {.got = *got, .ref = *ref, .n = n, .chunk = chunk, .parts = parts};
    coalesce(d, s, j.d, j.s);
    int64_t nchunks = n ? (int64_t)((n + chunk - 1) / chunk) : 0;
    gdt__parallel_for(nchunks, cmp_chunk, &j);
    for (int64_t k = 0; k < nchunks; k++) {
        if (parts[k].bad && !sum.bad)
            sum.first_bad = parts[k].first_bad, sum.got_bad = parts[k].got_bad,
            sum.ref_bad = parts[k].ref_bad;
        num += (parts[k].num[0] + parts[k].num[1]) + (parts[k].num[2] + parts[k].num[3]);
        den += (parts[k].den[0] + parts[k].den[1]) + (parts[k].den[2] + parts[k].den[3]);
        sum.bad += parts[k].bad;
    }
    *err = sum.bad ? NAN : den > 0.0 ? sqrt(num / den) : sqrt(num);
    return sum;
}

/* ------------------------------------------------------------ judgement */

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

static void judge(const gdt_problem *p, gdt_operand_role r, const part *d, double err, size_t n,
                  char *msg, size_t cap)
{
    gdt_dtype dt = gdt_problem_dtype(p);
    double bound = gdt_dtype_tolerance(dt);
    if (d->bad)
        note(msg, cap, "%s: %zu of %zu elements NaN or infinite (first at logical index %zu: got %g, "
                       "expected %g); bound %.3g (%s)",
             gdt_operand_name(r), d->bad, n, d->first_bad, d->got_bad, d->ref_bad, bound,
             gdt_dtype_name(dt));
    else if (!(err <= bound))
        note(msg, cap, "%s: relative L2 error %.3g exceeds the %s bound %.3g", gdt_operand_name(r),
             err, gdt_dtype_name(dt), bound);
}

static const int64_t FLAT_D[4] = {1, 1, 1, 1}, FLAT_S[4] = {0, 0, 0, 1};

gdt_status gdt_outputs_compare(const gdt_problem *p, const gdt_outputs *got, const gdt_outputs *ref,
                               double err[4], gdt_error *e)
{
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
        side gs = {got->data[g], GDT_DTYPE_FP32, true}, rs = {ref->data[i], GDT_DTYPE_FP32, true};
        int64_t d[4] = {FLAT_D[0], FLAT_D[1], FLAT_D[2], (int64_t)ref->count[i]};
        part sum = rel_l2(&gs, &rs, d, FLAT_S, ref->count[i], &err[i]);
        judge(p, ref->role[i], &sum, err[i], ref->count[i], msg, sizeof msg);
    }
    if (msg[0])
        return gdt_error_set(e, GDT_STATUS_INCORRECT, "%s", msg);
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ verifier */

struct gdt_verifier {
    gdt_problem problem;
    int n;
    gdt_operand_role role[4];
    size_t count[4];
    gdt_dtype dtype[4];
    int64_t dims[4][4], strides[4][4];
    void *ref[4];          /* device format (span bytes) or logical doubles */
    bool ref_logical[4];
    void *stage;           /* one output's span, reused by every check */
    size_t stage_bytes;
    bool pinned;
};

void gdt_verifier_destroy(gdt_verifier *v)
{
    if (!v)
        return;
    for (int i = 0; i < 4; i++)
        free(v->ref[i]);
    if (v->pinned)
        cudaFreeHost(v->stage);
    else
        free(v->stage);
    free(v);
}

static gdt_status pin(void **p, size_t n, gdt_error *e)
{
    GDT_CHECK_CUDA(e, cudaMallocHost(p, n));
    return GDT_STATUS_OK;
}

/* The staging buffer: pinned memory copies back at full bus speed; plain
 * memory when pinning fails (only slower). */
static gdt_status verifier_alloc(const gdt_buffers *b, gdt_verifier **out, gdt_error *e)
{
    gdt_verifier *v = calloc(1, sizeof *v);
    if (!v)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "verifier: out of memory");
    v->problem = b->problem;
    v->n = output_roles(b->problem.family, v->role);
    for (int i = 0; i < v->n; i++) {
        size_t bytes = b->ops.bytes[v->role[i]];
        v->count[i] = gdt__operand_count(&b->problem, v->role[i]);
        v->dtype[i] = gdt_operand_dtype(&b->problem, v->role[i]);
        gdt__operand_geometry(&b->problem, v->role[i], v->dims[i], v->strides[i]);
        v->stage_bytes = bytes > v->stage_bytes ? bytes : v->stage_bytes;
    }
    gdt_error pe;
    v->pinned = pin(&v->stage, v->stage_bytes ? v->stage_bytes : 1, &pe) == GDT_STATUS_OK;
    if (!v->pinned)
        v->stage = malloc(v->stage_bytes ? v->stage_bytes : 1);
    *out = v;
    if (!v->stage)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "verifier: staging %zu bytes", v->stage_bytes);
    return GDT_STATUS_OK;
}

static gdt_status keep_device(gdt_verifier *v, const gdt_buffers *b, int i, gdt_error *e)
{
    gdt_operand_role r = v->role[i];
    size_t bytes = b->ops.bytes[r];
    gdt_error ce;
    if (!(v->ref[i] = malloc(bytes ? bytes : 1)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "verifier: reference %s: %zu bytes",
                             gdt_operand_name(r), bytes);
    if (copy_back(v->ref[i], b->ops.ptr[r], bytes, &ce) != GDT_STATUS_OK)
        return gdt_error_set(e, ce.status, "verifier: copying reference %s back: %s",
                             gdt_operand_name(r), ce.msg);
    return GDT_STATUS_OK;
}

static gdt_status keep_logical(gdt_verifier *v, const gdt_outputs *ref, int i, gdt_error *e)
{
    int g = find_role(ref, v->role[i]);
    if (g < 0 || ref->count[g] != v->count[i])
        return gdt_error_set(e, GDT_STATUS_INTERNAL,
                             "compare: output %s: reference has %zu elements, result has %zu",
                             gdt_operand_name(v->role[i]), g < 0 ? (size_t)0 : ref->count[g], v->count[i]);
    size_t bytes = sizeof(double) * v->count[i];
    if (!(v->ref[i] = malloc(bytes ? bytes : 1)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "verifier: reference %s: %zu bytes",
                             gdt_operand_name(v->role[i]), bytes);
    memcpy(v->ref[i], ref->data[g], bytes);
    v->ref_logical[i] = true;
    return GDT_STATUS_OK;
}

/* A verifier of b's outputs, each output's reference kept from the device
 * (device: b's outputs as they are once the device drains) or from ref. */
static gdt_status verifier_make(const gdt_buffers *b, bool device, const gdt_outputs *ref, gdt_verifier **out,
                                gdt_error *e)
{
    *out = NULL;
    gdt_verifier *v = NULL;
    gdt_status st = verifier_alloc(b, &v, e);
    if (st == GDT_STATUS_OK && device)
        st = drain(e);
    for (int i = 0; st == GDT_STATUS_OK && i < v->n; i++)
        st = device ? keep_device(v, b, i, e) : keep_logical(v, ref, i, e);
    return GDT_CREATED(st, v, gdt_verifier_destroy, out);
}

gdt_status gdt_verifier_create_device(const gdt_buffers *b, gdt_verifier **out, gdt_error *e)
{
    return verifier_make(b, true, NULL, out, e);
}

gdt_status gdt_verifier_create(const gdt_buffers *b, const gdt_outputs *ref, gdt_verifier **out,
                               gdt_error *e)
{
    return verifier_make(b, false, ref, out, e);
}

/* The device-format reference is read at b's stride offsets: b's outputs
 * must have the reference's dtype, dims and strides. */
static bool same_layout(const gdt_verifier *v, const gdt_buffers *b)
{
    if (b->problem.family != v->problem.family)
        return false;
    for (int i = 0; i < v->n; i++) {
        int64_t d[4], s[4];
        gdt__operand_geometry(&b->problem, v->role[i], d, s);
        if (memcmp(d, v->dims[i], sizeof d) || memcmp(s, v->strides[i], sizeof s) ||
            gdt_operand_dtype(&b->problem, v->role[i]) != v->dtype[i] ||
            b->ops.bytes[v->role[i]] > v->stage_bytes)
            return false;
    }
    return true;
}

/* One output: its span copied into the staging buffer, compared through
 * the strides of b's problem. */
static gdt_status check_one(gdt_verifier *v, const gdt_buffers *b, int i, double *err, char *msg,
                            size_t cap, gdt_error *e)
{
    gdt_operand_role r = v->role[i];
    gdt_error ce;
    if (copy_back(v->stage, b->ops.ptr[r], b->ops.bytes[r], &ce) != GDT_STATUS_OK)
        return gdt_error_set(e, ce.status, "outputs: copying %s back: %s", gdt_operand_name(r), ce.msg);
    side gs = {v->stage, v->dtype[i], false}, rs = {v->ref[i], v->dtype[i], v->ref_logical[i]};
    part sum = rel_l2(&gs, &rs, v->dims[i], v->strides[i], v->count[i], err);
    judge(&b->problem, r, &sum, *err, v->count[i], msg, cap);
    return GDT_STATUS_OK;
}

gdt_status gdt_verifier_check(gdt_verifier *v, const gdt_buffers *b, double err[4], int *nerr,
                              gdt_error *e)
{
    char msg[GDT_ERROR_MAX - 64] = "";
    for (int i = 0; i < 4; i++)
        err[i] = 0.0;
    *nerr = v->n;
    if (!same_layout(v, b))
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "verifier: the %s outputs' dtype, dims or "
                             "strides differ from the reference's", gdt_family_name(b->problem.family));
    gdt_status st = drain(e);
    for (int i = 0; i < v->n && st == GDT_STATUS_OK; i++)
        st = check_one(v, b, i, &err[i], msg, sizeof msg, e);
    if (st != GDT_STATUS_OK)
        return st;
    if (msg[0])
        return gdt_error_set(e, GDT_STATUS_INCORRECT, "%s", msg);
    return GDT_STATUS_OK;
}
