/* Problem buffers: device memory for every operand, random inputs from a
 * seed, host copies, poisoned outputs and trial state (gdt_verify.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cuda.h"
#include "gdt_util.h"
#include "gdt_verify.h"

/* ---------------------------------------------------------- geometry */

/* Bytes spanned: the furthest element reached through the strides, + 1. */
static size_t span_bytes(const gdt_problem *p, gdt_operand_role r)
{
    int64_t d[4], s[4], last = 0;
    if (!gdt__operand_geometry(p, r, d, s))
        return 0;
    for (int i = 0; i < 4; i++)
        last += (d[i] - 1) * (s[i] < 0 ? -s[i] : s[i]);
    size_t mine = (size_t)(last + 1) * gdt_dtype_size(gdt_operand_dtype(p, r));
    size_t theirs = gdt_operand_bytes(p, r);
    return mine > theirs ? mine : theirs;
}

/* ------------------------------------------------------------ random */

/* Counter-based: element i of a stream is a pure function of (key, i), so
 * the fill splits across threads and gives the same data on any machine. */
static uint64_t mix(uint64_t key, uint64_t i)
{
    uint64_t z = key + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform_at(uint64_t key, uint64_t i) { return (double)(mix(key, i) >> 11) * 0x1p-53; }

/* Box-Muller over pairs (2j, 2j+1): cosine for the even element, sine for
 * the odd; log's argument is never 0. */
static double normal_at(uint64_t key, uint64_t i)
{
    uint64_t pair = i >> 1;
    double r = sqrt(-2.0 * log(1.0 - uniform_at(key, 2 * pair)));
    double a = 6.283185307179586 * uniform_at(key, 2 * pair + 1);
    return r * (i & 1 ? sin(a) : cos(a));
}

enum { FILL_CHUNK = 1 << 16 };

typedef struct fill_job {
    gdt_dtype t;
    bool uniform;
    uint64_t key;
    void *host;
    int64_t n;
} fill_job;

static void fill_item(const void *ctx, int64_t item)
{
    const fill_job *x = ctx;
    int64_t end = (item + 1) * FILL_CHUNK < x->n ? (item + 1) * FILL_CHUNK : x->n;
    for (int64_t i = item * FILL_CHUNK; i < end; i++) {
        double v = x->uniform ? 2.0 * uniform_at(x->key, (uint64_t)i) - 1.0 : normal_at(x->key, (uint64_t)i);
        if (v == 0.0)
            v = 0x1p-8; /* never an exact zero */
        gdt__dtype_store(x->t, x->host, i, v);
    }
}

static void fill_random(const gdt_problem *p, gdt_operand_role r, bool uniform, void *host, size_t bytes,
                        uint64_t seed)
{
    gdt_dtype t = gdt_operand_dtype(p, r);
    fill_job x = {t, uniform, seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(r + 1)), host,
                  (int64_t)(bytes / gdt_dtype_size(t))};
    gdt__parallel_for((x.n + FILL_CHUNK - 1) / FILL_CHUNK, fill_item, &x);
}

/* -------------------------------------------------- sdpa_bwd inputs */

typedef struct approx_job {
    const gdt_problem *p;
    gdt_buffers *b;
    uint64_t key;
    int64_t str[4];
} approx_job;

/* Item: one (batch, query head). */
static void approx_item(const void *ctx, int64_t x)
{
    const approx_job *j = ctx;
    const gdt_sdpa_desc *s = &j->p->u.sdpa;
    double var = s->scale * s->scale * (double)s->d;
    float *stats = j->b->host[GDT_OPERAND_STATS];
    const int64_t *str = j->str;
    for (int64_t i = 0; i < s->s_q; i++) {
        int64_t k = gdt__sdpa_key_limit(s, i), n = x * s->s_q + i;
        stats[n] = k ? (float)(log((double)k) + var / 2) : -INFINITY;
        double mag = k ? 1.0 / sqrt((double)k) : 0.0;
        for (int64_t c = 0; c < s->d; c++)
            gdt__dtype_store(s->dtype, j->b->host[GDT_OPERAND_O],
                             (x / s->h_q) * str[0] + (x % s->h_q) * str[1] + i * str[2] + c * str[3],
                             mag * normal_at(j->key, (uint64_t)(n * s->d + c)));
    }
}

/* Large shapes: the expected log-sum-exp of unit-variance scores scaled by
 * scale*sqrt(d), and O of the magnitude an average of that many V rows has. */
static void approx_forward(const gdt_problem *p, gdt_buffers *b, uint64_t seed)
{
    approx_job j = {p, b, seed ^ 0x5EED0, {0}};
    int64_t d[4];
    gdt__operand_geometry(p, GDT_OPERAND_O, d, j.str);
    gdt__parallel_for(p->u.sdpa.b * p->u.sdpa.h_q, approx_item, &j);
}

