/* THE manifest: every family's engine slots, one table.  Ids are arithmetic
 * (20000 + GDT_FAMILY_BLOCK * family + slot), so any id decodes to family and
 * slot with nothing registered first.  An engine is handed its id; it never
 * claims one. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_engines.h"
#include "hand/gdt_hand.h"
#include "nvrtc/gdt_nvrtc.h"

enum {
    SLOT_GEMM_NVRTC,
    SLOT_GEMM_HAND,
    SLOT_GEMM_CUBLASLT,
    SLOT_GEMM_TEST_FAULT,
    SLOT_GEMM_TEST_HANG,
    SLOT_SDPA_FWD_NVRTC,
    SLOT_SDPA_BWD_NVRTC,
    SLOT_SDPA_FWD_HAND,
    SLOT_SDPA_BWD_HAND,
    SLOT_COUNT
};

#define ANY_ARCH 0, 999
#define SM80_PLUS 80, 129
#define SM90_ONLY 90, 90
#define BF16_FP16 ((1u << GDT_DTYPE_BF16) | (1u << GDT_DTYPE_FP16))
#define ALL_DTYPES ((1u << GDT_DTYPE_COUNT) - 1u)

/* family, slot, name, kind, template, {arch range, dtypes, head dims}, opt-in, ops */
static const gdt_engine_slot slots[] = {
    [SLOT_GEMM_NVRTC] = {GDT_FAMILY_GEMM, 0, "gemm.nvrtc", GDT_ENGINE_NVRTC, &gdt__tmpl_gemm,
                         {SM80_PLUS, BF16_FP16, 0, 0, 0}, false, &gdt__nvrtc_ops},
    /* The handwritten TMA + wgmma GEMM (engines/hand/README.md): its cubin
     * is sm_90a code, so sm90 alone; eleven fixed configurations, no rows.
     * tests/gpu/test_hand verifies every case it accepts on the H200. */
    [SLOT_GEMM_HAND] = {GDT_FAMILY_GEMM, 10, "gemm.hand", GDT_ENGINE_HAND, NULL,
                        {SM90_ONLY, BF16_FP16, 0, 0, 0}, false, &gdt__hand_gemm_ops},
    /* Its plans come from the library on the device (gdt__library_of),
     * at most GDT__CUBLASLT_TOP + GDT__CUBLASLT_ENUM_MAX per cell.  The
     * library side (gdt_engine_kind_side): tables, journal tags and
     * reports keep its plans apart from ours, so LEAD still means ours
     * beat the backend. */
    [SLOT_GEMM_CUBLASLT] = {GDT_FAMILY_GEMM, 11, "gemm.cublaslt", GDT_ENGINE_CUBLASLT, NULL,
                            {SM80_PLUS, BF16_FP16, 0, 0, 0}, false, &gdt__cublaslt_engine.ops},
    [SLOT_GEMM_TEST_FAULT] = {GDT_FAMILY_GEMM, 90, "gemm.test_fault", GDT_ENGINE_TEST, NULL,
                              {ANY_ARCH, ALL_DTYPES, 0, 0, 0}, true, &gdt__test_fault_ops},
    [SLOT_GEMM_TEST_HANG] = {GDT_FAMILY_GEMM, 91, "gemm.test_hang", GDT_ENGINE_TEST, NULL,
                             {ANY_ARCH, ALL_DTYPES, 0, 0, 0}, true, &gdt__test_hang_ops},
    [SLOT_SDPA_FWD_NVRTC] = {GDT_FAMILY_SDPA_FWD, 0, "sdpa_fwd.nvrtc", GDT_ENGINE_NVRTC,
                             &gdt__tmpl_attn_fwd, {SM80_PLUS, BF16_FP16, 16, 256, 16}, false,
                             &gdt__nvrtc_ops},
    [SLOT_SDPA_BWD_NVRTC] = {GDT_FAMILY_SDPA_BWD, 0, "sdpa_bwd.nvrtc", GDT_ENGINE_NVRTC,
                             &gdt__tmpl_attn_bwd, {SM80_PLUS, BF16_FP16, 16, 256, 16}, false,
                             &gdt__nvrtc_ops},
    /* The handwritten TMA + wgmma attention forward (engines/hand/README.md):
     * sm_90a code, so sm90 alone; head dims 64 and 128; one fixed
     * configuration, no rows; offered by default since
     * tests/gpu/test_hand_attn verified it on the H200. */
    [SLOT_SDPA_FWD_HAND] = {GDT_FAMILY_SDPA_FWD, 10, "sdpa_fwd.hand", GDT_ENGINE_HAND, NULL,
                            {SM90_ONLY, BF16_FP16, 64, 128, 64}, false, &gdt__hand_attn_ops},
    /* The handwritten TMA + wgmma attention backward (engines/hand/README.md):
     * sm_90a code, so sm90 alone; head dims 64 and 128; one fixed
     * configuration, no rows; offered by default since
     * tests/gpu/test_hand_attn_bwd verified it on the H200. */
    [SLOT_SDPA_BWD_HAND] = {GDT_FAMILY_SDPA_BWD, 10, "sdpa_bwd.hand", GDT_ENGINE_HAND, NULL,
                            {SM90_ONLY, BF16_FP16, 64, 128, 64}, false, &gdt__hand_attn_bwd_ops},
};
_Static_assert(sizeof slots / sizeof slots[0] == SLOT_COUNT, "slot enum and manifest table disagree");

static const gdt_manifest default_manifest = {slots, SLOT_COUNT, false};

const gdt_manifest *gdt_manifest_default(void) { return &default_manifest; }

int64_t gdt_engine_id(gdt_family f, int slot)
{
    return GDT_ENGINE_ID_RESERVED_END + (int64_t)GDT_FAMILY_BLOCK * f + slot;
}

