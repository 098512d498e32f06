/* kernels/gdt_streamk.cuh: the stream-K (hybrid) schedule of the Hopper
 * GEMM's SPLIT_SK form (kernels/gdt_gemm_sm90.cuh), one copy for the
 * kernel (nvcc and NVRTC) and the host (engines/gemm_tma.c, C11), which
 * sizes the workspace and the grid from it and whose CPU tests
 * (tests/cpu/test_streamk.c) walk it.
 *
 * T output tiles of K K-iterations (K tiles of 64) each, `ctas` CTAs (the
 * SM count, or fewer: below).  Data-parallel first: dp whole tiles, a
 * multiple of ctas, tile t to CTA t % ctas.  The remaining sk = T - dp
 * tiles' sk * K iterations are laid end to end (tile dp + i's iteration
 * kt at i * K + kt) and cut into ctas contiguous segments, the first
 * iters % ctas of them one iteration longer, so every CTA runs the same
 * number of K iterations within one.  A segment's part of one tile is a
 * unit (a piece of the tile), walked last tile first (gdt_sk_unit_at): a
 * tile that lies in one segment is stored
 * as it is; one cut across segments has pieces 0, 1, ... in segment
 * order, which go through the workspace (slot = piece) and the tile's
 * counter, the last to count summing them in piece order.
 *
 * How many tiles are stream-K (gdt_sk_plan):
 *   T a multiple of the SMs: none, every wave is full (sk = 0);
 *   T more than the SMs: the partial wave and one full wave (CUTLASS's
 *     hybrid), so every CTA's segment is at least K: at most 2 pieces;
 *   T fewer than the SMs: where 2 T SMs are there and K is even, all of
 *     them, each tile in two halves of K on 2 T CTAs; else none, every
 *     tile whole on a CTA of its own (T CTAs).  Cutting every tile over
 *     all the SMs (runs of T K / S iterations, the cuts anywhere in K) cost
 *     1.40 to 1.48 times the data-parallel grid's time at 0.73 and 0.97 of
 *     a wave (H100; 1.42 on the H200 at m512 n4096, the code alone 3-5% at
 *     one tile a CTA: engines/hand/README.md, "Stream-K"). */
#ifndef GDT_STREAMK_CUH
#define GDT_STREAMK_CUH

#if defined(__CUDACC__)
#define GDT_SK_FN static __host__ __device__ __forceinline__
#else
#include <stdbool.h>
#define GDT_SK_FN static inline
#endif

/* The most pieces a tile has (above: 2): the workspace's slots. */
#define GDT_SK_MAX_PIECES 2

typedef struct gdt_sk {
    int ctas;     /* CTAs the schedule spreads over */
    int ktiles;   /* K iterations a tile */
    int dp_tiles; /* data-parallel whole tiles, tile t on CTA t % ctas */
    int sk_tiles; /* the stream-K tiles after them */
    int base, rem; /* segment length: base, plus one for the first rem CTAs */
} gdt_sk;

/* One CTA's unit: tile `tile` (0 .. T - 1), its K iterations [kt0, kt1),
 * piece `piece` of `pieces` (1: the whole tile in this unit). */
typedef struct gdt_sk_unit {
    int tile, kt0, kt1, piece, pieces;
} gdt_sk_unit;

/* The schedule of `tiles` tiles of `ktiles` iterations on at most `sms`
 * CTAs (ktiles and sms at least 1; no tile: one CTA, nothing to do). */
GDT_SK_FN gdt_sk gdt_sk_plan(int tiles, int ktiles, int sms)
{
    gdt_sk s;
    s.ktiles = ktiles;
    s.ctas = sms;
    if (tiles >= sms) {
        int waves = tiles / sms;
        s.dp_tiles = tiles % sms == 0 ? tiles : (waves - 1) * sms;
    } else if (tiles > 0) {
        bool halves = 2 * tiles <= sms && ktiles % 2 == 0;
        s.dp_tiles = halves ? 0 : tiles;
        s.ctas = halves ? 2 * tiles : tiles;
    } else {
        s.dp_tiles = 0;
        s.ctas = 1;
    }
    s.sk_tiles = tiles - s.dp_tiles;
    long long iters = (long long)s.sk_tiles * ktiles;
    s.base = (int)(iters / s.ctas);
    s.rem = (int)(iters % s.ctas);
    return s;
}

