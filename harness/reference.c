/* fp64 CPU references for gemm, sdpa_fwd and sdpa_bwd on a buffers' host
 * inputs (gdt_verify.h).  Plain loops over dense logical copies: the inputs
 * are read through their strides once, so the inner loops are unit-stride. */
#include <math.h>
#include <stdlib.h>

#include "gdt_verify.h"

/* A dense double copy of an operand in logical order (NULL when out of
 * memory). */
static double *load_logical(const gdt_problem *p, gdt_operand_role r, const void *host)
{
    int64_t d[4], s[4], i = 0;
    gdt_dtype t = gdt_operand_dtype(p, r);
    gdt__operand_geometry(p, r, d, s);
    double *v = malloc(sizeof *v * (size_t)(d[0] * d[1] * d[2] * d[3]));
    if (!v)
        return NULL;
    for (int64_t a = 0; a < d[0]; a++)
        for (int64_t b = 0; b < d[1]; b++)
            for (int64_t c = 0; c < d[2]; c++)
                for (int64_t x = 0; x < d[3]; x++)
                    v[i++] = gdt__dtype_load(t, host, a * s[0] + b * s[1] + c * s[2] + x * s[3]);
    return v;
}

/* ------------------------------------------------------------- gemm */

static void gemm_ref(const gdt_gemm_desc *g, const double *a, const double *b, double *c)
{
    for (int64_t bt = 0; bt < g->batch; bt++) {
        const double *A = a + bt * g->m * g->k, *B = b + bt * g->k * g->n;
        double *C = c + bt * g->m * g->n;
        for (int64_t i = 0; i < g->m; i++) {
            double *row = C + i * g->n;
            for (int64_t j = 0; j < g->n; j++)
                row[j] = 0.0;
            for (int64_t k = 0; k < g->k; k++) {
                double aik = A[i * g->k + k];
                const double *brow = B + k * g->n;
                for (int64_t j = 0; j < g->n; j++)
                    row[j] += aik * brow[j];
            }
        }
    }
}

/* ------------------------------------------------------------- sdpa */

/* Keys [0, limit) that query row i may attend to.  Top-left: j <= i;
 * bottom-right aligns the last query with the last key: j <= i + s_kv - s_q. */
static int64_t key_limit(const gdt_sdpa_desc *s, int64_t i)
{
    int64_t lim = s->s_kv;
    if (s->causal == GDT_CAUSAL_TOP_LEFT)
        lim = i + 1;
    else if (s->causal == GDT_CAUSAL_BOTTOM_RIGHT)
        lim = i + 1 + s->s_kv - s->s_q;
    return lim < 0 ? 0 : lim > s->s_kv ? s->s_kv : lim;
}

