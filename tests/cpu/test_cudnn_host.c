/* The cuDNN engine on a host without a GPU: every lowering finalizes as a
 * backend operation graph (op-graph finalize needs no device), the support
 * rules decline with their reasons, and everything that needs a device
 * (heuristics, enumeration, plan build) refuses cleanly. */
#include <math.h>

#include "cudnn/gdt_cudnn.h"
#include "gdt_test.h"

static gdt_problem gemm(int64_t m, int64_t n, int64_t k, bool a_row, gdt_dtype t)
{
    gdt_problem p;
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    p.u.gemm.batch = 2, p.u.gemm.m = m, p.u.gemm.n = n, p.u.gemm.k = k, p.u.gemm.dtype = t;
    p.u.gemm.a_stride[2] = a_row ? 1 : 0;
    gdt_problem_set_strides(&p);
    return p;
}

static gdt_problem sdpa(gdt_family f, int64_t s_q, int64_t s_kv, int64_t d, int64_t h_kv,
                        gdt_causal causal, gdt_layout layout)
{
    gdt_problem p;
    gdt_problem_default(f, &p);
    gdt_sdpa_desc *s = &p.u.sdpa;
    s->b = 2, s->h_q = 4, s->h_kv = h_kv, s->s_q = s_q, s->s_kv = s_kv, s->d = d;
    s->causal = causal, s->layout = layout, s->scale = 1.0 / sqrt((double)d);
    gdt_problem_set_strides(&p);
    return p;
}

static gdt_facts facts_of(const gdt_problem *p, int arch)
{
    gdt_device_props dev = {.arch = arch, .sm_count = 0};
    gdt_facts f;
    gdt_facts_analyze(p, &dev, &f);
    return f;
}

/* Finalizes the graph; checks the op count and the engine count. */
static gdt__cudnn_graph *graph_ok(const gdt_problem *p, int form, int nops, int nbinds)
{
    gdt_error e = {0};
    gdt__cudnn_graph *g = NULL;
    gdt_status s = gdt__cudnn_graph_create(p, form, NULL, &g, &e);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "graph finalize failed: %s\n", e.msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    if (!g)
        return NULL;
    CHECK_INT(g->nops, ==, nops);
    CHECK_INT(g->nbinds, ==, nbinds);
    int64_t engines = 0;
    CHECK_INT(gdt__cudnn_engine_count(g, &engines, &e), ==, GDT_STATUS_OK);
    CHECK_INT(engines, >, 0);
    return g;
}

static void test_gemm_graphs(void)
{
    gdt_problem p = gemm(192, 160, 96, true, GDT_DTYPE_BF16);
    gdt__cudnn_graph_destroy(graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 1, 3));
    p = gemm(192, 160, 96, false, GDT_DTYPE_FP16);
    gdt__cudnn_graph *g = graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 1, 3);
    if (g)
        CHECK_INT(g->scratch_bytes, ==, 0);
    gdt__cudnn_graph_destroy(g);
    gdt_error e = {0};
    CHECK_INT(gdt__cudnn_graph_create(&p, GDT__CUDNN_FORM_UNIFIED, NULL, &g, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "family gemm has no graph form GRAPH=1");
    CHECK(g == NULL);
}

static void test_fwd_graphs(void)
{
    /* causal: 14 ops; binds Q K V O Stats scale -inf */
    gdt_problem p = sdpa(GDT_FAMILY_SDPA_FWD, 128, 128, 64, 2, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BHSD);
    gdt__cudnn_graph_destroy(graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 14, 7));
    p = sdpa(GDT_FAMILY_SDPA_FWD, 256, 256, 128, 4, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BSHD);
    gdt__cudnn_graph_destroy(graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 14, 7));
    /* bottom-right with s_q < s_kv: row + s_kv - s_q adds two ops, two binds */
    p = sdpa(GDT_FAMILY_SDPA_FWD, 128, 256, 64, 2, GDT_CAUSAL_BOTTOM_RIGHT, GDT_LAYOUT_BHSD);
    gdt__cudnn_graph *g = graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 16, 9);
    if (g) {
        CHECK_INT(g->binds[2].kind, ==, GDT__BIND_HOST_I32); /* after scale, -inf */
        CHECK_INT(g->binds[2].i32, ==, 256);
        CHECK_INT(g->binds[3].i32, ==, 128);
    }
    gdt__cudnn_graph_destroy(g);
    /* with s_q == s_kv it is the top-left graph */
    p = sdpa(GDT_FAMILY_SDPA_FWD, 128, 128, 64, 2, GDT_CAUSAL_BOTTOM_RIGHT, GDT_LAYOUT_BHSD);
    gdt__cudnn_graph_destroy(graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 14, 7));
    p = sdpa(GDT_FAMILY_SDPA_BWD, 128, 256, 64, 2, GDT_CAUSAL_BOTTOM_RIGHT, GDT_LAYOUT_BSHD);
    gdt__cudnn_graph_destroy(graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 26, 16));
    /* non-causal: no mask ops */
    p = sdpa(GDT_FAMILY_SDPA_FWD, 128, 128, 64, 2, GDT_CAUSAL_NONE, GDT_LAYOUT_BSHD);
    gdt__cudnn_graph_destroy(graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 10, 6));
    if (CUDNN_VERSION >= 91300 && gdt_cudnn_runtime_version() >= 91300)
        gdt__cudnn_graph_destroy(graph_ok(&p, GDT__CUDNN_FORM_UNIFIED, 1, 6));
}

