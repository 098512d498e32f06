/* kernels/gdt_attn_bwd_sm90.cuh: the Hopper attention backward, one source
 * for both sides.  From Q, K, V, O, dO and the natural-log log-sum-exp
 * (packed [b, h_q, s_q]) it writes dQ, dK and dV, each strided like its tensor, bf16 or fp16, fp32 accumulate, head dim 64
 * or 128, causal none / top-left / bottom-right, GQA (dK and dV summed over
 * the query heads of a group).  nvcc builds its entries ahead of time
 * (kernels/hand/attn_bwd_sm90.cu, the `hand` engine's sdpa_bwd.hand); NVRTC
 * compiles the same text as kernels/attn_bwd.cuh's PIPE=1 for the
 * attention_bwd rows with PIPE=1 (no toolkit header: gdt_sm90.cuh declares
 * CUtensorMap under NVRTC), and tests/cpu/test_attn_bwd_tma_rows.c checks
 * that each entry's two builds are the same bytes.  Both launch it through
 * one host side, engines/attn_bwd_tma.c.  Its parameters are the entries'
 * template arguments (dtype, head dim, PP: 1 where the two consumers
 * take turns at the tensor cores, "ping-pong" below, and DET: 1 where the
 * CTAs add dQ in key-block order, so that dQ is bit-reproducible,
 * drain_dq); the fixed sizes below are macros
 * named AB90_*, clear of the attention rows' -D names (BLOCK_M, STAGES,
 * ...).  The includer defines GDT_FP16 before (gdt_ptx.cuh needs it);
 * nothing here uses what it binds.  Three kernels, in launch order:
 *
 *   pre    one warp per query row of the padded [b, h_q, s_pad] space
 *          (s_pad = s_q rounded up to 64): D = rowsum(dO * O) (O and dO
 *          read 16 bytes a lane, summed in the order of the former 4-byte
 *          loads: lane_share), the LSE times log2 e, and a zeroed fp32 dQ
 *          row (DET: and each query block's dQ semaphores).  Padding rows (and rows whose LSE is not finite) get D = 0
 *          and LSE +inf, so their P is exactly 0.
 *   main   one CTA per (batch, kv head, 128 key rows), 384 threads, started
 *          a few heads at a time (schedule); see below.
 *   post   one warp per pair of query rows i, i + 8: dQ = scale times the
 *          accumulator (blocked, AB90_DQ_CHUNK), to the io dtype.
 *
 * The host launches main and post by programmatic dependent launch: pre and
 * main let the next kernel's CTAs start at once (grid_dep_launch), and only
 * the threads that touch the kernel before's output wait for it
 * (grid_dep_wait): main's producer before its first LSE and D rows (after
 * K, V and the first Q and dO, the caller's), its writers before their
 * first reduce-add into the zeroed accumulator, and all of post.
 *
 * The main kernel is KV-block parallel.  Warpgroup 0 gives its registers
 * away (setmaxnreg.dec); one of its threads loads K and V once (TMA, 128
 * rows), then for every query head of the GQA group and every 64-row query
 * block a stage of the ring: Q and dO (TMA) and the block's LSE and D rows
 * (one 256-byte bulk copy each), behind a full barrier (the byte count) and
 * an empty barrier (one arrival per consumer warp).  Warpgroups 1 and 2 own
 * 64 key rows each: S^T = K Q^T and dP^T = V dO^T (wgmma, both operands
 * K-major in shared memory, two commit groups), P^T = exp2(S^T scale log2 e
 * - LSE log2 e) while dP^T runs, and dS^T = P^T (dP^T - D) in registers, dV += P^T dO and dK += dS^T Q (wgmma
 * with P^T and dS^T as register A fragments, dO and Q MN-major), dK and dV
 * held in registers across the whole loop, so the GQA sum needs no atomics.
 * dS^T goes to shared memory, a ring of two tiles behind full and empty
 * mbarriers (every consumer thread arrives).  dQ = dS K per 64-column chunk
 * of d (chunk j on consumer j; at d 64 block k's on consumer k % 2; dS^T an
 * MN-major A, K an MN-major B) is issued one block late, between the next
 * block's dV and dK, so the consumers never wait for each other in step,
 * and leaves while that dK runs (iteration has the barrier invariant), in
 * FA3's form at both head dims: consumer w stages its chunk into its own
 * 16 KB dQ slice in shared memory, in the accumulator's order (AB90_DQ_CHUNK:
 * the fp32 accumulator keeps each block's chunks contiguous, blocked, and
 * the post kernel undoes that), and its writer, one thread of warp 1 + w
 * of warpgroup 0, adds the whole slice into the accumulator with one bulk
 * reduce-add (cp.reduce.async.bulk .add.f32, 16 KB), behind the slice's
 * own full and empty mbarriers (128 arrivals / 1), so no consumer waits on
 * global atomics or on the other consumer's dQ.
 *
 * Masks: rows past s_q are zero-filled by the TMA and carry LSE +inf, so
 * they need none; key blocks that cross s_kv or (causal) a diagonal are
 * masked, decided per warpgroup so that the branch never splits one.
 * Causal: a CTA starts at the first query block that sees one of its keys.
 *
 * Tiles are 128-byte swizzled as the TMA's SWIZZLE_128B writes them: d/64
 * column blocks of ROWS x 128 bytes, 16-byte chunk c of row r at chunk
 * c ^ (r % 8), atoms on 1024-byte boundaries. */
#ifndef GDT_ATTN_BWD_SM90_CUH
#define GDT_ATTN_BWD_SM90_CUH

#include "gdt_sm90.cuh"

#define AB90_BLOCK_M 64  /* query rows per block */
#define AB90_BLOCK_N 128 /* key rows per CTA, 64 per consumer */
#define AB90_STAGES 2
#define AB90_THREADS 384
#define AB90_CONSUMER_WARPS 8
#define AB90_ROW_WARPS 8 /* rows per 256-thread CTA of pre and post */
#define AB90_LOG2E 1.4426950408889634f
#define AB90_PRODUCER_REGS 24  /* warpgroup 0 after setmaxnreg.dec */
#define AB90_CONSUMER_REGS 240 /* warpgroups 1 and 2 after setmaxnreg.inc */

/* setmaxnreg.inc takes its registers from those the CTA launched with (168
 * a thread at 384 threads) that warpgroup 0 gave back; asking for more
 * would wait forever. */
static_assert(128 * AB90_PRODUCER_REGS + 256 * AB90_CONSUMER_REGS <= 65536 / AB90_THREADS / 8 * 8 * AB90_THREADS,
              "the consumers' registers exceed what warpgroup 0 frees");

