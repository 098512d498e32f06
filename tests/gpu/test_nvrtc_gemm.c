/* Every surviving contraction row, on several shapes (odd M, N, K; batched;
 * row- and column-major A and B; bf16 and fp16), matches the fp64 CPU
 * reference by relative L2 error under the dtype's bound, outputs poisoned
 * first.  Each shape runs in a child process, restarted after a row that
 * faults, so that a kernel fault costs one row, not the rest of the test.  Returns 77 without a
 * device.
 *
 *   test_nvrtc_gemm                   the test (children: --shape I --from R)
 *   test_nvrtc_gemm --bench           figures, not asserted: TFLOP/s of every
 *                                     row and of cuDNN's mode-A plans at bf16
 *                                     4096^3, host enqueue per execute */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gdt_bench.h"
#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "gdt_verify.h"

static const char *const shapes[] = {
    "m=130,n=72,k=200",
    "batch=3,m=64,n=96,k=80,a=col",
    "m=257,n=129,k=65,b=col,dtype=fp16",
    "m=128,n=256,k=512,a=col,b=col,dtype=fp16",
    "m=512,n=512,k=512",
    "batch=2,m=256,n=384,k=200",
    "m=192,n=200,k=136,a=col,dtype=fp16",
    "batch=2,m=136,n=264,k=264,b=col",
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

static gdt_device_props dev;
static char cache_root[256];

static bool device_props(void)
{
    return gdt__device_present() && gdt__device_props(0, &dev, NULL) == GDT_STATUS_OK;
}

static const gdt_engine_slot *gemm_slot(void)
{
    return gdt_manifest_find_name(gdt_manifest_default(), "gemm.nvrtc");
}

/* The materialized rows of a shape; NULL on failure (reported). */
static gdt_candidate *rows_for(const char *shape, gdt_facts *f, int *n)
{
    gdt_problem p;
    gdt_row_table *t = NULL;
    gdt_candidate *c = NULL;
    gdt_error e = {0};
    *n = 0;
    if (gdt_problem_parse(GDT_FAMILY_GEMM, shape, &p, &e) != GDT_STATUS_OK ||
        gdt_rows_load_default(&t, &e) != GDT_STATUS_OK) {
        fprintf(stderr, "%s: %s\n", shape, e.msg);
        gdt_test_failures++;
        gdt_rows_destroy(t);
        return NULL;
    }
    gdt_facts_analyze(&p, &dev, f);
    CHECK_INT(gdt_candidates_materialize(t, gemm_slot(), f, &c, n, &e), ==, GDT_STATUS_OK);
    gdt_rows_destroy(t);
    return c;
}

static gdt_status build(const gdt_facts *f, const gdt_plan_id *id, gdt_compiled **c,
                        gdt_build_info *info, gdt_error *e)
{
    gdt_build_opts o = {dev, false, cache_root[0] ? cache_root : NULL};
    return gemm_slot()->ops->build(gemm_slot(), f, id, &o, c, info, e);
}

/* On a mismatch: where the wrong elements are, which tells a layout slip
 * (whole rows or columns, one k-step) from a tail slip. */
static void show_mismatch(const gdt_problem *p, const gdt_outputs *got, const gdt_outputs *ref)
{
    int64_t m = p->u.gemm.m, n = p->u.gemm.n, bad = 0;
    for (size_t i = 0; i < got->count[0]; i++) {
        double g = got->data[0][i], r = ref->data[0][i];
        if (!(fabs(g - r) <= 0.05 * fmax(1.0, fabs(r)))) {
            if (bad++ < 6)
                printf("  C[b%lld, m%lld, n%lld] = %g, reference %g\n", (long long)(i / (m * n)),
                       (long long)(i / n % m), (long long)(i % n), g, r);
        }
    }
    printf("  %lld of %zu elements off by more than 5%%\n", (long long)bad, got->count[0]);
}

/* Builds, poisons, executes and compares one plan; the error of the first
 * failing step in e. */
static gdt_status run_plan(const gdt_facts *f, const gdt_plan_id *id, gdt_buffers *b,
                           const gdt_outputs *ref, double *err, gdt_error *e)
{
    const gdt_engine_ops *ops = gemm_slot()->ops;
    gdt_compiled *c = NULL;
    gdt_build_info info;
    gdt_outputs got = {0};
    double errs[4] = {0};
    gdt_status st = build(f, id, &c, &info, e);
    if (st == GDT_STATUS_OK)
        st = gdt_buffers_reserve_workspace(b, ops->workspace_size(c), e);
    if (st == GDT_STATUS_OK)
        st = gdt_buffers_poison(b, NULL, e);
    if (st == GDT_STATUS_OK)
        st = ops->execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, e);
    if (st == GDT_STATUS_OK && cudaDeviceSynchronize() != cudaSuccess)
        st = gdt_error_set(e, GDT_STATUS_CUDA, "kernel: %s",
                           cudaGetErrorString(cudaGetLastError()));
    if (st == GDT_STATUS_OK)
        st = gdt_outputs_read(b, &got, e);
    if (st == GDT_STATUS_OK && (st = gdt_outputs_compare(&b->problem, &got, ref, errs, e)))
        show_mismatch(&b->problem, &got, ref);
    *err = errs[0];
    gdt_outputs_free(&got);
    ops->destroy(c);
    return st;
}

