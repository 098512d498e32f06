/* The flash-attention templates on the GPU: every surviving attention_fwd
 * and attention_bwd row, on small shapes (b2; (h_q, h_kv) in {(4,4),(4,2)};
 * s = 64 and 200; s_q = 96 against s_kv = 160 bottom-right; d 64 and 128;
 * causal and not; BHSD and BSHD; bf16 and fp16), matches the fp64 CPU
 * reference by relative L2 error under the dtype's bound: O and Stats
 * forward, dQ, dK and dV backward.  Outputs are poisoned before each run;
 * the backward runs twice per check (its plan zeroes its own dQ
 * accumulator).  Each shape runs in a child process, resumed after a row
 * that faults.  Returns 77 without a device.
 *
 *   test_nvrtc_attention           the test (children: --case I --from R)
 *   test_nvrtc_attention --bench   figures, not asserted: TFLOP/s of every
 *                                  row and of cuDNN's mode-A plans at b4 h32
 *                                  s4096 d128 bf16 causal, forward and backward
 * GDT_TEST_TUNING_CONFIG=FILE replaces the rows of the families FILE names
 * (both modes): staged rows are tested and timed that way. */
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
    "b=2,h_q=4,h_kv=4,s=64,d=64",
    "b=2,h_q=4,h_kv=2,s=200,d=64,causal=top_left,layout=bshd",
    "b=2,h_q=4,h_kv=2,s_q=96,s_kv=160,d=128,causal=bottom_right,dtype=fp16",
    "b=2,h_q=4,h_kv=4,s=200,d=128,dtype=fp16,layout=bshd",
    "b=2,h_q=4,h_kv=2,s=64,d=128,causal=top_left",
    "b=2,h_q=4,h_kv=4,s=200,d=64,causal=top_left,dtype=fp16",
    "b=2,h_q=4,h_kv=2,s_q=96,s_kv=160,d=64,causal=bottom_right,layout=bshd",
    "b=2,h_q=4,h_kv=2,s=200,d=128",
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])
#define NCASES (2 * NSHAPES) /* each shape forward, then backward */

static gdt_device_props dev;

static bool device_props(void)
{
    return gdt__device_present() && gdt__device_props(0, &dev, NULL) == GDT_STATUS_OK;
}

static const gdt_engine_slot *slot_for(gdt_family fam)
{
    return gdt_manifest_find_name(gdt_manifest_default(),
                                  fam == GDT_FAMILY_SDPA_FWD ? "sdpa_fwd.nvrtc" : "sdpa_bwd.nvrtc");
}

/* The default rows, with the families of GDT_TEST_TUNING_CONFIG (a
 * --tuning-config file) in place of theirs when it is set: how staged rows
 * run here before they join the defaults. */
static gdt_status load_rows(gdt_row_table **t, gdt_error *e)
{
    const char *override = getenv("GDT_TEST_TUNING_CONFIG");
    gdt_status st = gdt_rows_load_default(t, e);
    if (st == GDT_STATUS_OK && override && *override)
        st = gdt_rows_override(*t, override, e);
    return st;
}

static gdt_candidate *rows_for(gdt_family fam, const char *shape, gdt_facts *f, int *n)
{
    gdt_problem p;
    gdt_row_table *t = NULL;
    gdt_candidate *c = NULL;
    gdt_error e = {0};
    *n = 0;
    if (gdt_problem_parse(fam, shape, &p, &e) != GDT_STATUS_OK ||
        load_rows(&t, &e) != GDT_STATUS_OK) {
        printf("%s: %s\n", shape, e.msg);
        gdt_test_failures++;
        gdt_rows_destroy(t);
        return NULL;
    }
    gdt_facts_analyze(&p, &dev, f);
    CHECK_INT(gdt_candidates_materialize(t, slot_for(fam), f, &c, n, &e), ==, GDT_STATUS_OK);
    gdt_rows_destroy(t);
    return c;
}

static gdt_status build(gdt_family fam, const gdt_facts *f, const gdt_plan_id *id,
                        gdt_compiled **c, gdt_build_info *info, gdt_error *e)
{
    gdt_build_opts o = {dev, false, getenv("GDT_TEST_CACHE")};
    return slot_for(fam)->ops->build(slot_for(fam), f, id, &o, c, info, e);
}

static gdt_status device_sync(gdt_error *e)
{
    if (cudaDeviceSynchronize() != cudaSuccess)
        return gdt_error_set(e, GDT_STATUS_CUDA, "kernel: %s", cudaGetErrorString(cudaGetLastError()));
    return GDT_STATUS_OK;
}

/* Poisons the outputs and executes; the backward twice (the second run
 * starts from the first one's accumulator). */
static gdt_status poisoned_runs(const gdt_engine_ops *ops, gdt_compiled *c, gdt_buffers *b, int runs,
                                gdt_error *e)
{
    gdt_status st = GDT_STATUS_OK;
    for (int r = 0; r < runs && st == GDT_STATUS_OK; r++) {
        st = gdt_buffers_poison(b, NULL, e);
        if (st == GDT_STATUS_OK)
            st = ops->execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, e);
        if (st == GDT_STATUS_OK)
            st = device_sync(e);
    }
    return st;
}

