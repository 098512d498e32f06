/* `gdtune compare` across its cells (gdt_compare_summary.h). */
#include <math.h>
#include <string.h>

#include "gdt_compare_summary.h"

/* Adds one cell's pair to v: side against base (NULL when either has no
 * winner), ratio = side time / base time. */
static void add(gdt_versus *v, double *logsum, const gdt_side_best *side, const gdt_side_best *base)
{
    double r;
    if (!gdt_compare_versus(side, base, &r, NULL))
        return;
    v->cells++;
    v->at_goal += r <= GDT_COMPARE_GOAL;
    v->beyond += gdt_compare_beats(side, base);
    *logsum += log(r);
    v->worst = v->cells == 1 ? r : fmax(v->worst, r);
    v->best = v->cells == 1 ? r : fmin(v->best, r);
}

static void finish(gdt_versus *v, double logsum)
{
    v->geomean = v->cells ? exp(logsum / v->cells) : NAN;
    if (!v->cells)
        v->worst = v->best = NAN;
}

static void summarize(const gdt_comparison *c, gdt_family f, gdt_compare_summary *s)
{
    double logs[GDT_SIDE_COUNT] = {0}, hand_gen = 0;
    memset(s, 0, sizeof *s);
    s->family = f;
    for (int i = 0; i < c->ncells; i++) {
        const gdt_compare_cell *x = &c->cells[i];
        if (x->problem.family != f)
            continue;
        s->cells++;
        add(&s->hand_vs_generated, &hand_gen, &x->best[GDT_SIDE_HAND], &x->best[GDT_SIDE_GENERATED]);
        for (int k = 0; k < GDT_SIDE_COUNT; k++)
            if (k != GDT_SIDE_CUDNN)
                add(&s->vs_cudnn[k], &logs[k], &x->best[k], &x->best[GDT_SIDE_CUDNN]);
    }
    finish(&s->hand_vs_generated, hand_gen);
    for (int k = 0; k < GDT_SIDE_COUNT; k++)
        finish(&s->vs_cudnn[k], logs[k]);
}

int gdt_compare_summarize(const gdt_comparison *c, gdt_compare_summary *out)
{
    int n = 0;
    for (int f = 0; f < GDT_FAMILY_COUNT; f++) {
        bool present = false;
        for (int i = 0; i < c->ncells && !present; i++)
            present = c->cells[i].problem.family == (gdt_family)f;
        if (present)
            summarize(c, (gdt_family)f, &out[n++]);
    }
    return n;
}

/* ------------------------------------------------------------ output */

/* The rows of one family's summary: a side against another. */
typedef struct row {
    const char *side, *against;
    const gdt_versus *v;
} row;

static int rows_of(const gdt_compare_summary *s, row *r)
{
    int n = 0;
    r[n++] = (row){"handwritten", "generated", &s->hand_vs_generated};
    for (int k = 0; k < GDT_SIDE_COUNT; k++)
        if (k != GDT_SIDE_CUDNN)
            r[n++] = (row){gdt_side_name((gdt_side)k), "cudnn", &s->vs_cudnn[k]};
    return n;
}

static void print_row(FILE *f, const gdt_compare_summary *s, const row *r, bool md)
{
    const gdt_versus *v = r->v;
    const char *fam = gdt_family_name(s->family);
    if (md)
        fprintf(f, "| %s | %s | %s | %d | %.3f | %.3f | %.3f | %d | %d |\n", fam, r->side, r->against, v->cells,
                v->geomean, v->worst, v->best, v->at_goal, v->beyond);
    else
        fprintf(f, "  %-9s %-11s %-11s %5d %8.3f %8.3f %8.3f %8d %8d\n", fam, r->side, r->against, v->cells,
                v->geomean, v->worst, v->best, v->at_goal, v->beyond);
}

void gdt_compare_summary_print(FILE *f, const gdt_comparison *c, bool md)
{
    gdt_compare_summary s[GDT_FAMILY_COUNT];
    int n = gdt_compare_summarize(c, s);
    fprintf(f, md ? "\n## Across the cells\n\nratio: this side's time over the other side's (< 1: this side "
                    "faster; worst: the largest); at %.3g: cells where the ratio is %.3g or less (0.9 of "
                    "the other's throughput); beyond noise: this side faster by more than both measured "
                    "noises (the tables' LEAD also applies the spec's noise floor).\n\n| family | side | "
                    "against | cells | geomean | worst | best | at %.3g | beyond noise |\n"
                    "|---|---|---|---|---|---|---|---|---|\n"
                  : "across the cells (ratio: this side's time over the other side's, < 1: this side "
                    "faster; at %.3g: ratio %.3g or less; beyond: faster beyond both measured noises)\n"
                    "  family    side        against     cells  geomean    worst     best  at %.3g   beyond\n",
            GDT_COMPARE_GOAL, GDT_COMPARE_GOAL, GDT_COMPARE_GOAL);
    for (int i = 0; i < n; i++) {
        row r[GDT_SIDE_COUNT + 1];
        int nr = rows_of(&s[i], r);
        for (int k = 0; k < nr; k++)
            if (r[k].v->cells)
                print_row(f, &s[i], &r[k], md);
    }
    fputc('\n', f);
}

static cJSON *versus_json(const row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "side", r->side);
    cJSON_AddStringToObject(o, "against", r->against);
    cJSON_AddNumberToObject(o, "cells", r->v->cells);
    cJSON_AddNumberToObject(o, "geomean", r->v->geomean);
    cJSON_AddNumberToObject(o, "worst", r->v->worst);
    cJSON_AddNumberToObject(o, "best", r->v->best);
    cJSON_AddNumberToObject(o, "at_goal", r->v->at_goal);
    cJSON_AddNumberToObject(o, "beyond_noise", r->v->beyond);
    return o;
}

cJSON *gdt_compare_summary_json(const gdt_comparison *c)
{
    gdt_compare_summary s[GDT_FAMILY_COUNT];
    int n = gdt_compare_summarize(c, s);
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject(), *rows = cJSON_CreateArray();
        row r[GDT_SIDE_COUNT + 1];
        int nr = rows_of(&s[i], r);
        cJSON_AddStringToObject(o, "family", gdt_family_name(s[i].family));
        cJSON_AddNumberToObject(o, "cells", s[i].cells);
        cJSON_AddNumberToObject(o, "goal", GDT_COMPARE_GOAL);
        for (int k = 0; k < nr; k++)
            if (r[k].v->cells)
                cJSON_AddItemToArray(rows, versus_json(&r[k]));
        cJSON_AddItemToObject(o, "versus", rows);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}
