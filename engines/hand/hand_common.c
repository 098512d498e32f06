/* The parts of the hand engine's slots that are the same in each
 * (engines/hand/hand_common.h): one copy, so the three slots decline,
 * build and load alike. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand_common.h"

gdt_status gdt__hand_build(const gdt__hand_stages *k, const gdt_engine_slot *s, const gdt_facts *f,
                           const gdt_plan_id *p, const gdt_build_opts *o, gdt_compiled **out,
                           gdt_build_info *info, gdt_error *e)
{
    *out = NULL;
    if (info)
        memset(info, 0, sizeof *info);
    gdt_status st = k->check_support(s, f, p, e);
    /* Nothing to compile: nvcc built the cubin with the library. */
    if (st != GDT_STATUS_OK || o->compile_only)
        return st;
    gdt_compiled *c = k->create(f, p);
    if (!c)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: compiled plan", s->name);
    double t0 = gdt_now();
    st = k->load(c, e);
    if (st != GDT_STATUS_OK) {
        k->destroy(c);
        return st;
    }
    if (info)
        info->load_seconds = gdt_now() - t0;
    *out = c;
    return GDT_STATUS_OK;
}

gdt_compiled *gdt__hand_compiled_alloc(size_t size)
{
    size_t bytes = (size + 127) / 128 * 128;
    gdt_compiled *c = aligned_alloc(128, bytes);
    if (c)
        memset(c, 0, bytes);
    return c;
}

void gdt__hand_compiled_free(gdt_compiled *c, const gdt_cu_api *cu, CUmodule mod)
{
    if (mod && cu)
        cu->cuModuleUnload(mod);
    free(c);
}

gdt_status gdt__hand_module(const char *slot, const char *path, const gdt_cu_api **cu, CUmodule *mod,
                            gdt_error *e)
{
    const gdt_embedded *cubin = gdt_embedded_find(path);
    if (!cubin || !cubin->len)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "%s: %s is not embedded in this build", slot,
                             path);
    if (!(*cu = gdt_cu(e)))
        return e ? e->status : GDT_STATUS_NO_DEVICE;
    /* Driver calls need a current context: the runtime's primary one. */
    GDT_CHECK_CUDA(e, cudaFree(0));
    GDT_CHECK_CU(e, (*cu)->cuModuleLoadData(mod, cubin->data));
    return GDT_STATUS_OK;
}

bool gdt__hand_target_ok(const gdt_facts *f, gdt_family family, bool head_dims, int smem, char *why,
                         size_t n)
{
    gdt_device_props lim;
    if (!gdt_arch_limits(f->device.arch, &lim))
        lim = f->device;
    if (f->family != family)
        return snprintf(why, n, "serves %s, problem is %s", gdt_family_name(family),
                        gdt_family_name(f->family)), false;
    if (f->device.arch != 90)
        return snprintf(why, n, "sm%d: the cubin is built for sm_90a only", f->device.arch), false;
    if (f->dtype != GDT_DTYPE_BF16 && f->dtype != GDT_DTYPE_FP16)
        return snprintf(why, n, "dtype %s: bf16 and fp16 only", gdt_dtype_name(f->dtype)), false;
    if (head_dims && f->problem.u.sdpa.d != 64 && f->problem.u.sdpa.d != 128)
        return snprintf(why, n, "head dim %" PRId64 ": 64 and 128 only", f->problem.u.sdpa.d), false;
    if (lim.smem_per_block < smem)
        return snprintf(why, n, "needs %d bytes of shared memory, the device allows %" PRId64, smem,
                        lim.smem_per_block), false;
    return true;
}

void gdt__hand_fixed_plan(const gdt_knob *knobs, size_t nknobs, int64_t engine_id, gdt_plan_id *out)
{
    memset(out, 0, sizeof *out);
    out->engine_id = engine_id;
    for (size_t i = 0; i < nknobs; i++)
        gdt_plan_id_set_knob(out, knobs[i].type, knobs[i].value);
}

