/* An operand's elements (gdt_verify.h): dtype loads and stores, the
 * element count, and the one walk between an operand's strided layout and
 * logical order that buffers.c, compare.c and reference.c share. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "gdt_verify.h"

/* ------------------------------------------------------------ dtypes */

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    if (exp == 0x1F)
        return bits_f32(sign | 0x7F800000 | (man << 13));
    if (exp == 0) /* zero or subnormal: man * 2^-24 */
        return sign ? -(float)man * 0x1p-24f : (float)man * 0x1p-24f;
    return bits_f32(sign | ((exp + 112) << 23) | (man << 13));
}

static uint16_t f32_to_f16(float f)
{
    uint32_t x = f32_bits(f), sign = (x >> 16) & 0x8000, ax = x & 0x7FFFFFFF;
    if (ax >= 0x7F800000)
        return (uint16_t)(sign | 0x7C00 | (ax > 0x7F800000 ? 0x200 : 0));
    if (ax >= 0x47800000) /* >= 65536: infinity */
        return (uint16_t)(sign | 0x7C00);
    if (ax < 0x38800000) { /* below 2^-14: subnormal, round(|f| * 2^24) to even */
        double m = (double)bits_f32(ax) * 0x1p24, fl = floor(m), r = m - fl;
        uint32_t q = (uint32_t)fl;
        if (r > 0.5 || (r == 0.5 && (q & 1)))
            q++;
        return (uint16_t)(sign | q);
    }
    uint32_t h = (((ax >> 23) - 112) << 10) | ((ax & 0x7FFFFF) >> 13), rem = ax & 0x1FFF;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        h++; /* a carry into the exponent is the correct rounding, up to infinity */
    return (uint16_t)(sign | h);
}

static uint16_t f32_to_bf16(float f)
{
    uint32_t x = f32_bits(f);
    if ((x & 0x7FFFFFFF) > 0x7F800000)
        return (uint16_t)((x >> 16) | 0x40);
    return (uint16_t)((x + 0x7FFF + ((x >> 16) & 1)) >> 16);
}

double gdt__dtype_load(gdt_dtype t, const void *base, int64_t i)
{
    switch (t) {
    case GDT_DTYPE_BF16: return bits_f32((uint32_t)((const uint16_t *)base)[i] << 16);
    case GDT_DTYPE_FP16: return f16_to_f32(((const uint16_t *)base)[i]);
    default: return ((const float *)base)[i];
    }
}

void gdt__dtype_store(gdt_dtype t, void *base, int64_t i, double v)
{
    switch (t) {
    case GDT_DTYPE_BF16: ((uint16_t *)base)[i] = f32_to_bf16((float)v); break;
    case GDT_DTYPE_FP16: ((uint16_t *)base)[i] = f32_to_f16((float)v); break;
    default: ((float *)base)[i] = (float)v; break;
    }
}

/* ---------------------------------------------------------- geometry */

/* The geometry itself is the family's (gdt__operand_geometry). */
size_t gdt__operand_count(const gdt_problem *p, gdt_operand_role r)
{
    int64_t d[4], s[4];
    if (!gdt__operand_geometry(p, r, d, s))
        return 0;
    return (size_t)(d[0] * d[1] * d[2] * d[3]);
}

/* Logical element i <-> the element at the strided offset, in logical
 * (row-major over the four dims) order; load reads raw into v, else stores
 * v into raw. */
static void walk(const gdt_problem *p, gdt_operand_role r, void *raw, double *v, bool load)
{
    int64_t d[4], s[4], i = 0;
    gdt_dtype t = gdt_operand_dtype(p, r);
    gdt__operand_geometry(p, r, d, s);
    for (int64_t a = 0; a < d[0]; a++)
        for (int64_t b = 0; b < d[1]; b++)
            for (int64_t c = 0; c < d[2]; c++)
                for (int64_t x = 0; x < d[3]; x++, i++) {
                    int64_t at = a * s[0] + b * s[1] + c * s[2] + x * s[3];
                    if (load)
                        v[i] = gdt__dtype_load(t, raw, at);
                    else
                        gdt__dtype_store(t, raw, at, v[i]);
                }
}

void gdt__operand_to_logical(const gdt_problem *p, gdt_operand_role r, const void *raw, double *v)
{
    walk(p, r, (void *)raw, v, true); /* the load path never writes raw */
}

void gdt__operand_from_logical(const gdt_problem *p, gdt_operand_role r, void *raw, const double *v)
{
    walk(p, r, raw, (double *)v, false); /* the store path never writes v */
}
