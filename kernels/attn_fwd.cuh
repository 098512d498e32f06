// Flash-attention forward (FA2 scheme) for NVRTC: mma.sync.m16n8k16 with
// ldmatrix operands, K/V tiles streamed through a cp.async ring of STAGES
// buffers, online softmax in the exp2 domain with the scale folded into
// log2(e).  One CTA owns BLOCK_M query rows of one (batch, query head); its
// warps split those rows (16 * RM rows each).  Writes O (io dtype) and the
// natural-log log-sum-exp per row (fp32, packed [b, h_q, s_q]).
//
// Bound by the plan (engines/nvrtc/tmpl_attention.c): HEAD_DIM, BLOCK_M,
// BLOCK_N, WARPS, STAGES, GDT_FP16 (1 fp16, 0 bf16), CAUSAL (0 none,
// 1 top-left, 2 bottom-right), MMA (0 mma.sync; 1 and 2 wgmma on sm_90a,
// below, 2 with the next block's S beside P V).
// The types and the parameter block are in gdt_attn.cuh, the PTX helpers in gdt_ptx.cuh.
//
// PIPE=1: the Hopper structure of kernels/gdt_attn_fwd_sm90.cuh (the hand
// engine's forward, one source) at GDT_FP16 and HEAD_DIM: a TMA producer
// warp feeding K and V rings of mbarriers, two ping-pong consumer
// warpgroups (setmaxnreg 24/240) with the softmax beside the next Q K^T,
// or CONSUMERS=3 of 64 query rows each at d64 (the row with WARPS=16),
// K and V rings of STAGES=3, key blocks of BLOCK_N=176 and clusters of
// CLUSTER=2 query tiles where the row has them (two stages of 128 keys, one
// tile a CTA: the hand engine's).  An attention_fwd
// row with PIPE=1 binds it (tmpl_attention.c then passes PIPE, GDT_FP16,
// HEAD_DIM and, where they differ from the hand engine's, CONSUMERS,
// STAGES, BLOCK_N and CLUSTER, and launches it as sdpa_fwd.hand does, engines/attn_fwd_tma.c);
// tests/cpu/test_attn_fwd_tma_rows.c compiles the rows and checks each
// two-stage entry is the hand cubin's, byte for byte.

#if PIPE == 1

#ifdef STAGES
#define AF90_STAGES STAGES
#endif
#ifdef BLOCK_N
#define AF90_BLOCK_N BLOCK_N
#endif
#ifdef CLUSTER
#define AF90_CLUSTER CLUSTER
#endif
#include "gdt_attn_fwd_sm90.cuh"

#ifndef CONSUMERS
#define CONSUMERS 2
#endif

GDT_ATTN_FWD_SM90_ENTRY(gdt_attn_fwd, GDT_FP16, HEAD_DIM, CONSUMERS)

#else

#if !defined(HEAD_DIM) || !defined(MMA)
#error "HEAD_DIM, BLOCK_M, BLOCK_N, WARPS, STAGES, GDT_FP16, CAUSAL and MMA are bound by the plan"
#endif

#include "gdt_attn.cuh"

#define THREADS (WARPS * 32)
#define LDS (HEAD_DIM + 8)            // smem row stride (elements): +16 B keeps ldmatrix conflict-free
#define RM (BLOCK_M / (16 * WARPS))   // m16 tiles per warp
#define NT (BLOCK_N / 8)              // n8 tiles of S per warp
#define DT (HEAD_DIM / 8)             // n8 tiles of O per warp
#define KS (HEAD_DIM / 16)            // k16 steps of Q K^T
#define KK (BLOCK_N / 16)             // k16 steps of P V
#define QREG (RM * HEAD_DIM <= 128)   // Q fragments stay in registers when they fit

static_assert(BLOCK_M % (16 * WARPS) == 0, "BLOCK_M must be a multiple of 16*WARPS");
static_assert(BLOCK_N % 16 == 0 && HEAD_DIM % 16 == 0, "tiles are multiples of 16");

