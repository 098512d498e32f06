/* Generated against handwritten plans from the sweep's journals (see
 * gdt_compare_runs.h): cells matched by problem key, each plan sorted into
 * its side through the manifest, budgets counted and winners picked. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_compare_runs.h"
#include "gdt_metric_clock.h"
#include "gdt_plan_figures.h"
#include "nvrtc/gdt_nvrtc.h"

static const struct {
    const char *name;
    gdt_engine_kind kind;
} sides[] = {
#define GDT_SIDE_ROW(id, name, kind) {name, kind},
    GDT_SIDES(GDT_SIDE_ROW)
#undef GDT_SIDE_ROW
};
_Static_assert(sizeof sides / sizeof *sides == GDT_SIDE_COUNT, "one row per side");

const char *gdt_side_name(gdt_side s)
{
    return (unsigned)s < GDT_SIDE_COUNT ? sides[s].name : "other";
}

gdt_side gdt_side_of(const gdt_manifest *m, const gdt_run_plan *p)
{
    const gdt_engine_slot *slot = p->backend ? NULL : gdt_manifest_find(m, p->id.engine_id);
    gdt_engine_kind kind =
        p->backend ? GDT_ENGINE_CUDNN : slot ? gdt_engine_slot_kind(slot) : GDT_ENGINE_TEST;
    for (int s = 0; s < GDT_SIDE_COUNT; s++)
        if (sides[s].kind == kind)
            return (gdt_side)s;
    return GDT_SIDE_COUNT;
}

/* ------------------------------------------------------------- roles */

/* Knob names differ by row family (BM, BLOCK_M) but the knob types do
 * not: a role is a knob type. */
const gdt_compare_role gdt_compare_roles[] = {
    {"tile_m", GDT_KNOB_TILE_M, "CTA tile rows (M; query rows in attention)"},
    {"tile_n", GDT_KNOB_TILE_N, "CTA tile columns (N; key/value rows in attention)"},
    {"tile_k", GDT_KNOB_TILEK, "reduction chunk per stage (K)"},
    {"tile_kv", GDT_KNOB_TILE_KV, "key/value tile (attention backward)"},
    {"stages", GDT_KNOB_STAGES, "shared-memory pipeline stages"},
    {"warps", GDT_KNOB_WARPS, "warps per CTA"},
    {"warps_m", GDT_KNOB_WARPS_M, "warps along M"},
    {"warps_n", GDT_KNOB_WARPS_N, "warps along N"},
    {"schedule", GDT_KNOB_GROUP_M, "tile raster: CTA rows per swizzle band (GROUP_M)"},
    {"split", GDT_KNOB_SPLIT, "work split factor"},
    {"mma", GDT_KNOB_MMA, "MMA instruction: 0 mma.sync, 1 wgmma"},
};
const int gdt_compare_nroles = (int)(sizeof gdt_compare_roles / sizeof *gdt_compare_roles);

static bool has_role(int knob)
{
    for (int r = 0; r < gdt_compare_nroles; r++)
        if (gdt_compare_roles[r].knob == knob)
            return true;
    return false;
}

void gdt_compare_other_knobs(const gdt_plan_id *p, char *buf, size_t n)
{
    size_t w = 0;
    buf[0] = '\0';
    for (int k = 0; k < p->nknobs && w < n; k++) {
        const char *name = gdt_knob_name(p->knobs[k].type);
        if (!has_role(p->knobs[k].type))
            w += (size_t)snprintf(buf + w, n - w, "%s%s=%lld", w ? ", " : "", name ? name : "?",
                                  (long long)p->knobs[k].value);
    }
}

/* ------------------------------------------------------------- scope */

/* Hand engines by slot name: their kernels (the NVRTC ones come from the
 * template table). */
static const struct {
    const char *slot, *kernels;
    int nkernels;
} hand_scope[] = {
    {"gemm.hand", "gdt_hand_gemm_<dtype>_<majors> (one persistent grid; its tensor maps are "
                  "encoded on the host only when the operand pointers change)", 1},
};

static int nvrtc_scope(const gdt_engine_slot *slot, char *buf, size_t n)
{
    const gdt_nvrtc_template *t = gdt__nvrtc_template_of(slot);
    if (!t)
        return snprintf(buf, n, "one execute of %s (kernels not listed)", gdt_engine_slot_name(slot)), 0;
    size_t w = (size_t)snprintf(buf, n, "%d kernel%s:", t->nkernels, t->nkernels == 1 ? "" : "s");
    for (int i = 0; i < t->nkernels && w < n; i++)
        w += (size_t)snprintf(buf + w, n - w, "%s %s", i ? "," : "", t->entries[i]);
    if (t->nkernels > 1 && w < n)
        snprintf(buf + w, n - w, " (every one inside the timed execute)");
    return t->nkernels;
}

