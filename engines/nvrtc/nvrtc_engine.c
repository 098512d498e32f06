/* The NVRTC engine: one template per structural family of candidate rows.
 * check_support re-applies the row rules to the plan's knobs (so a replayed
 * plan is judged like a fresh one); build compiles (through the cache),
 * loads the cubin and precomputes every launch; execute only checks the
 * operand sizes, writes the parameter block and launches. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_nvrtc_cache.h"
#include "gdt_rows.h"
#include "gdt_util.h"

struct gdt_compiled {
    const gdt_nvrtc_template *t;
    const gdt_cu_api *cu;
    gdt_facts facts;
    gdt_plan_id plan;
    CUmodule mod;
    CUfunction fn[GDT_NVRTC_MAX_KERNELS];
    CUlaunchConfig cfg[GDT_NVRTC_MAX_KERNELS];
    void *state[GDT_NVRTC_MAX_KERNELS]; /* the template's prepare, per kernel */
    size_t need[GDT_OPERAND_COUNT];
    size_t workspace;
    gdt_nvrtc_args args; /* scratch of execute: a compiled plan runs on one thread */
};

/* The same limits the candidate materializer judged the row by: the
 * per-arch table first, else the device's own report. */
static void limits_for(const gdt_facts *f, gdt_device_props *lim)
{
    if (!gdt_arch_limits(f->device.arch, lim))
        *lim = f->device;
}

/* The plan's knobs in the row family's column order. */
static gdt_status plan_row(const gdt_engine_slot *s, const gdt_row_family *rf, const gdt_plan_id *p,
                           int64_t *row, gdt_error *e)
{
    char name[512];
    for (int i = 0; i < rf->ncols; i++) {
        row[i] = gdt_plan_id_knob(p, rf->cols[i].knob,
                                  rf->cols[i].optional ? rf->cols[i].absent : INT64_MIN);
        if (row[i] != INT64_MIN)
            continue;
        gdt_plan_id_format(p, name, sizeof name);
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: plan %s lacks knob %s (column %s)",
                             s->name, name, gdt_knob_name(rf->cols[i].knob), rf->cols[i].name);
    }
    return GDT_STATUS_OK;
}

static gdt_status check_support(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                                gdt_error *e)
{
    const gdt_nvrtc_template *t = s->tmpl;
    const gdt_row_family *rf = gdt__slot_rows(s);
    int64_t row[GDT_MAX_COLUMNS], bound[GDT_MAX_COLUMNS];
    char why[256] = "", name[512];
    gdt_device_props lim;
    if (!t || !rf || rf->ncols > GDT_MAX_COLUMNS)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: no NVRTC template for row family %s",
                             s->name, rf ? rf->name : "(none)");
    if (f->family != s->family)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: serves %s, problem is %s", s->name,
                             gdt_family_name(s->family), gdt_family_name(f->family));
    gdt_status st = plan_row(s, rf, p, row, e);
    if (st != GDT_STATUS_OK)
        return st;
    limits_for(f, &lim);
    memcpy(bound, row, sizeof row[0] * (size_t)rf->ncols);
    gdt_plan_id_format(p, name, sizeof name);
    if (!rf->bind(bound, f, &lim, why, sizeof why))
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: %s: %s", s->name, name, why);
    for (int i = 0; i < rf->ncols; i++)
        if (bound[i] != row[i])
            return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                                 "%s: %s: %s=%lld, but the row rules bind %lld for this problem",
                                 s->name, name, rf->cols[i].name, (long long)row[i],
                                 (long long)bound[i]);
    return t->check ? t->check(f, p, e) : GDT_STATUS_OK;
}

static gdt_status load_kernel(gdt_compiled *c, int i, gdt_error *e)
{
    gdt_nvrtc_launch l;
    int max_threads = 0;
    GDT_CHECK_CU(e, c->cu->cuModuleGetFunction(&c->fn[i], c->mod, c->t->entries[i]));
    c->t->launch(&c->facts, &c->plan, i, &l);
    GDT_CHECK_CU(e, c->cu->cuFuncSetAttribute(c->fn[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              (int)l.smem_bytes));
    GDT_CHECK_CU(e, c->cu->cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                              c->fn[i]));
    if ((unsigned)max_threads < l.block[0] * l.block[1] * l.block[2])
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "%s: kernel %s: its register use allows %d threads per block, the "
                             "launch needs %u", c->t->source, c->t->entries[i], max_threads,
                             l.block[0] * l.block[1] * l.block[2]);
    CUlaunchConfig *g = &c->cfg[i];
    memset(g, 0, sizeof *g);
    g->gridDimX = l.grid[0], g->gridDimY = l.grid[1], g->gridDimZ = l.grid[2];
    g->blockDimX = l.block[0], g->blockDimY = l.block[1], g->blockDimZ = l.block[2];
    g->sharedMemBytes = l.smem_bytes;
    if (!c->t->prepare)
        return GDT_STATUS_OK;
    /* A template whose kernels share one state keeps the one before's. */
    c->state[i] = i > 0 ? c->state[i - 1] : NULL;
    return c->t->prepare(&c->facts, &c->plan, i, c->cu, c->fn[i], g, &c->state[i], e);
}

