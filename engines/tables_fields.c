/* A table cell's record, as the writer, the reader and the lookup share it:
 * a field as one integer, the facts this release derives for a problem,
 * the shard group and metric that order a placement, a cell's key order. */
#include <stdint.h>
#include <string.h>

#include "gdt_tables_impl.h"

const char *gdt__table_schema(gdt__table_kind k)
{
    return k == GDT__TABLE_TUNING ? GDT_TABLE_SCHEMA_TUNING : GDT_TABLE_SCHEMA_PLACEMENT;
}

void gdt__group_of(const gdt_facts *f, gdt__shard_group *g)
{
    memset(g, 0, sizeof *g);
    gdt__family_desc(f->family)->group(f, g->v);
}

int gdt__group_cmp(const gdt__shard_group *a, const gdt__shard_group *b)
{
    for (int i = 0; i < GDT__GROUP_MAX; i++)
        if (a->v[i] != b->v[i]) return a->v[i] < b->v[i] ? -1 : 1;
    return 0;
}

bool gdt__group_equal(const gdt__shard_group *a, const gdt__shard_group *b) { return gdt__group_cmp(a, b) == 0; }

double gdt__metric_of(const gdt_facts *f) { return gdt__family_desc(f->family)->metric(f); }

/* INT, DTYPE, NAME and BOOL fields as one integer: how a shard group holds
 * them, and how the writer and the reader treat the four alike. */
int64_t gdt__scalar_load(const gdt__field *fd, const void *base)
{
    const char *at = (const char *)base + fd->off;
    switch (fd->kind) {
    case GDT__FIELD_INT: return *(const int64_t *)at;
    case GDT__FIELD_DTYPE: return *(const gdt_dtype *)at;
    case GDT__FIELD_NAME: return *(const int *)at;
    case GDT__FIELD_BOOL: return *(const bool *)at;
    default: return 0; /* INTS and EXACT are not scalars */
    }
}

void gdt__scalar_store(const gdt__field *fd, void *base, int64_t v)
{
    char *at = (char *)base + fd->off;
    switch (fd->kind) {
    case GDT__FIELD_INT: *(int64_t *)at = v; break;
    case GDT__FIELD_DTYPE: *(gdt_dtype *)at = (gdt_dtype)v; break;
    case GDT__FIELD_NAME: *(int *)at = (int)v; break;
    case GDT__FIELD_BOOL: *(bool *)at = v != 0; break;
    default: break;
    }
}

void gdt__facts_for(const gdt_problem *p, int arch, gdt_facts *f)
{
    gdt_device_props dev;
    if (!gdt_arch_limits(arch, &dev)) {
        memset(&dev, 0, sizeof dev);
        dev.arch = arch;
    }
    gdt_facts_analyze(p, &dev, f);
}

const char *const gdt__lead_kind_keys[GDT__LEAD_KINDS] = {"ours", "block"};
_Static_assert(GDT__LEAD_KINDS == 2, "gdt__lead_kind_keys names each kind of lead");

int gdt__key_cmp(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}
