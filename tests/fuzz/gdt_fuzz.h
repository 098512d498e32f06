/* What every fuzz target shares: the outcome check after a loader returns,
 * a NUL-terminated copy for loaders that take a C string, and a scratch
 * file for loaders that take a path.  Compiled into each libFuzzer binary
 * (tests/fuzz/CMakeLists.txt) and each regression replay (tests/CMakeLists.txt). */
#ifndef GDT_FUZZ_H
#define GDT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "gdtune/gdtune.h"

/* Calls to gdt_fuzz_outcome that saw GDT_STATUS_OK since the replay driver
 * last reset it: an input named refuse-* must leave it at 0. */
extern int gdt_fuzz_accepted;
/* The first refusal's message since that reset ("" when none): the replay
 * log shows why each input was refused. */
extern char gdt_fuzz_refusal[256];

/* Aborts (a crash libFuzzer saves) when a loader misbehaves: a refusal
 * without a message, or a BAD_INPUT message that does not name `name` (every
 * loader error names its file).  name NULL: the message need not name one. */
void gdt_fuzz_outcome(gdt_status s, const gdt_error *e, const char *name);

/* A malloc'd NUL-terminated copy of the input. */
char *gdt_fuzz_text(const uint8_t *data, size_t size);

/* Writes the bytes to <scratch>/<leaf> (leaf may name folders, made here)
 * and returns that path (static storage).  The scratch directory is made
 * once per process under $TMPDIR or /dev/shm and removed at exit. */
const char *gdt_fuzz_file(const char *leaf, const void *data, size_t size);

/* The scratch directory itself. */
const char *gdt_fuzz_dir(void);

#endif
