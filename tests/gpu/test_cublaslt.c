/* The cuBLASLt engine (gemm.cublaslt) on the device.  Returns 77 without a
 * device (or without libcublasLt: then the slot serves nothing to test).
 *
 *   test_cublaslt           the test: every plan the heuristic lists (its
 *                           top GDT__CUBLASLT_TOP) and a capped enumeration
 *                           (2 configs per algo) on each shape, verified
 *                           against the fp64 CPU reference on the small
 *                           shapes and against cuDNN's first mode-A plan on
 *                           the large ones (tails, batched, the four operand
 *                           majors, bf16 and fp16); the heuristic's own algo
 *                           and the plan rebuilt from its knobs give the same
 *                           bytes; a recorded (engine_id, knobs), printed and
 *                           parsed back, replays through the graph API to the
 *                           same bytes; the planner places the slot's block
 *                           right after cuDNN's in mode A.
 *   test_cublaslt --bench   figures, printed and not asserted: best cuBLASLt
 *                           vs best cuDNN mode-A plan at bf16 4096^3, host
 *                           enqueue per call at m=n=k=128.  The sweep-grade
 *                           figures for one plan come from
 *                           gdtune bench gemm --shape m=n=k=... --plan NAME --vs-cudnn --floor
 *                           with NAME a gemm.cublaslt[...] line of gdtune plans. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "cublaslt/gdt_cublaslt.h"
#include "gdt_bench.h"
#include "gdt_test.h"
#include "gdt_verify.h"

static const char *const small_shapes[] = {
    "m=130,n=72,k=200",
    "batch=3,m=64,n=96,k=80,a=col",
    "m=257,n=129,k=65,b=col,dtype=fp16",
    "m=128,n=256,k=512,a=col,b=col,dtype=fp16",
    "batch=2,m=136,n=264,k=264,b=col",
    "m=1,n=40,k=24",
};
static const char *const large_shapes[] = {
    "m=2048,n=2048,k=2048",
    "batch=2,m=1024,n=1536,k=1000,a=col,dtype=fp16",
    "m=1536,n=1032,k=2056,b=col",
    "m=1000,n=1024,k=4096,a=col,b=col",
};
#define NSMALL (int)(sizeof small_shapes / sizeof small_shapes[0])
#define NLARGE (int)(sizeof large_shapes / sizeof large_shapes[0])

static gdt_device_props dev;

static const gdt_engine_slot *lt_slot(void) { return gdt_manifest_find_name(NULL, "gemm.cublaslt"); }

static bool facts_for(const char *shape, gdt_facts *f)
{
    gdt_problem p;
    gdt_error e = {0};
    if (gdt_problem_parse(GDT_FAMILY_GEMM, shape, &p, &e) != GDT_STATUS_OK) {
        printf("%s: %s\n", shape, e.msg);
        gdt_test_failures++;
        return false;
    }
    gdt_facts_analyze(&p, &dev, f);
    return true;
}

/* Executes a built plan on poisoned outputs; keeps C's bytes in *raw
 * (malloc'd) when asked. */
static gdt_status run_built(const gdt_engine_ops *ops, gdt_compiled *c, gdt_buffers *b, gdt_outputs *got,
                            void **raw, gdt_error *e)
{
    size_t bytes = gdt_operand_bytes(&b->problem, GDT_OPERAND_C);
    gdt_status s = gdt_buffers_reserve_workspace(b, ops->workspace_size(c), e);
    if (!s) s = gdt_buffers_poison(b, NULL, e);
    if (!s) s = ops->execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, e);
    if (!s && cudaDeviceSynchronize() != cudaSuccess)
        s = gdt_error_set(e, GDT_STATUS_CUDA, "execute: %s", cudaGetErrorString(cudaGetLastError()));
    if (!s) s = gdt_outputs_read(b, got, e);
    if (!s && raw && (*raw = malloc(bytes)) &&
        cudaMemcpy(*raw, b->ops.ptr[GDT_OPERAND_C], bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        s = gdt_error_set(e, GDT_STATUS_CUDA, "reading C back");
    return s;
}

/* Builds one plan through an engine's ops, runs it, compares with ref. */
static gdt_status verify_plan(const gdt_engine_slot *slot, const gdt_engine_ops *ops, const gdt_facts *f,
                              const gdt_plan_id *id, gdt_buffers *b, const gdt_outputs *ref, double *err,
                              void **raw, gdt_error *e)
{
    gdt_build_opts o = {.device = dev};
    gdt_build_info info;
    gdt_compiled *c = NULL;
    gdt_outputs got = {0};
    double errs[4] = {0};
    gdt_status s = ops->build(slot, f, id, &o, &c, &info, e);
    if (!s) s = run_built(ops, c, b, &got, raw, e);
    if (!s) s = gdt_outputs_compare(&b->problem, &got, ref, errs, e);
    *err = errs[0];
    gdt_outputs_free(&got);
    if (c) ops->destroy(c);
    return s;
}

/* The reference: the fp64 CPU product, or cuDNN's first mode-A plan
 * (test_cudnn checks cuDNN's plans against the CPU). */
static gdt_status reference(const gdt_facts *f, gdt_buffers *b, bool cudnn, gdt_outputs *ref, gdt_error *e)
{
    if (!cudnn) return gdt_reference_cpu(b, 1e10, ref, e);
    gdt_plan_entry *l = NULL;
    int n = 0;
    gdt_status s = gdt_cudnn_backend()->list(NULL, f, GDT_MODE_A, &l, &n, e);
    if (!s && n == 0) s = gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "cuDNN listed no mode-A plan");
    gdt_build_opts o = {.device = dev};
    gdt_build_info info;
    gdt_compiled *c = NULL;
    if (!s) s = gdt__cudnn_ops.build(NULL, f, &l[0].id, &o, &c, &info, e);
    if (!s) s = run_built(&gdt__cudnn_ops, c, b, ref, NULL, e);
    if (c) gdt__cudnn_ops.destroy(c);
    free(l);
    return s;
}

