/* NVRTC templates: what one structural family of candidate rows needs to
 * become a compiled, launchable plan.  The generic engine (nvrtc_engine.c)
 * compiles the template's embedded source with the row's bound values as
 * -D constants (typed values from the plan identity, never table text) for
 * the device's own arch, loads the cubin and launches its kernels in order
 * with cuLaunchKernelEx.  Private to libgdtune. */
#ifndef GDT_NVRTC_H
#define GDT_NVRTC_H

#include "gdt_cuda.h"
#include "gdt_rows.h"
#include "gdtune/plan.h"

#define GDT_NVRTC_MAX_KERNELS 4
#define GDT_NVRTC_MAX_DEFINES 32
#define GDT_NVRTC_MAX_ARGS 32

typedef struct gdt_nvrtc_define {
    const char *name; /* static text, e.g. "BM" */
    int64_t value;
} gdt_nvrtc_define;

typedef struct gdt_nvrtc_launch {
    unsigned grid[3], block[3];
    unsigned smem_bytes;       /* dynamic shared memory */
} gdt_nvrtc_launch;

/* Storage for one launch's kernel parameters: args[i] points into bytes. */
typedef struct gdt_nvrtc_args {
    void *args[GDT_NVRTC_MAX_ARGS];
    int nargs;
    _Alignas(16) unsigned char bytes[512];
    size_t used;
} gdt_nvrtc_args;

/* Appends one parameter value (copied) to a; false when full. */
bool gdt_nvrtc_arg(gdt_nvrtc_args *a, const void *value, size_t size);

typedef struct gdt_nvrtc_template {
    const gdt_row_family *rows; /* the candidate rows it binds (engines/rows_*.c) */
    const char *source;       /* embedded name, "kernels/gemm.cuh" */
    int nkernels;
    const char *entries[GDT_NVRTC_MAX_KERNELS]; /* extern "C" __global__ names, launch order */
    /* Compile-time constants of the plan: returns the count (<= max). */
    int (*defines)(const gdt_facts *f, const gdt_plan_id *p, gdt_nvrtc_define *out, int max);
    /* Launch geometry of kernel i. */
    void (*launch)(const gdt_facts *f, const gdt_plan_id *p, int i, gdt_nvrtc_launch *out);
    /* Parameters of kernel i; state: what prepare made for it (NULL without). */
    gdt_status (*args)(const gdt_facts *f, const gdt_plan_id *p, int i, const gdt_operands *ops,
                       void *workspace, void *state, gdt_nvrtc_args *out, gdt_error *e);
    /* After kernel i's load (cfg holds launch()'s geometry): the plan's own
     * launch state in *state (tensor maps, counters, a cluster), which may
     * change cfg (a persistent grid, the cluster attribute).  May be NULL;
     * a *state it leaves NULL is none.  *state holds on entry kernel i-1's
     * state (NULL for kernel 0): kernels that share one state leave it
     * there, and the engine releases it once. */
    gdt_status (*prepare)(const gdt_facts *f, const gdt_plan_id *p, int i, const gdt_cu_api *cu,
                          CUfunction fn, CUlaunchConfig *cfg, void **state, gdt_error *e);
    /* Frees what prepare made (a state it returned, never NULL). */
    void (*release)(void *state);
    /* Workspace bytes the plan needs (accumulators, scratch); may be NULL. */
    size_t (*workspace)(const gdt_facts *f, const gdt_plan_id *p);
    /* Extra check_support rules beyond the row legality; may be NULL. */
    gdt_status (*check)(const gdt_facts *f, const gdt_plan_id *p, gdt_error *e);
} gdt_nvrtc_template;

/* engines/nvrtc/tmpl_gemm.c, engines/nvrtc/tmpl_attention.c */
extern const gdt_nvrtc_template gdt__tmpl_gemm;
extern const gdt_nvrtc_template gdt__tmpl_attn_fwd;
extern const gdt_nvrtc_template gdt__tmpl_attn_bwd;

/* The template slot s instantiates (the manifest's slots point at theirs:
 * engines/manifest.c is the one list of templates); NULL for an engine
 * with fixed plans. */
const gdt_nvrtc_template *gdt__nvrtc_template_of(const gdt_engine_slot *s);

/* Compiles src for arch (sm_XY, or sm_90a where XY=90 and the plan asks for
 * it) to a cubin; on failure NVRTC status with the compiler log in e.  The
 * cubin is malloc'd.  Used by the engine and by --compile-only. */
gdt_status gdt_nvrtc_compile(const gdt_nvrtc_template *t, const gdt_facts *f,
                             const gdt_plan_id *p, int arch, void **cubin, size_t *cubin_len,
                             gdt_build_info *info, gdt_error *e);

#endif
