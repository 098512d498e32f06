/* What the CPU tests of the attention rows' PIPE=1 column share
 * (test_attn_fwd_tma_rows, test_attn_bwd_tma_rows): one direction's slot,
 * row family, staged rows file, hand plan and hand cubin, and on them a
 * rows file's candidates, one row's verdict, the optional column, and the
 * staged row's NVRTC build against the hand cubin's entries.  Only
 * included, never built alone. */
#ifndef ATTN_ROWS_SUPPORT_H
#define ATTN_ROWS_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_support.h"
#include "gdt_engines.h"
#include "gdt_rows.h"
#include "gdt_test.h"
#include "nvrtc/gdt_attention.h"
#include "nvrtc/gdt_nvrtc.h"
#include "rows_support.h"

/* One attention direction's PIPE=1 rows. */
typedef struct attn_rows {
    const char *rows;   /* the row family, "attention_fwd" */
    const char *slot;   /* the NVRTC slot, "sdpa_fwd.nvrtc" */
    gdt_family family;
    const char *staged; /* the staged rows file */
    void (*hand_plan)(int64_t engine_id, gdt_plan_id *out); /* the hand slot's one plan */
    const gdt_nvrtc_template *tmpl;
    const char *hand_cubin; /* its embedded name */
    /* Per template entry, in launch order: the hand entry's name before
     * _<dtype>_d<head dim> ("gdt_hand_attn_fwd"). */
    const char *hand_entries[GDT_NVRTC_MAX_KERNELS];
    const char *suffix; /* after _d<head dim> in the hand entries' names ("_m192"; NULL: none) */
} attn_rows;

/* A hand entry's problem: its dtype's name and a shape of that dtype. */
typedef struct attn_rows_entry {
    const char *dtype, *shape;
} attn_rows_entry;

/* f for a shape of the direction's family on sm<arch>. */
static inline void attn_rows_facts(const attn_rows *k, const char *shape, int arch, gdt_facts *f)
{
    gdt_test_facts(k->family, shape, arch, f);
}

static inline const gdt_engine_slot *attn_rows_slot(const attn_rows *k)
{
    const gdt_engine_slot *s = gdt_manifest_find_name(gdt_manifest_default(), k->slot);
    CHECK(s != NULL);
    return s;
}

/* The rows of `json` (NULL: the default rows with the staged file's in
 * place of theirs) materialized for f. */
static inline gdt_candidate *attn_rows_materialize(const attn_rows *k, const char *json,
                                                   const gdt_facts *f, int *n)
{
    return rows_candidates(json, k->staged, attn_rows_slot(k), f, n);
}

/* The hand slot's plan as the NVRTC slot's, with PIPE=1. */
static inline gdt_plan_id attn_rows_hand_plan(const attn_rows *k)
{
    gdt_plan_id p;
    k->hand_plan(gdt_engine_id(k->family, attn_rows_slot(k)->slot), &p);
    gdt_plan_id_set_knob(&p, GDT_KNOB_PIPE, GDT_ATTN_PIPE_TMA);
    return p;
}

/* One row of the family on f: rejected with `reason` in its reason, or
 * (reason NULL) kept. */
static inline void attn_rows_check(const attn_rows *k, const char *row, const gdt_facts *f,
                                   const char *reason)
{
    char json[256];
    int n = 0;
    snprintf(json, sizeof json, "{\"nvrtc\": {\"%s\": [%s]}}", k->rows, row);
    gdt_candidate *c = attn_rows_materialize(k, json, f, &n);
    CHECK(n == 1 && (reason ? c[0].rejected : !c[0].rejected));
    if (n == 1 && reason)
        CHECK_CONTAINS(c[0].reason, reason);
    else if (n == 1 && c[0].rejected)
        fprintf(stderr, "kept row %s: %s\n", row, c[0].reason);
    free(c);
}

/* Each rule of cases on `shape` (a case's own shape when it has one) at
 * its arch: the broken row rejected with its reason, the kept one (or
 * the broken one, for a rule of the target or problem) kept on sm90. */
static inline void attn_rows_rules(const attn_rows *k, const rule_case *cases, size_t n,
                                   const char *shape)
{
    for (size_t i = 0; i < n; i++) {
        const rule_case *r = &cases[i];
        gdt_facts f;
        gdt_test_facts(k->family, r->shape ? r->shape : shape, r->arch, &f);
        attn_rows_check(k, r->broken, &f, r->reason);
        gdt_test_facts(k->family, shape, 90, &f);
        attn_rows_check(k, r->kept ? r->kept : r->broken, &f, NULL);
    }
}

