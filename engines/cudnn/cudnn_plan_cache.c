/* cuDNN execution plans kept in the compiled-kernel cache.
 *
 * cuDNN's runtime-compiled engines compile their kernels when a plan is
 * finalized: in the default GEMM sweep of 2026-12-02T20:53Z four engines
 * (eng1, eng2, eng4, eng7) took 0.45-1.3 s a plan, 262 s of builder-thread
 * time in all, with a warm gdtune cache.  The backend serializes a finalized
 * plan (CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION; cuDNN documents it for
 * the runtime-compiled engines, with no compatibility across versions or
 * devices) and finalizes a plan from that text alone.  gdtune keeps the text
 * as a <key>.plan entry of its cache (nvrtc/gdt_nvrtc_cache.h: verified on
 * load, anything doubtful a miss).
 *
 * The key digests everything the plan depends on: gdtune's, cuDNN's and the
 * driver's versions, the device (name, arch, SM count), the digest of the
 * code that lowers a problem to a graph (gdt__cudnn_digest: engines/cudnn/
 * and the public headers), the problem's every field, the graph form and
 * the plan id (engine and knob choices).  A plan finalized from the cache is
 * verified against the reference like any other before it is measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn/gdt_cudnn.h"
#include "gdt_util.h"
#include "nvrtc/gdt_nvrtc_cache.h"

#define ENTRY_MAX ((int64_t)64 << 20) /* a plan's text is kilobytes to a few megabytes */

static int strides_text(char *buf, size_t n, const char *name, const int64_t *s, int k)
{
    int w = snprintf(buf, n, " %s", name);
    for (int i = 0; i < k && w > 0 && (size_t)w < n; i++)
        w += snprintf(buf + w, n - (size_t)w, "%s%lld", i ? "," : "=", (long long)s[i]);
    return w;
}

/* Every field of the problem, in a fixed order.  A field added to the
 * structs changes the public headers, so gdt__cudnn_digest as well. */
static bool problem_text(const gdt_problem *p, char *buf, size_t n)
{
    int w;
    if (p->family == GDT_FAMILY_GEMM) {
        const gdt_gemm_desc *g = &p->u.gemm;
        w = snprintf(buf, n, "gemm batch=%lld m=%lld n=%lld k=%lld dtype=%d", (long long)g->batch,
                     (long long)g->m, (long long)g->n, (long long)g->k, (int)g->dtype);
        w += strides_text(buf + w, n - (size_t)w, "a", g->a_stride, 3);
        w += strides_text(buf + w, n - (size_t)w, "b", g->b_stride, 3);
        w += strides_text(buf + w, n - (size_t)w, "c", g->c_stride, 3);
    } else {
        const gdt_sdpa_desc *s = &p->u.sdpa;
        w = snprintf(buf, n, "%s b=%lld h_q=%lld h_kv=%lld s_q=%lld s_kv=%lld d=%lld dtype=%d "
                     "causal=%d layout=%d scale=%a", gdt_family_name(p->family), (long long)s->b,
                     (long long)s->h_q, (long long)s->h_kv, (long long)s->s_q, (long long)s->s_kv,
                     (long long)s->d, (int)s->dtype, (int)s->causal, (int)s->layout, s->scale);
        w += strides_text(buf + w, n - (size_t)w, "q", s->q_stride, 4);
        w += strides_text(buf + w, n - (size_t)w, "k", s->k_stride, 4);
        w += strides_text(buf + w, n - (size_t)w, "v", s->v_stride, 4);
        w += strides_text(buf + w, n - (size_t)w, "o", s->o_stride, 4);
    }
    return w > 0 && (size_t)w < n;
}

bool gdt__cudnn_plan_key(const gdt_compiled *c, const gdt_device_props *dev, gdt_nvrtc_key *k)
{
    char env[160], problem[1024], plan[256], text[2048];
    int driver = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess || !dev->name[0])
        return false;
    int n = snprintf(env, sizeof env, "gdtune %s\ncudnn %zu\ndriver %d\n", GDT_VERSION_STRING,
                     cudnnGetVersion(), driver);
    gdt_plan_id_format(&c->id, plan, sizeof plan);
    if (n <= 0 || (size_t)n >= sizeof env || !problem_text(&c->graph->problem, problem, sizeof problem))
        return false;
    int w = snprintf(text, sizeof text, "gdtune-cudnn-plan 1\n%sdevice %s sm%d sms %d\nlowering %s\n"
                     "problem %s\nform %d\nplan %s\n", env, dev->name, dev->arch, dev->sm_count,
                     gdt__cudnn_digest, problem, c->graph->form, plan);
    if (w <= 0 || (size_t)w >= sizeof text)
        return false;
    gdt__cache_key_set(k, env, text);
    snprintf(k->arch, sizeof k->arch, "sm_%d", dev->arch);
    return true;
}

/* A plan finalized from its text: the descriptor joins c's pool either
 * way (destroyed with c); c->plan is set only on success. */
bool gdt__cudnn_plan_load(gdt_compiled *c, const char *root, const gdt_nvrtc_key *k)
{
    void *text = NULL;
    size_t len = 0;
    cudnnBackendDescriptor_t plan = NULL;
    gdt_error ignored;
    if (!gdt__cache_get(root, k, GDT_CACHE_CUDNN_PLAN, &text, &len))
        return false;
    bool ok = len > 0 && (int64_t)len < ENTRY_MAX &&
              gdt__cudnn_pool_desc(&c->own, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan,
                                   &ignored) == GDT_STATUS_OK &&
              cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                       CUDNN_TYPE_CHAR, (int64_t)len, text) == CUDNN_STATUS_SUCCESS &&
              cudnnBackendSetAttribute(plan, gdt__cudnn_attr_plan_handle, CUDNN_TYPE_HANDLE, 1,
                                       &c->handle) == CUDNN_STATUS_SUCCESS &&
              cudnnBackendFinalize(plan) == CUDNN_STATUS_SUCCESS;
    free(text);
    if (ok)
        c->plan = plan;
    return ok;
}

/* The finalized plan's text into the cache; a plan the backend does not
 * serialize (most precompiled engines) is left out. */
void gdt__cudnn_plan_store(const gdt_compiled *c, const char *root, const gdt_nvrtc_key *k)
{
    int64_t n = 0;
    if (cudnnBackendGetAttribute(c->plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                 CUDNN_TYPE_CHAR, 0, &n, NULL) != CUDNN_STATUS_SUCCESS ||
        n <= 0 || n >= ENTRY_MAX)
        return;
    char *text = malloc((size_t)n);
    int64_t got = 0;
    if (text && cudnnBackendGetAttribute(c->plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                         CUDNN_TYPE_CHAR, n, &got, text) == CUDNN_STATUS_SUCCESS &&
        got > 0 && got <= n)
        gdt__cache_put(root, k, GDT_CACHE_CUDNN_PLAN, text, (size_t)got);
    free(text);
}
