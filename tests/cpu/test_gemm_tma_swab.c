/* The swap-AB host side of the Hopper GEMM (engines/gemm_tma.c) without a
 * device: the kernel runs C^T = B^T . A^T, so its first map (the wgmma's A
 * side) is B's, 64 rows of N a consumer a box when B is K-major, its second
 * A's, BM rows of M a box, and C's map stores BM rows of C a box; the
 * dims and byte strides are the operands' own in either layout; the
 * kernel's parameters are the swapped problem's (m and n exchanged, tiles
 * of 64 consumers by BM), and so are its work units, workspace and
 * counters; one consumer is 256 threads.  The configurations without
 * swap-AB keep their maps (A first, C in 64 x 64 boxes). */
#include <string.h>

#include "gdt_gemm_tma.h"
#include "gdt_test.h"

static const gdt_gemm_tma_config swab16 = {16, 2, 8, 1, 1, 1, true, false, false, false};  /* gemm.hand 17 */
static const gdt_gemm_tma_config swab64x2 = {64, 4, 6, 1, 1, 2, true, false, false, false}; /* gemm.hand 18 */
static const gdt_gemm_tma_config plain = {64, 2, 8, 1, 1, 2, false, false, false, false};  /* gemm.hand 9 */

static void check_map(const gdt_gemm_tma_map *g, const char *what, const long long want[7])
{
    const long long got[7] = {(long long)g->dims[0],    (long long)g->dims[1],
                              (long long)g->dims[2],    (long long)g->strides[0],
                              (long long)g->strides[1], (long long)g->box[0],
                              (long long)g->box[1]};
    for (int i = 0; i < 7; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "%s: field %d (dims 0-2, strides 0-1, box 0-1)\n", what, i);
            CHECK_INT(got[i], ==, want[i]);
        }
}

static bool layout(const char *shape, const gdt_gemm_tma_config *c, gdt_gemm_tma_map geo[3],
                   char *why, size_t n)
{
    gdt_facts f;
    gdt_test_facts(GDT_FAMILY_GEMM, shape, 90, &f);
    return gdt__gemm_tma_layout(&f.problem.u.gemm, c, geo, why, n);
}

/* Row-major A and B (B MN-major: N has unit stride), batched, odd sizes. */
static void test_maps_row_major(void)
{
    gdt_gemm_tma_map geo[3];
    char why[256] = "";
    CHECK(layout("batch=2,m=7,n=136,k=200", &swab16, geo, why, sizeof why));
    /* B[b, k, n]: n unit, k stride 136, batch 200 * 136: 64 x 64 boxes. */
    check_map(&geo[0], "swap: B", (const long long[]){136, 200, 2, 272, 54400, 64, 64});
    /* A[b, m, k]: K-major, m stride 200, batch 7 * 200: boxes of 16 rows of M. */
    check_map(&geo[1], "swap: A", (const long long[]){200, 7, 2, 400, 2800, 64, 16});
    /* C[b, m, n] row-major: 16 rows of 64 columns a store. */
    check_map(&geo[2], "swap: C", (const long long[]){136, 7, 2, 272, 1904, 64, 16});
    CHECK(layout("batch=2,m=7,n=136,k=200", &plain, geo, why, sizeof why));
    check_map(&geo[0], "plain: A", (const long long[]){200, 7, 2, 400, 2800, 64, 128});
    check_map(&geo[1], "plain: B", (const long long[]){136, 200, 2, 272, 54400, 64, 64});
    check_map(&geo[2], "plain: C", (const long long[]){136, 7, 2, 272, 1904, 64, 64});
}

/* Column-major B is K-major: the wgmma's A side in boxes of 64 rows of N a
 * consumer (128 with two); column-major A is MN-major, 64 x 64 boxes,
 * which only a 64-row tile of M takes. */
