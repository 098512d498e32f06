/* Per-arch limits (data) and the facts analyzer, whose family-specific facts
 * come from the family's descriptor.  Facts describe; they never reject: a
 * problem an engine cannot serve is that engine's decline. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_family.h"

#define MiB (1024LL * 1024LL)

/* Opt-in shared memory per block, threads per block, registers per block,
 * L2 bytes.  The L2 of a real device comes from the device itself (the H200
 * reports 60 MiB against sm90's 50 MiB here). */
static const gdt_device_props arch_limits[] = {
    {80, 0, 166912, 65536, 1024, 40 * MiB, "sm80 (A100)"},
    {86, 0, 101376, 65536, 1024, 6 * MiB, "sm86 (GA10x)"},
    {87, 0, 166912, 65536, 1024, 4 * MiB, "sm87 (Orin)"},
    {89, 0, 101376, 65536, 1024, 72 * MiB, "sm89 (AD10x)"},
    {90, 0, 232448, 65536, 1024, 50 * MiB, "sm90 (H100)"},
    {100, 0, 232448, 65536, 1024, 126 * MiB, "sm100 (B200)"},
    {120, 0, 101376, 65536, 1024, 96 * MiB, "sm120 (GB20x)"},
};

bool gdt_arch_limits(int arch, gdt_device_props *out)
{
    for (size_t i = 0; i < sizeof arch_limits / sizeof arch_limits[0]; i++)
        if (arch_limits[i].arch == arch) {
            if (out) *out = arch_limits[i];
            return true;
        }
    return false;
}

/* "sm90", "sm_90", "sm90a", "sm_100f": the number is major*10+minor. */
gdt_status gdt_arch_parse(const char *s, int *arch, gdt_error *e)
{
    const char *p = s;
    if (!s || strncmp(p, "sm", 2)) goto bad;
    p += 2;
    if (*p == '_') p++;
    int v = 0, nd = 0;
    if (*p == '0') goto bad; /* sm090 beside sm90 would be a second folder of one arch */
    while (isdigit((unsigned char)*p) && nd < 4) v = v * 10 + (*p++ - '0'), nd++;
    if (nd < 2 || nd > 3 || v < 10) goto bad;
    if (*p == 'a' || *p == 'f') p++;
    if (*p) goto bad;
    *arch = v;
    return GDT_STATUS_OK;
bad:
    return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                         "arch \"%s\": expected smXY (like sm80, sm_90, sm90a, sm100)",
                         s ? s : "(null)");
}

int gdt_arch_dir_kind(const char *name, int *arch)
{
    char canon[16];
    const char *p = name && !strncmp(name, "sm", 2) ? name + 2 : NULL;
    if (p && *p == '_') p++;
    if (!p || !isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
    if (*p == 'a' || *p == 'f') p++;
    if (*p) return 0; /* "sm90-old", "smoke": not an arch's name */
    int v = 0;
    if (gdt_arch_parse(name, &v, NULL) != GDT_STATUS_OK) return -1;
    snprintf(canon, sizeof canon, "sm%d", v);
    if (strcmp(canon, name)) return -1;
    *arch = v;
    return 1;
}

void gdt_facts_analyze(const gdt_problem *p, const gdt_device_props *dev, gdt_facts *out)
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    memset(out, 0, sizeof *out);
    out->family = p->family;
    out->problem = *p;
    if (dev) out->device = *dev;
    out->dtype = gdt_problem_dtype(p);
    out->flops = gdt_problem_flops(p);
    if (d) d->facts(p, out);
}

/* The hand split-K kernels tile each slice of K on its own and reduce the
 * partial products after: the work they schedule is a batch of that many
 * GEMMs of K / splits, whose C the reduction writes and reads once each. */
void gdt__facts_split_k(const gdt_facts *f, int64_t splits, gdt_facts *out)
{
    *out = *f;
    if (f->family != GDT_FAMILY_GEMM || splits <= 1) return;
    gdt_gemm_desc *g = &out->problem.u.gemm;
    g->k = (g->k + splits - 1) / splits;
    g->batch *= splits;
}