static gdt_status run_plan(gdt_family fam, const gdt_facts *f, const gdt_plan_id *id, gdt_buffers *b,
                           const gdt_outputs *ref, double errs[4], gdt_error *e)
{
    const gdt_engine_ops *ops = slot_for(fam)->ops;
    gdt_compiled *c = NULL;
    gdt_build_info info;
    gdt_outputs got = {0};
    gdt_status st = ops->check_support(slot_for(fam), f, id, e);
    if (st == GDT_STATUS_OK)
        st = build(fam, f, id, &c, &info, e);
    if (st == GDT_STATUS_OK)
        st = gdt_buffers_reserve_workspace(b, ops->workspace_size(c), e);
    if (st == GDT_STATUS_OK)
        st = poisoned_runs(ops, c, b, fam == GDT_FAMILY_SDPA_BWD ? 2 : 1, e);
    if (st == GDT_STATUS_OK)
        st = gdt_outputs_read(b, &got, e);
    if (st == GDT_STATUS_OK)
        st = gdt_outputs_compare(&b->problem, &got, ref, errs, e);
    gdt_outputs_free(&got);
    ops->destroy(c);
    return st;
}

/* Child: the rows of one case from row `from` on; exit 3 after a fault. */
static int child(int ci, int from)
{
    gdt_family fam = ci % 2 ? GDT_FAMILY_SDPA_BWD : GDT_FAMILY_SDPA_FWD;
    const char *shape = shapes[ci / 2];
    gdt_facts f;
    gdt_error e = {0};
    gdt_buffers *b = NULL;
    gdt_outputs ref = {0};
    int n = 0;
    char name[512];
    gdt_candidate *c = rows_for(fam, shape, &f, &n);
    gdt_status st = c ? gdt_buffers_create(&f.problem, 4321 + (uint64_t)ci, &b, &e) : GDT_STATUS_INTERNAL;
    if (st == GDT_STATUS_OK)
        st = gdt_reference_cpu(b, 1e11, &ref, &e);
    if (st != GDT_STATUS_OK)
        printf("%s %s: FAILED: %s\n", gdt_family_name(fam), shape, e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    printf("device sm%d %s\n", dev.arch, dev.name);
    for (int ri = from; st == GDT_STATUS_OK && ri < n; ri++) {
        gdt_plan_id_format(&c[ri].id, name, sizeof name);
        if (c[ri].rejected || c[ri].duplicate_of_earlier) {
            printf("%s %s row %d: not run: %s\n", gdt_family_name(fam), shape, ri,
                   c[ri].rejected ? c[ri].reason : "duplicate");
            continue;
        }
        double err[4] = {0};
        gdt_status rs = run_plan(fam, &f, &c[ri].id, b, &ref, err, &e);
        if (rs == GDT_STATUS_OK) {
            printf("%s %s row %d %s: verified, rel L2 %.2e %.2e %.2e\n", gdt_family_name(fam), shape,
                   ri, name, err[0], err[1], err[2]);
            continue;
        }
        printf("%s %s row %d %s: FAILED: %s\n", gdt_family_name(fam), shape, ri, name, e.msg);
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

/* Counts the rows a child verified and marks which row indices passed. */
static int count_verified(const char *out, bool *rows, int nrows)
{
    int n = 0;
    for (const char *p = out; (p = strstr(p, " row ")); p += 5) {
        int ri = atoi(p + 5);
        const char *eol = strchr(p, '\n');
        const char *v = strstr(p, ": verified");
        if (v && (!eol || v < eol)) {
            n++;
            if (ri >= 0 && ri < nrows)
                rows[ri] = true;
        }
    }
    return n;
}

/* Parent: never touches CUDA; one child per case, resumed after a fault.
 * Every row index that survives somewhere must verify somewhere. */
static int parent(const char *self)
{
    static char out[1 << 17];
    char root[] = "/tmp/gdt_attn_cacheXXXXXX";
    bool seen[2][64] = {{false}};
    CHECK(mkdtemp(root) != NULL);
    setenv("GDT_TEST_CACHE", root, 1);
    for (int ci = 0; ci < NCASES; ci++) {
        int verified = 0, from = 0, rc;
        do {
            char which[16], first[16];
            snprintf(which, sizeof which, "%d", ci);
            snprintf(first, sizeof first, "%d", from);
            char *argv[] = {(char *)self, "--case", which, "--from", first, NULL};
            rc = gdt_test_spawn(argv, NULL, out, sizeof out);
            if (rc == GDT_TEST_SKIP) {
                printf("test_nvrtc_attention: no CUDA device, skipped\n");
                return GDT_TEST_SKIP;
            }
            fputs(out, stdout);
            CHECK_INT(rc, ==, 0);
            verified += count_verified(out, seen[ci % 2], 64);
            const char *fault = strstr(out, "fault at row ");
            from = fault ? atoi(fault + 13) + 1 : -1;
        } while (rc == 3 && from > 0);
        printf("case %d: %d rows verified\n", ci, verified);
        CHECK(verified >= 1);
    }
    for (int d = 0; d < 2; d++) {
        int nrows = 0;
        gdt_row_table *t = NULL;
        gdt_error e = {0};
        if (load_rows(&t, &e) == GDT_STATUS_OK)
            nrows = gdt_rows_count(t, d ? "attention_bwd" : "attention_fwd");
        gdt_rows_destroy(t);
        for (int r = 0; r < nrows && r < 64; r++)
            if (!seen[d][r])
                printf("%s row %d verified on no shape\n", d ? "attention_bwd" : "attention_fwd", r);
    }
    CHECK(gdt_test_remove_tree(root) == 0);
    return gdt_test_result("test_nvrtc_attention");
}

/* ------------------------------------------------------------- figures */

static double bench_one(const char *who, const gdt_engine_ops *ops, gdt_compiled *c, const gdt_facts *f,
                        gdt_buffers *b)
{
    gdt_error e = {0};
    if (gdt_buffers_reserve_workspace(b, ops->workspace_size(c) + 1, &e) != GDT_STATUS_OK) {
        printf("bench %s: %s\n", who, e.msg);
        return INFINITY;
    }
    double us = gdt_bench_time_plan(ops, c, b, 10).device_us;
    gdt_status st = device_sync(&e);
    if (st != GDT_STATUS_OK) {
        printf("bench %s: %s\n", who, e.msg);
        return INFINITY;
    }
    printf("bench %s: %.1f us, %.1f TFLOP/s\n", who, us, f->flops / (us * 1e-6) / 1e12);
    return us;
}

static double bench_rows(gdt_family fam, const gdt_facts *f, gdt_candidate *c, int n, gdt_buffers *b,
                         char *best_name, size_t nbest)
{
    double best = INFINITY;
    char name[512], who[640];
    for (int i = 0; i < n; i++) {
        gdt_compiled *k = NULL;
        gdt_build_info info;
        gdt_error e = {0};
        if (c[i].rejected || c[i].duplicate_of_earlier)
            continue;
        gdt_plan_id_format(&c[i].id, name, sizeof name);
        if (build(fam, f, &c[i].id, &k, &info, &e) != GDT_STATUS_OK) {
            printf("bench %s: %s\n", name, e.msg);
            continue;
        }
        snprintf(who, sizeof who, "%s (compile %.2f s)", name, info.compile_seconds);
        double us = bench_one(who, slot_for(fam)->ops, k, f, b);
        if (us < best)
            best = us, snprintf(best_name, nbest, "%s", name);
        slot_for(fam)->ops->destroy(k);
        if (cudaGetLastError() != cudaSuccess)
            break;
    }
    return best;
}

static double bench_cudnn(const gdt_facts *f, gdt_buffers *b)
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
    for (int i = 0; i < n && i < 3; i++) {
        gdt_compiled *c = NULL;
        gdt_build_opts o = {.device = dev};
        gdt_build_info info;
        gdt_plan_id_format(&l[i].id, name, sizeof name);
        if (gdt__cudnn_ops.build(NULL, f, &l[i].id, &o, &c, &info, &e) != GDT_STATUS_OK) {
            printf("bench cudnn %s: %s\n", name, e.msg);
            continue;
        }
        best = fmin(best, bench_one(name, &gdt__cudnn_ops, c, f, b));
        gdt__cudnn_ops.destroy(c);
    }
    free(l);
    return best;
}

static int bench(void)
{
    const char *shape = getenv("GDT_ATTN_BENCH_SHAPE");
    if (!shape)
        shape = "b=4,h_q=32,h_kv=32,s=4096,d=128,causal=top_left";
    for (gdt_family fam = GDT_FAMILY_SDPA_FWD; fam <= GDT_FAMILY_SDPA_BWD; fam++) {
        gdt_facts f;
        gdt_error e = {0};
        gdt_buffers *b = NULL;
        int n = 0;
        char best_name[512] = "(none)";
        gdt_candidate *c = rows_for(fam, shape, &f, &n);
        if (!c || gdt_buffers_create(&f.problem, 7, &b, &e) != GDT_STATUS_OK) {
            printf("bench %s: %s\n", shape, e.msg);
            free(c);
            return 1;
        }
        printf("bench %s %s on %s (%d SMs)\n", gdt_family_name(fam), shape, dev.name, dev.sm_count);
        double g = bench_rows(fam, &f, c, n, b, best_name, sizeof best_name);
        double k = bench_cudnn(&f, b);
        printf("figure %s %s: best generated %s %.1f TFLOP/s, best cuDNN %.1f TFLOP/s, ratio %.3f\n",
               gdt_family_name(fam), shape, best_name, f.flops / (g * 1e-6) / 1e12,
               f.flops / (k * 1e-6) / 1e12, k / g);
        gdt_buffers_destroy(b);
        free(c);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--bench"))
        return device_props() ? bench() : GDT_TEST_SKIP;
    if (argc >= 5 && !strcmp(argv[1], "--case")) {
        if (!device_props())
            return GDT_TEST_SKIP;
        return child(atoi(argv[2]), atoi(argv[4]));
    }
    return parent(argv[0]);
}
