/* The plan vocabulary plan.c, the tables and the harness name plans by
 * (gdtune/gdtune.h): heuristic mode names, the side of each engine kind
 * and its name, the tag a plan entry carries in tables and journals, and
 * the tile area of the conservative pick. */
#include <stdint.h>
#include <string.h>

#include "gdt_engines.h"

/* ------------------------------------------------------------- modes */

static const char *const mode_names[] = {"A", "B", "FALLBACK", "OPENSOURCE"};
_Static_assert(sizeof mode_names / sizeof mode_names[0] == GDT_MODE_COUNT, "mode names and enum disagree");

const char *gdt_mode_name(gdt_mode m)
{
    return (unsigned)m < GDT_MODE_COUNT ? mode_names[m] : "UNKNOWN_MODE";
}

gdt_status gdt_mode_parse(const char *s, gdt_mode *m, gdt_error *e)
{
    for (int i = 0; s && i < GDT_MODE_COUNT; i++)
        if (!strcmp(s, mode_names[i])) {
            *m = (gdt_mode)i;
            return GDT_STATUS_OK;
        }
    return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                         "mode \"%s\": expected one of A, B, FALLBACK, OPENSOURCE", s ? s : "(null)");
}

/* ------------------------------------------------------------- sides */

static const gdt_plan_side kind_side[] = {
    [GDT_ENGINE_CUDNN] = GDT_PLAN_SIDE_BACKEND,   [GDT_ENGINE_NVRTC] = GDT_PLAN_SIDE_OURS,
    [GDT_ENGINE_HAND] = GDT_PLAN_SIDE_OURS,       [GDT_ENGINE_TEST] = GDT_PLAN_SIDE_OURS,
    [GDT_ENGINE_CUBLASLT] = GDT_PLAN_SIDE_LIBRARY,
};
_Static_assert(sizeof kind_side / sizeof kind_side[0] == GDT_ENGINE_KIND_COUNT, "one side per engine kind");

static const char *const side_names[] = {"OURS", "BACKEND", "LIBRARY"};
static const char *const side_labels[] = {"ours", "backend", "library"};
_Static_assert(sizeof side_names / sizeof side_names[0] == GDT_PLAN_SIDE_COUNT, "one name per side");
_Static_assert(sizeof side_labels / sizeof side_labels[0] == GDT_PLAN_SIDE_COUNT, "one label per side");

gdt_plan_side gdt_engine_kind_side(gdt_engine_kind k)
{
    return (unsigned)k < GDT_ENGINE_KIND_COUNT ? kind_side[k] : GDT_PLAN_SIDE_OURS;
}

gdt_engine_kind gdt_engine_kind_of(const gdt_manifest *m, int64_t engine_id)
{
    if (engine_id >= 0 && engine_id < GDT_ENGINE_ID_BACKEND_END) return GDT_ENGINE_CUDNN;
    const gdt_engine_slot *s = gdt_manifest_find(m, engine_id);
    return s ? s->kind : GDT_ENGINE_KIND_COUNT;
}

gdt_plan_side gdt_engine_side(const gdt_manifest *m, int64_t engine_id)
{
    return gdt_engine_kind_side(gdt_engine_kind_of(m, engine_id));
}

const char *gdt_plan_side_name(gdt_plan_side s)
{
    return (unsigned)s < GDT_PLAN_SIDE_COUNT ? side_names[s] : "UNKNOWN_SIDE";
}

const char *gdt_plan_side_label(gdt_plan_side s)
{
    return (unsigned)s < GDT_PLAN_SIDE_COUNT ? side_labels[s] : "unknown_side";
}

const char *gdt_plan_entry_tag(const gdt_plan_entry *x)
{
    if (!x->is_backend) return gdt_plan_side_name(gdt_engine_side(NULL, x->id.engine_id));
    return (unsigned)x->mode < GDT_MODE_COUNT ? gdt_mode_name(x->mode) : "KNOB";
}

/* ------------------------------------------------------- conservative */

int64_t gdt__plan_tile_area(const gdt_plan_id *id)
{
    int64_t m = gdt_plan_id_knob(id, GDT_KNOB_TILE_M, -1), n = gdt_plan_id_knob(id, GDT_KNOB_TILE_N, -1);
    if (gdt_plan_id_knob(id, GDT_KNOB_SWAP_AB, 0) == 1)
        return INT64_MAX;
    return (m > 0 && n > 0) ? m * n : INT64_MAX;
}
