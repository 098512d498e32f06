// Flash-attention backward (FA2 algorithm) for NVRTC, three kernels in
// launch order:
//   gdt_attn_bwd_pre   D = rowsum(dO * O) into the workspace; zeroes the fp32
//                      dQ accumulator (so repeated executes are correct).
//   gdt_attn_bwd_main  one CTA per (batch, kv head, BLOCK_N key/value rows):
//                      for every query head of the GQA group and every
//                      BLOCK_M query block it recomputes P from Q, K and the
//                      log-sum-exp, accumulates dK and dV in registers (so the
//                      group sum needs no atomics) and adds dQ = dS K into the
//                      fp32 accumulator with atomics.  Warps split the K/V rows.
//   gdt_attn_bwd_post  dQ accumulator times the softmax scale -> io dtype.
// Q/dO tiles and their LSE/D rows stream through a cp.async ring of STAGES.
// Shared memory: K, V, STAGES x (Q, dO, LSE, D), then one dS^T tile, or two
// when the launch gives that much more (checked at run time): the second
// saves a barrier per query block (see the main loop).
//
// Bound by the plan: HEAD_DIM, BLOCK_M, BLOCK_N, WARPS, STAGES, GDT_FP16,
// CAUSAL (0 none, 1 top-left, 2 bottom-right).  Operand strides: dO as O,
// dQ as Q, dK as K, dV as V.
//
// PIPE=1: the Hopper structure of kernels/gdt_attn_bwd_sm90.cuh (the hand
// engine's backward, one source) at GDT_FP16 and HEAD_DIM, its three
// kernels under the names above: a TMA producer thread feeding a Q/dO ring
// of mbarriers, two consumer warpgroups (setmaxnreg 24/240) holding dK and
// dV, dQ added by bulk reduce-adds from shared memory, main and post by
// programmatic dependent launch.  An attention_bwd row with PIPE=1 binds it
// (tmpl_attention.c then passes PIPE, GDT_FP16 and HEAD_DIM only, and
// launches it as sdpa_bwd.hand does, engines/attn_bwd_tma.c);
// tests/cpu/test_attn_bwd_tma_rows.c compiles the staged row and checks
// each of its three kernels is the hand cubin's entry, byte for byte.

#if PIPE == 1

#include "gdt_attn_bwd_sm90.cuh"

// PINGPONG=1 (bound only by a row whose PINGPONG column is 1): the main
// kernel's consumers take turns, sdpa_bwd.hand's PINGPONG=1 configuration.
#ifndef PINGPONG
#define PINGPONG 0
#endif

// DETERMINISTIC=1 (bound only by a row whose DETERMINISTIC column is 1): dQ
// added in key-block order behind semaphores that pre zeroes,
// sdpa_bwd.hand's DETERMINISTIC=1 configuration.
#ifndef DETERMINISTIC
#define DETERMINISTIC 0
#endif

GDT_ATTN_BWD_SM90_ENTRIES(gdt_attn_bwd_pre, gdt_attn_bwd_main, gdt_attn_bwd_post, GDT_FP16, HEAD_DIM, PINGPONG,
                          DETERMINISTIC)

#else

#ifndef HEAD_DIM
#error "HEAD_DIM, BLOCK_M, BLOCK_N, WARPS, STAGES, GDT_FP16 and CAUSAL are bound by the plan"
#endif

#include "gdt_attn.cuh"

#define THREADS (WARPS * 32)
#define LDS (HEAD_DIM + 8)          // smem row stride of d-wide tiles (elements)
#define LDQ (BLOCK_M + 8)           // smem row stride of the dS^T tile
#define R (BLOCK_N / (16 * WARPS))  // m16 tiles of K/V rows per warp
#define NQ (BLOCK_M / 8)            // n8 tiles of S^T over the query block
#define DT (HEAD_DIM / 8)
#define KS (HEAD_DIM / 16)
#define KQ (BLOCK_M / 16)           // k16 steps over the query block
#define DTW (DT / WARPS)            // n8 tiles of dQ columns per warp
#define LOG2E 1.4426950408889634f
#define DS_BYTES (BLOCK_N * LDQ * 2) // one dS^T tile in shared memory

static_assert(BLOCK_N % (16 * WARPS) == 0, "BLOCK_N must be a multiple of 16*WARPS");
static_assert(DT % WARPS == 0, "HEAD_DIM/8 must be a multiple of WARPS (dQ column split)");
static_assert(BLOCK_M % 16 == 0 && HEAD_DIM % 16 == 0, "tiles are multiples of 16");

// ------------------------------------------------------------ pre / post

#define ROW_WARPS 8 // rows per 256-thread CTA of the pre/post kernels

// This warp's row r of the packed [b, h_q, s_q] index space and its element
// offsets in Q (and dQ) and O (and dO); false past the last row.
__device__ __forceinline__ bool warp_row(const gdt_attn_params &p, i64 *r, i64 *oq, i64 *oo)
{
    *r = (i64)blockIdx.x * ROW_WARPS + (threadIdx.x >> 5);
    if (*r >= p.b * p.h_q * p.s_q) return false;
    i64 i = *r % p.s_q, bh = *r / p.s_q, hq = bh % p.h_q, bi = bh / p.h_q;
    *oq = bi * p.q_s[0] + hq * p.q_s[1] + i * p.q_s[2];
    *oo = bi * p.o_s[0] + hq * p.o_s[1] + i * p.o_s[2];
    return true;
}