/* Mirrored field for field by gdt_attn_bwd_tma_params in engines/gdt_attn_bwd_tma.h. */
struct gdt_hand_attn_bwd_params {
    const void *o, *dout;
    const float *lse;            /* natural log, packed [b, h_q, s_q] */
    void *dq, *dk, *dv;
    float *lse2, *dd, *dq_acc;   /* workspace: [b h_q][s_pad], twice, then [b h_q][s_pad][d] */
    long long q_s[3], k_s[3], v_s[3], o_s[3]; /* batch, head, row strides, elements */
    int b, h_q, h_kv, group, s_q, s_kv, s_pad, causal; /* causal: 0 none, 1 top-left, 2 bottom-right */
    float scale, scale_log2;
    int section; /* (batch, kv head) pairs per section of the launch order (schedule) */
};
static_assert(sizeof(gdt_hand_attn_bwd_params) == 216, "must match engines/gdt_attn_bwd_tma.h");

/* ------------------------------------------------------------- pre / post */

/* Warp's row r of [b, h_q, rows_per_head]: its (batch, head) and row. */
__device__ __forceinline__ bool warp_row(long long total, int rows_per_head, int h_q, long long *r, int *bi,
                                         int *hq, int *i)
{
    *r = (long long)blockIdx.x * AB90_ROW_WARPS + (threadIdx.x >> 5);
    if (*r >= total)
        return false;
    const long long bh = *r / rows_per_head;
    *i = (int)(*r % rows_per_head), *hq = (int)(bh % h_q), *bi = (int)(bh / h_q);
    return true;
}

template <int FP16> __device__ __forceinline__ float unpack(u32 v, int hi)
{
    if constexpr (FP16) {
        return hi ? f16_hi_f32(v) : f16_lo_f32(v);
    } else {
        return bits_f32(hi ? v & 0xffff0000u : v << 16);
    }
}

/* Pair products of 8 columns, as the 4-byte-a-lane loop formed them:
 * x0 y0 + x1 y1 with the product of the high halves rounded first. */
template <int FP16> __device__ __forceinline__ void pair_products(float (&pv)[4], uint4 a, uint4 b)
{
    const u32 x[4] = {a.x, a.y, a.z, a.w}, y[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
    for (int j = 0; j < 4; ++j)
        pv[j] = __fmaf_rn(unpack<FP16>(x[j], 0), unpack<FP16>(y[j], 0),
                          __fmul_rn(unpack<FP16>(x[j], 1), unpack<FP16>(y[j], 1)));
}

/* Lane k's share of rowsum(dO * O) in the order the 4-byte-a-lane loop
 * summed it, so that D stays bit for bit: 0 + pair k, then (d 128) + pair
 * k + 32, where pair p (columns 2p, 2p + 1) is slot p % 4 of lane p / 4
 * after the 16-byte loads.  Round r: lane l offers its slot (r + 2 (l / 8))
 * % 4, so pair k reaches lane k in round k % 4 from lane k / 4 and pair
 * k + 32 in round (k + 2) % 4 from lane k / 4 + 8: four shuffles. */
template <int D> __device__ __forceinline__ float lane_share(const float (&pv)[4], int lane)
{
    const int half = D / 64 > 1 ? (lane >> 3) & 1 : 0;
    float lo = 0.f, hi = 0.f;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        const int s = (r + 2 * half) & 3;
        const float offer = s == 0 ? pv[0] : s == 1 ? pv[1] : s == 2 ? pv[2] : pv[3];
        const bool first = r == (lane & 3);
        const float got = shfl_idx(offer, (lane >> 2) + (first ? 0 : 8));
        if (first)
            lo = got;
        else if (r == ((lane + 2) & 3))
            hi = got;
    }
    const float sum = __fadd_rn(0.f, lo);
    return D / 64 > 1 ? __fadd_rn(sum, hi) : sum;
}

/* DET = 1 (the deterministic configuration): where dQ's semaphores live,
 * after the accumulator in the workspace: one int per (batch, query head,
 * 64-row query block, 64-column chunk of d), [b h_q][s_pad / 64][d / 64]
 * (engines/attn_bwd_tma.c sizes it).  Semaphore k of a chunk holds how many
 * key blocks have added into it (drain_dq). */
template <int D> __device__ __forceinline__ int *dq_sems(const gdt_hand_attn_bwd_params &p)
{
    return (int *)(p.dq_acc + (long long)p.b * p.h_q * p.s_pad * D);
}

template <int FP16, int D, int DET> __device__ __forceinline__ void pre(const gdt_hand_attn_bwd_params &p)
{
    static_assert(D / 8 <= 16, "lane_share takes the row's pairs from lanes 0 .. 15");
    grid_dep_launch(); /* the main kernel's CTAs may start as this one's last ones run */
    const int lane = threadIdx.x & 31;
    long long r;
    int bi, hq, i;
    if (!warp_row((long long)p.b * p.h_q * p.s_pad, p.s_pad, p.h_q, &r, &bi, &hq, &i))
        return;
    float pv[4] = {0.f, 0.f, 0.f, 0.f};
    const float lse = i < p.s_q ? p.lse[((long long)bi * p.h_q + hq) * p.s_q + i] : 0.f;
    if (i < p.s_q && lane < D / 8) {
        /* 16 bytes a lane: O's strides are 16-byte multiples, its pointers
         * 16-byte aligned (the host's check_pointers), dO shares them. */
        const long long off = bi * p.o_s[0] + hq * p.o_s[1] + i * p.o_s[2];
        const u16 *o = (const u16 *)p.o + off, *g = (const u16 *)p.dout + off;
        pair_products<FP16>(pv, *(const uint4 *)(o + 8 * lane), *(const uint4 *)(g + 8 * lane));
    }
    for (int c = 4 * lane; c < D; c += 128)
        stg_zero4(p.dq_acc + r * D + c);
    if constexpr (DET) {
        /* The first row of each query block zeroes the block's semaphores
         * (r / 64 is the block's index in [b h_q][s_pad / 64]). */
        if (i % AB90_BLOCK_M == 0 && lane < D / 64)
            dq_sems<D>(p)[r / AB90_BLOCK_M * (D / 64) + lane] = 0;
    }
    float sum = lane_share<D>(pv, lane);
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        sum += shfl_xor(sum, m);
    if (lane == 0) {
        /* -inf - (-inf) would be NaN: a row with no visible key adds nothing. */
        const bool live = i < p.s_q && lse > neg_inf() && lse < -neg_inf();
        p.dd[r] = live ? sum : 0.f;
        p.lse2[r] = live ? lse * AB90_LOG2E : -neg_inf();
    }
}

/* Where the accumulator keeps dQ: each query block's 64 x d fp32 is d/64
 * chunks of 64 x 64 columns, 16 KB each, in the wgmma accumulator's order,
 * so that a consumer's chunk is one contiguous range for one bulk
 * reduce-add: element v (0 .. 31) of thread T (0 .. 127) of the consumer
 * warpgroup at float 512 (v >> 2) + 4 T + (v & 3) of the chunk, which is
 * query row 16 (T / 32) + (T % 32) / 4 + 8 ((v >> 1) & 1), column
 * 8 (v >> 2) + 2 (T % 4) + (v & 1) (stage_dq writes it, post reads it). */
#define AB90_DQ_CHUNK (AB90_BLOCK_M * 64)   /* floats of a 64 x 64 dQ chunk */
#define AB90_DQ_QUAD (AB90_DQ_CHUNK / 8)    /* floats between elements v and v + 4 */

