/* gemm.hand's fixed configurations without a device: each one's name is
 * the knob set it prints, parses back to the same plan identity and is
 * accepted by check_support; the knobless name means the first; a knob set
 * next to them (another split, a missing knob, an extra one) is declined
 * with every fixed name in the message; every configuration declines a
 * stride TMA cannot map; and the untimed order puts the smallest makespan (waves of
 * tiles times splits, times a unit's K tiles plus two a split, one where
 * the splits are summed in a cluster) first, a cluster configuration along
 * N counting its ghost tile past N when the tile columns are odd. */
#include "gdt_engines.h"
#include "gdt_test.h"
#include "gdtune/gdtune.h"
#include "hand/gdt_hand.h"

#define HAND_ID 20010

static const char *const names[GDT_HAND_GEMM_CONFIGS] = {
    "gemm.hand[GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]",
    "gemm.hand[GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
    "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
    "gemm.hand[GROUP_M=8, SPLIT_K=4, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
    "gemm.hand[GROUP_M=8, SPLIT_K=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
    "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=192]",
    "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=64]",
    "gemm.hand[GROUP_M=8, STAGES=6, TILEK=64, TILE_M=128, TILE_N=128]",
    "gemm.hand[GROUP_M=8, SPLIT_K=4, STAGES=6, TILEK=64, TILE_M=128, TILE_N=128]",
    "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64]",
    "gemm.hand[CLUSTER_SHAPE=5, GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]",
    "gemm.hand[GROUP_M=8, REDUCTION_MODE=1, SPLIT_K=2, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64]",
    "gemm.hand[GROUP_M=8, STAGES=3, TILEK=64, TILE_M=128, TILE_N=256]",
    "gemm.hand[GROUP_M=8, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64]",
    "gemm.hand[GROUP_M=8, STAGES=8, SWAP_AB=1, TILEK=64, TILE_M=64, TILE_N=64]",
    "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=8, SWAP_AB=1, TILEK=64, TILE_M=64, TILE_N=64]",
    "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=8, SWAP_AB=1, TILEK=64, TILE_M=32, TILE_N=64]",
    "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=8, SWAP_AB=1, TILEK=64, TILE_M=16, TILE_N=64]",
    "gemm.hand[GROUP_M=8, SPLIT_K=4, STAGES=6, SWAP_AB=1, TILEK=64, TILE_M=64, TILE_N=128]",
    "gemm.hand[GROUP_M=8, REDUCTION_MODE=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
    "gemm.hand[GROUP_M=8, REDUCTION_MODE=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=192]",
    "gemm.hand[GROUP_M=8, PINGPONG=1, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
    "gemm.hand[GROUP_M=8, PINGPONG=1, STAGES=6, TILEK=64, TILE_M=128, TILE_N=128]",
};

static const gdt_engine_slot *hand_slot(void)
{
    return gdt_manifest_find_name(gdt_manifest_default(), "gemm.hand");
}

static void facts_for(const char *shape, gdt_facts *f)
{
    gdt_problem p;
    gdt_device_props dev;
    gdt_error e = {0};
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, shape, &p, &e), ==, GDT_STATUS_OK);
    CHECK(gdt_arch_limits(90, &dev));
    gdt_facts_analyze(&p, &dev, f);
}

static gdt_status check(const char *shape, const gdt_plan_id *id, gdt_error *e)
{
    gdt_facts f;
    facts_for(shape, &f);
    return hand_slot()->ops->check_support(hand_slot(), &f, id, e);
}

/* Name, parse, identity and acceptance, for every configuration. */
static void test_round_trip(void)
{
    for (int i = 0; i < GDT_HAND_GEMM_CONFIGS; i++) {
        gdt_plan_id id, parsed;
        char name[256];
        gdt_error e = {0};
        gdt__hand_gemm_config_plan(i, HAND_ID, &id);
        gdt_plan_id_format(&id, name, sizeof name);
        CHECK_STR(name, names[i]);
        CHECK_INT(gdt_plan_id_parse(name, &parsed, &e), ==, GDT_STATUS_OK);
        CHECK(gdt_plan_id_equal(&parsed, &id));
        CHECK_INT(check("m=128,n=4096,k=4096", &parsed, &e), ==, GDT_STATUS_OK);
        CHECK_INT(check("batch=2,m=7,n=136,k=8200,b=col,dtype=fp16", &parsed, &e), ==,
                  GDT_STATUS_OK);
        if (e.msg[0])
            fprintf(stderr, "%s: %s\n", names[i], e.msg);
        CHECK_INT(check("m=128,n=4096,k=4100", &parsed, &e), ==, GDT_STATUS_NOT_SUPPORTED);
        CHECK_STR(e.msg, "gemm.hand: operand A: leading stride of 8200 bytes is not a multiple of "
                         "16 below 2^40, as TMA needs");
    }
    gdt_plan_id first;
    char name[256];
    gdt__hand_gemm_plan(HAND_ID, &first);
    gdt_plan_id_format(&first, name, sizeof name);
    CHECK_STR(name, names[0]);
}

