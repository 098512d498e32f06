/* gdt_graph_prebuild (engines/include/gdtune/plan.h) with stand-in
 * engines: a backend whose ops say their build is thread-safe and a
 * manifest slot whose ops do not.  The thread-safe build sleeps, records the
 * thread that ran it, fails for some plans with a message of its own, and
 * counts builds and destroys, so that the test sees (a) each plan built once
 * on several threads, (b) a later replay + build taking the kept plan,
 * status and message without building again, exactly as a serial build
 * would give them, (c) threads <= 1 building nothing ahead, (d) the slot
 * that is not thread-safe left to build when requested, (e) plans never
 * taken destroyed with the graph (leaks: the ASan build of this test). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gdt_engine_impl.h"
#include "gdt_test.h"
#include "gdtune/plan.h"

/* ----------------------------------------------------------- stand-ins */

/* Backend engines 1 .. NPLANS; every fourth fails to build, and engine
 * DECLINED declines at the support check. */
enum { NPLANS = 12, DECLINED = 13, NBACKEND = 13, SLOT_SERIAL = 60 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int builds[NBACKEND + 1], serial_builds, creates, destroys, executes;
static pthread_t built_on[NBACKEND + 1], serial_built_on, executed_built_on;

struct gdt_compiled {
    pthread_t builder;
};

static bool fails(int64_t engine) { return engine % 4 == 3; }

static gdt_status check(const gdt_engine_slot *slot, const gdt_facts *f, const gdt_plan_id *plan,
                        gdt_error *e)
{
    (void)slot, (void)f;
    if (plan->engine_id == DECLINED)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "stand-in declines engine %d", DECLINED);
    return GDT_STATUS_OK;
}

static void note_build(const gdt_engine_slot *slot, int64_t engine)
{
    pthread_mutex_lock(&mu);
    if (slot)
        serial_builds++, serial_built_on = pthread_self();
    else if (engine >= 0 && engine <= NBACKEND)
        builds[engine]++, built_on[engine] = pthread_self();
    pthread_mutex_unlock(&mu);
}

/* Long enough that four threads all get work. */
static void nap(void)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static gdt_status build(const gdt_engine_slot *slot, const gdt_facts *f, const gdt_plan_id *plan,
                        const gdt_build_opts *opts, gdt_compiled **out, gdt_build_info *info,
                        gdt_error *e)
{
    (void)f, (void)opts;
    nap();
    note_build(slot, plan->engine_id);
    info->compile_seconds = 0.001 * (double)plan->engine_id;
    snprintf(info->log, sizeof info->log, "stand-in log of engine %lld", (long long)plan->engine_id);
    if (!slot && fails(plan->engine_id))
        return gdt_error_set(e, GDT_STATUS_CUDNN, "stand-in finalize refused engine %lld on purpose",
                             (long long)plan->engine_id);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "stand-in: out of memory");
    (*out)->builder = pthread_self();
    pthread_mutex_lock(&mu);
    creates++;
    pthread_mutex_unlock(&mu);
    return GDT_STATUS_OK;
}

static size_t workspace(const gdt_compiled *c) { return c ? 64 : 0; }

static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t wsb, void *stream,
                          gdt_error *e)
{
    (void)ops, (void)ws, (void)wsb, (void)stream, (void)e;
    executes++;
    executed_built_on = c->builder;
    return GDT_STATUS_OK;
}

static void destroy(gdt_compiled *c)
{
    pthread_mutex_lock(&mu);
    destroys++;
    pthread_mutex_unlock(&mu);
    free(c);
}

static const gdt_engine_ops safe_ops = {check, build, workspace, execute, destroy, NULL, true};
static const gdt_engine_ops serial_ops = {check, build, workspace, execute, destroy, NULL, false};

#define ANY {0, 999, (1u << GDT_DTYPE_COUNT) - 1u, 0, 0, 0}
static const gdt_engine_slot slots[] = {
    {GDT_FAMILY_GEMM, SLOT_SERIAL, "gemm.standin_serial", GDT_ENGINE_TEST, NULL, ANY, false, &serial_ops},
};
static const gdt_manifest manifest = {slots, 1, false};