static void test_maps_col_major(void)
{
    gdt_gemm_tma_map geo[3];
    char why[256] = "";
    CHECK(layout("m=64,n=200,k=136,a=col,b=col", &swab64x2, geo, why, sizeof why));
    if (why[0])
        fprintf(stderr, "%s\n", why);
    /* B[k, n] column-major: k unit, n stride 136. */
    check_map(&geo[0], "swap: B", (const long long[]){136, 200, 1, 272, 54400, 64, 128});
    /* A[m, k] column-major: m unit, k stride 64. */
    check_map(&geo[1], "swap: A", (const long long[]){64, 136, 1, 128, 17408, 64, 64});
    check_map(&geo[2], "swap: C", (const long long[]){200, 64, 1, 400, 25600, 64, 64});
    CHECK(!layout("m=64,n=200,k=136,a=col,b=col", &swab16, geo, why, sizeof why));
    CHECK_STR(why, "operand A: MN-major (unit stride along M) under swap-AB takes a tile of 64 "
                   "rows of M (its boxes are 64 columns wide), got 16");
    /* A stride TMA cannot take is named by its operand, not its map's place. */
    CHECK(!layout("m=8,n=100,k=64", &swab16, geo, why, sizeof why));
    CHECK_STR(why, "operand B: leading stride of 200 bytes is not a multiple of 16 below 2^40, "
                   "as TMA needs");
    CHECK(!layout("m=12,n=64,k=64,a=col", &swab64x2, geo, why, sizeof why));
    CHECK_STR(why, "operand A: leading stride of 24 bytes is not a multiple of 16 below 2^40, "
                   "as TMA needs");
}

/* The kernel's problem: m and n exchanged, tiles of 64 consumers rows of N
 * by BM of M; units, workspace and counters of C^T's tiles. */
static void test_params(void)
{
    gdt_facts f;
    gdt_gemm_tma t;
    int64_t m = 0, n = 0;
    gdt_test_facts(GDT_FAMILY_GEMM, "batch=3,m=33,n=4104,k=4096", 90, &f);
    gdt__gemm_tma_extents(&swab16, &f.problem.u.gemm, &m, &n);
    CHECK_INT(m, ==, 4104);
    CHECK_INT(n, ==, 33);
    memset(&t, 0, sizeof t);
    gdt__gemm_tma_init(&t, "test", &f, &swab16);
    CHECK_INT(t.params.m, ==, 4104);
    CHECK_INT(t.params.n, ==, 33);
    CHECK_INT(t.params.k, ==, 4096);
    CHECK_INT(t.params.batch, ==, 3);
    CHECK_INT(t.params.tiles_m, ==, 65); /* 4104 / 64, one consumer */
    CHECK_INT(t.params.tiles_n, ==, 3);  /* 33 / 16 */
    CHECK_INT(t.params.splits, ==, 2);
    CHECK_INT(t.units, ==, 65 * 3 * 3 * 2);
    CHECK_INT((long long)t.ncounters, ==, 65 * 3 * 3);
    CHECK_INT((long long)t.ws_bytes, ==, 2LL * 3 * 4104 * 48 * 4);
    gdt__gemm_tma_init(&t, "test", &f, &swab64x2);
    CHECK_INT(t.params.tiles_m, ==, 33); /* 4104 / 128, two consumers */
    CHECK_INT(t.params.tiles_n, ==, 1);
    CHECK_INT(t.units, ==, 33 * 3 * 4);
    CHECK_INT((long long)t.ws_bytes, ==, 4LL * 3 * 4104 * 64 * 4);
    gdt__gemm_tma_init(&t, "test", &f, &plain);
    CHECK_INT(t.params.m, ==, 33);
    CHECK_INT(t.params.tiles_m, ==, 1);
    CHECK_INT(t.params.tiles_n, ==, 65);
    CHECK_INT((long long)t.ws_bytes, ==, 2LL * 3 * 33 * 4160 * 4);
}

/* Threads and shared memory: one consumer is two warpgroups and two
 * output blocks; two are three and four. */
static void test_threads_smem(void)
{
    CHECK_INT(gdt__gemm_tma_threads(&swab16), ==, 256);
    CHECK_INT(gdt__gemm_tma_threads(&swab64x2), ==, 384);
    CHECK_INT(gdt__gemm_tma_threads(&plain), ==, 384);
    CHECK_INT(gdt__gemm_tma_smem_bytes(&swab16), ==, 8 * (64 + 16) * 128 + 2 * 8192 + 16 * 8 + 16 + 1024);
    CHECK_INT(gdt__gemm_tma_smem_bytes(&swab64x2), ==, 6 * (128 + 64) * 128 + 4 * 8192 + 16 * 6 + 16 + 1024);
    CHECK_INT(gdt__gemm_tma_smem_bytes(&plain), ==, 8 * (128 + 64) * 128 + 4 * 8192 + 16 * 8 + 16 + 1024);
}

int main(void)
{
    test_maps_row_major();
    test_maps_col_major();
    test_params();
    test_threads_smem();
    return gdt_test_result("test_gemm_tma_swab");
}
