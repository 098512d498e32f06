/* NVRTC compile of an embedded template for one plan: options from typed
 * define values (never table text), a cubin for the target arch (never PTX
 * left for the driver to JIT at launch), and the compiler's log on failure. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gdt_cuda.h"
#include "gdt_nvrtc_cache.h"
#include "gdt_util.h"

bool gdt_nvrtc_arg(gdt_nvrtc_args *a, const void *value, size_t size)
{
    size_t align = size >= 16 ? 16 : size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;
    size_t at = (a->used + align - 1) & ~(align - 1);
    if (a->nargs >= GDT_NVRTC_MAX_ARGS || at + size > sizeof a->bytes)
        return false;
    memcpy(a->bytes + at, value, size);
    a->args[a->nargs++] = a->bytes + at;
    a->used = at + size;
    return true;
}

static bool is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

/* wgmma and setmaxnreg exist only in the sm_90a target. */
static void arch_name(const gdt_plan_id *p, int arch, char *buf, size_t n)
{
    bool a = arch == 90 && gdt_plan_id_knob(p, GDT_KNOB_MMA, 0) >= 1;
    snprintf(buf, n, "sm_%d%s", arch, a ? "a" : "");
}

/* Toolkit headers found at run time, for templates that include any. */
static const char *cuda_include_dir(char *buf, size_t n)
{
    const char *home = getenv("CUDA_HOME");
    struct stat st;
    if (home && snprintf(buf, n, "%s/include", home) < (int)n && stat(buf, &st) == 0)
        return buf;
    if (stat("/usr/local/cuda/include", &st) == 0)
        return "/usr/local/cuda/include";
#ifdef GDT_CUDA_INCLUDE_DIR
    if (stat(GDT_CUDA_INCLUDE_DIR, &st) == 0)
        return GDT_CUDA_INCLUDE_DIR;
#endif
    return NULL;
}

static bool add_opt(gdt_nvrtc_options *o, const char *fmt, const char *s, int64_t v)
{
    if (o->n >= GDT_NVRTC_MAX_OPTIONS)
        return false;
    int w = s ? snprintf(o->opt[o->n], sizeof o->opt[0], fmt, s, (long long)v)
              : snprintf(o->opt[o->n], sizeof o->opt[0], fmt, (long long)v);
    if (w < 0 || w >= (int)sizeof o->opt[0])
        return false;
    o->n++;
    return true;
}

gdt_status gdt__nvrtc_options(const gdt_nvrtc_template *t, const gdt_facts *f, const gdt_plan_id *p,
                              int arch, gdt_nvrtc_options *o, gdt_error *e)
{
    gdt_nvrtc_define d[GDT_NVRTC_MAX_DEFINES];
    char an[16], incbuf[512];
    int nd = t->defines(f, p, d, GDT_NVRTC_MAX_DEFINES);
    o->n = 0;
    for (int i = 0; i < nd; i++) {
        if (!is_identifier(d[i].name))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "nvrtc: %s: define %d name \"%s\" is not an identifier",
                                 t->source, i, d[i].name ? d[i].name : "(null)");
        if (!add_opt(o, "-D%s=%lld", d[i].name, d[i].value))
            return gdt_error_set(e, GDT_STATUS_INTERNAL, "nvrtc: %s: too many options", t->source);
    }
    arch_name(p, arch, an, sizeof an);
    const char *inc = cuda_include_dir(incbuf, sizeof incbuf);
    bool ok = add_opt(o, "--gpu-architecture=%s", an, 0) && add_opt(o, "-default-device", NULL, 0) &&
              add_opt(o, "-std=c++17", NULL, 0) && (!inc || add_opt(o, "--include-path=%s", inc, 0));
    if (!ok)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "nvrtc: %s: too many options", t->source);
    return GDT_STATUS_OK;
}

static gdt_status query_driver(int *v, gdt_error *e)
{
    GDT_CHECK_CUDA(e, cudaDriverGetVersion(v));
    return GDT_STATUS_OK;
}