#if MMA >= 1
// ------------------------------------------------------- wgmma path (sm_90a)
// One warpgroup (4 warps) per 64 query rows: S = Q K^T with both operands in
// 128-byte-swizzled shared memory, the online softmax on the S accumulators,
// then O += P V with P as register A fragments and V read MN-major.  Tiles
// are stored as HEAD_DIM/64 column blocks of ROWS x 128 bytes; the 16-byte
// chunk c of row r sits at chunk c ^ (r % 8), atoms on 1024-byte boundaries
// (the launch reserves 1024 bytes of slack).  K and V share that layout: K
// is the K-major B of Q K^T, V the MN-major B of P V.  MMA=1 runs one K/V
// block at a time per warpgroup (the CTA's warpgroups interleave); MMA=2
// overlaps the softmax of block j+1 with P V of block j (wg_kv_loop).

#define NWG (WARPS / 4)
#define NB (BLOCK_N / 64)          // n64 chunks of S
#define DB (HEAD_DIM / 64)         // n64 chunks of O, column blocks of a tile
#define KV_BYTES (BLOCK_N * HEAD_DIM * 2)

#include "gdt_wgmma.cuh"

static_assert(BLOCK_M == 64 * NWG && WARPS % 4 == 0, "wgmma: 64 query rows per warpgroup");
static_assert(HEAD_DIM % 64 == 0 && BLOCK_N % 64 == 0, "wgmma: HEAD_DIM and BLOCK_N multiples of 64");
static_assert(BLOCK_N * HEAD_DIM % (8 * THREADS) == 0, "wgmma: K/V tile chunks split over the threads");
static_assert(STAGES >= 2, "wgmma: at least two K/V stages");

struct wg_state {
    float o[DB][32];
    float m[2], l[2];
};

// S element (j, v) of this thread: row wrow + 8 ((v >> 1) & 1), key
// n0 + 64 j + 8 (v >> 2) + 2 (lane % 4) + (v & 1).  It is dead past s_kv
// or (causal) past the row's diagonal: past lim[h], the last live key of
// row h relative to n0 + 2 (lane % 4), clamped to [-1, BLOCK_N] so the
// 32-bit compare against the element's constant offset cannot overflow.
__device__ __forceinline__ void wg_mask(float (&s)[NB][32], i64 wrow, i64 n0, i64 s_kv, i64 off, int lane)
{
    int lim[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        i64 last = s_kv - 1;
        if (CAUSAL && wrow + 8 * h + off < last) last = wrow + 8 * h + off;
        last -= n0 + (lane & 3) * 2;
        lim[h] = (int)(last < -1 ? -1 : last > BLOCK_N ? BLOCK_N : last);
    }
#pragma unroll
    for (int j = 0; j < NB; j++)
#pragma unroll
        for (int v = 0; v < 32; v++)
            if (j * 64 + (v >> 2) * 8 + (v & 1) > lim[(v >> 1) & 1]) s[j][v] = neg_inf();
}

// Online softmax over this block's keys, the half that leaves O alone: new
// running max and l, the scores become P, alpha[h] is the factor O's rows
// take (wg_rescale) once no wgmma writes O.
__device__ __forceinline__ void wg_softmax_p(wg_state &st, float (&s)[NB][32], float sl2, float (&alpha)[2])
{
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float mx = st.m[h];
#pragma unroll
        for (int j = 0; j < NB; j++)
#pragma unroll
            for (int g = 0; g < 8; g++) mx = fmaxf(mx, fmaxf(s[j][4 * g + 2 * h], s[j][4 * g + 2 * h + 1]));
        mx = fmaxf(mx, shfl_xor(mx, 1));
        mx = fmaxf(mx, shfl_xor(mx, 2));
        // A row with nothing visible yet keeps max -inf: subtract 0, not -inf.
        float ms = mx == neg_inf() ? 0.f : mx * sl2;
        alpha[h] = fast_exp2(st.m[h] * sl2 - ms);
        st.m[h] = mx;
        float sum = 0.f;
#pragma unroll
        for (int j = 0; j < NB; j++)
#pragma unroll
            for (int g = 0; g < 8; g++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    float pv = fast_exp2(fmaf(s[j][4 * g + 2 * h + e], sl2, -ms));
                    s[j][4 * g + 2 * h + e] = pv;
                    sum += pv;
                }
        st.l[h] = st.l[h] * alpha[h] + sum;
    }
}