/* Mode A lists every backend engine; the other modes nothing. */
static gdt_status list(void *ctx, const gdt_facts *f, gdt_mode mode, gdt_plan_entry **out, int *n,
                       gdt_error *e)
{
    (void)ctx, (void)f, (void)e;
    *n = mode == GDT_MODE_A ? NBACKEND : 0;
    *out = calloc(NBACKEND, sizeof **out);
    for (int i = 0; i < *n; i++)
        (*out)[i] = (gdt_plan_entry){.id = {.engine_id = i + 1}, .is_backend = true, .mode = mode,
                                     .why = "backend heuristic"};
    return GDT_STATUS_OK;
}

static const gdt_backend backend = {.list = list, .ops = &safe_ops};

/* ------------------------------------------------------------- helpers */

static gdt_device_props sm90 = {.arch = 90};
static const gdt_build_opts opts = {.device = {.arch = 90}, .cache_dir = "/nonexistent/kcache"};

static void reset(void)
{
    memset(builds, 0, sizeof builds);
    serial_builds = creates = destroys = executes = 0;
}

static gdt_graph *enumerated(void)
{
    gdt_problem p;
    gdt_error e;
    gdt_graph *g = NULL;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "m=64,n=64,k=64", &p, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_create(&p, &sm90, &g, &e), ==, GDT_STATUS_OK);
    gdt_plan_options o = {.manifest = &manifest, .backend = &backend};
    CHECK_INT(gdt_graph_enumerate(g, &o, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_plan_count(g), ==, NBACKEND + 1); /* the slot once, by its bare id */
    return g;
}

static gdt_plan_id backend_id(int engine) { return (gdt_plan_id){.engine_id = engine}; }
static gdt_plan_id serial_id(void) { return (gdt_plan_id){.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, SLOT_SERIAL)}; }

/* What one replay + build gives. */
typedef struct outcome {
    gdt_status status;
    gdt_error err;
    gdt_build_report rep;
} outcome;

static outcome replay_build(gdt_graph *g, const gdt_plan_id *id, const gdt_build_opts *o)
{
    outcome r;
    gdt_error e;
    gdt_error_clear(&r.err);
    CHECK_INT(gdt_graph_replay(g, id, &e), ==, GDT_STATUS_OK);
    r.status = gdt_graph_build(g, o, NULL, &r.err);
    gdt_graph_last_build(g, &r.rep);
    return r;
}

/* The outcome of a plan built serially on a graph of its own. */
static outcome serial_outcome(const gdt_plan_id *id)
{
    gdt_graph *g = enumerated();
    outcome r = replay_build(g, id, &opts);
    gdt_graph_destroy(g);
    return r;
}

static int distinct_threads(const pthread_t *t, int n, bool *main_seen)
{
    int k = 0;
    *main_seen = false;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < i && !pthread_equal(t[j], t[i]))
            j++;
        k += j == i;
        *main_seen |= pthread_equal(t[i], pthread_self()) != 0;
    }
    return k;
}

static void execute_once(gdt_graph *g)
{
    gdt_error e;
    char buf[3][64 * 64 * 2], ws[64];
    gdt_operands ops;
    memset(&ops, 0, sizeof ops);
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    for (int i = 0, n = gdt_family_operands(GDT_FAMILY_GEMM, roles, NULL); i < n && i < 3; i++)
        ops.ptr[roles[i]] = buf[i], ops.bytes[roles[i]] = sizeof buf[i];
    CHECK_INT(gdt_graph_execute(g, &ops, ws, sizeof ws, NULL, &e), ==, GDT_STATUS_OK);
}

/* ------------------------------------------------------------- tests */

/* (a) each thread-safe plan built once, on more than one thread, none on
 * the caller's; (d) the serial slot not built. */
