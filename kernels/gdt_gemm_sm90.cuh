/* kernels/gdt_gemm_sm90.cuh: the Hopper GEMM, one source for both sides.
 * C[b, m, n] = A[b, m, k] . B[b, k, n], bf16 or fp16 in and out, fp32
 * accumulate.  nvcc builds its fixed configurations ahead of time
 * (kernels/hand/gemm_sm90.cu, the `hand` engine's gemm.hand); NVRTC builds
 * the configuration a contraction row with PIPE=1 binds (kernels/gemm.cuh,
 * gemm.nvrtc).  Its parameters are template arguments of gemm (dtype,
 * operand layouts, TN, SPL, NST, CL, NC, SW, below) and two macros,
 * G90_GROUP_M (8) and G90_RASTER (0) unless the includer defines them.  Identifiers are chosen not to meet the
 * NVRTC row's -D names (BN, STAGES, GROUP_M, ...).  The host side that
 * builds its tensor maps, grid and cluster is engines/gemm_tma.c, shared by
 * both engines.
 *
 * Tiles of 128 x TN x 64 (TN 256, 192, 128 or 64), a shared-memory ring of
 * NST stages, 384 threads.  Warpgroup 0 is the producer: one thread issues the TMA
 * loads of A and B into the ring (full barrier per stage, completed by the
 * copies' byte count); warpgroups 1 and 2 are the consumers: each runs
 * wgmma m64nBNk16 on its 64-row half of the tile and releases a stage
 * (empty barrier, one arrival per consumer warp) once its wgmma has read it.
 * The grid is persistent (at most one CTA per SM), walking the tiles of
 * every batch in a grouped raster (GROUP_M tile rows share a band so that
 * neighbouring CTAs reuse B from L2; or, G90_RASTER 1, GROUP_M tile
 * columns, reusing A: kernels/gdt_raster.cuh).  The epilogue converts the
 * accumulators, writes 64 x 64 blocks into 128-byte-swizzled shared memory
 * and stores each with a TMA store, which clips at M and N, or (a row's
 * EPILOGUE=1, G90_EPILOGUE 1) writes C from the registers in 16-byte
 * pieces, clipped at M and N the same (epilogue_regs); TMA loads
 * zero-fill outside M, N and K, so every tail is exact.
 *
 * Split-K (SPL = SPLIT_WS): a work unit is one tile and one of p.splits
 * contiguous ranges of K tiles; its consumers write the fp32 partial
 * straight from the fragments to the workspace and count the unit in at
 * the tile's counter.  The unit that completes the count sums the splits in
 * split order (so the result does not depend on which CTA finished last),
 * stores C through the same epilogue and sets the counter back to zero, so
 * the counters are zero again for the next launch.
 *
 * Split-K in a cluster (SPL = SPLIT_PAIR): the two splits of a tile are
 * the two CTAs of a cluster, which run them side by side and reduce
 * through distributed shared memory: each CTA's consumer of one 64-row
 * half sends its fp32 accumulators to the partner, whose consumer of the
 * same half adds them and stores C.  No workspace, no counter, no GPU-scope
 * fence (pair_reduce).
 *
 * Stream-K (SPL = SPLIT_SK; kernels/gdt_streamk.cuh): whole tiles first,
 * every full wave but the last on one CTA each; the rest (the partial
 * wave and one full one, or every tile when they are fewer than the SMs)
 * laid end to end along K and cut into one run of K tiles a CTA, equal
 * within one.  A tile inside one run is stored as it is; a tile cut
 * across runs goes through SPLIT_WS's workspace and counter, its pieces
 * in piece order (slot = piece), the last to count summing them.  No CTA
 * waits for another.  p.splits carries the SM count the host planned on;
 * the walk is the grid-strided one over the schedule's slots (work_at).
 *
 * Clusters (CL): two CTAs along N share A.  Each loads one
 * 64-row half of A with a multicast TMA into the same stage of both CTAs
 * and its own B; a stage is released to both producers only when both
 * CTAs' consumers are done with it.  The barriers and the schedule are in
 * the tables and comments below (BARRIERS, work_at).
 *
 * Consumers (NC): two warpgroups (tiles of 128 x TN, 384 threads) or one
 * (64 x TN, 256 threads, no setmaxnreg: up to 255 registers a thread).
 *
 * Ping-pong (PP), the choice beside the cooperative consumers above: each
 * of the two consumer warpgroups owns whole 128 x TN tiles (TN 64 or 128,
 * two m64 wgmmas a K step), the CTA's even tiles consumer 0's and its odd
 * ones consumer 1's; an ordered pair of named barriers makes their MMA
 * phases alternate, so one's epilogue runs under the other's wgmmas
 * (consume_pp: PING-PONG).  Unsplit, no cluster, no swap-AB.
 *
 * Swap-AB (SW), for decode-sized M: the kernel runs C^T = B^T . A^T, so
 * the problem's N fills the wgmma's 64-row M side and M (at most TN, 16,
 * 32 or 64) its N side.  The host passes B's map as ta, A's as tb and the
 * parameters of the swapped problem (m and n exchanged), so the raster,
 * the ring, split-K and its workspace run unchanged on C^T; only the
 * epilogue differs (epilogue_swab): it transposes the 64 x TN accumulator
 * of C^T through shared memory into TN rows of C and stores them with C's
 * own map (box 64 x TN).  No cluster, no pair of splits.  An MN-major A
 * (the wgmma's B side) needs TN = 64: its boxes are 64 columns wide.
 *
 * Layouts: A and B are K-major (unit stride along K) or MN-major; the
 * tensor maps are built for the layout and wgmma reads either through its
 * transpose bits.  Every operand is 128-byte-swizzled in shared memory:
 * 16-byte chunk c of 128-byte row r at chunk c ^ (r % 8), atoms on
 * 1024-byte boundaries, which is the layout the TMA's SWIZZLE_128B writes.
 *   K-major tile of R rows: R rows of 64 K-elements (128 bytes).
 *   MN-major tile of R columns: R/64 blocks of 64 K-rows x 128 bytes. */
#ifndef GDT_GEMM_SM90_CUH
#define GDT_GEMM_SM90_CUH

#include "gdt_raster.cuh"
#include "gdt_sm90.cuh"
#include "gdt_streamk.cuh"

#define G90_TILE_M 128
#define G90_TILE_K 64
/* Tile rows (along N: columns) per band of the grouped raster (tile_at). */
#ifndef G90_GROUP_M
#define G90_GROUP_M 8
#endif
/* The raster's direction (kernels/gdt_raster.cuh): 0 bands of tile rows
 * (the hand engine's), 1 bands of tile columns (a row's RASTER=1). */
