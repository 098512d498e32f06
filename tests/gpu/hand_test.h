/* What the hand engine's device tests (test_hand, test_hand_attn,
 * test_hand_attn_bwd) share: the device check, the decline on another
 * arch and running a built plan; then, for the two attention directions,
 * the whole test but the cases, the output names and the refusals.  Only
 * included, never built alone: the functions are static inline so that a
 * test that uses a part of them compiles without unused-function
 * warnings. */
#ifndef HAND_TEST_H
#define HAND_TEST_H

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_test.h"
#include "gdt_verify.h"
#include "hand/gdt_hand.h"

/* A watchdog per step: a case or a large shape still running after
 * HAND_WATCHDOG_S (a hung kernel) fails the test, naming it.  A case's
 * fp64 reference is capped at HAND_ATTN_REFERENCE_MAX_FLOPS, on one core;
 * the device work of each is well under a second. */
#define HAND_WATCHDOG_S 150
#define HAND_TEXT_OF(x) #x
#define HAND_TEXT(x) HAND_TEXT_OF(x)

static const char *hand_watch_test = "", *hand_watched = "";

/* Only async-signal-safe calls: the main thread may be blocked in the driver. */
static inline void hand_on_alarm(int sig)
{
    const char *const parts[] = {hand_watch_test, ": FAILED: ", hand_watched,
                                 ": still running after " HAND_TEXT(HAND_WATCHDOG_S) " s (a hung kernel?)\n"};
    (void)sig;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (write(STDOUT_FILENO, parts[i], strlen(parts[i])) < 0)
            break;
    _exit(1);
}

static inline void hand_watch_start(const char *test) { hand_watch_test = test, signal(SIGALRM, hand_on_alarm); }

/* (Re)arms the watchdog for the step `what`. */
static inline void hand_watch(const char *what)
{
    fflush(stdout);
    hand_watched = what;
    alarm(HAND_WATCHDOG_S);
}

typedef struct hand_test {
    const char *name; /* the test, as its skip and result lines name it */
    const char *slot; /* the slot under test, by manifest name */
    gdt_family family;
    const char *const *cases;
    int ncases;
} hand_test;

static inline const gdt_engine_slot *hand_test_slot(const hand_test *t)
{
    return gdt_manifest_find_name(gdt_manifest_default(), t->slot);
}

/* False (skip line printed) without a device; else *dev filled and the
 * device line printed. */
static inline bool hand_test_device(const hand_test *t, gdt_device_props *dev)
{
    if (!gdt__device_present() || gdt__device_props(0, dev, NULL) != GDT_STATUS_OK) {
        printf("%s: no CUDA device, skipped\n", t->name);
        return false;
    }
    printf("device sm%d %s (%d SMs)\n", dev->arch, dev->name, dev->sm_count);
    return true;
}