static gdt_status consistent_forward(gdt_buffers *b, uint64_t seed, gdt_error *e)
{
    gdt_problem fwd = b->problem;
    fwd.family = GDT_FAMILY_SDPA_FWD;
    if (gdt_problem_flops(&fwd) > GDT_BUFFERS_EXACT_FWD_FLOPS) {
        approx_forward(&b->problem, b, seed);
        return GDT_STATUS_OK;
    }
    gdt_buffers tmp = *b;
    tmp.problem = fwd;
    gdt_outputs o;
    gdt_status st = gdt_reference_cpu(&tmp, GDT_BUFFERS_EXACT_FWD_FLOPS, &o, e);
    if (st != GDT_STATUS_OK)
        return st;
    gdt__operand_from_logical(&b->problem, GDT_OPERAND_O, b->host[GDT_OPERAND_O], o.data[0]);
    gdt__operand_from_logical(&b->problem, GDT_OPERAND_STATS, b->host[GDT_OPERAND_STATS], o.data[1]);
    gdt_outputs_free(&o);
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------ create/destroy */

static gdt_status alloc_operand(gdt_buffers *b, gdt_operand_role r, gdt_error *e)
{
    size_t n = span_bytes(&b->problem, r);
    b->ops.bytes[r] = n;
    GDT_CHECK_CUDA(e, cudaMalloc(&b->ops.ptr[r], n));
    return GDT_STATUS_OK;
}

/* How each family's inputs are filled: GEMM uniform in [-1, 1]; SDPA
 * normal(0, 1), so that the scaled scores have unit variance and softmax is
 * far from one-hot; then, where given, the inputs that follow from others
 * (sdpa_bwd's O and Stats from its Q, K and V). */
static const struct {
    bool uniform;
    gdt_status (*derive)(gdt_buffers *b, uint64_t seed, gdt_error *e);
} fills[] = {
    [GDT_FAMILY_GEMM] = {true, NULL},
    [GDT_FAMILY_SDPA_FWD] = {false, NULL},
    [GDT_FAMILY_SDPA_BWD] = {false, consistent_forward},
};
_Static_assert(sizeof fills / sizeof fills[0] == GDT_FAMILY_COUNT, "fill table and family enum disagree");

static gdt_status fill_inputs(gdt_buffers *b, const gdt_operand_role *roles, int ninputs, uint64_t seed,
                              gdt_error *e)
{
    gdt_family f = b->problem.family;
    for (int i = 0; i < ninputs; i++) {
        gdt_operand_role r = roles[i];
        if (!(b->host[r] = malloc(b->ops.bytes[r])))
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "buffers: host copy of %s: %zu bytes",
                                 gdt_operand_name(r), b->ops.bytes[r]);
        fill_random(&b->problem, r, fills[f].uniform, b->host[r], b->ops.bytes[r], seed);
    }
    if (fills[f].derive) {
        gdt_status st = fills[f].derive(b, seed, e);
        if (st != GDT_STATUS_OK)
            return st;
    }
    for (int i = 0; i < ninputs; i++)
        GDT_CHECK_CUDA(e, cudaMemcpy(b->ops.ptr[roles[i]], b->host[roles[i]], b->ops.bytes[roles[i]],
                                     cudaMemcpyHostToDevice));
    return GDT_STATUS_OK;
}

static gdt_status buffers_init(gdt_buffers *b, uint64_t seed, gdt_error *e)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = 0, n = gdt_family_operands(b->problem.family, roles, &nout);
    gdt_status st;
    for (int i = 0; i < n; i++)
        if ((st = alloc_operand(b, roles[i], e)) != GDT_STATUS_OK)
            return st;
    if ((st = fill_inputs(b, roles, n - nout, seed, e)) != GDT_STATUS_OK)
        return st;
    if ((st = gdt_buffers_restore(b, NULL, e)) != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CUDA(e, cudaDeviceSynchronize());
    return GDT_STATUS_OK;
}

gdt_status gdt_buffers_create(const gdt_problem *p, uint64_t seed, gdt_buffers **out, gdt_error *e)
{
    *out = NULL;
    gdt_status st = gdt_problem_validate(p, e);
    if (st != GDT_STATUS_OK)
        return st;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)
        return gdt_error_set(e, GDT_STATUS_NO_DEVICE, "buffers: no CUDA device for %s buffers",
                             gdt_family_name(p->family));
    gdt_buffers *b = calloc(1, sizeof *b);
    if (!b)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "buffers: out of host memory");
    b->problem = *p;
    st = buffers_init(b, seed, e);
    return GDT_CREATED(st, b, gdt_buffers_destroy, out);
}

