/* The fp64 CPU references against hand-computed tiny cases, GQA against
 * replicated heads, a finite-difference check of the backward, and compare's
 * NaN / bound / message behaviour.  Then gdt_buffers_* and gdt_outputs_read
 * on a simulated device: this executable defines the CUDA runtime calls
 * buffers.c and compare.c make (device memory is host memory), which take
 * precedence over libcudart's; tests/gpu/test_verify.c runs the same on a
 * real one. */
#include <math.h>

#include <cuda_runtime.h>

#include "gdt_test.h"
#include "gdt_verify.h"

/* A host-only gdt_buffers: inputs written from logical values through the
 * problem's strides. */
static void put(gdt_buffers *b, gdt_operand_role r, const double *logical)
{
    int64_t d[4], s[4], last = 0, i = 0;
    gdt_dtype t = gdt_operand_dtype(&b->problem, r);
    gdt__operand_geometry(&b->problem, r, d, s);
    for (int k = 0; k < 4; k++)
        last += (d[k] - 1) * s[k];
    free(b->host[r]);
    b->host[r] = calloc((size_t)last + 1, gdt_dtype_size(t));
    for (int64_t x = 0; x < d[0]; x++)
        for (int64_t y = 0; y < d[1]; y++)
            for (int64_t z = 0; z < d[2]; z++)
                for (int64_t w = 0; w < d[3]; w++)
                    gdt__dtype_store(t, b->host[r], x * s[0] + y * s[1] + z * s[2] + w * s[3], logical[i++]);
}

static void drop(gdt_buffers *b)
{
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        free(b->host[r]), b->host[r] = NULL;
}

static const double *out(const gdt_outputs *o, gdt_operand_role r)
{
    for (int i = 0; i < o->n; i++)
        if (o->role[i] == r)
            return o->data[i];
    return NULL;
}


/* ------------------------------------------------------------- gemm */

static gdt_problem gemm(int64_t batch, int64_t m, int64_t n, int64_t k, bool b_col)
{
    gdt_problem p;
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    p.u.gemm.batch = batch, p.u.gemm.m = m, p.u.gemm.n = n, p.u.gemm.k = k;
    p.u.gemm.dtype = GDT_DTYPE_BF16;
    gdt_problem_set_strides(&p);
    if (b_col) /* B[k][n] column-major: unit stride down a column */
        p.u.gemm.b_stride[0] = k * n, p.u.gemm.b_stride[1] = 1, p.u.gemm.b_stride[2] = k;
    return p;
}

static void test_gemm_2x2(bool b_col)
{
    gdt_buffers b = {.problem = gemm(1, 2, 2, 2, b_col)};
    gdt_error e;
    gdt_outputs o;
    put(&b, GDT_OPERAND_A, (double[]){1, 2, 3, 4});
    put(&b, GDT_OPERAND_B, (double[]){5, 6, 7, 8});
    CHECK_INT(gdt_reference_cpu(&b, 1e9, &o, &e), ==, GDT_STATUS_OK);
    const double *c = out(&o, GDT_OPERAND_C);
    CHECK(c != NULL);
    if (c) {
        CHECK_NEAR(c[0], 19, 0); CHECK_NEAR(c[1], 22, 0);
        CHECK_NEAR(c[2], 43, 0); CHECK_NEAR(c[3], 50, 0);
    }
    CHECK_INT(o.count[0], ==, 4);
    gdt_outputs_free(&o);
    drop(&b);
}

