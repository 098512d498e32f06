/* Per-arch limits (data) and the facts analyzer.  Facts describe; they never
 * reject: a problem an engine cannot serve is that engine's decline. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdtune/gdtune.h"

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

static int64_t ceil_div(int64_t a, int64_t b) { return b ? (a + b - 1) / b : 0; }

static void gemm_facts(const gdt_gemm_desc *g, gdt_facts *f)
{
    int64_t el = (int64_t)gdt_dtype_size(g->dtype);
    f->dtype = g->dtype;
    f->a_row_major = g->a_stride[2] == 1;
    f->b_row_major = g->b_stride[2] == 1;
    f->c_row_major = g->c_stride[2] == 1;
    /* The leading dimension is the stride of the non-unit axis. */
    int64_t lda = f->a_row_major ? g->a_stride[1] : g->a_stride[2];
    int64_t ldb = f->b_row_major ? g->b_stride[1] : g->b_stride[2];
    int64_t ldc = f->c_row_major ? g->c_stride[1] : g->c_stride[2];
    f->aligned16 = (lda * el) % 16 == 0 && (ldb * el) % 16 == 0 && (ldc * el) % 16 == 0;
}

static void sdpa_facts(const gdt_sdpa_desc *s, gdt_facts *f)
{
    f->dtype = s->dtype;
    f->gqa_ratio = s->h_kv ? s->h_q / s->h_kv : 0;
    f->q_tiles128 = s->b * s->h_q * ceil_div(s->s_q, 128);
    f->kv_units = s->b * s->h_kv;
    f->kv_tokens = s->b * s->s_kv;
}

void gdt_facts_analyze(const gdt_problem *p, const gdt_device_props *dev, gdt_facts *out)
{
    memset(out, 0, sizeof *out);
    out->family = p->family;
    out->problem = *p;
    if (dev) out->device = *dev;
    out->flops = gdt_problem_flops(p);
    if (p->family == GDT_FAMILY_GEMM) gemm_facts(&p->u.gemm, out);
    else sdpa_facts(&p->u.sdpa, out);
}
