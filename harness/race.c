/* Racing's bars and the rounds' plans (gdt_race.h). */
#include <string.h>

#include "gdt_race.h"

void gdt_race_note(gdt_race_marks *m, gdt_engine_kind kind, double us, double noise)
{
    gdt_race_mark x = {us, noise};
    if (!(us > 0) || (unsigned)kind >= GDT_ENGINE_KIND_COUNT)
        return;
    gdt_race_mark *kb = &m->kind_best[kind];
    if (!(kb->us > 0) || us < kb->us)
        *kb = x;
    for (int i = 0; i < GDT_RACE_TOP; i++)
        if (!(m->top[i].us > 0) || us < m->top[i].us) {
            memmove(&m->top[i + 1], &m->top[i], sizeof x * (size_t)(GDT_RACE_TOP - 1 - i));
            m->top[i] = x;
            return;
        }
}

/* Where the racing rule puts the line: bar (1 + noise) (1 + margin). */
static double line(gdt_race_mark bar) { return bar.us * (1 + bar.noise) * (1 + GDT_RACE_TOP_MARGIN); }

bool gdt_race_bar(const gdt_race_marks *m, gdt_engine_kind kind, gdt_race_mark *bar, double *margin)
{
    gdt_race_mark pick = m->top[GDT_RACE_TOP - 1];
    if (!(pick.us > 0))
        return false; /* fewer than GDT_RACE_TOP measured in full: the plan may be one of them */
    if ((unsigned)kind < GDT_ENGINE_KIND_COUNT) {
        gdt_race_mark kb = m->kind_best[kind];
        if (!(kb.us > 0))
            return false; /* the plan may be its kind's best */
        if (line(kb) > line(pick))
            pick = kb;
    }
    *bar = pick, *margin = GDT_RACE_TOP_MARGIN;
    return true;
}

/* Is plan i measured in full and among the GDT_ROUNDS_TOP fastest so
 * measured, or the fastest of its kind (ties by index)? */
static bool rounds_wanted(const double *full_us, const gdt_engine_kind *kind, int n, int i)
{
    int faster = 0, faster_kind = 0;
    if (!(full_us[i] > 0))
        return false;
    for (int j = 0; j < n; j++) {
        bool before = full_us[j] > 0 && (full_us[j] < full_us[i] || (full_us[j] == full_us[i] && j < i));
        faster += before;
        faster_kind += before && kind[j] == kind[i];
    }
    return faster < GDT_ROUNDS_TOP || (faster_kind == 0 && (unsigned)kind[i] < GDT_ENGINE_KIND_COUNT);
}

int gdt_rounds_pick(const double *full_us, const gdt_engine_kind *kind, int n, int pick[GDT_ROUNDS_PLANS_MAX])
{
    int k = 0;
    for (int i = 0; i < n && k < GDT_ROUNDS_PLANS_MAX; i++) {
        if (!rounds_wanted(full_us, kind, n, i))
            continue;
        int at = k++;
        while (at > 0 && full_us[pick[at - 1]] > full_us[i])
            pick[at] = pick[at - 1], at--;
        pick[at] = i;
    }
    return k;
}
_Static_assert(GDT_ROUNDS_TOP + GDT_ENGINE_KIND_COUNT <= GDT_ROUNDS_PLANS_MAX,
               "the worker takes the sweep's top plans and each kind's best");
