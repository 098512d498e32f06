/* The measured ceilings of a device and a problem's roofline against them,
 * for the report's "fraction of the measured ceiling".  Private to
 * reports/.  The ceilings are one table of constants per arch
 * (ceiling.c), each with where its figure comes from; docs/method.md,
 * "Fraction of the measured ceiling", says how they are used. */
#ifndef GDT_CEILING_H
#define GDT_CEILING_H

#include <stdbool.h>

#include "gdtune/gdtune.h"

typedef struct gdt_ceiling {
    int arch;            /* 90: sm90 */
    const char *device;  /* the device the figures were measured on */
    double dense_tflops; /* 16-bit (bf16, fp16) dense tensor-core rate */
    double hbm_tbps;     /* device memory bandwidth, 1e12 bytes/s */
} gdt_ceiling;

/* The arch's row; NULL when the table has none. */
const gdt_ceiling *gdt_ceiling_find(int arch);

/* One problem against one device's ceilings.  bytes is what the problem
 * must move at least: every operand of the family (gdt_family_operands)
 * read or written once, under its strides (gdt_operand_bytes); the
 * families carry no bytes function of their own. */
typedef struct gdt_roofline {
    double flops, bytes;
    double compute_us, memory_us; /* flops at the dense rate; bytes at HBM bandwidth */
    double floor_us;              /* the larger of the two: the bound that is lower */
    bool memory_bound;            /* memory_us > compute_us */
} gdt_roofline;

void gdt_roofline_of(const gdt_problem *p, const gdt_ceiling *c, gdt_roofline *out);

/* floor_us / time_us: 1 is the ceiling (0 when time_us is not > 0). */
double gdt_roofline_fraction(const gdt_roofline *r, double time_us);

#endif
