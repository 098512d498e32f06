/* Racing's bars (gdt_race.h). */
#include <string.h>

#include "gdt_race.h"

void gdt_race_note(gdt_race_marks *m, gdt_plan_side side, double us, double noise)
{
    gdt_race_mark x = {us, noise};
    if (!(us > 0) || side < 0 || side >= GDT_PLAN_SIDE_COUNT)
        return;
    gdt_race_mark *sb = &m->side_best[side];
    if (!(sb->us > 0) || us < sb->us)
        *sb = x;
    for (int i = 0; i < GDT_RACE_TOP; i++)
        if (!(m->top[i].us > 0) || us < m->top[i].us) {
            memmove(&m->top[i + 1], &m->top[i], sizeof x * (size_t)(GDT_RACE_TOP - 1 - i));
            m->top[i] = x;
            return;
        }
}

/* Where the racing rule puts the line: bar (1 + noise) (1 + margin). */
static double line(gdt_race_mark bar, double margin) { return bar.us * (1 + bar.noise) * (1 + margin); }

bool gdt_race_bar(const gdt_race_marks *m, gdt_plan_side side, gdt_race_mark *bar, double *margin)
{
    *bar = m->top[0], *margin = GDT_RACE_MARGIN;
    if (!(bar->us > 0))
        return false;
    if (side < 0 || side >= GDT_PLAN_SIDE_COUNT)
        return true;
    gdt_race_mark third = m->top[GDT_RACE_TOP - 1], sb = m->side_best[side];
    if (!(third.us > 0 && sb.us > 0))
        return true;
    gdt_race_mark t = sb.us > third.us ? sb : third;
    if (line(t, GDT_RACE_TOP_MARGIN) < line(*bar, *margin))
        *bar = t, *margin = GDT_RACE_TOP_MARGIN;
    return true;
}