#ifndef G90_RASTER
#define G90_RASTER 0
#endif
/* The epilogue (a row's EPILOGUE): 0 through swizzled shared memory and
 * a TMA store (the hand engine's), 1 straight from registers to global
 * memory (epilogue_regs). */
#ifndef G90_EPILOGUE
#define G90_EPILOGUE 0
#endif
/* A producer warpgroup and NC consumer warpgroups. */
#define G90_THREADS(NC) (128 * (1 + (NC)))

/* TM: the tile's rows on the wgmma's M side, 64 per consumer warpgroup
 * (NC of them: 128 with two, 64 with one). */
#define G90_A_STAGE_BYTES(TM) ((TM) * G90_TILE_K * 2)
#define G90_B_STAGE_BYTES(TN) ((TN) * G90_TILE_K * 2)
#define G90_C_BLOCK_BYTES (64 * 64 * 2)
/* NST: the ring's stages, a template parameter (4, or 6 and 8 where the
 * ring still fits: engines/gemm_tma.c's gdt__gemm_tma_smem_bytes). */
#define G90_C_OFFSET(TM, TN, NST) ((NST) * (G90_A_STAGE_BYTES(TM) + G90_B_STAGE_BYTES(TN)))
/* The barriers after the output blocks (G90_C_BLOCKS), the flag word after
 * the full and empty barriers. */
#define G90_BAR_OFFSET(TM, TN, NST, SPL) (G90_C_OFFSET(TM, TN, NST) + G90_C_BLOCKS(TM, SPL) * G90_C_BLOCK_BYTES)
#define G90_FLAG_OFFSET(TM, TN, NST, SPL) (G90_BAR_OFFSET(TM, TN, NST, SPL) + 16 * (NST))
/* Output blocks in shared memory: two a consumer for the TMA-store epilogue
 * and the DSMEM pair's messages; none for the register epilogue outside a
 * pair (engines/gemm_tma.c's gdt__gemm_tma_smem_bytes, the same rule). */
#define G90_C_BLOCKS(TM, SPL) (G90_EPILOGUE == 1 && (SPL) != SPLIT_PAIR ? 0 : (TM) / 32)
#define G90_CONSUMERS_BAR 3 /* named barrier of all consumer threads (1 and 2: one consumer) */
#define G90_A_HALF_BYTES (G90_A_STAGE_BYTES(G90_TILE_M) / 2) /* 64 rows of A: one CTA's multicast in a cluster */

/* SPL, an entry's split-K: none; units anywhere in the grid, partials
 * through the workspace, the tile's last unit summing them (SPLIT_WS); the
 * two splits of a tile as a cluster of two CTAs along K, summed through
 * distributed shared memory (SPLIT_PAIR); or stream-K (SPLIT_SK): whole
 * tiles first, then the rest cut into equal runs of K tiles, one a CTA
 * (kernels/gdt_streamk.cuh), a tile cut across runs summed as SPLIT_WS's. */
enum { SPLIT_NONE = 0, SPLIT_WS = 1, SPLIT_PAIR = 2, SPLIT_SK = 3 };

/* BARRIERS, per stage s (it = the stage's use count, the same in both CTAs
 * of a cluster; round = it / NST, phase parity round & 1):
 *
 *   barrier    count                 arrivals                         completes when
 *   full[s]    1                     own producer's arrive.expect_tx  A (both halves in a cluster) and
 *                                    of A + its own B bytes           own B landed: the TMA's bytes
 *   empty[s]   4 NC (consumer warps) lane 0 of each own consumer      the consumers read the stage
 *              16 in a cluster       warp; in a cluster, each warp    both CTAs' consumers read it
 *              4 under PP            (PP: of the one consumer whose
 *                                    tile the stage holds)
 *                                    of both CTAs arrives at both     (either producer then writes
 *                                    CTAs' empty[s]                   A into both CTAs' stage)
 *
 * and in a SPLIT_PAIR cluster, per CTA (j = the CTA's unit count, the same
 * in both CTAs; phase parity j & 1):
 *
 *   recv_full  1                     thread 0 of the partner's        the partner's half of unit
 *                                    sending consumer's arrive.       j's partial is in this CTA:
 *                                    expect_tx of the message's       the bytes of its 128 threads'
 *                                    bytes (64 x TN x 4)              st.async completed
 *   recv_empty 1                     thread 0 of the partner's        the partner read this CTA's
 *                                    summing consumer, after its      message of unit j: its buffer
 *                                    128 threads' reads, release      may take unit j + 1's
 *                                    .cluster
 *
 * Consumers wait full[s] for parity round & 1; the producer waits empty[s]
 * for (round & 1) ^ 1, which the fresh barrier passes in round 0.  The
 * sender of a SPLIT_PAIR cluster waits recv_empty for (j & 1) ^ 1 before it
 * writes unit j, the summing consumer recv_full for j & 1, both with
 * acquire.cluster, so each buffer holds at most one message.  In a
 * cluster the partner's half of A may land on full[s] before this
 * producer's expect_tx (the tx count goes below zero; the phase still
 * waits for the one arrival), but never a round early: the partner writes
 * stage s of round r + 1 only after this CTA's consumers released round r,
 * that is after full[s] round r completed.  Named barriers: 1 and 2 the
 * epilogue of one consumer (128 threads), G90_CONSUMERS_BAR both (256),
 * G90_PP_BAR and G90_PP_BAR + 1 the ping-pong consumers' turns.  A
 * cluster syncs all 768 threads after the barriers' init (the partner's
 * must exist before a multicast or remote arrival reaches them) and before
 * exit (a CTA's shared memory must outlive the partner's last arrival). */

/* Mirrored field for field by gdt_gemm_tma_params in engines/hand/hand_engine.c. */
struct gdt_gemm_tma_params {
    int m, n, k, batch;
    int tiles_m, tiles_n;
    int splits; /* K ranges per tile (SPLIT_WS entries only), at most the K tiles;
                   SPLIT_SK: the SMs its schedule spreads over (gdt_sk_plan) */
};

/* C for the register epilogue (G90_EPILOGUE 1): its first element and its
 * row and batch strides in elements (rows 16-byte aligned: the C map's
 * rules).  Mirrored by gdt_gemm_tma_c in engines/gdt_gemm_tma.h; every
 * entry takes it, the TMA-store epilogue leaves it unread. */
struct gdt_gemm_tma_c {
    u16 *ptr;
    long long ld, batch;
};