/* A warp per pair of query rows i, i + 8 of a 64-row block (pair g of the
 * block: rows 16 (g / 8) + g % 8 and 8 below), as one accumulator thread
 * group holds them: dQ = scale times the accumulator, to the io dtype.
 * Lane l takes columns 2 l, 2 l + 1 of each 64-column chunk: in the blocked
 * layout one float4 (both rows) at 512 (l / 4) + 4 (4 g + l % 4), 64-byte
 * runs of four lanes. */
template <int FP16, int D> __device__ __forceinline__ void post(const gdt_hand_attn_bwd_params &p)
{
    grid_dep_wait(); /* the main kernel's reduce-adds complete and visible */
    const int lane = threadIdx.x & 31;
    long long r;
    int bi, hq, pair;
    if (!warp_row((long long)p.b * p.h_q * (p.s_pad / 2), p.s_pad / 2, p.h_q, &r, &bi, &hq, &pair))
        return;
    const int mb = pair / 32, g = pair % 32, i = (g / 8) * 16 + g % 8, i0 = mb * AB90_BLOCK_M + i;
    if (i0 >= p.s_q)
        return;
    const bool two = i0 + 8 < p.s_q;
    const float *a = p.dq_acc + (((long long)bi * p.h_q + hq) * p.s_pad + mb * AB90_BLOCK_M) * D;
    u16 *q0 = (u16 *)p.dq + bi * p.q_s[0] + hq * p.q_s[1] + i0 * p.q_s[2], *q1 = q0 + 8 * p.q_s[2];
#pragma unroll
    for (int j = 0; j < D / 64; ++j) {
        const int col = 64 * j + 2 * lane;
        const float4 x = *(const float4 *)(a + j * AB90_DQ_CHUNK + (lane / 4) * AB90_DQ_QUAD + 4 * (4 * g + lane % 4));
        *(u32 *)(q0 + col) = pack2<FP16>(x.x * p.scale, x.y * p.scale);
        if (two)
            *(u32 *)(q1 + col) = pack2<FP16>(x.z * p.scale, x.w * p.scale);
    }
}

/* ------------------------------------------------------------------ state */

/* Shared memory from the 1024-aligned base: K, V, AB90_STAGES x (Q, dO), two
 * dS^T tiles, the two dQ slices, AB90_STAGES x (LSE, D rows of 64 floats), then
 * the barriers 8 bytes apart: K/V full, full x AB90_STAGES, empty x AB90_STAGES, dS
 * full x 2, dS empty x 2, dQ full x 2, dQ empty x 2 (one pair per
 * consumer).  dQ slice w is consumer w's 64 x 64 fp32 chunk of a block in
 * the accumulator's blocked order (AB90_DQ_CHUNK), 16 KB that one bulk
 * reduce-add takes whole; a warp's 16-byte stores are 512 contiguous bytes
 * (stage_dq).  At d 64 each consumer uses its slice every other block
 * (dq_mine).  Offsets, not addresses, so that a consumer keeps one base
 * register across its loop. */
template <int D> struct bwd_layout {
    static constexpr u32 KV = AB90_BLOCK_N * D * 2; /* the K or the V tile */
    static constexpr u32 Q = AB90_BLOCK_M * D * 2;  /* a Q or a dO tile */
    static constexpr u32 DS = AB90_BLOCK_N * AB90_BLOCK_M * 2;
    static constexpr u32 DQ_SLICE = AB90_DQ_CHUNK * 4;
    static constexpr u32 V_AT = KV, Q_AT = 2 * KV, DS_AT = Q_AT + AB90_STAGES * 2 * Q, DQ_AT = DS_AT + 2 * DS;
    static constexpr u32 ROW_AT = DQ_AT + 2 * DQ_SLICE, BAR_AT = ROW_AT + AB90_STAGES * 512;
    static constexpr u32 DS_FULL_AT = BAR_AT + 8 + 16 * AB90_STAGES, DS_EMPTY_AT = DS_FULL_AT + 16;
    static constexpr u32 DQ_FULL_AT = DS_EMPTY_AT + 16, DQ_EMPTY_AT = DQ_FULL_AT + 16;
    static constexpr u32 BYTES = DQ_EMPTY_AT + 16;
};
/* The launch adds 1024 bytes of slack for the alignment (attn_bwd); 227 KB
 * is sm_90's most dynamic shared memory a CTA. */
static_assert(bwd_layout<128>::BYTES + 1024 <= 227 * 1024 && bwd_layout<64>::BYTES + 1024 <= 227 * 1024,
              "the backward's shared memory exceeds sm_90's 227 KB a CTA");
static_assert(bwd_layout<64>::DQ_AT % 16 == 0 && bwd_layout<128>::DQ_AT % 16 == 0 && bwd_layout<64>::DQ_SLICE % 16 == 0,
              "a bulk reduce-add takes 16-byte aligned sources of 16-byte multiples");

struct bwd_ctx {
    u32 base;     /* K's tile */
    int w, lane;  /* consumer warpgroup (0, 1), lane */
    int krow;     /* this thread's first key row in the CTA's 128; the second is krow + 8 */
    int bi, hk, n0, off, m_first, mblocks; /* query blocks m_first .. mblocks - 1 of each head */
};

/* Whether this consumer computes dQ of block it, and which 64-column chunk:
 * at d 128 chunk c.w, at d 64 the one chunk on consumer it % 2, so that
 * both consumers carry the same work. */
template <int D> __device__ __forceinline__ bool dq_mine(const bwd_ctx &c, int it)
{
    return D / 64 > 1 || (it & 1) == c.w;
}
template <int D> __device__ __forceinline__ int dq_chunk(const bwd_ctx &c) { return D / 64 > 1 ? c.w : 0; }


template <int D> __device__ __forceinline__ u32 kv_full(const bwd_ctx &c) { return c.base + bwd_layout<D>::BAR_AT; }
template <int D> __device__ __forceinline__ u32 full(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::BAR_AT + 8 + 8 * (it % AB90_STAGES);
}
template <int D> __device__ __forceinline__ u32 empty(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::BAR_AT + 8 + 8 * AB90_STAGES + 8 * (it % AB90_STAGES);
}
/* dS^T buffer it % 2 written by both consumers (256 arrivals) / read by
 * both consumers' dQ (256 arrivals). */
template <int D> __device__ __forceinline__ u32 ds_full(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::DS_FULL_AT + 8 * (it & 1);
}
template <int D> __device__ __forceinline__ u32 ds_empty(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::DS_EMPTY_AT + 8 * (it & 1);
}
/* Consumer w's dQ slice staged (128 arrivals, its threads) / read by its
 * bulk reduce-add (1, its writer thread): a pair per consumer, so neither
 * consumer's dQ waits for the other's. */