/* 0 on a machine without a driver: such compiles get their own environment. */
static int driver_version(void)
{
    int v = 0;
    return query_driver(&v, NULL) == GDT_STATUS_OK ? v : 0;
}

/* The kernel headers the templates share: every embedded kernels/gdt_*.cuh,
 * included by its file name ("gdt_wgmma.cuh").  Every compile gets them
 * all, and the cache key digests them all; more than the maximum is an
 * error, never a header left out (a ninth header once dropped the last of
 * eight: the templates then failed to find it). */
gdt_status gdt__nvrtc_kernel_headers(const gdt_embedded **out, int *n, gdt_error *e)
{
    *n = 0;
    for (int i = 0; i < gdt__embedded_count; i++) {
        const char *name = gdt__embedded[i].name;
        size_t len = strlen(name);
        if (strncmp(name, "kernels/gdt_", 12) || len <= 4 || strcmp(name + len - 4, ".cuh"))
            continue;
        if (*n == GDT__NVRTC_MAX_KERNEL_HEADERS)
            return gdt_error_set(e, GDT_STATUS_INTERNAL, "nvrtc: more than %d kernel headers embedded "
                                 "(kernels/gdt_*.cuh): raise GDT__NVRTC_MAX_KERNEL_HEADERS",
                                 GDT__NVRTC_MAX_KERNEL_HEADERS);
        out[(*n)++] = &gdt__embedded[i];
    }
    return GDT_STATUS_OK;
}

void gdt__cache_key_set(gdt_nvrtc_key *k, const char *env, const char *text)
{
    char sum[65];
    gdt_digest_hex(text, strlen(text), k->key);
    gdt_digest_hex(env, strlen(env), sum);
    memcpy(k->env, sum, 16);
    k->env[16] = '\0';
}

gdt_status gdt__nvrtc_key_of(const gdt_embedded *src, const gdt_embedded *const *hdr, int nh,
                             const gdt_nvrtc_options *o, int arch, gdt_nvrtc_key *k, gdt_error *e)
{
    int major = 0, minor = 0;
    char sd[65], env[256], text[GDT_NVRTC_MAX_OPTIONS * 161 + 512];
    GDT_CHECK_NVRTC(e, nvrtcVersion(&major, &minor));
    gdt_digest_hex(src->data, src->len, sd);
    snprintf(env, sizeof env, "gdtune %s\nnvrtc %d.%d\ndriver %d\n", GDT_VERSION_STRING, major, minor,
             driver_version());
    size_t at = (size_t)snprintf(text, sizeof text, "%ssource %s %s\narch %d\n", env, src->name,
                                 sd, arch);
    for (int i = 0; i < nh && at < sizeof text; i++) {
        gdt_digest_hex(hdr[i]->data, hdr[i]->len, sd);
        at += (size_t)snprintf(text + at, sizeof text - at, "header %s %s\n", hdr[i]->name, sd);
    }
    for (int i = 0; i < o->n && at < sizeof text; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, "option %s\n", o->opt[i]);
    if (at >= sizeof text)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "nvrtc: %s: cache key material over %zu bytes",
                             src->name, sizeof text);
    gdt__cache_key_set(k, env, text);
    for (int i = 0; i < o->n; i++)
        if (!strncmp(o->opt[i], "--gpu-architecture=", 19))
            snprintf(k->arch, sizeof k->arch, "%s", o->opt[i] + 19);
    return GDT_STATUS_OK;
}

gdt_status gdt__nvrtc_key(const gdt_nvrtc_template *t, const gdt_nvrtc_options *o, int arch,
                          gdt_nvrtc_key *k, gdt_error *e)
{
    const gdt_embedded *src = gdt_embedded_find(t->source), *hdr[GDT__NVRTC_MAX_KERNEL_HEADERS];
    int nh = 0;
    if (!src)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "nvrtc: template %s is not embedded",
                             t->source);
    gdt_status st = gdt__nvrtc_kernel_headers(hdr, &nh, e);
    return st != GDT_STATUS_OK ? st : gdt__nvrtc_key_of(src, hdr, nh, o, arch, k, e);
}

