/* A planted slowdown: chosen plans made slower by a set fraction, to show
 * that the nightly's diff and confirmation see a change of that size
 * (sensitivity shown, not assumed).  Off by default and never in a default
 * sweep: GDTUNE_PLANT_SLOWDOWN='PLAN=F[;PLAN=F]...' (a plan's name as
 * `gdtune plans` prints it, F a fraction in (0, GDT_PLANT_FRACTION_MAX])
 * is honoured only with GDTUNE_ENABLE_PLANT=1 (its own gate: the opt-in
 * test engines' GDTUNE_ENABLE_OPT_IN would also enable gemm.test_hang,
 * which spends a deadline in every cell).  After each timed call of a
 * planted plan the worker launches a spin of a number of SM cycles
 * calibrated on that plan, the first time it is measured (its time per
 * call, the spin's launch, the SM clock), so that every
 * call runs 1 + f times as long, whatever the burst (whole extra executes
 * could not: at f = 0.1 a burst of 4 got one extra call in four samples
 * of ten and a round's median none).  A plan that the spin's own launch
 * slows by more than f is slowed by that launch alone (the worker says by
 * how much on stderr).  Verification and a --cupti traced burst are never
 * slowed.  A sweep
 * records the slowdown in its journal header (options.planted), refuses to
 * resume a run under another one, and `gdtune nightly --update` refuses a
 * planted night.  Host code, testable without a GPU.  Private to the
 * harness. */
#ifndef GDT_PLANT_H
#define GDT_PLANT_H

#include <stdbool.h>
#include <stddef.h>

#include "gdtune/gdtune.h"

#define GDT_PLANT_ENV "GDTUNE_PLANT_SLOWDOWN"
#define GDT_PLANT_GATE_ENV "GDTUNE_ENABLE_PLANT"
#define GDT_PLANT_MAX 8
#define GDT_PLANT_FRACTION_MAX 1.0
/* The canonical text of a full plant fits this. */
#define GDT_PLANT_TEXT (GDT_PLANT_MAX * 340)

typedef struct gdt_plant {
    gdt_plan_id id[GDT_PLANT_MAX];
    double fraction[GDT_PLANT_MAX];
    int n;
} gdt_plant;

/* Parses "PLAN=F[;PLAN=F]..." (a plan name holds '=' of its own: an entry
 * splits at its last '='; blanks around entries are skipped).  BAD_USAGE
 * naming the entry and what was expected: an empty spec or entry, no '=',
 * a plan name gdt_plan_id_parse refuses, a fraction that is not a number
 * in (0, GDT_PLANT_FRACTION_MAX], a plan named twice, more than
 * GDT_PLANT_MAX entries. */
gdt_status gdt_plant_parse(const char *text, gdt_plant *out, gdt_error *e);

/* The environment's plant: none (n = 0) when GDT_PLANT_ENV is unset or
 * empty, or when GDT_PLANT_GATE_ENV is not "1" (*ignored true then, when
 * given: the variable is set but has no effect).  BAD_USAGE as
 * gdt_plant_parse, the message prefixed with the variable's name. */
gdt_status gdt_plant_from_env(gdt_plant *out, bool *ignored, gdt_error *e);

/* gdt_plant_from_env for a verb: the plant into *out and its canonical
 * text into text ("" when none), and on stderr, prefixed by who, that the
 * variable was ignored (no gate) or what is planted (with "(opt-in" and
 * note, e.g. "; journaled in the header", then ")"). */
gdt_status gdt_plant_announce(const char *who, const char *note, gdt_plant *out, char *text, size_t n,
                              gdt_error *e);

/* The fraction planted on id; 0 when p is NULL or does not name it. */
double gdt_plant_fraction(const gdt_plant *p, const gdt_plan_id *id);

/* "PLAN=F;PLAN=F" in the order given, the names normalized ("" when none). */
void gdt_plant_format(const gdt_plant *p, char *buf, size_t n);

/* The spin, in SM cycles, after each call of a plan of plain_us that slows
 * it by fraction: what fraction adds beyond launch_us (what the spin's
 * launch costs behind the plan, harness/trial.c), at mhz (the SM clock just
 * measured).  0 when the launch alone adds fraction or more. */
long long gdt_plant_spin_cycles(double fraction, double plain_us, double launch_us, double mhz);

/* What the spin's launch costs behind the plan: a call with a first spin of
 * first_cycles took first_us, the plan alone plain_us; what the call took
 * beyond both, held to [0, alone_us] (an empty spin launched alone: behind a
 * plan a launch costs no more, and the bound keeps a noisy difference of two
 * long plans' times out). */
double gdt_plant_launch_us(double plain_us, double first_us, long long first_cycles, double mhz, double alone_us);

#endif
