/* What the tests of the templates' PIPE=1 rows share (on the CPU
 * test_gemm_tma_rows and test_attn_fwd_tma_rows, on the device
 * test_nvrtc_gemm_tma and test_nvrtc_attn_fwd_tma): a rows file's
 * candidates for a slot and problem, the staged rows' (or those of the file
 * GDT_TEST_TUNING_CONFIG names), a rule's case, the value a template's
 * defines give one name, the PIPE=1 plan of a gemm.hand configuration and
 * a ping-pong plan's cooperative twin.  Only included, never built alone. */
#ifndef ROWS_SUPPORT_H
#define ROWS_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_engines.h"
#include "gdt_rows.h"
#include "gdt_test.h"
#include "hand/gdt_hand.h"
#include "nvrtc/gdt_nvrtc.h"

/* The rows of `json` (NULL: the default rows with those of the file
 * `staged` in place of theirs) materialized for slot s and f; *n of them. */
static inline gdt_candidate *rows_candidates(const char *json, const char *staged,
                                             const gdt_engine_slot *s, const gdt_facts *f, int *n)
{
    gdt_row_table *t = NULL;
    gdt_candidate *c = NULL;
    gdt_error e = {0};
    *n = 0;
    gdt_status st = json ? gdt_rows_load_text(json, strlen(json), "rows.json", &t, &e)
                         : gdt_rows_load_default(&t, &e);
    if (st == GDT_STATUS_OK && !json)
        st = gdt_rows_override(t, staged, &e);
    if (st != GDT_STATUS_OK)
        fprintf(stderr, "%s\n", e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    if (st == GDT_STATUS_OK)
        CHECK_INT(gdt_candidates_materialize(t, s, f, &c, n, &e), ==, GDT_STATUS_OK);
    gdt_rows_destroy(t);
    return c;
}

/* The default rows with those of the file GDT_TEST_TUNING_CONFIG names in
 * place of theirs (else those of `staged`), materialized for s and f. */
static inline gdt_candidate *rows_staged_candidates(const char *staged, const gdt_engine_slot *s,
                                                    const gdt_facts *f, int *n)
{
    const char *rows = getenv("GDT_TEST_TUNING_CONFIG");
    return rows_candidates(NULL, rows && *rows ? rows : staged, s, f, n);
}

/* One rule: the row that breaks it is rejected with `reason`; `kept`,
 * which differs in the rule's column, is accepted (NULL: a rule of the
 * target or the problem, whose row passes at the test's shape on sm90). */
typedef struct rule_case {
    const char *broken, *kept, *reason;
    const char *shape;
    int arch;
} rule_case;

/* The value template t's defines give `name` for plan p on f, or -1 when
 * they give it none; *count (when not NULL): how many they give. */
static inline long long rows_define_of(const gdt_nvrtc_template *t, const gdt_facts *f,
                                       const gdt_plan_id *p, const char *name, int *count)
{
    gdt_nvrtc_define d[GDT_NVRTC_MAX_DEFINES];
    int n = t->defines(f, p, d, GDT_NVRTC_MAX_DEFINES);
    if (count)
        *count = n;
    for (int i = 0; i < n; i++)
        if (!strcmp(d[i].name, name))
            return d[i].value;
    return -1;
}

/* The NVRTC plan (engine_id: gemm.nvrtc's) of gemm.hand configuration i
 * (engines/hand/gdt_hand.h declares gdt__hand_gemm_config_plan): its knobs
 * and the PIPE=1 row's warps, two consumer warpgroups along M, or under
 * SWAP_AB=1 TILE_N / 64 of them along N. */
static inline gdt_plan_id rows_hand_twin(int i, int64_t engine_id)
{
    gdt_plan_id p;
    gdt__hand_gemm_config_plan(i, engine_id, &p);
    bool swap = gdt_plan_id_knob(&p, GDT_KNOB_SWAP_AB, 0) == 1;
    gdt_plan_id_set_knob(&p, GDT_KNOB_WARPS_M, swap ? 1 : 8);
    gdt_plan_id_set_knob(&p, GDT_KNOB_WARPS_N, swap ? gdt_plan_id_knob(&p, GDT_KNOB_TILE_N, 0) / 16 : 1);
    gdt_plan_id_set_knob(&p, GDT_KNOB_MMA, 1);
    gdt_plan_id_set_knob(&p, GDT_KNOB_PIPE, 1);
    return p;
}

/* A ping-pong plan's cooperative twin (gemm.hand's or a PIPE=1 row's):
 * the same knobs without PINGPONG. */
static inline gdt_plan_id rows_cooperative_twin(const gdt_plan_id *p)
{
    gdt_plan_id out = *p;
    out.nknobs = 0;
    for (int i = 0; i < p->nknobs; i++)
        if (p->knobs[i].type != GDT_KNOB_PINGPONG)
            out.knobs[out.nknobs++] = p->knobs[i];
    gdt_plan_id_normalize(&out);
    return out;
}

#endif
