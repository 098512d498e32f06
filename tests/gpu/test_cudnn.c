/* The cuDNN engine on a GPU: for small gemm and SDPA shapes every mode-A
 * plan builds, runs on random inputs and matches the fp64 CPU reference
 * under the dtype's bound; lists are tagged per mode; knob enumeration
 * yields configs that build (and then verify) or are declined with a
 * reason; execute refuses undersized buffers naming them; a plan reused on
 * other buffers stays right (the variant pack follows the pointers); a plan
 * finalized from the plan cache verifies, and a corrupted entry is a miss.
 *
 * GDT_CUDNN_TEST_BUDGET (seconds, default 240) bounds the shape loop: shapes
 * left when it runs out are reported as skipped.  GDT_TEST_FIGURES=1 also
 * prints figures (not asserted): build time, host enqueue and device time
 * per execute across bursts for the first mode-A plan of large shapes. */
#include <dirent.h>
#include <math.h>
#include <string.h>

#include <cuda_runtime.h>

#include "cudnn/gdt_cudnn.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "gdt_verify.h"

static gdt_device_props dev;
static double deadline;
static int n_built, n_declined, n_verified, n_skipped;

/* ---------------------------------------------------------------- shapes */

static gdt_problem gemm(bool a_row, bool b_row, gdt_dtype t, int64_t b, int64_t m, int64_t n, int64_t k)
{
    gdt_problem p;
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    p.u.gemm.batch = b, p.u.gemm.m = m, p.u.gemm.n = n, p.u.gemm.k = k, p.u.gemm.dtype = t;
    p.u.gemm.a_stride[2] = a_row ? 1 : 0;
    p.u.gemm.b_stride[2] = b_row ? 1 : 0;
    gdt_problem_set_strides(&p);
    return p;
}

typedef struct sdpa_shape {
    int64_t b, h_q, h_kv, s, d;
    gdt_causal causal;
    gdt_layout layout;
    gdt_dtype dtype;
} sdpa_shape;

static gdt_problem sdpa(gdt_family f, sdpa_shape x)
{
    gdt_problem p;
    gdt_problem_default(f, &p);
    gdt_sdpa_desc *s = &p.u.sdpa;
    s->b = x.b, s->h_q = x.h_q, s->h_kv = x.h_kv, s->s_q = s->s_kv = x.s, s->d = x.d;
    s->causal = x.causal, s->layout = x.layout, s->dtype = x.dtype;
    s->scale = 1.0 / sqrt((double)x.d);
    gdt_problem_set_strides(&p);
    return p;
}

/* Ordered so that the first few already cover every axis. */
static const sdpa_shape shapes[] = {
    {2, 4, 2, 128, 64, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BHSD, GDT_DTYPE_BF16},
    {2, 4, 2, 256, 128, GDT_CAUSAL_NONE, GDT_LAYOUT_BSHD, GDT_DTYPE_FP16},
    {2, 4, 2, 128, 128, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD, GDT_DTYPE_BF16},
    {2, 4, 2, 256, 64, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BSHD, GDT_DTYPE_BF16},
    {2, 4, 2, 128, 64, GDT_CAUSAL_NONE, GDT_LAYOUT_BSHD, GDT_DTYPE_FP16},
    {2, 4, 2, 256, 128, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BHSD, GDT_DTYPE_FP16},
    {2, 4, 2, 128, 128, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BSHD, GDT_DTYPE_BF16},
    {2, 4, 2, 256, 64, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD, GDT_DTYPE_BF16},
    {2, 4, 2, 128, 64, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BSHD, GDT_DTYPE_BF16},
    {2, 4, 2, 256, 128, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD, GDT_DTYPE_BF16},
    {2, 4, 2, 128, 128, GDT_CAUSAL_NONE, GDT_LAYOUT_BSHD, GDT_DTYPE_BF16},
    {2, 4, 2, 256, 64, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BHSD, GDT_DTYPE_FP16},
    {2, 4, 2, 128, 64, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD, GDT_DTYPE_BF16},
    {2, 4, 2, 256, 128, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BSHD, GDT_DTYPE_BF16},
    {2, 4, 2, 128, 128, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BHSD, GDT_DTYPE_BF16},
    {2, 4, 2, 256, 64, GDT_CAUSAL_NONE, GDT_LAYOUT_BSHD, GDT_DTYPE_BF16},
};

