/* fp64 CPU references for gemm, sdpa_fwd and sdpa_bwd on a buffers' host
 * inputs (gdt_verify.h).  Plain loops over dense logical copies: the inputs
 * are read through their strides once, so the inner loops are unit-stride.
 * Independent items (GEMM row blocks, SDPA heads or KV groups) are spread
 * over the machine's cores: the CI machine has 2, the GPU machine 16. */
#include <math.h>
#include <stdlib.h>

#include "gdt_verify.h"

/* A dense double copy of an operand in logical order (NULL when out of
 * memory). */
static double *load_logical(const gdt_problem *p, gdt_operand_role r, const void *host)
{
    double *v = malloc(sizeof *v * gdt__operand_count(p, r));
    if (v)
        gdt__operand_to_logical(p, r, host, v);
    return v;
}

/* ------------------------------------------------------------- gemm */

typedef struct gemm_job {
    const gdt_gemm_desc *g;
    const double *a, *b;
    double *c;
} gemm_job;

/* Rows are taken ROWS at a time and B in KB x JB blocks, so a block of B
 * (256 KiB) stays in cache while every row of the item streams over it. */
enum { ROWS = 32, KB = 128, JB = 256 };

/* Four rows at once: each element of B loaded once feeds four rows. */
static void rows4(const gdt_gemm_desc *g, const double *A, const double *B, double *C, int64_t i,
                  int64_t k0, int64_t k1, int64_t j0, int64_t j1)
{
    double *restrict r0 = C + i * g->n, *restrict r1 = r0 + g->n, *restrict r2 = r1 + g->n,
                     *restrict r3 = r2 + g->n;
    for (int64_t k = k0; k < k1; k++) {
        double a0 = A[i * g->k + k], a1 = A[(i + 1) * g->k + k], a2 = A[(i + 2) * g->k + k],
               a3 = A[(i + 3) * g->k + k];
        const double *restrict brow = B + k * g->n;
        for (int64_t j = j0; j < j1; j++) {
            double bj = brow[j];
            r0[j] += a0 * bj;
            r1[j] += a1 * bj;
            r2[j] += a2 * bj;
            r3[j] += a3 * bj;
        }
    }
}

static void gemm_item(const void *ctx, int64_t item)
{
    const gemm_job *x = ctx;
    const gdt_gemm_desc *g = x->g;
    int64_t blocks = (g->m + ROWS - 1) / ROWS, bt = item / blocks, i0 = (item % blocks) * ROWS;
    int64_t i1 = i0 + ROWS < g->m ? i0 + ROWS : g->m;
    const double *A = x->a + bt * g->m * g->k, *B = x->b + bt * g->k * g->n;
    double *C = x->c + bt * g->m * g->n;
    for (int64_t j0 = 0; j0 < g->n; j0 += JB) {
        int64_t j1 = j0 + JB < g->n ? j0 + JB : g->n;
        for (int64_t k0 = 0; k0 < g->k; k0 += KB) {
            int64_t k1 = k0 + KB < g->k ? k0 + KB : g->k;
            int64_t i = i0;
            for (; i + 4 <= i1; i += 4)
                rows4(g, A, B, C, i, k0, k1, j0, j1);
            for (; i < i1; i++)
                for (int64_t k = k0; k < k1; k++) {
                    double aik = A[i * g->k + k];
                    for (int64_t j = j0; j < j1; j++)
                        C[i * g->n + j] += aik * B[k * g->n + j];
                }
        }
    }
}

/* c arrives zeroed (calloc). */
static void gemm_ref(const gdt_gemm_desc *g, const double *a, const double *b, double *c)
{
    gemm_job x = {g, a, b, c};
    gdt__parallel_for(g->batch * ((g->m + ROWS - 1) / ROWS), gemm_item, &x);
}

/* ------------------------------------------------------------- sdpa */

