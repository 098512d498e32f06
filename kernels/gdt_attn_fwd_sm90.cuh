/* kernels/gdt_attn_fwd_sm90.cuh: the Hopper attention forward,
 * FlashAttention-3 style, one source for both sides.  O = softmax(scale
 * Q K^T + mask) V and the natural-log log-sum-exp per query row, bf16 or
 * fp16 in and out, fp32 accumulate, head dim 64 or 128, causal none /
 * top-left / bottom-right, GQA.  The same outputs in the same layout as
 * kernels/attn_fwd.cuh: O strided like Q, LSE packed [b, h_q, s_q].  nvcc
 * builds its entries ahead of time (kernels/hand/attn_fwd_sm90.cu, the
 * `hand` engine's sdpa_fwd.hand); NVRTC compiles the same text as
 * kernels/attn_fwd.cuh's PIPE=1 for the attention_fwd rows with PIPE=1
 * (no toolkit header: gdt_sm90.cuh declares CUtensorMap under NVRTC), and
 * tests/cpu/test_attn_fwd_tma_rows.c checks that each entry's two builds
 * are the same bytes.  Both launch it through one host side,
 * engines/attn_fwd_tma.c.  Its parameters are the entry's
 * template arguments (dtype, head dim, NC the consumer warpgroups: 2, or 3
 * at d64); the fixed sizes below are macros
 * named AF90_*, clear of the attention rows' -D names (BLOCK_M, STAGES,
 * ...).  The includer defines GDT_FP16 before (gdt_ptx.cuh needs it);
 * nothing here uses what it binds.
 *
 * A tile is (batch, query head, BM = 64 NC query rows: 128, or 192 at
 * d64, FlashAttention-3's tile there: a 128-row tile gives each key block
 * only two m64n128k64 S GEMMs).  The grid is persistent and its schedule
 * dynamic: at most as many CTAs as are resident at once (one per SM: 384
 * threads at 168 registers, or 512 at 128), CTA i starting on tile i of
 * one linear order (schedule: a few heads at a time, the longest causal
 * tiles first) and drawing each next tile from a counter in global memory
 * (two counters the plan owns) as it frees up, so that uneven causal tiles
 * balance over the SMs as under the hardware's dispatch of one CTA per
 * tile.  Warpgroup 0 gives its registers away (setmaxnreg.dec); one
 * of its threads issues the TMA loads, tile after tile: the Q tile, then
 * the K and V blocks (AF90_BLOCK_N keys each: 128, or 176 where an attention
 * row binds it) into two rings of AF90_STAGES stages
 * (2, the hand engine's; 3 where an attention row binds STAGES=3), each
 * stage behind a full barrier (the copies' byte count) and an empty barrier
 * (one arrival per consumer warp).  Warpgroups 1 .. NC are the consumers
 * (setmaxnreg.inc: 24/240 of two, 32/160 of three, FA3's), 64 query rows
 * of each tile each:
 * S = Q K^T by wgmma with both operands in shared memory, the online softmax
 * in registers (exp2, the scale folded into log2 e), P converted in
 * registers and O += P V by wgmma taking P from registers and V MN-major
 * from shared memory.  Block j+1's S is issued beside block j's P V, so the
 * softmax of one block overlaps the other's GEMM; and the consumers take
 * turns issuing their GEMMs (named barriers, a ring), so one's softmax
 * overlaps the others' GEMMs.  Causal: blocks past the tile's last diagonal are never
 * loaded, only the blocks that cross a diagonal or the key tail are masked.
 * Across tiles nothing drains: the Q buffer has an empty barrier that the
 * consumers arrive on after a tile's last Q K^T, so the next tile's Q and
 * first K and V blocks load while they finish that tile's softmax, P V and
 * O / LSE stores, and the turns run on from one tile into the next.
 *
 * BARRIERS (every count and phase below is per CTA; n is the CTA's n-th
 * tile, 0-based; a tile of nb key blocks uses ring slots R .. R + nb - 1,
 * R the blocks of the CTA's earlier tiles; slot g is stage g % S and the
 * (g / S)-th use of that stage, phase parity (g / S) % 2, S = AF90_STAGES;
 * both depend on g modulo 2 S only, so the CTA keeps R modulo 2 S).  A wait for
 * parity P returns once the phase of parity P has completed; on a fresh
 * barrier parity 1 passes at once.
 *   Q full   (count 1 + tx): the producer's expect_tx and the TMA bytes of
 *            tile n's Q complete phase n; each consumer thread waits parity
 *            n % 2 before the tile.  Past the CTA's last tile (N tiles),
 *            the producer's plain arrive (no bytes) completes phase N.
 *   Q empty  (count 4 NC, one per consumer warp): each consumer warp arrives
 *            once per tile, after the wgmma of the tile's last Q K^T has
 *            completed (first_block when nb is 1, else next_block of block
 *            nb - 2; at once when nb is 0), completing phase n; the
 *            producer waits parity (n % 2) ^ 1 before loading tile n's Q
 *            (tile 0 passes, tile n >= 1 waits for phase n - 1).
 *   K full / V full [stage] (count 1 + tx): the producer's expect_tx and the
 *            TMA bytes of slot g complete phase g / S of its stage; the
 *            consumers wait parity (g / S) % 2.
 *   K empty / V empty [stage] (count 4 NC): each consumer warp arrives once per
 *            slot, K once its S has completed, V once its P V has; the
 *            producer waits parity ((g / S) % 2) ^ 1 before loading slot g
 *            (slots 0 .. S - 1 pass, slot g >= S waits for the release of
 *            slot g - S).
 *   Named 1 .. NC (256 threads: its consumer's bar.sync, the previous
 *            consumer's bar.arrive): consumer w's turn is bar.sync 1 + w,
 *            its hand-over bar.arrive on the next consumer's, 1 + (w + 1) %
 *            NC (2 - w of two), one turn per key block of every tile (S of
 *            block 0 alone; S of j + 1 and P V of j).  Consumer NC - 1
 *            arrives on 1 once at the start, so consumer 0 goes first; the
 *            turns go round the ring 0, 1, .., NC - 1, 0, ... over all the
 *            CTA's tiles (each takes nb turns per tile, nb the same for
 *            all); consumer 0 ends with one more bar.sync 1 that takes
 *            consumer NC - 1's last hand-over, so each barrier has as many
 *            arrivals as syncs, all of one consumer.  No barrier ever holds
 *            two arrivals of one consumer: the turns are one sequence (turn
 *            t + 1 starts after turn t's hand-over), and consumer w - 1's
 *            arrival after its turn k + 1 follows consumer w's bar.sync of
 *            turn k, NC - 1 turns earlier (the start's arrival on 1 is
 *            consumer 0's turn 0's).
 * The producer never waits for what only its later loads give: it waits Q
 * empty of tile n - 1 after issuing every load of tile n - 1, and the
 * consumers' last Q K^T of tile n - 1 needs only those.
 *
 * TILE SLOT (one 32-bit word of shared memory past the barriers).  Which
 * tile is the CTA's n-th: the producer writes its index L into the slot
 * after its wait on Q empty for tile n (phase n - 1; tile 0 passes) and
 * before its arrival on Q full for tile n (expect_tx, or the plain arrive
 * past the last tile, with an L >= the tile count: the end).  Each consumer
 * thread reads the slot right after its Q full wait for tile n, keeps
 * (bi, hq, m0) in registers and reads it again only after its next Q full.
 * The arrival releases the write and the wait acquires it; the next write
 * waits for Q empty of tile n, whose 4 NC arrivals each follow their
 * warp's read (every lane reads before the warp's first wgmma of the tile;
 * at once where nb is 0), so no consumer reads a slot rewritten under it.
 * On the end each consumer leaves its loop (consumer 0 then closes the
 * turns); nothing arrives on Q empty for it.
 *
 * COUNTERS (two 32-bit words the plan owns, zero at each launch).  Tile i
 * of the grid's first gridDim.x is CTA i's; the producer draws its next
 * one, once its current tile's Q is requested, as atomicAdd(tiles
 * fetched, 1) + gridDim.x, until it draws one >= the tile count (so the
 * count ends at the tile count).  Then it fences, adds 1 to CTAs done,
 * and the one that completes that count (gridDim.x - 1 before its add:
 * every CTA's last draw is in) fences and stores zero into both.  The
 * host allocates and zeroes them once, when the plan's launch state is
 * loaded (engines/attn_fwd_tma.c, engines/gdt_plan_counters.h).  A
 * throwaway model of this protocol with random interleavings of several
 * CTAs' threads, their TMA completions and three launches in a row found
 * no deadlock, no slot or buffer rewritten before its readers were done,
 * every tile run once per launch and both counters zero after each (an
 * early slot write, an early read, a reset by the first CTA done and a
 * missing end arrival each fail it).  A second model, of the warps of NC =
 * 2 and 3 consumers (every wait checked to pass on the phase it means,
 * every named-barrier completion four syncing warps of its consumer and
 * four arriving warps of the previous one, the turns one at a time in ring
 * order, no TMA into a buffer being read, the slot as written, each tile
 * once, counters zero, every barrier at rest at exit) passed 500 random
 * shapes and grids of three launches each; counts of 8 with three
 * consumers, a hand-over out of the ring, the opening arrival by another
 * consumer, no closing sync and an early Q release each fail it.
 *
 * CLUSTER OF TWO (AF90_CLUSTER 2, an attention row's CLUSTER_SHAPE=3;
 * 128-key blocks).  The two CTAs of a cluster walk the same steps
 * statically (step L, then L + the clusters; no counter), step L being a
 * pair of query tiles of one head (p.tiles counts a head's pairs), rank r
 * taking the pair's r-th tile (past s_q: zero-filled Q, no key block
 * computed, nothing stored).  Both CTAs' rings take the key blocks of the
 * pair's upper tile within s_q (kv_range), so their ring slots are the
 * same sequence; under a causal mask the lower tile sees up to BM keys
 * fewer, and its consumers wait for those blocks' stages to land and
 * release them without computing (skip_blocks).  Each CTA's producer
 * loads keys 64 r .. 64 r + 63 of every K and V block into that stage of
 * both CTAs (multicast): each
 * full barrier still expects the whole block's bytes (its own producer's
 * expect_tx; the peer's bytes may land first, the phase waiting on that
 * arrival), and K empty / V empty count the consumer warps of both CTAs
 * (8 NC), each consumer warp arriving on its own CTA's barrier and the
 * peer's, so that neither producer writes a stage either CTA still reads.
 * Q, its barriers, the tile slot and the turns stay per CTA.  A cluster
 * barrier follows the barriers' init (the peer's must exist before an
 * arrival or a multicast reaches them) and precedes the exit.  A throwaway
 * model of the two CTAs' K and V rings (producers, 1 to 8 consumer warps a
 * CTA, 2 or 3 stages, halves landing in any order) passed 3000 random
 * interleavings: no deadlock, no half landing in a stage a consumer still
 * reads or in another slot's phase, every read seeing both halves of its
 * slot, with one CTA's consumers skipping random slots (waiting for them
 * to land, then releasing them); releases to the own CTA only, empty
 * counts of one CTA's warps, an expect_tx of one half and skips released
 * before they land each fail it.  Not yet run on a GPU.
 *
 * Tiles are AF90_BLOCK_N rows x d (K, V) or BM rows x d (Q) in 128-byte-swizzled
 * shared memory, as the TMA's SWIZZLE_128B writes them: d/64 column blocks
 * of AF90_BLOCK_N (BM) rows x 128 bytes (16 KB; 22 KB at 176 keys, 24 KB
 * for Q at BM 192), 16-byte
 * chunk c of row r at chunk c ^ (r % 8).  Q and K are
 * the K-major operands of Q K^T; V, keys by d, is the MN-major B of P V.
 * Rows past s_q or s_kv are zero-filled by the TMA. */
