/* The ranking contract (engines/include/gdtune/plan.h) with
 * stand-in engines injected through a test manifest and a stand-in backend
 * whose list() returns tagged entries.  The stand-ins do no arithmetic: they
 * accept or decline, count builds and executes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_engine_impl.h"
#include "nvrtc/gdt_nvrtc.h"
#include "gdt_test.h"
#include "gdtune/plan.h"

/* ----------------------------------------------------------- stand-ins */

enum { SLOT_DECLINE = 50, SLOT_A = 51, SLOT_C = 52, SLOT_OPT_IN = 53, SLOT_SM100 = 54, SLOT_ROWS = 55 };

static int builds, executes, destroys;
static gdt_plan_id last_built;

struct gdt_compiled {
    gdt_plan_id id;
};

static gdt_status standin_check(const gdt_engine_slot *slot, const gdt_facts *f, const gdt_plan_id *plan,
                                gdt_error *e)
{
    (void)f;
    if ((slot && slot->slot == SLOT_DECLINE) || gdt_plan_id_knob(plan, GDT_KNOB_KERNEL_CFG, 0) == 99)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "stand-in declines this plan");
    return GDT_STATUS_OK;
}

static gdt_status standin_build(const gdt_engine_slot *slot, const gdt_facts *f, const gdt_plan_id *plan,
                                const gdt_build_opts *opts, gdt_compiled **out, gdt_build_info *info,
                                gdt_error *e)
{
    (void)slot, (void)f, (void)opts, (void)info, (void)e;
    builds++;
    last_built = *plan;
    *out = calloc(1, sizeof **out);
    (*out)->id = *plan;
    return GDT_STATUS_OK;
}

static size_t standin_workspace(const gdt_compiled *c) { return c ? 256 : 0; }

static gdt_status standin_execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t wsb,
                                  void *stream, gdt_error *e)
{
    (void)c, (void)ops, (void)ws, (void)wsb, (void)stream, (void)e;
    executes++;
    return GDT_STATUS_OK;
}

static void standin_destroy(gdt_compiled *c)
{
    destroys++;
    free(c);
}

static const gdt_engine_ops standin_ops = {standin_check, standin_build, standin_workspace,
                                           standin_execute, standin_destroy, NULL, false};

#define ANY {0, 999, (1u << GDT_DTYPE_COUNT) - 1u, 0, 0, 0}
static const gdt_engine_slot slots[] = {
    {GDT_FAMILY_GEMM, SLOT_DECLINE, "gemm.standin_decline", GDT_ENGINE_TEST, NULL, ANY, false, &standin_ops},
    {GDT_FAMILY_GEMM, SLOT_A, "gemm.standin_a", GDT_ENGINE_TEST, NULL, ANY, false, &standin_ops},
    {GDT_FAMILY_SDPA_FWD, 50, "sdpa_fwd.standin", GDT_ENGINE_TEST, NULL, ANY, false, &standin_ops},
    {GDT_FAMILY_GEMM, SLOT_C, "gemm.standin_c", GDT_ENGINE_TEST, NULL, ANY, false, &standin_ops},
    {GDT_FAMILY_GEMM, SLOT_OPT_IN, "gemm.standin_opt_in", GDT_ENGINE_TEST, NULL, ANY, true, &standin_ops},
    {GDT_FAMILY_GEMM, SLOT_SM100, "gemm.standin_sm100", GDT_ENGINE_TEST, NULL,
     {100, 109, (1u << GDT_DTYPE_COUNT) - 1u, 0, 0, 0}, false, &standin_ops},
};
static const gdt_manifest manifest = {slots, sizeof slots / sizeof slots[0], false};

/* A manifest whose one slot draws its plans from the contraction rows (the
 * GEMM template's). */
static const gdt_engine_slot row_slots[] = {
    {GDT_FAMILY_GEMM, SLOT_ROWS, "gemm.standin_rows", GDT_ENGINE_TEST, &gdt__tmpl_gemm, ANY, false, &standin_ops},
};
static const gdt_manifest row_manifest = {row_slots, 1, false};

static gdt_plan_id ours(int slot) { return (gdt_plan_id){.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, slot)}; }

static gdt_plan_id be(int64_t eng, int64_t cfg)
{
    gdt_plan_id id = {.engine_id = eng};
    gdt_plan_id_set_knob(&id, GDT_KNOB_KERNEL_CFG, cfg);
    return id;
}

/* The backend: A -> eng1/0, eng2/1; B -> eng2/1, eng3/0; FALLBACK ->
 * eng4/99 (declines), eng1/0 (also in A). */
static int list_calls;
static bool list_fails;