/* ------------------------------------------------------------ plan runs */

static void say(const char *what, const gdt_plan_id *id, const char *msg)
{
    char name[256];
    gdt_plan_id_format(id, name, sizeof name);
    printf("  %s %s%s%s\n", what, name, msg ? ": " : "", msg ? msg : "");
}

static gdt_status build(const gdt_facts *f, const gdt_plan_id *id, gdt_compiled **c, gdt_error *e)
{
    gdt_build_opts opts = {.device = dev};
    gdt_build_info info;
    gdt_status s = gdt__cudnn_ops.build(NULL, f, id, &opts, c, &info, e);
    if (s == GDT_STATUS_OK)
        n_built++;
    return s;
}

/* Runs c on b and compares with ref. */
static gdt_status run_check(gdt_compiled *c, gdt_buffers *b, const gdt_outputs *ref, gdt_error *e)
{
    gdt_outputs got;
    double err[4];
    gdt_status s = gdt_buffers_reserve_workspace(b, gdt__cudnn_ops.workspace_size(c) + 1, e);
    if (s == GDT_STATUS_OK)
        s = gdt_buffers_restore(b, NULL, e);
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_ops.execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, e);
    if (s == GDT_STATUS_OK)
        s = gdt_outputs_read(b, &got, e);
    if (s != GDT_STATUS_OK)
        return s;
    s = gdt_outputs_compare(&b->problem, &got, ref, err, e);
    gdt_outputs_free(&got);
    if (s == GDT_STATUS_OK)
        n_verified++;
    return s;
}

/* Builds, runs and verifies one plan; a decline is allowed only when
 * may_decline, and must carry a reason. */