extern "C" __global__ void __launch_bounds__(256) gdt_attn_bwd_pre(const gdt_attn_params p)
{
    const int lane = threadIdx.x & 31;
    i64 r, oq, oo;
    if (!warp_row(p, &r, &oq, &oo)) return;
    float sum = 0.f;
    for (int c = lane; c < DT; c += 32) {
        u32x4 a = *(const u32x4 *)((const u16 *)p.dout + oo + c * 8);
        u32x4 b = *(const u32x4 *)((const u16 *)p.o + oo + c * 8);
        u32 av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
        for (int e = 0; e < 4; e++)
            sum += unpack_lo(av[e]) * unpack_lo(bv[e]) + unpack_hi(av[e]) * unpack_hi(bv[e]);
        f32x4 z = {0.f, 0.f, 0.f, 0.f};
        *(f32x4 *)(p.dq_acc + r * HEAD_DIM + c * 8) = z;
        *(f32x4 *)(p.dq_acc + r * HEAD_DIM + c * 8 + 4) = z;
    }
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) sum += shfl_xor(sum, m);
    if (lane == 0) p.dsum[r] = sum;
}

extern "C" __global__ void __launch_bounds__(256) gdt_attn_bwd_post(const gdt_attn_params p)
{
    const int lane = threadIdx.x & 31;
    i64 r, oq, oo;
    if (!warp_row(p, &r, &oq, &oo)) return;
    for (int c = lane; c < DT; c += 32) {
        f32x4 a = *(const f32x4 *)(p.dq_acc + r * HEAD_DIM + c * 8);
        f32x4 b = *(const f32x4 *)(p.dq_acc + r * HEAD_DIM + c * 8 + 4);
        const float sc = p.scale;
        u32x4 v = {pack2(a.x * sc, a.y * sc), pack2(a.z * sc, a.w * sc), pack2(b.x * sc, b.y * sc),
                   pack2(b.z * sc, b.w * sc)};
        *(u32x4 *)((u16 *)p.dq + oq + c * 8) = v;
    }
}

// ------------------------------------------------------------------ main

// The trip counts are compile-time constants: a runtime-bounded loop here
// cost the main loop ~25 integer instructions per 16-byte copy.  When a
// thread's chunks share one column (THREADS a multiple of the chunks per
// row), its global addresses step by a uniform stride instead of one 64-bit
// multiply each.
template <int ROWS>
__device__ __forceinline__ void load_tile(u32 dst, const u16 *src, i64 rs, i64 row0, i64 limit)
{
    constexpr int CPR = HEAD_DIM / 8, CHUNKS = ROWS * CPR;
    const u16 *base = src + row0 * rs;
    const int left = limit - row0 < ROWS ? (int)(limit - row0) : ROWS;
    if constexpr (THREADS % CPR == 0) {
        constexpr int STEP = THREADS / CPR;
        const int r0 = threadIdx.x / CPR, col = (threadIdx.x % CPR) * 8;
        const u16 *g = base + r0 * rs + col;
        const u32 d = dst + (u32)(r0 * LDS + col) * 2;
#pragma unroll
        for (int i = 0; i < (ROWS + STEP - 1) / STEP; i++) {
            const int r = r0 + i * STEP;
            if (ROWS % STEP == 0 || r < ROWS) // past ROWS even a zero fill would overrun the tile
                cp_async16(d + i * (STEP * LDS * 2), r < left ? g + i * STEP * rs : src, r < left);
        }
    } else {
#pragma unroll
        for (int i = 0; i < (CHUNKS + THREADS - 1) / THREADS; i++) {
            const int c = threadIdx.x + i * THREADS;
            if (CHUNKS % THREADS == 0 || c < CHUNKS) {
                const int r = c / CPR, col = (c % CPR) * 8;
                const bool ok = r < left;
                cp_async16(dst + (u32)(r * LDS + col) * 2, ok ? base + r * rs + col : src, ok);
            }
        }
    }
}

__device__ __forceinline__ void load_rowvec(u32 dst, const float *src, i64 row0, i64 limit)
{
    const int left = limit - row0 < BLOCK_M ? (int)(limit - row0) : BLOCK_M;
#pragma unroll
    for (int i = 0; i < (BLOCK_M + THREADS - 1) / THREADS; i++) {
        const int c = threadIdx.x + i * THREADS;
        if (BLOCK_M % THREADS == 0 || c < BLOCK_M) {
            const bool ok = c < left;
            cp_async4(dst + (u32)c * 4, ok ? src + row0 + c : src, ok);
        }
    }
}

// The main loop's iteration space: (query head of the group, query block).
struct bwd_sched {
    i64 bi, hk, n0, off;
    int m_first, mblocks, total;
};

// Tiles as 32-bit shared addresses (ldmatrix, cp.async): derived from a
// generic pointer per use, each address cost 64-bit arithmetic in the loop.
// lse, dd and ds are also read or written through ordinary pointers.
struct bwd_smem {
    u32 k, v, q, dout, ds, lse, dd;
    const float *lse_p, *dd_p;
    u16 *ds_p;
};

// A position in the iteration space, stepped without a division per iteration.
struct bwd_pos {
    int g, mb; // query head within the group, query block index
};

