/* Device counters a built plan owns: the split-K arrival counters of
 * engines/gemm_tma.c and the attention forward's tile counters of
 * engines/attn_fwd_tma.c.  Zeroed once when the launch state is loaded;
 * the kernel that uses them sets them back to zero before it ends, so they
 * stay zero between launches.  They are not in the caller's workspace
 * because callers share one workspace among plans (a sweep's buffers, the
 * tests'), so counters there would need a memset in every execute.  The
 * price is that a plan must not run concurrently with itself
 * (engines/hand/README.md).  Private to libgdtune. */
#ifndef GDT_PLAN_COUNTERS_H
#define GDT_PLAN_COUNTERS_H

#include <stddef.h>

#include "gdt_cuda.h"
#include "gdt_util.h"

/* n 32-bit counters in device memory into *out, zeroed and synchronized
 * (the zeros land before an execute on any stream); nothing where n is 0.
 * On failure *out may hold the allocation: gdt__plan_counters_free it. */
gdt_status gdt__plan_counters_new(unsigned **out, size_t n, gdt_error *e);

/* Frees *p (when allocated) and sets it to NULL. */
void gdt__plan_counters_free(unsigned **p);

#endif