#ifndef GDT_ATTN_FWD_SM90_CUH
#define GDT_ATTN_FWD_SM90_CUH

#include "gdt_sm90.cuh"

/* Keys per block: 128 unless the includer binds 176 (an attention row's
 * BLOCK_N, kernels/attn_fwd.cuh; FlashAttention-3's non-causal d128 block:
 * S of 88 and P of 44 registers beside O's 64, two consumers only). */
#ifndef AF90_BLOCK_N
#define AF90_BLOCK_N 128
#endif
static_assert(AF90_BLOCK_N == 128 || AF90_BLOCK_N == 176, "blocks of 128 or 176 keys");
#define AF90_S_REGS (AF90_BLOCK_N / 2) /* a thread's scores of one block: m64nBNk16's accumulator */
/* Query tiles a cluster walks together: 1, or 2 where an attention row
 * binds it (CLUSTER): two neighbouring tiles of one head, each CTA loading
 * half of every K and V block into both CTAs (TMA multicast), so that each
 * block leaves L2 once for the pair (CLUSTER OF TWO above). */
#ifndef AF90_CLUSTER
#define AF90_CLUSTER 1
#endif
static_assert(AF90_CLUSTER == 1 || (AF90_CLUSTER == 2 && AF90_BLOCK_N == 128),
              "clusters of one, or of two with 128-key blocks");
