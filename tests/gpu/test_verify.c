/* Buffers on the device: random inputs (never zeros), poison, trial-state
 * restore, outputs read back through strides, compared with the fp64
 * reference; sdpa_bwd inputs consistent with the forward; set_input.
 * Returns 77 without a device. */
#include <math.h>

#include <cuda_runtime.h>

#include "gdt_test.h"
#include "gdt_verify.h"

static gdt_problem shape(gdt_family f, const char *spec)
{
    gdt_problem p;
    gdt_error e;
    gdt_problem_default(f, &p);
    if (gdt_problem_parse(f, spec, &p, &e) != GDT_STATUS_OK) {
        fprintf(stderr, "shape %s: %s\n", spec, e.msg);
        gdt_test_failures++;
    }
    return p;
}

/* Writes logical doubles into a device output through its strides. */
static void upload(gdt_buffers *b, gdt_operand_role r, const double *v)
{
    size_t bytes = b->ops.bytes[r];
    unsigned char *raw = malloc(bytes);
    int64_t d[4], s[4], i = 0;
    gdt_dtype t = gdt_operand_dtype(&b->problem, r);
    memset(raw, 0xFF, bytes);
    gdt__operand_geometry(&b->problem, r, d, s);
    for (int64_t x = 0; x < d[0]; x++)
        for (int64_t y = 0; y < d[1]; y++)
            for (int64_t z = 0; z < d[2]; z++)
                for (int64_t w = 0; w < d[3]; w++)
                    gdt__dtype_store(t, raw, x * s[0] + y * s[1] + z * s[2] + w * s[3], v[i++]);
    CHECK_INT(cudaMemcpy(b->ops.ptr[r], raw, bytes, cudaMemcpyHostToDevice), ==, cudaSuccess);
    free(raw);
}

static void test_inputs_never_zero(const gdt_buffers *b)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = 0, n = gdt_family_operands(b->problem.family, roles, &nout);
    for (int i = 0; i < n; i++) {
        gdt_operand_role r = roles[i];
        CHECK(b->ops.ptr[r] != NULL);
        CHECK_INT(b->ops.bytes[r], >=, gdt_operand_bytes(&b->problem, r));
        if (i >= n - nout) {
            CHECK(b->host[r] == NULL);
            continue;
        }
        gdt_dtype t = gdt_operand_dtype(&b->problem, r);
        size_t zeros = 0, cnt = b->ops.bytes[r] / gdt_dtype_size(t);
        for (size_t j = 0; j < cnt; j++)
            zeros += gdt__dtype_load(t, b->host[r], (int64_t)j) == 0.0;
        CHECK_INT(zeros, ==, 0);
    }
}

/* Poisoned outputs read back as NaN and never pass; the reference written
 * through the strides passes; one wrong element past the bound fails. */