static void test_gemm_batched_and_cap(void)
{
    gdt_buffers b = {.problem = gemm(2, 1, 1, 3, false)};
    gdt_error e;
    gdt_outputs o;
    put(&b, GDT_OPERAND_A, (double[]){1, 2, 3, -1, -2, -3});
    put(&b, GDT_OPERAND_B, (double[]){1, 1, 1, 2, 0, 1});
    CHECK_INT(gdt_reference_cpu(&b, 1e9, &o, &e), ==, GDT_STATUS_OK);
    CHECK_NEAR(o.data[0][0], 6, 0);
    CHECK_NEAR(o.data[0][1], -5, 0);
    gdt_outputs_free(&o);
    CHECK_INT(gdt_reference_cpu(&b, 5, &o, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "gemm problem of 12 FLOP exceeds the CPU reference cap 5");
    CHECK(o.n == 0 && o.data[0] == NULL);
    drop(&b);
}

/* ------------------------------------------------------------- sdpa */

static gdt_problem sdpa(gdt_family f, int64_t hq, int64_t hkv, int64_t sq, int64_t skv, int64_t d,
                        gdt_causal c, gdt_layout l, gdt_dtype t, double scale)
{
    gdt_problem p;
    gdt_problem_default(f, &p);
    gdt_sdpa_desc *s = &p.u.sdpa;
    s->b = 1, s->h_q = hq, s->h_kv = hkv, s->s_q = sq, s->s_kv = skv, s->d = d;
    s->causal = c, s->layout = l, s->dtype = t, s->scale = scale;
    gdt_problem_set_strides(&p);
    return p;
}

/* Q = K = identity rows, V = [[1,2],[3,4]], scale 1: row i scores e_i. */
static void run_s2(gdt_causal c, int64_t sq, gdt_outputs *o)
{
    gdt_buffers b = {.problem = sdpa(GDT_FAMILY_SDPA_FWD, 1, 1, sq, 2, 2, c, GDT_LAYOUT_BHSD,
                                     GDT_DTYPE_BF16, 1.0)};
    gdt_error e;
    put(&b, GDT_OPERAND_Q, sq == 2 ? (double[]){1, 0, 0, 1} : (double[]){0, 1});
    put(&b, GDT_OPERAND_K, (double[]){1, 0, 0, 1});
    put(&b, GDT_OPERAND_V, (double[]){1, 2, 3, 4});
    CHECK_INT(gdt_reference_cpu(&b, 1e9, o, &e), ==, GDT_STATUS_OK);
    drop(&b);
}

static void test_sdpa_s2(void)
{
    double E = exp(1.0), p0 = E / (E + 1), p1 = 1 / (E + 1);
    gdt_outputs o;
    run_s2(GDT_CAUSAL_NONE, 2, &o);
    const double *O = out(&o, GDT_OPERAND_O), *S = out(&o, GDT_OPERAND_STATS);
    CHECK_NEAR(O[0], p0 * 1 + p1 * 3, 1e-15); CHECK_NEAR(O[1], p0 * 2 + p1 * 4, 1e-15);
    CHECK_NEAR(O[2], p1 * 1 + p0 * 3, 1e-15); CHECK_NEAR(O[3], p1 * 2 + p0 * 4, 1e-15);
    CHECK_NEAR(S[0], log(E + 1), 1e-15); CHECK_NEAR(S[1], log(E + 1), 1e-15);
    gdt_outputs_free(&o);

    run_s2(GDT_CAUSAL_TOP_LEFT, 2, &o); /* row 0 sees key 0 only */
    O = out(&o, GDT_OPERAND_O), S = out(&o, GDT_OPERAND_STATS);
    CHECK_NEAR(O[0], 1, 1e-15); CHECK_NEAR(O[1], 2, 1e-15); CHECK_NEAR(S[0], 1.0, 1e-15);
    CHECK_NEAR(O[2], p1 * 1 + p0 * 3, 1e-15); CHECK_NEAR(S[1], log(E + 1), 1e-15);
    gdt_outputs_free(&o);

    /* s_q=1 < s_kv=2, query (0,1): top-left sees key 0 (score 0), bottom-right
     * aligns the last query with the last key and sees both. */
    run_s2(GDT_CAUSAL_TOP_LEFT, 1, &o);
    O = out(&o, GDT_OPERAND_O), S = out(&o, GDT_OPERAND_STATS);
    CHECK_NEAR(O[0], 1, 1e-15); CHECK_NEAR(O[1], 2, 1e-15); CHECK_NEAR(S[0], 0.0, 1e-15);
    gdt_outputs_free(&o);
    run_s2(GDT_CAUSAL_BOTTOM_RIGHT, 1, &o);
    O = out(&o, GDT_OPERAND_O), S = out(&o, GDT_OPERAND_STATS);
    CHECK_NEAR(O[0], p1 * 1 + p0 * 3, 1e-15); CHECK_NEAR(S[0], log(E + 1), 1e-15);
    gdt_outputs_free(&o);
}

/* Zero queries average the visible values uniformly, so Stats = log(keys
 * visible) spells out each mask: s_q=2, s_kv=3 and s_q=3, s_kv=2 (bottom-right
 * leaves row 0 with no key: O 0, Stats -inf). */
static void check_mask(gdt_causal c, int64_t sq, int64_t skv, const int *visible)
{
    gdt_buffers b = {.problem = sdpa(GDT_FAMILY_SDPA_FWD, 1, 1, sq, skv, 1, c, GDT_LAYOUT_BHSD,
                                     GDT_DTYPE_BF16, 1.0)};
    double zero[3] = {0, 0, 0}, v[3] = {1, 2, 4};
    gdt_outputs o;
    gdt_error e;
    put(&b, GDT_OPERAND_Q, zero), put(&b, GDT_OPERAND_K, v), put(&b, GDT_OPERAND_V, v);
    CHECK_INT(gdt_reference_cpu(&b, 1e9, &o, &e), ==, GDT_STATUS_OK);
    const double *O = out(&o, GDT_OPERAND_O), *S = out(&o, GDT_OPERAND_STATS);
    for (int i = 0; i < sq; i++) {
        double mean = 0;
        for (int j = 0; j < visible[i]; j++)
            mean += v[j] / visible[i];
        CHECK_NEAR(O[i], mean, 1e-15);
        if (visible[i])
            CHECK_NEAR(S[i], log((double)visible[i]), 1e-15);
        else
            CHECK(isinf(S[i]) && S[i] < 0);
    }
    gdt_outputs_free(&o);
    drop(&b);
}

static void test_masks(void)
{
    check_mask(GDT_CAUSAL_NONE, 2, 3, (int[]){3, 3});
    check_mask(GDT_CAUSAL_TOP_LEFT, 2, 3, (int[]){1, 2});
    check_mask(GDT_CAUSAL_BOTTOM_RIGHT, 2, 3, (int[]){2, 3});
    check_mask(GDT_CAUSAL_TOP_LEFT, 3, 2, (int[]){1, 2, 2});
    check_mask(GDT_CAUSAL_BOTTOM_RIGHT, 3, 2, (int[]){0, 1, 2});
}

/* Deterministic pseudo-random logical values. */
static void fill(double *v, int n, unsigned seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = ((double)((seed >> 8) & 0xFFFF) / 32768.0 - 1.0) * 1.5;
    }
}

/* Shapes past every blocking edge (row blocks of 32 and 4, K blocks of 128,
 * N blocks of 256) against a naive triple loop. */
static void test_gemm_blocked(void)
{
    enum { BT = 2, M = 37, N = 300, K = 150 };
    gdt_buffers b = {.problem = gemm(BT, M, N, K, true)};
    static double a[BT * M * K], bb[BT * K * N];
    fill(a, BT * M * K, 21), fill(bb, BT * K * N, 22);
    put(&b, GDT_OPERAND_A, a), put(&b, GDT_OPERAND_B, bb);
    gdt_outputs o;
    gdt_error e;
    CHECK_INT(gdt_reference_cpu(&b, 1e9, &o, &e), ==, GDT_STATUS_OK);
    double worst = 0;
    for (int t = 0; t < BT; t++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double want = 0; /* inputs as stored: bf16-rounded */
                for (int k = 0; k < K; k++)
                    want += gdt__dtype_load(GDT_DTYPE_BF16, b.host[GDT_OPERAND_A], (t * M + i) * K + k) *
                            gdt__dtype_load(GDT_DTYPE_BF16, b.host[GDT_OPERAND_B], t * K * N + j * K + k);
                double d = fabs(o.data[0][(t * M + i) * N + j] - want);
                worst = d > worst ? d : worst;
            }
    CHECK(worst < 1e-12);
    gdt_outputs_free(&o);
    drop(&b);
}