/* The first iteration of CTA v's segment (v = ctas: the end). */
GDT_SK_FN long long gdt_sk_start(const gdt_sk *s, int v)
{
    return (long long)v * s->base + (v < s->rem ? v : s->rem);
}

/* The CTA whose segment holds stream-K iteration g. */
GDT_SK_FN int gdt_sk_owner(const gdt_sk *s, long long g)
{
    long long big = (long long)s->rem * (s->base + 1);
    if (g < big)
        return (int)(g / (s->base + 1));
    return s->rem + (int)((g - big) / s->base);
}

/* Units of CTA v: its dp_tiles / ctas whole tiles, then one per tile its
 * segment meets, the segment's last tile first (below). */
GDT_SK_FN int gdt_sk_units(const gdt_sk *s, int v)
{
    long long g0 = gdt_sk_start(s, v), g1 = gdt_sk_start(s, v + 1);
    int sk = g1 > g0 ? (int)((g1 - 1) / s->ktiles - g0 / s->ktiles + 1) : 0;
    return s->dp_tiles / s->ctas + sk;
}

/* Unit j of CTA v (j < gdt_sk_units).  A segment's tiles are walked from
 * its last down to its first (CUTLASS's stream-K walks its blocks' tiles
 * the same way): every CTA then starts its segment at K tile 0 of a tile
 * and ends it at the last K tile of another, so the CTAs running at once
 * stay near the same K tiles, as the data-parallel tiles do, and can share
 * what they load in L2.  Walked first to last, CTA v began at K tile
 * about v of its first tile and the CTAs of one wave spread over all of K
 * (on an H100 at m512 n4096 k4096 stream-K took 1.68 times its
 * data-parallel twin's time walked forward, 1.48 walked so;
 * engines/hand/README.md, "Stream-K"). */
GDT_SK_FN gdt_sk_unit gdt_sk_unit_at(const gdt_sk *s, int v, int j)
{
    gdt_sk_unit u;
    int waves = s->dp_tiles / s->ctas, k = s->ktiles;
    if (j < waves) {
        u.tile = v + j * s->ctas, u.kt0 = 0, u.kt1 = k, u.piece = 0, u.pieces = 1;
        return u;
    }
    long long g0 = gdt_sk_start(s, v), g1 = gdt_sk_start(s, v + 1);
    int t = (int)((g1 - 1) / k) - (j - waves);
    long long t0 = (long long)t * k, t1 = t0 + k;
    int first = gdt_sk_owner(s, t0);
    u.tile = s->dp_tiles + t;
    u.kt0 = (int)((g0 > t0 ? g0 : t0) - t0);
    u.kt1 = (int)((g1 < t1 ? g1 : t1) - t0);
    u.piece = v - first;
    u.pieces = gdt_sk_owner(s, t1 - 1) - first + 1;
    return u;
}

/* The grid-strided walk of the kernel (work_at): slot u is CTA u % ctas's
 * unit u / ctas, so a grid of ctas CTAs runs each CTA's units in order;
 * slots past a CTA's units are empty.  Slots: ctas times a bound on any
 * CTA's units (whole tiles, then a segment of at most base + 1 iterations
 * meets at most base / ktiles + 2 tiles). */
GDT_SK_FN int gdt_sk_slots(const gdt_sk *s)
{
    return s->ctas * (s->dp_tiles / s->ctas + s->base / s->ktiles + 2);
}

/* Slot u's unit into *out; false for an empty slot. */
GDT_SK_FN bool gdt_sk_unit_of(const gdt_sk *s, int u, gdt_sk_unit *out)
{
    int v = u % s->ctas, j = u / s->ctas;
    if (j >= gdt_sk_units(s, v))
        return false;
    *out = gdt_sk_unit_at(s, v, j);
    return true;
}

/* The most pieces any tile of the schedule has (1: no partial). */
GDT_SK_FN int gdt_sk_max_pieces(const gdt_sk *s)
{
    int most = 1;
    for (int t = 0; t < s->sk_tiles; ++t) {
        long long t0 = (long long)t * s->ktiles;
        int n = gdt_sk_owner(s, t0 + s->ktiles - 1) - gdt_sk_owner(s, t0) + 1;
        most = n > most ? n : most;
    }
    return most;
}

#endif
