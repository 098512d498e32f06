/* gdt_graph_autotune on the device, for one GEMM shape planned from the
 * committed tables (the untimed order on an arch they do not cover): the
 * candidates come in list order, at most the list's first plus each side's
 * quota; every candidate is timed or says why not; the winner ran, and it
 * is the list's first unless it beats it beyond the margin; the graph is
 * left pinned on the winner, and executing it on poisoned outputs matches
 * the fp64 CPU reference (the reference test_cudnn and test_cublaslt use)
 * within the dtype's bound.  With no room for others (backend, library and
 * ours 0) the list's first is the only candidate and the winner.  With
 * wisdom: the first autotune measures and puts its winner, saved and
 * loaded back; a second autotune of a fresh graph with it measures nothing
 * (from_wisdom, one candidate), is left on the same plan, and that plan
 * matches the reference too.  Returns
 * 77 without a device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_test.h"
#include "gdt_verify.h"
#include "gdtune/autotune.h"

#define SHAPE "m=192,n=1024,k=576"

static gdt_device_props dev;

static gdt_graph *planned(const gdt_problem *p, const gdt_tables *t)
{
    gdt_graph *g = NULL;
    gdt_error e = {0};
    gdt_plan_options po = {.tables = t, .backend = gdt_cudnn_backend()};
    CHECK_INT(gdt_graph_create(p, &dev, &g, &e), ==, GDT_STATUS_OK);
    if (g && gdt_graph_plan(g, &po, &e) != GDT_STATUS_OK) {
        printf("plan: %s\n", e.msg);
        gdt_test_failures++;
    }
    return g;
}

static void report_checks(const gdt_autotune_report *r, const gdt_autotune_opts *o)
{
    int per_side[GDT_PLAN_SIDE_COUNT] = {0};
    char name[512];
    for (int i = 0; i < r->n; i++) {
        const gdt_autotune_candidate *c = &r->c[i];
        gdt_plan_id_format(&c->id, name, sizeof name);
        printf("  %3d %-8s %10.2f us  %s%s%s\n", c->index, gdt_plan_side_label(c->side), c->median_us, name,
               c->why[0] ? ": " : "", c->why);
        if (i) CHECK_INT(c->index, >, r->c[i - 1].index);
        per_side[c->side]++;
        CHECK(c->status == GDT_STATUS_OK ? isfinite(c->median_us) && c->median_us > 0 && !c->why[0]
                                         : isnan(c->median_us) && c->why[0]);
    }
    CHECK_INT(per_side[GDT_PLAN_SIDE_BACKEND], <=, o->backend + 1);
    CHECK_INT(per_side[GDT_PLAN_SIDE_OURS], <=, o->ours + 1);
    CHECK_INT(per_side[GDT_PLAN_SIDE_LIBRARY], <=, o->library + 1);
    CHECK_INT(per_side[GDT_PLAN_SIDE_BACKEND] + per_side[GDT_PLAN_SIDE_OURS] + per_side[GDT_PLAN_SIDE_LIBRARY],
              <=, o->backend + o->library + o->ours + 1);
    CHECK(r->winner >= 0 && r->winner < r->n && r->first >= 0 && r->first < r->n);
    if (r->winner < 0 || r->first < 0) return;
    for (int i = 0; i < r->first; i++) CHECK_INT(r->c[i].status, !=, GDT_STATUS_OK);
    const gdt_autotune_candidate *w = &r->c[r->winner], *f = &r->c[r->first];
    CHECK_INT(w->status, ==, GDT_STATUS_OK);
    if (r->winner != r->first) CHECK(w->median_us * (1 + o->margin) < f->median_us);
    if (r->heuristic >= 0) CHECK_INT(r->c[r->heuristic].side, ==, GDT_PLAN_SIDE_BACKEND);
}

/* The graph as autotune left it: pinned on the winner, and right. */
static void winner_checks(gdt_graph *g, gdt_buffers *b, const gdt_outputs *ref, int index, void *stream)
{
    gdt_error e = {0};
    gdt_outputs got = {0};
    double err[4] = {0};
    gdt_build_opts bo = {.device = dev};
    gdt_status s = gdt_buffers_reserve_workspace(b, gdt_graph_workspace_size(g), &e);
    if (!s) s = gdt_buffers_poison(b, stream, &e);
    if (!s) s = gdt_graph_execute(g, &b->ops, b->workspace, b->workspace_bytes, stream, &e);
    if (!s && cudaStreamSynchronize((cudaStream_t)stream) != cudaSuccess)
        s = gdt_error_set(&e, GDT_STATUS_CUDA, "cudaStreamSynchronize failed");
    if (!s) s = gdt_outputs_read(b, &got, &e);
    if (!s) s = gdt_outputs_compare(&b->problem, &got, ref, err, &e);
    printf("winner executed: %s (C relative L2 %.2e)\n", s ? e.msg : "matches the fp64 reference", err[0]);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    gdt_outputs_free(&got);
    int built = -1;
    CHECK_INT(gdt_graph_build(g, &bo, &built, &e), ==, GDT_STATUS_OK); /* pinned: builds only the winner */
    CHECK_INT(built, ==, index);
}