/* The K and V rings' stages: 2 unless the includer binds another (an
 * attention row's STAGES, kernels/attn_fwd.cuh); 3 at d128 is 224 KB of
 * the 227 an SM gives a CTA.  The barriers and the tile slot take
 * 16 + 32 S + 4 bytes of the launch's 128 (engines/attn_fwd_tma.c). */
#ifndef AF90_STAGES
#define AF90_STAGES 2
#endif
static_assert(AF90_STAGES == 2 || AF90_STAGES == 3, "two or three stages");
#define AF90_COL_BLOCK_BYTES (AF90_BLOCK_N * 128) /* BLOCK_N rows of one 64-element column block: a K or V stage's */
/* Per NC, the consumer warpgroups (2, or 3 at d64): 64 query rows each, a
 * producer warpgroup beside them, and the registers setmaxnreg moves
 * (128 x dec + 128 NC x inc <= 65536; 168 is what ptxas gives 384
 * threads, 128 what it gives 512). */
#define AF90_BLOCK_M(nc) (64 * (nc))
#define AF90_THREADS(nc) (128 * ((nc) + 1))
#define AF90_CONSUMER_WARPS(nc) (4 * (nc))
#define AF90_REGS_DEC(nc) ((nc) == 2 ? 24 : 32)
#define AF90_REGS_INC(nc) ((nc) == 2 ? 240 : 160)

/* Mirrored field for field by gdt_attn_fwd_tma_params in engines/gdt_attn_fwd_tma.h. */
struct gdt_hand_attn_params {
    void *o;
    float *lse;
    unsigned *sched; /* the plan's: tiles fetched, CTAs done (next_tile, plan_end); zero at launch */
    long long o_s[3]; /* O's batch, head and row strides, elements */
    int s_q, s_kv, h_q, group;
    int causal; /* 0 none, 1 top-left, 2 bottom-right */
    float scale_log2;
    int section; /* query heads per section of the tile order (schedule), a multiple of group */
    int heads, tiles; /* b * h_q, and query tiles per head: the CTAs walk heads * tiles tiles */
};
static_assert(sizeof(gdt_hand_attn_params) == 88, "must match engines/gdt_attn_fwd_tma.h");

/* A tile of ROWS rows (the map's box) from row0 of (head, batch), column
 * block by column block (ROWS x 128 bytes each); the full box counts
 * toward the barrier even where it is zero-filled. */
template <int D, int ROWS = AF90_BLOCK_N>
__device__ __forceinline__ void load_tile(u32 dst, const CUtensorMap *map, u32 bar, int row0, int head,
                                          int batch)
{
    bar_expect_tx(bar, D / 64 * ROWS * 128);
#pragma unroll
    for (int j = 0; j < D / 64; ++j)
        tma_load(dst + j * ROWS * 128, map, bar, 64 * j, row0, head, batch);
}

/* A K or V block at row0: the whole block, or in a cluster of two this
 * CTA's half (rank r: keys row0 + 64 r, at 64 r rows into each column block)
 * into both CTAs; each CTA's barrier expects the whole block's bytes, its
 * own half's and the peer's. */
template <int D>
__device__ __forceinline__ void load_kv(u32 dst, const CUtensorMap *map, u32 bar, int row0, int head, int batch)
{
    if constexpr (AF90_CLUSTER == 1) {
        load_tile<D>(dst, map, bar, row0, head, batch);
    } else {
        constexpr int HALF = AF90_BLOCK_N / 2;
        const int r = (int)cluster_rank();
        bar_expect_tx(bar, D / 64 * AF90_BLOCK_N * 128);
#pragma unroll
        for (int j = 0; j < D / 64; ++j)
            tma_load_multicast(dst + j * AF90_BLOCK_N * 128 + r * HALF * 128, map, bar, 64 * j, row0 + HALF * r,
                               head, batch);
    }
}

/* ---------------------------------------------------------------- state */

/* What one thread needs for the K/V loop of the current tile; barriers 8
 * bytes apart from bar: Q full, then K full, V full, K empty and V empty
 * x AF90_STAGES each, then Q empty (BARRIERS in the header comment). */
struct attn_ctx {
    u32 sQ, sK, sV, bar;
    u32 ring;          /* the ring slot of the tile's key block 0: blocks loaded before it, all tiles, modulo 2 S */
    int w, lane;       /* consumer warpgroup (0 .. NC - 1), lane */
    int wrow;          /* this thread's first query row; the second is wrow + 8 */
    int nblocks, first_masked, off;
    int walk; /* a cluster of two: the key blocks both CTAs' rings take for the pair (kv_range) */
};

/* Key block blk of the tile is ring slot ring + blk: stage slot % S, and the
 * slot / S-th use of that stage, so its barriers' phase parity (slot / S) % 2.
 * Unsigned: with S a power of two the slot wraps at 2^32, a multiple of 2 S,
 * with the same stage and parity; otherwise ring < 2 S (ring_next) and
 * blk < 2^31, so it never wraps. */