static gdt_status load(gdt_compiled *c, const void *cubin, gdt_build_info *info, gdt_error *e)
{
    double t0 = gdt_now();
    if (!(c->cu = gdt_cu(e)))
        return e ? e->status : GDT_STATUS_NO_DEVICE;
    /* Driver calls need a current context: make the runtime's primary one
     * current on this thread. */
    GDT_CHECK_CUDA(e, cudaFree(0));
    GDT_CHECK_CU(e, c->cu->cuModuleLoadData(&c->mod, cubin));
    for (int i = 0; i < c->t->nkernels; i++) {
        gdt_status st = load_kernel(c, i, e);
        if (st != GDT_STATUS_OK)
            return st;
    }
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = 0, nr = gdt_family_operands(c->facts.family, roles, &nout);
    for (int i = 0; i < nr; i++)
        c->need[roles[i]] = gdt_operand_bytes(&c->facts.problem, roles[i]);
    c->workspace = c->t->workspace ? c->t->workspace(&c->facts, &c->plan) : 0;
    if (info)
        info->load_seconds = gdt_now() - t0;
    return GDT_STATUS_OK;
}

static void destroy(gdt_compiled *c)
{
    if (!c)
        return;
    /* A state shared by consecutive kernels is released once. */
    for (int i = 0; i < GDT_NVRTC_MAX_KERNELS; i++)
        if (c->state[i] && c->t->release && (i == 0 || c->state[i] != c->state[i - 1]))
            c->t->release(c->state[i]);
    if (c->mod && c->cu)
        c->cu->cuModuleUnload(c->mod);
    free(c);
}

static gdt_status build(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                        const gdt_build_opts *o, gdt_compiled **out, gdt_build_info *info,
                        gdt_error *e)
{
    void *cubin = NULL;
    size_t len = 0;
    *out = NULL;
    if (info)
        memset(info, 0, sizeof *info);
    gdt_status st = check_support(s, f, p, e);
    if (st == GDT_STATUS_OK)
        st = gdt__nvrtc_compile_cached(s->tmpl, f, p, o->device.arch,
                                       o->cache_dir, &cubin, &len, info, e);
    if (st != GDT_STATUS_OK || o->compile_only) {
        free(cubin);
        return st;
    }
    gdt_compiled *c = calloc(1, sizeof *c);
    if (!c) {
        free(cubin);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: compiled plan", s->name);
    }
    c->t = s->tmpl;
    c->facts = *f;
    c->plan = *p;
    st = load(c, cubin, info, e);
    free(cubin);
    if (st != GDT_STATUS_OK) {
        destroy(c);
        return st;
    }
    *out = c;
    return GDT_STATUS_OK;
}

static size_t workspace_size(const gdt_compiled *c) { return c ? c->workspace : 0; }

static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t ws_bytes,
                          void *stream, gdt_error *e)
{
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        if (c->need[r] && (!ops->ptr[r] || ops->bytes[r] < c->need[r]))
            return gdt_operands_check(&c->facts.problem, ops, e);
    if (ws_bytes < c->workspace || (c->workspace && !ws))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: workspace of %zu bytes, plan needs %zu",
                             c->t->source, ws_bytes, c->workspace);
    for (int i = 0; i < c->t->nkernels; i++) {
        gdt_status st = c->t->args(&c->facts, &c->plan, i, ops, ws, c->state[i], &c->args, e);
        if (st != GDT_STATUS_OK)
            return st;
        c->cfg[i].hStream = (CUstream)stream;
        GDT_CHECK_CU(e, c->cu->cuLaunchKernelEx(&c->cfg[i], c->fn[i], c->args.args, NULL));
    }
    return GDT_STATUS_OK;
}

const gdt_engine_ops gdt__nvrtc_ops = {GDT_ENGINE_OPS_NAMED};
