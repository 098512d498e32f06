/* The figures' kinds and cell labels (gdt_figure_style.h). */
#include <stdarg.h>
#include <stdio.h>

#include "gdt_cell_top.h"
#include "gdt_figure_style.h"

/* Indexed by gdt_engine_kind.  Colours from one qualitative palette, told
 * apart in grey as well by their points. */
static const gdt_kind_style styles[] = {
    [GDT_ENGINE_CUDNN] = {GDT_ENGINE_CUDNN, "cudnn", "cuDNN", "#2ca02c", 5},
    [GDT_ENGINE_NVRTC] = {GDT_ENGINE_NVRTC, "nvrtc", "generated (NVRTC)", "#1f77b4", 7},
    [GDT_ENGINE_HAND] = {GDT_ENGINE_HAND, "hand", "handwritten", "#9467bd", 9},
    [GDT_ENGINE_TEST] = {GDT_ENGINE_TEST, "test", "test engine", "#7f7f7f", 3},
    [GDT_ENGINE_CUBLASLT] = {GDT_ENGINE_CUBLASLT, "cublaslt", "cuBLASLt", "#ff7f0e", 13},
};
_Static_assert(sizeof styles / sizeof styles[0] == GDT_ENGINE_KIND_COUNT, "one style per engine kind");

const gdt_engine_kind gdt_figure_kinds[GDT_FIGURE_NKINDS] = {
    GDT_ENGINE_NVRTC, GDT_ENGINE_HAND, GDT_ENGINE_CUDNN, GDT_ENGINE_CUBLASLT, GDT_ENGINE_TEST,
};

const gdt_kind_style *gdt_kind_style_of(gdt_engine_kind k)
{
    return &styles[(unsigned)k < GDT_ENGINE_KIND_COUNT ? k : GDT_ENGINE_TEST];
}

gdt_engine_kind gdt_cell_plan_kind(const gdt_run_cell *c, int i)
{
    gdt_engine_kind k = gdt_engine_kind_of(NULL, c->plan[i].id.engine_id);
    return k < GDT_ENGINE_KIND_COUNT ? k : GDT_ENGINE_TEST;
}

int gdt_cell_best_of_kind(const gdt_run_cell *c, gdt_engine_kind k)
{
    int b = -1;
    for (int i = 0; i < c->nplans; i++)
        if (gdt_cell_verified(c, i) && gdt_cell_plan_kind(c, i) == k &&
            (b < 0 || c->result[i].time_us < c->result[b].time_us))
            b = i;
    return b;
}

/* Appends to buf[at..n), never past it; returns the new length (kept
 * below n when cut). */
static int append(char *buf, size_t n, int at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int append(char *buf, size_t n, int at, const char *fmt, ...)
{
    if (at < 0 || (size_t)at >= n)
        return at;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + at, n - (size_t)at, fmt, ap);
    va_end(ap);
    if (k < 0)
        return at;
    return (size_t)(at + k) < n ? at + k : (int)n - 1;
}

static int gemm_label(const gdt_gemm_desc *g, char *buf, size_t n)
{
    int k = g->batch > 1 ? append(buf, n, 0, "b%lld ", (long long)g->batch) : 0;
    return append(buf, n, k, "m%lld n%lld k%lld", (long long)g->m, (long long)g->n, (long long)g->k);
}

/* "h32" or, with grouped heads, "h32/8"; "s4096" or "s512/4096" (query/key). */
static int sdpa_label(const gdt_sdpa_desc *s, gdt_family f, char *buf, size_t n)
{
    static const char *const mask[] = {"", " causal", " causal-br"};
    char h[48], sl[48];
    snprintf(h, sizeof h, s->h_q == s->h_kv ? "h%lld" : "h%lld/%lld", (long long)s->h_q, (long long)s->h_kv);
    snprintf(sl, sizeof sl, s->s_q == s->s_kv ? "s%lld" : "s%lld/%lld", (long long)s->s_q, (long long)s->s_kv);
    return append(buf, n, 0, "%s b%lld %s %s d%lld%s", f == GDT_FAMILY_SDPA_BWD ? "bwd" : "fwd",
                    (long long)s->b, h, sl, (long long)s->d,
                    (unsigned)s->causal < 3 ? mask[s->causal] : " masked");
}

int gdt_cell_label(const gdt_problem *p, char *buf, size_t n)
{
    if (n)
        buf[0] = '\0';
    int k = p->family == GDT_FAMILY_GEMM ? gemm_label(&p->u.gemm, buf, n) : sdpa_label(&p->u.sdpa, p->family, buf, n);
    gdt_dtype t = gdt_problem_dtype(p);
    if (t != GDT_DTYPE_BF16 && t < GDT_DTYPE_COUNT)
        k = append(buf, n, k, " %s", gdt_dtype_name(t));
    return k;
}