/* Descriptor of k16 step kk of an operand: a K-major tile steps 32 bytes
 * along its 128-byte rows; an MN-major tile steps 16 K-rows (2048 bytes),
 * its 64-element MN blocks 64 x 128 bytes apart (LBO). */
__device__ __forceinline__ u64 operand_desc(u32 tile, int kmajor, int kk)
{
    return kmajor ? wg_desc(tile + kk * 32, 16) : wg_desc(tile + kk * 2048, 64 * 128);
}

/* ------------------------------------------------------------- schedule */

struct tile_coord {
    int b, m0, n0;
};

/* Grouped raster within a batch (gdt_raster_at): bands of G90_GROUP_M
 * tile rows (`rows` high) walked column by column, or with G90_RASTER
 * bands of as many columns walked row by row, over `cols` columns `width`
 * wide. */
__device__ __forceinline__ tile_coord tile_at(const gdt_gemm_tma_params &p, int t, int cols,
                                              int width, int rows)
{
    int per_batch = p.tiles_m * cols;
    int b = t / per_batch, r = t % per_batch;
    gdt_raster_tile x = gdt_raster_at(r, p.tiles_m, cols, G90_GROUP_M, G90_RASTER);
    return {b, x.row * rows, x.col * width};
}

/* The tiles a grid walks: p.tiles_n columns of TN, or in a cluster
 * (tiles_n + 1) / 2 columns of 2 TN, one pair of tiles each, the CTA of
 * rank r taking the pair's tile r.  Both CTAs thus get the same rows of A,
 * and with an odd tiles_n the last pair's second tile lies past N (a
 * ghost: it loads its half of A for the partner and stores nothing). */
template <int TN, bool CL> __device__ __forceinline__ int walked_tiles(const gdt_gemm_tma_params &p)
{
    return p.tiles_m * (CL ? (p.tiles_n + 1) / 2 : p.tiles_n) * p.batch;
}

template <int TM, int TN, bool CL>
__device__ __forceinline__ tile_coord unit_tile(const gdt_gemm_tma_params &p, int t)
{
    if constexpr (!CL)
        return tile_at(p, t, p.tiles_n, TN, TM);
    tile_coord c = tile_at(p, t, (p.tiles_n + 1) / 2, 2 * TN, TM);
    c.n0 += (int)cluster_rank() * TN;
    return c;
}

/* The unit of a grid (one CTA) or of a cluster (both CTAs, in lockstep:
 * the same units, so the same K ranges and stage counts along N, or the
 * same tiles in both splits along K) to start at, and the stride of the
 * walk. */
template <bool PAIRED> __device__ __forceinline__ int first_unit()
{
    return PAIRED ? (int)blockIdx.x / 2 : (int)blockIdx.x;
}

template <bool PAIRED> __device__ __forceinline__ int unit_stride()
{
    return PAIRED ? (int)gridDim.x / 2 : (int)gridDim.x;
}

/* One work unit: a tile, and the K tiles [kt0, kt1) of its split.  Every
 * tile of split s comes before those of split s + 1, so the CTAs running
 * at once share A and walk B in the raster's order; the host keeps
 * p.splits at most the K tiles, so no range is empty.  `tile` (split
 * units only) is the index of the tile's counter: its raster position, or in a cluster
 * (where positions are pairs) (b * tiles_m + row) * tiles_n + column, so
 * that the host's tiles_m * tiles_n * batch counters serve both. */
struct work_unit {
    tile_coord c;
    int kt0, kt1, split, tile;
    int pieces; /* SPLIT_SK: the tile's units (1: stored as it is) */
};

/* ntiles: walked_tiles, so that the two CTAs of a cluster, given the same
 * u, get the same split and K range.  In a SPLIT_PAIR cluster u is a tile
 * and the CTA's rank its split, of two whatever p.splits says: with one K
 * tile, split 1's range is empty (pair_reduce still sends its zeros).
 * Under SPLIT_SK u is a slot of the stream-K schedule (gdt_sk_unit_of,
 * p.splits its SMs): a tile's piece, split its piece number, or an empty
 * slot (kt0 == kt1), which the consumers skip and the producer loads
 * nothing for. */
template <int TM, int TN, int SPL, bool CL>
__device__ __forceinline__ work_unit work_at(const gdt_gemm_tma_params &p, int u, int ntiles,
                                             int ktiles)
{
    if constexpr (SPL == SPLIT_NONE)
        return {unit_tile<TM, TN, CL>(p, u), 0, ktiles, 0, 0};
    if constexpr (SPL == SPLIT_PAIR) {
        int s = (int)cluster_rank(), half = (ktiles + 1) / 2;
        return {unit_tile<TM, TN, false>(p, u), s ? half : 0, s ? ktiles : half, s, 0};
    }
    if constexpr (SPL == SPLIT_SK) {
        gdt_sk sk = gdt_sk_plan(ntiles, ktiles, p.splits);
        gdt_sk_unit x;
        if (!gdt_sk_unit_of(&sk, u, &x))
            return {{0, 0, 0}, 0, 0, 0, 0, 0};
        return {unit_tile<TM, TN, false>(p, x.tile), x.kt0, x.kt1, x.piece, x.tile, x.pieces};
    }
    int s = u / ntiles, base = ktiles / p.splits, rem = ktiles % p.splits;
    int kt0 = s * base + (s < rem ? s : rem);
    tile_coord c = unit_tile<TM, TN, CL>(p, u % ntiles);
    int tile = CL ? (c.b * p.tiles_m + c.m0 / TM) * p.tiles_n + c.n0 / TN : u % ntiles;
    return {c, kt0, kt0 + base + (s < rem ? 1 : 0), s, tile};
}

/* ------------------------------------------------------------- producer */

/* Stage A at sa: the whole tile, or in a cluster this CTA's 64-row half
 * (rank r: rows m0 + 64 r, at sa + r G90_A_HALF_BYTES in either layout) into
 * both CTAs, so that each CTA's full barrier gets both halves' bytes. */
template <int A_K, int TM, bool CL>
__device__ __forceinline__ void load_a(u32 sa, const CUtensorMap *ta, u32 fb, const tile_coord &c,
                                       int k0)
{
    if constexpr (CL) {
        int r = (int)cluster_rank();
        if constexpr (A_K)
            tma_load_multicast(sa + r * G90_A_HALF_BYTES, ta, fb, k0, c.m0 + 64 * r, c.b);
        else
            tma_load_multicast(sa + r * G90_A_HALF_BYTES, ta, fb, c.m0 + 64 * r, k0, c.b);
    } else if constexpr (A_K)
        tma_load(sa, ta, fb, k0, c.m0, c.b);
    else
        for (int j = 0; j < TM / 64; ++j)
            tma_load(sa + j * 8192, ta, fb, c.m0 + 64 * j, k0, c.b);
}

