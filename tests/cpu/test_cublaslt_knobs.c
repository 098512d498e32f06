/* The cuBLASLt engine without a GPU: every algo configuration of synthetic
 * capability spaces maps to knobs and back, and its printed name parses to
 * the same identity; bad identities are refused naming the knob; the
 * lowering of the four operand majors; the manifest slot; and where a
 * library slot's plans sit in each mode's list, with a stand-in library
 * engine through a test manifest (present, failing, OPENSOURCE), untimed
 * and with a table that measured a library plan faster or slower than the
 * backend (the slot present, unable to list, or not in the manifest). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cublaslt/gdt_cublaslt.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

/* ------------------------------------------------------- knob mapping */

static gdt__cublaslt_space space(int32_t algo, int ntiles, int nstages, bool split, uint32_t mask,
                                 bool swizzle, int32_t custom_max)
{
    gdt__cublaslt_space s = {.algo = algo, .ntiles = ntiles, .nstages = nstages, .split_k = split,
                             .reduction_mask = mask, .swizzle = swizzle, .custom_max = custom_max};
    for (int i = 0; i < ntiles; i++) s.tiles[i] = (uint32_t)(15 + 3 * i);
    for (int i = 0; i < nstages; i++) s.stages[i] = (uint32_t)(32 + i);
    return s;
}

/* config -> id -> name -> id -> config, for every config of the space;
 * every name distinct.  Returns the number checked. */
static int round_trip(const gdt__cublaslt_space *s, int64_t engine_id)
{
    int64_t n = gdt__cublaslt_space_size(s);
    char(*names)[512] = calloc((size_t)n, sizeof *names);
    gdt__cublaslt_config c, back;
    int done = 0;
    for (int64_t i = 0; names && gdt__cublaslt_space_at(s, i, &c); i++, done++) {
        gdt_plan_id id, parsed;
        gdt_error e = {0};
        gdt__cublaslt_config_to_id(&c, engine_id, &id);
        gdt_plan_id_format(&id, names[i], sizeof names[i]);
        CHECK_INT(gdt_plan_id_parse(names[i], &parsed, &e), ==, GDT_STATUS_OK);
        CHECK(gdt_plan_id_equal(&id, &parsed));
        CHECK_INT(gdt__cublaslt_config_from_id(&parsed, &back, &e), ==, GDT_STATUS_OK);
        CHECK(gdt__cublaslt_config_equal(&c, &back));
        CHECK(c.reduction != CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE); /* fp32 reductions only */
        CHECK((c.split_k == 1) == (c.reduction == CUBLASLT_REDUCTION_SCHEME_NONE));
        for (int64_t j = 0; j < i; j++)
            if (!strcmp(names[j], names[i])) {
                fprintf(stderr, "configs %lld and %lld share the name %s\n", (long long)j,
                        (long long)i, names[i]);
                gdt_test_failures++;
            }
    }
    CHECK_INT(done, ==, n);
    CHECK(!gdt__cublaslt_space_at(s, n, &c));
    free(names);
    return done;
}

static void test_round_trip(void)
{
    int64_t id = gdt_engine_id(GDT_FAMILY_GEMM, 11);
    /* 3 tiles x 2 stages x (1 + 4 splits x 2 fp32 schemes) x 2 x 3 = 324 */
    gdt__cublaslt_space full = space(66, 3, 2, true, 0x7, true, 2);
    CHECK_INT(gdt__cublaslt_space_size(&full), ==, 324);
    CHECK_INT(round_trip(&full, id), ==, 324);
    /* No ids, no split-K, no swizzle, no custom option: one config. */
    gdt__cublaslt_space bare = space(0, 0, 0, false, 0, false, 0);
    CHECK_INT(gdt__cublaslt_space_size(&bare), ==, 1);
    CHECK_INT(round_trip(&bare, id), ==, 1);
    /* Split-K whose mask allows only OUTPUT_TYPE reductions: no split. */
    gdt__cublaslt_space out_only = space(7, 2, 1, true, CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE, false, 0);
    CHECK_INT(gdt__cublaslt_space_size(&out_only), ==, 2);
    CHECK_INT(round_trip(&out_only, id), ==, 2);
    /* Tile turns fastest: the first configs differ only in tile. */
    gdt__cublaslt_config a, b;
    CHECK(gdt__cublaslt_space_at(&full, 0, &a) && gdt__cublaslt_space_at(&full, 1, &b));
    CHECK_INT(a.tile, ==, 15);
    CHECK_INT(b.tile, ==, 18);
    CHECK_INT(b.stages, ==, a.stages);
}

