/* The engines the manifest and the planner reach.  Private to libgdtune. */
#ifndef GDT_ENGINES_H
#define GDT_ENGINES_H

#include "gdt_engine_impl.h"

/* engines/nvrtc/nvrtc_engine.c: every NVRTC slot (the template is chosen by
 * the slot's row family). */
extern const gdt_engine_ops gdt__nvrtc_ops;
/* engines/hand/hand_engine.c: the handwritten GEMM (gemm.hand), one fixed
 * configuration of the nvcc-built kernels/hand/gemm_sm90.cu. */
extern const gdt_engine_ops gdt__hand_gemm_ops;
/* engines/test_engines.c: test-only engines, opt-in (one faults with an
 * illegal address, one never ends). */
extern const gdt_engine_ops gdt__test_fault_ops;
extern const gdt_engine_ops gdt__test_hang_ops;
/* engines/cudnn/cudnn_engine.c: the backend's plans. */
extern const gdt_engine_ops gdt__cudnn_ops;
/* The backend as the planner sees it (list per heuristic mode). */
const gdt_backend *gdt_cudnn_backend(void);

/* Every engine config reachable through knob enumeration for a problem
 * (sweeps only), at most cap_per_engine configs per engine; malloc'd.  The
 * entries are backend entries whose mode is GDT_MODE_COUNT ("enumerated",
 * not produced by a heuristic mode). */
gdt_status gdt_cudnn_enumerate(const gdt_facts *f, int cap_per_engine, gdt_plan_entry **out,
                               int *n, gdt_error *e);
/* cudnnGetVersion(), 0 when the library cannot be loaded. */
int gdt_cudnn_runtime_version(void);

/* engines/plan_names.c: what one of our plans asks of the device, for the
 * conservative (FALLBACK) pick: its tile area, TILE_M x TILE_N; INT64_MAX
 * without both knobs, and for a swap-AB plan (SWAP_AB=1), whose small
 * TILE_M sits on the MMA's N side beside 64-row MMA tiles of N and which
 * no GPU has measured yet (gemm.hand 14 to 18, engines/hand/README.md). */
int64_t gdt__plan_tile_area(const gdt_plan_id *id);

/* A library engine (kind GDT_ENGINE_CUBLASLT) proposes its own plans: they
 * come from the library's heuristic and enumeration on the device, not from
 * candidate rows.  Such a slot's ops point at the `ops` member (the first)
 * of a gdt__library_engine; gdt__library_of reaches the rest.  A list that
 * fails (no library, no device, another arch) is the planner's warning and
 * the slot proposes nothing. */
typedef struct gdt__library_engine {
    gdt_engine_ops ops;
    /* The heuristic's best entries, best first, each `why` naming its rank;
     * engine_id is the slot's, is_backend false. */
    gdt_status (*list)(const gdt_engine_slot *s, const gdt_facts *f, gdt_plan_entry **out, int *n,
                       gdt_error *e);
    /* For sweeps: enumerated configs the library accepts, at most cap per
     * algorithm (malloc'd, like list). */
    gdt_status (*enumerate)(const gdt_engine_slot *s, const gdt_facts *f, int cap,
                            gdt_plan_entry **out, int *n, gdt_error *e);
} gdt__library_engine;

static inline const gdt__library_engine *gdt__library_of(const gdt_engine_slot *s)
{
    if (!s || s->kind != GDT_ENGINE_CUBLASLT || !s->ops) return NULL;
    return (const gdt__library_engine *)(const void *)s->ops;
}

/* engines/cublaslt/cublaslt_engine.c: the gemm.cublaslt slot. */
extern const gdt__library_engine gdt__cublaslt_engine;

#endif
