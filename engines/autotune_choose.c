/* Which measured candidate an autotune keeps (gdtune/autotune.h): the
 * fastest median, unless it is within the noise margin of the list's first
 * that ran, which then stays.  A pure function: no device, no clock. */
#include <math.h>
#include <stdio.h>

#include "gdtune/autotune.h"

static bool ran(const gdt_autotune_candidate *c)
{
    return c->status == GDT_STATUS_OK && isfinite(c->median_us) && c->median_us >= 0;
}

static void find_firsts(gdt_autotune_report *r)
{
    r->first = r->heuristic = -1;
    for (int i = 0; i < r->n; i++) {
        if (!ran(&r->c[i])) continue;
        if (r->first < 0) r->first = i;
        if (r->heuristic < 0 && r->c[i].side == GDT_PLAN_SIDE_BACKEND) r->heuristic = i;
    }
}

/* The fastest that ran; the earlier list position among equals. */
static int fastest(const gdt_autotune_report *r)
{
    int best = -1;
    for (int i = 0; i < r->n; i++)
        if (ran(&r->c[i]) && (best < 0 || r->c[i].median_us < r->c[best].median_us ||
                              (r->c[i].median_us == r->c[best].median_us && r->c[i].index < r->c[best].index)))
            best = i;
    return best;
}

gdt_status gdt_autotune_choose(gdt_autotune_report *r, double margin, gdt_error *e)
{
    if (!r || r->n < 0 || r->n > GDT_AUTOTUNE_MAX)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_autotune_choose: candidate count %d outside 0..%d",
                             r ? r->n : -1, GDT_AUTOTUNE_MAX);
    if (!(margin >= 0 && margin <= 1))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_autotune_choose: margin %g outside 0..1", margin);
    r->winner = -1;
    find_firsts(r);
    if (r->first < 0)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "autotune: none of %d candidates built and ran%s%s", r->n,
                             r->n ? "; first: " : "", r->n ? r->c[0].why : "");
    int best = fastest(r);
    const double first_us = r->c[r->first].median_us;
    r->winner = r->c[best].median_us * (1 + margin) < first_us ? best : r->first;
    return GDT_STATUS_OK;
}
