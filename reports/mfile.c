/* The in-memory report file (gdt_mfile.h). */
#include <limits.h>
#include <stdlib.h>

#include "gdt_mfile.h"
#include "gdt_util.h"

gdt_status gdt_mfile_open(gdt_mfile *m, const char *dir, const char *name, gdt_error *e)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    return m->f ? GDT_STATUS_OK
                : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s/%s: out of memory", dir, name);
}

gdt_status gdt_mfile_save(gdt_mfile *m, const char *dir, const char *name, gdt_error *e)
{
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gdt_status s = fclose(m->f) == 0 ? gdt_file_write_atomic(path, m->buf, m->len, e)
                                     : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", path);
    free(m->buf);
    return s;
}

void gdt_mfile_discard(gdt_mfile *m)
{
    fclose(m->f);
    free(m->buf);
}