/* Another arch: the slot is not offered and check_support says why. */
static inline int hand_test_other_arch(const hand_test *t, const gdt_device_props *dev)
{
    const gdt_engine_slot *s = hand_test_slot(t);
    gdt_problem p;
    gdt_facts f;
    gdt_plan_id id = {.engine_id = gdt_engine_id(t->family, s->slot)};
    gdt_error e = {0};
    char why[256];
    CHECK_INT(gdt_problem_parse(t->family, t->cases[0], &p, &e), ==, GDT_STATUS_OK);
    gdt_facts_analyze(&p, dev, &f);
    CHECK(!gdt_slot_offered(NULL, s, &f, why, sizeof why));
    CHECK_INT(s->ops->check_support(s, &f, &id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "the cubin is built for sm_90a only");
    return gdt_test_result(t->name);
}

/* Executes one built plan `runs` times, each on poisoned outputs (so the
 * last run alone must write them all), and reads what it wrote. */
static inline gdt_status hand_test_run_built(const gdt_engine_ops *ops, gdt_compiled *c,
                                             gdt_buffers *b, int runs, gdt_outputs *out,
                                             gdt_error *e)
{
    gdt_status st = gdt_buffers_reserve_workspace(b, ops->workspace_size(c) + 1, e);
    for (int r = 0; r < runs && st == GDT_STATUS_OK; r++) {
        st = gdt_buffers_poison(b, NULL, e);
        if (st == GDT_STATUS_OK)
            st = ops->execute(c, &b->ops, b->workspace, b->workspace_bytes, NULL, e);
    }
    if (st == GDT_STATUS_OK && cudaDeviceSynchronize() != cudaSuccess)
        st = gdt_error_set(e, GDT_STATUS_CUDA, "kernel: %s", cudaGetErrorString(cudaGetLastError()));
    return st == GDT_STATUS_OK ? gdt_outputs_read(b, out, e) : st;
}

/* The output of the first mode-A cuDNN plan that builds for f on dev. */
static inline gdt_status hand_test_run_cudnn(const gdt_device_props *dev, const gdt_facts *f,
                                             gdt_buffers *b, gdt_outputs *out, gdt_error *e)
{
    gdt_plan_entry *l = NULL;
    int n = 0;
    gdt_status st = gdt_cudnn_backend()->list(NULL, f, GDT_MODE_A, &l, &n, e);
    for (int i = 0; st == GDT_STATUS_OK && i < n; i++) {
        gdt_compiled *c = NULL;
        gdt_build_opts o = {.device = *dev};
        gdt_build_info info;
        if (gdt__cudnn_ops.build(NULL, f, &l[i].id, &o, &c, &info, e) != GDT_STATUS_OK)
            continue;
        st = hand_test_run_built(&gdt__cudnn_ops, c, b, 1, out, e);
        gdt__cudnn_ops.destroy(c);
        free(l);
        return st;
    }
    free(l);
    return st == GDT_STATUS_OK ? gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "no cuDNN plan builds")
                               : st;
}

/* A bench shape of family fam: its problem, facts and buffers (filled from
 * seed 7); false, with the reason printed, when they cannot be made. */
static inline bool hand_test_bench_buffers(gdt_family fam, const char *shape, const gdt_device_props *dev,
                                           gdt_problem *p, gdt_facts *f, gdt_buffers **b)
{
    gdt_error e = {0};
    gdt_status st = gdt_problem_parse(fam, shape, p, &e);
    *b = NULL;
    if (st == GDT_STATUS_OK) {
        gdt_facts_analyze(p, dev, f);
        st = gdt_buffers_create(p, 7, b, &e);
    }
    if (st != GDT_STATUS_OK) {
        printf("bench %s: %s\n", shape, e.msg);
        gdt_buffers_destroy(*b);
        *b = NULL;
    }
    return st == GDT_STATUS_OK;
}

/* A GEMM case: its problem, facts, buffers (filled from seed), cuDNN's
 * output and, when its flops are at most ref_max, the fp64 reference's in
 * ref (left empty otherwise: *small false). */