/* Knob sets next to the fixed ones are declined, naming all of them. */
static void test_decline(void)
{
    static const char *const near[] = {
        "gemm.hand[GROUP_M=8, SPLIT_K=3, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, SPLIT_K=4, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]",
        "gemm.hand[GROUP_M=8, SPLIT_K=1, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[SPLIT_K=4, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128, WARPS_M=2]",
        "gemm.hand[GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=192]",
        "gemm.hand[GROUP_M=8, SPLIT_K=4, STAGES=4, TILEK=64, TILE_M=128, TILE_N=192]",
        "gemm.hand[GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[GROUP_M=8, SPLIT_K=4, STAGES=4, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=96]",
        "gemm.hand[GROUP_M=8, STAGES=6, TILEK=64, TILE_M=128, TILE_N=256]",
        "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=6, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, STAGES=8, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=6, TILEK=64, TILE_M=128, TILE_N=64]",
        /* the cluster knob: another shape id, or on a tile that has none */
        "gemm.hand[CLUSTER_SHAPE=3, GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]",
        "gemm.hand[CLUSTER_SHAPE=8, GROUP_M=8, SPLIT_K=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[CLUSTER_SHAPE=5, GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[CLUSTER_SHAPE=5, GROUP_M=8, SPLIT_K=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]",
        "gemm.hand[CLUSTER_SHAPE=5, GROUP_M=8, STAGES=6, TILEK=64, TILE_M=128, TILE_N=256]",
        /* the reduction knob: another value, without a split, on another
         * split count, tile or ring, or beside a cluster along N */
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=2, SPLIT_K=2, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=1, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=1, SPLIT_K=4, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=1, SPLIT_K=2, STAGES=8, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=1, SPLIT_K=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[CLUSTER_SHAPE=5, GROUP_M=8, REDUCTION_MODE=1, SPLIT_K=2, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64]",
        /* next to the two row twins (12, 13): another ring, a split, a
         * cluster, another tile */
        "gemm.hand[GROUP_M=8, STAGES=2, TILEK=64, TILE_M=128, TILE_N=256]",
        "gemm.hand[GROUP_M=8, STAGES=3, TILEK=64, TILE_M=128, TILE_N=192]",
        "gemm.hand[CLUSTER_SHAPE=5, GROUP_M=8, STAGES=3, TILEK=64, TILE_M=128, TILE_N=256]",
        "gemm.hand[GROUP_M=8, STAGES=6, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[GROUP_M=8, SPLIT_K=4, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[CLUSTER_SHAPE=5, GROUP_M=8, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64]",
        /* next to the swap-AB ones (14 to 18): another value, tile, split,
         * ring, a cluster, and a tile no swap entry has */
        "gemm.hand[GROUP_M=8, STAGES=8, SWAP_AB=2, TILEK=64, TILE_M=64, TILE_N=64]",
        "gemm.hand[GROUP_M=8, STAGES=8, SWAP_AB=0, TILEK=64, TILE_M=64, TILE_N=64]",
        "gemm.hand[GROUP_M=8, STAGES=8, SWAP_AB=1, TILEK=64, TILE_M=32, TILE_N=64]",
        "gemm.hand[GROUP_M=8, SPLIT_K=4, STAGES=8, SWAP_AB=1, TILEK=64, TILE_M=16, TILE_N=64]",
        "gemm.hand[GROUP_M=8, SPLIT_K=2, STAGES=6, SWAP_AB=1, TILEK=64, TILE_M=64, TILE_N=64]",
        "gemm.hand[CLUSTER_SHAPE=5, GROUP_M=8, STAGES=8, SWAP_AB=1, TILEK=64, TILE_M=64, TILE_N=64]",
        "gemm.hand[GROUP_M=8, STAGES=4, SWAP_AB=1, TILEK=64, TILE_M=128, TILE_N=256]",
        "gemm.hand[GROUP_M=8, SPLIT_K=4, STAGES=6, SWAP_AB=1, TILEK=64, TILE_M=32, TILE_N=128]",
        /* next to the stream-K ones (19, 20): another value, a split,
         * another tile or ring, swap-AB */
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=3, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=2, SPLIT_K=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]",
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=2, STAGES=6, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, REDUCTION_MODE=2, STAGES=8, SWAP_AB=1, TILEK=64, TILE_M=64, TILE_N=64]",
        /* next to the ping-pong ones (21, 22): another value, tile or
         * ring, a split, a cluster, stream-K, swap-AB */
        "gemm.hand[GROUP_M=8, PINGPONG=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, PINGPONG=0, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, PINGPONG=1, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]",
        "gemm.hand[GROUP_M=8, PINGPONG=1, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64]",
        "gemm.hand[GROUP_M=8, PINGPONG=1, STAGES=3, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, PINGPONG=1, SPLIT_K=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[CLUSTER_SHAPE=5, GROUP_M=8, PINGPONG=1, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, PINGPONG=1, REDUCTION_MODE=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128]",
        "gemm.hand[GROUP_M=8, PINGPONG=1, STAGES=8, SWAP_AB=1, TILEK=64, TILE_M=64, TILE_N=64]",
    };
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        gdt_plan_id id;
        gdt_error e = {0};
        CHECK_INT(gdt_plan_id_parse(near[i], &id, &e), ==, GDT_STATUS_OK);
        CHECK_INT(check("m=128,n=4096,k=4096", &id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
        CHECK_CONTAINS(e.msg, near[i]);
        CHECK_CONTAINS(e.msg, ": not one of the kernel's fixed configurations (");
        for (int k = 0; k < GDT_HAND_GEMM_CONFIGS; k++)
            CHECK_CONTAINS(e.msg, names[k]);
    }
}