static gdt_status standin_list(void *ctx, const gdt_facts *f, gdt_mode mode, gdt_plan_entry **out, int *n,
                               gdt_error *e)
{
    (void)ctx, (void)f;
    list_calls++;
    if (list_fails) return gdt_error_set(e, GDT_STATUS_CUDNN, "stand-in backend: heuristics failed");
    gdt_plan_id ids[2];
    if (mode == GDT_MODE_A) ids[0] = be(1, 0), ids[1] = be(2, 1);
    else if (mode == GDT_MODE_B) ids[0] = be(2, 1), ids[1] = be(3, 0);
    else ids[0] = be(4, 99), ids[1] = be(1, 0);
    *out = calloc(2, sizeof **out);
    for (int i = 0; i < 2; i++)
        (*out)[i] = (gdt_plan_entry){.id = ids[i], .is_backend = true, .mode = mode, .why = "backend heuristic"};
    *n = 2;
    return GDT_STATUS_OK;
}

/* Knob enumeration: eng2/1 (also in A), eng6/0 and eng6/1; it records the
 * cap it was asked for. */
static int enum_cap;
static bool enum_fails;

static gdt_status standin_enumerate(void *ctx, const gdt_facts *f, int cap, gdt_plan_entry **out, int *n,
                                    gdt_error *e)
{
    (void)ctx, (void)f;
    enum_cap = cap;
    if (enum_fails) return gdt_error_set(e, GDT_STATUS_CUDNN, "stand-in backend: enumeration failed");
    const gdt_plan_id ids[] = {be(2, 1), be(6, 0), be(6, 1)};
    *out = calloc(3, sizeof **out);
    for (int i = 0; i < 3; i++)
        (*out)[i] = (gdt_plan_entry){.id = ids[i], .is_backend = true, .mode = GDT_MODE_COUNT};
    *n = 3;
    return GDT_STATUS_OK;
}

static const gdt_backend backend = {.list = standin_list, .ops = &standin_ops, .enumerate = standin_enumerate};

/* ------------------------------------------------------------- helpers */

static gdt_device_props sm90;

static gdt_graph *planned(const char *shape, const gdt_backend *b, const gdt_tables *t, int nmodes,
                          const gdt_mode *modes, const gdt_manifest *m)
{
    gdt_problem p;
    gdt_error e;
    gdt_graph *g = NULL;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, shape, &p, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_create(&p, &sm90, &g, &e), ==, GDT_STATUS_OK);
    gdt_plan_options o = {.manifest = m ? m : &manifest, .backend = b, .tables = t, .nmodes = nmodes};
    for (int i = 0; i < nmodes; i++) o.modes[i] = modes[i];
    gdt_error_clear(&e);
    CHECK_INT(gdt_graph_plan(g, &o, &e), ==, GDT_STATUS_OK);
    if (e.msg[0]) fprintf(stderr, "plan: %s\n", e.msg);
    return g;
}

/* One expected entry: a plan id, or the marker of a mode. */
typedef struct want {
    gdt_plan_id id;
    bool marker, backend;
    gdt_mode mode;
    const char *why;
} want;

static want W(gdt_plan_id id, bool backend, gdt_mode m, const char *why) { return (want){id, false, backend, m, why}; }
static want MARK(gdt_mode m) { return (want){{.engine_id = -1}, true, false, m, "backend heuristic"}; }

static void expect_list(const gdt_graph *g, const want *w, int n, int line)
{
    int got = gdt_graph_plan_count(g);
    if (got != n) fprintf(stderr, "line %d: list of %d entries, want %d\n", line, got, n);
    CHECK_INT(got, ==, n);
    for (int i = 0; i < n && i < got; i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, i);
        bool ok = x->is_marker == w[i].marker && x->mode == w[i].mode &&
                  (w[i].marker || (gdt_plan_id_equal(&x->id, &w[i].id) && x->is_backend == w[i].backend)) &&
                  x->why && !strcmp(x->why, w[i].why);
        if (!ok) {
            char a[256], b[256];
            gdt_plan_id_format(&x->id, a, sizeof a);
            gdt_plan_id_format(&w[i].id, b, sizeof b);
            fprintf(stderr, "line %d: entry %d: got %s%s mode %s why \"%s\", want %s%s mode %s why \"%s\"\n",
                    line, i, x->is_marker ? "MARKER " : "", a, gdt_mode_name(x->mode), x->why,
                    w[i].marker ? "MARKER " : "", b, gdt_mode_name(w[i].mode), w[i].why);
        }
        CHECK(ok);
    }
}
#define EXPECT(g, ...)                                                                  \
    do {                                                                                \
        const want w_[] = {__VA_ARGS__};                                                \
        expect_list(g, w_, (int)(sizeof w_ / sizeof w_[0]), __LINE__);                  \
    } while (0)