int gdt_compare_scope(const gdt_run_plan *p, char *buf, size_t n)
{
    const gdt_engine_slot *slot = p->backend ? NULL : gdt_manifest_find(NULL, p->id.engine_id);
    if (!slot)
        return snprintf(buf, n, p->backend ? "one cuDNN execution plan (the kernels cuDNN launches "
                                             "for it, its scratch tensors included)"
                                           : "engine %lld: not in this build's manifest",
                        (long long)p->id.engine_id), 0;
    if (gdt_engine_slot_kind(slot) == GDT_ENGINE_NVRTC)
        return nvrtc_scope(slot, buf, n);
    if (gdt_engine_slot_kind(slot) == GDT_ENGINE_CUBLASLT)
        return snprintf(buf, n, "one cublasLtMatmul call of %s (the kernels cuBLASLt launches for "
                        "the algo, its split-K reduction included)", gdt_engine_slot_name(slot)), 0;
    for (size_t i = 0; i < sizeof hand_scope / sizeof *hand_scope; i++)
        if (!strcmp(hand_scope[i].slot, gdt_engine_slot_name(slot)))
            return snprintf(buf, n, "%d kernel%s: %s", hand_scope[i].nkernels,
                            hand_scope[i].nkernels == 1 ? "" : "s", hand_scope[i].kernels),
                   hand_scope[i].nkernels;
    return snprintf(buf, n, "one execute of %s (kernels not listed)", gdt_engine_slot_name(slot)), 0;
}

/* x, x by y, or x by y by z: a launch dimension without its unit axes. */
static void dims_text(const int *v, char *buf, size_t n)
{
    int k = 3;
    while (k > 1 && v[k - 1] == 1)
        k--;
    size_t w = 0;
    for (int i = 0; i < k && w < n; i++)
        w += (size_t)snprintf(buf + w, n - w, "%s%d", i ? " x " : "", v[i]);
}

bool gdt_compare_traced(const gdt_run_result *r, char *buf, size_t n)
{
    const gdt_cupti_burst *t = r ? &r->traced.c : NULL;
    buf[0] = '\0';
    if (!t || !t->main.name[0])
        return false;
    char grid[48], cluster[64] = "";
    dims_text(t->main.grid, grid, sizeof grid);
    if (t->main.cluster[0] > 0) {
        char d[48];
        dims_text(t->main.cluster, d, sizeof d);
        snprintf(cluster, sizeof cluster, ", clusters of %s", d);
    }
    snprintf(buf, n, "traced (CUPTI, a burst of %d): %.3g kernel%s per call, %.0f%% of the kernel "
             "time in %s (grid %s%s)", r->traced.burst, t->kernels, t->kernels == 1 ? "" : "s",
             100 * t->main.share, t->main.name, grid, cluster);
    return true;
}

/* ------------------------------------------------------------- model */

gdt_status gdt_comparison_create(unsigned families, gdt_comparison **out, gdt_error *e)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "compare: out of memory");
    (*out)->families = families ? families : (1u << GDT_FAMILY_COUNT) - 1u;
    return GDT_STATUS_OK;
}

void gdt_comparison_destroy(gdt_comparison *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->nruns; i++) {
        gdt_run_destroy(c->runs[i]);
        free(c->dirs[i]);
    }
    free(c->runs);
    free(c->dirs);
    free(c->cells);
    free(c);
}

static void bursts_text(const gdt_run_options *o, char *buf, size_t n)
{
    size_t w = 0;
    buf[0] = '\0';
    for (int i = 0; i < o->nbursts && w < n; i++)
        w += (size_t)snprintf(buf + w, n - w, "%s%d", i ? "," : "", o->bursts[i]);
}

static gdt_status same_bursts(const gdt_comparison *c, const gdt_run *r, const char *dir, gdt_error *e)
{
    const gdt_run_options *a = &c->runs[0]->options, *b = &r->options;
    bool same = a->nbursts == b->nbursts;
    for (int i = 0; same && i < a->nbursts; i++)
        same = a->bursts[i] == b->bursts[i];
    if (same)
        return GDT_STATUS_OK;
    char x[96], y[96];
    bursts_text(a, x, sizeof x);
    bursts_text(b, y, sizeof y);
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /options/bursts: expected %s (as %s), got %s: "
                         "times at other bursts are another timing scope; compare runs measured "
                         "with one burst list", dir, x, c->dirs[0], y);
}

/* One device model: shards of one sweep run on several GPUs of one
 * model, so the UUID is not compared. */