template <int A_K, int B_K, int TM, int TN, int SPL, int NST, bool CL>
__device__ __forceinline__ void produce(const CUtensorMap *ta, const CUtensorMap *tb,
                                        const gdt_gemm_tma_params &p, u32 smem, u32 full,
                                        u32 empty, int ktiles, int ntiles, int nunits)
{
    constexpr bool PAIRED = CL || SPL == SPLIT_PAIR;
    int it = 0;
    for (int u = first_unit<PAIRED>(); u < nunits; u += unit_stride<PAIRED>()) {
        work_unit wk = work_at<TM, TN, SPL, CL>(p, u, ntiles, ktiles);
        /* A ghost loads no B: its consumers' wgmma reads stale B, harmlessly. */
        bool ghost = CL && wk.c.n0 >= p.n;
        for (int kt = wk.kt0; kt < wk.kt1; ++kt, ++it) {
            int s = it % NST;
            u32 round = (u32)(it / NST);
            bar_wait(empty + 8 * s, (round & 1) ^ 1);
            u32 fb = full + 8 * s, sa = smem + s * G90_A_STAGE_BYTES(TM);
            u32 sb = smem + NST * G90_A_STAGE_BYTES(TM) + s * G90_B_STAGE_BYTES(TN);
            int k0 = kt * G90_TILE_K;
            /* The full box counts even where it is zero-filled. */
            bar_expect_tx(fb, G90_A_STAGE_BYTES(TM) + (ghost ? 0 : G90_B_STAGE_BYTES(TN)));
            load_a<A_K, TM, CL>(sa, ta, fb, wk.c, k0);
            if (ghost)
                continue;
            if constexpr (B_K)
                tma_load(sb, tb, fb, k0, wk.c.n0, wk.c.b);
            else
                for (int j = 0; j < TN / 64; ++j)
                    tma_load(sb + j * 8192, tb, fb, wk.c.n0 + 64 * j, k0, wk.c.b);
        }
    }
}

/* ------------------------------------------------------------- consumer */

/* A 64 x TN accumulator of warpgroup w (rows m0 to m0 + 63 of C), as
 * 64 x 64 blocks through w's two swizzled buffers, each stored by TMA.  Fragment layout of m64nNk16:
 * d[4j + i] is row warp*16 + lane/4 + 8*(i/2), column 8j + 2*(lane%4) + i%2.
 * The buffers alternate over the consumer's whole run of stores (`stores`),
 * not per tile: with an odd number of blocks a tile (TN 64 or 192) the next
 * tile's first block would otherwise take the buffer still being stored. */
template <int FP16, int TN>
__device__ __forceinline__ void epilogue(const CUtensorMap *tc, float (&acc)[TN / 2], u32 cbuf,
                                         int w, tile_coord c, int m0, int &stores)
{
    int tid = (int)threadIdx.x % 128, warp = tid / 32, lane = tid % 32;
    int r = warp * 16 + lane / 4;
#pragma unroll
    for (int blk = 0; blk < TN / 64; ++blk, ++stores) {
        u32 buf = cbuf + (stores & 1) * G90_C_BLOCK_BYTES;
        if (tid == 0)
            bulk_wait_read<1>(); /* the store two blocks back read this buffer */
        named_sync(1 + w, 128);
#pragma unroll
        for (int j8 = 0; j8 < 8; ++j8) {
            int v = (blk * 8 + j8) * 4;
            u32 off = (u32)((j8 ^ (r & 7)) << 4) + (lane % 4) * 4;
            u32 lo = pack2<FP16>(acc[v], acc[v + 1]), hi = pack2<FP16>(acc[v + 2], acc[v + 3]);
            sts_u32(buf + r * 128 + off, lo);
            sts_u32(buf + (r + 8) * 128 + off, hi);
        }
        fence_proxy_async(); /* st.shared before the TMA store reads it */
        named_sync(1 + w, 128);
        if (tid == 0) {
            tma_store(tc, buf, c.n0 + 64 * blk, m0, c.b);
            bulk_commit();
        }
    }
}

/* G90_EPILOGUE 1: the same 64 x TN accumulator straight from registers
 * into C's rows, each lane a 16-byte piece of one row after its quad's
 * transpose (store_row16), clipped at M and N: no shared memory, no fence,
 * no TMA store to wait for before the buffers' next use. */
template <int FP16, int TN>
__device__ __forceinline__ void epilogue_regs(const gdt_gemm_tma_c &co, const gdt_gemm_tma_params &p,
                                              const float (&acc)[TN / 2], tile_coord c, int m0)
{
    int tid = (int)threadIdx.x % 128, lane = tid % 32;
    u16 *tile = co.ptr + (long long)c.b * co.batch + c.n0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        int row = m0 + tid / 32 * 16 + lane / 4 + 8 * h;
        store_row16<FP16, TN, true>(tile + (long long)row * co.ld, acc, h, 1.f, lane, row < p.m, p.n - c.n0);
    }
}

/* Either epilogue of a 64 x TN accumulator at rows m0 (G90_EPILOGUE). */
template <int FP16, int TN>
__device__ __forceinline__ void store_tile(const CUtensorMap *tc, const gdt_gemm_tma_c &co,
                                           const gdt_gemm_tma_params &p, float (&acc)[TN / 2],
                                           u32 cbuf, int w, tile_coord c, int m0, int &stores)
{
    if constexpr (G90_EPILOGUE == 1)
        epilogue_regs<FP16, TN>(co, p, acc, c, m0);
    else
        epilogue<FP16, TN>(tc, acc, cbuf, w, c, m0, stores);
}

/* The swap-AB epilogue (SW): the accumulator is a 64 x TN tile of C^T,
 * rows along the problem's N (the kernel's M side), columns along its M.
 * C is row-major, so warpgroup w writes the tile's transpose, TN rows of
 * 64 columns (128 bytes, one swizzled row each: the layout of the normal
 * epilogue's blocks, TN rows high), and stores it with the C map's
 * 64 x TN box at column c.m0 + 64 w, row c.n0: the store clips at N and M.
 * The fragment's pair d[4j + 2h], d[4j + 2h + 1] is two C rows of one
 * column; lanes l and l ^ 4 hold neighbouring columns, so each sends the
 * other one value and stores two neighbouring columns of one row as one
 * 32-bit word: the lane of even lane / 4 row 8j + 2 (l % 4), the other the
 * row after it. */
