/* engines/gdt_family_sdpa.h — what the sdpa families' module offers beside
 * their descriptors (gdt_family.h).  Private. */
#ifndef GDT_FAMILY_SDPA_H
#define GDT_FAMILY_SDPA_H

#include <stdint.h>

#include "gdtune/gdtune.h"

/* The share of an SDPA problem's scores its mask leaves, over the rows
 * (tile_m <= 0: the flops) or as TILE_M-row query tiles walk it (the time
 * model's steps); 1 without a mask. */
double gdt__sdpa_mask_fraction(const gdt_sdpa_desc *s, int64_t tile_m);

#endif