/* GQA (h_q=4, h_kv=2, BSHD layout) equals MHA with K and V heads replicated:
 * forward outputs equal, backward dK/dV equal the replicated heads' sums. */
static void test_gqa(gdt_family f)
{
    enum { SQ = 3, SKV = 5, D = 4, HQ = 4, HKV = 2 };
    gdt_buffers g = {.problem = sdpa(f, HQ, HKV, SQ, SKV, D, GDT_CAUSAL_BOTTOM_RIGHT, GDT_LAYOUT_BSHD,
                                     GDT_DTYPE_FP32, 0.6)};
    gdt_buffers m = {.problem = sdpa(f, HQ, HQ, SQ, SKV, D, GDT_CAUSAL_BOTTOM_RIGHT, GDT_LAYOUT_BHSD,
                                     GDT_DTYPE_FP32, 0.6)};
    double q[HQ * SQ * D], k[HKV * SKV * D], v[HKV * SKV * D], kr[HQ * SKV * D], vr[HQ * SKV * D];
    double o[HQ * SQ * D], dO[HQ * SQ * D], st[HQ * SQ];
    fill(q, HQ * SQ * D, 1), fill(k, HKV * SKV * D, 2), fill(v, HKV * SKV * D, 3);
    fill(o, HQ * SQ * D, 4), fill(dO, HQ * SQ * D, 5), fill(st, HQ * SQ, 6);
    for (int h = 0; h < HQ; h++)
        for (int i = 0; i < SKV * D; i++)
            kr[h * SKV * D + i] = k[(h / 2) * SKV * D + i], vr[h * SKV * D + i] = v[(h / 2) * SKV * D + i];
    for (int i = 0; i < HQ * SQ; i++)
        st[i] += 3.0; /* a plausible log-sum-exp magnitude */
    put(&g, GDT_OPERAND_Q, q), put(&g, GDT_OPERAND_K, k), put(&g, GDT_OPERAND_V, v);
    put(&m, GDT_OPERAND_Q, q), put(&m, GDT_OPERAND_K, kr), put(&m, GDT_OPERAND_V, vr);
    if (f == GDT_FAMILY_SDPA_BWD) {
        put(&g, GDT_OPERAND_O, o), put(&g, GDT_OPERAND_DO, dO), put(&g, GDT_OPERAND_STATS, st);
        put(&m, GDT_OPERAND_O, o), put(&m, GDT_OPERAND_DO, dO), put(&m, GDT_OPERAND_STATS, st);
    }
    gdt_outputs og, om;
    gdt_error e;
    CHECK_INT(gdt_reference_cpu(&g, 1e9, &og, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_reference_cpu(&m, 1e9, &om, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < og.n; i++) {
        gdt_operand_role r = og.role[i];
        bool kv = r == GDT_OPERAND_DK || r == GDT_OPERAND_DV;
        const double *a = og.data[i], *b = out(&om, r);
        CHECK_INT(og.count[i], ==, (size_t)(kv ? HKV * SKV * D : r == GDT_OPERAND_STATS ? HQ * SQ : HQ * SQ * D));
        for (size_t j = 0; j < og.count[i]; j++) {
            /* replicated heads 2h and 2h+1 sum into GQA head h */
            double want = kv ? b[(j / (SKV * D)) * 2 * SKV * D + j % (SKV * D)] +
                                   b[((j / (SKV * D)) * 2 + 1) * SKV * D + j % (SKV * D)]
                             : b[j];
            CHECK_NEAR(a[j], want, 1e-12);
        }
    }
    gdt_outputs_free(&og), gdt_outputs_free(&om);
    drop(&g), drop(&m);
}

/* ------------------------------------------- backward by finite difference */

enum { FB = 1, FHQ = 2, FHKV = 1, FSQ = 3, FSKV = 4, FD = 3 };

/* Loss L = sum(O * dO) of the fp64 forward on b's fp32 Q, K, V. */
static double loss(gdt_buffers *fwd, const double *dO)
{
    gdt_outputs o;
    gdt_error e;
    if (gdt_reference_cpu(fwd, 1e9, &o, &e) != GDT_STATUS_OK)
        return NAN;
    double l = 0.0;
    const double *O = out(&o, GDT_OPERAND_O);
    for (size_t i = 0; i < o.count[0]; i++)
        l += O[i] * dO[i];
    gdt_outputs_free(&o);
    return l;
}

/* Central difference of the loss in element i of operand r (logical index ==
 * storage index: BHSD, packed). */
static double fd(gdt_buffers *fwd, gdt_operand_role r, int i, const double *dO)
{
    float *x = fwd->host[r], x0 = x[i];
    x[i] = x0 + 1e-3f;
    double hi = loss(fwd, dO), up = x[i];
    x[i] = x0 - 1e-3f;
    double lo = loss(fwd, dO), dn = x[i];
    x[i] = x0;
    return (hi - lo) / (up - dn);
}

static void test_bwd_finite_difference(gdt_causal c)
{
    gdt_buffers fwd = {.problem = sdpa(GDT_FAMILY_SDPA_FWD, FHQ, FHKV, FSQ, FSKV, FD, c, GDT_LAYOUT_BHSD,
                                       GDT_DTYPE_FP32, 0.7)};
    gdt_buffers bwd = fwd;
    bwd.problem.family = GDT_FAMILY_SDPA_BWD;
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        bwd.host[r] = NULL;
    double q[FHQ * FSQ * FD], k[FHKV * FSKV * FD], v[FHKV * FSKV * FD], dO[FHQ * FSQ * FD];
    fill(q, FHQ * FSQ * FD, 11), fill(k, FHKV * FSKV * FD, 12), fill(v, FHKV * FSKV * FD, 13);
    fill(dO, FHQ * FSQ * FD, 14);
    put(&fwd, GDT_OPERAND_Q, q), put(&fwd, GDT_OPERAND_K, k), put(&fwd, GDT_OPERAND_V, v);
    gdt_outputs o, g;
    gdt_error e;
    CHECK_INT(gdt_reference_cpu(&fwd, 1e9, &o, &e), ==, GDT_STATUS_OK);
    put(&bwd, GDT_OPERAND_Q, q), put(&bwd, GDT_OPERAND_K, k), put(&bwd, GDT_OPERAND_V, v);
    put(&bwd, GDT_OPERAND_O, out(&o, GDT_OPERAND_O)), put(&bwd, GDT_OPERAND_STATS, out(&o, GDT_OPERAND_STATS));
    put(&bwd, GDT_OPERAND_DO, dO);
    CHECK_INT(gdt_reference_cpu(&bwd, 1e9, &g, &e), ==, GDT_STATUS_OK);
    struct { gdt_operand_role in, grad; int n; } cases[] = {
        {GDT_OPERAND_Q, GDT_OPERAND_DQ, FHQ * FSQ * FD},
        {GDT_OPERAND_K, GDT_OPERAND_DK, FHKV * FSKV * FD},
        {GDT_OPERAND_V, GDT_OPERAND_DV, FHKV * FSKV * FD},
    };
    for (int t = 0; t < 3; t++) {
        const double *an = out(&g, cases[t].grad);
        double num = 0, den = 0;
        for (int i = 0; i < cases[t].n; i++) {
            double d = fd(&fwd, cases[t].in, i, dO) - an[i];
            num += d * d, den += an[i] * an[i];
        }
        if (!(sqrt(num / den) < 1e-4)) {
            fprintf(stderr, "%s: finite difference vs analytic rel L2 %.3g (causal %d)\n",
                    gdt_operand_name(cases[t].grad), sqrt(num / den), (int)c);
            gdt_test_failures++;
        }
    }
    gdt_outputs_free(&o), gdt_outputs_free(&g);
    drop(&fwd), drop(&bwd);
}

/* ------------------------------------------------------------ compare */

static void test_compare(void)
{
    gdt_problem p = gemm(1, 2, 2, 2, false);
    double ref_v[4] = {1, 2, 3, 4}, got_v[4] = {1, 2, 3, 4}, err[4];
    gdt_outputs ref = {.n = 1, .role = {GDT_OPERAND_C}, .data = {ref_v}, .count = {4}};
    gdt_outputs got = {.n = 1, .role = {GDT_OPERAND_C}, .data = {got_v}, .count = {4}};
    gdt_error e;
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_OK);
    CHECK_NEAR(err[0], 0.0, 0);

    got_v[3] = 4.05; /* 0.05 / sqrt(30) = 9.1e-3 < 2e-2 (bf16) */
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_OK);
    CHECK_NEAR(err[0], 0.05 / sqrt(30.0), 1e-12);

    got_v[3] = 5.0; /* 1 / sqrt(30) = 0.183 */
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_INCORRECT);
    CHECK_CONTAINS(e.msg, "C: relative L2 error 0.183 exceeds the bf16 bound 0.02");

    got_v[3] = NAN; /* NaN never passes, even where one element is all there is */
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_INCORRECT);
    CHECK(isnan(err[0]));
    CHECK_CONTAINS(e.msg, "C: 1 of 4 elements NaN or infinite (first at logical index 3: got nan, expected 4)");

    got_v[3] = 4.0, ref_v[3] = -INFINITY, got_v[2] = NAN; /* equal infinities pass, the NaN does not */
    got_v[3] = -INFINITY;
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_INCORRECT);
    CHECK_CONTAINS(e.msg, "first at logical index 2");
    got_v[2] = 3;
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_OK);

    got.count[0] = 3;
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_INTERNAL);
    CHECK_CONTAINS(e.msg, "output C: reference has 4 elements, result has 3");
}