__device__ __forceinline__ void wg_rescale(wg_state &st, const float (&alpha)[2])
{
#pragma unroll
    for (int j = 0; j < DB; j++)
#pragma unroll
        for (int v = 0; v < 32; v++) st.o[j][v] *= alpha[(v >> 1) & 1];
}

// P as the A fragments of the k16 steps of P V: the S accumulator layout of
// keys 16kk..16kk+15 is the m16k16 A fragment layout.
__device__ __forceinline__ void wg_pack_p(u32 (&pa)[BLOCK_N / 16][4], const float (&s)[NB][32])
{
#pragma unroll
    for (int kk = 0; kk < BLOCK_N / 16; kk++) {
        const float *c = &s[kk >> 2][(kk & 3) * 8];
        pa[kk][0] = pack2(c[0], c[1]);
        pa[kk][1] = pack2(c[2], c[3]);
        pa[kk][2] = pack2(c[4], c[5]);
        pa[kk][3] = pack2(c[6], c[7]);
    }
}

__device__ __forceinline__ void wg_store(const wg_state &st, const gdt_attn_params &p, i64 bi, i64 hq,
                                         i64 wrow, int lane)
{
    u16 *o = (u16 *)p.o + bi * p.o_s[0] + hq * p.o_s[1];
    float *stats = p.stats + (bi * p.h_q + hq) * p.s_q;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float l = st.l[h];
        l += shfl_xor(l, 1);
        l += shfl_xor(l, 2);
        i64 i = wrow + h * 8;
        if (i >= p.s_q) continue;
        float inv = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
        for (int j = 0; j < DB; j++)
#pragma unroll
            for (int g = 0; g < 8; g++) {
                u32 v = pack2(st.o[j][4 * g + 2 * h] * inv, st.o[j][4 * g + 2 * h + 1] * inv);
                *(u32 *)(o + i * p.o_s[2] + j * 64 + g * 8 + (lane & 3) * 2) = v;
            }
        if ((lane & 3) == 0)
            stats[i] = l > 0.f ? (st.m[h] * p.scale_log2 + fast_log2(l)) * 0.69314718056f : neg_inf();
    }
}

// What one thread of a CTA needs to run the K/V loop.
struct wg_ctx {
    u32 sQ, sKV;                // Q tile; stage t: K at sKV + 2t KV_BYTES, V after it
    const u16 *gk, *gv;
    i64 m0, wrow, off;          // CTA's first row, this thread's rows (wrow, wrow + 8), causal offset
    int nblocks, wg, warp, lane;
};

__device__ __forceinline__ u32 wg_stage(const wg_ctx &c, int blk) { return c.sKV + (blk % STAGES) * 2 * KV_BYTES; }

__device__ __forceinline__ void wg_load_kv(const wg_ctx &c, const gdt_attn_params &p, int blk)
{
    if (blk < c.nblocks) {
        wg_load_tile<BLOCK_N>(wg_stage(c, blk), c.gk, p.k_s[2], (i64)blk * BLOCK_N, p.s_kv);
        wg_load_tile<BLOCK_N>(wg_stage(c, blk) + KV_BYTES, c.gv, p.v_s[2], (i64)blk * BLOCK_N, p.s_kv);
    }
    cp_commit();
}