/* Swap-AB puts A on the wgmma's B side: an MN-major A (a=col) loads in
 * boxes 64 columns wide, so the configurations of 32 and 16 rows of M
 * decline it (m=8: A's K stride of 16 bytes is one TMA takes), naming the operand and the tile, and the 64-row ones take
 * it; every configuration takes a K-major A at those shapes. */
static void test_swab_layouts(void)
{
    for (int i = 14; i < 19; i++) {
        gdt_plan_id id;
        gdt_error e = {0};
        gdt__hand_gemm_config_plan(i, HAND_ID, &id);
        bool narrow = i == 16 || i == 17;
        gdt_status want = narrow ? GDT_STATUS_NOT_SUPPORTED : GDT_STATUS_OK;
        CHECK_INT(check("m=8,n=136,k=72,a=col", &id, &e), ==, want);
        if (narrow)
            CHECK_STR(e.msg, i == 16 ? "gemm.hand: operand A: MN-major (unit stride along M) "
                                       "under swap-AB takes a tile of 64 rows of M (its boxes "
                                       "are 64 columns wide), got 32"
                                     : "gemm.hand: operand A: MN-major (unit stride along M) "
                                       "under swap-AB takes a tile of 64 rows of M (its boxes "
                                       "are 64 columns wide), got 16");
        CHECK_INT(check("m=33,n=4104,k=200,b=col", &id, &e), ==, GDT_STATUS_OK);
    }
}

/* The conservative pick's measure: a plan's tile area, none for swap-AB
 * (unmeasured), so that FALLBACK never takes one of 14 to 18. */
static void test_tile_area(void)
{
    for (int i = 0; i < GDT_HAND_GEMM_CONFIGS; i++) {
        gdt_plan_id id;
        gdt__hand_gemm_config_plan(i, HAND_ID, &id);
        int64_t area = gdt_plan_id_knob(&id, GDT_KNOB_TILE_M, 0) * gdt_plan_id_knob(&id, GDT_KNOB_TILE_N, 0);
        CHECK_INT(gdt__plan_tile_area(&id), ==, i >= 14 && i < 19 ? INT64_MAX : area);
    }
}

/* The untimed order for a shape, as indices into names[]: n of them. */
static void check_order_n(const char *shape, const int *want, int n)
{
    gdt_facts f;
    gdt_plan_id ids[GDT_HAND_GEMM_CONFIGS];
    facts_for(shape, &f);
    f.device.sm_count = 132;
    CHECK_INT(gdt__hand_gemm_plans(&f, HAND_ID, ids), ==, n);
    for (int i = 0; i < n; i++) {
        char name[256];
        gdt_plan_id_format(&ids[i], name, sizeof name);
        CHECK_STR(name, names[want[i]]);
    }
}

