/* What the attention slots' support tests (test_hand_attn_support,
 * test_hand_attn_bwd_support) share: facts (facts_support.h), the support
 * check with a fresh error, the accepted shapes and a
 * decline with its reason.  Only included, never built alone. */
#ifndef HAND_SUPPORT_H
#define HAND_SUPPORT_H

#include <string.h>

#include "facts_support.h"
#include "gdt_engines.h"
#include "gdt_test.h"
#include "hand/gdt_hand.h"

static inline gdt_status hand_support(const gdt_engine_slot *s, const gdt_facts *f,
                                      const gdt_plan_id *id, gdt_error *e)
{
    memset(e, 0, sizeof *e);
    return s->ops->check_support(s, f, id, e);
}

/* Each of the n shapes of fam on sm90, by the fixed plan and by the
 * knobless name. */
static inline void hand_accepts(const gdt_engine_slot *s, gdt_family fam, const char *const *ok,
                                size_t n, const gdt_plan_id *fixed)
{
    gdt_plan_id bare = {.engine_id = fixed->engine_id};
    gdt_facts f;
    gdt_error e;
    for (size_t i = 0; i < n; i++) {
        test_facts(fam, ok[i], 90, &f);
        CHECK_INT(hand_support(s, &f, fixed, &e), ==, GDT_STATUS_OK);
        CHECK_INT(hand_support(s, &f, &bare, &e), ==, GDT_STATUS_OK);
    }
}

static inline void hand_expect_decline(const gdt_engine_slot *s, const gdt_facts *f,
                                       const gdt_plan_id *id, const char *why)
{
    gdt_error e;
    CHECK_INT(hand_support(s, f, id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, why);
}

#endif