__device__ __forceinline__ u32 slot(const attn_ctx &c, int blk) { return c.ring + (u32)blk; }
__device__ __forceinline__ u32 stage(const attn_ctx &c, int blk) { return slot(c, blk) % AF90_STAGES; }
__device__ __forceinline__ u32 q_full(const attn_ctx &c) { return c.bar; }
__device__ __forceinline__ u32 k_full(const attn_ctx &c, int blk) { return c.bar + 8 + 8 * stage(c, blk); }
__device__ __forceinline__ u32 v_full(const attn_ctx &c, int blk)
{
    return c.bar + 8 + 8 * AF90_STAGES + 8 * stage(c, blk);
}
__device__ __forceinline__ u32 k_empty(const attn_ctx &c, int blk)
{
    return c.bar + 8 + 16 * AF90_STAGES + 8 * stage(c, blk);
}
__device__ __forceinline__ u32 v_empty(const attn_ctx &c, int blk)
{
    return c.bar + 8 + 24 * AF90_STAGES + 8 * stage(c, blk);
}
__device__ __forceinline__ u32 q_empty(const attn_ctx &c) { return c.bar + 8 + 32 * AF90_STAGES; }
__device__ __forceinline__ u32 phase(const attn_ctx &c, int blk) { return (slot(c, blk) / AF90_STAGES) & 1; }
/* The key blocks the CTA's ring takes for its tile: its own, or in a
 * cluster of two the pair's walk (the peer's tile may take more). */
__device__ __forceinline__ int walked(const attn_ctx &c) { return AF90_CLUSTER == 1 ? c.nblocks : c.walk; }

/* Past a tile's walked key blocks: the next tile's block 0, modulo 2 S
 * where S is not a power of two (a stage and a parity repeat every 2 S
 * slots; a power of two keeps the plain count, the two-stage kernel's code
 * as it was before three stages). */
__device__ __forceinline__ void ring_next(attn_ctx &c)
{
    c.ring += (u32)walked(c);
    if (AF90_STAGES & (AF90_STAGES - 1))
        c.ring %= 2 * AF90_STAGES;
}

/* The byte offset of block blk's stage in the K and V rings. */
template <int D> __device__ __forceinline__ u32 stage_at(const attn_ctx &c, int blk)
{
    return stage(c, blk) * (D / 64) * AF90_COL_BLOCK_BYTES;
}

/* Accumulator fragment of m64nNk16: element v of this thread is at row
 * wrow + 8 ((v >> 1) & 1), column 8 (v >> 2) + 2 (lane % 4) + (v & 1). */
template <int D> struct attn_rows {
    float o[D / 2];
    float m[2], l[2];
};

/* ------------------------------------------------------------- consumer */

/* Q's column blocks are AF90_BLOCK_M(NC) rows of 128 bytes, K's AF90_BLOCK_N. */
template <int FP16, int D, int NC>
__device__ __forceinline__ void issue_scores(float (&s)[AF90_S_REGS], const attn_ctx &c, int blk)
{
    const u64 q = wg_desc(c.sQ + c.w * 64 * 128, 16);
    const u64 k = wg_desc(c.sK + stage_at<D>(c, blk), 16);
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        const u32 qstep = (kk >> 2) * AF90_BLOCK_M(NC) * 128 + (kk & 3) * 32;
        const u32 kstep = (kk >> 2) * AF90_COL_BLOCK_BYTES + (kk & 3) * 32;
        wgmma_ss<FP16, 0, 0, AF90_BLOCK_N>(s, wg_at(q, qstep), wg_at(k, kstep), kk > 0);
    }
}

/* V's 64-column blocks are AF90_COL_BLOCK_BYTES apart (LBO); a k16 step is 16
 * key rows, two 8-row groups of 1024 bytes (SBO). */
template <int FP16, int D>
__device__ __forceinline__ void issue_pv(attn_rows<D> &r, const u32 (&pa)[AF90_BLOCK_N / 16][4], const attn_ctx &c,
                                         int blk)
{
    const u64 v = wg_desc(c.sV + stage_at<D>(c, blk), AF90_COL_BLOCK_BYTES);
#pragma unroll
    for (int kk = 0; kk < AF90_BLOCK_N / 16; ++kk)
        wgmma_rs<FP16, D>(r.o, pa[kk], wg_at(v, kk * 2048));
}

/* Keys past s_kv or (causal) past a row's diagonal get -inf: past lim[h],
 * the last live key of row half h relative to n0 + 2 (lane % 4), clamped so
 * that the compare against an element's constant offset stays 32-bit. */
__device__ __forceinline__ void mask(float (&s)[AF90_S_REGS], const attn_ctx &c, const gdt_hand_attn_params &p, int n0)
{
    int lim[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        long long last = p.s_kv - 1;
        if (p.causal && (long long)c.wrow + 8 * h + c.off < last)
            last = (long long)c.wrow + 8 * h + c.off;
        last -= n0 + (c.lane & 3) * 2;
        lim[h] = (int)(last < -1 ? -1 : last > AF90_BLOCK_N ? AF90_BLOCK_N : last);
    }
#pragma unroll
    for (int v = 0; v < AF90_S_REGS; ++v)
        if ((v >> 2) * 8 + (v & 1) > lim[(v >> 1) & 1])
            s[v] = neg_inf();
}

/* Online softmax over one block: new running max and l, the scores become P
 * (unnormalized), alpha[h] the factor O's rows take once no wgmma writes O. */
