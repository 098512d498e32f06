/* The stream-K schedule (kernels/gdt_streamk.cuh) and its host sizes
 * (engines/gemm_tma.c) without a device.  For each case the kernel's walk
 * (every slot of gdt_sk_slots through gdt_sk_unit_of) is replayed: every K
 * iteration of every tile is covered exactly once; each CTA's K iterations
 * are within one of every other's; the whole tiles come first, a multiple
 * of the CTAs; the pieces of a tile are numbered 0, 1, ... in K order and
 * each knows their count; each CTA walks its segment's tiles last first;
 * the most pieces (the workspace's slots) is what
 * the walk saw and at most GDT_SK_MAX_PIECES.  Then the edge cases' plans
 * (fewer tiles than SMs, exactly full waves, k of one K tile, one tile)
 * and a plan's workspace, counters, grid and p.splits; the 32-bit bound
 * of its slots. */
#include <stdlib.h>
#include <string.h>

#include "gdt_gemm_tma.h"
#include "gdt_test.h"

typedef struct walk {
    int most_pieces; /* over the tiles the walk cut */
    int min_iters, max_iters;
} walk;

/* What the walk saw of one tile's pieces: each one's K range and count. */
typedef struct tile_seen {
    int pieces; /* as the units say */
    int kt0[GDT_SK_MAX_PIECES], kt1[GDT_SK_MAX_PIECES], times[GDT_SK_MAX_PIECES];
} tile_seen;

/* One unit: its K iterations counted into seen, its piece into t. */
static void cover(const gdt_sk *s, const gdt_sk_unit *x, int tiles, unsigned char *seen,
                  tile_seen *t)
{
    CHECK(x->tile >= 0 && x->tile < tiles);
    CHECK(x->kt0 >= 0 && x->kt0 < x->kt1 && x->kt1 <= s->ktiles);
    CHECK(x->piece >= 0 && x->piece < x->pieces && x->pieces <= GDT_SK_MAX_PIECES);
    if (x->tile < 0 || x->tile >= tiles || x->piece < 0 || x->piece >= GDT_SK_MAX_PIECES)
        return;
    t += x->tile;
    t->pieces = x->pieces;
    t->kt0[x->piece] = x->kt0, t->kt1[x->piece] = x->kt1, t->times[x->piece]++;
    for (int kt = x->kt0; kt < x->kt1 && kt >= 0 && kt < s->ktiles; kt++)
        seen[(size_t)x->tile * s->ktiles + kt]++;
}

/* A tile's pieces: each once, 0, 1, ... in K order, the first from K
 * tile 0, each from where the last ended, the last to the end of K. */
static void check_pieces(const gdt_sk *s, const tile_seen *t)
{
    int end = 0;
    for (int i = 0; i < t->pieces; i++) {
        CHECK_INT(t->times[i], ==, 1);
        CHECK_INT(t->kt0[i], ==, end);
        end = t->kt1[i];
    }
    CHECK_INT(end, ==, s->ktiles);
}

/* Replays the grid-strided walk of a grid of `grid` CTAs, returns what it
 * saw; checks coverage and piece numbering. */
static walk replay(const gdt_sk *s, int tiles, int grid)
{
    unsigned char *seen = calloc((size_t)tiles * s->ktiles, 1);
    tile_seen *t = calloc((size_t)tiles, sizeof *t);
    long long *iters = calloc((size_t)s->ctas, sizeof(long long));
    walk w = {1, 0, 0};
    CHECK(seen && t && iters);
    for (int b = 0; b < grid; b++)
        for (int u = b; u < gdt_sk_slots(s); u += grid) {
            gdt_sk_unit x;
            if (!gdt_sk_unit_of(s, u, &x))
                continue;
            cover(s, &x, tiles, seen, t);
            iters[u % s->ctas] += x.kt1 - x.kt0;
            if (x.tile < s->dp_tiles)
                CHECK_INT(x.pieces, ==, 1);
        }
    for (size_t i = 0; i < (size_t)tiles * s->ktiles; i++)
        if (seen[i] != 1) {
            fprintf(stderr, "tile %zu, K tile %zu covered %d times\n", i / s->ktiles,
                    i % s->ktiles, seen[i]);
            CHECK_INT(seen[i], ==, 1);
            break;
        }
    for (int i = 0; i < tiles; i++) {
        check_pieces(s, &t[i]);
        w.most_pieces = t[i].pieces > w.most_pieces ? t[i].pieces : w.most_pieces;
    }
    w.min_iters = w.max_iters = (int)iters[0];
    for (int v = 1; v < s->ctas; v++) {
        w.min_iters = iters[v] < w.min_iters ? (int)iters[v] : w.min_iters;
        w.max_iters = iters[v] > w.max_iters ? (int)iters[v] : w.max_iters;
    }
    free(seen), free(t), free(iters);
    return w;
}

