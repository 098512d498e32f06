/* Autotune at first use: measure a short list of a planned graph's plans on
 * the caller's operands and stream, and leave the graph built with the
 * fastest (what cuDNN frontend's autotune, Triton's autotuner and
 * FFTW_MEASURE do).  The tables' order is a prediction; on a shape no sweep
 * measured it can be off by tens of percent (issue 33), and a few timed
 * launches of the first plans of the list settle it.
 *
 * Candidates, in list order: the list's first plan (mode A's pick, whatever
 * its side), the first `backend` entries of the backend's side (the cuDNN
 * heuristic's order), the first `library` entries of the library side
 * (cuBLASLt's, in the list's order) and the first `ours` entries of our
 * side.  A candidate that declines or fails to build is skipped and
 * reported, not replaced by the next entry.
 *
 * Timing: CUDA events on the caller's stream; `warmup` launches first (out
 * of the numbers), then `reps` launches back to back, each between two
 * events; the candidate's figure is the median of those per-launch device
 * times.  The winner is the fastest median, but the first candidate that
 * ran (the list's order) is kept unless another beats it by more than
 * `margin` (its median times 1 + margin still below the first's), so the
 * choice is never worse than the list's order beyond noise.
 *
 * Wisdom (FFTW's word): a file that keeps the winners across processes.
 * With opts.wisdom set, an entry for the graph's problem key on this
 * device (name, arch, SM count), this cuDNN and this gdtune is built
 * without measuring: the list's plan of the same identity, else the
 * recorded plan replayed (gdt_graph_replay); the report says
 * from_wisdom.  Without such an entry, or when its plan does not build,
 * the candidates are measured as above and the winner is put into the
 * wisdom; saving it is the caller's (gdt_wisdom_save). */
#ifndef GDTUNE_AUTOTUNE_H
#define GDTUNE_AUTOTUNE_H

#include "gdtune/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most candidates one autotune measures (the list's first + backend +
 * library + ours, each side at most 16). */
#define GDT_AUTOTUNE_MAX 49

typedef struct gdt_autotune_opts {
    int backend;   /* backend-side entries measured, 0..16 (default 3) */
    int ours;      /* our-side entries measured, 0..16 (default 3) */
    int library;   /* library-side (cuBLASLt) entries measured, 0..16 (default 3) */
    double margin; /* relative lead another candidate needs over the first, 0..1 (default 0.01) */
    int warmup;    /* untimed launches per candidate, 0..100 (default 3) */
    int reps;      /* timed launches per candidate, 1..1000 (default 11) */
    struct gdt_wisdom *wisdom; /* NULL (default): measure every time; else read and
                                  updated as the header's comment says */
} gdt_autotune_opts;

void gdt_autotune_opts_default(gdt_autotune_opts *o);

/* One measured (or skipped) plan. */
typedef struct gdt_autotune_candidate {
    int index;          /* position in the graph's plan list */
    gdt_plan_id id;
    gdt_plan_side side; /* ours, the backend's, or a library's */
    gdt_status status;  /* OK: built and timed; else why it was skipped (NOT_SUPPORTED
                           "not measured" when the autotune stopped before it) */
    char why[512];      /* the decline or failure message ("" when timed) */
    double median_us;   /* median device time per launch; NaN when skipped */
} gdt_autotune_candidate;

typedef struct gdt_autotune_report {
    int n;                                   /* candidates, in list order */
    gdt_autotune_candidate c[GDT_AUTOTUNE_MAX];
    int winner;    /* index into c of the plan the graph is left built with */
    int first;     /* index into c of the first candidate that ran: the list's pick */
    int heuristic; /* index into c of the backend side's first that ran; -1: none ran */
    bool from_wisdom;  /* the winner came from the wisdom, nothing was measured: c[0] is
                          its plan (index -1 when replayed) with the recorded median;
                          first and heuristic are -1 */
    double wisdom_first_us; /* from_wisdom: the list's first's recorded median */
    char wisdom_measured[32]; /* from_wisdom: when it was measured, UTC */
} gdt_autotune_report;

/* The choice, a pure function of r->c[0 .. r->n - 1] (index, side, status,
 * median_us): sets r->first, r->heuristic and r->winner as described
 * above (among equal medians the earlier list position wins).
 * NOT_SUPPORTED when no candidate ran (the message counts them and quotes
 * the first one's reason); BAD_USAGE for a margin outside 0..1 or a count
 * outside 0..GDT_AUTOTUNE_MAX.  Candidates must come in list order. */
