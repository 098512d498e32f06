/* The engines the manifest and the planner reach.  Private to libgdtune. */
#ifndef GDT_ENGINES_H
#define GDT_ENGINES_H

#include "gdtune/plan.h"

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

#endif
