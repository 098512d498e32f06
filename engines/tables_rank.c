/* The ranking and placement rule of a measured cell: a plan moves ahead
 * of another only when faster by more than their combined measured noise;
 * ours lead the backend only so (tables/README.md, "Ranking"). */
#include <stdint.h>
#include <string.h>

#include "gdt_engines.h"
#include "gdt_tables_impl.h"

/* The combined measured noise of two estimates (absolute: relative noise
 * times time, summed). */
static double noise_margin(const gdt_measured_plan *a, const gdt_measured_plan *b)
{
    return a->noise * a->time_us + b->noise * b->time_us;
}

/* a moves ahead of b only when faster by more than the combined measured
 * noise of the two. */
static bool beats(const gdt_measured_plan *a, const gdt_measured_plan *b)
{
    double margin = noise_margin(a, b);
    return a->time_us < b->time_us && b->time_us - a->time_us > margin;
}

bool gdt_measured_beats(const gdt_measured_plan *a, const gdt_measured_plan *b) { return beats(a, b); }

double gdt_measured_gap(const gdt_measured_plan *a, const gdt_measured_plan *b)
{
    return (b->time_us - a->time_us) / noise_margin(a, b);
}

/* Earlier in the ranking: faster, ties by untimed position. */
static bool faster(const gdt_measured_plan *a, const gdt_measured_plan *b)
{
    return a->time_us < b->time_us || (a->time_us == b->time_us && a->untimed_position < b->untimed_position);
}

/* Position by position: the fastest plan left sets the bar, and of the
 * plans it does not beat (within noise of it) the earliest in the untimed
 * order takes the position. The first plan is thus always within noise of
 * the measured winner, and plans within noise of the fastest keep their
 * untimed order. (Sorting by the noise comparison is not enough: it is not
 * transitive, and a chain of plans each within noise of the next could
 * keep a plan first that the winner beats.) */
void gdt__rank_cell(const gdt_measured_cell *c, int *order)
{
    int n = c->nplans;
    for (int i = 0; i < n; i++) order[i] = i;
    for (int k = 0; k < n; k++) {
        int fast = k, pick = k;
        for (int i = k + 1; i < n; i++)
            if (faster(&c->plans[order[i]], &c->plans[order[fast]])) fast = i;
        const gdt_measured_plan *w = &c->plans[order[fast]];
        for (int i = k; i < n; i++) {
            const gdt_measured_plan *p = &c->plans[order[i]], *q = &c->plans[order[pick]];
            bool q_out = beats(w, q), p_in = !beats(w, p);
            if (p_in && (q_out || p->untimed_position < q->untimed_position)) pick = i;
        }
        int t = order[k];
        order[k] = order[pick];
        order[pick] = t;
    }
}

/* The backend's block follows its best measured plan, so that the measured
 * winner stays first even when it is the backend's. */
int gdt__backend_pos_of(const gdt_measured_cell *c, const int *order)
{
    for (int i = 0; i < c->nplans; i++)
        if (c->plans[order[i]].is_backend) return i + 1;
    return c->nplans;
}

gdt_plan_side gdt_measured_side(const gdt_measured_plan *p)
{
    return p->is_backend ? GDT_PLAN_SIDE_BACKEND : gdt_engine_side(NULL, p->id.engine_id);
}

/* The backend's FALLBACK plan when one was measured; else our most
 * conservative plan (smallest tile area, ties by untimed position). */
int gdt__fallback_of(const gdt_measured_cell *c)
{
    int best = -1;
    for (int i = 0; i < c->nplans; i++) {
        const gdt_measured_plan *p = &c->plans[i];
        if (p->is_backend && p->mode == GDT_MODE_FALLBACK &&
            (best < 0 || p->untimed_position < c->plans[best].untimed_position))
            best = i;
    }
    if (best >= 0) return best;
    for (int i = 0; i < c->nplans; i++) {
        const gdt_measured_plan *p = &c->plans[i];
        if (gdt_measured_side(p) != GDT_PLAN_SIDE_OURS) continue;
        if (best < 0) { best = i; continue; }
        int64_t a = gdt__plan_tile_area(&p->id), b = gdt__plan_tile_area(&c->plans[best].id);
        if (a < b || (a == b && p->untimed_position < c->plans[best].untimed_position)) best = i;
    }
    return best;
}

_Static_assert(GDT_PLAN_SIDE_COUNT == 3, "a cell's placement keeps the best plan of each side: ours, the "
                                        "backend's and the library's");

void gdt__place_cell(const gdt_measured_cell *c, gdt__placement *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->best_ours = pl->best_backend = pl->best_library = -1;
    for (int i = 0; i < c->nplans; i++) {
        gdt_plan_side side = gdt_measured_side(&c->plans[i]);
        int *slot = side == GDT_PLAN_SIDE_BACKEND   ? &pl->best_backend
                    : side == GDT_PLAN_SIDE_LIBRARY ? &pl->best_library
                                                    : &pl->best_ours;
        if (*slot < 0 || c->plans[i].time_us < c->plans[*slot].time_us) *slot = i;
    }
    if (pl->best_ours < 0) return; /* nothing of ours ran: TRAIL */
    if (pl->best_backend < 0) {
        pl->lead = true; /* the backend ran nothing here */
        return;
    }
    const gdt_measured_plan *o = &c->plans[pl->best_ours], *b = &c->plans[pl->best_backend];
    pl->lead = beats(o, b);
    pl->has_ratio = true;
    pl->ratio = o->time_us / b->time_us;
    pl->noise = o->noise + b->noise; /* first-order relative noise of a ratio */
}