int gdt__hand_config_of(const gdt_engine_slot *s, const gdt_plan_id *p, int n,
                        void (*config)(int i, int64_t engine_id, gdt_plan_id *out), char *why,
                        size_t nwhy)
{
    gdt_plan_id fixed;
    char name[256];
    size_t at;
    if (p->nknobs == 0)
        return 0;
    for (int i = 0; i < n; i++) {
        config(i, p->engine_id, &fixed);
        if (gdt_plan_id_equal(p, &fixed))
            return i;
    }
    if (!why || !nwhy)
        return -1;
    gdt_plan_id_format(p, name, sizeof name);
    at = (size_t)snprintf(why, nwhy, "%s: plan %s: not one of the kernel's fixed configurations (", s->name,
                          name);
    for (int i = 0; i < n && at < nwhy; i++) {
        config(i, p->engine_id, &fixed);
        gdt_plan_id_format(&fixed, name, sizeof name);
        at += (size_t)snprintf(why + at, nwhy - at, "%s%s", i ? ", " : "", name);
    }
    if (at < nwhy)
        snprintf(why + at, nwhy - at, ")");
    return -1;
}

/* A stride over an extent of 1 is never used; TMA still wants a 16-byte
 * multiple there, so it gets one. */
static void attn_geometry(const int64_t ext[4], const int64_t st[4], gdt__hand_attn_map *g)
{
    int64_t below = ext[3] * 2; /* bytes spanned by the axes inside this one */
    for (int i = 0; i < 4; i++)
        g->dims[i] = (cuuint64_t)ext[3 - i];
    for (int i = 0; i < 3; i++) {
        int64_t axis = 2 - i; /* s, h, b */
        g->strides[i] = (cuuint64_t)(ext[axis] == 1 ? gdt__tma_round16(below) : st[axis] * 2);
        below = (int64_t)g->strides[i] * ext[axis];
    }
}

bool gdt__hand_attn_layout(const gdt_sdpa_desc *s, int nmaps, bool o_pieces, gdt__hand_attn_map *geo,
                           char *why, size_t n)
{
    static const char *const names[4] = {"Q", "K", "V", "O"}, *const axes[3] = {"s", "h", "b"};
    const int64_t *st[4] = {s->q_stride, s->k_stride, s->v_stride, s->o_stride};
    int64_t q[4] = {s->b, s->h_q, s->s_q, s->d}, kv[4] = {s->b, s->h_kv, s->s_kv, s->d};
    for (int t = 0; t < 4; t++)
        if (st[t][3] != 1)
            return snprintf(why, n, "operand %s: stride %" PRId64 " along d, expected 1 (TMA and "
                            "the stores read d contiguously)", names[t], st[t][3]), false;
    for (int a = 0; o_pieces && a < 3; a++)
        if (st[3][a] % 8)
            return snprintf(why, n, "operand O: stride[%d] = %" PRId64 " is not a multiple of 8; "
                            "the kernel stores 16-byte pieces", a, st[3][a]), false;
    for (int t = 0; t < nmaps; t++) {
        attn_geometry(t == 1 || t == 2 ? kv : q, st[t], &geo[t]);
        for (int i = 0; i < 3; i++)
            if (geo[t].strides[i] % 16 || geo[t].strides[i] >= (1ull << 40))
                return snprintf(why, n, "operand %s: stride of %llu bytes along %s is not a "
                                "multiple of 16 below 2^40, as TMA needs", names[t],
                                (unsigned long long)geo[t].strides[i], axes[i]),
                       false;
    }
    return true;
}

bool gdt__hand_attn_ok(const gdt__hand_attn_spec *k, const gdt_facts *f, char *why, size_t n)
{
    gdt__hand_attn_map geo[4];
    const gdt_sdpa_desc *sd = &f->problem.u.sdpa;
    return gdt__hand_target_ok(f, k->family, true, k->smem_bytes(sd->d), why, n) &&
           k->sizes_ok(sd, why, n) && gdt__hand_attn_layout(sd, k->nmaps, k->o_pieces, geo, why, n);
}

gdt_status gdt__hand_attn_check(const gdt__hand_attn_spec *k, const gdt_engine_slot *s,
                                const gdt_facts *f, const gdt_plan_id *p, int *config, gdt_error *e)
{
    char why[GDT_ERROR_MAX] = "";
    if (!gdt__hand_attn_ok(k, f, why, sizeof why))
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: %s", s->name, why);
    *config = gdt__hand_config_of(s, p, k->configs, k->config_plan, why, sizeof why);
    return *config < 0 ? gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s", why) : GDT_STATUS_OK;
}

void gdt__hand_attn_geometry(const gdt__hand_attn_spec *k, const gdt_facts *f, gdt__hand_attn_map *geo)
{
    char why[8];
    gdt__hand_attn_layout(&f->problem.u.sdpa, k->nmaps, k->o_pieces, geo, why, sizeof why);
}