/* The PIPE=1 row on a problem shorter than its tiles (b1 h2 s_q 40 s_kv
 * 24 d64): kept, BLOCK_M and BLOCK_N the kernel's bm and bn whatever s_q
 * and s_kv project them to, and its plan names them. */
static inline void attn_rows_short_problem(const attn_rows *k, const char *row, int64_t bm, int64_t bn)
{
    char json[256];
    gdt_facts f;
    int n = 0;
    attn_rows_facts(k, "b=1,h=2,s_q=40,s_kv=24,d=64", 90, &f);
    snprintf(json, sizeof json, "{\"nvrtc\": {\"%s\": [%s]}}", k->rows, row);
    gdt_candidate *c = attn_rows_materialize(k, json, &f, &n);
    CHECK(n == 1 && !c[0].rejected);
    if (n == 1) {
        CHECK_INT(gdt_plan_id_knob(&c[0].id, GDT_KNOB_TILE_M, -1), ==, bm);
        CHECK_INT(gdt_plan_id_knob(&c[0].id, GDT_KNOB_TILE_N, -1), ==, bn);
    }
    free(c);
}

/* A row ending at MMA (row5) reads PIPE=0 and its plan names no PIPE; the
 * same row with PIPE=0 (row6) is the same plan. */
static inline void attn_rows_optional_column(const attn_rows *k, const char *row5, const char *row6,
                                             const char *shape)
{
    const char *const rows[2] = {row5, row6};
    gdt_plan_id id[2];
    gdt_facts f;
    gdt_test_facts(k->family, shape, 90, &f);
    for (int r = 0; r < 2; r++) {
        char json[128];
        int n = 0;
        snprintf(json, sizeof json, "{\"nvrtc\": {\"%s\": [%s]}}", k->rows, rows[r]);
        gdt_candidate *c = attn_rows_materialize(k, json, &f, &n);
        CHECK_INT(n, ==, 1);
        if (n == 1) {
            CHECK(!c[0].rejected);
            CHECK_INT(c[0].bound[GDT_ATTN_PIPE], ==, GDT_ATTN_PIPE_CTA);
            CHECK_INT(c[0].id.nknobs, ==, 5);
            id[r] = c[0].id;
        }
        free(c);
    }
    CHECK(gdt_plan_id_equal(&id[0], &id[1]));
}

/* The staged row at each entry's problem: bound, not rejected, the hand
 * plan with PIPE=1, and its NVRTC build through the real template has, for
 * every template entry, the .text of the hand cubin's entry, byte for
 * byte. */
static inline void attn_rows_staged_is_hand(const attn_rows *k, const attn_rows_entry *entries,
                                            size_t n)
{
    const gdt_embedded *hand = gdt_embedded_find(k->hand_cubin);
    gdt_plan_id want = attn_rows_hand_plan(k);
    CHECK(hand != NULL);
    for (size_t i = 0; hand && i < n; i++) {
        gdt_facts f;
        gdt_error e = {0};
        void *cubin = NULL;
        size_t len = 0;
        int nc = 0;
        gdt_test_facts(k->family, entries[i].shape, 90, &f);
        gdt_candidate *c = attn_rows_materialize(k, NULL, &f, &nc);
        CHECK_INT(nc, ==, 1);
        if (nc != 1) {
            free(c);
            continue;
        }
        if (c[0].rejected)
            fprintf(stderr, "%s: staged row rejected: %s\n", entries[i].shape, c[0].reason);
        CHECK(!c[0].rejected && gdt_plan_id_equal(&c[0].id, &want));
        gdt_status st = gdt_nvrtc_compile(k->tmpl, &f, &c[0].id, 90, &cubin, &len, NULL, &e);
        if (st != GDT_STATUS_OK)
            fprintf(stderr, "%s: %s\n", entries[i].shape, e.msg);
        CHECK_INT(st, ==, GDT_STATUS_OK);
        for (int j = 0; j < k->tmpl->nkernels; j++) {
            char ours[128], theirs[128];
            snprintf(ours, sizeof ours, ".text.%s", k->tmpl->entries[j]);
            snprintf(theirs, sizeof theirs, ".text.%s_%s_d%lld%s", k->hand_entries[j],
                     entries[i].dtype, (long long)f.problem.u.sdpa.d, k->suffix ? k->suffix : "");
            CHECK(elf_same_text(cubin, len, ours, hand, theirs, entries[i].shape));
        }
        free(cubin);
        free(c);
    }
}

#endif
