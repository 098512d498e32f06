/* Status names, messages and exit classes: all generated from the one
 * X-macro in gdtune.h, so a new status cannot miss a name. */
#include <stdarg.h>
#include <stdio.h>

#include "gdt_util.h"
#include "gdtune/gdtune.h"

#define GDT__STATUS_ROW(name, cls, msg) {#name, msg, cls},
static const struct {
    const char *name, *message;
    int exit_code;
} status_table[] = {GDT_STATUS_MAP(GDT__STATUS_ROW)};
#undef GDT__STATUS_ROW

_Static_assert(sizeof status_table / sizeof status_table[0] == GDT_STATUS_COUNT,
               "status table and enum disagree");

static bool valid(gdt_status s) { return (unsigned)s < (unsigned)GDT_STATUS_COUNT; }

const char *gdt_status_name(gdt_status s)
{
    return valid(s) ? status_table[s].name : "UNKNOWN_STATUS";
}

const char *gdt_status_message(gdt_status s)
{
    return valid(s) ? status_table[s].message : "unknown status";
}

int gdt_status_exit_code(gdt_status s) { return valid(s) ? status_table[s].exit_code : 1; }

gdt_status gdt_error_set(gdt_error *e, gdt_status s, const char *fmt, ...)
{
    if (!e) return s;
    e->status = s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return s;
}

gdt_status gdt_error_prefix(gdt_error *e, gdt_status s, const char *prefix)
{
    char msg[GDT_ERROR_MAX];
    snprintf(msg, sizeof msg, "%s", e ? e->msg : "");
    return gdt_error_set(e, s, "%s%s", prefix, msg);
}

void gdt_error_clear(gdt_error *e)
{
    if (!e) return;
    e->status = GDT_STATUS_OK;
    e->msg[0] = '\0';
}