static void test_round_trip(gdt_family f, const char *spec)
{
    gdt_problem p = shape(f, spec);
    gdt_buffers *b = NULL;
    gdt_error e;
    CHECK_INT(gdt_buffers_create(&p, 7, &b, &e), ==, GDT_STATUS_OK);
    if (!b) {
        fprintf(stderr, "%s\n", e.msg);
        return;
    }
    test_inputs_never_zero(b);
    gdt_outputs ref, got;
    double err[4];
    CHECK_INT(gdt_reference_cpu(b, 1e9, &ref, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_outputs_read(b, &got, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < got.n; i++)
        CHECK(isnan(got.data[i][0]) && isnan(got.data[i][got.count[i] - 1]));
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_INCORRECT);
    CHECK_CONTAINS(e.msg, "NaN or infinite");
    gdt_outputs_free(&got);

    for (int i = 0; i < ref.n; i++)
        upload(b, ref.role[i], ref.data[i]);
    CHECK_INT(gdt_outputs_read(b, &got, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < ref.n; i++)
        CHECK(err[i] < 1e-2); /* storage rounding only */
    gdt_outputs_free(&got);

    ref.data[0][0] += 1e3; /* the stored result is now far from this reference */
    CHECK_INT(gdt_outputs_read(b, &got, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_outputs_compare(&p, &got, &ref, err, &e), ==, GDT_STATUS_INCORRECT);
    CHECK_CONTAINS(e.msg, gdt_operand_name(ref.role[0]));
    CHECK_CONTAINS(e.msg, "exceeds the bf16 bound 0.02");
    gdt_outputs_free(&got);
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);
}

/* Whatever a plan leaves in the outputs and the workspace, restore puts back
 * the NaN pattern and zeros. */
static void test_restore(void)
{
    gdt_problem p = shape(GDT_FAMILY_SDPA_BWD, "b=1,h_q=2,h_kv=1,s_q=64,s_kv=64,d=64");
    gdt_buffers *b = NULL;
    gdt_error e;
    CHECK_INT(gdt_buffers_create(&p, 3, &b, &e), ==, GDT_STATUS_OK);
    if (!b)
        return;
    CHECK_INT(gdt_buffers_reserve_workspace(b, 4096, &e), ==, GDT_STATUS_OK);
    CHECK_INT(b->workspace_bytes, ==, 4096);
    cudaMemset(b->workspace, 0x11, 4096);
    cudaMemset(b->ops.ptr[GDT_OPERAND_DQ], 0x22, b->ops.bytes[GDT_OPERAND_DQ]);
    CHECK_INT(gdt_buffers_restore(b, NULL, &e), ==, GDT_STATUS_OK);
    unsigned char ws[4096];
    CHECK_INT(cudaMemcpy(ws, b->workspace, sizeof ws, cudaMemcpyDeviceToHost), ==, cudaSuccess);
    size_t nonzero = 0;
    for (size_t i = 0; i < sizeof ws; i++)
        nonzero += ws[i] != 0;
    CHECK_INT(nonzero, ==, 0);
    gdt_outputs got;
    CHECK_INT(gdt_outputs_read(b, &got, &e), ==, GDT_STATUS_OK);
    size_t finite = 0;
    for (int i = 0; i < got.n; i++)
        for (size_t j = 0; j < got.count[i]; j++)
            finite += !isnan(got.data[i][j]);
    CHECK_INT(got.n, ==, 3);
    CHECK_INT(finite, ==, 0);
    gdt_outputs_free(&got);
    gdt_buffers_destroy(b);
}

/* sdpa_bwd: O and Stats are the forward of Q, K, V; set_input refuses outputs
 * and wrong sizes by name. */
static void test_bwd_inputs_and_set_input(void)
{
    gdt_problem p = shape(GDT_FAMILY_SDPA_BWD, "b=1,h_q=4,h_kv=2,s_q=96,s_kv=128,d=64,causal=1");
    gdt_buffers *b = NULL;
    gdt_error e;
    CHECK_INT(gdt_buffers_create(&p, 11, &b, &e), ==, GDT_STATUS_OK);
    if (!b) {
        fprintf(stderr, "%s\n", e.msg);
        return;
    }
    gdt_buffers fwd = *b;
    fwd.problem.family = GDT_FAMILY_SDPA_FWD;
    gdt_outputs ref, in = {.n = 2, .role = {GDT_OPERAND_O, GDT_OPERAND_STATS}};
    CHECK_INT(gdt_reference_cpu(&fwd, 1e9, &ref, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < 2; i++) { /* the host copies, read as the device holds them */
        in.count[i] = ref.count[i];
        in.data[i] = malloc(sizeof(double) * ref.count[i]);
        int64_t d[4], s[4], k = 0;
        gdt__operand_geometry(&p, in.role[i], d, s);
        for (int64_t x = 0; x < d[0]; x++)
            for (int64_t y = 0; y < d[1]; y++)
                for (int64_t z = 0; z < d[2]; z++)
                    for (int64_t w = 0; w < d[3]; w++)
                        in.data[i][k++] = gdt__dtype_load(gdt_operand_dtype(&p, in.role[i]), b->host[in.role[i]],
                                                          x * s[0] + y * s[1] + z * s[2] + w * s[3]);
    }
    double err[4];
    CHECK_INT(gdt_outputs_compare(&fwd.problem, &in, &ref, err, &e), ==, GDT_STATUS_OK);
    CHECK(err[1] < 1e-6); /* Stats is fp32 */
    gdt_outputs_free(&in);
    gdt_outputs_free(&ref);

    CHECK_INT(gdt_buffers_set_input(b, GDT_OPERAND_DQ, b->host[GDT_OPERAND_Q], 8, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "buffers: dQ is not an input of sdpa_bwd");
    CHECK_INT(gdt_buffers_set_input(b, GDT_OPERAND_STATS, b->host[GDT_OPERAND_STATS], 8, &e), ==,
              GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "buffers: Stats: expected 1536 bytes, got 8");
    size_t n = b->ops.bytes[GDT_OPERAND_STATS];
    float *st = malloc(n);
    for (size_t i = 0; i < n / 4; i++)
        st[i] = 2.5f;
    CHECK_INT(gdt_buffers_set_input(b, GDT_OPERAND_STATS, st, n, &e), ==, GDT_STATUS_OK);
    float back[4];
    cudaMemcpy(back, b->ops.ptr[GDT_OPERAND_STATS], sizeof back, cudaMemcpyDeviceToHost);
    CHECK(back[3] == 2.5f && ((float *)b->host[GDT_OPERAND_STATS])[5] == 2.5f);
    free(st);
    gdt_buffers_destroy(b);
}

int main(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        gdt_buffers *b = NULL;
        gdt_problem p;
        gdt_error e;
        gdt_problem_default(GDT_FAMILY_GEMM, &p);
        CHECK_INT(gdt_buffers_create(&p, 1, &b, &e), ==, GDT_STATUS_NO_DEVICE);
        CHECK_CONTAINS(e.msg, "no CUDA device");
        if (gdt_test_failures)
            return gdt_test_result("test_verify");
        fprintf(stderr, "test_verify: no CUDA device, skipped\n");
        return GDT_TEST_SKIP;
    }
    test_round_trip(GDT_FAMILY_GEMM, "m=96,n=80,k=64");
    test_round_trip(GDT_FAMILY_GEMM, "batch=2,m=33,n=17,k=40,a=col,b=col");
    test_round_trip(GDT_FAMILY_SDPA_FWD, "b=2,h_q=4,h_kv=2,s_q=64,s_kv=80,d=64,layout=bshd,causal=bottom_right");
    test_round_trip(GDT_FAMILY_SDPA_BWD, "b=1,h_q=2,h_kv=2,s_q=64,s_kv=64,d=64,causal=1");
    test_restore();
    test_bwd_inputs_and_set_input();
    return gdt_test_result("test_verify");
}