/* m > 64: the fourteen without swap-AB, then stream-K and ping-pong; m <= 64: all twenty-three. */
#define check_order(shape, ...)                                                                    \
    check_order_n(shape, (const int[]){__VA_ARGS__},                                                \
                  (int)(sizeof (const int[]){__VA_ARGS__} / sizeof(int)))

/* 132 SMs, makespans in K tiles times columns.  m=128, n=4096, k=4096:
 * 128 x 64 in two splits summed in a cluster (11) is 128 units of 32 + 2
 * K tiles (2176), ahead of the same through the workspace (32 + 4: 2304)
 * and of 128 x 128 in four (128 units of 16 + 8: 3072); k=14336 the same.
 * n=14336: the 112 tiles of 128 x 128 fill the grid unsplit (8192), the
 * cluster of splits next (4 waves of 32 + 2: 8704), and eight splits are
 * last (7 waves of 8 + 16).  m=256, n=6144: the cluster of splits (3
 * waves of 34: 6528) leads; 128 x 192 in two splits (128 units, 6912)
 * ties 128 x 64 in two through the workspace (3 waves of 36) and leads
 * those by table order.  4096^3: 128 x 256 and 128 x 128 tie at 65536,
 * the wider first, the cluster of splits after the four 65536s (69632).
 * m=1024: the 128 tiles of 128 x 256, tied with 256 of 128 x 128.  A K of
 * one 64-deep tile cannot be split: every split plan runs unsplit there,
 * the narrowest tile fills the most SMs; the cluster of splits still
 * launches both CTAs of a tile (128 units of 1 + 2 K tiles: 192).
 * The makespan does not count stages, so each deeper ring (7, 8, 9) comes
 * right after its 4-stage twin (1, 3, 6): a tie, same splits, table order.
 * The 128 x 256 cluster (10) ties its one-CTA twin (0) where the tile
 * columns are even and follows it by table order; m=1536, n=2816: 12 x 11
 * tiles of 128 x 256 fill the 132 SMs once, but the cluster walks 12 x 12
 * (a ghost column), two waves.
 * The two row twins are last in the table: 128 x 256 with 3 stages (12)
 * ties configuration 0 everywhere and sorts after it and after the other
 * ties (1, 7, 10 at 4096^3); 128 x 64 unsplit with 8 stages (13) is one
 * wave of 64 K tiles at 64 columns (4096) where its 128 tiles fill the
 * SMs: first at m=256, n=k=4096 (the split-K forms need two waves there:
 * 11 is 2 x 34 x 64, 4352), after 1 and 7 where it ties them (m=512: 256
 * tiles, two waves, 8192), and first where K is one tile (a tie at 64
 * with 6 and 9, which run unsplit there, and no split of its own).
 * A swap-AB configuration (14 to 18) is listed only where m is at most
 * its TILE_M (m=33: not 16 and 17; m=65: the fourteen) and counts a tile's area / 128: M's 16, 32 or 64
 * rows by 64 of N a consumer.  m=1 and m=16 (one tile row of M): 64 tiles
 * of N in two splits fill 128 SMs once, 34 K tiles at 8, 16 and 32
 * columns for 16, 32 and 64 rows of M (17, 16, 15: 272, 544, 1088), then
 * two consumers in four splits (18: 128 units of 24 at 64, 1536), then 64
 * unsplit (14: 64 x 32, 2048), ahead of the cluster of splits (2176).
 * m=64, n=14336: 224 tiles of N; 14 unsplit (2 waves of 64 at 32: 4096),
 * 15 (448 units, 4 waves of 34 at 32: 4352), 18 (4 waves of 24 at 64:
 * 6144), all ahead of 128 x 128 (8192).  m=33, n=4096: 15 (one wave of
 * 34 at 32: 1088), 18 (1536), 14 (2048), then the cluster of splits.
 * Stream-K (19, 20) comes after all of them (slower than the others on an
 * H100 but past a partial wave), in makespan order: the longest CTA's K
 * tiles, plus 2 for each tile its run meets where tiles are cut.  Fewer
 * tiles than SMs: halves of K where twice the tiles fit (m=128 and m=256,
 * n=4096: 32 and 64 tiles of 128 x 128, runs of 32, (32 + 4) x 128 = 4608,
 * against 22 and 44 of 128 x 192, 6912), else every tile whole, one wave
 * of 64 K tiles (m=512, n=4096: 128 tiles, 8192, against 88 of 128 x 192,
 * 12288; n=14336, m at most 128: 112 and 75 tiles, the same).  m=256,
 * n=6144 puts 128 x 192 first: its 64 tiles are cut in halves (6912), the
 * 96 of 128 x 128 run whole (8192).  4096^3 is 6 whole tiles of 128 x 128
 * then runs of 112 or 113 ((384 + 113 + 6) x 128 = 64384), against 4 of
 * 128 x 192 then 85 or 86 (66816); where K is one tile no tile is cut
 * (1 x 128 against 1 x 192).
 * Ping-pong (21, 22) joins them (no faster than its twins on an H100), its
 * makespan the 128 x 128 tiles' (1's), ties in table order: after both
 * stream-K ones where stream-K cuts halves (m=128, n=4096: 8192 against
 * 4608 and 6912), between 19 and 20 where 19 runs whole tiles too (a tie,
 * after 19 by table order: m=512, n=4096 and n=14336; 4096^3, 65536
 * between 64384 and 66816; K of one tile) and ahead of both at m=1024
 * (256 tiles: 16384, where stream-K adds cut tiles). */