static const char *const UT = "untimed default", *const BH = "backend heuristic", *const FB = "fallback",
                         *const MR = "measured rank";

/* --------------------------------------------------------------- tests */

/* Untimed order per mode, with and without the backend.  The opt-in slot
 * and the sm100-only slot are never offered on sm90. */
static void test_untimed_order(void)
{
    const gdt_mode a = GDT_MODE_A, b = GDT_MODE_B, f = GDT_MODE_FALLBACK, o = GDT_MODE_OPENSOURCE;
    gdt_graph *g = planned("", NULL, NULL, 0, NULL, NULL); /* modes default to {A} */
    EXPECT(g, MARK(a), W(ours(SLOT_DECLINE), 0, a, UT), W(ours(SLOT_A), 0, a, UT), W(ours(SLOT_C), 0, a, UT));
    gdt_graph_destroy(g);
    g = planned("", &backend, NULL, 1, &a, NULL);
    EXPECT(g, W(be(1, 0), 1, a, BH), W(be(2, 1), 1, a, BH), W(ours(SLOT_DECLINE), 0, a, UT),
           W(ours(SLOT_A), 0, a, UT), W(ours(SLOT_C), 0, a, UT));
    gdt_graph_destroy(g);
    g = planned("", NULL, NULL, 1, &b, NULL);
    EXPECT(g, MARK(b), W(ours(SLOT_DECLINE), 0, b, UT), W(ours(SLOT_A), 0, b, UT), W(ours(SLOT_C), 0, b, UT));
    gdt_graph_destroy(g);
    /* FALLBACK: our most conservative plan (no tile knobs anywhere: the
     * first in row order), then the backend's FALLBACK block. */
    g = planned("", &backend, NULL, 1, &f, NULL);
    EXPECT(g, W(ours(SLOT_DECLINE), 0, f, FB), W(be(4, 99), 1, f, BH), W(be(1, 0), 1, f, BH));
    gdt_graph_destroy(g);
    g = planned("", NULL, NULL, 1, &f, NULL);
    EXPECT(g, W(ours(SLOT_DECLINE), 0, f, FB), MARK(f));
    gdt_graph_destroy(g);
    int before = list_calls;
    g = planned("", &backend, NULL, 1, &o, NULL);
    EXPECT(g, W(ours(SLOT_DECLINE), 0, o, UT), W(ours(SLOT_A), 0, o, UT), W(ours(SLOT_C), 0, o, UT));
    CHECK_INT(list_calls, ==, before); /* OPENSOURCE never asks the backend */
    gdt_graph_destroy(g);
    /* A backend whose list fails leaves the marker. */
    list_fails = true;
    g = planned("", &backend, NULL, 1, &a, NULL);
    EXPECT(g, MARK(a), W(ours(SLOT_DECLINE), 0, a, UT), W(ours(SLOT_A), 0, a, UT), W(ours(SLOT_C), 0, a, UT));
    list_fails = false;
    gdt_graph_destroy(g);
}

/* The whole list is deduplicated by (engine_id, knobs): first position wins,
 * across mode blocks. */
static void test_dedupe(void)
{
    const gdt_mode a = GDT_MODE_A, f = GDT_MODE_FALLBACK, o = GDT_MODE_OPENSOURCE;
    const gdt_mode aa[] = {a, a}, ofa[] = {o, a, f};
    int calls = list_calls;
    gdt_graph *g = planned("", &backend, NULL, 2, aa, NULL);
    CHECK_INT(list_calls, ==, calls + 1); /* the second A block asks the backend nothing new */
    EXPECT(g, W(be(1, 0), 1, a, BH), W(be(2, 1), 1, a, BH), W(ours(SLOT_DECLINE), 0, a, UT),
           W(ours(SLOT_A), 0, a, UT), W(ours(SLOT_C), 0, a, UT));
    gdt_graph_destroy(g);
    g = planned("", NULL, NULL, 2, aa, NULL); /* one marker per mode */
    EXPECT(g, MARK(a), W(ours(SLOT_DECLINE), 0, a, UT), W(ours(SLOT_A), 0, a, UT), W(ours(SLOT_C), 0, a, UT));
    gdt_graph_destroy(g);
    g = planned("", &backend, NULL, 3, ofa, NULL);
    EXPECT(g, W(ours(SLOT_DECLINE), 0, o, UT), W(ours(SLOT_A), 0, o, UT), W(ours(SLOT_C), 0, o, UT),
           W(be(1, 0), 1, a, BH), W(be(2, 1), 1, a, BH), W(be(4, 99), 1, f, BH));
    gdt_graph_destroy(g);
    g = planned("", NULL, NULL, 3, ofa, NULL);
    EXPECT(g, W(ours(SLOT_DECLINE), 0, o, UT), W(ours(SLOT_A), 0, o, UT), W(ours(SLOT_C), 0, o, UT),
           MARK(a), MARK(f));
    gdt_graph_destroy(g);
}