/* Keys [0, limit) that query row i may attend to.  Top-left: j <= i;
 * bottom-right aligns the last query with the last key: j <= i + s_kv - s_q. */
int64_t gdt__sdpa_key_limit(const gdt_sdpa_desc *s, int64_t i)
{
    int64_t lim = s->s_kv;
    if (s->causal == GDT_CAUSAL_TOP_LEFT)
        lim = i + 1;
    else if (s->causal == GDT_CAUSAL_BOTTOM_RIGHT)
        lim = i + 1 + s->s_kv - s->s_q;
    return lim < 0 ? 0 : lim > s->s_kv ? s->s_kv : lim;
}

/* Four partial sums: independent chains the CPU can overlap. */
static double dot(const double *x, const double *y, int64_t n)
{
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a0 += x[i] * y[i];
        a1 += x[i + 1] * y[i + 1];
        a2 += x[i + 2] * y[i + 2];
        a3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++)
        a0 += x[i] * y[i];
    return (a0 + a1) + (a2 + a3);
}

/* Offsets of one (batch, query head) pair's rows in the dense copies. */
typedef struct head_view {
    int64_t q, kv; /* element offsets of row 0 */
} head_view;

static head_view head_at(const gdt_sdpa_desc *s, int64_t bb, int64_t hq)
{
    int64_t hkv = hq / (s->h_q / s->h_kv);
    return (head_view){((bb * s->h_q + hq) * s->s_q) * s->d, ((bb * s->h_kv + hkv) * s->s_kv) * s->d};
}

/* One query row: O row and natural-log log-sum-exp of the scaled scores,
 * by online softmax (the running maximum rescales what was summed), so no
 * row of scores is stored. */
static void fwd_row(const gdt_sdpa_desc *s, const double *q, const double *k, const double *v,
                    int64_t lim, double *o, double *lse)
{
    double mx = -INFINITY, sum = 0.0;
    for (int64_t c = 0; c < s->d; c++)
        o[c] = 0.0;
    for (int64_t j = 0; j < lim; j++) {
        double sc = s->scale * dot(q, k + j * s->d, s->d);
        if (sc > mx) {
            double r = exp(mx - sc);
            sum *= r;
            for (int64_t c = 0; c < s->d; c++)
                o[c] *= r;
            mx = sc;
        }
        double pj = exp(sc - mx);
        sum += pj;
        for (int64_t c = 0; c < s->d; c++)
            o[c] += pj * v[j * s->d + c];
    }
    if (lim == 0) { /* fully masked row: nothing to average */
        *lse = -INFINITY;
        return;
    }
    for (int64_t c = 0; c < s->d; c++)
        o[c] /= sum;
    *lse = mx + log(sum);
}

typedef struct fwd_job {
    const gdt_sdpa_desc *s;
    const double *q, *k, *v;
    double *o, *stats;
} fwd_job;

/* Item: one (batch, query head). */
static void fwd_item(const void *ctx, int64_t item)
{
    const fwd_job *x = ctx;
    const gdt_sdpa_desc *s = x->s;
    head_view hv = head_at(s, item / s->h_q, item % s->h_q);
    for (int64_t i = 0; i < s->s_q; i++)
        fwd_row(s, x->q + hv.q + i * s->d, x->k + hv.kv, x->v + hv.kv, gdt__sdpa_key_limit(s, i),
                x->o + hv.q + i * s->d, x->stats + item * s->s_q + i);
}

static void sdpa_fwd_ref(const gdt_sdpa_desc *s, const double *q, const double *k, const double *v,
                         double *o, double *stats)
{
    fwd_job x = {s, q, k, v, o, stats};
    gdt__parallel_for(s->b * s->h_q, fwd_item, &x);
}

typedef struct bwd_in {
    const double *q, *k, *v, *o, *dout, *stats;
} bwd_in;

typedef struct bwd_out {
    double *dq, *dk, *dv;
} bwd_out;