template <int D> __device__ __forceinline__ u32 dq_full(const bwd_ctx &c) { return c.base + bwd_layout<D>::DQ_FULL_AT + 8 * c.w; }
template <int D> __device__ __forceinline__ u32 dq_empty(const bwd_ctx &c) { return c.base + bwd_layout<D>::DQ_EMPTY_AT + 8 * c.w; }
template <int D> __device__ __forceinline__ u32 dq_slice(const bwd_ctx &c) { return c.base + bwd_layout<D>::DQ_AT + c.w * bwd_layout<D>::DQ_SLICE; }
/* Block it's place among the blocks whose dQ this consumer computes: the
 * count of its slice's uses before it, which the consumer and its writer
 * both keep (every block at d 128, every other one at d 64). */
template <int D> __device__ __forceinline__ int dq_use(int it) { return D / 64 > 1 ? it : it / 2; }
/* The parity of use it of a two-slot ring: the stages and the dS^T tiles. */
static_assert(AB90_STAGES == 2, "the stage ring and the dS^T ring share phase()");
__device__ __forceinline__ u32 phase(int it) { return (u32)(it / 2) & 1; }
template <int D> __device__ __forceinline__ u32 q_tile(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::Q_AT + (it % AB90_STAGES) * 2 * bwd_layout<D>::Q;
}
template <int D> __device__ __forceinline__ u32 row_vecs(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::ROW_AT + (it % AB90_STAGES) * 512;
}
template <int D> __device__ __forceinline__ u32 ds_tile(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::DS_AT + (it & 1) * bwd_layout<D>::DS;
}

/* ------------------------------------------------------------- producer */

/* Box {64 columns, rows} per column block, at (row0, head, batch). */
template <int D>
__device__ __forceinline__ void load_tile(u32 dst, const CUtensorMap *map, u32 bar, int rows, int row0, int head,
                                          int batch)
{
#pragma unroll
    for (int j = 0; j < D / 64; ++j)
        tma_load(dst + j * rows * 128, map, bar, 64 * j, row0, head, batch);
}

__device__ __forceinline__ void bulk_load(u32 dst, const void *src, u32 bytes, u32 bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}

template <int D>
__device__ __forceinline__ void produce(const bwd_ctx &c, const gdt_hand_attn_bwd_params &p, const CUtensorMap *tq,
                                        const CUtensorMap *tk, const CUtensorMap *tv, const CUtensorMap *tdo)
{
    bar_expect_tx(kv_full<D>(c), 2 * bwd_layout<D>::KV);
    load_tile<D>(c.base, tk, kv_full<D>(c), AB90_BLOCK_N, c.n0, c.hk, c.bi);
    load_tile<D>(c.base + bwd_layout<D>::V_AT, tv, kv_full<D>(c), AB90_BLOCK_N, c.n0, c.hk, c.bi);
    int it = 0;
    /* Not unrolled, like drain_dq's: warpgroup 0 has AB90_PRODUCER_REGS registers. */
#pragma unroll 1
    for (int hq = c.hk * p.group; hq < (c.hk + 1) * p.group; ++hq)
#pragma unroll 1
        for (int mb = c.m_first; mb < c.mblocks; ++mb, ++it) {
            const long long row = ((long long)c.bi * p.h_q + hq) * p.s_pad + mb * AB90_BLOCK_M;
            const u32 q = q_tile<D>(c, it), v = row_vecs<D>(c, it);
            bar_wait(empty<D>(c, it), phase(it) ^ 1);
            bar_expect_tx(full<D>(c, it), 2 * bwd_layout<D>::Q + 512);
            load_tile<D>(q, tq, full<D>(c, it), AB90_BLOCK_M, mb * AB90_BLOCK_M, hq, c.bi);
            load_tile<D>(q + bwd_layout<D>::Q, tdo, full<D>(c, it), AB90_BLOCK_M, mb * AB90_BLOCK_M, hq, c.bi);
            if (it == 0)
                grid_dep_wait(); /* pre's LSE and D rows (K, V, Q and dO are the caller's) */
            bulk_load(v, p.lse2 + row, 256, full<D>(c, it));
            bulk_load(v + 256, p.dd + row, 256, full<D>(c, it));
        }
}

/* [dst] += [src], `bytes` of fp32 (a multiple of 16, both 16-byte aligned),
 * by the async proxy: the issuing thread goes on at once.  The source was
 * written by the generic proxy, so its writers fence.proxy.async before
 * they signal the issuer. */
__device__ __forceinline__ void bulk_reduce_add_f32(float *dst, u32 src, u32 bytes)
{
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n" ::"l"(dst),
                 "r"(src), "r"(bytes)
                 : "memory");
}

/* The fp32 accumulator of query block mb of head hq: 64 rows of d as d/64
 * blocked chunks (AB90_DQ_CHUNK). */
template <int D>
__device__ __forceinline__ float *dq_rows(const bwd_ctx &c, const gdt_hand_attn_bwd_params &p, int hq, int mb)
{
    return p.dq_acc + (((long long)c.bi * p.h_q + hq) * p.s_pad + mb * AB90_BLOCK_M) * D;
}

/* DET = 1: the semaphore of the accumulator chunk at dst (dq_sems: chunk k
 * of the blocked accumulator, AB90_DQ_CHUNK floats each, has semaphore k),
 * derived from the one pointer so that the writer's 24 registers hold it. */
template <int D> __device__ __forceinline__ int *dq_sem(const gdt_hand_attn_bwd_params &p, const float *dst)
{
    return dq_sems<D>(p) + (dst - p.dq_acc) / AB90_DQ_CHUNK;
}

/* DET = 1: block it's reduce-add into dst behind its semaphore (drain_dq). */
template <int D>
__device__ __forceinline__ void dq_add_ordered(const bwd_ctx &c, const gdt_hand_attn_bwd_params &p, float *dst, int it)
{
    sem_wait_eq(dq_sem<D>(p, dst), c.n0 / AB90_BLOCK_N); /* while the slice is staged */
    fence_proxy_async_global();
    bar_wait(dq_full<D>(c), (u32)dq_use<D>(it) & 1);
    bulk_reduce_add_f32(dst, dq_slice<D>(c), bwd_layout<D>::DQ_SLICE);
    bulk_commit();
    bulk_wait_read<0>();
    bar_arrive(dq_empty<D>(c));
    bulk_wait<0>();
    fence_proxy_async_global();
    sem_arrive(dq_sem<D>(p, dst));
}