static double dot(const double *x, const double *y, int64_t n)
{
    double acc = 0.0;
    for (int64_t i = 0; i < n; i++)
        acc += x[i] * y[i];
    return acc;
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

/* One query row: O row and natural-log log-sum-exp of the scaled scores. */
static void fwd_row(const gdt_sdpa_desc *s, const double *q, const double *k, const double *v,
                    int64_t lim, double *scores, double *o, double *lse)
{
    double mx = -INFINITY, sum = 0.0;
    for (int64_t j = 0; j < lim; j++) {
        scores[j] = s->scale * dot(q, k + j * s->d, s->d);
        mx = scores[j] > mx ? scores[j] : mx;
    }
    for (int64_t c = 0; c < s->d; c++)
        o[c] = 0.0;
    if (lim == 0) { /* fully masked row: nothing to average */
        *lse = -INFINITY;
        return;
    }
    for (int64_t j = 0; j < lim; j++) {
        double pj = exp(scores[j] - mx);
        sum += pj;
        for (int64_t c = 0; c < s->d; c++)
            o[c] += pj * v[j * s->d + c];
    }
    for (int64_t c = 0; c < s->d; c++)
        o[c] /= sum;
    *lse = mx + log(sum);
}

static void sdpa_fwd_ref(const gdt_sdpa_desc *s, const double *q, const double *k, const double *v,
                         double *o, double *stats, double *scores)
{
    for (int64_t bb = 0; bb < s->b; bb++)
        for (int64_t h = 0; h < s->h_q; h++) {
            head_view hv = head_at(s, bb, h);
            int64_t srow = (bb * s->h_q + h) * s->s_q;
            for (int64_t i = 0; i < s->s_q; i++)
                fwd_row(s, q + hv.q + i * s->d, k + hv.kv, v + hv.kv, key_limit(s, i), scores,
                        o + hv.q + i * s->d, stats + srow + i);
        }
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
    int64_t d = s->d, lim = key_limit(s, i);
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

static void sdpa_bwd_ref(const gdt_sdpa_desc *s, const bwd_in *in, const bwd_out *out)
{
    for (int64_t bb = 0; bb < s->b; bb++)
        for (int64_t h = 0; h < s->h_q; h++) {
            head_view hv = head_at(s, bb, h);
            const double *lse = in->stats + (bb * s->h_q + h) * s->s_q;
            for (int64_t i = 0; i < s->s_q; i++)
                if (isfinite(lse[i]))
                    bwd_row(s, in, out, hv, i, lse[i]);
        }
}

/* ------------------------------------------------------------ driver */

static gdt_status alloc_outputs(const gdt_problem *p, gdt_outputs *out, gdt_error *e)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = 0, n = gdt_family_operands(p->family, roles, &nout);
    for (int i = 0; i < nout; i++) {
        out->role[i] = roles[n - nout + i];
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

static gdt_status run(const gdt_problem *p, double *in[GDT_OPERAND_COUNT], gdt_outputs *out, gdt_error *e)
{
    if (p->family == GDT_FAMILY_GEMM) {
        gemm_ref(&p->u.gemm, in[GDT_OPERAND_A], in[GDT_OPERAND_B], out_of(out, GDT_OPERAND_C));
        return GDT_STATUS_OK;
    }
    const gdt_sdpa_desc *s = &p->u.sdpa;
    if (p->family == GDT_FAMILY_SDPA_BWD) {
        bwd_in bi = {in[GDT_OPERAND_Q], in[GDT_OPERAND_K], in[GDT_OPERAND_V],
                     in[GDT_OPERAND_O], in[GDT_OPERAND_DO], in[GDT_OPERAND_STATS]};
        bwd_out bo = {out_of(out, GDT_OPERAND_DQ), out_of(out, GDT_OPERAND_DK), out_of(out, GDT_OPERAND_DV)};
        sdpa_bwd_ref(s, &bi, &bo);
        return GDT_STATUS_OK;
    }
    double *scores = malloc(sizeof(double) * (size_t)s->s_kv);
    if (!scores)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "reference: score row of %lld",
                             (long long)s->s_kv);
    sdpa_fwd_ref(s, in[GDT_OPERAND_Q], in[GDT_OPERAND_K], in[GDT_OPERAND_V],
                 out_of(out, GDT_OPERAND_O), out_of(out, GDT_OPERAND_STATS), scores);
    free(scores);
    return GDT_STATUS_OK;
}

gdt_status gdt_reference_cpu(const gdt_buffers *b, double max_flops, gdt_outputs *out, gdt_error *e)
{
    *out = (gdt_outputs){0};
    const gdt_problem *p = &b->problem;
    double flops = gdt_problem_flops(p);
    if (flops > max_flops)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "reference: %s problem of %.3g FLOP exceeds the CPU reference cap %.3g",
                             gdt_family_name(p->family), flops, max_flops);
    if (p->family == GDT_FAMILY_SDPA_FWD || p->family == GDT_FAMILY_SDPA_BWD) {
        const gdt_sdpa_desc *s = &p->u.sdpa;
        if (s->h_kv <= 0 || s->h_q % s->h_kv)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "reference: h_q=%lld is not a multiple of h_kv=%lld",
                                 (long long)s->h_q, (long long)s->h_kv);
    }
    double *in[GDT_OPERAND_COUNT] = {0};
    gdt_status st = load_inputs(b, in, e);
    if (st == GDT_STATUS_OK)
        st = alloc_outputs(p, out, e);
    if (st == GDT_STATUS_OK)
        st = run(p, in, out, e);
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        free(in[r]);
    if (st != GDT_STATUS_OK)
        gdt_outputs_free(out);
    return st;
}