/* Two outputs failing: both are named, in order. */
static void test_compare_names_each_output(void)
{
    gdt_problem p = sdpa(GDT_FAMILY_SDPA_FWD, 1, 1, 1, 1, 2, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD, GDT_DTYPE_FP16, 1.0);
    double ro[2] = {1, 1}, go[2] = {1, 2}, rs[1] = {0.5}, gs[1] = {0.5};
    gdt_outputs ref = {.n = 2, .role = {GDT_OPERAND_O, GDT_OPERAND_STATS}, .data = {ro, rs}, .count = {2, 1}};
    gdt_outputs got = {.n = 2, .role = {GDT_OPERAND_STATS, GDT_OPERAND_O}, .data = {gs, go}, .count = {1, 2}};
    gdt_error e;
    double err[4];
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_INCORRECT);
    CHECK_STR(e.msg, "O: relative L2 error 0.707 exceeds the fp16 bound 0.01");
    CHECK_NEAR(err[1], 0.0, 0);
    gs[0] = 0.6;
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_INCORRECT);
    CHECK_STR(e.msg, "O: relative L2 error 0.707 exceeds the fp16 bound 0.01; "
                     "Stats: relative L2 error 0.2 exceeds the fp16 bound 0.01");
}

/* Round trips of the dtype conversions at their edges. */
static void test_dtypes(void)
{
    uint16_t h[1];
    gdt__dtype_store(GDT_DTYPE_BF16, h, 0, 1.0 + 0x1p-8); /* tie: rounds to even (1.0) */
    CHECK_NEAR(gdt__dtype_load(GDT_DTYPE_BF16, h, 0), 1.0, 0);
    gdt__dtype_store(GDT_DTYPE_BF16, h, 0, 1.0 + 0x1p-7);
    CHECK_NEAR(gdt__dtype_load(GDT_DTYPE_BF16, h, 0), 1.0 + 0x1p-7, 0);
    gdt__dtype_store(GDT_DTYPE_FP16, h, 0, 65504.0);
    CHECK_NEAR(gdt__dtype_load(GDT_DTYPE_FP16, h, 0), 65504.0, 0);
    gdt__dtype_store(GDT_DTYPE_FP16, h, 0, 0x1p-24); /* smallest subnormal */
    CHECK_NEAR(gdt__dtype_load(GDT_DTYPE_FP16, h, 0), 0x1p-24, 0);
    gdt__dtype_store(GDT_DTYPE_FP16, h, 0, -1.0 - 0x1p-11); /* tie: rounds to even (-1.0) */
    CHECK_NEAR(gdt__dtype_load(GDT_DTYPE_FP16, h, 0), -1.0, 0);
    gdt__dtype_store(GDT_DTYPE_FP16, h, 0, 1e6);
    CHECK(isinf(gdt__dtype_load(GDT_DTYPE_FP16, h, 0)));
    h[0] = 0xFFFF; /* the poison pattern is NaN in every 16-bit type */
    CHECK(isnan(gdt__dtype_load(GDT_DTYPE_FP16, h, 0)));
    CHECK(isnan(gdt__dtype_load(GDT_DTYPE_BF16, h, 0)));
    uint32_t f = 0xFFFFFFFFu;
    CHECK(isnan(gdt__dtype_load(GDT_DTYPE_FP32, &f, 0)));
}