static void test_builds_once_on_threads(void)
{
    gdt_graph *g = enumerated();
    gdt_error e;
    int kept = -1;
    reset();
    gdt_error_clear(&e);
    CHECK_INT(gdt_graph_prebuild(g, NULL, 0, 4, &opts, &kept, &e), ==, GDT_STATUS_OK);
    CHECK_INT(kept, ==, NBACKEND); /* the decline is kept too */
    pthread_t on[NPLANS];
    for (int i = 1; i <= NPLANS; i++) {
        CHECK_INT(builds[i], ==, 1);
        on[i - 1] = built_on[i];
    }
    CHECK_INT(builds[DECLINED], ==, 0); /* declined at the support check */
    bool main_seen;
    CHECK_INT(distinct_threads(on, NPLANS, &main_seen), >, 1);
    CHECK(!main_seen);
    CHECK_INT(serial_builds, ==, 0);
    /* a second prebuild finds everything kept */
    CHECK_INT(gdt_graph_prebuild(g, NULL, 0, 4, &opts, &kept, &e), ==, GDT_STATUS_OK);
    CHECK_INT(kept, ==, 0);
    gdt_graph_destroy(g);
    CHECK_INT(destroys, ==, creates); /* (e) nothing taken, everything freed */
    CHECK_INT(creates, ==, NPLANS - NPLANS / 4);
}

static void check_same(const outcome *got, const outcome *want, bool prebuilt)
{
    CHECK_INT(got->status, ==, want->status);
    CHECK_STR(got->err.msg, want->err.msg);
    CHECK_NEAR(got->rep.info.compile_seconds, want->rep.info.compile_seconds, 0);
    CHECK_STR(got->rep.info.log, want->rep.info.log);
    CHECK_INT(got->rep.prebuilt, ==, prebuilt);
    /* the stand-in's nap, on whichever thread built (a decline: no build) */
    CHECK(got->rep.seconds >= (want->rep.seconds >= 0.015 ? 0.015 : 0));
}

/* (b) replay + build takes the kept outcome: no build, the serial build's
 * status, message and report; the plan executes as its builder made it. */
static void test_replay_takes_kept(void)
{
    outcome want[NBACKEND + 1];
    for (int i = 1; i <= NBACKEND; i++) {
        gdt_plan_id id = backend_id(i);
        want[i] = serial_outcome(&id);
    }
    CHECK_CONTAINS(want[3].err.msg, "stand-in finalize refused engine 3 on purpose");
    CHECK_CONTAINS(want[DECLINED].err.msg, "declined: stand-in declines engine 13");
    gdt_graph *g = enumerated();
    gdt_error e;
    reset();
    CHECK_INT(gdt_graph_prebuild(g, NULL, 0, 4, &opts, NULL, &e), ==, GDT_STATUS_OK);
    for (int i = 1; i <= NBACKEND; i++) {
        gdt_plan_id id = backend_id(i);
        outcome got = replay_build(g, &id, &opts);
        check_same(&got, &want[i], true);
        CHECK_INT(builds[i], ==, i == DECLINED ? 0 : 1); /* the prebuild's, no other */
        if (got.status == GDT_STATUS_OK) {
            execute_once(g);
            CHECK(!pthread_equal(executed_built_on, pthread_self()));
        }
    }
    /* taken once: the next build of a plan builds again, here */
    gdt_plan_id one = backend_id(1);
    outcome again = replay_build(g, &one, &opts);
    CHECK_INT(again.status, ==, GDT_STATUS_OK);
    CHECK_INT(again.rep.prebuilt, ==, 0);
    CHECK_INT(builds[1], ==, 2);
    CHECK(pthread_equal(built_on[1], pthread_self()));
    gdt_graph_destroy(g);
    CHECK_INT(destroys, ==, creates);
}

/* Other build options than the prebuild's build again; a pinned plan
 * (gdt_graph_select) takes its kept outcome like a replay. */
