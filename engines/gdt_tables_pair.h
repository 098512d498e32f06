/* A table pair published as one step (tables/README.md "Publishing a
 * pair").  <dir>/<family>.pair.json, the pair's manifest, names the sha256
 * of <family>.tuning.json and <family>.placement.json.  The writer, holding
 * an exclusive flock(2) on the folder: stages both files as temporaries,
 * writes the manifest naming the new digests and the temporaries that hold
 * them (one rename: the commit point), renames both files into place,
 * writes the manifest again without the temporaries, and removes stale
 * temporaries of those names an earlier gdtune left.  A loader that finds
 * a file whose digest is not the manifest's reads the staged temporary
 * that has it instead, so a publish killed anywhere leaves the old pair or
 * the new one, never a mix.  Without a manifest (tables written before it,
 * or by hand) the two files are read as they are.  Private to libgdtune
 * and the harness. */
#ifndef GDT_TABLES_PAIR_H
#define GDT_TABLES_PAIR_H

#include <stddef.h>

#include "gdtune/gdtune.h"

#define GDT_PAIR_SCHEMA "gdtune.pair/1"

/* Publishes the two texts (already checked by the caller) as the pair of
 * family f in dir (created if absent). */
gdt_status gdt__pair_publish(const char *dir, gdt_family f, const char *tuning, size_t ntuning,
                             const char *placement, size_t nplacement, gdt_error *e);

/* The files a loader reads for family f in dir: tp and pp (cap bytes
 * each) get the plain names, or a staged temporary where the manifest says
 * a killed publish left the pair's file there.  A manifest that does not
 * parse, names another family or a temporary gdtune would not have made is
 * BAD_INPUT naming it. */
gdt_status gdt__pair_resolve(const char *dir, gdt_family f, char *tp, char *pp, size_t cap, gdt_error *e);

#endif
