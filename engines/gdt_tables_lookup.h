/* engines/gdt_tables_lookup.h — the planner's reads of the tables' time
 * model (engines/tables_lookup.c).  Private: plan.c's, beside the public
 * lookups in gdtune/tables.h. */
#ifndef GDT_TABLES_LOOKUP_H
#define GDT_TABLES_LOOKUP_H

#include "gdt_predict.h"
#include "gdtune/tables.h"

/* The planner's mode-A backend block for f: gdt__predict_block with the
 * tables' model and rel; *out malloc'd.  false when the tables hold no
 * model for f, or out of memory. */
bool gdt__tables_backend_block(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *heur, int nh,
                               gdt_plan_id **out, int *n);
/* Whether ours lead the backend's block on f by the tables' model, its
 * lead rule and its interval, block_first being the heuristic's first too
 * (gdt__tables_first): ours_first our first plan, block_first the block's
 * (NULL or unknown to the model: the ratio decides).  false without a
 * model that knows ours_first. */
bool gdt__tables_lead(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *ours_first,
                      const gdt_plan_id *block_first);
/* Mode A's first place on f by the tables' model (gdt__predict_first):
 * ours_first our first plan, heur_first the heuristic's first as the
 * backend listed it, block_first the ranked block's first (NULL: none or
 * no backend; unknown to the model: the ratio decides).  false without a
 * model for f (out: no lead, the block as ranked). */
bool gdt__tables_first(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *ours_first,
                       const gdt_plan_id *heur_first, const gdt_plan_id *block_first, gdt__first *out);

#endif