// S = Q K^T of block blk, issued (not committed).
__device__ __forceinline__ void wg_issue_scores(float (&s)[NB][32], const wg_ctx &c, int blk)
{
    const u64 q = wg_desc(c.sQ, 16), k = wg_desc(wg_stage(c, blk), 16);
#pragma unroll
    for (int kk = 0; kk < HEAD_DIM / 16; kk++)
#pragma unroll
        for (int j = 0; j < NB; j++)
            wgmma_ss<GDT_FP16, 0, 0, 64>(s[j], wg_kmajor(q, BLOCK_M, c.wg * 64, kk), wg_kmajor(k, BLOCK_N, j * 64, kk), kk > 0);
}

// O += P V of block blk, issued (not committed).
__device__ __forceinline__ void wg_issue_pv(wg_state &st, const u32 (&pa)[BLOCK_N / 16][4], const wg_ctx &c,
                                            int blk)
{
    const u64 v = wg_desc(wg_stage(c, blk) + KV_BYTES, BLOCK_N * 128);
#pragma unroll
    for (int kk = 0; kk < BLOCK_N / 16; kk++)
#pragma unroll
        for (int j = 0; j < DB; j++) wg_rs_n64(st.o[j], pa[kk], wg_mnmajor(v, BLOCK_N, kk, j));
}


// Scores of block blk (landed in s) to P: masked where the block reaches past
// s_kv or (causal) past this warp's first row, softmax without the O rescale.
// Two instantiations behind a branch: the mask costs ~2 instructions per
// score, and only the diagonal and tail blocks need it.
template <bool MASK>
__device__ __forceinline__ void wg_to_p(wg_state &st, float (&s)[NB][32], float (&alpha)[2], const wg_ctx &c,
                                        const gdt_attn_params &p, i64 n0)
{
    if (MASK) wg_mask(s, c.wrow, n0, p.s_kv, c.off, c.lane);
    wg_softmax_p(st, s, p.scale_log2, alpha);
}

__device__ __forceinline__ void wg_scores_to_p(wg_state &st, float (&s)[NB][32], float (&alpha)[2],
                                               const wg_ctx &c, const gdt_attn_params &p, int blk)
{
    const i64 n0 = (i64)blk * BLOCK_N;
#pragma unroll
    for (int j = 0; j < NB; j++) wg_fence_acc(s[j]);
    if (warp_any(n0 + BLOCK_N > p.s_kv || (CAUSAL && n0 + BLOCK_N - 1 > c.m0 + c.wg * 64 + c.warp * 16 + c.off)))
        wg_to_p<true>(st, s, alpha, c, p, n0);
    else
        wg_to_p<false>(st, s, alpha, c, p, n0);
}

__device__ __forceinline__ void wg_wait_o(wg_state &st)
{
    wg_wait<0>();
#pragma unroll
    for (int j = 0; j < DB; j++) wg_fence_acc(st.o[j]);
}

// Groups committed before iteration it: Q with block 0, then one per block
// up to it + STAGES - 2.  Waiting for all but the newest `ahead` of them
// lands every block up to it + STAGES - 2 - ahead; the barrier makes it
// visible to the async proxy of every warpgroup and retires the stage the
// caller refills next (read in iteration it - 1, whose wgmma every
// warpgroup waited for).
template <int AHEAD> __device__ __forceinline__ void wg_block_barrier()
{
    cp_wait<AHEAD>();
    fence_proxy_async();
    __syncthreads();
}