/* Each CTA walks its segment's tiles last first: the tiles go down, every
 * unit but the CTA's last starts at K tile 0 and every one but its first
 * ends at the last K tile, so every CTA starts its segment at K tile 0
 * unless the segment lies inside one tile. */
static void check_reverse(const gdt_sk *s)
{
    int waves = s->dp_tiles / s->ctas;
    for (int v = 0; v < s->ctas; v++) {
        int n = gdt_sk_units(s, v);
        for (int j = waves; j < n; j++) {
            gdt_sk_unit x = gdt_sk_unit_at(s, v, j);
            if (j + 1 < n) {
                gdt_sk_unit next = gdt_sk_unit_at(s, v, j + 1);
                CHECK_INT(next.tile, <, x.tile);
                CHECK_INT(x.kt0, ==, 0);
            }
            if (j > waves)
                CHECK_INT(x.kt1, ==, s->ktiles);
        }
    }
}

/* The plan's invariants and its walk, on a grid of its CTAs and on a
 * smaller one (fewer SMs than planned: still every iteration once). */
static gdt_sk check_case(int tiles, int ktiles, int sms)
{
    gdt_sk s = gdt_sk_plan(tiles, ktiles, sms);
    CHECK_INT(s.ctas, >=, 1);
    CHECK_INT(s.ctas, <=, sms);
    CHECK_INT(s.dp_tiles % s.ctas, ==, 0);
    CHECK_INT(s.dp_tiles + s.sk_tiles, ==, tiles);
    walk w = replay(&s, tiles, s.ctas);
    if (w.max_iters - w.min_iters > 1)
        fprintf(stderr, "tiles %d, ktiles %d, sms %d: K iterations a CTA %d to %d\n", tiles,
                ktiles, sms, w.min_iters, w.max_iters);
    CHECK_INT(w.max_iters - w.min_iters, <=, 1);
    CHECK_INT(w.most_pieces, ==, gdt_sk_max_pieces(&s));
    CHECK_INT(w.most_pieces, <=, GDT_SK_MAX_PIECES);
    check_reverse(&s);
    replay(&s, tiles, s.ctas > 3 ? s.ctas / 3 : 1);
    return s;
}