/* One query row of the backward: P recomputed from the given log-sum-exp,
 * dS = P (dP - D) with D = rowsum(dO * O); dK and dV accumulate over every
 * query row (and every query head of a GQA group). */
static void bwd_row(const gdt_sdpa_desc *s, const bwd_in *in, const bwd_out *out, head_view hv,
                    int64_t i, double lse)
{
    int64_t d = s->d, lim = gdt__sdpa_key_limit(s, i);
    const double *qi = in->q + hv.q + i * d, *doi = in->dout + hv.q + i * d;
    double *dqi = out->dq + hv.q + i * d;
    double D = dot(doi, in->o + hv.q + i * d, d);
    for (int64_t j = 0; j < lim; j++) {
        const double *kj = in->k + hv.kv + j * d, *vj = in->v + hv.kv + j * d;
        double p = exp(s->scale * dot(qi, kj, d) - lse);
        double ds = p * (dot(doi, vj, d) - D) * s->scale;
        double *dkj = out->dk + hv.kv + j * d, *dvj = out->dv + hv.kv + j * d;
        for (int64_t c = 0; c < d; c++) {
            dqi[c] += ds * kj[c];
            dkj[c] += ds * qi[c];
            dvj[c] += p * doi[c];
        }
    }
}

typedef struct bwd_job {
    const gdt_sdpa_desc *s;
    const bwd_in *in;
    const bwd_out *out;
} bwd_job;

/* Item: one (batch, KV head) with every query head of its group, so that
 * no two threads accumulate into the same dK or dV rows. */
static void bwd_item(const void *ctx, int64_t item)
{
    const bwd_job *x = ctx;
    const gdt_sdpa_desc *s = x->s;
    int64_t group = s->h_q / s->h_kv, bb = item / s->h_kv, hkv = item % s->h_kv;
    for (int64_t h = hkv * group; h < (hkv + 1) * group; h++) {
        head_view hv = head_at(s, bb, h);
        const double *lse = x->in->stats + (bb * s->h_q + h) * s->s_q;
        for (int64_t i = 0; i < s->s_q; i++)
            if (isfinite(lse[i]))
                bwd_row(s, x->in, x->out, hv, i, lse[i]);
    }
}

static void sdpa_bwd_ref(const gdt_sdpa_desc *s, const bwd_in *in, const bwd_out *out)
{
    bwd_job x = {s, in, out};
    gdt__parallel_for(s->b * s->h_kv, bwd_item, &x);
}

/* ------------------------------------------------------------ driver */

static gdt_status alloc_outputs(const gdt_problem *p, gdt_outputs *out, gdt_error *e)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = gdt_family_outputs(p->family, roles);
    for (int i = 0; i < nout; i++) {
        out->role[i] = roles[i];
        out->count[i] = gdt__operand_count(p, out->role[i]);
        out->data[i] = calloc(out->count[i] ? out->count[i] : 1, sizeof(double));
        out->n = i + 1;
        if (!out->data[i])
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "reference: %s: %zu doubles",
                                 gdt_operand_name(out->role[i]), out->count[i]);
    }
    return GDT_STATUS_OK;
}

/* Dense inputs, indexed by role; all NULL-checked by the caller. */
static gdt_status load_inputs(const gdt_buffers *b, double *in[GDT_OPERAND_COUNT], gdt_error *e)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = 0, n = gdt_family_operands(b->problem.family, roles, &nout);
    for (int i = 0; i < n - nout; i++) {
        gdt_operand_role r = roles[i];
        if (!b->host[r])
            return gdt_error_set(e, GDT_STATUS_INTERNAL, "reference: no host copy of input %s",
                                 gdt_operand_name(r));
        if (!(in[r] = load_logical(&b->problem, r, b->host[r])))
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "reference: out of memory loading %s",
                                 gdt_operand_name(r));
    }
    return GDT_STATUS_OK;
}