template <int FP16, int TN>
__device__ __forceinline__ void epilogue_swab(const CUtensorMap *tc, const float (&acc)[TN / 2],
                                              u32 cbuf, int w, tile_coord c, int &stores)
{
    int tid = (int)threadIdx.x % 128, warp = tid / 32, lane = tid % 32, odd = (lane >> 2) & 1;
    u32 buf = cbuf + (stores & 1) * G90_C_BLOCK_BYTES;
    if (tid == 0)
        bulk_wait_read<1>(); /* the store two tiles back read this buffer */
    named_sync(1 + w, 128);
#pragma unroll
    for (int j = 0; j < TN / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
            float got = shfl_xor(odd ? v0 : v1, 4);
            int row = 8 * j + 2 * (lane % 4) + odd, col = warp * 16 + ((lane >> 2) & ~1) + 8 * h;
            u32 off = (u32)(row * 128 + (((col >> 3) ^ (row & 7)) << 4) + (col & 7) * 2);
            sts_u32(buf + off, odd ? pack2<FP16>(got, v1) : pack2<FP16>(v0, got));
        }
    fence_proxy_async(); /* st.shared before the TMA store reads it */
    named_sync(1 + w, 128);
    if (tid == 0) {
        tma_store(tc, buf, c.m0 + 64 * w, c.n0, c.b);
        bulk_commit();
    }
    ++stores;
}

/* Where this thread's fragment row h (0: rows d[4j], d[4j + 1]; 1: the
 * other two) of warpgroup w's part of split s's partial lies in the
 * workspace, [split][batch][m][tiles_n * TN] fp32; NULL past M.  The
 * workspace is tiles_n * TN wide, so no column is checked. */
template <int TN>
__device__ __forceinline__ float *partial_row(float *ws, int w, int s, int h, const tile_coord &c,
                                              const gdt_gemm_tma_params &p)
{
    int tid = (int)threadIdx.x % 128, warp = tid / 32, lane = tid % 32;
    int r = c.m0 + 64 * w + warp * 16 + lane / 4 + 8 * h;
    size_t np = (size_t)p.tiles_n * TN;
    if (r >= p.m)
        return nullptr;
    return ws + (((size_t)s * p.batch + c.b) * p.m + r) * np + c.n0 + 2 * (lane % 4);
}

/* A split's fp32 partial of warpgroup w's 64 rows, from the fragments
 * (layout as above) to the workspace. */
template <int TN>
__device__ __forceinline__ void store_partial(float *ws, const float (&acc)[TN / 2], int w,
                                              const work_unit &wk, const gdt_gemm_tma_params &p)
{
#pragma unroll
    for (int h = 0; h < 2; ++h)
        if (float *row = partial_row<TN>(ws, w, wk.split, h, wk.c, p))
#pragma unroll
            for (int j = 0; j < TN / 8; ++j)
                *(float2 *)(row + 8 * j) = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
}

/* acc += split s's partial.  ld.global.cg: other CTAs wrote it during this
 * launch, so it is read from L2, never from a stale L1 line. */
template <int TN>
__device__ __forceinline__ void add_partial(float *ws, float (&acc)[TN / 2], int w, int s,
                                            const work_unit &wk, const gdt_gemm_tma_params &p)
{
#pragma unroll
    for (int h = 0; h < 2; ++h)
        if (const float *row = partial_row<TN>(ws, w, s, h, wk.c, p))
#pragma unroll
            for (int j = 0; j < TN / 8; ++j) {
                float2 v = __ldcg((const float2 *)(row + 8 * j));
                acc[4 * j + 2 * h] += v.x, acc[4 * j + 2 * h + 1] += v.y;
            }
}

/* The tile's sum p0 + p1 + ... of its `splits` partials in split order,
 * into the last unit's acc, which holds its own partial.  p0 + p1 is the same sum whichever of the
 * two holds its own (addition commutes), so splits 0 and 1 keep theirs and
 * read one partial fewer; a later split's own has to wait its turn in the
 * order, so that unit starts over from split 0 and reads its own back. */
template <int TN>
__device__ __forceinline__ void sum_splits(float *ws, float (&acc)[TN / 2], int w,
                                           const work_unit &wk, int splits,
                                           const gdt_gemm_tma_params &p)
{
    int s = 2;
    if (wk.split >= 2) {
#pragma unroll
        for (int i = 0; i < TN / 2; ++i)
            acc[i] = 0.f;
        s = 0;
    } else if (splits > 1)
        add_partial<TN>(ws, acc, w, 1 - wk.split, wk, p);
    for (; s < splits; ++s)
        add_partial<TN>(ws, acc, w, s, wk, p);
}

/* Counts a unit in at its tile's counter, after both consumers stored their
 * partials; true for the unit that completes the count, which resets the
 * counter (every split has counted, so nothing else touches it in this
 * launch, and the next launch finds it zero).  The fence before the count
 * publishes each thread's partial GPU-wide, the one after it orders the
 * last unit's reads of the others' partials after their counts.  The flag
 * word in shared memory carries the answer to both consumers. */
template <int NC>
__device__ __forceinline__ bool last_split(unsigned *counter, u32 flag, int splits)
{
    __threadfence();
    named_sync(G90_CONSUMERS_BAR, 128 * NC);
    if (threadIdx.x == 128) {
        u32 last = atomicAdd(counter, 1u) == (unsigned)splits - 1;
        if (last)
            *counter = 0;
        __threadfence();
        asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(flag), "r"(last) : "memory");
    }
    named_sync(G90_CONSUMERS_BAR, 128 * NC);
    u32 last;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(last) : "r"(flag) : "memory");
    return last != 0;
}

/* SPLIT_PAIR's reduction.  CTA rank r holds split r of the tile; its
 * consumer w == r sums rows 64 r to 64 r + 63 and stores them, its other
 * consumer sends its 64 rows to the partner, whose consumer of those rows
 * sums them: each CTA moves half a partial and stores half the tile.  The
 * message (64 x TN fp32) goes by st.async, each store counting its bytes
 * on the partner's recv_full, into the partner's buffer recv, the output
 * blocks of its sending consumer, which stores nothing; float4 v of
 * thread t at (v * 128 + t) * 16, the fragment order both ends share, so a
 * warp's 16-byte accesses are contiguous.  The sum is p0 + p1 on either
 * side (addition commutes), so C does not depend on who sums.  j: the
 * CTA's unit count, the phase (BARRIERS).  True for the consumer that
 * stores. */