__device__ __forceinline__ void bwd_step(bwd_pos &c, const bwd_sched &sc)
{
    if (++c.mb == sc.mblocks) c.mb = sc.m_first, c.g++;
}

__device__ __forceinline__ void bwd_issue(const gdt_attn_params &p, const bwd_sched &sc,
                                          const bwd_smem &sm, bwd_pos c, int slot)
{
    const i64 hq = sc.hk * p.group + c.g;
    const i64 m0 = (i64)c.mb * BLOCK_M;
    const u16 *gq = (const u16 *)p.q + sc.bi * p.q_s[0] + hq * p.q_s[1];
    const u16 *gdo = (const u16 *)p.dout + sc.bi * p.o_s[0] + hq * p.o_s[1];
    const i64 rows = (sc.bi * p.h_q + hq) * p.s_q;
    load_tile<BLOCK_M>(sm.q + slot * (BLOCK_M * LDS * 2), gq, p.q_s[2], m0, p.s_q);
    load_tile<BLOCK_M>(sm.dout + slot * (BLOCK_M * LDS * 2), gdo, p.o_s[2], m0, p.s_q);
    load_rowvec(sm.lse + slot * (BLOCK_M * 4), p.stats + rows, m0, p.s_q);
    load_rowvec(sm.dd + slot * (BLOCK_M * 4), p.dsum + rows, m0, p.s_q);
}

// acc[R][NQ] (K/V rows x query block) = rows of sA (warp's K or V rows) . sB^T.
__device__ __forceinline__ void bwd_gemm_t(float (&acc)[R][NQ][4], u32 sA, u32 sB, int wrow, int lane)
{
    frag_zero(acc);
#pragma unroll
    for (int ks = 0; ks < KS; ks++) {
        u32 a[R][4];
#pragma unroll
        for (int r = 0; r < R; r++)
            ldsm_x4(a[r], sA + ((wrow + r * 16 + (lane & 15)) * LDS + ks * 16 + (lane >> 4) * 8) * 2);
#pragma unroll
        for (int np = 0; np < NQ / 2; np++) {
            u32 b[4];
            ldsm_x4(b, sB + ((np * 16 + (lane & 7) + ((lane >> 4) << 3)) * LDS + ks * 16 +
                             ((lane >> 3) & 1) * 8) * 2);
#pragma unroll
            for (int r = 0; r < R; r++) {
                mma16816(acc[r][2 * np], a[r], b[0], b[1]);
                mma16816(acc[r][2 * np + 1], a[r], b[2], b[3]);
            }
        }
    }
}

// acc[R][DT] += X (registers, K/V rows x query block) . sB (query block x d).
__device__ __forceinline__ void bwd_gemm_acc(float (&acc)[R][DT][4], const float (&x)[R][NQ][4],
                                             u32 sB, int lane)
{
#pragma unroll
    for (int kk = 0; kk < KQ; kk++) {
        u32 a[R][4];
#pragma unroll
        for (int r = 0; r < R; r++) {
            a[r][0] = pack2(x[r][2 * kk][0], x[r][2 * kk][1]);
            a[r][1] = pack2(x[r][2 * kk][2], x[r][2 * kk][3]);
            a[r][2] = pack2(x[r][2 * kk + 1][0], x[r][2 * kk + 1][1]);
            a[r][3] = pack2(x[r][2 * kk + 1][2], x[r][2 * kk + 1][3]);
        }
#pragma unroll
        for (int dp = 0; dp < DT / 2; dp++) {
            u32 b[4];
            ldsm_x4_t(b, sB + ((kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * LDS + dp * 16 +
                               (lane >> 4) * 8) * 2);
#pragma unroll
            for (int r = 0; r < R; r++) {
                mma16816(acc[r][2 * dp], a[r], b[0], b[1]);
                mma16816(acc[r][2 * dp + 1], a[r], b[2], b[3]);
            }
        }
    }
}

// Where a warp's P^T tile is cut, relative to its corner (K/V row j0, query
// m0): query columns >= qlim and K/V rows >= klim are past the ends; with
// CAUSAL, K/V row jr is masked for query column qc when jr + cdiff > qc.
// Small ints, so the masked tiles cost compares and selects, not 64-bit math.
struct bwd_cut {
    int qlim, klim, cdiff;
};

// Whether P^T entry (K/V row jr, query column qc) of a cut tile is masked:
// past either end, or (causal) a key after the query's diagonal.
__device__ __forceinline__ bool bwd_dead(int qc, int jr, bwd_cut cut)
{
    bool dead = qc >= cut.qlim || jr >= cut.klim;
    if (CAUSAL) dead = dead || jr + cut.cdiff > qc;
    return dead;
}

// f(r, nt, e, qc) for each of this lane's elements of an R x NQ P^T-shaped
// tile, qc the element's query column.
template <class F> __device__ __forceinline__ void bwd_each(int lane, F f)
{
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int nt = 0; nt < NQ; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++) f(r, nt, e, nt * 8 + (lane & 3) * 2 + (e & 1));
}

// P^T from S^T and the LSE; masked entries (tails, causal) become 0.  MASK
// is a template argument so tiles without a cut run no mask code at all (as
// a runtime flag, ptxas predicated ~150 compares and selects into every tile).
template <bool MASK>
__device__ __forceinline__ void bwd_probs(float (&s)[R][NQ][4], const float *lse, float sl2, bwd_cut cut,
                                          int lane)
{
    bwd_each(lane, [&](int r, int nt, int e, int qc) {
        float pv = fast_exp2(fmaf(s[r][nt][e], sl2, -lse[qc] * LOG2E));
        if (MASK && bwd_dead(qc, r * 16 + (lane >> 2) + (e >> 1) * 8, cut))
            pv = 0.f;
        s[r][nt][e] = pv;
    });
}