static void test_walks(void)
{
    static const int cases[][3] = {
        {96, 64, 132},   /* m256 n6144, 128 x 128: 0.73 wave */
        {64, 64, 132},   /* the same in 128 x 192 */
        {512, 64, 132},  /* 4096^3 in 128 x 256: 3.88 waves */
        {1024, 64, 132}, /* 4096^3 in 128 x 128 */
        {512, 128, 132}, /* m2048 n8192 k8192, 128 x 256 */
        {128, 64, 132},  /* m512 n4096, 128 x 128 */
        {133, 64, 132},  /* one tile past a wave */
        {264, 64, 132},  /* exactly two waves */
        {96, 1, 132},    /* k of one K tile */
        {96, 2, 132},    {96, 3, 132}, {7, 5, 132}, {1, 64, 132}, {1, 1, 132},
        {200, 7, 16},    {3, 1000, 4}, {17, 33, 5}, {5, 4, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(cases[i][0], cases[i][1], cases[i][2]);
    for (int tiles = 1; tiles < 300; tiles += 7) /* a sweep around the waves */
        for (int k = 1; k < 70; k += 9)
            check_case(tiles, k, 132);
}

/* The plans of the edge cases, by their definition (the header's). */
static void test_edges(void)
{
    gdt_sk s = check_case(96, 64, 132); /* more than half a wave: every tile whole */
    CHECK_INT(s.dp_tiles, ==, 96);
    CHECK_INT(s.sk_tiles, ==, 0);
    CHECK_INT(s.ctas, ==, 96);
    CHECK_INT(gdt_sk_max_pieces(&s), ==, 1);
    s = check_case(128, 64, 132); /* m512 n4096: the same */
    CHECK_INT(s.dp_tiles, ==, 128);
    CHECK_INT(s.ctas, ==, 128);
    s = check_case(66, 64, 132); /* half a wave: each tile in two halves of K */
    CHECK_INT(s.dp_tiles, ==, 0);
    CHECK_INT(s.sk_tiles, ==, 66);
    CHECK_INT(s.ctas, ==, 132);
    CHECK_INT(s.base, ==, 32);
    CHECK_INT(s.rem, ==, 0);
    CHECK_INT(gdt_sk_max_pieces(&s), ==, 2);
    s = check_case(64, 65, 132); /* K odd: halves would not be equal, so whole */
    CHECK_INT(s.dp_tiles, ==, 64);
    CHECK_INT(s.ctas, ==, 64);
    CHECK_INT(gdt_sk_max_pieces(&s), ==, 1);
    s = check_case(264, 64, 132); /* full waves: no tile cut */
    CHECK_INT(s.dp_tiles, ==, 264);
    CHECK_INT(s.sk_tiles, ==, 0);
    CHECK_INT(gdt_sk_max_pieces(&s), ==, 1);
    s = check_case(512, 64, 132); /* the partial wave and one full one */
    CHECK_INT(s.dp_tiles, ==, 2 * 132);
    CHECK_INT(s.sk_tiles, ==, 512 - 264);
    CHECK_INT(gdt_sk_max_pieces(&s), <=, 2);
    s = check_case(96, 1, 132); /* k of one K tile: one CTA a tile */
    CHECK_INT(s.ctas, ==, 96);
    CHECK_INT(gdt_sk_max_pieces(&s), ==, 1);
    s = check_case(1, 64, 132); /* one tile: two runs of half its K */
    CHECK_INT(s.ctas, ==, 2);
    CHECK_INT(gdt_sk_max_pieces(&s), ==, 2);
}

/* sm90 facts of a GEMM shape on 132 SMs (the H200's and the H100 SXM's). */
static void facts_for(const char *shape, gdt_facts *f)
{
    gdt_test_facts(GDT_FAMILY_GEMM, shape, 90, f);
    f->device.sm_count = 132;
}

/* A plan's sizes: the workspace is the most pieces (from the walk) times
 * the padded fp32 C, none where no tile is cut; one counter a tile; the
 * grid the schedule's CTAs; p.splits the SMs the kernel plans on. */
static void check_sizes(const char *shape, int tile_n, int tiles, int ktiles, int64_t m,
                        int64_t n_padded)
{
    static gdt_gemm_tma t; /* static: its maps' alignment */
    gdt_facts f;
    gdt_gemm_tma_config c = {tile_n, 1, 4, 1, 1, 2, false, true, false, false};
    facts_for(shape, &f);
    gdt_sk s = gdt_sk_plan(tiles, ktiles, 132);
    walk w = replay(&s, tiles, s.ctas);
    size_t want = w.most_pieces > 1 ? (size_t)w.most_pieces * (size_t)m * (size_t)n_padded * 4 : 0;
    CHECK_INT(gdt__gemm_tma_workspace(&c, &f.problem.u.gemm, 132), ==, want);
    memset(&t, 0, sizeof t);
    gdt__gemm_tma_init(&t, "test", &f, &c);
    CHECK_INT(t.ws_bytes, ==, want);
    CHECK_INT(t.ncounters, ==, tiles);
    CHECK_INT(t.units, ==, s.ctas);
    CHECK_INT(t.params.splits, ==, 132);
    CHECK_INT(t.params.tiles_m * t.params.tiles_n, ==, tiles);
}

static void test_sizes(void)
{
    check_sizes("m=256,n=6144,k=4096", 128, 96, 64, 256, 6144);
    check_sizes("m=256,n=6144,k=4096", 192, 64, 64, 256, 6144);
    check_sizes("m=4096,n=4096,k=4096", 128, 1024, 64, 4096, 4096);
    check_sizes("m=264,n=4000,k=100", 192, 63, 2, 264, 21 * 192); /* tails in m, n, k */
    check_sizes("m=1056,n=4224,k=4096", 128, 9 * 33, 64, 1056, 4224);
    check_sizes("m=128,n=16896,k=4096", 128, 132, 64, 128, 16896); /* one full wave: none */
    check_sizes("m=100,n=100,k=64", 128, 1, 1, 100, 128);          /* one tile, one K tile */
}

/* Stream-K's slots (tiles and two a CTA) stay in 32 bits: past INT_MAX / 8
 * tiles it is declined, where the unsplit tile still runs. */
static void test_bound(void)
{
    gdt_facts f;
    char why[256] = "";
    gdt_gemm_tma_config sk = {128, 1, 4, 1, 1, 2, false, true, false, false}, plain = sk;
    plain.stream_k = false;
    facts_for("m=2097152,n=2097152,k=64", &f); /* 2^28 tiles of 128 x 128 */
    CHECK(!gdt__gemm_tma_sizes_ok(&f.problem.u.gemm, &sk, why, sizeof why));
    CHECK_CONTAINS(why, "the kernel indexes tiles and coordinates with 32-bit integers");
    CHECK(gdt__gemm_tma_sizes_ok(&f.problem.u.gemm, &plain, why, sizeof why));
    facts_for("m=2097024,n=2097152,k=64", &f); /* one tile row fewer */
    CHECK(gdt__gemm_tma_sizes_ok(&f.problem.u.gemm, &sk, why, sizeof why));
}

int main(void)
{
    test_walks();
    test_edges();
    test_sizes();
    test_bound();
    return gdt_test_result("test_streamk");
}
