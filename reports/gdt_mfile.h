/* A report file built in memory, then published with gdt_file_write_atomic:
 * never half-written, never written through a symlink left in its place.
 * Used by the reports (reports/) and gdtune report (cli/cli_report.c). */
#ifndef GDT_MFILE_H
#define GDT_MFILE_H

#include <stddef.h>
#include <stdio.h>

#include "gdtune/gdtune.h"

typedef struct gdt_mfile {
    FILE *f; /* write the file's text here */
    char *buf;
    size_t len;
} gdt_mfile;

/* Opens m for dir/name (which it names when out of memory). */
gdt_status gdt_mfile_open(gdt_mfile *m, const char *dir, const char *name, gdt_error *e);
/* Writes m's text to dir/name atomically and releases m, in every case. */
gdt_status gdt_mfile_save(gdt_mfile *m, const char *dir, const char *name, gdt_error *e);
/* Releases m without writing it. */
void gdt_mfile_discard(gdt_mfile *m);

#endif