/* ------------------------------------------------------ simulated device */

static int sim_devices = 1;

cudaError_t cudaGetDeviceCount(int *n) { *n = sim_devices; return cudaSuccess; }
cudaError_t cudaMalloc(void **p, size_t n) { *p = malloc(n); return *p ? cudaSuccess : cudaErrorMemoryAllocation; }
cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k) { (void)k; memcpy(d, s, n); return cudaSuccess; }
cudaError_t cudaMemset(void *p, int v, size_t n) { memset(p, v, n); return cudaSuccess; }
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s) { (void)s; memset(p, v, n); return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
/* Pinned host memory is host memory; the count shows the verifier frees it. */
static int sim_pinned;
cudaError_t cudaMallocHost(void **p, size_t n)
{
    *p = malloc(n);
    sim_pinned += *p != NULL;
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFreeHost(void *p) { sim_pinned -= p != NULL; free(p); return cudaSuccess; }

static gdt_problem parsed(gdt_family f, const char *spec)
{
    gdt_problem p;
    gdt_error e;
    gdt_problem_default(f, &p);
    CHECK_INT(gdt_problem_parse(f, spec, &p, &e), ==, GDT_STATUS_OK);
    return p;
}

static bool all_bytes(const void *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)p)[i] != v)
            return false;
    return true;
}

/* Inputs random and never zero, device holds the host copy, outputs hold the
 * NaN pattern; the reference written into the outputs passes, poison fails. */