#if MMA == 2
// S of block it+1 and P V of block it are in flight together: the softmax of
// block it+1 runs on the CUDA cores while the tensor cores do P V of block it.
// K of block it+1 and V of block it are read in one iteration: STAGES >= 3.
static_assert(STAGES >= 3, "MMA=2: at least three K/V stages");
__device__ __forceinline__ void wg_kv_loop(wg_state &st, const wg_ctx &c, const gdt_attn_params &p)
{
    float s[NB][32], alpha[2];
    u32 pa[BLOCK_N / 16][4];
    if (c.nblocks == 0) return;
    wg_block_barrier<STAGES - 2>();
    wg_fence();
    wg_issue_scores(s, c, 0);
    wg_commit();
    wg_wait<0>();
    wg_scores_to_p(st, s, alpha, c, p, 0);
    wg_rescale(st, alpha);
    wg_pack_p(pa, s);
    for (int it = 0; it + 1 < c.nblocks; it++) {
        wg_block_barrier<STAGES - 3>();
        wg_load_kv(c, p, it + STAGES - 1);
        wg_fence();
        wg_issue_scores(s, c, it + 1);
        wg_commit();
        wg_issue_pv(st, pa, c, it);
        wg_commit();
        wg_wait<1>();
        wg_scores_to_p(st, s, alpha, c, p, it + 1);
        wg_wait_o(st);
        wg_rescale(st, alpha);
        wg_pack_p(pa, s);
    }
    // The last block landed with the barrier of the iteration before.
    wg_fence();
    wg_issue_pv(st, pa, c, c.nblocks - 1);
    wg_commit();
    wg_wait_o(st);
}
#else
// One block at a time: S, softmax, P V; warpgroups of the CTA interleave.
__device__ __forceinline__ void wg_kv_loop(wg_state &st, const wg_ctx &c, const gdt_attn_params &p)
{
    for (int it = 0; it < c.nblocks; it++) {
        float s[NB][32], alpha[2];
        u32 pa[BLOCK_N / 16][4];
        wg_block_barrier<STAGES - 2>();
        wg_load_kv(c, p, it + STAGES - 1);
        wg_fence();
        wg_issue_scores(s, c, it);
        wg_commit();
        wg_wait<0>();
        wg_scores_to_p(st, s, alpha, c, p, it);
        wg_rescale(st, alpha);
        wg_pack_p(pa, s);
        wg_fence();
        wg_issue_pv(st, pa, c, it);
        wg_commit();
        wg_wait_o(st);
    }
}
#endif

extern "C" __global__ void __launch_bounds__(THREADS, 1) gdt_attn_fwd(const gdt_attn_params p)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    wg_ctx c;
    c.sQ = (smem_addr(smem) + 1023u) & ~1023u;
    c.sKV = c.sQ + BLOCK_M * HEAD_DIM * 2;
    c.lane = threadIdx.x & 31, c.warp = (threadIdx.x >> 5) & 3, c.wg = threadIdx.x >> 7;
    const i64 bi = blockIdx.x / p.h_q, hq = blockIdx.x % p.h_q, hk = hq / p.group;
    // Reversed so that the longest causal rows are scheduled first.
    c.m0 = (i64)(gridDim.y - 1 - blockIdx.y) * BLOCK_M;
    c.wrow = c.m0 + c.wg * 64 + c.warp * 16 + (c.lane >> 2);
    const u16 *gq = (const u16 *)p.q + bi * p.q_s[0] + hq * p.q_s[1];
    c.gk = (const u16 *)p.k + bi * p.k_s[0] + hk * p.k_s[1];
    c.gv = (const u16 *)p.v + bi * p.v_s[0] + hk * p.v_s[1];
    c.off = CAUSAL == 2 ? p.s_kv - p.s_q : 0;
    i64 kv_end = p.s_kv;
    if (CAUSAL && c.m0 + BLOCK_M + c.off < kv_end) kv_end = c.m0 + BLOCK_M + c.off;
    c.nblocks = kv_end <= 0 ? 0 : (int)((kv_end + BLOCK_N - 1) / BLOCK_N);

    wg_state st;
#pragma unroll
    for (int j = 0; j < DB; j++)
#pragma unroll
        for (int v = 0; v < 32; v++) st.o[j][v] = 0.f;
    st.m[0] = st.m[1] = neg_inf();
    st.l[0] = st.l[1] = 0.f;

    wg_load_tile<BLOCK_M>(c.sQ, gq, p.q_s[2], c.m0, p.s_q);
#pragma unroll
    for (int t = 0; t < STAGES - 1; t++) wg_load_kv(c, p, t); // block 0 commits with Q
    wg_kv_loop(st, c, p);
    cp_wait<0>();
    wg_store(st, p, bi, hq, c.wrow, c.lane);
}

