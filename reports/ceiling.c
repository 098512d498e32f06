/* The ceilings table and the roofline (gdt_ceiling.h). */
#include <stddef.h>

#include "gdt_ceiling.h"
#include "gdtune/gdtune.h"

/* Measured ceilings, not datasheet peaks: a plan's fraction of them says
 * how much is left to win on this device, which a datasheet figure the
 * device never reaches would overstate. */
static const gdt_ceiling ceilings[] = {
    /* H200 SXM (141 GB HBM3e, 132 SMs).  Dense bf16: about 790 TFLOP/s, as
     * a large square bf16 GEMM measures it on an H200 under its power cap
     * (datasheet: 989; the best cuDNN plan of the committed GEMM sweep
     * reaches 712-724 at 4096^3, docs/results/2026-12-01.md).  HBM: about 4.3 TB/s, as a device-to-device copy
     * of a buffer far larger than L2 measures it, bytes read plus bytes
     * written (datasheet: 4.8). */
    {90, "H200", 790.0, 4.3},
};

const gdt_ceiling *gdt_ceiling_find(int arch)
{
    for (size_t i = 0; i < sizeof ceilings / sizeof ceilings[0]; i++)
        if (ceilings[i].arch == arch)
            return &ceilings[i];
    return NULL;
}

void gdt_roofline_of(const gdt_problem *p, const gdt_ceiling *c, gdt_roofline *out)
{
    out->flops = gdt_problem_flops(p);
    out->bytes = gdt_problem_bytes(p);
    out->compute_us = out->flops / (c->dense_tflops * 1e12) * 1e6;
    out->memory_us = out->bytes / (c->hbm_tbps * 1e12) * 1e6;
    out->memory_bound = out->memory_us > out->compute_us;
    out->floor_us = out->memory_bound ? out->memory_us : out->compute_us;
}

double gdt_roofline_fraction(const gdt_roofline *r, double time_us)
{
    return time_us > 0 ? r->floor_us / time_us : 0;
}