/* Consumer c.w's writer, a thread of warp 1 + c.w: for each query block
 * whose dQ that consumer computes, in its order, once the slice is staged,
 * one bulk reduce-add of the whole 16 KB into the block's chunk of the
 * accumulator (contiguous in the blocked layout, AB90_DQ_CHUNK); the slice is
 * freed once the reduction has read it, and all of them land before the
 * kernel ends.
 *
 * DET = 1 (sdpa_bwd.hand's DETERMINISTIC=1, the rows' DETERMINISTIC
 * column): the CTAs add into a chunk in key-block order, so that dQ is the
 * same bits every run (FA3's `deterministic` backward in this kernel's
 * terms).  Before its reduce-add the writer of key block n waits until the
 * chunk's semaphore (dq_sem, zeroed by pre) reads n; once the reduction has
 * read the slice it frees it as before, then waits for its writes
 * (bulk_wait, not .read), fences the async proxy and adds 1 with release
 * semantics.  Which key blocks add into query block mb is a prefix 0 ..
 * N(mb) - 1 of the pair's key blocks: key block n adds into the blocks
 * m_first(n) .. mblocks - 1 of every head of its group (schedule), and
 * m_first does not decrease with n (a causal mask only moves it later, and
 * its clamp at mblocks keeps that), so "n have added" is exactly what block
 * n waits for, causal or not, GQA or not; every chunk is added to by one
 * writer per key block (at d 64 consumer it % 2's).  The first add lands
 * on pre's zeros (0 + x is x), so the sum is the same floats in the same
 * order each run.
 *
 * Deadlock freedom: a writer only ever waits for CTAs of the same (batch,
 * kv head) pair with lower key blocks, and those have lower linear CTA
 * indices: schedule maps the linear index l = blockIdx.y * gridDim.x +
 * blockIdx.x to section l / span and, within it, key block (l % span) / n,
 * so a pair's key block n - 1 is always at a lower l than its key block n.
 * The hardware dispatches a grid's CTAs in linear order (the same order
 * CUTLASS's serial split-K semaphores and FA3's deterministic backward rely
 * on), so when key block n's CTA is resident, every CTA it waits for has
 * been dispatched: it is resident or done.  Those CTAs wait only for lower
 * key blocks still, so by induction on n the lowest waiting CTA of a pair
 * always proceeds (its own producer and consumers need nothing from higher
 * key blocks: the wait holds only the writer, whose stalled slice in turn
 * stalls only its own CTA).  pre cannot block it (main's writers wait for
 * pre with grid_dep_wait, and pre waits for nothing), and post's CTAs are
 * dispatched only after every main CTA has run grid_dep_launch, so they
 * never take the place of a main CTA not yet resident. */
template <int D, int DET> __device__ __forceinline__ void drain_dq(const bwd_ctx &c, const gdt_hand_attn_bwd_params &p)
{
    grid_dep_wait(); /* pre's zeroed accumulator (and semaphores) */
    int it = 0;
    /* Not unrolled: in AB90_PRODUCER_REGS registers an unrolled loop spills. */
#pragma unroll 1
    for (int hq = c.hk * p.group; hq < (c.hk + 1) * p.group; ++hq)
#pragma unroll 1
        for (int mb = c.m_first; mb < c.mblocks; ++mb, ++it) {
            if (!dq_mine<D>(c, it))
                continue;
            if constexpr (DET) {
                dq_add_ordered<D>(c, p, dq_rows<D>(c, p, hq, mb) + dq_chunk<D>(c) * AB90_DQ_CHUNK, it);
                continue;
            }
            bar_wait(dq_full<D>(c), (u32)dq_use<D>(it) & 1);
            bulk_reduce_add_f32(dq_rows<D>(c, p, hq, mb) + dq_chunk<D>(c) * AB90_DQ_CHUNK, dq_slice<D>(c),
                                bwd_layout<D>::DQ_SLICE);
            bulk_commit();
            bulk_wait_read<0>();
            bar_arrive(dq_empty<D>(c));
        }
    bulk_wait<0>();
}

/* ------------------------------------------------------------- consumer */

/* S^T and dP^T, issued as two commit groups.  Accumulator element v of a
 * thread: key row krow + 8 ((v >> 1) & 1), column 8 (v >> 2) + 2 (lane % 4)
 * + (v & 1). */
template <int FP16, int D>
__device__ __forceinline__ void scores(float (&s)[32], float (&dp)[32], const bwd_ctx &c, u32 q)
{
    const u64 kd = wg_desc(c.base + c.w * 64 * 128, 16), vd = wg_desc(c.base + bwd_layout<D>::V_AT + c.w * 64 * 128, 16);
    const u64 qd = wg_desc(q, 16), dod = wg_desc(q + bwd_layout<D>::Q, 16);
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        const u32 kv = (kk >> 2) * AB90_BLOCK_N * 128 + (kk & 3) * 32, qs = (kk >> 2) * AB90_BLOCK_M * 128 + (kk & 3) * 32;
        wgmma_ss<FP16, 0, 0, 64>(s, wg_at(kd, kv), wg_at(qd, qs), kk > 0);
    }
    wg_commit(); /* S^T its own group: P^T is computed while dP^T runs */
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        const u32 kv = (kk >> 2) * AB90_BLOCK_N * 128 + (kk & 3) * 32, qs = (kk >> 2) * AB90_BLOCK_M * 128 + (kk & 3) * 32;
        wgmma_ss<FP16, 0, 0, 64>(dp, wg_at(vd, kv), wg_at(dod, qs), kk > 0);
    }
    wg_commit();
}

/* Key j (of the CTA's block) is dead for query column qc past the key tail
 * (j >= klim) or, causal, past the query's diagonal (j + cdiff > qc). */
struct bwd_cut {
    int klim, cdiff;
};

__device__ __forceinline__ bwd_cut clip(const bwd_ctx &c, const gdt_hand_attn_bwd_params &p, int m0)
{
    const long long k = (long long)p.s_kv - c.n0, d = (long long)c.n0 - m0 - c.off;
    bwd_cut cut;
    cut.klim = k > AB90_BLOCK_N ? AB90_BLOCK_N : (int)k;
    cut.cdiff = !p.causal ? -(1 << 20) : d > AB90_BLOCK_M ? AB90_BLOCK_M : d < -AB90_BLOCK_N ? -AB90_BLOCK_N : (int)d;
    return cut;
}

/* P^T from S^T with the block's LSE log2 e row. */
template <bool MASK>
__device__ __forceinline__ void probs(float (&s)[32], u32 rows, float sl2, bwd_cut cut, const bwd_ctx &c)
{
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) {
        const int q0 = jj * 8 + (c.lane & 3) * 2;
        float l[2];
        lds_f32x2(l, rows + q0 * 4);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int v = 4 * jj + e, j = c.krow + (e >> 1) * 8;
            float pv = fast_exp2(fmaf(s[v], sl2, -l[e & 1]));
            if (MASK && (j >= cut.klim || j + cut.cdiff > q0 + (e & 1)))
                pv = 0.f;
            s[v] = pv;
        }
    }
}

/* dS^T / scale = P^T (dP^T - D), with the block's D row; the scale is
 * applied once, to dK (store_kv) and dQ (post). */
__device__ __forceinline__ void grad_s(const float (&pt)[32], float (&dp)[32], u32 rows, const bwd_ctx &c)
{
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) {
        float d[2];
        lds_f32x2(d, rows + 256 + (jj * 8 + (c.lane & 3) * 2) * 4);
#pragma unroll
        for (int e = 0; e < 4; ++e)
            dp[4 * jj + e] = pt[4 * jj + e] * (dp[4 * jj + e] - d[e & 1]);
    }
}

/* dS^T into the swizzled 128 x 64 tile: word e of step kk is key row
 * krow + 8 (e & 1), query columns 16 kk + 8 (e >> 1) + 2 (lane % 4), +1. */