#else
// ------------------------------------------------- mma.sync path (sm80+)

// rows x HEAD_DIM tile from global (row stride rs elements) into smem (stride
// LDS); rows at or past `limit` are zero-filled.
template <int ROWS>
__device__ __forceinline__ void load_tile(u16 *dst, const u16 *src, i64 rs, i64 row0, i64 limit)
{
    constexpr int CPR = HEAD_DIM / 8, CHUNKS = ROWS * CPR;
    for (int c = threadIdx.x; c < CHUNKS; c += THREADS) {
        int r = c / CPR, col = (c % CPR) * 8;
        bool ok = row0 + r < limit;
        const u16 *g = ok ? src + (row0 + r) * rs + col : src;
        cp_async16(smem_addr(dst + r * LDS + col), g, ok);
    }
}

// A fragments (16 x 16, row-major) of rows m0.. and columns k0.. of a smem tile.
__device__ __forceinline__ void load_a(u32 *a, const u16 *s, int m0, int k0, int lane)
{
    ldsm_x4(a, smem_addr(s + (m0 + (lane & 15)) * LDS + k0 + (lane >> 4) * 8));
}

struct fwd_state {
    float acc[RM][DT][4];
    float s[RM][NT][4];
    float m[RM][2], l[RM][2];
};

__device__ __forceinline__ void fwd_scores(fwd_state &st, u32 (&qf)[QREG ? RM : 1][QREG ? KS : 1][4],
                                           const u16 *sQ, const u16 *sK, int wrow, int lane)
{
    frag_zero(st.s);
#pragma unroll
    for (int ks = 0; ks < KS; ks++) {
        u32 a[RM][4];
#pragma unroll
        for (int rm = 0; rm < RM; rm++) {
            if (QREG) {
#pragma unroll
                for (int e = 0; e < 4; e++) a[rm][e] = qf[QREG ? rm : 0][QREG ? ks : 0][e];
            } else {
                load_a(a[rm], sQ, wrow + rm * 16, ks * 16, lane);
            }
        }
#pragma unroll
        for (int np = 0; np < NT / 2; np++) {
            u32 b[4];
            ldsm_x4(b, smem_addr(sK + (np * 16 + (lane & 7) + ((lane >> 4) << 3)) * LDS + ks * 16 +
                                 ((lane >> 3) & 1) * 8));
#pragma unroll
            for (int rm = 0; rm < RM; rm++) {
                mma16816(st.s[rm][2 * np], a[rm], b[0], b[1]);
                mma16816(st.s[rm][2 * np + 1], a[rm], b[2], b[3]);
            }
        }
    }
}

// Keys past s_kv and (causal) keys after the row's diagonal get -inf.
__device__ __forceinline__ void fwd_mask(fwd_state &st, i64 row0, i64 n0, i64 s_kv, i64 off, int lane)
{
#pragma unroll
    for (int rm = 0; rm < RM; rm++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                i64 i = row0 + rm * 16 + (lane >> 2) + (e >> 1) * 8;
                i64 j = n0 + nt * 8 + (lane & 3) * 2 + (e & 1);
                bool dead = j >= s_kv;
                if (CAUSAL) dead = dead || j > i + off;
                if (dead) st.s[rm][nt][e] = neg_inf();
            }
}

