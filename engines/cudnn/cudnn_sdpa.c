/* SDPA -> backend graphs (cudnn-backend.md §3), mirroring cudnn-frontend's
 * lowerings op for op: the fused-attention engines pattern-match the graph,
 * so operand order, dtypes (P and dS retyped to the IO type before their
 * matmuls) and rank 4 everywhere (scalars too) follow FE exactly.
 *
 * Logical tensors are BHSD; the memory layout (BHSD or BSHD) is only in
 * the strides.  K and V are handed over transposed by swapping the last two
 * dims and strides of the same memory. */
#include <math.h>
#include <string.h>

#include "cudnn/gdt_cudnn.h"

enum {
    UID_Q = 1, UID_K, UID_V, UID_O, UID_STATS, UID_DO, UID_DQ, UID_DK, UID_DV,
    UID_SCALE, UID_NEGINF, UID_SEQ_KV, UID_SEQ_Q, UID_ONE, UID_SSUM, UID_DQACC
};

typedef cudnnBackendDescriptor_t desc;

/* Builder state with a sticky status: once a step fails, later steps do
 * nothing and return NULL, so a lowering reads as straight-line code. */
typedef struct sdpa {
    gdt__cudnn_graph *g;
    const gdt_sdpa_desc *d;
    cudnnDataType_t io;
    int64_t sc[4], row[4]; /* score {b,h_q,s_q,s_kv}, row {b,h_q,s_q,1} */
    desc scale, neginf, seq_kv, seq_q;
    gdt_status s;
    gdt_error *e;
} sdpa;

static const cudnnDataType_t F32 = CUDNN_DATA_FLOAT;

static void packed(const int64_t dim[4], int64_t str[4])
{
    str[3] = 1;
    for (int i = 2; i >= 0; i--)
        str[i] = str[i + 1] * dim[i + 1];
}

static desc tensor(sdpa *c, int64_t uid, cudnnDataType_t dt, const int64_t dim[4],
                   const int64_t str[4], unsigned flags)
{
    desc t = NULL;
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_tensor(c->g, uid, dt, 4, dim, str, flags, &t, c->e);
    return c->s == GDT_STATUS_OK ? t : NULL;
}

static desc virt(sdpa *c, cudnnDataType_t dt, const int64_t dim[4])
{
    int64_t str[4];
    packed(dim, str);
    return tensor(c, 0, dt, dim, str, GDT__T_VIRTUAL);
}

/* A non-virtual packed tensor with a uid (Stats, scratch). */
static desc real(sdpa *c, int64_t uid, cudnnDataType_t dt, const int64_t dim[4])
{
    int64_t str[4];
    packed(dim, str);
    return tensor(c, uid, dt, dim, str, 0);
}

static desc scalar(sdpa *c, int64_t uid, cudnnDataType_t dt)
{
    static const int64_t one[4] = {1, 1, 1, 1};
    return tensor(c, uid, dt, one, one, GDT__T_BY_VALUE);
}

/* [b, h, s, d] tensor with the caller's strides; transposed swaps the last
 * two dims and strides (KT, VT). */
static desc operand(sdpa *c, int64_t uid, int64_t h, int64_t s, const int64_t str[4], bool transposed,
                    unsigned flags)
{
    int64_t dim[4] = {c->d->b, h, s, c->d->d}, st[4];
    memcpy(st, str, sizeof st);
    if (transposed) {
        dim[2] = c->d->d, dim[3] = s;
        st[2] = str[3], st[3] = str[2];
    }
    return tensor(c, uid, c->io, dim, st, flags);
}

static desc pw_to(sdpa *c, cudnnPointwiseMode_t mode, cudnnDataType_t prec, int64_t axis, desc x,
                  desc b, desc t, desc y)
{
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_pointwise(c->g, mode, prec, axis, x, b, t, y, c->e);
    return c->s == GDT_STATUS_OK ? y : NULL;
}

static desc pw(sdpa *c, cudnnPointwiseMode_t mode, desc x, desc b, const int64_t dim[4])
{
    return pw_to(c, mode, F32, -1, x, b, NULL, virt(c, F32, dim));
}

static desc mm_to(sdpa *c, desc a, desc b, desc y)
{
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_matmul(c->g, a, b, y, c->e);
    return c->s == GDT_STATUS_OK ? y : NULL;
}

static desc red_to(sdpa *c, cudnnReduceTensorOp_t op, desc x, desc y)
{
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_reduction(c->g, op, x, y, c->e);
    return c->s == GDT_STATUS_OK ? y : NULL;
}

static desc reshape_to(sdpa *c, desc x, desc y)
{
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_reshape(c->g, x, y, c->e);
    return c->s == GDT_STATUS_OK ? y : NULL;
}