static void test_order(void)
{
    check_order("m=128,n=4096,k=4096", 11, 6, 9, 3, 8, 13, 2, 4, 5, 1, 7, 0, 10, 12, 19, 20, 21, 22);
    check_order("m=128,n=4096,k=14336", 11, 6, 9, 3, 8, 4, 13, 2, 5, 1, 7, 0, 10, 12, 19, 20, 21, 22);
    check_order("m=1,n=4096,k=4096", 17, 16, 15, 18, 14, 11, 6, 9, 3, 8, 13, 2, 4, 5, 1, 7, 0, 10, 12, 19, 20, 21, 22);
    check_order("m=128,n=14336,k=4096", 1, 7, 13, 11, 2, 6, 9, 3, 8, 5, 0, 10, 12, 4, 19, 21, 22, 20);
    check_order("m=256,n=6144,k=4096", 11, 5, 6, 9, 1, 7, 13, 2, 3, 8, 0, 10, 12, 4, 20, 19, 21, 22);
    check_order("m=256,n=4096,k=4096", 13, 11, 2, 6, 9, 3, 8, 5, 1, 7, 4, 0, 10, 12, 19, 20, 21, 22);
    check_order("m=512,n=4096,k=4096", 1, 7, 13, 11, 2, 6, 9, 3, 8, 5, 0, 10, 12, 4, 19, 21, 22, 20);
    check_order("m=1024,n=4096,k=4096", 0, 1, 7, 10, 12, 13, 11, 2, 6, 9, 5, 3, 8, 4, 21, 22, 19, 20);
    check_order("m=4096,n=4096,k=4096", 0, 1, 7, 10, 12, 13, 11, 2, 6, 9, 5, 3, 8, 4, 19, 21, 22, 20);
    check_order("m=128,n=4096,k=64", 13, 6, 9, 1, 7, 2, 3, 8, 4, 5, 11, 0, 10, 12, 19, 21, 22, 20);
    check_order("m=1536,n=2816,k=4096", 0, 1, 7, 12, 13, 11, 2, 6, 9, 5, 3, 8, 10, 4, 19, 21, 22, 20);
    check_order("m=16,n=4096,k=4096", 17, 16, 15, 18, 14, 11, 6, 9, 3, 8, 13, 2, 4, 5, 1, 7, 0, 10, 12, 19, 20, 21, 22);
    check_order("m=64,n=14336,k=4096", 14, 15, 18, 1, 7, 13, 11, 2, 6, 9, 3, 8, 5, 0, 10, 12, 4, 19, 21, 22, 20);
    check_order("m=33,n=4096,k=4096", 15, 18, 14, 11, 6, 9, 3, 8, 13, 2, 4, 5, 1, 7, 0, 10, 12, 19, 20, 21, 22);
    check_order("m=17,n=4096,k=4096", 16, 15, 18, 14, 11, 6, 9, 3, 8, 13, 2, 4, 5, 1, 7, 0, 10, 12, 19, 20, 21, 22);
    check_order("m=65,n=14336,k=4096", 1, 7, 13, 11, 2, 6, 9, 3, 8, 5, 0, 10, 12, 4, 19, 21, 22, 20);
}

int main(void)
{
    test_round_trip();
    test_decline();
    test_swab_layouts();
    test_tile_area();
    test_order();
    return gdt_test_result("test_hand_configs");
}