gdt_status gdt_engine_id_decode(int64_t id, bool *backend, gdt_family *f, int *slot, gdt_error *e)
{
    if (id >= 0 && id < GDT_ENGINE_ID_BACKEND_END) {
        *backend = true;
        return GDT_STATUS_OK;
    }
    if (id >= GDT_ENGINE_ID_BACKEND_END && id < GDT_ENGINE_ID_RESERVED_END)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "engine id %" PRId64 ": in the reserved band [%d, %d)", id,
                             GDT_ENGINE_ID_BACKEND_END, GDT_ENGINE_ID_RESERVED_END);
    int64_t top = GDT_ENGINE_ID_RESERVED_END + (int64_t)GDT_FAMILY_BLOCK * GDT_FAMILY_COUNT;
    if (id < 0 || id >= top)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "engine id %" PRId64 ": outside every family block (backend [0, %d), "
                             "gdtune [%d, %" PRId64 "))", id, GDT_ENGINE_ID_BACKEND_END,
                             GDT_ENGINE_ID_RESERVED_END, top);
    *backend = false;
    *f = (gdt_family)((id - GDT_ENGINE_ID_RESERVED_END) / GDT_FAMILY_BLOCK);
    *slot = (int)((id - GDT_ENGINE_ID_RESERVED_END) % GDT_FAMILY_BLOCK);
    return GDT_STATUS_OK;
}

int gdt_manifest_count(const gdt_manifest *m) { return (m ? m : gdt_manifest_default())->nslots; }

const gdt_engine_slot *gdt_manifest_slot(const gdt_manifest *m, int i)
{
    if (!m) m = gdt_manifest_default();
    return i >= 0 && i < m->nslots ? &m->slots[i] : NULL;
}

const char *gdt_engine_slot_name(const gdt_engine_slot *s) { return s ? s->name : NULL; }
gdt_family gdt_engine_slot_family(const gdt_engine_slot *s) { return s ? s->family : GDT_FAMILY_COUNT; }
gdt_engine_kind gdt_engine_slot_kind(const gdt_engine_slot *s) { return s ? s->kind : GDT_ENGINE_KIND_COUNT; }
int64_t gdt_engine_slot_id(const gdt_engine_slot *s) { return s ? gdt_engine_id(s->family, s->slot) : -1; }
const gdt_nvrtc_template *gdt__nvrtc_template_of(const gdt_engine_slot *s) { return s ? s->tmpl : NULL; }
const gdt_row_family *gdt__slot_rows(const gdt_engine_slot *s) { return s && s->tmpl ? s->tmpl->rows : NULL; }
const char *gdt_engine_slot_row_family(const gdt_engine_slot *s)
{
    const gdt_row_family *rf = gdt__slot_rows(s);
    return rf ? rf->name : NULL;
}

const gdt_engine_slot *gdt_manifest_find(const gdt_manifest *m, int64_t engine_id)
{
    if (!m) m = gdt_manifest_default();
    for (int i = 0; i < m->nslots; i++)
        if (gdt_engine_id(m->slots[i].family, m->slots[i].slot) == engine_id) return &m->slots[i];
    return NULL;
}

const gdt_engine_slot *gdt_manifest_find_name(const gdt_manifest *m, const char *name)
{
    if (!m) m = gdt_manifest_default();
    for (int i = 0; name && i < m->nslots; i++)
        if (m->slots[i].name && !strcmp(m->slots[i].name, name)) return &m->slots[i];
    return NULL;
}

static bool opt_in_enabled(const gdt_manifest *m)
{
    const char *env = getenv("GDTUNE_ENABLE_OPT_IN");
    return (m && m->enable_opt_in) || (env && !strcmp(env, "1"));
}

static bool head_dim_ok(const gdt_capability *c, const gdt_facts *f, char *why, size_t n)
{
    if (f->family == GDT_FAMILY_GEMM || c->head_dim_lo <= 0) return true;
    int64_t d = f->problem.u.sdpa.d;
    if (d >= c->head_dim_lo && d <= c->head_dim_hi &&
        (c->head_dim_multiple <= 0 || d % c->head_dim_multiple == 0))
        return true;
    snprintf(why, n, "head dim %" PRId64 " outside %d..%d (multiple of %d)", d, c->head_dim_lo,
             c->head_dim_hi, c->head_dim_multiple);
    return false;
}

bool gdt_slot_offered(const gdt_manifest *m, const gdt_engine_slot *s, const gdt_facts *f,
                      char *why, size_t nwhy)
{
    char tmp[256];
    if (!why || !nwhy) why = tmp, nwhy = sizeof tmp;
    why[0] = '\0';
    const gdt_capability *c = &s->cap;
    int arch = f->device.arch;
    if (s->family != f->family)
        return snprintf(why, nwhy, "%s serves %s, not %s", s->name, gdt_family_name(s->family),
                        gdt_family_name(f->family)), false;
    if (s->opt_in && !opt_in_enabled(m))
        return snprintf(why, nwhy, "%s is opt-in (set GDTUNE_ENABLE_OPT_IN=1)", s->name), false;
    if (arch < c->sm_lo || arch > c->sm_hi)
        return snprintf(why, nwhy, "%s: sm%d outside sm%d..sm%d", s->name, arch, c->sm_lo,
                        c->sm_hi), false;
    if (!((c->dtypes >> f->dtype) & 1u))
        return snprintf(why, nwhy, "%s: dtype %s not served", s->name, gdt_dtype_name(f->dtype)),
               false;
    char hd[160];
    if (!head_dim_ok(c, f, hd, sizeof hd))
        return snprintf(why, nwhy, "%s: %s", s->name, hd), false;
    return true;
}