// dS^T / scale = P^T * (dP^T - D), in place in dp.  The scale is applied once
// to dK (bwd_store_kv) and dQ (gdt_attn_bwd_post) instead of per element.
__device__ __forceinline__ void bwd_dscores(float (&dp)[R][NQ][4], const float (&pt)[R][NQ][4],
                                            const float *dd, int lane)
{
    bwd_each(lane, [&](int r, int nt, int e, int qc) {
        dp[r][nt][e] = pt[r][nt][e] * (dp[r][nt][e] - dd[qc]);
    });
}

__device__ __forceinline__ void bwd_store_ds(u16 *sds, const float (&ds)[R][NQ][4], int wrow, int lane)
{
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int nt = 0; nt < NQ; nt++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int row = wrow + r * 16 + (lane >> 2) + h * 8, col = nt * 8 + (lane & 3) * 2;
                *(u32 *)(sds + row * LDQ + col) = pack2(ds[r][nt][2 * h], ds[r][nt][2 * h + 1]);
            }
}

// dQ (query block x this warp's DTW*8 columns) += dS . K, added into the
// fp32 accumulator.
__device__ __forceinline__ void bwd_dq(const gdt_attn_params &p, const bwd_smem &sm, int buf, i64 hq,
                                       i64 bi, i64 m0, int warp, int lane)
{
    float acc[KQ][DTW][4];
    const u32 ds = sm.ds + buf * DS_BYTES;
    frag_zero(acc);
    const int c0 = warp * DTW * 8;
#pragma unroll
    for (int kk = 0; kk < BLOCK_N / 16; kk++) {
        u32 b[DTW][2];
#pragma unroll
        for (int dp = 0; dp < DTW / 2; dp++) {
            u32 t[4];
            ldsm_x4_t(t, sm.k + 2 * ((kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * LDS + c0 +
                                     dp * 16 + (lane >> 4) * 8));
            b[2 * dp][0] = t[0], b[2 * dp][1] = t[1], b[2 * dp + 1][0] = t[2], b[2 * dp + 1][1] = t[3];
        }
        if (DTW & 1) {
            u32 t[2];
            ldsm_x2_t(t, sm.k + 2 * ((kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * LDS + c0 +
                                     (DTW - 1) * 8));
            b[DTW - 1][0] = t[0], b[DTW - 1][1] = t[1];
        }
#pragma unroll
        for (int mq = 0; mq < KQ; mq++) {
            u32 a[4];
            ldsm_x4_t(a, ds + 2 * ((kk * 16 + (lane & 7) + ((lane >> 4) << 3)) * LDQ + mq * 16 +
                                   ((lane >> 3) & 1) * 8));
#pragma unroll
            for (int dt = 0; dt < DTW; dt++) mma16816(acc[mq][dt], a, b[dt][0], b[dt][1]);
        }
    }
    float *g = p.dq_acc + ((bi * p.h_q + hq) * p.s_q + m0) * HEAD_DIM + c0;
    const int left = p.s_q - m0 < BLOCK_M ? (int)(p.s_q - m0) : BLOCK_M;
#if __CUDA_ARCH__ >= 900
    // One 16-byte reduction per n8 tile and lane instead of four 4-byte ones:
    // lanes t and t^1 (t = lane & 3) swap halves, so an even t holds row g,
    // columns 2t..2t+3, and an odd t row g+8, columns 2t-2..2t+1.
    const bool odd = lane & 1;
#pragma unroll
    for (int mq = 0; mq < KQ; mq++) {
        const int i = mq * 16 + (lane >> 2) + (odd ? 8 : 0);
#pragma unroll
        for (int dt = 0; dt < DTW; dt++) {
            const float *c = acc[mq][dt];
            const float r0 = shfl_xor(odd ? c[0] : c[2], 1), r1 = shfl_xor(odd ? c[1] : c[3], 1);
            if (i < left)
                red_add4(g + i * HEAD_DIM + dt * 8 + (lane & 2) * 2, odd ? r0 : c[0], odd ? r1 : c[1],
                         odd ? c[2] : r0, odd ? c[3] : r1);
        }
    }
#else
#pragma unroll
    for (int mq = 0; mq < KQ; mq++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int i = mq * 16 + (lane >> 2) + h * 8;
            if (i >= left) continue;
#pragma unroll
            for (int dt = 0; dt < DTW; dt++) {
                float *d = g + i * HEAD_DIM + dt * 8 + (lane & 3) * 2;
                red_add(d, acc[mq][dt][2 * h]);
                red_add(d + 1, acc[mq][dt][2 * h + 1]);
            }
        }
#endif
}

__device__ __forceinline__ void bwd_store_kv(const gdt_attn_params &p, const bwd_sched &sc,
                                             const float (&dk)[R][DT][4], const float (&dv)[R][DT][4],
                                             int wrow, int lane)
{
    u16 *gk = (u16 *)p.dk + sc.bi * p.k_s[0] + sc.hk * p.k_s[1];
    u16 *gv = (u16 *)p.dv + sc.bi * p.v_s[0] + sc.hk * p.v_s[1];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            i64 j = sc.n0 + wrow + r * 16 + (lane >> 2) + h * 8;
            if (j >= p.s_kv) continue;
#pragma unroll
            for (int dt = 0; dt < DT; dt++) {
                int c = dt * 8 + (lane & 3) * 2;
                *(u32 *)(gk + j * p.k_s[2] + c) =
                    pack2(dk[r][dt][2 * h] * p.scale, dk[r][dt][2 * h + 1] * p.scale);
                *(u32 *)(gv + j * p.v_s[2] + c) = pack2(dv[r][dt][2 * h], dv[r][dt][2 * h + 1]);
            }
        }
}

__device__ __forceinline__ bwd_sched bwd_schedule(const gdt_attn_params &p)
{
    bwd_sched sc;
    sc.bi = blockIdx.x / p.h_kv;
    sc.hk = blockIdx.x % p.h_kv;
    sc.n0 = (i64)blockIdx.y * BLOCK_N; // early K/V blocks see the most queries: they go first
    sc.off = CAUSAL == 2 ? p.s_kv - p.s_q : 0;
    const int mblocks = (int)((p.s_q + BLOCK_M - 1) / BLOCK_M);
    i64 first = 0;
    if (CAUSAL) { // query i sees key j when j <= i + off: i >= n0 - off
        first = sc.n0 - sc.off;
        first = first < 0 ? 0 : first / BLOCK_M;
    }
    sc.m_first = first > mblocks ? mblocks : (int)first;
    sc.mblocks = mblocks;
    sc.total = (mblocks - sc.m_first) * (int)p.group;
    return sc;
}

// Clamped so every field fits an int whatever the sequence lengths.
__device__ __forceinline__ bwd_cut bwd_clip(const gdt_attn_params &p, const bwd_sched &sc, i64 j0, i64 m0)
{
    const i64 q = p.s_q - m0, k = p.s_kv - j0, c = j0 - m0 - sc.off;
    bwd_cut cut;
    cut.qlim = q > BLOCK_M ? BLOCK_M : (int)q;
    cut.klim = k > BLOCK_N ? BLOCK_N : k < 0 ? 0 : (int)k;
    cut.cdiff = c > BLOCK_M ? BLOCK_M : c < -BLOCK_N ? -BLOCK_N : (int)c;
    return cut;
}

#if MMA == 1
// ------------------------------------------------------- wgmma path (sm_90a)
// One warpgroup per 64 K/V rows (BLOCK_N = 64 NWG), query blocks of 64 rows.
// Per query block: S^T = K Q^T and dP^T = V dO^T on wgmma from 128-byte-
// swizzled shared memory; P^T and dS^T in registers; dV += P^T dO and
// dK += dS^T Q with them as register A fragments (dO and Q read MN-major);
// dS^T to shared memory, then dQ = dS K per 64-column chunk of d (chunk j on
// warpgroup j % NWG; dS^T read as an MN-major A, K as an MN-major B), added
// into the fp32 accumulator.  Tiles are HEAD_DIM/64 column blocks of
// ROWS x 128 bytes, 16-byte chunk c of row r at chunk c ^ (r % 8), atoms on
// 1024-byte boundaries (the launch reserves 1024 bytes of slack).
#define NWG (WARPS / 4)
#define DB (HEAD_DIM / 64)
#define TILE_Q (BLOCK_M * HEAD_DIM * 2)  // a Q or dO tile
#define TILE_KV (BLOCK_N * HEAD_DIM * 2) // the K or V tile

static_assert(BLOCK_N == 64 * NWG && WARPS % 4 == 0 && BLOCK_M == 64,
              "MMA=1: 64 K/V rows per warpgroup, 64-row query blocks");
static_assert(HEAD_DIM % 64 == 0, "MMA=1: HEAD_DIM a multiple of 64");
static_assert(STAGES >= 2, "MMA=1: at least two Q/dO stages");

#include "gdt_wgmma.cuh"

struct wgb_smem {
    u32 k, v, q, ds, lse; // stage t: Q at q + 2t TILE_Q, dO after it; LSE at lse + 8t BLOCK_M, D after it
};

__device__ __forceinline__ void wgb_issue(const gdt_attn_params &p, const bwd_sched &sc, const wgb_smem &sm,
                                          bwd_pos c, int slot)
{
    const i64 hq = sc.hk * p.group + c.g, m0 = (i64)c.mb * BLOCK_M;
    const i64 rows = (sc.bi * p.h_q + hq) * p.s_q;
    const u32 q = sm.q + slot * 2 * TILE_Q, lse = sm.lse + slot * 8 * BLOCK_M;
    wg_load_tile<BLOCK_M>(q, (const u16 *)p.q + sc.bi * p.q_s[0] + hq * p.q_s[1], p.q_s[2], m0, p.s_q);
    wg_load_tile<BLOCK_M>(q + TILE_Q, (const u16 *)p.dout + sc.bi * p.o_s[0] + hq * p.o_s[1], p.o_s[2], m0,
                          p.s_q);
    load_rowvec(lse, p.stats + rows, m0, p.s_q);
    load_rowvec(lse + 4 * BLOCK_M, p.dsum + rows, m0, p.s_q);
}

// Accumulator element v of a thread: K/V row (of its warpgroup's 64) 16 w +
// g + 8 ((v >> 1) & 1), query column 8 (v >> 2) + 2 t + (v & 1), with w the
// warp in the warpgroup, g = lane / 4, t = lane % 4.
template <bool MASK>
__device__ __forceinline__ void wgb_probs(float (&s)[32], float (&dp)[32], u32 lse, u32 dd, float sl2,
                                          bwd_cut cut, int krow, int lane)
{
#pragma unroll
    for (int jj = 0; jj < 8; jj++) {
        // Columns 8 jj + 2t and +1 of the LSE and D rows: one 8-byte load each.
        const int q0 = jj * 8 + (lane & 3) * 2;
        float l[2], d[2];
        lds_f32x2(l, lse + q0 * 4);
        lds_f32x2(d, dd + q0 * 4);
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int v = 4 * jj + e, qc = q0 + (e & 1);
            float pv = fast_exp2(fmaf(s[v], sl2, -l[e & 1] * LOG2E));
            if (MASK && bwd_dead(qc, krow + (e >> 1) * 8, cut))
                pv = 0.f;
            s[v] = pv;
            dp[v] = pv * (dp[v] - d[e & 1]); // dS^T / scale
        }
    }
}