static gdt_status same_device(const gdt_comparison *c, const gdt_run *r, const char *dir, gdt_error *e)
{
    const gdt_run_device *a = &c->runs[0]->dev, *b = &r->dev;
    const struct {
        const char *key;
        double x, y;
    } num[] = {{"arch", a->arch, b->arch}, {"sm_count", a->sm_count, b->sm_count}};
    const char *na = a->name, *nb = b->name;
    if (strcmp(na, nb) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /device/name: expected \"%.120s\" (as %s), "
                             "got \"%.120s\": plans timed on different devices are not compared",
                             dir, na, c->dirs[0], nb);
    for (size_t i = 0; i < sizeof num / sizeof *num; i++) {
        if (num[i].x != num[i].y)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /device/%s: expected %.0f (as %s), "
                                 "got %.0f: plans timed on different devices are not compared",
                                 dir, num[i].key, num[i].x, c->dirs[0], num[i].y);
    }
    return GDT_STATUS_OK;
}

gdt_status gdt_compare_cell_match(const gdt_compare_cell *have, const char *have_dir, const char *dir,
                                  const gdt_problem *p, gdt_error *e)
{
    char key[512], other[512];
    gdt_problem_key(p, key, sizeof key);
    gdt_problem_key(&have->problem, other, sizeof other);
    const char *what = p->family != have->problem.family                          ? "family"
                       : gdt_problem_dtype(p) != gdt_problem_dtype(&have->problem) ? "dtype"
                       : strcmp(key, other) != 0 ||
                               gdt_problem_flops(p) != gdt_problem_flops(&have->problem)
                           ? "shape"
                           : NULL;
    if (!what)
        return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: cell key \"%s\": expected the problem of that "
                         "key in %s (%s), got another %s (%s): one comparison holds one problem per key",
                         dir, have->key, have_dir, other, what, key);
}

static gdt_compare_cell *find_cell(gdt_comparison *c, const char *key)
{
    for (int i = 0; i < c->ncells; i++)
        if (!strcmp(c->cells[i].key, key))
            return &c->cells[i];
    return NULL;
}

static gdt_compare_cell *new_cell(gdt_comparison *c, const gdt_run_cell *rc, int run, int ci, const char *key)
{
    if (c->ncells == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        gdt_compare_cell *n = realloc(c->cells, (size_t)cap * sizeof *n);
        if (!n)
            return NULL;
        c->cells = n;
        c->cap = cap;
    }
    gdt_compare_cell *x = &c->cells[c->ncells++];
    memset(x, 0, sizeof *x);
    snprintf(x->key, sizeof x->key, "%s", key);
    x->problem = rc->spec->problem;
    x->shape = rc->spec->shape;
    x->reference = rc->reference;
    x->run = run;
    x->cell = ci;
    for (int s = 0; s < GDT_SIDE_COUNT; s++)
        x->best[s].run = -1;
    return x;
}

static void take_verify_err(gdt_side_best *b)
{
    int cap = (int)(sizeof b->verify_err / sizeof *b->verify_err);
    b->nerr = b->result->nerr < cap ? b->result->nerr : cap;
    for (int i = 0; i < b->nerr; i++)
        b->verify_err[i] = b->result->verify_err[i];
}

/* Does candidate b displace the side's winner w?  A plan in the cell's
 * rounds wins over one out of them (gdt_side_best), else the faster. */
static bool displaces(const gdt_side_best *b, const gdt_side_best *w)
{
    if (!w->result)
        return true;
    return b->rounds != w->rounds ? b->rounds : b->time_us < w->time_us;
}

/* One plan of a journaled cell into its side's budget and winner. */
static void count_plan(gdt_compare_cell *x, int run, const gdt_run_cell *rc, int pi)
{
    gdt_side s = gdt_side_of(NULL, &rc->plan[pi]);
    gdt_side_budget *b = &x->budget[s];
    const gdt_run_result *res = &rc->result[pi];
    b->listed++;
    if (!res->journaled)
        return;
    b->tried++;
    b->counts[res->disposition]++;
    bool raced = res->raced_out;
    if (res->disposition != GDT_DISP_VERIFIED && !b->why) {
        b->why = res->error;
        b->why_plan = rc->plan[pi].name;
        b->why_engine_id = rc->plan[pi].id.engine_id;
    }
    if (res->disposition != GDT_DISP_VERIFIED || s == GDT_SIDE_COUNT)
        return;
    b->raced_out += raced;
    gdt_side_best *w = &x->best[s], nb = {.run = run, .plan = &rc->plan[pi], .result = res, .raced_out = raced};
    nb.rounds = gdt_run_plan_figures(rc, pi, &nb.time_us, &nb.noise);
    gdt_metric_clock mc;
    nb.mhz = !nb.rounds && gdt_run_metric_clock(res, &mc) ? mc.median_mhz : 0;
    nb.cell_mhz = gdt_run_plan_clock(rc, pi);
    if (!displaces(&nb, w))
        return;
    *w = nb;
    take_verify_err(w);
}