/* A heuristic's config (inner and cluster shapes set) names every field
 * away from its default; the defaults stay out of the name. */
static void test_names(void)
{
    int64_t id = gdt_engine_id(GDT_FAMILY_GEMM, 11);
    gdt__cublaslt_config c = {.algo = 66, .tile = 20, .stages = 35, .split_k = 1};
    gdt_plan_id p;
    char name[512];
    gdt__cublaslt_config_to_id(&c, id, &p);
    gdt_plan_id_format(&p, name, sizeof name);
    CHECK_STR(name, "gemm.cublaslt[ALGO=66, STAGES=35, TILE_SIZE=20]");
    CHECK_INT(gdt_plan_id_knob(&p, GDT_KNOB_TILE_SIZE, -1), ==, 20);
    c = (gdt__cublaslt_config){.algo = 0, .tile = 24, .stages = 20, .split_k = 4, .reduction = 2,
                               .swizzle = 1, .custom = 3, .inner_shape = 4, .cluster_shape = 3};
    gdt__cublaslt_config_to_id(&c, id, &p);
    gdt_plan_id_format(&p, name, sizeof name);
    CHECK_STR(name, "gemm.cublaslt[ALGO=0, CLUSTER_SHAPE=3, CUSTOM_OPTION=3, INNER_SHAPE=4, "
                    "REDUCTION_MODE=2, SPLIT_K=4, STAGES=20, SWIZZLE=1, TILE_SIZE=24]");
    gdt__cublaslt_config back;
    gdt_error e = {0};
    CHECK_INT(gdt__cublaslt_config_from_id(&p, &back, &e), ==, GDT_STATUS_OK);
    CHECK(gdt__cublaslt_config_equal(&c, &back));
    CHECK_STR(gdt__cublaslt_rank_why(1), "cuBLASLt heuristic rank 1");
    CHECK_STR(gdt__cublaslt_rank_why(GDT__CUBLASLT_TOP), "cuBLASLt heuristic rank 8");
}