// Online softmax: new running max, rescale acc and l, scores become P.
__device__ __forceinline__ void fwd_softmax(fwd_state &st, float sl2)
{
#pragma unroll
    for (int rm = 0; rm < RM; rm++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float mx = st.m[rm][h];
#pragma unroll
            for (int nt = 0; nt < NT; nt++)
                mx = fmaxf(mx, fmaxf(st.s[rm][nt][2 * h], st.s[rm][nt][2 * h + 1]));
            mx = fmaxf(mx, shfl_xor(mx, 1));
            mx = fmaxf(mx, shfl_xor(mx, 2));
            // A row with nothing visible yet keeps max -inf: subtract 0, not -inf.
            float ms = mx == neg_inf() ? 0.f : mx * sl2;
            float alpha = fast_exp2(st.m[rm][h] * sl2 - ms);
            st.m[rm][h] = mx;
            float sum = 0.f;
#pragma unroll
            for (int nt = 0; nt < NT; nt++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    float p = fast_exp2(fmaf(st.s[rm][nt][2 * h + e], sl2, -ms));
                    st.s[rm][nt][2 * h + e] = p;
                    sum += p;
                }
            st.l[rm][h] = st.l[rm][h] * alpha + sum;
#pragma unroll
            for (int dt = 0; dt < DT; dt++) {
                st.acc[rm][dt][2 * h] *= alpha;
                st.acc[rm][dt][2 * h + 1] *= alpha;
            }
        }
}