template <int D>
__device__ __forceinline__ void softmax(attn_rows<D> &r, float (&s)[AF90_S_REGS], float sl2, float (&alpha)[2])
{
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float mx = r.m[h];
#pragma unroll
        for (int g = 0; g < AF90_BLOCK_N / 8; ++g)
            mx = fmaxf(mx, fmaxf(s[4 * g + 2 * h], s[4 * g + 2 * h + 1]));
        mx = fmaxf(mx, shfl_xor(mx, 1));
        mx = fmaxf(mx, shfl_xor(mx, 2));
        /* A row with nothing visible yet keeps max -inf: subtract 0, not -inf. */
        const float ms = mx == neg_inf() ? 0.f : mx * sl2;
        alpha[h] = fast_exp2(r.m[h] * sl2 - ms);
        r.m[h] = mx;
        float sum = 0.f;
#pragma unroll
        for (int g = 0; g < AF90_BLOCK_N / 8; ++g)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const float pv = fast_exp2(fmaf(s[4 * g + 2 * h + e], sl2, -ms));
                s[4 * g + 2 * h + e] = pv;
                sum += pv;
            }
        r.l[h] = r.l[h] * alpha[h] + sum;
    }
}

/* The scores of block blk, landed, to P; MASKED for the blocks that may
 * cross a diagonal or the key tail.  A compile-time choice, not a branch:
 * a branch here splits the loop body, and ptxas then puts P V's wait at
 * the join, before the whole softmax, which is the overlap lost. */
template <int D, bool MASKED>
__device__ __forceinline__ void scores_to_p(attn_rows<D> &r, float (&s)[AF90_S_REGS], float (&alpha)[2], const attn_ctx &c,
                                            const gdt_hand_attn_params &p, int blk)
{
    wg_fence_acc(s);
    if constexpr (MASKED)
        mask(s, c, p, blk * AF90_BLOCK_N);
    softmax(r, s, p.scale_log2, alpha);
}

template <int D> __device__ __forceinline__ void rescale(attn_rows<D> &r, const float (&alpha)[2])
{
#pragma unroll
    for (int v = 0; v < D / 2; ++v)
        r.o[v] *= alpha[(v >> 1) & 1];
}

template <int D> __device__ __forceinline__ void wait_o(attn_rows<D> &r)
{
    wg_wait<0>();
    wg_fence_acc(r.o);
}

/* Released by each consumer warp once its warpgroup's wgmma has read it;
 * only where `now` (the Q tile after the tile's last Q K^T). */
__device__ __forceinline__ void release(const attn_ctx &c, u32 bar, bool now = true)
{
    if (c.lane == 0 && now)
        bar_arrive(bar);
}

/* A K or V stage: to this CTA's producer, or in a cluster to both, since
 * either writes half of the stage (release at CTA scope: what it orders is
 * this warp's completed wgmma reads, as the GEMM's cluster release). */
__device__ __forceinline__ void release_kv(const attn_ctx &c, u32 bar)
{
    if constexpr (AF90_CLUSTER == 1) {
        release(c, bar);
    } else if (c.lane == 0) {
        bar_arrive_cluster(bar, 0);
        bar_arrive_cluster(bar, 1);
    }
}

/* A turn of consumer w: wait on its own barrier, 1 + w, for the previous
 * consumer's GEMMs to be issued.  The turns go round a ring, 0, 1, .., NC -
 * 1, 0, ...: consumer 0 goes first (the last consumer arrives for it once
 * at the kernel's start, and consumer 0 takes that last hand-over at its
 * end, turns_close).  The turns run on across tiles: each consumer takes
 * one per key block of every tile. */
__device__ __forceinline__ void turn_begin(const attn_ctx &c) { named_sync(1 + c.w, 256); }

/* The next consumer's barrier: 2 - w of two (the same numbers, spelled as
 * they were), 1 + (w + 1) % NC of more. */
template <int NC> __device__ __forceinline__ int turn_next(const attn_ctx &c)
{
    if constexpr (NC == 2)
        return 2 - c.w;
    else
        return c.w == NC - 1 ? 1 : c.w + 2;
}

/* Hands the turn over, the last block of a tile's too: the next consumer's
 * next turn may be its first of the next tile. */
template <int NC> __device__ __forceinline__ void turn_end(const attn_ctx &c)
{
    named_arrive(turn_next<NC>(c), 256);
}

template <int NC> __device__ __forceinline__ void turns_open(const attn_ctx &c)
{
    if (c.w == NC - 1)
        named_arrive(1, 256);
}

/* Consumer 0 takes the last consumer's last hand-over, so no arrival is
 * left pending on barrier 1 at the CTA's exit. */
__device__ __forceinline__ void turns_close(const attn_ctx &c)
{
    if (c.w == 0)
        named_sync(1, 256);
}

/* Block 0's S and its softmax, before the loop; masked whatever it holds
 * (the mask is exact, so this costs one pass and no branch). */
template <int FP16, int D, int NC>
__device__ __forceinline__ void first_block(attn_rows<D> &r, float (&s)[AF90_S_REGS], u32 (&pa)[AF90_BLOCK_N / 16][4],
                                            const attn_ctx &c, const gdt_hand_attn_params &p)
{
    float alpha[2];
    bar_wait(k_full(c, 0), phase(c, 0));
    turn_begin(c);
    wg_fence();
    issue_scores<FP16, D, NC>(s, c, 0);
    wg_commit();
    turn_end<NC>(c);
    wg_wait<0>();
    release_kv(c, k_empty(c, 0));
    release(c, q_empty(c), c.nblocks == 1); /* the tile's last Q K^T */
    scores_to_p<D, true>(r, s, alpha, c, p, 0); /* O is still zero: nothing to rescale */
    pack_a<FP16>(pa, s);
}

/* S of block blk + 1 beside P V of block blk.  Both stages are waited for
 * before the one wgmma.fence: a wait between the fence and P V is a loop
 * ptxas does not see the fence across, and it would inject another
 * (C7519).  V of blk was requested before K of blk + 1, so this rarely
 * waits longer. */