gdt_status gdt_autotune_choose(gdt_autotune_report *r, double margin, gdt_error *e);

/* Measures the candidates of g (planned: gdt_graph_plan) on ops and
 * stream (a cudaStream_t as void*; NULL: the legacy default stream) and
 * leaves g pinned on the winner and built with it, ready for
 * gdt_graph_execute (ask gdt_graph_workspace_size again: the winner's
 * workspace may differ from what was passed).
 *
 * The operands are the caller's and every candidate runs on them
 * warmup + reps times: OUTPUTS ARE OVERWRITTEN (an in-place operand is
 * left holding the result of many runs; restore it before the real call).
 * workspace may be NULL; a candidate that needs more than workspace_bytes
 * runs on a temporary device allocation, freed before the call returns.
 * The stream is synchronized.
 *
 * o->wisdom set: a matching entry is built without measuring (nothing runs
 * on ops, report->from_wisdom); otherwise the measured winner is put into
 * it (the header's first comment).
 *
 * o NULL: gdt_autotune_opts_default.  report (may be NULL) receives every
 * candidate's outcome, also on failure.  BAD_USAGE for an unplanned graph
 * or options out of range; BAD_INPUT for operands smaller than the problem
 * (gdt_operands_check); NOT_SUPPORTED when no candidate built and ran;
 * a CUDA status when the device fails outside a candidate. */
gdt_status gdt_graph_autotune(gdt_graph *g, const gdt_build_opts *bopts, const gdt_operands *ops,
                              void *workspace, size_t workspace_bytes, void *stream,
                              const gdt_autotune_opts *o, gdt_autotune_report *report, gdt_error *e);

/* --------------------------------------------------------------- wisdom */

#define GDT_WISDOM_SCHEMA "gdtune.wisdom/1"

/* One remembered winner (docs/formats.md, gdtune.wisdom/1). */
typedef struct gdt_wisdom_entry {
    char key[512];           /* gdt_problem_key */
    char device[128];        /* gdt_device_props.name */
    int arch, sm_count;
    int cudnn_version;       /* cudnnGetVersion(), 0: none loaded */
    char gdtune_version[32]; /* GDT_VERSION_STRING of the process that measured */
    gdt_plan_id id;          /* the winner */
    double median_us;        /* its median */
    double first_us;         /* the list's first's median */
    char measured[32];       /* UTC, "2026-12-06T20:40:00Z" */
} gdt_wisdom_entry;

typedef struct gdt_wisdom gdt_wisdom;

/* Reads path: a missing file is an empty wisdom; anything else that is not
 * a gdtune.wisdom/1 document is BAD_INPUT naming the file, the JSON path,
 * what was expected and what was there (IO for a file that cannot be
 * read, a symbolic link included). */
gdt_status gdt_wisdom_load(const char *path, gdt_wisdom **out, gdt_error *e);
void gdt_wisdom_destroy(gdt_wisdom *w);
int gdt_wisdom_count(const gdt_wisdom *w);
/* The entry with probe's key, device, arch, SM count, cuDNN version and
 * gdtune version; NULL when none (an entry that differs in any is never
 * used).  probe's other fields are not read. */
const gdt_wisdom_entry *gdt_wisdom_find(const gdt_wisdom *w, const gdt_wisdom_entry *probe);
/* Adds x, replacing the entry of the same key and device name. */
gdt_status gdt_wisdom_put(gdt_wisdom *w, const gdt_wisdom_entry *x, gdt_error *e);
/* Writes w to path atomically and durably (a unique temporary beside it,
 * O_EXCL|O_NOFOLLOW, fsync, rename over, fsync of the folder); a symbolic
 * link at path is refused (IO), its target untouched.  On failure the old
 * file is left as it was. */
gdt_status gdt_wisdom_save(const gdt_wisdom *w, const char *path, gdt_error *e);
/* The probe for g on this process: its problem's key, its device, this
 * cuDNN's and this gdtune's versions. */
void gdt_wisdom_probe(const gdt_graph *g, gdt_wisdom_entry *out);

#ifdef __cplusplus
}
#endif
#endif