__device__ __forceinline__ void store_ds(u32 sds, const u32 (&a)[AB90_BLOCK_M / 16][4], const bwd_ctx &c)
{
#pragma unroll
    for (int kk = 0; kk < AB90_BLOCK_M / 16; ++kk)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int r = c.krow + (e & 1) * 8, ch = 2 * kk + (e >> 1);
            const u32 addr = sds + r * 128 + ((ch ^ (r & 7)) << 4) + (c.lane & 3) * 4;
            sts_u32(addr, a[kk][e]);
        }
}

/* dV += P^T dO, or dK += dS^T Q, issued: dO and Q MN-major, their
 * 64-column blocks AB90_BLOCK_M * 128 bytes apart (LBO), a k16 step 16 query
 * rows (2048 bytes); `t` is the dO or the Q tile. */
template <int FP16, int D>
__device__ __forceinline__ void grad_kv(float (&acc)[D / 2], const u32 (&a)[AB90_BLOCK_M / 16][4], u32 t)
{
    const u64 b = wg_desc(t, AB90_BLOCK_M * 128);
#pragma unroll
    for (int kk = 0; kk < AB90_BLOCK_M / 16; ++kk)
        wgmma_rs<FP16, D>(acc, a[kk], wg_at(b, kk * 2048));
}

/* dQ chunk j (64 query rows x 64 columns of d) = dS K over the CTA's 128
 * keys, from dS^T tile sds: issued, not waited for. */
template <int FP16>
__device__ __forceinline__ void grad_q(float (&acc)[32], u32 sds, const bwd_ctx &c, int j)
{
    const u64 a = wg_desc(sds, AB90_BLOCK_N * 128), b = wg_desc(c.base, AB90_BLOCK_N * 128);
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < AB90_BLOCK_N / 16; ++kk)
        wgmma_ss<FP16, 1, 1, 64>(acc, wg_at(a, kk * 2048), wg_at(b, j * AB90_BLOCK_N * 128 + kk * 2048), kk > 0);
    wg_commit();
}

/* Elements 4 k .. 4 k + 3 of a dQ chunk and the quads after them, at
 * immediate offsets from one address register (a loop over k would give 8
 * addresses that the compiler hoists out of the block loop). */
template <int K> __device__ __forceinline__ void stage_quads(const float (&acc)[32], u32 at)
{
    if constexpr (K < 8) {
        asm volatile("st.shared.v4.f32 [%0+%5], {%1, %2, %3, %4};\n" ::"r"(at), "f"(acc[4 * K]),
                     "f"(acc[4 * K + 1]), "f"(acc[4 * K + 2]), "f"(acc[4 * K + 3]), "n"(K * AB90_DQ_QUAD * 4)
                     : "memory");
        stage_quads<K + 1>(acc, at);
    }
}

/* This consumer's chunk into its dQ slice in the blocked order (AB90_DQ_CHUNK):
 * thread T's elements 4 k .. 4 k + 3 at float AB90_DQ_QUAD k + 4 T, so that a
 * warp's 16-byte stores fill 512 contiguous bytes, four wavefronts, the
 * least for 512 bytes. */
template <int D> __device__ __forceinline__ void stage_dq(const float (&acc)[32], const bwd_ctx &c)
{
    const int t = (c.krow - c.w * 64) / 16 * 32 + c.lane;
    stage_quads<0>(acc, dq_slice<D>(c) + t * 16);
}

/* Released by each consumer warp once its warpgroup's wgmma has read the stage. */
__device__ __forceinline__ void release(const bwd_ctx &c, u32 bar)
{
    if (c.lane == 0)
        bar_arrive(bar);
}

/* dQ of block it: once both consumers have written its dS^T, this
 * consumer's chunk issued, not waited for. */
template <int FP16, int D> __device__ __forceinline__ void dq_issue(float (&acc)[32], const bwd_ctx &c, int it)
{
    bar_wait(ds_full<D>(c, it), phase(it));
    grad_q<FP16>(acc, ds_tile<D>(c, it), c, dq_chunk<D>(c));
}

/* After the wait for dQ of block it: its dS^T tile freed, the wait until
 * this consumer's writer has read its slice of this consumer's block before
 * (dq_use), the chunk staged into the slice and the writer signalled.  The
 * slice's pair of barriers is this
 * consumer's and its writer's alone, both counting only the blocks whose
 * dQ this consumer computes, so a parity wait here is never two phases
 * behind: the writer's next arrival needs this consumer's next staging. */
template <int D> __device__ __forceinline__ void dq_finish(float (&acc)[32], const bwd_ctx &c, int it)
{
    wg_fence_acc(acc);
    bar_arrive(ds_empty<D>(c, it));
    bar_wait(dq_empty<D>(c), ((u32)dq_use<D>(it) & 1) ^ 1);
    stage_dq<D>(acc, c);
    fence_proxy_async();
    bar_arrive(dq_full<D>(c));
}

/* Block it by a consumer that does not compute its dQ (at d 64): its dS^T
 * tile freed; its slice and writer are not involved. */
template <int D> __device__ __forceinline__ void dq_skip(const bwd_ctx &c, int it) { bar_arrive(ds_empty<D>(c, it)); }

/* The dQ of block it (its dS^T complete) by the consumers that compute it;
 * at d 64 the other only frees the dS^T tile (dq_skip). */
template <int FP16, int D> __device__ __forceinline__ void dq_last(const bwd_ctx &c, int it)
{
    if (dq_mine<D>(c, it)) {
        float acc[32];
        dq_issue<FP16, D>(acc, c, it);
        wg_wait<0>();
        dq_finish<D>(acc, c, it);
    } else {
        dq_skip<D>(c, it);
    }
}

/* Block it's dS^T out to its tile for dQ, once both consumers' dQ of block
 * it - 2 has read the tile. */
template <int D> __device__ __forceinline__ void store_block_ds(const u32 (&da)[AB90_BLOCK_M / 16][4], const bwd_ctx &c, int it)
{
    bar_wait(ds_empty<D>(c, it), phase(it) ^ 1);
    store_ds(ds_tile<D>(c, it), da, c);
    fence_proxy_async();
    bar_arrive(ds_full<D>(c, it));
}

/* The wait for every wgmma issued (block it's dK the last), which frees the
 * stage. */
template <int D>
__device__ __forceinline__ void finish_block(float (&dk)[D / 2], float (&dv)[D / 2], const bwd_ctx &c, int it)
{
    wg_wait<0>();
    wg_fence_acc(dk);
    wg_fence_acc(dv);
    release(c, empty<D>(c, it));
}

/* ------------------------------------------------------------ ping-pong */