template <int TN>
__device__ __forceinline__ bool pair_reduce(float (&acc)[TN / 2], u32 recv, u32 recv_full,
                                            u32 recv_empty, int w, int j)
{
    static_assert(TN * 64 * 4 <= 2 * G90_C_BLOCK_BYTES, "the message fits a consumer's output blocks");
    int tid = (int)threadIdx.x % 128;
    u32 rank = cluster_rank(), parity = (u32)j & 1;
    if (w != (int)rank) {
        bar_wait_acquire_cluster(recv_empty, parity ^ 1); /* the partner read the last one */
        u32 dst = cluster_map(recv, rank ^ 1), bar = cluster_map(recv_full, rank ^ 1);
        if (tid == 0) /* the phase's one arrival; bytes landing first leave it pending */
            bar_expect_tx_remote(bar, TN * 64 * 4);
#pragma unroll
        for (int v = 0; v < TN / 8; ++v)
            st_async_v4(dst + (v * 128 + tid) * 16, bar, acc[4 * v], acc[4 * v + 1], acc[4 * v + 2],
                        acc[4 * v + 3]);
        return false;
    }
    bar_wait_acquire_cluster(recv_full, parity);
#pragma unroll
    for (int v = 0; v < TN / 8; ++v) {
        float x, y, z, t;
        asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                     : "=f"(x), "=f"(y), "=f"(z), "=f"(t)
                     : "r"(recv + (v * 128 + tid) * 16)
                     : "memory");
        acc[4 * v] += x, acc[4 * v + 1] += y, acc[4 * v + 2] += z, acc[4 * v + 3] += t;
    }
    named_sync(1 + w, 128);
    if (tid == 0)
        bar_arrive_remote(cluster_map(recv_empty, rank ^ 1));
    return true;
}

/* A consumer warp's release of a stage: to its own producer, or in a
 * cluster to both, since either writes half of A into this stage. */
template <bool CL> __device__ __forceinline__ void release(u32 bar)
{
    if constexpr (CL) {
        bar_arrive_cluster(bar, 0);
        bar_arrive_cluster(bar, 1);
    } else
        bar_arrive(bar);
}

/* Rows 64 r to 64 r + 63 of an accumulator of R 64-row blocks, as the
 * m64nTN wgmma's operand. */
template <int TN, int R>
__device__ __forceinline__ float (&acc_rows(float (&acc)[R * TN / 2], int r))[TN / 2]
{
    return *reinterpret_cast<float(*)[TN / 2]>(acc + r * (TN / 2));
}

/* The wgmmas of K tiles [kt0, kt1) of a unit into acc, R blocks of 64 rows
 * of the stage's A from block a0 on (a cooperative consumer its own half:
 * R 1, a0 w; a ping-pong consumer the whole tile: R 2, a0 0), the first
 * at use `it` of the ring (advanced past the last).  A stage is released
 * one K tile late, once the next one's wgmma is issued and its own has
 * completed; the last stays with the caller, its wgmma still in flight. */
template <int FP16, int A_K, int B_K, int TM, int TN, int NST, bool CL, int R>
__device__ __forceinline__ void mma_tiles(float (&acc)[R * TN / 2], u32 smem, u32 full, u32 empty,
                                          int a0, int kt0, int kt1, int &it)
{
    int lane = (int)threadIdx.x % 32;
    for (int kt = kt0; kt < kt1; ++kt, ++it) {
        int s = it % NST;
        bar_wait(full + 8 * s, (u32)(it / NST) & 1);
        /* 64 rows of A are 8192 bytes in either layout (K-major: 64 rows of
         * 128 bytes; MN-major: one 64-column block). */
        u32 sa = smem + s * G90_A_STAGE_BYTES(TM) + a0 * 8192;
        u32 sb = smem + NST * G90_A_STAGE_BYTES(TM) + s * G90_B_STAGE_BYTES(TN);
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < G90_TILE_K / 16; ++kk)
#pragma unroll
            for (int r = 0; r < R; ++r)
                wgmma_ss<FP16, A_K ? 0 : 1, B_K ? 0 : 1, TN>(
                    acc_rows<TN, R>(acc, r), operand_desc(sa + r * 8192, A_K, kk),
                    operand_desc(sb, B_K, kk), (kt - kt0) | kk);
        wg_commit();
        wg_fence_acc(acc);
        if (kt > kt0) {
            wg_wait<1>(); /* the previous stage's wgmma is done reading */
            wg_fence_acc(acc);
            if (lane == 0)
                release<CL>(empty + 8 * ((it - 1) % NST));
        }
    }
}

template <int FP16, int A_K, int B_K, int TM, int TN, int SPL, int NST, bool CL, bool SW>
__device__ __forceinline__ void consume(const CUtensorMap *tc, const gdt_gemm_tma_c &co,
                                        const gdt_gemm_tma_params &p,
                                        float *ws, unsigned *counters, u32 smem, u32 full,
                                        u32 empty, int ktiles, int ntiles, int nunits)
{
    constexpr bool PAIRED = CL || SPL == SPLIT_PAIR;
    int w = (int)threadIdx.x / 128 - 1, lane = (int)threadIdx.x % 32;
    u32 cbuf = smem + G90_C_OFFSET(TM, TN, NST) + w * 2 * G90_C_BLOCK_BYTES;
    float acc[TN / 2];
#pragma unroll
    for (int i = 0; i < TN / 2; ++i)
        acc[i] = 0.f;
    int it = 0, stores = 0, j = 0;
    for (int u = first_unit<PAIRED>(); u < nunits; u += unit_stride<PAIRED>(), ++j) {
        work_unit wk = work_at<TM, TN, SPL, CL>(p, u, ntiles, ktiles);
        if constexpr (SPL == SPLIT_SK)
            if (wk.kt0 == wk.kt1)
                continue; /* an empty slot of the schedule (gdt_sk_unit_of) */
        mma_tiles<FP16, A_K, B_K, TM, TN, NST, CL, 1>(acc, smem, full, empty, w, wk.kt0, wk.kt1, it);
        wg_wait<0>();
        wg_fence_acc(acc);
        if (SPL == SPLIT_PAIR && wk.kt0 == wk.kt1) {
#pragma unroll
            for (int i = 0; i < TN / 2; ++i)
                acc[i] = 0.f; /* split 1 of one K tile: nothing loaded, nothing to release */
        } else if (lane == 0)
            release<CL>(empty + 8 * ((it - 1) % NST));
        if (CL && wk.c.n0 >= p.n)
            continue; /* a ghost: no tile to store, no counter to count at */
        /* SPLIT_SK: a tile cut across units, through the workspace as SPLIT_WS's splits. */
        if constexpr (SPL == SPLIT_WS || SPL == SPLIT_SK)
            if (SPL == SPLIT_WS || wk.pieces > 1) {
                int splits = SPL == SPLIT_SK ? wk.pieces : p.splits;
                store_partial<TN>(ws, acc, w, wk, p);
                u32 flag = smem + G90_FLAG_OFFSET(TM, TN, NST, SPL);
                if (!last_split<TM / 64>(counters + wk.tile, flag, splits))
                    continue;
                sum_splits<TN>(ws, acc, w, wk, splits, p);
            }
        if constexpr (SPL == SPLIT_PAIR) {
            u32 recv_full = smem + G90_FLAG_OFFSET(TM, TN, NST, SPL);
            if (!pair_reduce<TN>(acc, smem + G90_C_OFFSET(TM, TN, NST) + (1 - w) * 2 * G90_C_BLOCK_BYTES,
                                 recv_full, recv_full + 8, w, j))
                continue;
        }
        if constexpr (SW)
            epilogue_swab<FP16, TN>(tc, acc, cbuf, w, wk.c, stores);
        else
            store_tile<FP16, TN>(tc, co, p, acc, cbuf, w, wk.c, wk.c.m0 + 64 * w, stores);
    }
    if ((int)threadIdx.x % 128 == 0)
        bulk_wait<0>(); /* shared memory stays valid until the last store is done */
}