static void test_bwd_graphs(void)
{
    gdt_problem p = sdpa(GDT_FAMILY_SDPA_BWD, 128, 128, 64, 4, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BHSD);
    /* binds: 9 operands, scale, -inf, one, softmax_sum, dQ_accum */
    gdt__cudnn_graph *g = graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 22, 14);
    if (g) /* softmax_sum 2*4*128 fp32, dQ_accum 2*4*128*64 fp32 */
        CHECK_INT(g->scratch_bytes, ==, 2 * 4 * 128 * 4 + 2 * 4 * 128 * 64 * 4);
    gdt__cudnn_graph_destroy(g);
    /* GQA: two REDUCTION ADDs fold the full-head dK, dV */
    p = sdpa(GDT_FAMILY_SDPA_BWD, 256, 256, 128, 2, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BSHD);
    gdt__cudnn_graph_destroy(graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 24, 14));
    /* non-causal drops the four mask ops and the -inf bind */
    p = sdpa(GDT_FAMILY_SDPA_BWD, 128, 128, 64, 4, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD);
    gdt__cudnn_graph_destroy(graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 18, 13));
    p = sdpa(GDT_FAMILY_SDPA_BWD, 128, 128, 64, 2, GDT_CAUSAL_NONE, GDT_LAYOUT_BSHD);
    gdt__cudnn_graph_destroy(graph_ok(&p, GDT__CUDNN_FORM_COMPOSITE, 20, 13));
}

static void test_forms(void)
{
    int forms[2];
    gdt_problem p = sdpa(GDT_FAMILY_SDPA_FWD, 128, 128, 64, 2, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD);
    CHECK_INT(gdt__cudnn_forms(&p, 91900, forms), ==, CUDNN_VERSION >= 91300 ? 2 : 1);
    CHECK_INT(forms[0], ==, CUDNN_VERSION >= 91300 ? GDT__CUDNN_FORM_UNIFIED : GDT__CUDNN_FORM_COMPOSITE);
    CHECK_INT(gdt__cudnn_forms(&p, 91200, forms), ==, 1);
    CHECK_INT(forms[0], ==, GDT__CUDNN_FORM_COMPOSITE);
    p.u.sdpa.causal = GDT_CAUSAL_TOP_LEFT;
    CHECK_INT(gdt__cudnn_forms(&p, 91900, forms), ==, 1);
    p.family = GDT_FAMILY_SDPA_BWD, p.u.sdpa.causal = GDT_CAUSAL_NONE;
    CHECK_INT(gdt__cudnn_forms(&p, 91900, forms), ==, 1);
}

