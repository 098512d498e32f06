/* Confirm before alarming: the changes `gdtune tables diff` calls beyond
 * noise, measured again in interleaved rounds on the night's GPU before
 * `gdtune nightly` exits 3 (DESIGN.md, trust rules: "a change matters when
 * the committed choice's regret on the new run exceeds both the noise
 * floor and the measured noise, confirmed by interleaved rounds").
 *
 * A change is one of a cell's cost verdicts beyond noise (docs/
 * tables-diff.md): a regret of the committed winner, first entry or
 * placement decision sets that committed plan (regret.X.plan, its fastest
 * plan of the decision's side for a decision) against NEW's best
 * (regret.X.base); a slowdown sets tonight's winner against the committed
 * run's time, which no round on tonight's GPU measures again: the
 * committed and tonight's winner are measured again in the rounds and the
 * slowdown holds when the faster of them, too, is slower than the
 * committed time beyond noise.  The cell's plans are measured together
 * in R rounds (the worker's rounds op, gdt_ab.h), and a change holds when,
 * on those rounds, the new plan beats the committed one by more than the
 * two plans' combined noise, each plan's noise the larger of the spec's
 * noise floor and its rounds' own noise (gdt_rounds_stats.noise of the
 * pair): the diff's rule (gdt_measured_beats) on the rounds' figures.
 * Otherwise it dissolved.  A change whose rounds could not be measured is
 * unconfirmed and counts as held; a cell added or removed needs no rounds
 * and holds.
 *
 * The rounds are journaled per family in RUNDIR/confirm/journal.jsonl
 * (gdt_journal.h), one "confirm_rounds" record per cell:
 *   {"type":"confirm_rounds","family":F,"key":K,"shape":S,"plans":[NAME...],
 *    "rounds":R,"burst":B,"error":"","round_us":[[us per round]...]}
 * (error non-empty: not measured, no round_us); a night run again finds
 * its cells' rounds there and measures only what is missing.  Private to
 * the harness; `gdtune nightly` is its caller. */
#ifndef GDT_CONFIRM_H
#define GDT_CONFIRM_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gdt_sweep.h"
#include "gdt_tables_diff.h"
#include "gdtune/gdtune.h"

#define GDT_CONFIRM_SCHEMA "gdtune.confirm/1"
#define GDT_CONFIRM_DIR "confirm"
#define GDT_CONFIRM_ROUNDS_DEFAULT 10

typedef enum gdt_confirm_verdict {
    GDT_CONFIRM_HELD,        /* the rounds confirm it beyond noise */
    GDT_CONFIRM_DISSOLVED,   /* within the rounds' noise, or the other way round */
    GDT_CONFIRM_UNCONFIRMED, /* no rounds (why says why): it counts as held */
} gdt_confirm_verdict;

const char *gdt_confirm_verdict_name(gdt_confirm_verdict v); /* held, dissolved, unconfirmed */

typedef struct gdt_confirm_change {
    char family[16], arch[16], key[GDT_DIFF_KEY];
    const char *what;              /* "winner", "first_entry", "decision" (regrets), "slowdown" */
    char old_choice[GDT_DIFF_NAME], new_choice[GDT_DIFF_NAME]; /* as the diff names them */
    char old_plan[GDT_DIFF_NAME], new_plan[GDT_DIFF_NAME];     /* the plans the rounds set apart */
    /* The rounds' figures of the pair: the median time of each, its noise
     * as the rule takes it (floored), the median per-round ratio new / old
     * and its extremes (a slowdown: the faster plan's median and its
     * rounds' extremes, each over the committed time). */
    int rounds;
    double old_us, new_us, old_noise, new_noise, ratio, lo, hi;
    /* A slowdown: the committed run's winner time (the diff's base_us),
     * which tonight's winner's rounds (old_plan == new_plan) are set
     * against; faster: the plan of the two whose rounds those are
     * (new_us: its median), which the report names beside new_us. */
    double base_us;
    char faster[GDT_DIFF_NAME];
    /* A regret: the one the committed tables already held for that choice
     * (the diff's "accepted"); the rounds must show the new plan ahead of
     * the committed one by more than it, beyond noise, for it to hold. */
    double accepted;
    /* A slowdown of one plan: another of the cell's plans (NEW's best of
     * the other side) measured beside it, since rounds need two. */
    char partner[GDT_DIFF_NAME];
    gdt_confirm_verdict verdict;
    char why[GDT_ERROR_MAX];       /* unconfirmed: why there are no rounds */
} gdt_confirm_change;

typedef struct gdt_confirm {
    gdt_confirm_change *v;
    int n;
    int added, removed;            /* the diff's cells in one set only: they hold */
    int rounds;                    /* R */
} gdt_confirm;

/* The changes beyond noise of a `tables diff --format json` document
 * (gdtune.tables_diff/1), every one unconfirmed until decided.  BAD_INPUT
 * naming the JSON path when the document is not one. */
gdt_status gdt_confirm_from_diff(const char *diff_json, gdt_confirm *out, gdt_error *e);

/* Decides c on its pair's rounds: old_us[r] and new_us[r] the committed
 * and the new plan's times in round r (rounds >= 2), floor the spec's
 * noise floor. */
void gdt_confirm_decide(gdt_confirm_change *c, const double *old_us, const double *new_us, int rounds,
                        double floor);

/* Decides a slowdown on the rounds of the committed winner (old_us) and
 * tonight's (new_us; the same array when they are one plan): it holds
 * when the faster of the two is still slower than the committed time
 * c->base_us beyond the two times' noise, each at least floor (the
 * committed one is floor). */
void gdt_confirm_decide_slowdown(gdt_confirm_change *c, const double *old_us, const double *new_us,
                                 int rounds, double floor);

/* 3 when a change held or is unconfirmed, or a cell was added or removed;
 * else 0 (every change dissolved, or there were none). */
int gdt_confirm_exit(const gdt_confirm *c);

/* {"schema":GDT_CONFIRM_SCHEMA,"rounds":R,"added":N,"removed":N,"exit_code":0|3,
 *  "changes":[{family, arch, key, what, old, new, old_plan, new_plan, verdict,
 *  rounds, old_us, new_us, old_noise, new_noise, ratio, lo, hi[, faster] | why}]}
 * (faster: a slowdown's):
 * what the nightly report and stdout say. */
cJSON *gdt_confirm_json(const gdt_confirm *c);

void gdt_confirm_free(gdt_confirm *c);

#endif