void gdt_buffers_destroy(gdt_buffers *b)
{
    if (!b)
        return;
    for (int r = 0; r < GDT_OPERAND_COUNT; r++) {
        if (b->ops.ptr[r])
            cudaFree(b->ops.ptr[r]);
        free(b->host[r]);
    }
    if (b->workspace)
        cudaFree(b->workspace);
    free(b);
}

gdt_status gdt_buffers_reserve_workspace(gdt_buffers *b, size_t n, gdt_error *e)
{
    if (n <= b->workspace_bytes)
        return GDT_STATUS_OK;
    if (b->workspace)
        GDT_CHECK_CUDA(e, cudaFree(b->workspace));
    b->workspace = NULL;
    b->workspace_bytes = 0;
    GDT_CHECK_CUDA(e, cudaMalloc(&b->workspace, n));
    b->workspace_bytes = n;
    GDT_CHECK_CUDA(e, cudaMemset(b->workspace, 0, n));
    /* Plans run on non-blocking streams, unordered with the legacy one. */
    GDT_CHECK_CUDA(e, cudaDeviceSynchronize());
    return GDT_STATUS_OK;
}

/* ------------------------------------------------- poison and restore */

static bool is_output(const gdt_problem *p, gdt_operand_role r)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    for (int i = 0, n = gdt_family_outputs(p->family, roles); i < n; i++)
        if (roles[i] == r)
            return true;
    return false;
}

gdt_status gdt_buffers_poison(gdt_buffers *b, void *stream, gdt_error *e)
{
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        if (b->ops.ptr[r] && is_output(&b->problem, (gdt_operand_role)r))
            GDT_CHECK_CUDA(e, cudaMemsetAsync(b->ops.ptr[r], 0xFF, b->ops.bytes[r], (cudaStream_t)stream));
    return GDT_STATUS_OK;
}

gdt_status gdt_buffers_restore(gdt_buffers *b, void *stream, gdt_error *e)
{
    gdt_status st = gdt_buffers_poison(b, stream, e);
    if (st != GDT_STATUS_OK)
        return st;
    if (b->workspace)
        GDT_CHECK_CUDA(e, cudaMemsetAsync(b->workspace, 0, b->workspace_bytes, (cudaStream_t)stream));
    return GDT_STATUS_OK;
}

gdt_status gdt_buffers_set_input(gdt_buffers *b, gdt_operand_role r, const void *host, size_t bytes,
                                 gdt_error *e)
{
    const char *name = (int)r >= 0 && r < GDT_OPERAND_COUNT ? gdt_operand_name(r) : "?";
    if ((int)r < 0 || r >= GDT_OPERAND_COUNT || !b->host[r])
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "buffers: %s is not an input of %s", name,
                             gdt_family_name(b->problem.family));
    if (bytes != b->ops.bytes[r])
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "buffers: %s: expected %zu bytes, got %zu", name,
                             b->ops.bytes[r], bytes);
    memcpy(b->host[r], host, bytes);
    GDT_CHECK_CUDA(e, cudaMemcpy(b->ops.ptr[r], host, bytes, cudaMemcpyHostToDevice));
    /* A pageable copy may return before its DMA lands; plans run on
     * non-blocking streams. */
    GDT_CHECK_CUDA(e, cudaDeviceSynchronize());
    return GDT_STATUS_OK;
}

gdt_status gdt_buffers_set_input_logical(gdt_buffers *b, gdt_operand_role r, const double *logical,
                                         size_t count, gdt_error *e)
{
    bool bound = (int)r >= 0 && r < GDT_OPERAND_COUNT;
    if (!bound || !b->host[r])
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "buffers: %s is not an input of %s",
                             bound ? gdt_operand_name(r) : "?", gdt_family_name(b->problem.family));
    if (count != gdt__operand_count(&b->problem, r))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "buffers: %s: expected %zu elements, got %zu",
                             gdt_operand_name(r), gdt__operand_count(&b->problem, r), count);
    unsigned char *copy = malloc(b->ops.bytes[r]);
    if (!copy)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "buffers: %s: %zu bytes", gdt_operand_name(r),
                             b->ops.bytes[r]);
    memcpy(copy, b->host[r], b->ops.bytes[r]); /* gaps between strided rows keep their bytes */
    gdt__operand_from_logical(&b->problem, r, copy, logical);
    gdt_status st = gdt_buffers_set_input(b, r, copy, b->ops.bytes[r], e);
    free(copy);
    return st;
}