static void test_options_and_select(void)
{
    gdt_graph *g = enumerated();
    gdt_error e;
    gdt_build_opts other = opts;
    other.cache_dir = "/elsewhere";
    reset();
    CHECK_INT(gdt_graph_prebuild(g, NULL, 0, 3, &opts, NULL, &e), ==, GDT_STATUS_OK);
    gdt_plan_id two = backend_id(2);
    outcome got = replay_build(g, &two, &other);
    CHECK_INT(got.status, ==, GDT_STATUS_OK);
    CHECK_INT(got.rep.prebuilt, ==, 0);
    CHECK_INT(builds[2], ==, 2);
    /* once a plan is taken, a prebuild with other options would build it
     * with options the kept plans were not built with */
    gdt_plan_id one = backend_id(1);
    CHECK_INT(replay_build(g, &one, &opts).rep.prebuilt, ==, 1);
    CHECK_INT(gdt_graph_prebuild(g, NULL, 0, 3, &other, NULL, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "build options differ");
    int at = -1;
    for (int i = 0; i < gdt_graph_plan_count(g); i++)
        if (gdt_graph_plan_at(g, i)->id.engine_id == 5)
            at = i;
    CHECK_INT(gdt_graph_select(g, at, &e), ==, GDT_STATUS_OK);
    int built = -1;
    CHECK_INT(gdt_graph_build(g, &opts, &built, &e), ==, GDT_STATUS_OK);
    CHECK_INT(built, ==, at);
    gdt_build_report rep;
    gdt_graph_last_build(g, &rep);
    CHECK(rep.prebuilt);
    CHECK_INT(builds[5], ==, 1);
    gdt_graph_destroy(g);
    CHECK_INT(destroys, ==, creates);
}

/* (c) threads <= 1: nothing built ahead; every build is the serial one. */
static void test_serial_threads(void)
{
    const int threads[] = {1, 0, -3};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        gdt_graph *g = enumerated();
        gdt_error e;
        int kept = -1;
        reset();
        CHECK_INT(gdt_graph_prebuild(g, NULL, 0, threads[t], &opts, &kept, &e), ==, GDT_STATUS_OK);
        CHECK_INT(kept, ==, 0);
        for (int i = 1; i <= NBACKEND; i++)
            CHECK_INT(builds[i], ==, 0);
        gdt_plan_id four = backend_id(4);
        outcome got = replay_build(g, &four, &opts), want = serial_outcome(&four);
        CHECK_INT(got.status, ==, want.status);
        CHECK_INT(got.rep.prebuilt, ==, 0);
        CHECK(pthread_equal(built_on[4], pthread_self()));
        gdt_graph_destroy(g);
        CHECK_INT(destroys, ==, creates);
    }
}

/* (d) the slot whose build is not thread-safe builds on the caller's
 * thread, when requested; listed ids are prebuilt once however often
 * listed. */
static void test_not_thread_safe(void)
{
    gdt_graph *g = enumerated();
    gdt_error e;
    int kept = -1;
    gdt_plan_id ids[] = {serial_id(), backend_id(2), backend_id(6), backend_id(2)};
    reset();
    CHECK_INT(gdt_graph_prebuild(g, ids, 4, 4, &opts, &kept, &e), ==, GDT_STATUS_OK);
    CHECK_INT(kept, ==, 2);
    CHECK_INT(serial_builds, ==, 0);
    CHECK_INT(builds[2], ==, 1);
    CHECK_INT(builds[6], ==, 1);
    CHECK_INT(builds[1], ==, 0); /* not asked for */
    outcome got = replay_build(g, &ids[0], &opts);
    CHECK_INT(got.status, ==, GDT_STATUS_OK);
    CHECK_INT(got.rep.prebuilt, ==, 0);
    CHECK_INT(serial_builds, ==, 1);
    CHECK(pthread_equal(serial_built_on, pthread_self()));
    gdt_graph_destroy(g); /* (e) plan 6, never taken, freed with the graph */
    CHECK_INT(destroys, ==, creates);
    CHECK_INT(gdt_graph_prebuild(NULL, NULL, 0, 4, &opts, NULL, &e), ==, GDT_STATUS_BAD_USAGE);
}

int main(void)
{
    test_builds_once_on_threads();
    test_replay_takes_kept();
    test_options_and_select();
    test_serial_threads();
    test_not_thread_safe();
    return gdt_test_result("test_prebuild");
}