static void test_one_shot_and_usage(void)
{
    gdt_graph *g = planned("", NULL, NULL, 0, NULL, NULL);
    gdt_plan_options o = {.manifest = &manifest};
    gdt_error e;
    CHECK_INT(gdt_graph_plan(g, &o, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "one-shot");
    CHECK_INT(gdt_graph_select(g, 4, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "plan index 4 out of range (the list holds 4)");
    gdt_graph_destroy(g);
    gdt_graph_destroy(NULL);
    /* Building before planning, and a problem that does not validate. */
    gdt_problem p;
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    CHECK_INT(gdt_graph_create(&p, &sm90, &g, &e), ==, GDT_STATUS_OK);
    gdt_build_opts bo = {.device = sm90};
    int idx;
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "plan the graph first");
    gdt_graph_destroy(g);
    p.u.gemm.m = 0;
    g = (gdt_graph *)&p;
    CHECK_INT(gdt_graph_create(&p, &sm90, &g, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK(g == NULL);
    CHECK_CONTAINS(e.msg, "m = 0");
    o.nmodes = 1;
    o.modes[0] = (gdt_mode)7;
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    CHECK_INT(gdt_graph_create(&p, &sm90, &g, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_plan(g, &o, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "modes[0]: unknown mode 7");
    gdt_graph_destroy(g);
}

/* Building walks past a decline; a pinned decline is an error naming the
 * plan; markers are skipped; backend entries build through the backend. */
static void test_build(void)
{
    const gdt_mode o = GDT_MODE_OPENSOURCE, f = GDT_MODE_FALLBACK;
    gdt_build_opts bo = {.device = sm90};
    gdt_error e;
    int idx = -7;
    gdt_graph *g = planned("", NULL, NULL, 1, &o, NULL);
    int b0 = builds;
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_OK);
    CHECK_INT(idx, ==, 1); /* index 0 declines */
    CHECK_INT(builds, ==, b0 + 1);
    gdt_plan_id a = ours(SLOT_A);
    CHECK(gdt_plan_id_equal(&last_built, &a));
    CHECK_INT(gdt_graph_workspace_size(g), ==, 256);
    /* Pin the declining plan: an error naming it. */
    CHECK_INT(gdt_graph_select(g, 0, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "pinned plan 0: engine20050: declined: stand-in declines this plan");
    CHECK_INT(idx, ==, -1);
    /* Pin plan 2. */
    CHECK_INT(gdt_graph_select(g, 2, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_OK);
    CHECK_INT(idx, ==, 2);
    gdt_plan_id c = ours(SLOT_C);
    CHECK(gdt_plan_id_equal(&last_built, &c));
    gdt_graph_destroy(g);
    /* FALLBACK with the backend: ours declines, eng4/99 declines, eng1/0
     * builds through the backend's ops. */
    g = planned("", &backend, NULL, 1, &f, NULL);
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_OK);
    CHECK_INT(idx, ==, 2);
    gdt_plan_id b1 = be(1, 0);
    CHECK(gdt_plan_id_equal(&last_built, &b1));
    gdt_graph_destroy(g);
    /* Without the backend the marker is skipped and nothing else builds. */
    g = planned("", NULL, NULL, 1, &f, NULL);
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "no plan built: 1 of 2 entries tried");
    CHECK_CONTAINS(e.msg, "declined: stand-in declines this plan");
    CHECK_INT(gdt_graph_select(g, 1, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "pinned plan 1 is the unexpanded BACKEND(FALLBACK) marker");
    gdt_graph_destroy(g);
}

/* Replay builds exactly the recorded identity, listed or not. */
static void test_replay(void)
{
    const gdt_mode o = GDT_MODE_OPENSOURCE;
    gdt_build_opts bo = {.device = sm90};
    gdt_error e;
    int idx = 5;
    gdt_graph *g = planned("", &backend, NULL, 1, &o, NULL);
    gdt_plan_id rec = ours(SLOT_C);
    gdt_plan_id_set_knob(&rec, GDT_KNOB_TEST, 7);
    CHECK_INT(gdt_graph_replay(g, &rec, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_OK);
    CHECK_INT(idx, ==, -1);
    CHECK(gdt_plan_id_equal(&last_built, &rec));
    gdt_plan_id b5 = be(5, 3); /* a backend plan no list holds */
    CHECK_INT(gdt_graph_replay(g, &b5, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_OK);
    CHECK(gdt_plan_id_equal(&last_built, &b5));
    gdt_plan_id other = {.engine_id = gdt_engine_id(GDT_FAMILY_SDPA_FWD, 50)};
    CHECK_INT(gdt_graph_replay(g, &other, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "belongs to family sdpa_fwd, the graph is gemm");
    gdt_plan_id reserved = {.engine_id = 12345};
    CHECK_INT(gdt_graph_replay(g, &reserved, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "12345");
    gdt_plan_id dec = ours(SLOT_DECLINE);
    CHECK_INT(gdt_graph_replay(g, &dec, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "engine20050: declined");
    gdt_graph_destroy(g);
    /* A backend id with no backend attached. */
    g = planned("", NULL, NULL, 1, &o, NULL);
    CHECK_INT(gdt_graph_replay(g, &b5, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "no backend is attached");
    gdt_graph_destroy(g);
}

static void test_execute(void)
{
    const gdt_mode o = GDT_MODE_OPENSOURCE;
    gdt_build_opts bo = {.device = sm90};
    gdt_error e;
    int idx;
    gdt_graph *g = planned("m=64,n=64,k=64", NULL, NULL, 1, &o, NULL);
    gdt_operands ops;
    memset(&ops, 0, sizeof ops);
    CHECK_INT(gdt_graph_execute(g, &ops, NULL, 0, NULL, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "no plan built");
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_OK);
    static char buf[3][64 * 64 * 2];
    gdt_operand_role roles[] = {GDT_OPERAND_A, GDT_OPERAND_B, GDT_OPERAND_C};
    for (int i = 0; i < 3; i++) ops.ptr[roles[i]] = buf[i], ops.bytes[roles[i]] = sizeof buf[i];
    ops.bytes[GDT_OPERAND_B] = 100;
    static char ws[256];
    int x0 = executes;
    CHECK_INT(gdt_graph_execute(g, &ops, ws, sizeof ws, NULL, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "B");
    ops.bytes[GDT_OPERAND_B] = sizeof buf[1];
    CHECK_INT(gdt_graph_execute(g, &ops, ws, 8, NULL, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "workspace: expected 256 bytes, got 8");
    CHECK_INT(gdt_graph_execute(g, &ops, ws, sizeof ws, NULL, &e), ==, GDT_STATUS_OK);
    CHECK_INT(executes, ==, x0 + 1);
    int d0 = destroys;
    gdt_graph_destroy(g);
    CHECK_INT(destroys, ==, d0 + 1);
}

/* ------------------------------------------------------- with the tables */

static char root[256];

static gdt_measured_plan mplan(gdt_plan_id id, bool backend, int pos, double t, double noise)
{
    return (gdt_measured_plan){.id = id, .is_backend = backend, .mode = GDT_MODE_A,
                               .untimed_position = pos, .time_us = t, .noise = noise, .host_us = 5,
                               .samples = 30};
}

static gdt_tables *write_and_load(const char *sub, gdt_measured_cell *c, int n)
{
    gdt_provenance prov = {.arch = 90};
    snprintf(prov.gdtune_version, sizeof prov.gdtune_version, "%s", GDT_VERSION_STRING);
    char dir[600], top[512];
    snprintf(top, sizeof top, "%s/%s", root, sub);
    snprintf(dir, sizeof dir, "%s/sm90", top);
    gdt_error e;
    gdt_tables *t = NULL;
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, c, n, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_tables_load(top, GDT_FAMILY_GEMM, 90, &t, &e), ==, GDT_STATUS_OK);
    if (!t) fprintf(stderr, "%s\n", e.msg);
    return t;
}

/* Measured winner first: from synthetic measurements written as tables
 * and loaded back. */
static void test_measured_winner_first(void)
{
    const gdt_mode a = GDT_MODE_A;
    gdt_measured_plan p[] = {
        mplan(be(1, 0), true, 0, 100, 0.005), mplan(be(2, 1), true, 1, 90, 0.005),
        mplan(ours(SLOT_A), false, 3, 80, 0.005), mplan(ours(SLOT_C), false, 4, 50, 0.005),
    };
    gdt_measured_cell c = {.plans = p, .nplans = 4};
    gdt_problem_parse(GDT_FAMILY_GEMM, "m=2048", &c.problem, NULL);
    gdt_tables *t = write_and_load("win", &c, 1);
    if (!t) return;
    gdt_graph *g = planned("m=2048", &backend, t, 1, &a, NULL);
    /* C (50) and A (80) beat eng2 (90); the backend block follows its best
     * measured plan; the unmeasured DECLINE slot comes last. */
    EXPECT(g, W(ours(SLOT_C), 0, a, MR), W(ours(SLOT_A), 0, a, MR), W(be(2, 1), 1, a, MR),
           W(be(1, 0), 1, a, BH), W(ours(SLOT_DECLINE), 0, a, UT));
    gdt_graph_destroy(g);
    /* Without the backend the marker stays where the block goes. */
    g = planned("m=2048", NULL, t, 1, &a, NULL);
    EXPECT(g, W(ours(SLOT_C), 0, a, MR), W(ours(SLOT_A), 0, a, MR), W(be(2, 1), 1, a, MR), MARK(a),
           W(be(1, 0), 1, a, MR), W(ours(SLOT_DECLINE), 0, a, UT));
    gdt_graph_destroy(g);
    /* B keeps its untimed structure even with a table. */
    const gdt_mode b = GDT_MODE_B;
    g = planned("m=2048", NULL, t, 1, &b, NULL);
    EXPECT(g, MARK(b), W(ours(SLOT_DECLINE), 0, b, UT), W(ours(SLOT_A), 0, b, UT), W(ours(SLOT_C), 0, b, UT));
    gdt_graph_destroy(g);
    /* A shape the sweep did not measure lands on the shard: LEAD puts ours
     * ahead of the backend's block. */
    g = planned("m=3000", NULL, t, 1, &a, NULL);
    const char *SH = "placement shard";
    EXPECT(g, W(ours(SLOT_DECLINE), 0, a, SH), W(ours(SLOT_A), 0, a, SH), W(ours(SLOT_C), 0, a, SH), MARK(a));
    gdt_graph_destroy(g);
    /* No shard for fp16: the untimed order. */
    g = planned("m=3000,dtype=fp16", NULL, t, 1, &a, NULL);
    EXPECT(g, MARK(a), W(ours(SLOT_DECLINE), 0, a, UT), W(ours(SLOT_A), 0, a, UT), W(ours(SLOT_C), 0, a, UT));
    gdt_graph_destroy(g);
    gdt_tables_destroy(t);
}

/* Differences within noise keep the untimed order: the backend stays
 * first. */
static void test_noise_keeps_untimed(void)
{
    const gdt_mode a = GDT_MODE_A;
    gdt_measured_plan p[] = {
        mplan(be(1, 0), true, 0, 100, 0.02), mplan(ours(SLOT_A), false, 1, 99, 0.02),
        mplan(ours(SLOT_C), false, 2, 98, 0.02),
    };
    gdt_measured_cell c = {.plans = p, .nplans = 3};
    gdt_problem_parse(GDT_FAMILY_GEMM, "m=1024", &c.problem, NULL);
    gdt_tables *t = write_and_load("noise", &c, 1);
    if (!t) return;
    gdt_graph *g = planned("m=1024", NULL, t, 1, &a, NULL);
    EXPECT(g, W(be(1, 0), 1, a, MR), MARK(a), W(ours(SLOT_A), 0, a, MR), W(ours(SLOT_C), 0, a, MR),
           W(ours(SLOT_DECLINE), 0, a, UT));
    gdt_graph_destroy(g);
    /* The shard for unmeasured shapes says TRAIL: the backend's block first. */
    g = planned("m=8192", NULL, t, 1, &a, NULL);
    const char *SH = "placement shard";
    EXPECT(g, MARK(a), W(ours(SLOT_DECLINE), 0, a, SH), W(ours(SLOT_A), 0, a, SH), W(ours(SLOT_C), 0, a, SH));
    gdt_graph_destroy(g);
    gdt_tables_destroy(t);
}

/* The noise comparison is not transitive: A is within noise of the backend
 * and C within noise of A, but C beats the backend. The first plan must be
 * within noise of the winner C, so the backend may not stay first. */
static void test_noise_chain(void)
{
    const gdt_mode a = GDT_MODE_A;
    gdt_measured_plan p[] = {
        mplan(be(1, 0), true, 0, 100, 0.01), mplan(ours(SLOT_A), false, 1, 99, 0.01),
        mplan(ours(SLOT_C), false, 2, 98, 0.01),
    };
    gdt_measured_cell c = {.plans = p, .nplans = 3};
    gdt_problem_parse(GDT_FAMILY_GEMM, "m=1024", &c.problem, NULL);
    gdt_tables *t = write_and_load("chain", &c, 1);
    if (!t) return;
    gdt_graph *g = planned("m=1024", NULL, t, 1, &a, NULL);
    EXPECT(g, W(ours(SLOT_A), 0, a, MR), W(ours(SLOT_C), 0, a, MR), W(be(1, 0), 1, a, MR), MARK(a),
           W(ours(SLOT_DECLINE), 0, a, UT));
    gdt_graph_destroy(g);
    gdt_tables_destroy(t);
}

/* A slot with a row family contributes its surviving, non-duplicate
 * candidates in row order; FALLBACK takes the smallest tile. */
static void test_row_candidates(void)
{
    const gdt_mode a = GDT_MODE_A, f = GDT_MODE_FALLBACK;
    gdt_row_table *rows = NULL;
    gdt_error e;
    CHECK_INT(gdt_rows_load_default(&rows, &e), ==, GDT_STATUS_OK);
    if (!rows) return (void)fprintf(stderr, "%s\n", e.msg);
    gdt_problem p;
    gdt_facts facts;
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    gdt_facts_analyze(&p, &sm90, &facts);
    gdt_candidate *c = NULL;
    int n = 0;
    CHECK_INT(gdt_candidates_materialize(rows, &row_slots[0], &facts, &c, &n, &e), ==, GDT_STATUS_OK);
    want w[64];
    int k = 0, small = -1;
    w[k++] = MARK(a);
    for (int i = 0; i < n && k < 64; i++) {
        if (c[i].rejected || c[i].duplicate_of_earlier) continue;
        w[k++] = W(c[i].id, 0, a, UT);
        int64_t area = gdt_plan_id_knob(&c[i].id, GDT_KNOB_TILE_M, 0) * gdt_plan_id_knob(&c[i].id, GDT_KNOB_TILE_N, 0);
        if (small < 0 || area < gdt_plan_id_knob(&w[small].id, GDT_KNOB_TILE_M, 0) *
                                    gdt_plan_id_knob(&w[small].id, GDT_KNOB_TILE_N, 0))
            small = k - 1;
    }
    CHECK(k > 2);
    gdt_plan_options o = {.manifest = &row_manifest, .rows = rows, .nmodes = 1, .modes = {a}};
    gdt_graph *g = NULL;
    CHECK_INT(gdt_graph_create(&p, &sm90, &g, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_plan(g, &o, &e), ==, GDT_STATUS_OK);
    expect_list(g, w, k, __LINE__);
    gdt_graph_destroy(g);
    o.modes[0] = f;
    CHECK_INT(gdt_graph_create(&p, &sm90, &g, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_plan(g, &o, &e), ==, GDT_STATUS_OK);
    if (small > 0) {
        want wf[] = {W(w[small].id, 0, f, FB), MARK(f)};
        expect_list(g, wf, 2, __LINE__);
    }
    gdt_graph_destroy(g);
    free(c);
    gdt_rows_destroy(rows);
}

/* ---------------------------------------------------------- enumeration */

static char warned[2][512];
static int nwarned;

static void record_warning(void *ctx, const char *msg)
{
    CHECK(ctx == (void *)warned);
    if (nwarned < 2) snprintf(warned[nwarned], sizeof warned[0], "%s", msg);
    nwarned++;
}

static gdt_graph *enumerated(const gdt_backend *b, int knob_cap, gdt_status want_status, gdt_error *e)
{
    gdt_problem p;
    gdt_graph *g = NULL;
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    CHECK_INT(gdt_graph_create(&p, &sm90, &g, e), ==, GDT_STATUS_OK);
    gdt_plan_options o = {.manifest = &manifest, .backend = b, .knob_cap = knob_cap,
                          .warn = record_warning, .warn_ctx = warned};
    CHECK_INT(gdt_graph_enumerate(g, &o, e), ==, want_status);
    return g;
}

static void expect_tags(const gdt_graph *g, const char *const *tags, const int *untimed, int n, int line)
{
    CHECK_INT(gdt_graph_plan_count(g), ==, n);
    for (int i = 0; i < n && i < gdt_graph_plan_count(g); i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, i);
        if (strcmp(gdt_plan_entry_tag(x), tags[i]) || x->untimed != untimed[i])
            fprintf(stderr, "line %d: entry %d: tag %s untimed %d, want %s %d\n", line, i,
                    gdt_plan_entry_tag(x), x->untimed, tags[i], untimed[i]);
        CHECK_STR(gdt_plan_entry_tag(x), tags[i]);
        CHECK_INT(x->untimed, ==, untimed[i]);
    }
}

/* What a sweep measures: ours in row order, then the backend's A, B and
 * FALLBACK blocks, then its knob configs, each once (first source wins),
 * each with its place in the untimed mode-A order (backend A block, then
 * ours: plan.h); plans outside that order follow it in list order. */
static void test_enumerate(void)
{
    const gdt_mode a = GDT_MODE_A, b = GDT_MODE_B, f = GDT_MODE_FALLBACK;
    const char *KB = "backend knob enumeration", *CR = "candidate row";
    gdt_error e;
    nwarned = 0;
    gdt_graph *g = enumerated(&backend, 8, GDT_STATUS_OK, &e);
    CHECK_INT(enum_cap, ==, 8);
    EXPECT(g, W(ours(SLOT_DECLINE), 0, a, CR), W(ours(SLOT_A), 0, a, CR), W(ours(SLOT_C), 0, a, CR),
           W(be(1, 0), 1, a, BH), W(be(2, 1), 1, a, BH), W(be(3, 0), 1, b, BH), W(be(4, 99), 1, f, BH),
           W(be(6, 0), 1, GDT_MODE_COUNT, KB), W(be(6, 1), 1, GDT_MODE_COUNT, KB));
    const char *const tags[] = {"OURS", "OURS", "OURS", "A", "A", "B", "FALLBACK", "KNOB", "KNOB"};
    const int untimed[] = {2, 3, 4, 0, 1, 5 + 5, 5 + 6, 5 + 7, 5 + 8};
    expect_tags(g, tags, untimed, 9, __LINE__);
    CHECK_INT(nwarned, ==, 0);
    /* The untimed positions are gdt_graph_plan's order without tables. */
    gdt_graph *u = planned("", &backend, NULL, 1, &a, NULL);
    for (int i = 0; i < gdt_graph_plan_count(u); i++)
        for (int k = 0; k < gdt_graph_plan_count(g); k++)
            if (gdt_plan_id_equal(&gdt_graph_plan_at(u, i)->id, &gdt_graph_plan_at(g, k)->id))
                CHECK_INT(gdt_graph_plan_at(g, k)->untimed, ==, i);
    gdt_graph_destroy(u);
    /* One-shot, like planning; replay then builds any entry with its engine. */
    gdt_plan_options none = {0};
    CHECK_INT(gdt_graph_enumerate(g, &none, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_INT(gdt_graph_plan(g, &none, &e), ==, GDT_STATUS_BAD_USAGE);
    gdt_build_opts bo = {.device = sm90};
    int idx;
    CHECK_INT(gdt_graph_replay(g, &gdt_graph_plan_at(g, 7)->id, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_build(g, &bo, &idx, &e), ==, GDT_STATUS_OK);
    CHECK(gdt_plan_id_equal(&last_built, &gdt_graph_plan_at(g, 7)->id));
    gdt_graph_destroy(g);
    /* knob_cap 0: no enumeration asked; a negative cap is refused. */
    enum_cap = -7;
    g = enumerated(&backend, 0, GDT_STATUS_OK, &e);
    CHECK_INT(gdt_graph_plan_count(g), ==, 7);
    CHECK_INT(enum_cap, ==, -7);
    gdt_graph_destroy(g);
    g = enumerated(&backend, -1, GDT_STATUS_BAD_USAGE, &e);
    CHECK_CONTAINS(e.msg, "knob_cap: expected 0 or more, got -1");
    gdt_graph_destroy(g);
    /* A backend that cannot list or enumerate is reported through warn and
     * the list goes on: ours, with the marker's place in the untimed order. */
    list_fails = enum_fails = true;
    nwarned = 0;
    g = enumerated(&backend, 4, GDT_STATUS_OK, &e);
    list_fails = enum_fails = false;
    const char *const tags2[] = {"OURS", "OURS", "OURS"};
    const int untimed2[] = {1, 2, 3};
    expect_tags(g, tags2, untimed2, 3, __LINE__);
    CHECK_INT(nwarned, ==, 4); /* modes A, B, FALLBACK and the enumeration */
    CHECK_STR(warned[0], "backend mode A: stand-in backend: heuristics failed");
    gdt_graph_destroy(g);
    /* No backend: ours only, nothing warned. */
    nwarned = 0;
    g = enumerated(NULL, 4, GDT_STATUS_OK, &e);
    CHECK_INT(gdt_graph_plan_count(g), ==, 3);
    CHECK_INT(nwarned, ==, 0);
    gdt_graph_destroy(g);
}

int main(void)
{
    if (!gdt_arch_limits(90, &sm90)) {
        fprintf(stderr, "no sm90 limits\n");
        return 1;
    }
    snprintf(root, sizeof root, "/tmp/gdt_test_ranking.XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    test_untimed_order();
    test_dedupe();
    test_one_shot_and_usage();
    test_build();
    test_replay();
    test_execute();
    test_measured_winner_first();
    test_noise_keeps_untimed();
    test_noise_chain();
    test_row_candidates();
    test_enumerate();
    if (gdt_test_remove_tree(root) != 0) fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("test_ranking");
}