static gdt_status add_cells(gdt_comparison *c, int run, const char *dir, gdt_error *e)
{
    const gdt_run *r = c->runs[run];
    for (int ci = 0; ci < r->ncells; ci++) {
        const gdt_run_cell *rc = &r->cells[ci];
        char key[512];
        if (!rc->listed || !(c->families & (1u << rc->spec->family)))
            continue;
        gdt_problem_key(&rc->spec->problem, key, sizeof key);
        gdt_compare_cell *x = find_cell(c, key);
        if (x && gdt_compare_cell_match(x, c->dirs[x->run], dir, &rc->spec->problem, e) != GDT_STATUS_OK)
            return e ? e->status : GDT_STATUS_BAD_INPUT;
        if (!x && !(x = new_cell(c, rc, run, ci, key)))
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", dir);
        for (int pi = 0; pi < rc->nplans; pi++)
            count_plan(x, run, rc, pi);
    }
    return GDT_STATUS_OK;
}

static gdt_status keep_run(gdt_comparison *c, gdt_run *r, const char *dir, gdt_error *e)
{
    gdt_run **runs = realloc(c->runs, (size_t)(c->nruns + 1) * sizeof *runs);
    if (runs)
        c->runs = runs;
    char **dirs = runs ? realloc(c->dirs, (size_t)(c->nruns + 1) * sizeof *dirs) : NULL;
    if (dirs)
        c->dirs = dirs;
    char *d = dirs ? strdup(dir) : NULL;
    if (!d) {
        gdt_run_destroy(r);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", dir);
    }
    c->runs[c->nruns] = r;
    c->dirs[c->nruns++] = d;
    return GDT_STATUS_OK;
}

/* A directory named twice would count its plans twice. */
static gdt_status not_named_before(const gdt_comparison *c, const char *dir, gdt_error *e)
{
    char a[PATH_MAX], b[PATH_MAX];
    for (int i = 0; i < c->nruns; i++)
        if (realpath(dir, a) && realpath(c->dirs[i], b) && !strcmp(a, b))
            return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s: the run directory %s again (expected "
                                 "each run directory once)", dir, c->dirs[i]);
    return GDT_STATUS_OK;
}

gdt_status gdt_comparison_add(gdt_comparison *c, const char *dir, gdt_error *e)
{
    gdt_run *r = NULL;
    gdt_status s = not_named_before(c, dir, e);
    if (s == GDT_STATUS_OK)
        s = gdt_run_load(dir, &r, e);
    if (s == GDT_STATUS_OK && c->nruns > 0) {
        s = same_bursts(c, r, dir, e);
        if (s == GDT_STATUS_OK)
            s = same_device(c, r, dir, e);
    }
    if (s != GDT_STATUS_OK) {
        gdt_run_destroy(r);
        return s;
    }
    if ((s = keep_run(c, r, dir, e)) != GDT_STATUS_OK)
        return s;
    return add_cells(c, c->nruns - 1, dir, e);
}

/* ------------------------------------------------------------ figures */

bool gdt_compare_versus(const gdt_side_best *side, const gdt_side_best *base, double *ratio, double *noise)
{
    if (!side->result || !base->result)
        return false;
    *ratio = side->time_us / base->time_us;
    if (noise)
        *noise = side->noise + base->noise;
    return true;
}

bool gdt_compare_ratio(const gdt_compare_cell *c, double *ratio, double *noise)
{
    return gdt_compare_versus(&c->best[GDT_SIDE_HAND], &c->best[GDT_SIDE_GENERATED], ratio, noise);
}

bool gdt_compare_beats(const gdt_side_best *a, const gdt_side_best *b)
{
    double margin = a->noise * a->time_us + b->noise * b->time_us;
    return a->time_us < b->time_us && b->time_us - a->time_us > margin;
}

gdt_verdict gdt_compare_verdict(const gdt_compare_cell *c)
{
    const gdt_side_best *g = &c->best[GDT_SIDE_GENERATED], *h = &c->best[GDT_SIDE_HAND];
    if (!g->result || !h->result)
        return GDT_VERDICT_NONE;
    return gdt_compare_beats(g, h) ? GDT_VERDICT_GENERATED : gdt_compare_beats(h, g) ? GDT_VERDICT_HAND
                                                                                  : GDT_VERDICT_TIED;
}

const char *gdt_verdict_text(gdt_verdict v)
{
    static const char *const t[] = {"no ratio", "generated faster beyond noise",
                                    "handwritten faster beyond noise", "within noise"};
    return (unsigned)v < sizeof t / sizeof *t ? t[v] : "?";
}