__device__ __forceinline__ void fwd_pv(fwd_state &st, const u16 *sV, int lane)
{
#pragma unroll
    for (int kk = 0; kk < KK; kk++) {
        u32 a[RM][4];
#pragma unroll
        for (int rm = 0; rm < RM; rm++) {
            a[rm][0] = pack2(st.s[rm][2 * kk][0], st.s[rm][2 * kk][1]);
            a[rm][1] = pack2(st.s[rm][2 * kk][2], st.s[rm][2 * kk][3]);
            a[rm][2] = pack2(st.s[rm][2 * kk + 1][0], st.s[rm][2 * kk + 1][1]);
            a[rm][3] = pack2(st.s[rm][2 * kk + 1][2], st.s[rm][2 * kk + 1][3]);
        }
#pragma unroll
        for (int dp = 0; dp < DT / 2; dp++) {
            u32 b[4];
            ldsm_x4_t(b, smem_addr(sV + (kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * LDS +
                                   dp * 16 + (lane >> 4) * 8));
#pragma unroll
            for (int rm = 0; rm < RM; rm++) {
                mma16816(st.acc[rm][2 * dp], a[rm], b[0], b[1]);
                mma16816(st.acc[rm][2 * dp + 1], a[rm], b[2], b[3]);
            }
        }
    }
}

__device__ __forceinline__ void fwd_store(fwd_state &st, const gdt_attn_params &p, i64 bi, i64 hq,
                                          i64 row0, int lane)
{
    u16 *o = (u16 *)p.o + bi * p.o_s[0] + hq * p.o_s[1];
    float *stats = p.stats + (bi * p.h_q + hq) * p.s_q;
#pragma unroll
    for (int rm = 0; rm < RM; rm++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float l = st.l[rm][h];
            l += shfl_xor(l, 1);
            l += shfl_xor(l, 2);
            i64 i = row0 + rm * 16 + (lane >> 2) + h * 8;
            if (i >= p.s_q) continue;
            float inv = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
            for (int dt = 0; dt < DT; dt++) {
                u32 v = pack2(st.acc[rm][dt][2 * h] * inv, st.acc[rm][dt][2 * h + 1] * inv);
                *(u32 *)(o + i * p.o_s[2] + dt * 8 + (lane & 3) * 2) = v;
            }
            if ((lane & 3) == 0)
                stats[i] = l > 0.f ? (st.m[rm][h] * p.scale_log2 + fast_log2(l)) * 0.69314718056f
                                   : neg_inf();
        }
}

extern "C" __global__ void __launch_bounds__(THREADS) gdt_attn_fwd(const gdt_attn_params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    u16 *sQ = (u16 *)smem;
    u16 *sK = sQ + BLOCK_M * LDS;
    u16 *sV = sK + STAGES * BLOCK_N * LDS;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const i64 bi = blockIdx.x / p.h_q, hq = blockIdx.x % p.h_q, hk = hq / p.group;
    // Reversed so that the longest causal rows are scheduled first.
    const i64 m0 = (i64)(gridDim.y - 1 - blockIdx.y) * BLOCK_M;
    const int wrow = warp * RM * 16;
    const u16 *gq = (const u16 *)p.q + bi * p.q_s[0] + hq * p.q_s[1];
    const u16 *gk = (const u16 *)p.k + bi * p.k_s[0] + hk * p.k_s[1];
    const u16 *gv = (const u16 *)p.v + bi * p.v_s[0] + hk * p.v_s[1];
    const i64 off = CAUSAL == 2 ? p.s_kv - p.s_q : 0;
    i64 kv_end = p.s_kv;
    if (CAUSAL && m0 + BLOCK_M + off < kv_end) kv_end = m0 + BLOCK_M + off;
    const int nblocks = kv_end <= 0 ? 0 : (int)((kv_end + BLOCK_N - 1) / BLOCK_N);

    fwd_state st;
#pragma unroll
    for (int rm = 0; rm < RM; rm++) {
#pragma unroll
        for (int dt = 0; dt < DT; dt++)
#pragma unroll
            for (int e = 0; e < 4; e++) st.acc[rm][dt][e] = 0.f;
        st.m[rm][0] = st.m[rm][1] = neg_inf();
        st.l[rm][0] = st.l[rm][1] = 0.f;
    }
    u32 qf[QREG ? RM : 1][QREG ? KS : 1][4];

    load_tile<BLOCK_M>(sQ, gq, p.q_s[2], m0, p.s_q);
    cp_commit();
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nblocks) {
            load_tile<BLOCK_N>(sK + s * BLOCK_N * LDS, gk, p.k_s[2], (i64)s * BLOCK_N, p.s_kv);
            load_tile<BLOCK_N>(sV + s * BLOCK_N * LDS, gv, p.v_s[2], (i64)s * BLOCK_N, p.s_kv);
        }
        cp_commit();
    }
    for (int it = 0; it < nblocks; it++) {
        const int slot = it % STAGES;
        if (STAGES == 1) {
            __syncthreads(); // everyone is done with the single buffer
            load_tile<BLOCK_N>(sK, gk, p.k_s[2], (i64)it * BLOCK_N, p.s_kv);
            load_tile<BLOCK_N>(sV, gv, p.v_s[2], (i64)it * BLOCK_N, p.s_kv);
            cp_commit();
            cp_wait<0>();
            __syncthreads();
        } else {
            cp_wait<(STAGES >= 2 ? STAGES - 2 : 0)>();
            __syncthreads();
            // The slot refilled here was consumed in iteration it-1: the barrier above retired it.
            const int nx = it + STAGES - 1;
            if (nx < nblocks) {
                const int ns = nx % STAGES;
                load_tile<BLOCK_N>(sK + ns * BLOCK_N * LDS, gk, p.k_s[2], (i64)nx * BLOCK_N, p.s_kv);
                load_tile<BLOCK_N>(sV + ns * BLOCK_N * LDS, gv, p.v_s[2], (i64)nx * BLOCK_N, p.s_kv);
            }
            cp_commit();
        }
        if (QREG && it == 0) {
#pragma unroll
            for (int rm = 0; rm < (QREG ? RM : 1); rm++)
#pragma unroll
                for (int ks = 0; ks < (QREG ? KS : 1); ks++) load_a(qf[rm][ks], sQ, wrow + rm * 16, ks * 16, lane);
        }
        const i64 n0 = (i64)it * BLOCK_N;
        fwd_scores(st, qf, sQ, sK + slot * BLOCK_N * LDS, wrow, lane);
        if (n0 + BLOCK_N > p.s_kv || (CAUSAL && n0 + BLOCK_N - 1 > m0 + wrow + off))
            fwd_mask(st, m0 + wrow, n0, p.s_kv, off, lane);
        fwd_softmax(st, p.scale_log2);
        fwd_pv(st, sV + slot * BLOCK_N * LDS, lane);
    }
    cp_wait<0>();
    fwd_store(st, p, bi, hq, m0 + wrow, lane);
}
#endif // MMA

#endif // PIPE
