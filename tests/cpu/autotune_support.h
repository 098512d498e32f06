/* A stand-in backend's list (five entries, engine ids 0..4, in every mode)
 * and operands of the right size at addresses nothing dereferences: what
 * the autotune tests without a device plan and pass.  Only included,
 * never built alone. */
#ifndef AUTOTUNE_SUPPORT_H
#define AUTOTUNE_SUPPORT_H

#include "plan_support.h"

#define NBACKEND 5

static inline gdt_status standin_list(void *ctx, const gdt_facts *f, gdt_mode mode, gdt_plan_entry **out,
                                      int *n, gdt_error *e)
{
    (void)ctx, (void)f, (void)e;
    *out = calloc(NBACKEND, sizeof **out);
    for (int i = 0; i < NBACKEND; i++)
        (*out)[i] = (gdt_plan_entry){.id = {.engine_id = i}, .is_backend = true, .mode = mode,
                                     .why = "backend heuristic"};
    *n = NBACKEND;
    return GDT_STATUS_OK;
}

static inline gdt_operands fake_operands(const gdt_graph *g)
{
    gdt_operands ops = {0};
    for (int r = 0; r < GDT_OPERAND_COUNT; r++) {
        ops.bytes[r] = gdt_operand_bytes(&gdt_graph_facts(g)->problem, (gdt_operand_role)r);
        if (ops.bytes[r]) ops.ptr[r] = (void *)(uintptr_t)(0x100000u * (unsigned)(r + 1));
    }
    return ops;
}

#endif