static void bind(sdpa *c, int64_t uid, gdt_operand_role r)
{
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_bind_operand(c->g, uid, r, c->e);
}

static void start(sdpa *c, gdt__cudnn_graph *g, const gdt_sdpa_desc *d, gdt_error *e)
{
    memset(c, 0, sizeof *c);
    c->g = g, c->d = d, c->e = e;
    c->io = gdt__cudnn_dtype(d->dtype);
    int64_t sc[4] = {d->b, d->h_q, d->s_q, d->s_kv}, row[4] = {d->b, d->h_q, d->s_q, 1};
    memcpy(c->sc, sc, sizeof sc);
    memcpy(c->row, row, sizeof row);
    c->scale = scalar(c, UID_SCALE, F32);
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_bind_f32(g, UID_SCALE, (float)d->scale, e);
}

static bool shifted(const gdt_sdpa_desc *d)
{
    return d->causal == GDT_CAUSAL_BOTTOM_RIGHT && d->s_kv != d->s_q;
}

static void bind_i32(sdpa *c, int64_t uid, int64_t v)
{
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_bind_i32(c->g, uid, (int32_t)v, c->e);
}

/* Scalars the causal mask needs: -inf, and for bottom-right the two
 * sequence lengths (by-value int32, as cudnn-frontend passes them). */
static void mask_scalars(sdpa *c)
{
    if (c->d->causal == GDT_CAUSAL_NONE)
        return;
    c->neginf = scalar(c, UID_NEGINF, F32);
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_bind_f32(c->g, UID_NEGINF, -INFINITY, c->e);
    if (!shifted(c->d))
        return;
    c->seq_kv = scalar(c, UID_SEQ_KV, CUDNN_DATA_INT32);
    c->seq_q = scalar(c, UID_SEQ_Q, CUDNN_DATA_INT32);
    bind_i32(c, UID_SEQ_KV, c->d->s_kv);
    bind_i32(c, UID_SEQ_Q, c->d->s_q);
}

/* Causal mask as FE's composite diagonal band mask (right bound 0): keep
 * where row (+ s_kv - s_q for bottom-right) >= col, else -inf.  With
 * s_q == s_kv bottom-right is top-left, and takes its shorter graph. */
static desc causal_mask(sdpa *c, desc x)
{
    if (c->d->causal == GDT_CAUSAL_NONE)
        return x;
    const cudnnDataType_t I32 = CUDNN_DATA_INT32, BOOL = CUDNN_DATA_BOOLEAN;
    desc row = pw_to(c, CUDNN_POINTWISE_GEN_INDEX, F32, 2, x, NULL, NULL, virt(c, I32, c->sc));
    desc col = pw_to(c, CUDNN_POINTWISE_GEN_INDEX, F32, 3, x, NULL, NULL, virt(c, I32, c->sc));
    if (shifted(c->d)) {
        row = pw_to(c, CUDNN_POINTWISE_ADD, I32, 3, row, c->seq_kv, NULL, virt(c, I32, c->sc));
        row = pw_to(c, CUDNN_POINTWISE_SUB, I32, 3, row, c->seq_q, NULL, virt(c, I32, c->sc));
    }
    desc keep = pw_to(c, CUDNN_POINTWISE_CMP_GE, BOOL, -1, row, col, NULL, virt(c, BOOL, c->sc));
    return pw_to(c, CUDNN_POINTWISE_BINARY_SELECT, F32, -1, x, c->neginf, keep, virt(c, F32, c->sc));
}

/* --------------------------------------------------------------- forward */

/* K goes transposed (KT) to the composite graph, as is to the unified op. */
static void fwd_operands(sdpa *c, bool k_transposed, desc *q, desc *k, desc *v, desc *o, desc *stats)
{
    const gdt_sdpa_desc *d = c->d;
    *q = operand(c, UID_Q, d->h_q, d->s_q, d->q_stride, false, 0);
    *k = operand(c, UID_K, d->h_kv, d->s_kv, d->k_stride, k_transposed, 0);
    *v = operand(c, UID_V, d->h_kv, d->s_kv, d->v_stride, false, 0);
    *o = operand(c, UID_O, d->h_q, d->s_q, d->o_stride, false, 0);
    *stats = real(c, UID_STATS, F32, c->row);
    bind(c, UID_Q, GDT_OPERAND_Q);
    bind(c, UID_K, GDT_OPERAND_K);
    bind(c, UID_V, GDT_OPERAND_V);
    bind(c, UID_O, GDT_OPERAND_O);
    bind(c, UID_STATS, GDT_OPERAND_STATS);
}