/* PING-PONG (PP): each consumer warpgroup owns whole 128 x TN tiles, the
 * two m64 halves of one accumulator (TN of them a thread: TN 64 or 128,
 * so that 232 registers hold it), consumer 0 the CTA's even tiles of the
 * walk and consumer 1 its odd ones; the producer loads every tile's stages
 * in walk order, as for the cooperative consumers, and each stage is read
 * by one consumer (empty barrier count 4).  The consumers' MMA phases
 * alternate (TURNS below), so that one's epilogue (convert, st.shared,
 * TMA store) and the pipeline's ramp into its next tile run under the
 * other's wgmmas.  Split-K, stream-K, clusters and swap-AB are the
 * cooperative form's alone.
 *
 * TURNS: named barriers G90_PP_BAR + w (256 threads: consumer w's bar.sync
 * and the other's bar.arrive).  The CTA's tile j is turn j, consumer
 * j % 2's: it syncs on its own barrier, issues the tile's wgmmas (waiting
 * every full barrier of the tile), arrives on the other's barrier, then
 * waits for its wgmmas and stores the tile.  Consumer 1 arrives on
 * consumer 0's barrier once at the start (turn -1), so consumer 0 goes
 * first; after the last turn, J - 1 of the CTA's J tiles, consumer J % 2
 * takes its hand-over with one more bar.sync, so no arrival is pending at
 * exit.  The turns are one sequence, so no barrier holds two arrivals of
 * one consumer.
 *
 * Why a consumer may wait on a full barrier's parity though it skips the
 * other consumer's rounds of that stage: tile j's stages are uses
 * j ktiles to (j + 1) ktiles - 1 of the ring; when consumer w waits for use
 * `it` (round r of stage s), the other consumer has waited every earlier
 * use (its turn ended before w's began), so round r - 1 of stage s is
 * complete; and round r + 1 cannot be, since its load waits for w's release
 * of round r.  The parity therefore names round r. */
#define G90_PP_BAR 4

/* The CTA's tiles (blockIdx.x, then every gridDim.x-th). */
__device__ __forceinline__ int cta_tiles(int ntiles)
{
    int b = (int)blockIdx.x, g = (int)gridDim.x;
    return b < ntiles ? (ntiles - 1 - b) / g + 1 : 0;
}

template <int FP16, int A_K, int B_K, int TN, int NST>
__device__ __forceinline__ void consume_pp(const CUtensorMap *tc, const gdt_gemm_tma_c &co,
                                           const gdt_gemm_tma_params &p, u32 smem, u32 full, u32 empty, int ktiles, int ntiles)
{
    constexpr int TM = G90_TILE_M;
    int w = (int)threadIdx.x / 128 - 1, lane = (int)threadIdx.x % 32;
    u32 cbuf = smem + G90_C_OFFSET(TM, TN, NST) + w * 2 * G90_C_BLOCK_BYTES;
    float acc[TN];
#pragma unroll
    for (int i = 0; i < TN; ++i)
        acc[i] = 0.f;
    int stores = 0, j = w;
    if (w == 1)
        named_arrive(G90_PP_BAR, 256); /* turn -1 */
    for (int u = (int)blockIdx.x + w * (int)gridDim.x; u < ntiles; u += 2 * (int)gridDim.x, j += 2) {
        tile_coord c = unit_tile<TM, TN, false>(p, u);
        int it = j * ktiles;
        named_sync(G90_PP_BAR + w, 256);
        mma_tiles<FP16, A_K, B_K, TM, TN, NST, false, 2>(acc, smem, full, empty, 0, 0, ktiles, it);
        named_arrive(G90_PP_BAR + 1 - w, 256);
        wg_wait<0>();
        wg_fence_acc(acc);
        if (lane == 0)
            bar_arrive(empty + 8 * ((it - 1) % NST));
#pragma unroll
        for (int r = 0; r < 2; ++r)
            store_tile<FP16, TN>(tc, co, p, acc_rows<TN, 2>(acc, r), cbuf, w, c, c.m0 + 64 * r, stores);
    }
    if (cta_tiles(ntiles) % 2 == w)
        named_sync(G90_PP_BAR + w, 256); /* the last turn's hand-over */
    if ((int)threadIdx.x % 128 == 0)
        bulk_wait<0>(); /* shared memory stays valid until the last store is done */
}

/* A_K, B_K: the problem's layouts.  SW (swap-AB) runs the problem
 * C^T = B^T . A^T: B is the wgmma's A side (TM rows of N), A its B side
 * (TN columns of M), p is the swapped problem's (m and n exchanged: the
 * host's gdt__gemm_tma_init) and only the epilogue writes C as it is. */