/* Every entry of a list verified; returns how many. */
static int verify_list(const char *shape, const char *what, const gdt_facts *f, const gdt_plan_entry *l,
                       int n, gdt_buffers *b, const gdt_outputs *ref)
{
    int ok = 0;
    char name[512];
    for (int i = 0; i < n; i++) {
        gdt_error e = {0};
        double err = NAN;
        gdt_plan_id_format(&l[i].id, name, sizeof name);
        gdt_status s = verify_plan(lt_slot(), lt_slot()->ops, f, &l[i].id, b, ref, &err, NULL, &e);
        printf("%s %s %s: %s, rel L2 %.2e%s%s\n", shape, what, name, s ? "FAILED" : "verified", err,
               s ? ": " : "", s ? e.msg : "");
        if (s) gdt_test_failures++;
        else ok++;
    }
    return ok;
}

/* The heuristic's own first algo and our plan rebuilt from its knobs
 * write the same bytes. */
static void same_as_heuristic(const char *shape, const gdt_facts *f, gdt_buffers *b, const gdt_plan_entry *first,
                              const gdt_outputs *ref)
{
    const gdt__cublaslt_api *L = gdt__cublaslt(NULL);
    cublasLtHandle_t h;
    gdt__cublaslt_descs d;
    cublasLtMatmulHeuristicResult_t r[1];
    int nr = 0;
    gdt_error e = {0};
    void *ours = NULL;
    double err;
    const float alpha = 1.0f, beta = 0.0f;
    size_t bytes = gdt_operand_bytes(&f->problem, GDT_OPERAND_C);
    CHECK_INT(verify_plan(lt_slot(), lt_slot()->ops, f, &first->id, b, ref, &err, &ours, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt__cublaslt_handle(&h, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt__cublaslt_descs_create(&f->problem, &d, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt__cublaslt_heuristic(h, &f->problem, &d, 1, r, &nr, &e), ==, GDT_STATUS_OK);
    CHECK_INT(nr, ==, 1);
    char *theirs = malloc(bytes);
    if (nr == 1 && ours && theirs && gdt_buffers_reserve_workspace(b, r[0].workspaceSize, &e) == GDT_STATUS_OK &&
        gdt_buffers_poison(b, NULL, &e) == GDT_STATUS_OK) {
        void *z = b->ops.ptr[GDT_OPERAND_C];
        CHECK_INT(L->cublasLtMatmul(h, d.op, &alpha, b->ops.ptr[GDT_OPERAND_B], d.layout[0],
                                    b->ops.ptr[GDT_OPERAND_A], d.layout[1], &beta, z, d.layout[2], z,
                                    d.layout[2], &r[0].algo, b->workspace, r[0].workspaceSize, NULL),
                  ==, CUBLAS_STATUS_SUCCESS);
        CHECK_INT(cudaMemcpy(theirs, z, bytes, cudaMemcpyDeviceToHost), ==, cudaSuccess);
        CHECK(memcmp(ours, theirs, bytes) == 0);
        printf("%s: the heuristic's first algo and its knobs rebuilt: %s\n", shape,
               memcmp(ours, theirs, bytes) ? "DIFFERENT bytes" : "same bytes");
    }
    free(theirs);
    free(ours);
    gdt__cublaslt_descs_destroy(&d);
}

/* A recorded name, parsed back, replayed through the graph API. */
static void replay(const char *shape, const gdt_facts *f, gdt_buffers *b, const gdt_plan_entry *x,
                   const gdt_outputs *ref)
{
    char name[512];
    gdt_plan_id id;
    gdt_graph *g = NULL;
    gdt_error e = {0};
    gdt_build_opts o = {.device = dev};
    void *first = NULL;
    double err;
    size_t bytes = gdt_operand_bytes(&f->problem, GDT_OPERAND_C);
    CHECK_INT(verify_plan(lt_slot(), lt_slot()->ops, f, &x->id, b, ref, &err, &first, &e), ==, GDT_STATUS_OK);
    gdt_plan_id_format(&x->id, name, sizeof name);
    CHECK_INT(gdt_plan_id_parse(name, &id, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_create(&f->problem, &dev, &g, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_replay(g, &id, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_build(g, &o, NULL, &e), ==, GDT_STATUS_OK);
    char *again = malloc(bytes);
    if (first && again && gdt_buffers_reserve_workspace(b, gdt_graph_workspace_size(g), &e) == GDT_STATUS_OK &&
        gdt_buffers_poison(b, NULL, &e) == GDT_STATUS_OK) {
        CHECK_INT(gdt_graph_execute(g, &b->ops, b->workspace, b->workspace_bytes, NULL, &e), ==, GDT_STATUS_OK);
        CHECK_INT(cudaMemcpy(again, b->ops.ptr[GDT_OPERAND_C], bytes, cudaMemcpyDeviceToHost), ==, cudaSuccess);
        CHECK(memcmp(first, again, bytes) == 0);
        printf("%s: replay of %s: %s\n", shape, name, memcmp(first, again, bytes) ? "DIFFERENT bytes" : "same bytes");
    }
    free(again);
    free(first);
    gdt_graph_destroy(g);
}

static void test_shape(const char *shape, bool large, bool deep)
{
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_outputs ref = {0};
    gdt_plan_entry *heur = NULL, *en = NULL;
    int nh = 0, ne = 0;
    gdt_error e = {0};
    if (!facts_for(shape, &f)) return;
    gdt_status s = gdt_buffers_create(&f.problem, 4321, &b, &e);
    if (!s) s = reference(&f, b, large, &ref, &e);
    if (!s) s = gdt__cublaslt_engine.list(lt_slot(), &f, &heur, &nh, &e);
    if (!s) s = gdt__cublaslt_engine.enumerate(lt_slot(), &f, 2, &en, &ne, &e);
    if (s) printf("%s: FAILED: %s\n", shape, e.msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    if (!s) {
        printf("%s: %d heuristic plans, %d enumerated, against %s\n", shape, nh, ne, large ? "cuDNN" : "cpu-fp64");
        CHECK(nh >= 1);
        CHECK_INT(verify_list(shape, "heuristic", &f, heur, nh, b, &ref), ==, nh);
        CHECK_INT(verify_list(shape, "enumerated", &f, en, ne, b, &ref), ==, ne);
    }
    if (!s && nh >= 1 && deep) {
        same_as_heuristic(shape, &f, b, &heur[0], &ref);
        replay(shape, &f, b, &heur[nh - 1], &ref);
        if (ne) replay(shape, &f, b, &en[ne - 1], &ref);
    }
    free(heur);
    free(en);
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);
}

/* With cuDNN attached, mode A lists cuDNN's block, then gemm.cublaslt's. */
static void test_planner(void)
{
    gdt_facts f;
    gdt_graph *g = NULL;
    gdt_error e = {0};
    gdt_plan_options o = {.backend = gdt_cudnn_backend()};
    if (!facts_for("m=1024,n=1024,k=1024", &f)) return;
    CHECK_INT(gdt_graph_create(&f.problem, &dev, &g, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_plan(g, &o, &e), ==, GDT_STATUS_OK);
    int first_lt = -1, last_backend = -1, first_ours = -1;
    int64_t lt = gdt_engine_id(GDT_FAMILY_GEMM, lt_slot()->slot);
    for (int i = 0; i < gdt_graph_plan_count(g); i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, i);
        if (x->is_backend) last_backend = i;
        else if (x->id.engine_id == lt && first_lt < 0) first_lt = i;
        else if (x->id.engine_id != lt && first_ours < 0) first_ours = i;
    }
    printf("planner: last cuDNN entry %d, first cuBLASLt %d, first generated %d\n", last_backend, first_lt,
           first_ours);
    CHECK_INT(first_lt, ==, last_backend + 1);
    CHECK(first_ours < 0 || first_ours > first_lt);
    CHECK_STR(gdt_plan_entry_tag(gdt_graph_plan_at(g, first_lt >= 0 ? first_lt : 0)), "LIBRARY");
    gdt_graph_destroy(g);
    /* The sweep's list, on by default: at most TOP + ENUM_MAX library plans. */
    gdt_plan_options so = {.backend = gdt_cudnn_backend(), .knob_cap = 2};
    int nlt = 0;
    CHECK_INT(gdt_graph_create(&f.problem, &dev, &g, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_enumerate(g, &so, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < gdt_graph_plan_count(g); i++)
        nlt += gdt_graph_plan_at(g, i)->id.engine_id == lt;
    printf("sweep list: %d cuBLASLt plans of %d\n", nlt, gdt_graph_plan_count(g));
    CHECK(nlt > 0 && nlt <= GDT__CUBLASLT_TOP + GDT__CUBLASLT_ENUM_MAX);
    gdt_graph_destroy(g);
}

/* ------------------------------------------------------------- figures */

static double bench_list(const char *who, const gdt_engine_slot *slot, const gdt_engine_ops *ops,
                         const gdt_facts *f, const gdt_plan_entry *l, int n, gdt_buffers *b, char *best_name)
{
    double best = INFINITY;
    char name[512];
    for (int i = 0; i < n; i++) {
        gdt_build_opts o = {.device = dev};
        gdt_build_info info;
        gdt_compiled *c = NULL;
        gdt_error e = {0};
        gdt_plan_id_format(&l[i].id, name, sizeof name);
        if (ops->build(slot, f, &l[i].id, &o, &c, &info, &e) ||
            gdt_buffers_reserve_workspace(b, ops->workspace_size(c), &e)) {
            printf("bench %s %s: %s\n", who, name, e.msg);
            if (c) ops->destroy(c);
            continue;
        }
        gdt_bench_timing t = gdt_bench_time_plan(ops, c, b, 20);
        printf("bench %s %s: %.1f us, %.1f TFLOP/s, host enqueue %.2f us/call\n", who, name, t.device_us,
               f->flops / (t.device_us * 1e-6) / 1e12, t.host_us);
        if (t.device_us < best) best = t.device_us, snprintf(best_name, 512, "%s", name);
        ops->destroy(c);
    }
    return best;
}

static void bench_shape(const char *shape)
{
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_plan_entry *lt = NULL, *cd = NULL;
    int nlt = 0, ncd = 0;
    gdt_error e = {0};
    char lt_best[512] = "", cd_best[512] = "";
    if (!facts_for(shape, &f) || gdt_buffers_create(&f.problem, 7, &b, &e) ||
        gdt__cublaslt_engine.list(lt_slot(), &f, &lt, &nlt, &e) ||
        gdt_cudnn_backend()->list(NULL, &f, GDT_MODE_A, &cd, &ncd, &e)) {
        printf("bench %s: %s\n", shape, e.msg);
    } else {
        printf("bench %s on %s (%d SMs)\n", shape, dev.name, dev.sm_count);
        double x = bench_list("cublaslt", lt_slot(), lt_slot()->ops, &f, lt, nlt, b, lt_best);
        double y = bench_list("cudnn", NULL, &gdt__cudnn_ops, &f, cd, ncd, b, cd_best);
        printf("figure %s: best cuBLASLt %s %.1f TFLOP/s, best cuDNN mode-A %s %.1f TFLOP/s, "
               "cuBLASLt/cuDNN throughput %.3f\n", shape, lt_best, f.flops / (x * 1e-6) / 1e12, cd_best,
               f.flops / (y * 1e-6) / 1e12, y / x);
    }
    free(lt);
    free(cd);
    gdt_buffers_destroy(b);
}

int main(int argc, char **argv)
{
    gdt_error e = {0};
    if (!gdt__device_present() || gdt__device_props(0, &dev, NULL) != GDT_STATUS_OK) {
        printf("test_cublaslt: no CUDA device, skipped\n");
        return GDT_TEST_SKIP;
    }
    if (!gdt__cublaslt(&e)) {
        printf("test_cublaslt: %s, skipped\n", e.msg);
        return GDT_TEST_SKIP;
    }
    printf("device sm%d %s\n", dev.arch, dev.name);
    if (argc == 2 && !strcmp(argv[1], "--bench")) {
        bench_shape("m=4096,n=4096,k=4096");
        bench_shape("m=128,n=128,k=128"); /* host enqueue per call */
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: %s [--bench]\n", argv[0]);
        return 2;
    }
    for (int i = 0; i < NSMALL; i++) test_shape(small_shapes[i], false, i < 2);
    for (int i = 0; i < NLARGE; i++) test_shape(large_shapes[i], true, i == 1);
    test_planner();
    return gdt_test_result("test_cublaslt");
}