/* 14 ops causal, 10 non-causal (+2 bottom-right with s_q != s_kv). */
gdt_status gdt__cudnn_sdpa_fwd_graph(gdt__cudnn_graph *g, const gdt_sdpa_desc *d, gdt_error *e)
{
    sdpa c;
    desc q, kt, v, o, stats;
    start(&c, g, d, e);
    mask_scalars(&c);
    fwd_operands(&c, true, &q, &kt, &v, &o, &stats);
    desc s = mm_to(&c, q, kt, virt(&c, F32, c.sc));
    desc s1 = pw(&c, CUDNN_POINTWISE_MUL, s, c.scale, c.sc);
    desc s2 = causal_mask(&c, s1);
    desc m = red_to(&c, CUDNN_REDUCE_TENSOR_MAX, s2, virt(&c, F32, c.row));
    desc t = pw(&c, CUDNN_POINTWISE_SUB, s2, m, c.sc);
    desc ex = pw(&c, CUDNN_POINTWISE_EXP, t, NULL, c.sc);
    desc z = red_to(&c, CUDNN_REDUCE_TENSOR_ADD, ex, virt(&c, F32, c.row));
    desc l = pw(&c, CUDNN_POINTWISE_LOG, z, NULL, c.row);
    pw_to(&c, CUDNN_POINTWISE_ADD, F32, -1, m, l, NULL, stats);
    desc p = pw_to(&c, CUDNN_POINTWISE_DIV, F32, -1, ex, z, NULL, virt(&c, c.io, c.sc));
    mm_to(&c, p, v, o);
    return c.s;
}

#if CUDNN_VERSION >= 91300
/* The single SDPA_FWD op (cuDNN >= 9.13): K untransposed, no mask. */
gdt_status gdt__cudnn_sdpa_fwd_unified_graph(gdt__cudnn_graph *g, const gdt_sdpa_desc *d, gdt_error *e)
{
    sdpa c;
    desc q, k, v, o, stats, op = NULL;
    start(&c, g, d, e);
    fwd_operands(&c, false, &q, &k, &v, &o, &stats);
    if (c.s != GDT_STATUS_OK)
        return c.s;
    gdt_status s = gdt__cudnn_desc(g, CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR, &op, e);
    if (s != GDT_STATUS_OK)
        return s;
    const struct { cudnnBackendAttributeName_t a; desc *t; } in[] = {
        {CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, &q},     {CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, &k},
        {CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, &v},     {CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, &o},
        {CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, &stats},
        {CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, &c.scale},
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        GDT_CHECK_CUDNN(e, cudnnBackendSetAttribute(op, in[i].a, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, in[i].t));
    GDT_CHECK_CUDNN(e, cudnnBackendFinalize(op));
    return gdt__cudnn_add_op(g, op, e);
}
#else
gdt_status gdt__cudnn_sdpa_fwd_unified_graph(gdt__cudnn_graph *g, const gdt_sdpa_desc *d, gdt_error *e)
{
    (void)g, (void)d;
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                         "cudnn: built against cuDNN %d headers: no unified SDPA_FWD op (needs 9.13)",
                         CUDNN_VERSION);
}
#endif

/* -------------------------------------------------------------- backward */

typedef struct bwd_io {
    desc q, kt, vt, o, stats, dO, dq, dk, dv, k;
} bwd_io;

static void bwd_operands(sdpa *c, bwd_io *t)
{
    const gdt_sdpa_desc *d = c->d;
    t->q = operand(c, UID_Q, d->h_q, d->s_q, d->q_stride, false, 0);
    t->kt = operand(c, UID_K, d->h_kv, d->s_kv, d->k_stride, true, 0);
    t->vt = operand(c, UID_V, d->h_kv, d->s_kv, d->v_stride, true, 0);
    t->o = operand(c, UID_O, d->h_q, d->s_q, d->o_stride, false, 0);
    t->dO = operand(c, UID_DO, d->h_q, d->s_q, d->o_stride, false, 0);
    t->stats = real(c, UID_STATS, F32, c->row);
    t->dq = operand(c, UID_DQ, d->h_q, d->s_q, d->q_stride, false, 0);
    t->dk = operand(c, UID_DK, d->h_kv, d->s_kv, d->k_stride, false, 0);
    t->dv = operand(c, UID_DV, d->h_kv, d->s_kv, d->v_stride, false, 0);
    static const struct { int64_t uid; gdt_operand_role r; } b[] = {
        {UID_Q, GDT_OPERAND_Q},   {UID_K, GDT_OPERAND_K},   {UID_V, GDT_OPERAND_V},
        {UID_O, GDT_OPERAND_O},   {UID_DO, GDT_OPERAND_DO}, {UID_STATS, GDT_OPERAND_STATS},
        {UID_DQ, GDT_OPERAND_DQ}, {UID_DK, GDT_OPERAND_DK}, {UID_DV, GDT_OPERAND_DV},
    };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        bind(c, b[i].uid, b[i].r);
}