/* The compiler's log, into info (head) and appended to e's message.  The
 * failing nvrtcCompileProgram is reported here rather than by
 * GDT_CHECK_NVRTC because the log is the useful part of the error. */
static gdt_status compile_failed(nvrtcProgram prog, nvrtcResult r, const char *what,
                                 gdt_build_info *info, gdt_error *e)
{
    size_t n = 0;
    char *log = NULL;
    if (nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 0 && (log = malloc(n + 1)) &&
        nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
        log[n] = '\0';
    else if (log)
        log[0] = '\0';
    if (info && log)
        snprintf(info->log, sizeof info->log, "%s", log);
    gdt_error_set(e, GDT_STATUS_NVRTC, "nvrtc: %s: compile failed: %s\n%s", what,
                  nvrtcGetErrorString(r), log ? log : "(no log)");
    free(log);
    return GDT_STATUS_NVRTC;
}

static gdt_status compile_program(nvrtcProgram prog, const gdt_nvrtc_options *o, const char *what,
                                  void **cubin, size_t *len, gdt_build_info *info, gdt_error *e)
{
    const char *argv[GDT_NVRTC_MAX_OPTIONS];
    for (int i = 0; i < o->n; i++)
        argv[i] = o->opt[i];
    nvrtcResult r = nvrtcCompileProgram(prog, o->n, argv);
    if (r != NVRTC_SUCCESS)
        return compile_failed(prog, r, what, info, e);
    GDT_CHECK_NVRTC(e, nvrtcGetCUBINSize(prog, len));
    if (!(*cubin = malloc(*len ? *len : 1)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "nvrtc: %s: cubin of %zu bytes", what, *len);
    GDT_CHECK_NVRTC(e, nvrtcGetCUBIN(prog, *cubin));
    return GDT_STATUS_OK;
}

static void describe(const gdt_nvrtc_template *t, const gdt_plan_id *p, const char *arch,
                     char *buf, size_t n)
{
    char name[512];
    gdt_plan_id_format(p, name, sizeof name);
    snprintf(buf, n, "%s for %s, plan %s", t->source, arch, name);
}

gdt_status gdt_nvrtc_compile(const gdt_nvrtc_template *t, const gdt_facts *f,
                             const gdt_plan_id *p, int arch, void **cubin, size_t *cubin_len,
                             gdt_build_info *info, gdt_error *e)
{
    gdt_nvrtc_options o;
    char an[16], what[640];
    nvrtcProgram prog;
    const gdt_embedded *src = gdt_embedded_find(t->source);
    *cubin = NULL;
    *cubin_len = 0;
    if (!src)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "nvrtc: template %s is not embedded",
                             t->source);
    gdt_status st = gdt__nvrtc_options(t, f, p, arch, &o, e);
    if (st != GDT_STATUS_OK)
        return st;
    arch_name(p, arch, an, sizeof an);
    describe(t, p, an, what, sizeof what);
    double t0 = gdt_now();
    const gdt_embedded *hdr[GDT__NVRTC_MAX_KERNEL_HEADERS];
    const char *hsrc[GDT__NVRTC_MAX_KERNEL_HEADERS], *hname[GDT__NVRTC_MAX_KERNEL_HEADERS];
    int nh = 0;
    st = gdt__nvrtc_kernel_headers(hdr, &nh, e);
    if (st != GDT_STATUS_OK)
        return st;
    for (int i = 0; i < nh; i++)
        hsrc[i] = hdr[i]->data, hname[i] = hdr[i]->name + strlen("kernels/");
    GDT_CHECK_NVRTC(e, nvrtcCreateProgram(&prog, src->data, t->source, nh, hsrc, hname));
    st = compile_program(prog, &o, what, cubin, cubin_len, info, e);
    nvrtcDestroyProgram(&prog);
    if (st != GDT_STATUS_OK) {
        free(*cubin);
        *cubin = NULL;
    }
    if (info)
        info->compile_seconds = gdt_now() - t0;
    return st;
}