static inline gdt_status hand_test_gemm_case(const char *shape, uint64_t seed,
                                             const gdt_device_props *dev, double ref_max,
                                             gdt_problem *p, gdt_facts *f, gdt_buffers **b,
                                             gdt_outputs *cud, gdt_outputs *ref, bool *small,
                                             gdt_error *e)
{
    gdt_status st = gdt_problem_parse(GDT_FAMILY_GEMM, shape, p, e);
    *small = false;
    if (st == GDT_STATUS_OK) {
        gdt_facts_analyze(p, dev, f);
        st = gdt_buffers_create(p, seed, b, e);
    }
    if (st == GDT_STATUS_OK)
        st = hand_test_run_cudnn(dev, f, *b, cud, e);
    *small = st == GDT_STATUS_OK && f->flops <= ref_max;
    if (*small)
        st = gdt_reference_cpu(*b, ref_max, ref, e);
    if (st != GDT_STATUS_OK)
        printf("%s: FAILED: %s\n", shape, e->msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    return st;
}

static inline double hand_test_tflops(const gdt_facts *f, double us)
{
    return f->flops / (us * 1e-6) / 1e12;
}

/* ------------------------------------------------ the attention directions */

#define HAND_ATTN_REFERENCE_MAX_FLOPS 1e11
#define HAND_ATTN_TIMED_RUNS 25

typedef struct hand_attn_test {
    hand_test base;
    void (*plan)(int64_t engine_id, gdt_plan_id *out); /* the slot's fixed plan */
    int runs;                    /* executes of the hand plan before its outputs are read */
    const char *const *outputs;  /* their names in the verified line, in output order */
    int noutputs;
    const char *large;           /* checked against cuDNN, then timed */
    /* On the first case's plan and buffers: what execute refuses. */
    void (*refusal)(const gdt_engine_slot *s, gdt_compiled *c, gdt_buffers *b);
} hand_attn_test;

static inline gdt_status hand_attn_build(const hand_attn_test *t, const gdt_device_props *dev,
                                         const gdt_facts *f, gdt_compiled **c, gdt_error *e)
{
    const gdt_engine_slot *s = hand_test_slot(&t->base);
    gdt_plan_id id;
    gdt_build_opts o = {.device = *dev};
    gdt_build_info info;
    t->plan(gdt_engine_id(t->base.family, s->slot), &id);
    return s->ops->build(s, f, &id, &o, c, &info, e);
}

/* The first mode-A cuDNN plan that builds, built (NULL when none does). */
static inline gdt_compiled *hand_attn_build_cudnn(const gdt_device_props *dev, const gdt_facts *f,
                                                  gdt_error *e)
{
    gdt_plan_entry *l = NULL;
    gdt_compiled *c = NULL;
    int n = 0;
    if (gdt_cudnn_backend()->list(NULL, f, GDT_MODE_A, &l, &n, e) == GDT_STATUS_OK)
        for (int i = 0; i < n && !c; i++) {
            gdt_build_opts o = {.device = *dev};
            gdt_build_info info;
            if (gdt__cudnn_ops.build(NULL, f, &l[i].id, &o, &c, &info, e) != GDT_STATUS_OK)
                c = NULL;
        }
    free(l);
    return c;
}

/* The forward's refusal (a hand_attn_test's refusal, engines/attn_fwd_tma.c's
 * rule for both slots that launch the Hopper forward): a K pointer off 16
 * bytes is refused before any launch, naming the slot. */
static inline void hand_attn_fwd_refusal(const gdt_engine_slot *s, gdt_compiled *c, gdt_buffers *b)
{
    gdt_operands ops = b->ops;
    gdt_error e = {0};
    char want[128];
    ops.ptr[GDT_OPERAND_K] = (char *)ops.ptr[GDT_OPERAND_K] + 8;
    CHECK_INT(s->ops->execute(c, &ops, NULL, 0, NULL, &e), ==, GDT_STATUS_BAD_INPUT);
    snprintf(want, sizeof want, "%s: operand K: pointer", s->name);
    CHECK_CONTAINS(e.msg, want);
    CHECK_CONTAINS(e.msg, "is not 16-byte aligned");
}

/* The backward's refusal (a hand_attn_test's refusal, engines/attn_bwd_tma.c's
 * rule for both slots that launch the Hopper backward): a dO pointer off 16
 * bytes is refused before any launch, naming the slot, and so is a missing
 * workspace. */
static inline void hand_attn_bwd_refusal(const gdt_engine_slot *s, gdt_compiled *c, gdt_buffers *b)
{
    gdt_operands ops = b->ops;
    gdt_error e = {0};
    char want[128];
    ops.ptr[GDT_OPERAND_DO] = (char *)ops.ptr[GDT_OPERAND_DO] + 8;
    CHECK_INT(s->ops->execute(c, &ops, b->workspace, b->workspace_bytes, NULL, &e), ==,
              GDT_STATUS_BAD_INPUT);
    snprintf(want, sizeof want, "%s: operand dO: pointer", s->name);
    CHECK_CONTAINS(e.msg, want);
    CHECK_CONTAINS(e.msg, "is not 16-byte aligned");
    memset(&e, 0, sizeof e);
    CHECK_INT(s->ops->execute(c, &b->ops, NULL, 0, NULL, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "workspace");
}

/* Max |got - ref| over max |ref| of output i; infinities that agree (an
 * LSE of a row with no visible key) count as equal. */
static inline double hand_attn_max_rel(const gdt_outputs *got, const gdt_outputs *ref, int i)
{
    double num = 0, den = 0;
    for (size_t k = 0; k < ref->count[i]; k++) {
        double g = got->data[i][k], r = ref->data[i][k];
        if (g == r)
            continue;
        num = fmax(num, isnan(g) ? INFINITY : fabs(g - r));
        den = fmax(den, fabs(r));
    }
    return num == 0 ? 0 : num / den;
}

static inline void hand_attn_report(const hand_attn_test *t, const char *shape,
                                    const char *against, const gdt_outputs *got,
                                    const gdt_outputs *ref, gdt_status st, const double err[4],
                                    const char *msg)
{
    if (st == GDT_STATUS_OK) {
        printf("%s: verified against %s: ", shape, against);
        for (int i = 0; i < t->noutputs; i++)
            printf("%s%s rel L2 %.2e max rel %.2e", i ? ", " : "", t->outputs[i], err[i],
                   hand_attn_max_rel(got, ref, i));
        printf("\n");
    } else
        printf("%s: FAILED against %s: %s\n", shape, against, msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
}

/* One small case against the fp64 reference; false when the context may be
 * poisoned. */
static inline bool hand_attn_case(const hand_attn_test *t, const gdt_device_props *dev, int ci)
{
    const gdt_engine_slot *s = hand_test_slot(&t->base);
    const char *shape = t->base.cases[ci];
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_compiled *c = NULL;
    gdt_outputs got = {0}, ref = {0};
    gdt_error e = {0};
    double err[4] = {0};
    gdt_status st = gdt_problem_parse(t->base.family, shape, &p, &e);
    if (st == GDT_STATUS_OK) {
        gdt_facts_analyze(&p, dev, &f);
        st = gdt_buffers_create(&p, 1234 + (uint64_t)ci, &b, &e);
    }
    if (st == GDT_STATUS_OK)
        st = hand_attn_build(t, dev, &f, &c, &e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(s->ops, c, b, t->runs, &got, &e);
    if (st == GDT_STATUS_OK)
        st = gdt_reference_cpu(b, HAND_ATTN_REFERENCE_MAX_FLOPS, &ref, &e);
    if (st == GDT_STATUS_OK)
        st = gdt_outputs_compare(&p, &got, &ref, err, &e);
    hand_attn_report(t, shape, "the fp64 reference", &got, &ref, st, err, e.msg);
    if (st == GDT_STATUS_OK && ci == 0)
        t->refusal(s, c, b);
    s->ops->destroy(c);
    gdt_outputs_free(&got);
    gdt_outputs_free(&ref);
    gdt_buffers_destroy(b);
    return cudaGetLastError() == cudaSuccess && st != GDT_STATUS_CUDA;
}

static inline int hand_attn_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Medians over HAND_ATTN_TIMED_RUNS rounds of the device time per call of
 * n plans timed in alternation (plan 0, 1, .., n - 1, 0, ... on one set of
 * buffers): in each round each plan runs `calls` back-to-back executes
 * between its own pair of events from a drained queue, after three warm-up
 * executes of each.  us[i] gets plan i's median, NAN for every plan when
 * one fails.  Alternating keeps a drift of clocks or temperature off any
 * one side of a comparison (an H100 timed one GEMM kernel at 90 and at 102
 * us a minute apart).  The attention figures time single executes, the
 * GEMM's bursts of 64 (the sweep's largest burst). */
static inline void hand_medians_us(const gdt_engine_ops *const *ops, gdt_compiled *const *c, int n, gdt_buffers *b,
                                   int calls, double *us)
{
    float ms[4][HAND_ATTN_TIMED_RUNS];
    cudaEvent_t ev[2];
    gdt_error e = {0};
    gdt_status st = n >= 1 && n <= 4 ? GDT_STATUS_OK : gdt_error_set(&e, GDT_STATUS_BAD_USAGE, "1 to 4 plans");
    /* the plans' workspace: a figure's buffers are fresh (the backward's row printed nan without) */
    for (int j = 0; j < n && st == GDT_STATUS_OK; j++)
        st = gdt_buffers_reserve_workspace(b, ops[j]->workspace_size(c[j]), &e);
    cudaEventCreate(&ev[0]);
    cudaEventCreate(&ev[1]);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 3 && st == GDT_STATUS_OK; i++)
            st = ops[j]->execute(c[j], &b->ops, b->workspace, b->workspace_bytes, NULL, &e);
    for (int r = 0; r < HAND_ATTN_TIMED_RUNS && st == GDT_STATUS_OK; r++)
        for (int j = 0; j < n && st == GDT_STATUS_OK; j++) {
            cudaDeviceSynchronize();
            cudaEventRecord(ev[0], NULL);
            for (int i = 0; i < calls && st == GDT_STATUS_OK; i++)
                st = ops[j]->execute(c[j], &b->ops, b->workspace, b->workspace_bytes, NULL, &e);
            cudaEventRecord(ev[1], NULL);
            cudaEventSynchronize(ev[1]);
            cudaEventElapsedTime(&ms[j][r], ev[0], ev[1]);
        }
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    bool ok = st == GDT_STATUS_OK && cudaDeviceSynchronize() == cudaSuccess;
    if (!ok)
        printf("timing: %s\n", st != GDT_STATUS_OK ? e.msg : cudaGetErrorString(cudaGetLastError()));
    for (int j = 0; j < n; j++) {
        if (ok)
            qsort(ms[j], HAND_ATTN_TIMED_RUNS, sizeof ms[j][0], hand_attn_cmp_float);
        us[j] = ok ? ms[j][HAND_ATTN_TIMED_RUNS / 2] * 1e3 / calls : NAN;
    }
}

/* Two built plans in alternation (hand_medians_us of two); NAN for both
 * where either did not build (NULL). */
static inline void hand_pair_us(const gdt_engine_ops *oa, gdt_compiled *a, const gdt_engine_ops *ob, gdt_compiled *b,
                                gdt_buffers *buf, int calls, double us[2])
{
    const gdt_engine_ops *ops[2] = {oa, ob};
    gdt_compiled *const plans[2] = {a, b};
    us[0] = us[1] = NAN;
    if (a && b)
        hand_medians_us(ops, plans, 2, buf, calls, us);
}

/* One plan's median (hand_medians_us of one). */
static inline double hand_median_us(const gdt_engine_ops *ops, gdt_compiled *c, gdt_buffers *b, int calls)
{
    double us;
    hand_medians_us(&ops, &c, 1, b, calls, &us);
    return us;
}

static inline void hand_attn_figure(const hand_attn_test *t, const gdt_facts *f, gdt_compiled *c,
                                    gdt_compiled *k, gdt_buffers *b)
{
    double us[2];
    hand_pair_us(hand_test_slot(&t->base)->ops, c, &gdt__cudnn_ops, k, b, 1, us);
    double h = us[0], r = us[1];
    printf("figure %s: %s %.1f us %.1f TFLOP/s, cuDNN mode-A plan %.1f us %.1f TFLOP/s, "
           "ratio %.3f (median of %d)\n", t->large, t->base.slot, h, hand_test_tflops(f, h), r,
           hand_test_tflops(f, r), r / h, HAND_ATTN_TIMED_RUNS);
}

/* Printed, not asserted: the plans of a and b (each its slot's) on the
 * buffers of shape, timed in alternation, and b's time over a's, named a_name, b's
 * slot and ratio (e.g. "generated / handwritten"). */
static inline void hand_attn_pair_figure(const hand_attn_test *a, const hand_attn_test *b, const char *shape,
                                         const char *a_name, const char *ratio, const gdt_device_props *dev)
{
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *buf = NULL;
    gdt_compiled *c = NULL, *h = NULL;
    gdt_error e = {0};
    if (!hand_test_bench_buffers(a->base.family, shape, dev, &p, &f, &buf))
        return;
    double us[2];
    if (hand_attn_build(a, dev, &f, &c, &e) != GDT_STATUS_OK || hand_attn_build(b, dev, &f, &h, &e) != GDT_STATUS_OK)
        printf("figure %s: %s\n", shape, e.msg);
    hand_pair_us(hand_test_slot(&a->base)->ops, c, hand_test_slot(&b->base)->ops, h, buf, 1, us);
    double g = us[0], w = us[1];
    printf("figure %s: %s %.1f us %.1f TFLOP/s, %s %.1f us %.1f TFLOP/s, %s %.3f (median of %d)\n", shape,
           a_name, g, hand_test_tflops(&f, g), b->base.slot, w, hand_test_tflops(&f, w), ratio, w / g,
           HAND_ATTN_TIMED_RUNS);
    hand_test_slot(&a->base)->ops->destroy(c);
    hand_test_slot(&b->base)->ops->destroy(h);
    gdt_buffers_destroy(buf);
}

/* True, *dev filled, where device 0 is an sm90. */
static inline bool hand_on_sm90(gdt_device_props *dev)
{
    return gdt__device_props(0, dev, NULL) == GDT_STATUS_OK && dev->arch == 90;
}

/* hand_attn_pair_figure at each of shapes (NULL-ended), each under the
 * watchdog; sm90 only. */
static inline void hand_attn_pair_figures(const hand_attn_test *a, const hand_attn_test *b,
                                          const char *const *shapes, const char *a_name, const char *ratio)
{
    gdt_device_props dev;
    if (!gdt_test_figures() || !hand_on_sm90(&dev))
        return;
    for (int i = 0; shapes[i]; i++) {
        hand_watch(shapes[i]);
        hand_attn_pair_figure(a, b, shapes[i], a_name, ratio, &dev);
    }
    alarm(0);
}

/* Which outputs (bits, in output order) of two reads differ anywhere in
 * their bits (a -0 against a +0 included). */
static inline unsigned hand_attn_differ(const gdt_outputs *a, const gdt_outputs *b)
{
    unsigned mask = 0;
    for (int o = 0; o < a->n && o < b->n; o++)
        if (a->count[o] != b->count[o] || memcmp(a->data[o], b->data[o], a->count[o] * sizeof(double)))
            mask |= 1u << o;
    return mask;
}

/* t's plan run twice on one input of shape (outputs poisoned before each
 * run, read after it): the outputs that differ between the two runs into
 * *mask.  Returns the status of the build and runs. */
static inline gdt_status hand_attn_twice(const hand_attn_test *t, const gdt_device_props *dev, const char *shape,
                                         unsigned *mask, gdt_error *e)
{
    const gdt_engine_slot *s = hand_test_slot(&t->base);
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_compiled *c = NULL;
    gdt_outputs first = {0}, second = {0};
    gdt_status st = gdt_problem_parse(t->base.family, shape, &p, e);
    *mask = 0;
    if (st == GDT_STATUS_OK) {
        gdt_facts_analyze(&p, dev, &f);
        st = gdt_buffers_create(&p, 4321, &b, e);
    }
    if (st == GDT_STATUS_OK)
        st = hand_attn_build(t, dev, &f, &c, e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(s->ops, c, b, 1, &first, e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(s->ops, c, b, 1, &second, e);
    if (st == GDT_STATUS_OK)
        *mask = hand_attn_differ(&first, &second);
    s->ops->destroy(c);
    gdt_outputs_free(&first);
    gdt_outputs_free(&second);
    gdt_buffers_destroy(b);
    return st;
}

/* Reproducibility, sm90 only, at each of shapes (NULL-ended), each under
 * the watchdog: det's plan (a deterministic configuration) run twice on one
 * input must write every output bit for bit the same (asserted); plain's
 * (the default configuration) is run the same way and whether its outputs
 * differed is printed, not asserted (its dQ's bulk reduce-adds land in an
 * order that may vary); det_name and plain_name name the two plans in the
 * printed line.  Stops at a failed build or run. */
static inline void hand_attn_repeatable(const hand_attn_test *det, const hand_attn_test *plain,
                                        const char *const *shapes, const char *det_name, const char *plain_name)
{
    gdt_device_props dev;
    if (!hand_on_sm90(&dev))
        return;
    for (int i = 0; shapes[i]; i++) {
        gdt_error e = {0};
        unsigned d = 0, q = 0;
        hand_watch(shapes[i]);
        gdt_status st = hand_attn_twice(det, &dev, shapes[i], &d, &e);
        if (st == GDT_STATUS_OK)
            st = hand_attn_twice(plain, &dev, shapes[i], &q, &e);
        if (st != GDT_STATUS_OK) {
            printf("%s: FAILED twice on one input: %s\n", shapes[i], e.msg);
            CHECK_INT(st, ==, GDT_STATUS_OK);
            break;
        }
        printf("%s: two runs on one input: %s %s; %s %s (", shapes[i], det_name,
               d ? "FAILED: outputs differ" : "bit for bit", plain_name, q ? "differs" : "bit for bit");
        for (int o = 0; o < plain->noutputs; o++)
            printf("%s%s %s", o ? ", " : "", plain->outputs[o], q >> o & 1 ? "differs" : "same");
        printf("; not asserted)\n");
        CHECK_INT(d, ==, 0);
    }
    alarm(0);
}

/* The large shape: checked against cuDNN (asserted), then timed (printed,
 * under GDT_TEST_FIGURES=1). */
static inline void hand_attn_large(const hand_attn_test *t, const gdt_device_props *dev)
{
    const gdt_engine_slot *s = hand_test_slot(&t->base);
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_compiled *c = NULL, *k = NULL;
    gdt_outputs got = {0}, cud = {0};
    gdt_error e = {0};
    double err[4] = {0};
    gdt_status st = gdt_problem_parse(t->base.family, t->large, &p, &e);
    if (st == GDT_STATUS_OK) {
        gdt_facts_analyze(&p, dev, &f);
        st = gdt_buffers_create(&p, 7, &b, &e);
    }
    if (st == GDT_STATUS_OK && !(k = hand_attn_build_cudnn(dev, &f, &e)))
        st = gdt_error_set(&e, GDT_STATUS_NOT_SUPPORTED, "no mode-A cuDNN plan builds: %s", e.msg);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(&gdt__cudnn_ops, k, b, 1, &cud, &e);
    if (st == GDT_STATUS_OK)
        st = hand_attn_build(t, dev, &f, &c, &e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(s->ops, c, b, t->runs, &got, &e);
    if (st == GDT_STATUS_OK)
        st = gdt_outputs_compare(&p, &got, &cud, err, &e);
    hand_attn_report(t, t->large, "cuDNN", &got, &cud, st, err, e.msg);
    if (st == GDT_STATUS_OK && gdt_test_figures())
        hand_attn_figure(t, &f, c, k, b);
    s->ops->destroy(c);
    gdt__cudnn_ops.destroy(k);
    gdt_outputs_free(&got);
    gdt_outputs_free(&cud);
    gdt_buffers_destroy(b);
}

/* The whole test: skipped without a device, the decline on another arch,
 * else every case, then the large shape and the shapes of `more` (NULL or
 * NULL-terminated) unless a case left the context poisoned; each step under
 * the watchdog. */
static inline int hand_attn_main(const hand_attn_test *t, const char *const *more)
{
    gdt_device_props dev;
    hand_watch_start(t->base.name);
    if (!hand_test_device(&t->base, &dev))
        return GDT_TEST_SKIP;
    if (dev.arch != 90)
        return hand_test_other_arch(&t->base, &dev);
    for (int i = 0; i < t->base.ncases; i++) {
        hand_watch(t->base.cases[i]);
        if (!hand_attn_case(t, &dev, i))
            return gdt_test_result(t->base.name);
    }
    hand_watch(t->large);
    hand_attn_large(t, &dev);
    for (int i = 0; more && more[i]; i++) {
        hand_attn_test other = *t;
        other.large = more[i];
        hand_watch(other.large);
        hand_attn_large(&other, &dev);
    }
    alarm(0);
    return gdt_test_result(t->base.name);
}

#endif