static void plan_check(const gdt_facts *f, const gdt_plan_id *id, gdt_buffers *b, const gdt_outputs *ref,
                       bool may_decline)
{
    gdt_compiled *c = NULL;
    gdt_error e = {0};
    gdt_status s = build(f, id, &c, &e);
    if (s == GDT_STATUS_NOT_SUPPORTED && may_decline) {
        n_declined++;
        CHECK_CONTAINS(e.msg, "declined");
        say("declined", id, e.msg);
        return;
    }
    if (s == GDT_STATUS_OK)
        s = run_check(c, b, ref, &e);
    if (s != GDT_STATUS_OK)
        say("FAILED", id, e.msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    gdt__cudnn_ops.destroy(c);
}

/* ------------------------------------------------------------- per mode */

static const char *mode_name(gdt_mode m)
{
    static const char *names[] = {"A", "B", "FALLBACK", "OPENSOURCE", "enumerated"};
    return names[m];
}

static void check_tags(const gdt_plan_entry *l, int n, gdt_mode mode, const gdt_problem *p)
{
    for (int i = 0; i < n; i++) {
        CHECK(l[i].is_backend && !l[i].is_marker);
        CHECK_INT(l[i].mode, ==, mode);
        CHECK_INT(l[i].id.engine_id, <, GDT_ENGINE_ID_BACKEND_END);
        CHECK(l[i].why != NULL);
    }
    /* Unified-op plans (GRAPH=1), when the backend offers any, come first. */
    int unified = 0;
    for (int i = 0; i < n; i++)
        if (gdt_plan_id_knob(&l[i].id, GDT_KNOB_GRAPH, 0) == 1) {
            CHECK_INT(i, ==, unified);
            unified++;
        }
    if (unified)
        printf("  %d of them from the unified SDPA_FWD op\n", unified);
    if (unified)
        CHECK(p->family == GDT_FAMILY_SDPA_FWD && p->u.sdpa.causal == GDT_CAUSAL_NONE);
}

/* Mode-A plans are all built and verified; of B and FALLBACK the first,
 * when deep (the first shapes), else only their tags are checked. */
static void mode_check(const gdt_facts *f, gdt_mode mode, gdt_buffers *b, const gdt_outputs *ref, bool deep)
{
    gdt_plan_entry *l = NULL;
    int n = 0;
    gdt_error e = {0};
    gdt_status s = gdt_cudnn_backend()->list(NULL, f, mode, &l, &n, &e);
    if (s != GDT_STATUS_OK)
        printf("  list %s failed: %s\n", mode_name(mode), e.msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    printf("  mode %s: %d plans\n", mode_name(mode), n);
    check_tags(l, n, mode, &f->problem);
    if (mode == GDT_MODE_A) {
        CHECK_INT(n, >, 0);
        for (int i = 0; i < n; i++)
            plan_check(f, &l[i].id, b, ref, false);
    } else if (n > 0 && deep) {
        plan_check(f, &l[0].id, b, ref, mode == GDT_MODE_FALLBACK);
    }
    free(l);
}

static void enumerate_check(const gdt_facts *f, gdt_buffers *b, const gdt_outputs *ref, int cap)
{
    gdt_plan_entry *l = NULL;
    int n = 0;
    gdt_error e = {0};
    CHECK_INT(gdt_cudnn_enumerate(f, cap, &l, &n, &e), ==, GDT_STATUS_OK);
    printf("  enumerate (cap %d per engine): %d configs\n", cap, n);
    CHECK_INT(n, >, 0);
    for (int i = 0; i < n; i++) {
        CHECK_INT(l[i].mode, ==, GDT_MODE_COUNT);
        CHECK(l[i].is_backend);
        plan_check(f, &l[i].id, b, ref, true);
    }
    free(l);
}

/* ----------------------------------------------------- refusals and reuse */

static void refusals(const gdt_facts *f, gdt_buffers *b)
{
    gdt_plan_entry *l = NULL;
    int n = 0;
    gdt_error e = {0};
    gdt_compiled *c = NULL;
    if (gdt_cudnn_backend()->list(NULL, f, GDT_MODE_A, &l, &n, &e) != GDT_STATUS_OK || n == 0 ||
        build(f, &l[0].id, &c, &e) != GDT_STATUS_OK) {
        CHECK(0);
        free(l);
        return;
    }
    gdt_operands ops = b->ops;
    gdt_operand_role first = f->family == GDT_FAMILY_GEMM ? GDT_OPERAND_A : GDT_OPERAND_Q;
    ops.bytes[first] -= 2;
    CHECK_INT(gdt__cudnn_ops.execute(c, &ops, b->workspace, b->workspace_bytes, NULL, &e), ==,
              GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, f->family == GDT_FAMILY_GEMM ? "operand A" : "operand Q");
    size_t need = gdt__cudnn_ops.workspace_size(c);
    if (need > 0) {
        CHECK_INT(gdt__cudnn_ops.execute(c, &b->ops, b->workspace, need - 1, NULL, &e), ==,
                  GDT_STATUS_BAD_INPUT);
        CHECK_CONTAINS(e.msg, "workspace");
    }
    gdt__cudnn_ops.destroy(c);
    free(l);
}

/* The same compiled plan on a second set of buffers (other pointers,
 * other data) must give that set's answer. */
static void reuse(const gdt_facts *f, gdt_buffers *b1, const gdt_outputs *ref1)
{
    gdt_plan_entry *l = NULL;
    int n = 0;
    gdt_error e = {0};
    gdt_compiled *c = NULL;
    gdt_buffers *b2 = NULL;
    gdt_outputs ref2 = {0};
    CHECK_INT(gdt_cudnn_backend()->list(NULL, f, GDT_MODE_A, &l, &n, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_buffers_create(&f->problem, 99, &b2, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_reference_cpu(b2, 1e10, &ref2, &e), ==, GDT_STATUS_OK);
    if (n > 0 && b2 && build(f, &l[0].id, &c, &e) == GDT_STATUS_OK) {
        CHECK_INT(run_check(c, b1, ref1, &e), ==, GDT_STATUS_OK);
        CHECK_INT(run_check(c, b2, &ref2, &e), ==, GDT_STATUS_OK);
        CHECK_INT(run_check(c, b1, ref1, &e), ==, GDT_STATUS_OK);
    } else {
        CHECK(0);
    }
    gdt__cudnn_ops.destroy(c);
    gdt_outputs_free(&ref2);
    gdt_buffers_destroy(b2);
    free(l);
}

/* -------------------------------------------------- plans from the cache */

/* One build through the cache at root: its seconds, and whether it hit. */
static gdt_status build_at(const gdt_facts *f, const gdt_plan_id *id, const char *root,
                           gdt_compiled **c, bool *hit, double *s_out, gdt_error *e)
{
    gdt_build_opts opts = {.device = dev, .cache_dir = root};
    gdt_build_info info = {0};
    double t0 = gdt_now();
    gdt_status s = gdt__cudnn_ops.build(NULL, f, id, &opts, c, &info, e);
    *s_out = gdt_now() - t0;
    *hit = s == GDT_STATUS_OK && info.cache_hit;
    return s;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

/* The <key>.plan entries under root/<env>/, each with a byte flipped when
 * flip; returns how many (flipped). */
static int each_plan(const char *root, bool flip)
{
    char env[600], path[900];
    int n = 0;
    DIR *r = opendir(root), *d;
    struct dirent *x, *y;
    while (r && (x = readdir(r))) {
        if (x->d_name[0] == '.')
            continue;
        snprintf(env, sizeof env, "%s/%s", root, x->d_name);
        for (d = opendir(env); d && (y = readdir(d));) {
            snprintf(path, sizeof path, "%s/%s", env, y->d_name);
            n += ends_with(y->d_name, ".plan") && (!flip || gdt_test_flip_byte(path, 0.5));
        }
        if (d)
            closedir(d);
    }
    if (r)
        closedir(r);
    return n;
}

/* Every enumerated config built twice through a fresh cache: the second
 * build of each plan the backend serialized finalizes from the cache and
 * still verifies; after every entry is corrupted, builds miss and still
 * verify.  For GEMM the runtime-compiled engines must serialize. */
static void cached(const gdt_facts *f, gdt_buffers *b, const gdt_outputs *ref)
{
    char root[] = "/tmp/gdt_cudnn_planXXXXXX";
    gdt_plan_entry *l = NULL;
    int n = 0, hits = 0, stale_hits = 0, stored = 0;
    double cold = 0, warm = 0;
    gdt_error e = {0};
    CHECK(mkdtemp(root) != NULL);
    CHECK_INT(gdt_cudnn_enumerate(f, f->family == GDT_FAMILY_GEMM ? 4 : 2, &l, &n, &e), ==, GDT_STATUS_OK);
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1)
            stored = each_plan(root, false);
        if (pass == 2)
            CHECK_INT(each_plan(root, true), ==, stored);
        for (int i = 0; i < n; i++) {
            gdt_compiled *c = NULL;
            bool hit;
            double sec;
            if (build_at(f, &l[i].id, root, &c, &hit, &sec, &e) != GDT_STATUS_OK)
                continue; /* declined: enumerate_check covers declines */
            CHECK(!(pass == 0 && hit));
            if (hit)
                say("from the cache", &l[i].id, NULL);
            hits += pass == 1 && hit, stale_hits += pass == 2 && hit;
            cold += pass == 0 ? sec : 0, warm += pass == 1 ? sec : 0;
            CHECK_INT(run_check(c, b, ref, &e), ==, GDT_STATUS_OK);
            gdt__cudnn_ops.destroy(c);
        }
    }
    printf("  plan cache: %d of %d configs stored, %d from the cache; builds %.2f s cold, %.2f s "
           "warm\n", stored, n, hits, cold, warm);
    CHECK_INT(hits, ==, stored);
    if (f->family == GDT_FAMILY_GEMM)
        CHECK_INT(stored, >, 0);
    CHECK_INT(stale_hits, ==, 0);
    gdt_test_remove_tree(root);
    free(l);
}

/* ------------------------------------------------------------ a problem */

typedef enum { DO_MODES = 1, DO_ENUM = 2, DO_EXTRA = 4 } todo;

static void problem_check(const gdt_problem *p, unsigned what)
{
    char key[256];
    gdt_problem_key(p, key, sizeof key);
    if (gdt_now() > deadline) {
        printf("%s: skipped (test budget spent)\n", key);
        n_skipped++;
        return;
    }
    printf("%s\n", key);
    gdt_facts f;
    gdt_facts_analyze(p, &dev, &f);
    gdt_buffers *b = NULL;
    gdt_outputs ref = {0};
    gdt_error e = {0};
    gdt_status s = gdt_buffers_create(p, 7, &b, &e);
    if (s == GDT_STATUS_OK)
        s = gdt_reference_cpu(b, 1e10, &ref, &e);
    if (s != GDT_STATUS_OK)
        printf("  setup failed: %s\n", e.msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    if (s == GDT_STATUS_OK) {
        if (what & DO_MODES)
            for (int m = GDT_MODE_A; m <= GDT_MODE_FALLBACK; m++)
                mode_check(&f, (gdt_mode)m, b, &ref, what & (DO_ENUM | DO_EXTRA));
        if (what & DO_ENUM)
            enumerate_check(&f, b, &ref, p->family == GDT_FAMILY_GEMM ? 4 : 2);
        if (what & DO_EXTRA) {
            refusals(&f, b);
            reuse(&f, b, &ref);
            cached(&f, b, &ref);
        }
    }
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);
}

/* ------------------------------------------------------------ figures */

/* Device us per call over a burst of n executes; host enqueue per call in
 * *host_us.  Negative when an execute failed (the numbers would be of
 * nothing). */
static double burst(gdt_compiled *c, gdt_buffers *b, int n, cudaEvent_t ev[2], double *host_us)
{
    gdt_error e = {0};
    gdt_status s = GDT_STATUS_OK;
    cudaDeviceSynchronize();
    cudaEventRecord(ev[0], NULL);
    double t0 = gdt_now();
    for (int i = 0; i < n && s == GDT_STATUS_OK; i++)
        s = gdt__cudnn_ops.execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, &e);
    *host_us = (gdt_now() - t0) * 1e6 / n;
    cudaEventRecord(ev[1], NULL);
    if (cudaEventSynchronize(ev[1]) != cudaSuccess || s != GDT_STATUS_OK) {
        printf("  burst of %d failed: %s\n", n, s != GDT_STATUS_OK ? e.msg : "event sync");
        return -1;
    }
    float ms = 0;
    cudaEventElapsedTime(&ms, ev[0], ev[1]);
    return ms * 1e3 / n;
}

static void bench_one(const gdt_problem *p)
{
    char key[256], name[256];
    gdt_problem_key(p, key, sizeof key);
    gdt_facts f;
    gdt_facts_analyze(p, &dev, &f);
    gdt_plan_entry *l = NULL;
    int n = 0;
    gdt_error e = {0};
    gdt_buffers *b = NULL;
    if (gdt_buffers_create(p, 11, &b, &e) != GDT_STATUS_OK ||
        gdt_cudnn_backend()->list(NULL, &f, GDT_MODE_A, &l, &n, &e) != GDT_STATUS_OK) {
        printf("bench %s: %s\n", key, e.msg);
        gdt_buffers_destroy(b);
        return;
    }
    cudaEvent_t ev[2];
    cudaEventCreate(&ev[0]);
    cudaEventCreate(&ev[1]);
    for (int i = 0; i < n && i < 3; i++) {
        gdt_compiled *c = NULL;
        gdt_build_opts opts = {.device = dev};
        gdt_build_info info;
        gdt_plan_id_format(&l[i].id, name, sizeof name);
        if (gdt__cudnn_ops.build(NULL, &f, &l[i].id, &opts, &c, &info, &e) != GDT_STATUS_OK ||
            gdt_buffers_reserve_workspace(b, gdt__cudnn_ops.workspace_size(c) + 1, &e) != GDT_STATUS_OK) {
            printf("bench %s %s: %s\n", key, name, e.msg);
            gdt__cudnn_ops.destroy(c);
            continue;
        }
        double host, dev_us;
        printf("bench %s %s: build %.1f ms, workspace %zu B\n", key, name, info.compile_seconds * 1e3,
               gdt__cudnn_ops.workspace_size(c));
        /* warm-up: the first execute finalizes the variant pack */
        dev_us = burst(c, b, 3, ev, &host);
        static const int bursts[] = {1, 4, 16, 64};
        for (int k = 0; k < 4 && dev_us >= 0; k++) {
            if ((dev_us = burst(c, b, bursts[k], ev, &host)) < 0)
                break;
            printf("  burst %2d: host enqueue %.2f us/call, device %.1f us/call, %.1f TFLOP/s\n", bursts[k],
                   host, dev_us, f.flops / (dev_us * 1e-6) / 1e12);
        }
        gdt__cudnn_ops.destroy(c);
    }
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    free(l);
    gdt_buffers_destroy(b);
}

static void bench(void)
{
    gdt_problem g = gemm(true, true, GDT_DTYPE_BF16, 1, 4096, 4096, 4096);
    bench_one(&g);
    g = gemm(true, true, GDT_DTYPE_BF16, 1, 128, 128, 128);
    bench_one(&g);
    sdpa_shape big = {4, 32, 32, 4096, 128, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BSHD, GDT_DTYPE_BF16};
    gdt_problem s = sdpa(GDT_FAMILY_SDPA_FWD, big);
    bench_one(&s);
    s = sdpa(GDT_FAMILY_SDPA_BWD, big);
    bench_one(&s);
}

/* ---------------------------------------------------------------- main */

static bool device_props(void)
{
    return gdt__device_present() && gdt__device_props(0, &dev, NULL) == GDT_STATUS_OK;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep the log up to a crash */
    if (!device_props()) {
        printf("test_cudnn: no CUDA device, skipped\n");
        return GDT_TEST_SKIP;
    }
    const char *bud = getenv("GDT_CUDNN_TEST_BUDGET");
    deadline = gdt_now() + (bud ? atof(bud) : 240.0);
    printf("device %s sm%d, cuDNN runtime %d (headers %d)\n", dev.name, dev.arch,
           gdt_cudnn_runtime_version(), CUDNN_VERSION);
    static const struct { bool a_row, b_row; gdt_dtype t; } gemms[] = {
        {true, true, GDT_DTYPE_BF16}, {false, false, GDT_DTYPE_BF16}, {true, true, GDT_DTYPE_FP16},
        {false, false, GDT_DTYPE_FP16}, {true, false, GDT_DTYPE_BF16},
    };
    for (int i = 0; i < 5; i++) {
        gdt_problem p = gemm(gemms[i].a_row, gemms[i].b_row, gemms[i].t, 2, 192, 160, 96);
        problem_check(&p, DO_MODES | (i == 0 ? DO_ENUM | DO_EXTRA : 0));
    }
    /* Bottom-right causal with s_q < s_kv: the shifted-row mask. */
    sdpa_shape br = {2, 4, 2, 128, 64, GDT_CAUSAL_BOTTOM_RIGHT, GDT_LAYOUT_BHSD, GDT_DTYPE_BF16};
    for (int f = GDT_FAMILY_SDPA_FWD; f <= GDT_FAMILY_SDPA_BWD; f++) {
        gdt_problem p = sdpa((gdt_family)f, br);
        p.u.sdpa.s_kv = 256;
        gdt_problem_set_strides(&p);
        problem_check(&p, DO_MODES);
    }
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        unsigned extra = i < 2 ? DO_ENUM : 0;
        gdt_problem p = sdpa(GDT_FAMILY_SDPA_FWD, shapes[i]);
        problem_check(&p, DO_MODES | extra);
        p = sdpa(GDT_FAMILY_SDPA_BWD, shapes[i]);
        problem_check(&p, DO_MODES | extra | (i == 0 ? DO_EXTRA : 0));
    }
    printf("plans built %d, verified %d, declined %d; shapes skipped %d\n", n_built, n_verified,
           n_declined, n_skipped);
    if (gdt_test_figures())
        bench();
    return gdt_test_result("test_cudnn");
}