static void declines(const gdt_problem *p, int arch, const gdt_plan_id *id, int version, const char *why)
{
    gdt_facts f = facts_of(p, arch);
    gdt_error e = {0};
    CHECK_INT(gdt__cudnn_support(&f, id, version, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, why);
}

static void accepts(const gdt_problem *p, const gdt_plan_id *id, int version)
{
    gdt_facts f = facts_of(p, 90);
    gdt_error e = {0};
    gdt_status s = gdt__cudnn_support(&f, id, version, &e);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "declined: %s\n", e.msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
}

static void test_support(void)
{
    gdt_plan_id id = {.engine_id = 0}, unified = {.engine_id = 1}, far = {.engine_id = 20001};
    gdt_plan_id_set_knob(&unified, GDT_KNOB_GRAPH, 1);
    gdt_problem g = gemm(192, 160, 96, true, GDT_DTYPE_FP32);
    declines(&g, 90, &id, 91900, "dtype fp32 not supported");
    g = gemm(192, 160, 96, true, GDT_DTYPE_BF16);
    declines(&g, 75, &id, 91900, "arch sm75 not supported");
    declines(&g, 90, &far, 91900, "engine id 20001 is not a backend engine");
    declines(&g, 90, &unified, 91900, "GRAPH=1");
    accepts(&g, &id, 91900);
    g.u.gemm.c_stride[2] = 2, g.u.gemm.c_stride[1] = 1;
    declines(&g, 90, &id, 91900, "gemm C must be row-major");

    gdt_problem s = sdpa(GDT_FAMILY_SDPA_FWD, 128, 128, 12, 2, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD);
    declines(&s, 90, &id, 91900, "head dim d must be a multiple of 8 and at most 256 (got 12)");
    s = sdpa(GDT_FAMILY_SDPA_FWD, 128, 128, 264, 2, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD);
    declines(&s, 90, &id, 91900, "(got 264)");
    s = sdpa(GDT_FAMILY_SDPA_FWD, 128, 128, 64, 3, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD);
    declines(&s, 90, &id, 91900, "h_q must be a multiple of h_kv");
    s = sdpa(GDT_FAMILY_SDPA_FWD, 256, 128, 64, 2, GDT_CAUSAL_BOTTOM_RIGHT, GDT_LAYOUT_BHSD);
    declines(&s, 90, &id, 91900, "bottom-right causal needs s_q <= s_kv");
    s = sdpa(GDT_FAMILY_SDPA_FWD, 128, 128, 64, 2, GDT_CAUSAL_TOP_LEFT, GDT_LAYOUT_BHSD);
    declines(&s, 90, &unified, 91900, "applies only to non-causal sdpa_fwd");
    s.u.sdpa.causal = GDT_CAUSAL_NONE;
    accepts(&s, &unified, 91900);
    declines(&s, 90, &unified, 91200, "cuDNN 91200");
    s.u.sdpa.k_stride[3] = 2;
    declines(&s, 90, &id, 91900, "sdpa K needs a unit stride on the head dim");

    gdt_problem b = sdpa(GDT_FAMILY_SDPA_BWD, 128, 200, 64, 2, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD);
    declines(&b, 90, &id, 91400, "sdpa_bwd on cuDNN 91400 (< 9.16) needs s_kv % 128 == 0 (got s_kv 200)");
    accepts(&b, &id, 91600);
    b = sdpa(GDT_FAMILY_SDPA_BWD, 1, 1, 64, 2, GDT_CAUSAL_NONE, GDT_LAYOUT_BHSD);
    declines(&b, 90, &id, 91900, "sdpa_bwd rejects s_q = s_kv = 1");
}

/* What needs a device refuses with NO_DEVICE and says why. */
static void test_no_device(void)
{
    gdt_problem p = gemm(192, 160, 96, true, GDT_DTYPE_BF16);
    gdt_facts f = facts_of(&p, 90);
    gdt_plan_id id = {.engine_id = 0};
    gdt_plan_entry *list = NULL;
    int n = -1;
    gdt_error e = {0};
    const gdt_backend *be = gdt_cudnn_backend();
    CHECK(be && be->list && be->ops == &gdt__cudnn_ops);
    CHECK_INT(be->list(be->ctx, &f, GDT_MODE_OPENSOURCE, &list, &n, &e), ==, GDT_STATUS_OK);
    CHECK_INT(n, ==, 0);
    CHECK_INT(be->list(be->ctx, &f, GDT_MODE_COUNT, &list, &n, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "no heuristic mode 4");
    CHECK_INT(gdt_cudnn_enumerate(&f, 0, &list, &n, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "cap_per_engine must be positive (got 0)");

    gdt_build_opts opts = {.device = f.device, .compile_only = true};
    gdt_compiled *c = (gdt_compiled *)&opts; /* must be reset to NULL */
    CHECK_INT(gdt__cudnn_ops.build(NULL, &f, &id, &opts, &c, NULL, &e), ==, GDT_STATUS_NO_DEVICE);
    CHECK_CONTAINS(e.msg, "cuDNN plans cannot be finalized without a GPU (compile-only build for sm90)");
    CHECK(c == NULL);
    gdt__cudnn_ops.destroy(NULL);
    CHECK_INT(gdt__cudnn_ops.workspace_size(NULL), ==, 0);
    if (gdt__device_present())
        return;
    opts.compile_only = false;
    CHECK_INT(gdt__cudnn_ops.build(NULL, &f, &id, &opts, &c, NULL, &e), ==, GDT_STATUS_NO_DEVICE);
    CHECK_CONTAINS(e.msg, "no CUDA device");
    CHECK_INT(be->list(be->ctx, &f, GDT_MODE_A, &list, &n, &e), ==, GDT_STATUS_NO_DEVICE);
    CHECK_CONTAINS(e.msg, "no CUDA device");
    CHECK(list == NULL && n == 0);
    CHECK_INT(gdt_cudnn_enumerate(&f, 8, &list, &n, &e), ==, GDT_STATUS_NO_DEVICE);
    CHECK_CONTAINS(e.msg, "no CUDA device");
    /* A problem the backend does not serve lists nothing, even here. */
    p = gemm(192, 160, 96, true, GDT_DTYPE_FP32);
    f = facts_of(&p, 90);
    CHECK_INT(be->list(be->ctx, &f, GDT_MODE_A, &list, &n, &e), ==, GDT_STATUS_OK);
    CHECK_INT(n, ==, 0);
    CHECK_INT(gdt_cudnn_enumerate(&f, 8, &list, &n, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "dtype fp32 not supported");
}

int main(void)
{
    CHECK_INT(gdt_cudnn_runtime_version(), >=, 91400);
    test_gemm_graphs();
    test_fwd_graphs();
    test_bwd_graphs();
    test_forms();
    test_support();
    test_no_device();
    return gdt_test_result("test_cudnn_host");
}