template <int FP16, int D, int NC, bool MASKED>
__device__ __forceinline__ void next_block(attn_rows<D> &r, float (&s)[AF90_S_REGS], u32 (&pa)[AF90_BLOCK_N / 16][4],
                                           const attn_ctx &c, const gdt_hand_attn_params &p, int blk)
{
    float alpha[2];
    bar_wait(k_full(c, blk + 1), phase(c, blk + 1));
    bar_wait(v_full(c, blk), phase(c, blk));
    turn_begin(c);
    wg_fence();
    issue_scores<FP16, D, NC>(s, c, blk + 1);
    wg_commit();
    issue_pv<FP16, D>(r, pa, c, blk);
    wg_commit();
    turn_end<NC>(c);
    wg_wait<1>();
    release_kv(c, k_empty(c, blk + 1));
    release(c, q_empty(c), blk + 2 == c.nblocks); /* the tile's last Q K^T */
    scores_to_p<D, MASKED>(r, s, alpha, c, p, blk + 1);
    wait_o(r);
    release_kv(c, v_empty(c, blk));
    rescale(r, alpha);
    pack_a<FP16>(pa, s);
}

template <int FP16, int D>
__device__ __forceinline__ void last_pv(attn_rows<D> &r, const u32 (&pa)[AF90_BLOCK_N / 16][4], const attn_ctx &c,
                                        int blk)
{
    bar_wait(v_full(c, blk), phase(c, blk));
    wg_fence();
    issue_pv<FP16, D>(r, pa, c, blk);
    wg_commit();
    wait_o(r);
    release_kv(c, v_empty(c, blk));
}

/* O / l into O's rows (store_row16: whole 32-byte sectors; O's strides are
 * multiples of 8 elements), LSE = (m scale log2 e + log2 l) ln 2 into the
 * packed [b, h_q, s_q] statistics; rows past s_q are not written.  (4-byte
 * stores had written each sector in two halves: L2 took half again O's
 * bytes, Nsight Compute at s512 d128 causal.) */
template <int FP16, int D>
__device__ __forceinline__ void store(const attn_rows<D> &r, const gdt_hand_attn_params &p, int bi, int hq,
                                      const attn_ctx &c)
{
    u16 *o = (u16 *)p.o + bi * p.o_s[0] + hq * p.o_s[1];
    float *lse = p.lse + ((long long)bi * p.h_q + hq) * p.s_q;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float l = r.l[h];
        l += shfl_xor(l, 1);
        l += shfl_xor(l, 2);
        const int i = c.wrow + 8 * h;
        const float inv = l > 0.f ? 1.f / l : 0.f;
        store_row16<FP16, D>(o + i * p.o_s[2], r.o, h, inv, c.lane, i < p.s_q);
        if (i < p.s_q && (c.lane & 3) == 0)
            lse[i] = l > 0.f ? (r.m[h] * p.scale_log2 + fast_log2(l)) * 0.69314718056f : neg_inf();
    }
}

/* In a cluster of two, the blocks of the pair's walk past this CTA's own
 * (the peer's tile sees more keys, or this one lies past s_q): each
 * consumer warp waits for both halves of a stage to land, so that its
 * phase completes with its own slot's bytes, and releases it to both
 * producers, without a turn (all of the CTA's consumers skip the same
 * blocks, so the turns stay in step). */
__device__ __forceinline__ void skip_blocks(const attn_ctx &c)
{
    if constexpr (AF90_CLUSTER == 2) {
#pragma unroll 1
        for (int blk = c.nblocks; blk < c.walk; ++blk) {
            bar_wait(k_full(c, blk), phase(c, blk));
            release_kv(c, k_empty(c, blk));
            bar_wait(v_full(c, blk), phase(c, blk));
            release_kv(c, v_empty(c, blk));
        }
    }
}

/* One tile, its Q landed: every key block, then O and LSE.  A tile with no
 * key block (none today: bottom-right needs s_q <= s_kv) would take no turn
 * and release Q at once, its rows getting O = 0 and LSE = -inf. */
template <int FP16, int D, int NC>
__device__ __forceinline__ void consume_tile(const attn_ctx &c, const gdt_hand_attn_params &p, int bi, int hq)
{
    attn_rows<D> r;
    float s[AF90_S_REGS];
    u32 pa[AF90_BLOCK_N / 16][4];
#pragma unroll
    for (int v = 0; v < D / 2; ++v)
        r.o[v] = 0.f;
    r.m[0] = r.m[1] = neg_inf();
    r.l[0] = r.l[1] = 0.f;
    if (c.nblocks == 0) {
        release(c, q_empty(c));
    } else {
        first_block<FP16, D, NC>(r, s, pa, c, p);
        /* first_masked is the same for the whole tile: no warpgroup splits. */
        const int unmasked = c.first_masked < c.nblocks ? c.first_masked : c.nblocks;
        int blk = 0;
        for (; blk + 1 < unmasked; ++blk)
            next_block<FP16, D, NC, false>(r, s, pa, c, p, blk);
        for (; blk + 1 < c.nblocks; ++blk)
            next_block<FP16, D, NC, true>(r, s, pa, c, p, blk);
        last_pv<FP16, D>(r, pa, c, c.nblocks - 1);
    }
    skip_blocks(c);
    store<FP16, D>(r, p, bi, hq, c);
}

/* ------------------------------------------------------------- schedule */

/* The key blocks of query tile m0 (BM rows): up to the tile's last
 * diagonal (causal), and the first of them that needs the mask. */
template <int BM> __device__ __forceinline__ void tile_range(attn_ctx &c, const gdt_hand_attn_params &p, int m0)
{
    c.off = p.causal == 2 ? p.s_kv - p.s_q : 0;
    long long end = p.s_kv;
    if (p.causal && (long long)m0 + BM + c.off < end)
        end = (long long)m0 + BM + c.off;
    c.nblocks = end <= 0 ? 0 : (int)((end + AF90_BLOCK_N - 1) / AF90_BLOCK_N);
    int first = p.s_kv / AF90_BLOCK_N; /* the key tail */
    if (p.causal) {
        /* Block j is unmasked when its last key is at or before the diagonal of row m0. */
        const long long diag = ((long long)m0 + c.off + 1) / AF90_BLOCK_N;
        first = diag < first ? (int)diag : first;
    }
    c.first_masked = first;
}