// The k16 steps over the query block as A fragments (the accumulator layout
// of columns 16kk..16kk+15 is the m16k16 A fragment layout).
__device__ __forceinline__ void wgb_pack(u32 (&a)[BLOCK_M / 16][4], const float (&x)[32])
{
#pragma unroll
    for (int kk = 0; kk < BLOCK_M / 16; kk++) {
        const float *c = &x[kk * 8];
        a[kk][0] = pack2(c[0], c[1]);
        a[kk][1] = pack2(c[2], c[3]);
        a[kk][2] = pack2(c[4], c[5]);
        a[kk][3] = pack2(c[6], c[7]);
    }
}

// dS^T (K/V rows x 64 query columns) into the swizzled tile, from the A
// fragments: word e of step kk is row r + 8 (e & 1), columns
// 16 kk + 8 (e >> 1) + 2 t, +1.
__device__ __forceinline__ void wgb_store_ds(u32 sds, const u32 (&a)[BLOCK_M / 16][4], int row, int lane)
{
#pragma unroll
    for (int kk = 0; kk < BLOCK_M / 16; kk++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int r = row + (e & 1) * 8, c = 2 * kk + (e >> 1);
            const u32 addr = sds + r * 128 + ((c ^ (r & 7)) << 4) + (lane & 3) * 4;
            sts_u32(addr, a[kk][e]);
        }
}