/* A buffer smaller than the problem declares, a missing pointer and a
 * misaligned one are refused at execute, naming the operand; nothing is
 * launched. */
static void test_refusal(const gdt_facts *f, const gdt_plan_id *id, gdt_buffers *b)
{
    gdt_compiled *c = NULL;
    gdt_build_info info;
    gdt_error e = {0};
    if (build(f, id, &c, &info, &e) != GDT_STATUS_OK)
        return;
    gdt_operands ops = b->ops;
    ops.bytes[GDT_OPERAND_C] -= 2;
    CHECK_INT(gemm_slot()->ops->execute(c, &ops, NULL, 0, NULL, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "operand C: buffer of");
    ops = b->ops;
    ops.ptr[GDT_OPERAND_A] = NULL;
    CHECK_INT(gemm_slot()->ops->execute(c, &ops, NULL, 0, NULL, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "operand A: missing pointer");
    ops.ptr[GDT_OPERAND_A] = (char *)b->ops.ptr[GDT_OPERAND_A] + 2; /* refused before launch */
    CHECK_INT(gemm_slot()->ops->execute(c, &ops, NULL, 0, NULL, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "operand A: pointer");
    CHECK_CONTAINS(e.msg, "is not 16-byte aligned");
    gemm_slot()->ops->destroy(c);
}

/* Child: the rows of one shape from row `from` on.  A CUDA error poisons the
 * context, so the child stops there (exit 3) and the parent resumes after
 * that row in a fresh process. */
static int child(int si, int from)
{
    gdt_facts f;
    gdt_error e = {0};
    gdt_buffers *b = NULL;
    gdt_outputs ref = {0};
    int n = 0, refused = 0;
    char name[512];
    gdt_candidate *c = rows_for(shapes[si], &f, &n);
    gdt_status st = c ? gdt_buffers_create(&f.problem, 1234 + (uint64_t)si, &b, &e)
                      : GDT_STATUS_INTERNAL;
    if (st == GDT_STATUS_OK)
        st = gdt_reference_cpu(b, 1e10, &ref, &e);
    if (st != GDT_STATUS_OK)
        printf("%s: FAILED: %s\n", shapes[si], e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    for (int ri = from; st == GDT_STATUS_OK && ri < n; ri++) {
        gdt_plan_id_format(&c[ri].id, name, sizeof name);
        if (c[ri].rejected || c[ri].duplicate_of_earlier) {
            printf("%s row %d: not run: %s\n", shapes[si], ri, c[ri].reason);
            continue;
        }
        double err = NAN;
        gdt_status rs = run_plan(&f, &c[ri].id, b, &ref, &err, &e);
        if (rs == GDT_STATUS_OK) {
            printf("%s row %d %s: verified, rel L2 %.2e\n", shapes[si], ri, name, err);
            if (si == 0 && !refused++)
                test_refusal(&f, &c[ri].id, b);
            continue;
        }
        printf("%s row %d %s: FAILED: %s\n", shapes[si], ri, name, e.msg);
        gdt_test_failures++;
        if (cudaGetLastError() != cudaSuccess || rs == GDT_STATUS_CUDA) {
            printf("fault at row %d\n", ri);
            fflush(stdout);
            return 3;
        }
    }
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);
    free(c);
    return gdt_test_failures ? 1 : 0;
}

/* Counts the "verified" lines of a child's output, and those of MMA=1 plans. */
static int count_verified(const char *out, int *wgmma)
{
    int n = 0;
    for (const char *line = out; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        if (strstr(buf, ": verified")) {
            n++;
            *wgmma += strstr(buf, "MMA=1") != NULL;
        }
        line = end ? end + 1 : NULL;
    }
    return n;
}

/* Parent: never touches CUDA; one child per shape, resumed after a fault. */
static int parent(const char *self)
{
    static char out[1 << 17];
    int wgmma = 0, arch = 0;
    char root[] = "/tmp/gdt_gemm_cacheXXXXXX";
    CHECK(mkdtemp(root) != NULL);
    setenv("GDT_TEST_CACHE", root, 1);
    for (int si = 0; si < NSHAPES; si++) {
        int verified = 0, from = 0, rc;
        do {
            char which[16], first[16];
            snprintf(which, sizeof which, "%d", si);
            snprintf(first, sizeof first, "%d", from);
            char *argv[] = {(char *)self, "--shape", which, "--from", first, NULL};
            rc = gdt_test_spawn(argv, NULL, out, sizeof out);
            if (rc == GDT_TEST_SKIP) {
                printf("test_nvrtc_gemm: no CUDA device, skipped\n");
                return GDT_TEST_SKIP;
            }
            fputs(out, stdout);
            CHECK_INT(rc, ==, 0);
            const char *a = strstr(out, "device sm"), *fault = strstr(out, "fault at row ");
            if (a)
                arch = atoi(a + 9);
            verified += count_verified(out, &wgmma);
            from = fault ? atoi(fault + 13) + 1 : -1;
        } while (rc == 3 && from > 0);
        printf("%s: %d rows verified\n", shapes[si], verified);
        CHECK(verified >= 1);
    }
    printf("MMA=1 (wgmma) plans verified: %d\n", wgmma);
    if (arch == 90)
        CHECK(wgmma >= 1);
    CHECK(gdt_test_remove_tree(root) == 0);
    return gdt_test_result("test_nvrtc_gemm");
}

/* ------------------------------------------------------------- figures */

/* Times one built plan; keeps its output in *keep when asked. */
static gdt_bench_timing bench_plan(const char *who, const gdt_engine_ops *ops, gdt_compiled *c,
                         const gdt_facts *f, gdt_buffers *b, int n, gdt_outputs *keep)
{
    gdt_error e = {0};
    gdt_bench_timing t = {INFINITY, INFINITY};
    if (gdt_buffers_reserve_workspace(b, ops->workspace_size(c) + 1, &e) != GDT_STATUS_OK ||
        gdt_buffers_poison(b, NULL, &e) != GDT_STATUS_OK) {
        printf("bench %s: %s\n", who, e.msg);
        return t;
    }
    t = gdt_bench_time_plan(ops, c, b, n);
    if (keep && gdt_outputs_read(b, keep, &e) != GDT_STATUS_OK)
        printf("bench %s: %s\n", who, e.msg);
    printf("bench %s: %.1f us, %.1f TFLOP/s, host enqueue %.2f us/call\n", who, t.device_us,
           f->flops / (t.device_us * 1e-6) / 1e12, t.host_us);
    return t;
}

static double bench_nvrtc(const gdt_facts *f, gdt_candidate *c, int n, gdt_buffers *b,
                          gdt_outputs *best_out, gdt_plan_id *best_id)
{
    double best = INFINITY;
    char name[512], who[600];
    for (int i = 0; i < n; i++) {
        gdt_compiled *k = NULL;
        gdt_build_info info;
        gdt_error e = {0};
        gdt_outputs out = {0};
        if (c[i].rejected || c[i].duplicate_of_earlier)
            continue;
        gdt_plan_id_format(&c[i].id, name, sizeof name);
        if (build(f, &c[i].id, &k, &info, &e) != GDT_STATUS_OK) {
            printf("bench nvrtc %s: %s\n", name, e.msg);
            continue;
        }
        snprintf(who, sizeof who, "nvrtc %s (compile %.2f s, load %.4f s)", name,
                 info.compile_seconds, info.load_seconds);
        gdt_bench_timing t = bench_plan(who, gemm_slot()->ops, k, f, b, 20, &out);
        if (t.device_us < best) {
            best = t.device_us;
            *best_id = c[i].id;
            gdt_outputs_free(best_out);
            *best_out = out;
        } else {
            gdt_outputs_free(&out);
        }
        gemm_slot()->ops->destroy(k);
    }
    return best;
}

static double bench_cudnn(const gdt_facts *f, gdt_buffers *b, gdt_outputs *first_out)
{
    gdt_plan_entry *l = NULL;
    gdt_error e = {0};
    int n = 0;
    double best = INFINITY;
    char name[512];
    if (gdt_cudnn_backend()->list(NULL, f, GDT_MODE_A, &l, &n, &e) != GDT_STATUS_OK) {
        printf("bench cudnn: %s\n", e.msg);
        return best;
    }
    for (int i = 0; i < n && i < 4; i++) {
        gdt_compiled *c = NULL;
        gdt_build_opts o = {.device = dev};
        gdt_build_info info;
        gdt_plan_id_format(&l[i].id, name, sizeof name);
        if (gdt__cudnn_ops.build(NULL, f, &l[i].id, &o, &c, &info, &e) != GDT_STATUS_OK) {
            printf("bench cudnn %s: %s\n", name, e.msg);
            continue;
        }
        gdt_bench_timing t = bench_plan(name, &gdt__cudnn_ops, c, f, b, 20, i == 0 ? first_out : NULL);
        if (t.device_us < best)
            best = t.device_us;
        gdt__cudnn_ops.destroy(c);
    }
    free(l);
    return best;
}

static void bench_shape(const char *shape)
{
    gdt_facts f;
    gdt_error e = {0};
    gdt_buffers *b = NULL;
    gdt_outputs ours = {0}, theirs = {0};
    gdt_plan_id best_id = {0};
    int n = 0;
    char name[512];
    gdt_candidate *c = rows_for(shape, &f, &n);
    if (!c || gdt_buffers_create(&f.problem, 7, &b, &e) != GDT_STATUS_OK) {
        printf("bench %s: %s\n", shape, e.msg);
        free(c);
        return;
    }
    printf("bench %s on %s (%d SMs)\n", shape, dev.name, dev.sm_count);
    double g = bench_nvrtc(&f, c, n, b, &ours, &best_id);
    double k = bench_cudnn(&f, b, &theirs);
    gdt_plan_id_format(&best_id, name, sizeof name);
    printf("figure %s: best generated %s %.1f TFLOP/s, best cuDNN %.1f TFLOP/s, ratio %.3f\n",
           shape, name, f.flops / (g * 1e-6) / 1e12, f.flops / (k * 1e-6) / 1e12, k / g);
    double err[4] = {0};
    if (ours.n && theirs.n) {
        gdt_status st = gdt_outputs_compare(&f.problem, &ours, &theirs, err, &e);
        printf("figure %s: best generated against cuDNN's first plan: rel L2 %.2e%s%s\n", shape,
               err[0], st == GDT_STATUS_OK ? "" : ": ", st == GDT_STATUS_OK ? "" : e.msg);
    }
    gdt_outputs_free(&ours);
    gdt_outputs_free(&theirs);
    gdt_buffers_destroy(b);
    free(c);
}

int main(int argc, char **argv)
{
    const char *c = getenv("GDT_TEST_CACHE");
    if (c)
        snprintf(cache_root, sizeof cache_root, "%s", c);
    if (argc == 1)
        return parent(argv[0]);
    if (!device_props()) {
        printf("test_nvrtc_gemm: no CUDA device, skipped\n");
        return GDT_TEST_SKIP;
    }
    printf("device sm%d %s\n", dev.arch, dev.name);
    if (argc == 5 && !strcmp(argv[1], "--shape") && !strcmp(argv[3], "--from"))
        return child(atoi(argv[2]), atoi(argv[4]));
    if (argc == 2 && !strcmp(argv[1], "--bench")) {
        bench_shape("m=4096,n=4096,k=4096");
        bench_shape("m=128,n=128,k=128"); /* host enqueue per execute */
        return 0;
    }
    fprintf(stderr, "usage: %s [--bench | --shape I --from R]\n", argv[0]);
    return 2;
}