template <int FP16, int A_K, int B_K, int TN, int SPL, int NST, bool CL, int NC, bool SW, bool PP>
__device__ __forceinline__ void gemm(const CUtensorMap *ta, const CUtensorMap *tb,
                                     const CUtensorMap *tc, const gdt_gemm_tma_params &p,
                                     float *ws, unsigned *counters, const gdt_gemm_tma_c &co)
{
    constexpr int TM = 64 * NC, KA = SW ? B_K : A_K, KB = SW ? A_K : B_K;
    static_assert(NC == 2 || (NC == 1 && !CL && SPL != SPLIT_PAIR),
                  "one consumer: no cluster (each CTA multicasts half of two consumers' rows)");
    static_assert(!SW || (!CL && SPL != SPLIT_PAIR && TN <= 64), "swap-AB: TN (M's tile) of at "
                  "most 64, one output block a consumer, no cluster");
    static_assert(KB || TN % 64 == 0, "an MN-major wgmma B side loads 64-column boxes");
    static_assert(SPL != SPLIT_SK || !CL, "stream-K: no cluster (a unit is one CTA's)");
    static_assert(G90_EPILOGUE == 0 || !SW, "swap-AB: the transposing epilogue through shared memory");
    static_assert(!PP || (NC == 2 && SPL == SPLIT_NONE && !CL && !SW && TN <= 128),
                  "ping-pong: two consumers of whole 128 x TN tiles (TN accumulators a thread, "
                  "TN 64 or 128), no split, no cluster, no swap-AB");
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    /* Swizzle atoms start on 1024-byte boundaries; the launch reserves 1024
     * bytes of slack for this. */
    u32 smem = (smem_addr(smem_raw) + 1023u) & ~1023u;
    u32 full = smem + G90_BAR_OFFSET(TM, TN, NST, SPL), empty = full + 8 * NST;
    int ktiles = (p.k + G90_TILE_K - 1) / G90_TILE_K, ntiles = walked_tiles<TN, CL>(p);
    int nunits = SPL == SPLIT_WS ? ntiles * p.splits : ntiles;
    if constexpr (SPL == SPLIT_SK) {
        gdt_sk sk = gdt_sk_plan(ntiles, ktiles, p.splits);
        nunits = gdt_sk_slots(&sk);
    }
    constexpr bool PAIRED = CL || SPL == SPLIT_PAIR;
    if (PAIRED && cluster_size() != 2)
        __trap(); /* launched without its cluster: the partner's barriers do not exist */
    if (threadIdx.x == 0) {
        for (int s = 0; s < NST; ++s) {
            bar_init(full + 8 * s, 1);
            /* every consumer warp; ping-pong: the one consumer reading the stage */
            bar_init(empty + 8 * s, (CL ? 2 : 1) * 4 * (PP ? 1 : NC));
        }
        if constexpr (SPL == SPLIT_PAIR) { /* recv_full, recv_empty: SPLIT_WS's flag word */
            bar_init(smem + G90_FLAG_OFFSET(TM, TN, NST, SPL), 1);
            bar_init(smem + G90_FLAG_OFFSET(TM, TN, NST, SPL) + 8, 1);
        }
        bar_init_fence();
    }
    if constexpr (PAIRED)
        cluster_sync();
    else
        __syncthreads();
    /* Launched with programmatic dependent launch (engines/gemm_tma.c): the
     * kernel before this one on the stream may still run, and may write A,
     * B, C, ws or counters; nothing above touched global memory.  The next
     * kernel may start as this one's CTAs finish (it waits the same way). */
    grid_dep_wait();
    grid_dep_launch();
    /* Two consumers take 232 registers each from the producer's; one
     * consumer asks for none: at 256 threads a thread may have 255, and
     * ptxas gives the one-consumer entries 78 to 108. */
    if (threadIdx.x < 128) {
        if constexpr (NC == 2)
            regs_dec<40>();
        if (threadIdx.x == 0)
            produce<KA, KB, TM, TN, SPL, NST, CL>(ta, tb, p, smem, full, empty, ktiles, ntiles,
                                                  nunits);
    } else {
        if constexpr (NC == 2)
            regs_inc<232>();
        if constexpr (PP)
            consume_pp<FP16, KA, KB, TN, NST>(tc, co, p, smem, full, empty, ktiles, ntiles);
        else
            consume<FP16, KA, KB, TM, TN, SPL, NST, CL, SW>(tc, co, p, ws, counters, smem, full,
                                                             empty, ktiles, ntiles, nunits);
    }
    /* Lanes 1 to 31 of warp 0 skipped the producer's loop: they wait for
     * lane 0 at the warp's barrier, so that the warp reaches the cluster's
     * converged.  SPLIT_PAIR: the partner's summing consumer arrives at
     * this CTA's recv_empty after this CTA's consumers are done. */
    if constexpr (PAIRED) {
        __syncwarp();
        cluster_sync();
    }
}


/* ---------------------------------------------------------------- entry */

/* One kernel entry: `name` for the dtype fp16 (1 fp16, 0 bf16), the
 * problem's operand layouts ak and bk (1: K-major), and the configuration
 * (tn, split, nst, cl, nc consumer warpgroups, sw swap-AB, pp ping-pong).  The launch:
 * G90_THREADS(nc) threads, the shared memory of gdt__gemm_tma_smem_bytes
 * (engines/gdt_gemm_tma.h), and in a cluster configuration (cl, or split
 * SPLIT_PAIR) clusters of (2, 1, 1). */
#define GDT_GEMM_SM90_KERNEL(name, fp16, ak, bk, tn, split, nst, cl, nc, sw, pp)                    \
    extern "C" __global__ void __launch_bounds__(G90_THREADS(nc), 1)                                \
        name(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,        \
             const __grid_constant__ CUtensorMap tc, const gdt_gemm_tma_params p, float *ws,        \
             unsigned *counters, const gdt_gemm_tma_c co)                                           \
    {                                                                                               \
        gemm<fp16, ak, bk, tn, split, nst, cl, nc, sw, pp>(&ta, &tb, &tc, p, ws, counters, co);     \
    }

/* The 128 x tn tile of two consumers, without swap-AB. */
#define GDT_GEMM_SM90_ENTRY(name, fp16, ak, bk, tn, split, nst, cl)                                 \
    GDT_GEMM_SM90_KERNEL(name, fp16, ak, bk, tn, split, nst, cl, 2, false, false)

/* The ping-pong form (PP) of the 128 x tn tile: unsplit, no cluster. */
#define GDT_GEMM_SM90_PINGPONG(name, fp16, ak, bk, tn, nst)                                         \
    GDT_GEMM_SM90_KERNEL(name, fp16, ak, bk, tn, SPLIT_NONE, nst, false, 2, false, true)

#endif