/* P^T-shaped retype to the IO dtype: {b,h_q,s_kv,s_q} over the score's
 * packed memory (strides {h s_q s_kv, s_q s_kv, 1, s_kv}). */
static desc transposed_io(sdpa *c, desc x)
{
    const gdt_sdpa_desc *d = c->d;
    int64_t dim[4] = {d->b, d->h_q, d->s_kv, d->s_q};
    int64_t str[4] = {d->h_q * d->s_q * d->s_kv, d->s_q * d->s_kv, 1, d->s_kv};
    return reshape_to(c, x, tensor(c, 0, c->io, dim, str, GDT__T_VIRTUAL));
}

/* A gradient of K or V: straight into the output for MHA; for GQA a
 * full-head virtual tensor then a REDUCTION ADD over each head group. */
static void grad_kv(sdpa *c, desc a, desc b, desc out)
{
    const gdt_sdpa_desc *d = c->d;
    if (d->h_q == d->h_kv) {
        mm_to(c, a, b, out);
        return;
    }
    int64_t full[4] = {d->b, d->h_q, d->s_kv, d->d};
    desc f = mm_to(c, a, b, virt(c, c->io, full));
    red_to(c, CUDNN_REDUCE_TENSOR_ADD, f, out);
}

/* softmax_sum = rowsum(dO * O), an fp32 scratch tensor. */
static desc softmax_sum(sdpa *c, const bwd_io *t)
{
    int64_t od[4] = {c->d->b, c->d->h_q, c->d->s_q, c->d->d};
    desc one = scalar(c, UID_ONE, F32);
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_bind_f32(c->g, UID_ONE, 1.0f, c->e);
    desc t1 = pw(c, CUDNN_POINTWISE_MUL, t->dO, t->o, od);
    desc t2 = red_to(c, CUDNN_REDUCE_TENSOR_ADD, t1, virt(c, F32, c->row));
    desc ssum = real(c, UID_SSUM, F32, c->row);
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_bind_scratch(c->g, UID_SSUM, (size_t)(c->row[0] * c->row[1] * c->row[2]) * 4,
                                       c->e);
    return pw_to(c, CUDNN_POINTWISE_MUL, F32, -1, t2, one, NULL, ssum);
}

/* dQ = dS · K through the fp32 dQ_accum scratch tensor. */
static void grad_q(sdpa *c, const bwd_io *t, desc ds)
{
    const gdt_sdpa_desc *d = c->d;
    int64_t qd[4] = {d->b, d->h_q, d->s_q, d->d};
    desc k = reshape_to(c, t->kt, operand(c, 0, d->h_kv, d->s_kv, d->k_stride, false, GDT__T_VIRTUAL));
    desc acc = real(c, UID_DQACC, F32, qd);
    if (c->s == GDT_STATUS_OK)
        c->s = gdt__cudnn_bind_scratch(c->g, UID_DQACC, (size_t)(qd[0] * qd[1] * qd[2] * qd[3]) * 4, c->e);
    mm_to(c, ds, k, acc);
    pw_to(c, CUDNN_POINTWISE_IDENTITY, F32, -1, acc, NULL, NULL, t->dq);
}

/* 22 ops causal MHA (cudnn-backend.md §3.5); GQA adds two reductions. */
gdt_status gdt__cudnn_sdpa_bwd_graph(gdt__cudnn_graph *g, const gdt_sdpa_desc *d, gdt_error *e)
{
    sdpa c;
    bwd_io t;
    start(&c, g, d, e);
    mask_scalars(&c);
    bwd_operands(&c, &t);
    desc ssum = softmax_sum(&c, &t);
    desc s = mm_to(&c, t.q, t.kt, virt(&c, F32, c.sc));
    desc s1 = pw(&c, CUDNN_POINTWISE_MUL, s, c.scale, c.sc);
    desc s2 = pw(&c, CUDNN_POINTWISE_SUB, s1, t.stats, c.sc);
    desc s3 = causal_mask(&c, s2);
    desc p = pw(&c, CUDNN_POINTWISE_EXP, s3, NULL, c.sc);
    grad_kv(&c, transposed_io(&c, p), t.dO, t.dv);
    desc dp = mm_to(&c, t.dO, t.vt, virt(&c, F32, c.sc));
    desc a1 = pw(&c, CUDNN_POINTWISE_SUB, dp, ssum, c.sc);
    desc a2 = pw(&c, CUDNN_POINTWISE_MUL, a1, p, c.sc);
    desc ds = pw(&c, CUDNN_POINTWISE_MUL, a2, c.scale, c.sc);
    grad_kv(&c, transposed_io(&c, ds), t.q, t.dk);
    grad_q(&c, &t, ds);
    return c.s;
}