// dQ chunk j (64 query rows x 64 columns of d) added into the accumulator;
// element v is query row 16 w + g + 8 ((v >> 1) & 1), column 64 j + 8 (v >> 2)
// + 2 t + (v & 1).  Lanes t and t^1 swap halves for 16-byte reductions.
__device__ __forceinline__ void wgb_add_dq(float *g, const float (&acc)[32], int j, int left, int w, int lane)
{
    const bool odd = lane & 1;
    const int i = w * 16 + (lane >> 2) + (odd ? 8 : 0);
#pragma unroll
    for (int jj = 0; jj < 8; jj++) {
        const float *c = &acc[4 * jj];
        const float r0 = shfl_xor(odd ? c[0] : c[2], 1), r1 = shfl_xor(odd ? c[1] : c[3], 1);
        if (i < left)
            red_add4(g + i * HEAD_DIM + j * 64 + jj * 8 + (lane & 2) * 2, odd ? r0 : c[0], odd ? r1 : c[1],
                     odd ? c[2] : r0, odd ? c[3] : r1);
    }
}

__device__ __forceinline__ void wgb_store_kv(const gdt_attn_params &p, const bwd_sched &sc,
                                             const float (&dk)[DB][32], const float (&dv)[DB][32], int krow,
                                             int lane)
{
    u16 *gk = (u16 *)p.dk + sc.bi * p.k_s[0] + sc.hk * p.k_s[1];
    u16 *gv = (u16 *)p.dv + sc.bi * p.v_s[0] + sc.hk * p.v_s[1];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const i64 j = sc.n0 + krow + h * 8;
        if (j >= p.s_kv) continue;
#pragma unroll
        for (int b = 0; b < DB; b++)
#pragma unroll
            for (int jj = 0; jj < 8; jj++) {
                const int col = b * 64 + jj * 8 + (lane & 3) * 2, v = 4 * jj + 2 * h;
                *(u32 *)(gk + j * p.k_s[2] + col) = pack2(dk[b][v] * p.scale, dk[b][v + 1] * p.scale);
                *(u32 *)(gv + j * p.v_s[2] + col) = pack2(dv[b][v], dv[b][v + 1]);
            }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, 1) gdt_attn_bwd_main(const gdt_attn_params p)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    const u32 base = (smem_addr(smem) + 1023u) & ~1023u;
    wgb_smem sm;
    sm.k = base;
    sm.v = sm.k + TILE_KV;
    sm.q = sm.v + TILE_KV;
    sm.ds = sm.q + STAGES * 2 * TILE_Q;
    sm.lse = sm.ds + BLOCK_N * 128;
    const int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) & 3, wg = threadIdx.x >> 7;
    const int krow = wg * 64 + w * 16 + (lane >> 2); // this thread's K/V rows: krow, krow + 8
    const bwd_sched sc = bwd_schedule(p);

    wg_load_tile<BLOCK_N>(sm.k, (const u16 *)p.k + sc.bi * p.k_s[0] + sc.hk * p.k_s[1], p.k_s[2], sc.n0, p.s_kv);
    wg_load_tile<BLOCK_N>(sm.v, (const u16 *)p.v + sc.bi * p.v_s[0] + sc.hk * p.v_s[1], p.v_s[2], sc.n0, p.s_kv);
    cp_commit();
    bwd_pos cur = {0, sc.m_first}, nxt = cur;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < sc.total) wgb_issue(p, sc, sm, nxt, s), bwd_step(nxt, sc);
        cp_commit();
    }

    float dk[DB][32], dv[DB][32];
