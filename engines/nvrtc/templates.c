/* The NVRTC templates, one line each: a new template is its kernel header
 * (kernels/), its template file (engines/nvrtc/tmpl_*.c: defines, launch,
 * args), its candidate rows (tables/candidates/nvrtc.json and the row
 * family's schema in engines/rows_*.c), and a line here. */
#include <string.h>

#include "nvrtc/gdt_nvrtc.h"

static const gdt_nvrtc_template *const templates[] = {
    &gdt__tmpl_gemm,
    &gdt__tmpl_attn_fwd,
    &gdt__tmpl_attn_bwd,
};

const gdt_nvrtc_template *gdt__nvrtc_template_for(const char *row_family)
{
    for (size_t i = 0; row_family && i < sizeof templates / sizeof *templates; i++)
        if (!strcmp(templates[i]->rows->name, row_family))
            return templates[i];
    return NULL;
}
