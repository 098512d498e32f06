/* What the device tests of the attention rows' PIPE=1 column share
 * (test_nvrtc_attn_fwd_tma, test_nvrtc_attn_bwd_tma): the staged row's
 * binding to the hand slot's plan with PIPE=1, the NVRTC slot against the
 * hand slot on the same buffers, the generated / handwritten figure, the
 * rejection on another arch, and the whole test.  Only included, never
 * built alone. */
#ifndef HAND_ROW_TEST_H
#define HAND_ROW_TEST_H

#include "hand_test.h"
#include "nvrtc/gdt_attention.h"
#include "rows_support.h"

typedef struct hand_row_test {
    const hand_attn_test *row;  /* the NVRTC slot, its plan the staged row's */
    const hand_attn_test *hand; /* the hand slot of the same kernel */
    const char *staged;         /* the staged rows file (GDT_TEST_TUNING_CONFIG overrides it) */
    /* Outputs (bits, in row->outputs' order) the two slots must write bit
     * for bit; the others are held to the dtype's bound against the hand
     * slot's (an order of floating-point adds that varies from run to
     * run: the backward's dQ reduce-adds). */
    unsigned exact;
} hand_row_test;

/* The staged rows' PIPE=1 candidate for f: true with *reason NULL when it
 * binds to row->plan's plan, else false (reason: the row's, when rejected). */
static inline bool hand_row_staged_ok(const hand_row_test *k, const gdt_facts *f, char *reason,
                                      size_t n)
{
    const gdt_engine_slot *s = hand_test_slot(&k->row->base);
    gdt_plan_id want;
    bool ok = false;
    int c_n = 0;
    snprintf(reason, n, "no PIPE=1 row");
    k->row->plan(gdt_engine_id(k->row->base.family, s->slot), &want);
    gdt_candidate *c = rows_staged_candidates(k->staged, s, f, &c_n);
    for (int i = 0; i < c_n; i++) {
        if (c[i].requested[GDT_ATTN_PIPE] != GDT_ATTN_PIPE_TMA)
            continue;
        if (c[i].rejected)
            snprintf(reason, n, "%s", c[i].reason);
        else
            ok = gdt_plan_id_equal(&c[i].id, &want);
    }
    free(c);
    return ok;
}

/* The exact outputs element for element, the others within the dtype's
 * bound against the hand slot's. */
static inline gdt_status hand_row_same(const hand_row_test *k, const gdt_problem *p,
                                       const gdt_outputs *got, const gdt_outputs *want, gdt_error *e)
{
    double err[4] = {0};
    for (int o = 0; o < want->n; o++)
        for (size_t i = 0; (k->exact >> o & 1) && i < want->count[o]; i++)
            if (memcmp(&got->data[o][i], &want->data[o][i], sizeof(double)))
                return gdt_error_set(e, GDT_STATUS_INCORRECT, "element %zu of %s is %g, %s wrote %g",
                                     i, k->row->outputs[o], got->data[o][i], k->hand->base.slot,
                                     want->data[o][i]);
    return gdt_outputs_compare(p, got, want, err, e);
}

/* Both slots on one case's buffers. */
static inline gdt_status hand_row_same_as_hand(const hand_row_test *k, const gdt_device_props *dev, int ci)
{
    const char *shape = k->row->base.cases[ci];
    gdt_problem p;
    gdt_facts f;
    gdt_buffers *b = NULL;
    gdt_compiled *c = NULL, *h = NULL;
    gdt_outputs got = {0}, want = {0};
    gdt_error e = {0};
    char reason[512];
    gdt_status st = gdt_problem_parse(k->row->base.family, shape, &p, &e);
    if (st == GDT_STATUS_OK) {
        gdt_facts_analyze(&p, dev, &f);
        if (!hand_row_staged_ok(k, &f, reason, sizeof reason))
            st = gdt_error_set(&e, GDT_STATUS_NOT_SUPPORTED, "the staged row: %s", reason);
    }
    if (st == GDT_STATUS_OK)
        st = gdt_buffers_create(&p, 99 + (uint64_t)ci, &b, &e);
    if (st == GDT_STATUS_OK)
        st = hand_attn_build(k->row, dev, &f, &c, &e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(hand_test_slot(&k->row->base)->ops, c, b, 1, &got, &e);
    if (st == GDT_STATUS_OK)
        st = hand_attn_build(k->hand, dev, &f, &h, &e);
    if (st == GDT_STATUS_OK)
        st = hand_test_run_built(hand_test_slot(&k->hand->base)->ops, h, b, 1, &want, &e);
    if (st == GDT_STATUS_OK)
        st = hand_row_same(k, &p, &got, &want, &e);
    printf("%s: %s%s\n", shape, st == GDT_STATUS_OK ? "the same outputs as " : e.msg,
           st == GDT_STATUS_OK ? k->hand->base.slot : "");
    CHECK_INT(st, ==, GDT_STATUS_OK);
    hand_test_slot(&k->row->base)->ops->destroy(c);
    hand_test_slot(&k->hand->base)->ops->destroy(h);
    gdt_outputs_free(&got);
    gdt_outputs_free(&want);
    gdt_buffers_destroy(b);
    return st;
}

/* Printed, not asserted: the PIPE=1 row against the hand slot, timed alike. */
static inline void hand_row_figure(const hand_row_test *k, const gdt_device_props *dev)
{
    if (gdt_test_figures())
        hand_attn_pair_figure(k->row, k->hand, k->row->large, "PIPE=1 row", "generated / handwritten", dev);
}

/* Not sm90: the staged row is rejected, naming sm_90a. */
static inline int hand_row_other_arch(const hand_row_test *k, const gdt_device_props *dev)
{
    gdt_problem p;
    gdt_facts f;
    gdt_error e = {0};
    char reason[512];
    CHECK_INT(gdt_problem_parse(k->row->base.family, k->row->base.cases[0], &p, &e), ==, GDT_STATUS_OK);
    gdt_facts_analyze(&p, dev, &f);
    CHECK(!hand_row_staged_ok(k, &f, reason, sizeof reason));
    CHECK_CONTAINS(reason, "PIPE=1 (TMA, mbarriers, setmaxnreg, wgmma) needs sm_90a");
    return gdt_test_result(k->row->base.name);
}

/* The whole test: skipped without a device, the rejection on another
 * arch, else every case against the fp64 reference and against the hand
 * slot, then the large shape against cuDNN and the figure, unless a case
 * left the context poisoned; each step under the watchdog. */
static inline int hand_row_main(const hand_row_test *k)
{
    const hand_attn_test *t = k->row;
    gdt_device_props dev;
    hand_watch_start(t->base.name);
    if (!hand_test_device(&t->base, &dev))
        return GDT_TEST_SKIP;
    if (dev.arch != 90)
        return hand_row_other_arch(k, &dev);
    for (int i = 0; i < t->base.ncases; i++) {
        hand_watch(t->base.cases[i]);
        if (!hand_attn_case(t, &dev, i) || hand_row_same_as_hand(k, &dev, i) == GDT_STATUS_CUDA)
            return gdt_test_result(t->base.name); /* the context may be poisoned */
    }
    hand_watch(t->large);
    hand_attn_large(t, &dev);
    hand_watch(t->large);
    hand_row_figure(k, &dev);
    alarm(0);
    return gdt_test_result(t->base.name);
}

#endif