static void refused(const char *name, const char *fragment)
{
    gdt_plan_id p;
    gdt__cublaslt_config c;
    gdt_error e = {0};
    CHECK_INT(gdt_plan_id_parse(name, &p, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt__cublaslt_config_from_id(&p, &c, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, fragment);
}

static void test_refusals(void)
{
    refused("gemm.cublaslt[TILE_SIZE=20]", "gemm.cublaslt[TILE_SIZE=20]: no ALGO knob");
    refused("gemm.cublaslt[ALGO=3, KERNEL_CFG=1]", "knob KERNEL_CFG is not a cuBLASLt algo attribute");
    refused("gemm.cublaslt[ALGO=3, SPLIT_K=0]", "knob SPLIT_K: expected 1..2147483647, got 0");
    refused("gemm.cublaslt[ALGO=3, INNER_SHAPE=70000]", "knob INNER_SHAPE: expected 0..65535, got 70000");
    refused("gemm.cublaslt[ALGO=-1]", "knob ALGO: expected 0..2147483647, got -1");
}

/* ----------------------------------------------------------- lowering */

static void lowered(const char *shape, gdt__cublaslt_lowering *w)
{
    gdt_problem p;
    gdt_error e = {0};
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, shape, &p, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt__cublaslt_lower(&p, w, &e), ==, GDT_STATUS_OK);
}

/* C^T[n, m] = B^T A^T: the first operand is B (n x k after its op), the
 * second A (k x m after its op). */
static void test_lowering(void)
{
    gdt__cublaslt_lowering w;
    lowered("m=100,n=60,k=40", &w);
    CHECK_INT(w.trans[0], ==, CUBLAS_OP_N);
    CHECK_INT(w.trans[1], ==, CUBLAS_OP_N);
    CHECK_INT(w.rows[0], ==, 60); CHECK_INT(w.cols[0], ==, 40); CHECK_INT(w.ld[0], ==, 60);
    CHECK_INT(w.rows[1], ==, 40); CHECK_INT(w.cols[1], ==, 100); CHECK_INT(w.ld[1], ==, 40);
    CHECK_INT(w.rows[2], ==, 60); CHECK_INT(w.cols[2], ==, 100); CHECK_INT(w.ld[2], ==, 60);
    CHECK_INT(w.dtype, ==, CUDA_R_16BF);
    lowered("m=100,n=60,k=40,a=col,b=col,dtype=fp16", &w);
    CHECK_INT(w.trans[0], ==, CUBLAS_OP_T);
    CHECK_INT(w.trans[1], ==, CUBLAS_OP_T);
    CHECK_INT(w.rows[0], ==, 40); CHECK_INT(w.cols[0], ==, 60); CHECK_INT(w.ld[0], ==, 40);
    CHECK_INT(w.rows[1], ==, 100); CHECK_INT(w.cols[1], ==, 40); CHECK_INT(w.ld[1], ==, 100);
    CHECK_INT(w.dtype, ==, CUDA_R_16F);
    lowered("m=100,n=60,k=40,a=col", &w);
    CHECK_INT(w.trans[0], ==, CUBLAS_OP_N);
    CHECK_INT(w.trans[1], ==, CUBLAS_OP_T);
    lowered("m=100,n=60,k=40,b=col", &w);
    CHECK_INT(w.trans[0], ==, CUBLAS_OP_T);
    CHECK_INT(w.trans[1], ==, CUBLAS_OP_N);
    lowered("batch=3,m=100,n=60,k=40", &w);
    CHECK_INT(w.batch, ==, 3);
    CHECK_INT(w.batch_stride[0], ==, 40 * 60);
    CHECK_INT(w.batch_stride[1], ==, 100 * 40);
    CHECK_INT(w.batch_stride[2], ==, 100 * 60);
    gdt_problem p;
    gdt_error e = {0};
    gdt_problem_parse(GDT_FAMILY_GEMM, "m=8,n=8,k=8", &p, &e);
    p.u.gemm.c_stride[1] = 1, p.u.gemm.c_stride[2] = 8; /* C column-major */
    CHECK_INT(gdt__cublaslt_lower(&p, &w, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "operand C: expected row-major");
    p.u.gemm.a_stride[1] = 2, p.u.gemm.a_stride[2] = 2;
    CHECK_INT(gdt__cublaslt_lower(&p, &w, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "operand A: strides (64, 2, 2) have no unit-stride axis");
}

/* ------------------------------------------------------- the manifest */

static void test_slot(void)
{
    const gdt_engine_slot *s = gdt_manifest_find_name(NULL, "gemm.cublaslt");
    CHECK(s != NULL);
    if (!s) return;
    CHECK_INT(gdt_engine_id(s->family, s->slot), ==, 20011);
    CHECK(gdt_manifest_find(NULL, 20011) == s);
    CHECK_INT(s->kind, ==, GDT_ENGINE_CUBLASLT);
    CHECK_INT(s->family, ==, GDT_FAMILY_GEMM);
    CHECK(s->tmpl == NULL);
    CHECK(!s->opt_in); /* offered by default: its plans are the library side */
    CHECK_INT(gdt_engine_kind_side(s->kind), ==, GDT_PLAN_SIDE_LIBRARY);
    CHECK_INT(gdt_engine_side(NULL, 20011), ==, GDT_PLAN_SIDE_LIBRARY);
    CHECK_INT(s->cap.sm_lo, ==, 80);
    CHECK_INT(s->cap.dtypes, ==, (1u << GDT_DTYPE_BF16) | (1u << GDT_DTYPE_FP16));
    CHECK(gdt__library_of(s) == &gdt__cublaslt_engine);
    CHECK(gdt__library_of(gdt_manifest_find_name(NULL, "gemm.nvrtc")) == NULL);
    gdt_problem p;
    gdt_facts f;
    gdt_device_props dev;
    char why[256];
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    CHECK(gdt_arch_limits(90, &dev));
    gdt_facts_analyze(&p, &dev, &f);
    gdt_manifest m = *gdt_manifest_default();
    CHECK(gdt_slot_offered(&m, s, &f, why, sizeof why));
    f.device.arch = 75;
    CHECK(!gdt_slot_offered(&m, s, &f, why, sizeof why));
    CHECK_STR(why, "gemm.cublaslt: sm75 outside sm80..sm129");
    /* A config cuBLASLt never sees is refused before the library is asked. */
    gdt_plan_id bad;
    gdt_error e = {0};
    f.device.arch = 90;
    CHECK_INT(gdt_plan_id_parse("gemm.cublaslt[ALGO=1, TILEK=3]", &bad, &e), ==, GDT_STATUS_OK);
    CHECK_INT(s->ops->check_support(s, &f, &bad, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "knob TILEK is not a cuBLASLt algo attribute");
}

/* --------------------------------------------- plan lists, stand-ins */

enum { SLOT_LIB = 11, SLOT_OURS = 50 };

static bool lib_fails;
static int lib_enum_cap;

static gdt_plan_id lib_id(int32_t algo, uint32_t tile)
{
    gdt__cublaslt_config c = {.algo = algo, .tile = tile, .split_k = 1};
    gdt_plan_id id;
    gdt__cublaslt_config_to_id(&c, gdt_engine_id(GDT_FAMILY_GEMM, SLOT_LIB), &id);
    return id;
}

static gdt_status lib_entries(const gdt_plan_id *ids, int k, const char *const *why, gdt_plan_entry **out,
                              int *n)
{
    *out = calloc((size_t)k, sizeof **out);
    for (int i = 0; i < k; i++) (*out)[i] = (gdt_plan_entry){.id = ids[i], .why = why[i], .untimed = -1};
    *n = k;
    return GDT_STATUS_OK;
}

static gdt_status lib_list(const gdt_engine_slot *s, const gdt_facts *f, gdt_plan_entry **out, int *n,
                           gdt_error *e)
{
    (void)s, (void)f;
    *out = NULL, *n = 0;
    if (lib_fails) return gdt_error_set(e, GDT_STATUS_NO_DEVICE, "stand-in library: no CUDA device");
    const gdt_plan_id ids[] = {lib_id(1, 20), lib_id(2, 20), lib_id(3, 24)};
    const char *const why[] = {gdt__cublaslt_rank_why(1), gdt__cublaslt_rank_why(2),
                               gdt__cublaslt_rank_why(3)};
    return lib_entries(ids, 3, why, out, n);
}

static gdt_status lib_enumerate(const gdt_engine_slot *s, const gdt_facts *f, int cap,
                                gdt_plan_entry **out, int *n, gdt_error *e)
{
    (void)s, (void)f;
    lib_enum_cap = cap;
    *out = NULL, *n = 0;
    if (lib_fails) return gdt_error_set(e, GDT_STATUS_NO_DEVICE, "stand-in library: no CUDA device");
    const gdt_plan_id ids[] = {lib_id(2, 20), lib_id(9, 15)}; /* the first is also a heuristic entry */
    const char *const why[] = {"enumerated", "enumerated"};
    return lib_entries(ids, 2, why, out, n);
}

static gdt_status ok_check(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p, gdt_error *e)
{
    (void)s, (void)f, (void)p, (void)e;
    return GDT_STATUS_OK;
}

static const gdt_engine_ops plain_ops = {.check_support = ok_check};
static const gdt__library_engine lib_engine = {.ops = {.check_support = ok_check}, .list = lib_list,
                                               .enumerate = lib_enumerate};

#define ANY {0, 999, (1u << GDT_DTYPE_COUNT) - 1u, 0, 0, 0}
static const gdt_engine_slot slots[] = {
    {GDT_FAMILY_GEMM, SLOT_OURS, "gemm.standin_ours", GDT_ENGINE_TEST, NULL, ANY, false, &plain_ops},
    {GDT_FAMILY_GEMM, SLOT_LIB, "gemm.standin_lt", GDT_ENGINE_CUBLASLT, NULL, ANY, false, &lib_engine.ops},
};
static const gdt_manifest manifest = {slots, 2, false};

static gdt_plan_id be(int64_t eng)
{
    return (gdt_plan_id){.engine_id = eng};
}

/* The backend: mode A eng1, eng2; B eng3; FALLBACK eng4. */
static gdt_status be_list(void *ctx, const gdt_facts *f, gdt_mode mode, gdt_plan_entry **out, int *n,
                          gdt_error *e)
{
    (void)ctx, (void)f, (void)e;
    int k = mode == GDT_MODE_A ? 2 : 1;
    *out = calloc(2, sizeof **out);
    (*out)[0] = (gdt_plan_entry){.id = be(mode == GDT_MODE_A ? 1 : mode == GDT_MODE_B ? 3 : 4), .is_backend = true};
    (*out)[1] = (gdt_plan_entry){.id = be(2), .is_backend = true};
    *n = k;
    return GDT_STATUS_OK;
}

static const gdt_backend backend = {.list = be_list, .ops = &plain_ops};

static char warned[GDT_ERROR_MAX + 64];
static void on_warn(void *ctx, const char *msg)
{
    (void)ctx;
    snprintf(warned, sizeof warned, "%s", msg);
}

/* The list's names, one "name/tag" per line.  Names print through the
 * default manifest: the stand-in library slot has the real slot's id
 * (gemm.cublaslt), the stand-in of ours none (engine20050). */
static const gdt_tables *tables;          /* the plan lists' tables (NULL: untimed) */
static const gdt_manifest *in_use = &manifest;

static void listed(bool enumerate, const gdt_backend *b, int nmodes, const gdt_mode *modes, char *out,
                   size_t n, gdt_graph **keep)
{
    gdt_problem p;
    gdt_device_props dev;
    gdt_graph *g = NULL;
    gdt_error e = {0};
    gdt_plan_options o = {.manifest = in_use, .backend = b, .nmodes = nmodes, .knob_cap = 2,
                          .tables = tables, .warn = on_warn};
    memcpy(o.modes, modes, (size_t)nmodes * sizeof *modes);
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    gdt_arch_limits(90, &dev);
    warned[0] = '\0';
    out[0] = '\0';
    CHECK_INT(gdt_graph_create(&p, &dev, &g, &e), ==, GDT_STATUS_OK);
    CHECK_INT(enumerate ? gdt_graph_enumerate(g, &o, &e) : gdt_graph_plan(g, &o, &e), ==, GDT_STATUS_OK);
    for (int i = 0, at = 0; i < gdt_graph_plan_count(g); i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, i);
        char name[256];
        if (x->is_marker) snprintf(name, sizeof name, "BACKEND(%s)", gdt_mode_name(x->mode));
        else gdt_plan_id_format(&x->id, name, sizeof name);
        at += snprintf(out + at, n - (size_t)at, "%s/%s\n", name, gdt_plan_entry_tag(x));
    }
    if (keep) *keep = g;
    else gdt_graph_destroy(g);
}

static const char LT1[] = "gemm.cublaslt[ALGO=1, TILE_SIZE=20]";
static const char LT2[] = "gemm.cublaslt[ALGO=2, TILE_SIZE=20]";
static const char LT3[] = "gemm.cublaslt[ALGO=3, TILE_SIZE=24]";

static void test_lists(void)
{
    char got[4096], want[1024];
    const gdt_mode a = GDT_MODE_A, fb = GDT_MODE_FALLBACK, os = GDT_MODE_OPENSOURCE;
    lib_fails = false;
    /* Mode A: the backend's block, the library's after it, then ours. */
    listed(false, &backend, 1, &a, got, sizeof got, NULL);
    snprintf(want, sizeof want, "cudnn.eng1/A\ncudnn.eng2/A\n%s/LIBRARY\n%s/LIBRARY\n%s/LIBRARY\nengine20050/OURS\n",
             LT1, LT2, LT3);
    CHECK_STR(got, want);
    /* No backend: the marker stays, the library's block still follows it. */
    listed(false, NULL, 1, &a, got, sizeof got, NULL);
    snprintf(want, sizeof want, "BACKEND(A)/OURS\n%s/LIBRARY\n%s/LIBRARY\n%s/LIBRARY\nengine20050/OURS\n", LT1, LT2, LT3);
    CHECK_STR(got, want);
    /* FALLBACK: the heuristic's first entry only, after the backend's. */
    listed(false, &backend, 1, &fb, got, sizeof got, NULL);
    snprintf(want, sizeof want, "engine20050/OURS\ncudnn.eng4/FALLBACK\n%s/LIBRARY\n", LT1);
    CHECK_STR(got, want);
    /* OPENSOURCE: our own kernels, never the library. */
    listed(false, &backend, 1, &os, got, sizeof got, NULL);
    CHECK_STR(got, "engine20050/OURS\n");
    /* Sweep: heuristic entries, then (knob_cap > 0) the enumerated ones;
     * the heuristic's right after the backend's mode-A entries untimed. */
    gdt_graph *g = NULL;
    listed(true, &backend, 0, NULL, got, sizeof got, &g);
    snprintf(want, sizeof want,
             "engine20050/OURS\ncudnn.eng1/A\ncudnn.eng2/A\ncudnn.eng3/B\ncudnn.eng4/FALLBACK\n"
             "%s/LIBRARY\n%s/LIBRARY\n%s/LIBRARY\ngemm.cublaslt[ALGO=9, TILE_SIZE=15]/LIBRARY\n", LT1, LT2, LT3);
    CHECK_STR(got, want);
    CHECK_INT(lib_enum_cap, ==, 2);
    CHECK_INT(gdt_graph_plan_at(g, 5)->untimed, ==, 2);
    CHECK_INT(gdt_graph_plan_at(g, 0)->untimed, ==, 5);
    CHECK_STR(gdt_graph_plan_at(g, 6)->why, "cuBLASLt heuristic rank 2");
    gdt_graph_destroy(g);
}

/* Without its library or a device the slot proposes nothing, and says why. */
static void test_absent(void)
{
    char got[4096];
    const gdt_mode a = GDT_MODE_A;
    lib_fails = true;
    listed(false, &backend, 1, &a, got, sizeof got, NULL);
    CHECK_STR(got, "cudnn.eng1/A\ncudnn.eng2/A\nengine20050/OURS\n");
    CHECK_STR(warned, "gemm.standin_lt: stand-in library: no CUDA device");
    listed(true, &backend, 0, NULL, got, sizeof got, NULL);
    CHECK(!strstr(got, "ALGO="));
    lib_fails = false;
}

/* ----------------------------------------- plan lists with a table */

static gdt_measured_plan measured(gdt_plan_id id, bool backend, int pos, double t)
{
    return (gdt_measured_plan){.id = id, .is_backend = backend, .mode = backend ? GDT_MODE_A : GDT_MODE_OPENSOURCE,
                               .untimed_position = pos, .time_us = t, .noise = 0.001, .host_us = 5,
                               .samples = 20};
}

/* One swept cell (the default gemm problem): the backend's eng1 at 100 us,
 * ours at 120, eng2 at 130 and the library's LT1 at lt_us; written, loaded
 * and kept in `tables`.  Returns the placement file's text. */
static char *table_with(const char *dir, double lt_us, gdt_tables **out)
{
    gdt_provenance prov = {.arch = 90};
    gdt_measured_plan v[4] = {measured(be(1), true, 0, 100), measured(lib_id(1, 20), false, 2, lt_us),
                              measured((gdt_plan_id){.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, SLOT_OURS)},
                                       false, 5, 120),
                              measured(be(2), true, 1, 130)};
    gdt_measured_cell c = {.plans = v, .nplans = 4};
    gdt_error e = {0};
    char sub[600], path[700];
    char *text = NULL;
    size_t n = 0;
    gdt_problem_default(GDT_FAMILY_GEMM, &c.problem);
    snprintf(sub, sizeof sub, "%s/sm90", dir);
    CHECK_INT(gdt_tables_write(sub, GDT_FAMILY_GEMM, &prov, &c, 1, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_tables_load(dir, GDT_FAMILY_GEMM, 90, out, &e), ==, GDT_STATUS_OK);
    snprintf(path, sizeof path, "%s/gemm.placement.json", sub);
    CHECK_INT(gdt_file_read(path, &text, &n, &e), ==, GDT_STATUS_OK);
    return text;
}

/* Placement stays ours against the backend whatever the library does, and
 * the library's best is recorded beside them. */
static void check_placement(const gdt_tables *t, const char *text, double lt_us)
{
    gdt_table_cell c;
    char best[160];
    CHECK(gdt_tables_cell(t, 0, &c));
    CHECK(!c.lead);
    CHECK(c.has_ratio && fabs(c.ratio - 1.2) < 1e-9);
    snprintf(best, sizeof best, "\"best_library\": {\"plan\": \"%s\", \"time_us\": %g, \"noise\": 0.001}",
             LT1, lt_us);
    CHECK_CONTAINS(text ? text : "", best);
    CHECK_CONTAINS(text ? text : "", "\"schema\": \"gdtune.placement/7\"");
}

static void test_tabled(void)
{
    char dir[] = "/tmp/gdt_test_cublaslt.XXXXXX", got[4096], want[1024], fast[700], slow[700];
    const gdt_mode a = GDT_MODE_A, fb = GDT_MODE_FALLBACK, os = GDT_MODE_OPENSOURCE;
    gdt_tables *tf = NULL, *ts = NULL;
    CHECK(mkdtemp(dir) != NULL);
    snprintf(fast, sizeof fast, "%s/fast", dir);
    snprintf(slow, sizeof slow, "%s/slow", dir);
    char *ft = table_with(fast, 80, &tf), *st = table_with(slow, 150, &ts);
    check_placement(tf, ft, 80);
    check_placement(ts, st, 150);
    lib_fails = false;
    /* Measured faster than the backend: the library's plan first. */
    tables = tf;
    listed(false, &backend, 1, &a, got, sizeof got, NULL);
    snprintf(want, sizeof want, "%s/LIBRARY\ncudnn.eng1/A\ncudnn.eng2/A\n%s/LIBRARY\n%s/LIBRARY\n"
             "engine20050/OURS\n", LT1, LT2, LT3);
    CHECK_STR(got, want);
    /* Measured slower: where it was measured; the unmeasured ones after the backend's block. */
    tables = ts;
    listed(false, &backend, 1, &a, got, sizeof got, NULL);
    snprintf(want, sizeof want, "cudnn.eng1/A\ncudnn.eng2/A\n%s/LIBRARY\n%s/LIBRARY\nengine20050/OURS\n"
             "%s/LIBRARY\n", LT2, LT3, LT1);
    CHECK_STR(got, want);
    /* OPENSOURCE: a measured library plan is not ours. */
    tables = tf;
    listed(false, &backend, 1, &os, got, sizeof got, NULL);
    CHECK_STR(got, "engine20050/OURS\n");
    /* FALLBACK: the heuristic's first after the backend's block, table or not. */
    listed(false, &backend, 1, &fb, got, sizeof got, NULL);
    snprintf(want, sizeof want, "engine20050/OURS\ncudnn.eng4/FALLBACK\n%s/LIBRARY\n", LT1);
    CHECK_STR(got, want);
    /* The library cannot list (no device): what the table measured stays
     * where it was measured; a build would decline it and walk on. */
    lib_fails = true;
    listed(false, &backend, 1, &a, got, sizeof got, NULL);
    snprintf(want, sizeof want, "%s/LIBRARY\ncudnn.eng1/A\ncudnn.eng2/A\nengine20050/OURS\n", LT1);
    CHECK_STR(got, want);
    listed(false, &backend, 1, &fb, got, sizeof got, NULL);
    CHECK_STR(got, "engine20050/OURS\ncudnn.eng4/FALLBACK\n");
    lib_fails = false;
    /* No library slot in the manifest: its measured plans are not offered. */
    const gdt_manifest without = {slots, 1, false};
    in_use = &without;
    listed(false, &backend, 1, &a, got, sizeof got, NULL);
    CHECK_STR(got, "cudnn.eng1/A\ncudnn.eng2/A\nengine20050/OURS\n");
    listed(false, &backend, 1, &fb, got, sizeof got, NULL);
    CHECK_STR(got, "engine20050/OURS\ncudnn.eng4/FALLBACK\n");
    in_use = &manifest;
    tables = NULL;
    gdt_tables_destroy(tf);
    gdt_tables_destroy(ts);
    free(ft);
    free(st);
    if (!gdt_test_failures) gdt_test_remove_tree(dir);
}

/* The real slot through `gdtune plans`: listed on a GPU, else the reason. */
static void test_cli(void)
{
    static char out[1 << 16];
    char *argv[] = {(char *)gdt_test_exe(), "plans", "gemm", "--shape", "m=256,n=256,k=256", "--mode", "A",
                    "--mode", "OPENSOURCE", NULL};
    int rc = gdt_test_spawn(argv, NULL, out, sizeof out); /* offered by default */
    CHECK_INT(rc, ==, 0);
    if (gdt__device_present()) {
        CHECK_CONTAINS(out, "gemm.cublaslt[ALGO=");
        CHECK_CONTAINS(out, "cuBLASLt heuristic rank 1");
    } else {
        CHECK(!strstr(out, "gemm.cublaslt["));
        CHECK_CONTAINS(out, "      not listed: gemm.cublaslt: cublaslt: no CUDA device");
    }
    /* Each entry's side in JSON: ours, the backend's, the library's. */
    char *json[] = {(char *)gdt_test_exe(), "plans", "gemm", "--shape", "m=256,n=256,k=256", "--format",
                    "json", NULL};
    CHECK_INT(gdt_test_spawn(json, NULL, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "\"side\":\t\"ours\"");
    if (gdt__device_present()) CHECK_CONTAINS(out, "\"side\":\t\"library\"");
}

int main(void)
{
    test_round_trip();
    test_names();
    test_refusals();
    test_lowering();
    test_slot();
    test_lists();
    test_absent();
    test_tabled();
    test_cli();
    return gdt_test_result("test_cublaslt_knobs");
}