/* PP = 1 (the hand engine's PINGPONG=1 configuration, the rows' PINGPONG
 * column): the two consumers take turns at the tensor cores, as the
 * forward's do (gdt_attn_fwd_sm90.cuh, turn_begin), so that each one's
 * P^T, dS^T and fragments run under the other's GEMMs instead of both
 * computing them at once while the tensor cores idle.  Consumer w's turn
 * is bar.sync on named barrier 1 + w, its hand-over bar.arrive on the
 * other's, 2 - w (256 threads each: its own 128 syncing, the other's 128
 * arriving).  With n blocks a consumer takes turns 0 .. n: turn t issues
 * block t - 1's dV, dQ of block t - 2 and dK and waits for them (the
 * registers hold no next S^T beside dK and dV), then block t's S^T and
 * dP^T; between its turns it computes block t's P^T and dS^T.  So the
 * tensor cores see consumer 0's S^T and dP^T, consumer 1's dV, dQ, dK,
 * S^T and dP^T, consumer 0's dV, dQ, dK, S^T and dP^T, ...: the two run
 * half a block apart.  Consumer 1 opens the ring with one arrival on 1
 * and consumer 0 closes it with one more bar.sync on 1, so each barrier
 * takes as many arrivals as syncs (both consumers walk the same blocks);
 * the turns are one sequence, so no barrier ever holds two arrivals of
 * one consumer.  The other waits (barrier invariant at iteration) keep
 * their order: each is met by arrivals of the consumer's own earlier
 * turns or of the other's, which precede its turn in the ring (dS^T of
 * block t - 2, stored by both in their turns t - 1, before consumer 0's
 * turn t).  PP = 0 takes no turn and is the kernel as before. */
__device__ __forceinline__ void turn_begin(const bwd_ctx &c) { named_sync(1 + c.w, 256); }
__device__ __forceinline__ void turn_end(const bwd_ctx &c) { named_arrive(2 - c.w, 256); }

/* Consumer 1 hands consumer 0 the first turn; a consumer with blocks
 * begins its turn 0 (block 0's S^T and dP^T). */
__device__ __forceinline__ void turns_first(const bwd_ctx &c, const gdt_hand_attn_bwd_params &p)
{
    if (c.w == 1)
        named_arrive(1, 256);
    if (p.group > 0 && c.m_first < c.mblocks)
        turn_begin(c);
}

/* After n blocks: turn n (block n - 1's dV, dQ and dK) ends, and consumer
 * 0 takes consumer 1's last hand-over, so nothing is left pending on
 * barrier 1 at exit. */
__device__ __forceinline__ void turns_last(const bwd_ctx &c, int n)
{
    if (n > 0)
        turn_end(c);
    if (c.w == 0)
        named_sync(1, 256);
}

/* Block it, and the dQ of block it - 1, in FA3's order: dV of block it,
 * then dQ of block it - 1, then dK of block it, three commit groups.
 *   - The dQ waits for that dS^T to be complete, but the other consumer
 *     wrote its half a block ago, so neither waits for the other in step,
 *     and dV is on the tensor cores meanwhile.
 *   - While dQ and dK run, this thread stores block it's dS^T; once dV and
 *     dQ are done (wait_group 1) it frees that dS^T tile and stages block
 *     it - 1's chunk into its dQ slice while dK still runs, so the staging
 *     stores, their proxy fence and the wait for its writer are off the
 *     path between one block's last wgmma and the next block's first.
 * acc lives in one branch only: a value that may be undefined on a path
 * would stay live around the loop and cost the registers wgmma needs.
 *
 * The barrier invariant (engines/hand/README.md): each wait here, for full(it),
 * ds_full(it - 1), ds_empty(it) and, where this consumer computes dQ of
 * block it - 1, its dq_empty (its writer's read of its slice of its block
 * before: it - 2 at d 128, it - 3 at d 64), is met by arrivals made in
 * blocks before it (stage it - 2 released by both consumers, dS^T of it - 1
 * stored by both, tiles of it - 2 freed by both in block it - 1, and this
 * consumer's own slice of that earlier block staged in an earlier
 * iteration, which is all its writer waits for), so the consumers never
 * wait for each other within a block, and no parity wait can see a phase
 * two ahead: each barrier's next phase needs an arrival the waiter makes
 * after its wait. */
template <int FP16, int D, int PP>
__device__ __forceinline__ void iteration(float (&dk)[D / 2], float (&dv)[D / 2], const bwd_ctx &c,
                                          const gdt_hand_attn_bwd_params &p, int it, int m0)
{
    const u32 q = q_tile<D>(c, it);
    float s[32], dp[32];
    u32 pa[AB90_BLOCK_M / 16][4], da[AB90_BLOCK_M / 16][4];
    bar_wait(full<D>(c, it), phase(it));
    wg_fence();
    scores<FP16, D>(s, dp, c, q);
    if constexpr (PP)
        turn_end(c); /* S^T and dP^T of block it issued: the other consumer's turn */
    wg_wait<1>();
    wg_fence_acc(s);
    const bool cut = c.n0 + AB90_BLOCK_N > p.s_kv || (p.causal && c.n0 + c.w * 64 + 63 > m0 + c.off);
    if (warp_any(cut))
        probs<true>(s, row_vecs<D>(c, it), p.scale_log2, clip(c, p, m0), c);
    else
        probs<false>(s, row_vecs<D>(c, it), p.scale_log2, bwd_cut{}, c);
    wg_wait<0>();
    wg_fence_acc(dp);
    grad_s(s, dp, row_vecs<D>(c, it), c);
    pack_a<FP16>(pa, s);
    pack_a<FP16>(da, dp);
    if constexpr (PP)
        turn_begin(c); /* held until block it + 1's S^T and dP^T are issued */
    wg_fence();
    grad_kv<FP16, D>(dv, pa, q + bwd_layout<D>::Q);
    wg_commit();
    if (it > 0 && dq_mine<D>(c, it - 1)) {
        float acc[32];
        dq_issue<FP16, D>(acc, c, it - 1);
        grad_kv<FP16, D>(dk, da, q);
        wg_commit();
        store_block_ds<D>(da, c, it);
        wg_wait<1>();
        dq_finish<D>(acc, c, it - 1);
        finish_block<D>(dk, dv, c, it);
    } else {
        wg_fence(); /* none written since the last, but ptxas wants one in each branch (else C7520) */
        grad_kv<FP16, D>(dk, da, q);
        wg_commit();
        store_block_ds<D>(da, c, it);
        if (it > 0)
            dq_skip<D>(c, it - 1);
        finish_block<D>(dk, dv, c, it);
    }
}

/* dK (times the scale) and dV rows below s_kv, strided like K and V (TMA's
 * 16-byte strides), in 16-byte pieces (store_row16). */
template <int FP16, int D>
__device__ __forceinline__ void store_kv(const float (&dk)[D / 2], const float (&dv)[D / 2], const bwd_ctx &c,
                                         const gdt_hand_attn_bwd_params &p)
{
    u16 *gk = (u16 *)p.dk + c.bi * p.k_s[0] + c.hk * p.k_s[1];
    u16 *gv = (u16 *)p.dv + c.bi * p.v_s[0] + c.hk * p.v_s[1];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const long long j = (long long)c.n0 + c.krow + h * 8;
        store_row16<FP16, D>(gk + j * p.k_s[2], dk, h, p.scale, c.lane, j < p.s_kv);
        store_row16<FP16, D>(gv + j * p.v_s[2], dv, h, 1.f, c.lane, j < p.s_kv);
    }
}