static double *out_of(const gdt_outputs *o, gdt_operand_role r)
{
    for (int i = 0; i < o->n; i++)
        if (o->role[i] == r)
            return o->data[i];
    return NULL;
}

static void run_gemm(const gdt_problem *p, double *in[GDT_OPERAND_COUNT], const gdt_outputs *out)
{
    gemm_ref(&p->u.gemm, in[GDT_OPERAND_A], in[GDT_OPERAND_B], out_of(out, GDT_OPERAND_C));
}

static void run_sdpa_fwd(const gdt_problem *p, double *in[GDT_OPERAND_COUNT], const gdt_outputs *out)
{
    sdpa_fwd_ref(&p->u.sdpa, in[GDT_OPERAND_Q], in[GDT_OPERAND_K], in[GDT_OPERAND_V],
                 out_of(out, GDT_OPERAND_O), out_of(out, GDT_OPERAND_STATS));
}

static void run_sdpa_bwd(const gdt_problem *p, double *in[GDT_OPERAND_COUNT], const gdt_outputs *out)
{
    bwd_in bi = {in[GDT_OPERAND_Q], in[GDT_OPERAND_K], in[GDT_OPERAND_V],
                 in[GDT_OPERAND_O], in[GDT_OPERAND_DO], in[GDT_OPERAND_STATS]};
    bwd_out bo = {out_of(out, GDT_OPERAND_DQ), out_of(out, GDT_OPERAND_DK), out_of(out, GDT_OPERAND_DV)};
    sdpa_bwd_ref(&p->u.sdpa, &bi, &bo);
}

/* The head grouping divides: a query head's KV head is hq / (h_q / h_kv). */
static gdt_status check_sdpa(const gdt_problem *p, gdt_error *e)
{
    const gdt_sdpa_desc *s = &p->u.sdpa;
    if (s->h_kv <= 0 || s->h_q % s->h_kv)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "reference: h_q=%lld is not a multiple of h_kv=%lld",
                             (long long)s->h_q, (long long)s->h_kv);
    return GDT_STATUS_OK;
}

/* The reference of each family, and what it needs of the problem beyond
 * the FLOP cap (optional). */
static const struct {
    gdt_status (*check)(const gdt_problem *p, gdt_error *e);
    void (*run)(const gdt_problem *p, double *in[GDT_OPERAND_COUNT], const gdt_outputs *out);
} references[] = {
    [GDT_FAMILY_GEMM] = {NULL, run_gemm},
    [GDT_FAMILY_SDPA_FWD] = {check_sdpa, run_sdpa_fwd},
    [GDT_FAMILY_SDPA_BWD] = {check_sdpa, run_sdpa_bwd},
};
_Static_assert(sizeof references / sizeof references[0] == GDT_FAMILY_COUNT,
               "reference table and family enum disagree");

gdt_status gdt_reference_cpu(const gdt_buffers *b, double max_flops, gdt_outputs *out, gdt_error *e)
{
    *out = (gdt_outputs){0};
    const gdt_problem *p = &b->problem;
    if ((unsigned)p->family >= GDT_FAMILY_COUNT)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "reference: unknown family %d", (int)p->family);
    double flops = gdt_problem_flops(p);
    if (flops > max_flops)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "reference: %s problem of %.3g FLOP exceeds the CPU reference cap %.3g",
                             gdt_family_name(p->family), flops, max_flops);
    gdt_status st = references[p->family].check ? references[p->family].check(p, e) : GDT_STATUS_OK;
    if (st != GDT_STATUS_OK)
        return st;
    double *in[GDT_OPERAND_COUNT] = {0};
    st = load_inputs(b, in, e);
    if (st == GDT_STATUS_OK)
        st = alloc_outputs(p, out, e);
    if (st == GDT_STATUS_OK)
        references[p->family].run(p, in, out);
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        free(in[r]);
    if (st != GDT_STATUS_OK)
        gdt_outputs_free(out);
    return st;
}