/* The same, and in a cluster of two (this CTA rank r of the pair whose
 * lower tile starts at m0 - r BM) the pair's walk: a tile past s_q (rank
 * 1's in the last pair of an odd tile count) computes nothing, and both
 * CTAs walk the key blocks of the pair's last tile within s_q: the upper
 * one's, which under a causal mask sees up to BM keys more than the lower
 * one (skip_blocks), else the lower one's. */
template <int BM> __device__ __forceinline__ void kv_range(attn_ctx &c, const gdt_hand_attn_params &p, int m0)
{
    tile_range<BM>(c, p, m0);
    if constexpr (AF90_CLUSTER == 2) {
        const int upper = m0 - (int)cluster_rank() * BM + BM;
        attn_ctx last = c;
        tile_range<BM>(last, p, upper < p.s_q ? upper : upper - BM);
        c.walk = last.nblocks;
        if (m0 >= p.s_q)
            c.nblocks = 0;
    }
}

/* Tile L's (batch, query head) and first query row.  The grid is persistent
 * and dynamic: each CTA starts on tile blockIdx.x and takes its next tile
 * from a global counter as it frees up (next_tile), so the tiles in flight
 * at a time are a window of consecutive L, and a CTA that drew short tiles
 * takes more of them.  Tile L lies in section L / (section * tiles), a run
 * of p.section consecutive query heads (whole GQA groups, so the heads of a
 * kv head sit together), and within it the tiles go longest first, the
 * section's heads fastest.  The tiles in flight then cover a few heads,
 * whose K and V stay in L2 for all their tiles, instead of one tile of ~132
 * heads each streaming its own K and V from HBM.  The last section may be
 * short. */
struct attn_tile {
    int bi, hq, m0;
};

/* 32-bit throughout: the host refuses more than 2^31 - 1 tiles (a 64-bit
 * division is a called routine, and the producer's 24 registers would spill
 * around it). */
template <int BM> __device__ __forceinline__ attn_tile schedule(const gdt_hand_attn_params &p, u32 L)
{
    const u32 heads = (u32)p.heads, tiles = (u32)p.tiles, section = (u32)p.section;
    const u32 full = section * tiles;      /* tiles in a whole section */
    const u32 first = L / full * section; /* the section's first head */
    const u32 width = heads - first < section ? heads - first : section;
    const u32 r = L % full, tile = r / width;
    const int head = (int)(first + r % width); /* batch * h_q + query head */
    attn_tile t;
    t.bi = head / p.h_q, t.hq = head % p.h_q;
    t.m0 = (int)(tiles - 1 - tile) * BM; /* the longest causal tiles first */
    return t;
}

__device__ __forceinline__ u32 total_tiles(const gdt_hand_attn_params &p) { return (u32)p.heads * (u32)p.tiles; }

/* This CTA's query tile of step L.  In a cluster of two, L walks pairs of
 * tiles (p.tiles is a head's pairs: the schedule's tile is 2 BM rows) and
 * rank r takes the pair's r-th; past s_q its Q is zero-filled and nothing
 * is stored. */
template <int BM> __device__ __forceinline__ attn_tile tile_at(const gdt_hand_attn_params &p, u32 L)
{
    attn_tile t = schedule<BM * AF90_CLUSTER>(p, L);
    if constexpr (AF90_CLUSTER == 2)
        t.m0 += (int)cluster_rank() * BM;
    return t;
}

/* The first step of this CTA (of its cluster), and the one after L: the
 * next tile from the counter, or in a cluster of two the static walk L +
 * the clusters (both CTAs take the same steps, so their K and V rings stay
 * in step; no counter is drawn). */
__device__ __forceinline__ u32 first_step() { return blockIdx.x / AF90_CLUSTER; }

/* The tile slot: one word of shared memory past the barriers (the launch's
 * 128 bytes hold them), the index of the CTA's tile n, or one >=
 * total_tiles (the end), written by the producer before its arrival on Q
 * full for that tile (TILE SLOT in the header comment). */
__device__ __forceinline__ u32 tile_slot(const attn_ctx &c) { return c.bar + 16 + 32 * AF90_STAGES; }
static_assert(16 + 32 * AF90_STAGES + 4 <= 128, "the barriers and the tile slot fit the launch's 128 bytes");

__device__ __forceinline__ u32 tile_read(const attn_ctx &c)
{
    u32 v;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(tile_slot(c)) : "memory");
    return v;
}

/* The next tile of this CTA: the counter's count before the add, past the
 * grid's first tiles.  Each CTA fetches until it draws one >= total_tiles,
 * so after a launch the counter holds total_tiles (plan_end resets it).
 * Past 2^32 it cannot wrap: tiles <= 2^31 - 1 and the grid <= tiles. */
__device__ __forceinline__ u32 next_tile(const gdt_hand_attn_params &p)
{
    return atomicAdd(p.sched, 1u) + gridDim.x;
}

/* The producer of the last CTA to draw its end sets both counters back to
 * zero for the next launch.  Each producer's fence orders its last fetch
 * before its count of CTAs done; the last one's fence orders every fetch
 * before its stores (fence-fence synchronization through the done count). */
__device__ __forceinline__ void plan_end(const gdt_hand_attn_params &p)
{
    __threadfence();
    if (atomicAdd(p.sched + 1, 1u) == gridDim.x - 1) {
        __threadfence();
        p.sched[0] = 0u, p.sched[1] = 0u;
    }
}

/* ------------------------------------------------------------- producer */

/* Per tile: Q once the consumers released the last tile's (Q empty), then
 * the K and V blocks into the rings, each stage once its empty barrier says
 * the consumers are done with its last use.  The wait for Q empty comes
 * after the last tile's last V: the next tile's Q and first K and V land
 * while the consumers finish the last tile's softmax, P V and stores.  The
 * next tile is fetched as soon as this one's Q is requested, so the atomic's
 * round trip overlaps the K and V loads; its index goes to the tile slot
 * once Q empty says every consumer has read this one's. */