static void sim_round_trip(gdt_family f, const char *spec)
{
    gdt_problem p = parsed(f, spec);
    gdt_buffers *b = NULL;
    gdt_error e;
    CHECK_INT(gdt_buffers_create(&p, 5, &b, &e), ==, GDT_STATUS_OK);
    if (!b)
        return;
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = 0, n = gdt_family_operands(f, roles, &nout);
    for (int i = 0; i < n; i++) {
        gdt_operand_role r = roles[i];
        CHECK_INT(b->ops.bytes[r], ==, gdt_operand_bytes(&p, r));
        if (i >= n - nout) {
            CHECK(all_bytes(b->ops.ptr[r], b->ops.bytes[r], 0xFF));
            continue;
        }
        CHECK(memcmp(b->host[r], b->ops.ptr[r], b->ops.bytes[r]) == 0);
        gdt_dtype t = gdt_operand_dtype(&p, r);
        size_t zeros = 0;
        for (size_t j = 0; j < b->ops.bytes[r] / gdt_dtype_size(t); j++)
            zeros += gdt__dtype_load(t, b->host[r], (int64_t)j) == 0.0;
        CHECK_INT(zeros, ==, 0);
    }
    gdt_outputs ref, got;
    double err[4];
    CHECK_INT(gdt_reference_cpu(b, 1e9, &ref, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_outputs_read(b, &got, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_INCORRECT);
    CHECK_CONTAINS(e.msg, "NaN or infinite");
    gdt_outputs_free(&got);
    for (int i = 0; i < ref.n; i++) { /* the reference, stored through the strides */
        int64_t d[4], st[4], k = 0;
        gdt_dtype t = gdt_operand_dtype(&p, ref.role[i]);
        gdt__operand_geometry(&p, ref.role[i], d, st);
        for (int64_t x = 0; x < d[0]; x++)
            for (int64_t y = 0; y < d[1]; y++)
                for (int64_t z = 0; z < d[2]; z++)
                    for (int64_t w = 0; w < d[3]; w++)
                        gdt__dtype_store(t, b->ops.ptr[ref.role[i]], x * st[0] + y * st[1] + z * st[2] + w * st[3],
                                         ref.data[i][k++]);
    }
    CHECK_INT(gdt_outputs_read(b, &got, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < ref.n; i++)
        CHECK(err[i] < 5e-3);
    gdt_outputs_free(&got);
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);
}

/* Restore puts the NaN pattern back in every output and zeros in the
 * workspace, whatever a plan left there. */
static void sim_restore(void)
{
    gdt_problem p = parsed(GDT_FAMILY_SDPA_BWD, "b=1,h=2,s=32,d=64");
    gdt_buffers *b = NULL;
    gdt_error e;
    CHECK_INT(gdt_buffers_create(&p, 5, &b, &e), ==, GDT_STATUS_OK);
    if (!b)
        return;
    CHECK_INT(gdt_buffers_reserve_workspace(b, 1000, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_buffers_reserve_workspace(b, 10, &e), ==, GDT_STATUS_OK); /* never shrinks */
    CHECK_INT(b->workspace_bytes, ==, 1000);
    CHECK(all_bytes(b->workspace, 1000, 0));
    memset(b->workspace, 0x11, 1000);
    memset(b->ops.ptr[GDT_OPERAND_DK], 0x22, b->ops.bytes[GDT_OPERAND_DK]);
    void *q = malloc(b->ops.bytes[GDT_OPERAND_Q]);
    memcpy(q, b->ops.ptr[GDT_OPERAND_Q], b->ops.bytes[GDT_OPERAND_Q]);
    CHECK_INT(gdt_buffers_restore(b, NULL, &e), ==, GDT_STATUS_OK);
    CHECK(all_bytes(b->workspace, 1000, 0));
    CHECK(all_bytes(b->ops.ptr[GDT_OPERAND_DK], b->ops.bytes[GDT_OPERAND_DK], 0xFF));
    CHECK(memcmp(q, b->ops.ptr[GDT_OPERAND_Q], b->ops.bytes[GDT_OPERAND_Q]) == 0); /* inputs untouched */
    free(q);
    gdt_buffers_destroy(b);
}

/* sdpa_bwd: exact O and Stats on small shapes, the expected log-sum-exp on
 * large ones; set_input refuses by name and replaces both copies. */
static void sim_bwd_inputs(void)
{
    gdt_problem p = parsed(GDT_FAMILY_SDPA_BWD, "b=1,h_q=4,h_kv=2,s_q=48,s_kv=64,d=64,causal=bottom_right");
    gdt_buffers *b = NULL;
    gdt_error e;
    CHECK_INT(gdt_buffers_create(&p, 9, &b, &e), ==, GDT_STATUS_OK);
    if (!b)
        return;
    gdt_buffers fwd = *b;
    fwd.problem.family = GDT_FAMILY_SDPA_FWD;
    gdt_outputs ref;
    CHECK_INT(gdt_reference_cpu(&fwd, 1e9, &ref, &e), ==, GDT_STATUS_OK);
    const float *st = b->host[GDT_OPERAND_STATS];
    for (size_t i = 0; i < ref.count[1]; i++)
        CHECK(fabs(st[i] - ref.data[1][i]) < 1e-5);
    CHECK_INT(gdt_buffers_set_input(b, GDT_OPERAND_DV, st, 4, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "buffers: dV is not an input of sdpa_bwd");
    CHECK_INT(gdt_buffers_set_input(b, GDT_OPERAND_STATS, st, 4, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "buffers: Stats: expected 768 bytes, got 4");
    float *two = malloc(768);
    for (int i = 0; i < 192; i++)
        two[i] = 2.0f;
    CHECK_INT(gdt_buffers_set_input(b, GDT_OPERAND_STATS, two, 768, &e), ==, GDT_STATUS_OK);
    CHECK(((float *)b->ops.ptr[GDT_OPERAND_STATS])[191] == 2.0f && st[0] == 2.0f);
    free(two);
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);

    p = parsed(GDT_FAMILY_SDPA_BWD, "b=1,h=8,s=2048,d=64,causal=1"); /* forward 4.3 GFLOP: approximated */
    CHECK_INT(gdt_buffers_create(&p, 9, &b, &e), ==, GDT_STATUS_OK);
    if (!b)
        return;
    st = b->host[GDT_OPERAND_STATS];
    CHECK(fabs(st[0] - 0.5) < 1e-6);                     /* one key: log 1 + var/2 */
    CHECK(fabs(st[2047] - (log(2048.0) + 0.5)) < 1e-5);  /* 2048 keys */
    double o = gdt__dtype_load(GDT_DTYPE_BF16, b->host[GDT_OPERAND_O], 0);
    CHECK(o != 0 && fabs(o) < 6);
    gdt_buffers_destroy(b);
}

/* A forward's outputs become a backward's inputs: same dims and seed give
 * the same Q, K, V; set_input_logical stores O and Stats through strides. */
static void sim_forward_into_backward(void)
{
    const char *spec = "b=1,h_q=2,h_kv=1,s=40,d=64,layout=bshd";
    gdt_problem pf = parsed(GDT_FAMILY_SDPA_FWD, spec), pb = parsed(GDT_FAMILY_SDPA_BWD, spec);
    gdt_buffers *f = NULL, *b = NULL;
    gdt_error e;
    gdt_outputs ref;
    CHECK_INT(gdt_buffers_create(&pf, 3, &f, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_buffers_create(&pb, 3, &b, &e), ==, GDT_STATUS_OK);
    if (!f || !b)
        return;
    for (int r = GDT_OPERAND_Q; r <= GDT_OPERAND_V; r++)
        CHECK(memcmp(f->ops.ptr[r], b->ops.ptr[r], f->ops.bytes[r]) == 0);
    CHECK_INT(gdt_reference_cpu(f, 1e9, &ref, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_buffers_set_input_logical(b, GDT_OPERAND_STATS, ref.data[1], 7, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "buffers: Stats: expected 80 elements, got 7");
    CHECK_INT(gdt_buffers_set_input_logical(b, GDT_OPERAND_DQ, ref.data[0], ref.count[0], &e), ==,
              GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "buffers: dQ is not an input of sdpa_bwd");
    memset(b->ops.ptr[GDT_OPERAND_O], 0, b->ops.bytes[GDT_OPERAND_O]);
    CHECK_INT(gdt_buffers_set_input_logical(b, GDT_OPERAND_O, ref.data[0], ref.count[0], &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_buffers_set_input_logical(b, GDT_OPERAND_STATS, ref.data[1], ref.count[1], &e), ==, GDT_STATUS_OK);
    /* the small forward was exact already: the bytes agree with what create computed */
    CHECK(memcmp(b->ops.ptr[GDT_OPERAND_O], b->host[GDT_OPERAND_O], b->ops.bytes[GDT_OPERAND_O]) == 0);
    int64_t d[4], st[4];
    gdt__operand_geometry(&pb, GDT_OPERAND_O, d, st);
    CHECK(fabs(gdt__dtype_load(GDT_DTYPE_BF16, b->host[GDT_OPERAND_O], 39 * st[2] + 1 * st[1] + 5) -
               ref.data[0][(1 * 40 + 39) * 64 + 5]) < 1e-2);
    CHECK(((float *)b->host[GDT_OPERAND_STATS])[79] == (float)ref.data[1][79]);
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(f);
    gdt_buffers_destroy(b);
}

/* ------------------------------------------------------------ verifier */

/* Writes logical doubles into a (simulated) device output through its
 * strides. */
static void store_output(gdt_buffers *b, gdt_operand_role r, const double *v)
{
    int64_t d[4], s[4], k = 0;
    gdt_dtype t = gdt_operand_dtype(&b->problem, r);
    gdt__operand_geometry(&b->problem, r, d, s);
    for (int64_t x = 0; x < d[0]; x++)
        for (int64_t y = 0; y < d[1]; y++)
            for (int64_t z = 0; z < d[2]; z++)
                for (int64_t w = 0; w < d[3]; w++)
                    gdt__dtype_store(t, b->ops.ptr[r], x * s[0] + y * s[1] + z * s[2] + w * s[3], v[k++]);
}

/* The verifier against the read-then-compare path on the same buffers:
 * the same status, the same message (byte for byte) and the same errors. */
static void same_as_compare(gdt_verifier *v, gdt_buffers *b, const gdt_outputs *ref, gdt_status want)
{
    gdt_outputs got;
    gdt_error e1 = {0}, e2 = {0};
    double err1[4], err2[4];
    int n = 0;
    CHECK_INT(gdt_outputs_read(b, &got, &e1), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_outputs_compare(&b->problem, &got, ref, err1, &e1), ==, want);
    CHECK_INT(gdt_verifier_check(v, b, err2, &n, &e2), ==, want);
    CHECK_INT(n, ==, ref->n);
    CHECK_STR(e2.msg, e1.msg);
    for (int i = 0; i < n; i++)
        CHECK(err1[i] == err2[i] || (isnan(err1[i]) && isnan(err2[i])));
    gdt_outputs_free(&got);
}

/* Element k of output r (logical index), through the strides. */
static int64_t offset_of(const gdt_problem *p, gdt_operand_role r, int64_t k)
{
    int64_t d[4], s[4], off = 0;
    gdt__operand_geometry(p, r, d, s);
    for (int a = 3; a >= 0; a--)
        off += (k % d[a]) * s[a], k /= d[a];
    return off;
}

/* Reference from the fp64 CPU one (logical doubles) and from the device
 * (device format), over outputs large enough for several chunks and with
 * strides (bshd): poison, a correct result, NaNs in two chunks (the first
 * named), a 10% error, equal and unequal infinities. */
static void sim_verifier(gdt_family f, const char *spec)
{
    gdt_problem p = parsed(f, spec);
    gdt_buffers *b = NULL;
    gdt_verifier *vc = NULL, *vd = NULL;
    gdt_outputs ref, dev;
    gdt_error e;
    CHECK_INT(gdt_buffers_create(&p, 5, &b, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_reference_cpu(b, 1e9, &ref, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_verifier_create(b, &ref, &vc, &e), ==, GDT_STATUS_OK);
    if (!b || !vc)
        return;
    same_as_compare(vc, b, &ref, GDT_STATUS_INCORRECT); /* poison */
    for (int i = 0; i < ref.n; i++)
        store_output(b, ref.role[i], ref.data[i]);
    same_as_compare(vc, b, &ref, GDT_STATUS_OK);
    CHECK_INT(gdt_verifier_create_device(b, &vd, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_outputs_read(b, &dev, &e), ==, GDT_STATUS_OK);
    same_as_compare(vd, b, &dev, GDT_STATUS_OK);
    gdt_operand_role r = ref.role[0];
    gdt_dtype t = gdt_operand_dtype(&p, r);
    int64_t late = (int64_t)ref.count[0] - 3, early = (int64_t)ref.count[0] / 2 + 1;
    gdt__dtype_store(t, b->ops.ptr[r], offset_of(&p, r, late), NAN);
    gdt__dtype_store(t, b->ops.ptr[r], offset_of(&p, r, early), NAN);
    same_as_compare(vd, b, &dev, GDT_STATUS_INCORRECT);
    char want[160];
    snprintf(want, sizeof want, "%s: 2 of %zu elements NaN or infinite (first at logical index %lld: got nan",
             gdt_operand_name(r), ref.count[0], (long long)early);
    gdt_error e2;
    double err[4];
    int n;
    CHECK_INT(gdt_verifier_check(vd, b, err, &n, &e2), ==, GDT_STATUS_INCORRECT);
    CHECK_CONTAINS(e2.msg, want);
    CHECK(isnan(err[0]));
    double *scaled = malloc(sizeof *scaled * ref.count[0]);
    for (size_t i = 0; i < ref.count[0]; i++)
        scaled[i] = dev.data[0][i] * 1.1;
    store_output(b, r, scaled);
    same_as_compare(vd, b, &dev, GDT_STATUS_INCORRECT);
    CHECK_INT(gdt_verifier_check(vd, b, err, &n, &e2), ==, GDT_STATUS_INCORRECT);
    CHECK(fabs(err[0] - 0.1) < 2e-3);
    snprintf(want, sizeof want, "%s: relative L2 error %.3g exceeds the", gdt_operand_name(r), err[0]);
    CHECK_CONTAINS(e2.msg, want);
    free(scaled);
    gdt_outputs_free(&dev);
    gdt_outputs_free(&ref);
    gdt_verifier_destroy(vc);
    gdt_verifier_destroy(vd);
    gdt_buffers_destroy(b);
}

/* Equal infinities pass and unequal ones fail on the device-format path;
 * a verifier refuses buffers of another layout and references that miss an
 * output; the staging buffer is pinned and freed. */
static void sim_verifier_edges(void)
{
    gdt_problem p = parsed(GDT_FAMILY_GEMM, "m=40,n=24,k=16"), q = parsed(GDT_FAMILY_GEMM, "m=24,n=40,k=16");
    gdt_buffers *b = NULL, *c = NULL;
    gdt_verifier *v = NULL;
    gdt_error e;
    double err[4];
    int n;
    CHECK_INT(gdt_buffers_create(&p, 5, &b, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_buffers_create(&q, 5, &c, &e), ==, GDT_STATUS_OK);
    if (!b || !c)
        return;
    double *ones = malloc(sizeof *ones * 960);
    for (int i = 0; i < 960; i++)
        ones[i] = i == 7 ? -INFINITY : 1.0;
    store_output(b, GDT_OPERAND_C, ones);
    int pinned = sim_pinned;
    CHECK_INT(gdt_verifier_create_device(b, &v, &e), ==, GDT_STATUS_OK);
    CHECK_INT(sim_pinned, ==, pinned + 1);
    CHECK_INT(gdt_verifier_check(v, b, err, &n, &e), ==, GDT_STATUS_OK);
    CHECK(err[0] == 0.0);
    ones[7] = INFINITY;
    store_output(b, GDT_OPERAND_C, ones);
    CHECK_INT(gdt_verifier_check(v, b, err, &n, &e), ==, GDT_STATUS_INCORRECT);
    CHECK_STR(e.msg, "C: 1 of 960 elements NaN or infinite (first at logical index 7: got inf, "
                     "expected -inf); bound 0.02 (bf16)");
    CHECK_INT(gdt_verifier_check(v, c, err, &n, &e), ==, GDT_STATUS_INTERNAL);
    CHECK_STR(e.msg, "verifier: the gemm outputs' dtype, dims or strides differ from the reference's");
    gdt_verifier_destroy(v);
    CHECK_INT(sim_pinned, ==, pinned);
    gdt_outputs none = {0};
    v = (gdt_verifier *)&none;
    CHECK_INT(gdt_verifier_create(b, &none, &v, &e), ==, GDT_STATUS_INTERNAL);
    CHECK_STR(e.msg, "compare: output C: reference has 0 elements, result has 960");
    CHECK(v == NULL);
    CHECK_INT(sim_pinned, ==, pinned);
    gdt_verifier_destroy(NULL);
    free(ones);
    gdt_buffers_destroy(b);
    gdt_buffers_destroy(c);
}

/* No device, and a bad problem: named refusals, nothing allocated. */
static void sim_refusals(void)
{
    gdt_problem p = parsed(GDT_FAMILY_GEMM, "m=8,n=8,k=8");
    gdt_buffers *b = (gdt_buffers *)&p;
    gdt_error e;
    sim_devices = 0;
    CHECK_INT(gdt_buffers_create(&p, 1, &b, &e), ==, GDT_STATUS_NO_DEVICE);
    CHECK_STR(e.msg, "buffers: no CUDA device for gemm buffers");
    CHECK(b == NULL);
    sim_devices = 1;
    p.u.gemm.m = 0;
    CHECK_INT(gdt_buffers_create(&p, 1, &b, &e), ==, GDT_STATUS_BAD_INPUT);
    gdt_buffers_destroy(NULL);
}

static void test_simulated_device(void)
{
    sim_round_trip(GDT_FAMILY_GEMM, "m=96,n=80,k=64");
    sim_round_trip(GDT_FAMILY_GEMM, "batch=2,m=33,n=17,k=40,a=col,b=col");
    sim_round_trip(GDT_FAMILY_SDPA_FWD, "b=2,h_q=4,h_kv=2,s_q=64,s_kv=80,d=64,layout=bshd,causal=bottom_right");
    sim_round_trip(GDT_FAMILY_SDPA_BWD, "b=1,h_q=2,h_kv=1,s_q=64,s_kv=64,d=64,causal=1");
    sim_restore();
    sim_bwd_inputs();
    sim_forward_into_backward();
    sim_refusals();
    sim_verifier(GDT_FAMILY_GEMM, "m=256,n=160,k=32");
    sim_verifier(GDT_FAMILY_SDPA_FWD, "b=2,h_q=4,h_kv=2,s_q=64,s_kv=80,d=64,layout=bshd,causal=bottom_right");
    sim_verifier(GDT_FAMILY_SDPA_BWD, "b=1,h_q=2,h_kv=1,s_q=64,s_kv=64,d=64,causal=1");
    sim_verifier_edges();
}

int main(void)
{
    test_gemm_2x2(false);
    test_gemm_2x2(true);
    test_gemm_batched_and_cap();
    test_gemm_blocked();
    test_sdpa_s2();
    test_masks();
    test_gqa(GDT_FAMILY_SDPA_FWD);
    test_gqa(GDT_FAMILY_SDPA_BWD);
    test_bwd_finite_difference(GDT_CAUSAL_NONE);
    test_bwd_finite_difference(GDT_CAUSAL_TOP_LEFT);
    test_bwd_finite_difference(GDT_CAUSAL_BOTTOM_RIGHT);
    test_compare();
    test_compare_names_each_output();
    test_dtypes();
    test_simulated_device();
    return gdt_test_result("test_reference");
}