#pragma unroll
    for (int b = 0; b < DB; b++)
#pragma unroll
        for (int v = 0; v < 32; v++) dk[b][v] = dv[b][v] = 0.f;

    for (int it = 0; it < sc.total; it++) {
        const int slot = it % STAGES;
        cp_wait<STAGES - 2>();
        fence_proxy_async();
        // Q/dO of this block landed for every thread; the stage refilled next
        // and the dS^T tile were last read by iteration it-1's waited wgmma.
        __syncthreads();
        if (it + STAGES - 1 < sc.total)
            wgb_issue(p, sc, sm, nxt, (it + STAGES - 1) % STAGES), bwd_step(nxt, sc);
        cp_commit();
        const i64 hq = sc.hk * p.group + cur.g, m0 = (i64)cur.mb * BLOCK_M;
        bwd_step(cur, sc);
        const u32 sq = sm.q + slot * 2 * TILE_Q, sdo = sq + TILE_Q;
        const u32 lse = sm.lse + slot * 8 * BLOCK_M, dd = lse + 4 * BLOCK_M;

        const u64 kd = wg_desc(sm.k, 16), vd = wg_desc(sm.v, 16), qd = wg_desc(sq, 16), dod = wg_desc(sdo, 16);
        const u64 qm = wg_desc(sq, BLOCK_M * 128), dom = wg_desc(sdo, BLOCK_M * 128);
        float s[32], dp[32];
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < HEAD_DIM / 16; kk++)
            wgmma_ss<GDT_FP16, 0, 0, 64>(s, wg_kmajor(kd, BLOCK_N, wg * 64, kk), wg_kmajor(qd, BLOCK_M, 0, kk), kk > 0);
#pragma unroll
        for (int kk = 0; kk < HEAD_DIM / 16; kk++)
            wgmma_ss<GDT_FP16, 0, 0, 64>(dp, wg_kmajor(vd, BLOCK_N, wg * 64, kk), wg_kmajor(dod, BLOCK_M, 0, kk), kk > 0);
        wg_commit();
        wg_wait<0>();
        wg_fence_acc(s);
        wg_fence_acc(dp);

        const bool cut = m0 + BLOCK_M > p.s_q || sc.n0 + BLOCK_N > p.s_kv ||
                         (CAUSAL && sc.n0 + wg * 64 + 63 > m0 + sc.off);
        if (warp_any(cut))
            wgb_probs<true>(s, dp, lse, dd, p.scale_log2, bwd_clip(p, sc, sc.n0, m0), krow, lane);
        else
            wgb_probs<false>(s, dp, lse, dd, p.scale_log2, bwd_cut{}, krow, lane);
        u32 pa[BLOCK_M / 16][4], da[BLOCK_M / 16][4];
        wgb_pack(pa, s);
        wgb_pack(da, dp);

        wg_fence();
#pragma unroll
        for (int kk = 0; kk < BLOCK_M / 16; kk++)
#pragma unroll
            for (int b = 0; b < DB; b++) {
                wg_rs_n64(dv[b], pa[kk], wg_mnmajor(dom, BLOCK_M, kk, b));
                wg_rs_n64(dk[b], da[kk], wg_mnmajor(qm, BLOCK_M, kk, b));
            }
        wg_commit();
        wgb_store_ds(sm.ds, da, krow, lane);
        fence_proxy_async();
        // dV and dK done before dQ: their A fragments then die, which keeps
        // d=128 within the register file.
        wg_wait<0>();
#pragma unroll
        for (int b = 0; b < DB; b++) {
            wg_fence_acc(dv[b]);
            wg_fence_acc(dk[b]);
        }
        __syncthreads(); // dS^T of every warpgroup written

        float *gdq = p.dq_acc + ((sc.bi * p.h_q + hq) * p.s_q + m0) * HEAD_DIM;
        const int left = p.s_q - m0 < BLOCK_M ? (int)(p.s_q - m0) : BLOCK_M;
#pragma unroll
        for (int b = 0; b < DB; b++) {
            if (b % NWG != wg) continue;
            float acc[32];
            wg_fence();
#pragma unroll
            for (int kk = 0; kk < BLOCK_N / 16; kk++)
                wgmma_ss<GDT_FP16, 1, 1, 64>(acc, wg_mnmajor(wg_desc(sm.ds, BLOCK_N * 128), BLOCK_N, kk, 0),
                                 wg_mnmajor(wg_desc(sm.k, BLOCK_N * 128), BLOCK_N, kk, b), kk > 0);
            wg_commit();
            wg_wait<0>();
            wg_fence_acc(acc);
            wgb_add_dq(gdq, acc, b, left, w, lane);
        }
    }
    cp_wait<0>();
    wgb_store_kv(p, sc, dk, dv, krow, lane);
}