template <int D, int NC>
__device__ __forceinline__ void produce(attn_ctx &c, const CUtensorMap *tq, const CUtensorMap *tk,
                                        const CUtensorMap *tv, const gdt_hand_attn_params &p)
{
    const u32 total = total_tiles(p);
    u32 L = first_step();
    c.ring = 0;
    for (u32 n = 0;; ++n) {
        bar_wait(q_empty(c), (n & 1) ^ 1);
        sts_u32(tile_slot(c), L);
        if (L >= total) {
            bar_arrive(q_full(c)); /* no bytes: the phase completes with the end in the slot */
            break;
        }
        const attn_tile t = tile_at<AF90_BLOCK_M(NC)>(p, L);
        const int hk = t.hq / p.group;
        kv_range<AF90_BLOCK_M(NC)>(c, p, t.m0);
        load_tile<D, AF90_BLOCK_M(NC)>(c.sQ, tq, q_full(c), t.m0, t.hq, t.bi);
        L = AF90_CLUSTER == 1 ? next_tile(p) : L + gridDim.x / AF90_CLUSTER;
#pragma unroll 1 /* unrolled, the loop needs more than the producer's 24 registers */
        for (int blk = 0; blk < walked(c); ++blk) {
            bar_wait(k_empty(c, blk), phase(c, blk) ^ 1);
            load_kv<D>(c.sK + stage_at<D>(c, blk), tk, k_full(c, blk), blk * AF90_BLOCK_N, hk, t.bi);
            bar_wait(v_empty(c, blk), phase(c, blk) ^ 1);
            load_kv<D>(c.sV + stage_at<D>(c, blk), tv, v_full(c, blk), blk * AF90_BLOCK_N, hk, t.bi);
        }
        ring_next(c);
    }
    if constexpr (AF90_CLUSTER == 1)
        plan_end(p);
}

/* ------------------------------------------------------------- consumer */

/* Consumer thread ct (0 .. 128 NC - 1) over this CTA's tiles, each read
 * from the tile slot right after its Q full: warp ct/32 of the consumers
 * owns 16 rows of each.  The end in the slot ends the walk. */
template <int FP16, int D, int NC>
__device__ __forceinline__ void consume(attn_ctx &c, const gdt_hand_attn_params &p, int ct)
{
    const u32 total = total_tiles(p);
    turns_open<NC>(c);
    c.ring = 0;
    for (u32 n = 0;; ++n) {
        bar_wait(q_full(c), n & 1);
        const u32 L = tile_read(c);
        if (L >= total)
            break;
        const attn_tile t = tile_at<AF90_BLOCK_M(NC)>(p, L);
        kv_range<AF90_BLOCK_M(NC)>(c, p, t.m0);
        c.wrow = t.m0 + ct / 32 * 16 + c.lane / 4;
        consume_tile<FP16, D, NC>(c, p, t.bi, t.hq);
        ring_next(c);
    }
    turns_close(c);
}

/* ---------------------------------------------------------------- entry */

/* NC consumer warpgroups: 2 (128-row tiles, d64 or d128) or 3 (192-row
 * tiles, d64 only: at d128 O, S and P would take more than 160 registers). */
template <int FP16, int D, int NC>
__device__ __forceinline__ void attn(const CUtensorMap *tq, const CUtensorMap *tk, const CUtensorMap *tv,
                                     const gdt_hand_attn_params &p)
{
    static_assert(NC == 2 || (NC == 3 && D == 64), "two consumers, or three at d64");
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    constexpr u32 TILE = (D / 64) * AF90_COL_BLOCK_BYTES, QTILE = (D / 64) * AF90_BLOCK_M(NC) * 128;
    attn_ctx c;
    /* Swizzle atoms start on 1024-byte boundaries; the launch reserves 1024
     * bytes of slack for this. */
    c.sQ = (smem_addr(smem_raw) + 1023u) & ~1023u;
    c.sK = c.sQ + QTILE, c.sV = c.sK + AF90_STAGES * TILE, c.bar = c.sV + AF90_STAGES * TILE;
    if (threadIdx.x == 0) {
        bar_init(q_full(c), 1);
        bar_init(q_empty(c), AF90_CONSUMER_WARPS(NC));
        c.ring = 0;
        /* K and V empty: every consumer warp of the cluster (either CTA writes half of a stage) */
        for (int s = 0; s < AF90_STAGES; ++s) {
            bar_init(k_full(c, s), 1), bar_init(v_full(c, s), 1);
            bar_init(k_empty(c, s), AF90_CLUSTER * AF90_CONSUMER_WARPS(NC));
            bar_init(v_empty(c, s), AF90_CLUSTER * AF90_CONSUMER_WARPS(NC));
        }
        bar_init_fence();
    }
    if constexpr (AF90_CLUSTER == 2) {
        if (cluster_size() != 2) /* launched without its cluster */
            __trap();
        cluster_sync(); /* the peer's barriers exist before a multicast or an arrival reaches them */
    } else {
        __syncthreads();
    }
    if (threadIdx.x < 128) {
        regs_dec<AF90_REGS_DEC(NC)>();
        if (threadIdx.x == 0)
            produce<D, NC>(c, tq, tk, tv, p);
    } else {
        regs_inc<AF90_REGS_INC(NC)>();
        const int ct = (int)threadIdx.x - 128;
        c.w = ct / 128, c.lane = ct % 32;
        consume<FP16, D, NC>(c, p, ct);
    }
    /* No CTA of a cluster leaves while its peer may still multicast into it
     * or arrive on its barriers; warp 0's lanes wait for the producer's. */
    if constexpr (AF90_CLUSTER == 2) {
        __syncwarp();
        cluster_sync();
    }
}

/* An entry of dtype fp16 (1 fp16, 0 bf16), head dim d and nc consumer
 * warpgroups, named name (kernels/hand/attn_fwd_sm90.cu names the hand
 * engine's six). */
#define GDT_ATTN_FWD_SM90_ENTRY(name, fp16, d, nc)                                                  \
    extern "C" __global__ void __launch_bounds__(AF90_THREADS(nc), 1)                               \
        name(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tk,        \
             const __grid_constant__ CUtensorMap tv, const gdt_hand_attn_params p)                  \
    {                                                                                               \
        attn<fp16, d, nc>(&tq, &tk, &tv, p);                                                        \
    }

#endif