static void autotune_case(const gdt_problem *p, const gdt_tables *t, const gdt_autotune_opts *o,
                          gdt_buffers *b, const gdt_outputs *ref, void *stream)
{
    gdt_graph *g = planned(p, t);
    gdt_autotune_report r;
    gdt_error e = {0};
    gdt_build_opts bo = {.device = dev};
    gdt_status s = gdt_graph_autotune(g, &bo, &b->ops, b->workspace, b->workspace_bytes, stream, o, &r, &e);
    printf("autotune (backend %d, library %d, ours %d): %s; %d candidates, winner %d, first %d, heuristic %d\n",
           o->backend, o->library, o->ours, s ? e.msg : "ok", r.n, r.winner, r.first, r.heuristic);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    if (!s) report_checks(&r, o);
    if (!s) winner_checks(g, b, ref, r.c[r.winner].index, stream);
    if (!s && o->backend == 0 && o->library == 0 && o->ours == 0) {
        CHECK_INT(r.n, ==, 1);
        CHECK_INT(r.winner, ==, 0);
    }
    gdt_graph_destroy(g);
}

/* A wisdom kept across two autotunes (as across two processes: saved,
 * destroyed, loaded). */
static void wisdom_case(const gdt_problem *p, const gdt_tables *t, gdt_buffers *b, const gdt_outputs *ref,
                        void *stream)
{
    char dir[] = "/tmp/gdt_autotune_wisdom_XXXXXX", path[128];
    gdt_error e = {0};
    gdt_wisdom *w = NULL;
    gdt_autotune_opts o;
    gdt_autotune_report r1, r2;
    gdt_build_opts bo = {.device = dev};
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/w.json", dir);
    gdt_autotune_opts_default(&o);
    CHECK_INT(gdt_wisdom_load(path, &w, &e), ==, GDT_STATUS_OK);
    o.wisdom = w;
    gdt_graph *g = planned(p, t);
    CHECK_INT(gdt_graph_autotune(g, &bo, &b->ops, b->workspace, b->workspace_bytes, stream, &o, &r1, &e), ==,
              GDT_STATUS_OK);
    CHECK(!r1.from_wisdom);
    CHECK_INT(gdt_wisdom_count(w), ==, 1);
    CHECK_INT(gdt_wisdom_save(w, path, &e), ==, GDT_STATUS_OK);
    gdt_wisdom_destroy(w);
    gdt_graph_destroy(g);
    w = NULL;
    CHECK_INT(gdt_wisdom_load(path, &w, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_wisdom_count(w), ==, 1);
    o.wisdom = w;
    g = planned(p, t);
    gdt_status s = gdt_graph_autotune(g, &bo, &b->ops, b->workspace, b->workspace_bytes, stream, &o, &r2, &e);
    printf("autotune from wisdom: %s; from_wisdom %d, %d candidates\n", s ? e.msg : "ok", r2.from_wisdom, r2.n);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    CHECK(r2.from_wisdom);
    CHECK_INT(r2.n, ==, 1);
    if (!s && r1.winner >= 0 && r2.n == 1) {
        CHECK(gdt_plan_id_equal(&r2.c[0].id, &r1.c[r1.winner].id));
        CHECK_INT(r2.c[0].index, ==, r1.c[r1.winner].index); /* the same list: the same position */
        CHECK_NEAR(r2.c[0].median_us, r1.c[r1.winner].median_us, 1e-6 * r1.c[r1.winner].median_us);
        winner_checks(g, b, ref, r2.c[0].index, stream);
    }
    gdt_graph_destroy(g);
    gdt_wisdom_destroy(w);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    gdt_error e = {0};
    if (!gdt__device_present() || gdt__device_props(0, &dev, NULL) != GDT_STATUS_OK) {
        printf("test_autotune: no CUDA device, skipped\n");
        return GDT_TEST_SKIP;
    }
    gdt_problem p;
    gdt_buffers *b = NULL;
    gdt_outputs ref = {0};
    gdt_tables *t = NULL;
    cudaStream_t stream = NULL;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, SHAPE, &p, &e), ==, GDT_STATUS_OK);
    if (gdt_tables_load(GDT_SOURCE_DIR "/tables", GDT_FAMILY_GEMM, dev.arch, &t, &e) != GDT_STATUS_OK)
        printf("tables: %s (untimed order)\n", e.msg);
    CHECK_INT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), ==, cudaSuccess);
    CHECK_INT(gdt_buffers_create(&p, 17, &b, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_reference_cpu(b, 1e10, &ref, &e), ==, GDT_STATUS_OK);
    if (!gdt_test_failures) {
        gdt_autotune_opts o;
        gdt_autotune_opts_default(&o);
        autotune_case(&p, t, &o, b, &ref, stream);
        o.backend = o.library = o.ours = 0;
        autotune_case(&p, t, &o, b, &ref, stream);
        wisdom_case(&p, t, b, &ref, stream);
    }
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);
    gdt_tables_destroy(t);
    if (stream) cudaStreamDestroy(stream);
    return gdt_test_result("test_autotune");
}