template <int FP16, int D, int PP>
__device__ __forceinline__ void consume(const bwd_ctx &c, const gdt_hand_attn_bwd_params &p)
{
    float dk[D / 2], dv[D / 2];
#pragma unroll
    for (int v = 0; v < D / 2; ++v)
        dk[v] = dv[v] = 0.f;
    if constexpr (PP)
        turns_first(c, p);
    bar_wait(kv_full<D>(c), 0);
    int it = 0;
    for (int g = 0; g < p.group; ++g)
        for (int mb = c.m_first; mb < c.mblocks; ++mb, ++it)
            iteration<FP16, D, PP>(dk, dv, c, p, it, mb * AB90_BLOCK_M);
    if constexpr (PP)
        turns_last(c, it);
    if (it > 0)
        dq_last<FP16, D>(c, it - 1);
    store_kv<FP16, D>(dk, dv, c, p);
}

/* ---------------------------------------------------------------- entry */

/* This CTA's (batch, kv head), keys and query blocks.  The grid is b*h_kv by
 * key blocks and the hardware starts CTAs in linear order (x fastest), but
 * that order is not the work's: CTA L takes section L / (section * key
 * blocks), a run of p.section (batch, kv head) pairs, and within it key
 * block by key block, every pair of the section at each.  So the CTAs in
 * flight at once are all the key blocks of a few heads, which read the
 * same Q, dO, LSE and D rows and add into the same dQ accumulator: those
 * stay in L2 (the host sizes a section for that), where b*h_kv CTAs of one
 * key block would stream every head's from HBM.  Within a section the first
 * key blocks, which a causal mask gives the most query blocks, still go
 * first.  The last section may hold fewer pairs; the map is one to one.
 * Under a causal mask query i sees key j when j <= i + off, so the first
 * query block is the one holding i = n0 - off. */
__device__ __forceinline__ void schedule(bwd_ctx &c, const gdt_hand_attn_bwd_params &p)
{
    const long long pairs = gridDim.x, kblocks = gridDim.y, span = (long long)p.section * kblocks;
    const long long l = (long long)blockIdx.y * pairs + blockIdx.x, sec = l / span, in = l - sec * span;
    const long long first_pair = sec * p.section, n = pairs - first_pair < p.section ? pairs - first_pair : p.section;
    const int pair = (int)(first_pair + in % n);
    c.bi = pair / p.h_kv, c.hk = pair % p.h_kv;
    c.n0 = (int)(in / n) * AB90_BLOCK_N;
    c.off = p.causal == 2 ? p.s_kv - p.s_q : 0;
    c.mblocks = (p.s_q + AB90_BLOCK_M - 1) / AB90_BLOCK_M;
    const int first = p.causal && c.n0 > c.off ? (c.n0 - c.off) / AB90_BLOCK_M : 0;
    c.m_first = first < c.mblocks ? first : c.mblocks;
}

template <int FP16, int D, int PP, int DET>
__device__ __forceinline__ void attn_bwd(const CUtensorMap *tq, const CUtensorMap *tk, const CUtensorMap *tv,
                                         const CUtensorMap *tdo, const gdt_hand_attn_bwd_params &p)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    bwd_ctx c;
    /* Swizzle atoms start on 1024-byte boundaries; the launch reserves 1024
     * bytes of slack for this. */
    c.base = (smem_addr(smem_raw) + 1023u) & ~1023u;
    grid_dep_launch(); /* post's CTAs may start as this kernel's last ones run */
    schedule(c, p);
    if (threadIdx.x == 0) {
        bar_init(kv_full<D>(c), 1);
        for (int s = 0; s < AB90_STAGES; ++s)
            bar_init(full<D>(c, s), 1), bar_init(empty<D>(c, s), AB90_CONSUMER_WARPS);
        for (int b = 0; b < 2; ++b)
            bar_init(ds_full<D>(c, b), 256), bar_init(ds_empty<D>(c, b), 256);
        for (c.w = 0; c.w < 2; ++c.w)
            bar_init(dq_full<D>(c), 128), bar_init(dq_empty<D>(c), 1);
        bar_init_fence();
    }
    __syncthreads();
    if (threadIdx.x < 128) {
        regs_dec<AB90_PRODUCER_REGS>();
        c.lane = (int)threadIdx.x & 31;
        c.w = (int)threadIdx.x / 32 - 1; /* warps 1 and 2: the writers of consumers 0 and 1 */
        if (threadIdx.x == 0)
            produce<D>(c, p, tq, tk, tv, tdo);
        else if (c.lane == 0 && (c.w == 0 || c.w == 1))
            drain_dq<D, DET>(c, p);
    } else {
        regs_inc<AB90_CONSUMER_REGS>();
        const int t = (int)threadIdx.x - 128;
        c.w = t / 128, c.lane = t % 32;
        c.krow = t / 32 * 16 + c.lane / 4; /* warp t/32 of the two consumers owns 16 key rows */
        consume<FP16, D, PP>(c, p);
    }
}

/* The main kernel of dtype fp16 (1 fp16, 0 bf16), head dim d, pp (1: the
 * consumers ping-pong) and det (1: dQ added in key-block order, drain_dq),
 * named main_name. */
#define GDT_ATTN_BWD_SM90_MAIN(main_name, fp16, d, pp, det)                                         \
    extern "C" __global__ void __launch_bounds__(AB90_THREADS, 1)                                   \
        main_name(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tk,   \
                  const __grid_constant__ CUtensorMap tv, const __grid_constant__ CUtensorMap tdo,  \
                  const gdt_hand_attn_bwd_params p)                                                 \
    {                                                                                               \
        attn_bwd<fp16, d, pp, det>(&tq, &tk, &tv, &tdo, p);                                         \
    }

/* The pre kernel of dtype fp16, head dim d and det (1: it also zeroes dQ's
 * semaphores, which the main kernel of det 1 needs), named pre_name. */
#define GDT_ATTN_BWD_SM90_PRE(pre_name, fp16, d, det)                                               \
    extern "C" __global__ void __launch_bounds__(256) pre_name(const gdt_hand_attn_bwd_params p)   \
    {                                                                                               \
        pre<fp16, d, det>(p);                                                                       \
    }

/* The three entries of dtype fp16, head dim d, pp and det, named pre_name,
 * main_name and post_name (kernels/hand/attn_bwd_sm90.cu names the hand
 * engine's twelve of pp 0 and det 0 and adds the four main kernels of pp 1,
 * which share pre and post, and the four pre and four main kernels of det
 * 1, which share post; kernels/attn_bwd.cuh names the PIPE=1 row's three). */
#define GDT_ATTN_BWD_SM90_ENTRIES(pre_name, main_name, post_name, fp16, d, pp, det)                 \
    GDT_ATTN_BWD_SM90_PRE(pre_name, fp16, d, det)                                                   \
    GDT_ATTN_BWD_SM90_MAIN(main_name, fp16, d, pp, det)                                             \
    extern "C" __global__ void __launch_bounds__(256) post_name(const gdt_hand_attn_bwd_params p)  \
    {                                                                                               \
        post<fp16, d>(p);                                                                           \
    }

#endif