#else
extern "C" __global__ void __launch_bounds__(THREADS) gdt_attn_bwd_main(const gdt_attn_params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    bwd_smem sm;
    sm.k = smem_addr(smem);
    sm.v = sm.k + BLOCK_N * LDS * 2;
    sm.q = sm.v + BLOCK_N * LDS * 2;
    sm.dout = sm.q + STAGES * BLOCK_M * LDS * 2;
    sm.lse = sm.dout + STAGES * BLOCK_M * LDS * 2;
    sm.dd = sm.lse + STAGES * BLOCK_M * 4;
    sm.ds = sm.dd + STAGES * BLOCK_M * 4; // last, so a second dS^T tile can follow it
    sm.ds_p = (u16 *)(smem + (sm.ds - sm.k));
    sm.lse_p = (const float *)(smem + (sm.lse - sm.k));
    sm.dd_p = (const float *)(smem + (sm.dd - sm.k));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wrow = warp * R * 16;
    const bwd_sched sc = bwd_schedule(p);

    load_tile<BLOCK_N>(sm.k, (const u16 *)p.k + sc.bi * p.k_s[0] + sc.hk * p.k_s[1], p.k_s[2],
                       sc.n0, p.s_kv);
    load_tile<BLOCK_N>(sm.v, (const u16 *)p.v + sc.bi * p.v_s[0] + sc.hk * p.v_s[1], p.v_s[2],
                       sc.n0, p.s_kv);
    cp_commit();
    bwd_pos cur = {0, sc.m_first}, nxt = cur; // nxt: the next iteration to issue
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < sc.total) bwd_issue(p, sc, sm, nxt, s), bwd_step(nxt, sc);
        cp_commit();
    }

    float dk[R][DT][4], dv[R][DT][4];
    frag_zero(dk);
    frag_zero(dv);

    // dQ of iteration it-1 runs inside iteration it, after its first barrier
    // (which publishes dS^T(it-1)), so an iteration needs one barrier where the
    // launch gave a second dS^T buffer (dS^T(it) then goes to the other one),
    // else two: the second keeps dS^T(it) from overwriting what dQ(it-1) reads.
    // With STAGES == 1 the load barrier sits between the two already.
    const bool two_ds = dyn_smem_bytes() >= sm.ds + 2 * DS_BYTES - sm.k;
    i64 hq_prev = 0, m0_prev = 0;
    for (int it = 0; it < sc.total; it++) {
        const int slot = it % STAGES, buf = two_ds ? it & 1 : 0;
        if (STAGES == 1) {
            __syncthreads();
            bwd_issue(p, sc, sm, cur, 0);
            cp_commit();
            if (it > 0) bwd_dq(p, sm, buf ^ (int)two_ds, hq_prev, sc.bi, m0_prev, warp, lane);
            cp_wait<0>();
            __syncthreads();
        } else {
            cp_wait<(STAGES >= 2 ? STAGES - 2 : 0)>();
            __syncthreads();
            // Refills the slot consumed in iteration it-1 (retired by the barrier above).
            if (it + STAGES - 1 < sc.total)
                bwd_issue(p, sc, sm, nxt, (it + STAGES - 1) % STAGES), bwd_step(nxt, sc);
            cp_commit();
            if (it > 0) bwd_dq(p, sm, buf ^ (int)two_ds, hq_prev, sc.bi, m0_prev, warp, lane);
        }
        const i64 hq = sc.hk * p.group + cur.g;
        const i64 m0 = (i64)cur.mb * BLOCK_M;
        hq_prev = hq, m0_prev = m0;
        bwd_step(cur, sc);
        const u32 sq = sm.q + slot * (BLOCK_M * LDS * 2), sdo = sm.dout + slot * (BLOCK_M * LDS * 2);
        const i64 j0 = sc.n0 + wrow;
        const bool mask = m0 + BLOCK_M > p.s_q || sc.n0 + BLOCK_N > p.s_kv ||
                          (CAUSAL && j0 + R * 16 - 1 > m0 + sc.off);

        float pt[R][NQ][4], dpt[R][NQ][4];
        bwd_gemm_t(pt, sm.k, sq, wrow, lane);
        if (mask)
            bwd_probs<true>(pt, sm.lse_p + slot * BLOCK_M, p.scale_log2, bwd_clip(p, sc, j0, m0), lane);
        else
            bwd_probs<false>(pt, sm.lse_p + slot * BLOCK_M, p.scale_log2, bwd_cut{}, lane);
        bwd_gemm_t(dpt, sm.v, sdo, wrow, lane);
        bwd_gemm_acc(dv, pt, sdo, lane);
        bwd_dscores(dpt, pt, sm.dd_p + slot * BLOCK_M, lane);
        bwd_gemm_acc(dk, dpt, sq, lane);
        if (STAGES > 1 && !two_ds) __syncthreads();
        bwd_store_ds(sm.ds_p + buf * (DS_BYTES / 2), dpt, wrow, lane);
    }
    if (sc.total > 0) {
        __syncthreads();
        bwd_dq(p, sm, two_ds ? (sc.total - 1) & 1 : 0, hq_prev, sc.bi, m0_prev, warp, lane);
    }
    cp_wait<0>();
    bwd_store_kv(p, sc, dk, dv, wrow, lane);
}
#endif // MMA

#endif // PIPE
