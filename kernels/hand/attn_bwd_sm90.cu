/* kernels/hand/attn_bwd_sm90.cu: the handwritten Hopper attention backward of
 * the `hand` engine (engines/hand/hand_attn_bwd.c).  From Q, K, V, O, dO and
 * the natural-log log-sum-exp (packed [b, h_q, s_q]) it writes dQ, dK and dV,
 * each strided like its tensor, bf16 or fp16, fp32 accumulate, head dim 64
 * or 128, causal none / top-left / bottom-right, GQA (dK and dV summed over
 * the query heads of a group).  Built by nvcc for sm_90a into a cubin that
 * libgdtune embeds (engines/hand/README.md).  Three kernels, in launch order:
 *
 *   gdt_hand_attn_bwd_pre_*   one warp per query row of the padded
 *                             [b, h_q, s_pad] space (s_pad = s_q rounded up
 *                             to 64): D = rowsum(dO * O), the LSE times
 *                             log2 e, and a zeroed fp32 dQ row.  Padding rows
 *                             (and rows whose LSE is not finite) get D = 0
 *                             and LSE +inf, so their P is exactly 0.
 *   gdt_hand_attn_bwd_*       one CTA per (batch, kv head, 128 key rows),
 *                             384 threads; see below.
 *   gdt_hand_attn_bwd_post_*  one warp per query row: dQ = scale times the
 *                             accumulator, to the io dtype.
 *
 * The main kernel is KV-block parallel.  Warpgroup 0 gives its registers
 * away (setmaxnreg.dec); one of its threads loads K and V once (TMA, 128
 * rows), then for every query head of the GQA group and every 64-row query
 * block a stage of the ring: Q and dO (TMA) and the block's LSE and D rows
 * (one 256-byte bulk copy each), behind a full barrier (the byte count) and
 * an empty barrier (one arrival per consumer warp).  Warpgroups 1 and 2 own
 * 64 key rows each: S^T = K Q^T and dP^T = V dO^T (wgmma, both operands
 * K-major in shared memory), P^T = exp2(S^T scale log2 e - LSE log2 e) and
 * dS^T = P^T (dP^T - D) in registers, dV += P^T dO and dK += dS^T Q (wgmma
 * with P^T and dS^T as register A fragments, dO and Q MN-major), dK and dV
 * held in registers across the whole loop, so the GQA sum needs no atomics.
 * dS^T goes to shared memory (two buffers, alternating); after a named
 * barrier between the consumers, dQ = dS K per 64-column chunk of d (chunk j
 * on consumer j % 2; dS^T an MN-major A, K an MN-major B) is added into the
 * fp32 accumulator with red.global.add.v4.f32.
 *
 * Masks: rows past s_q are zero-filled by the TMA and carry LSE +inf, so
 * they need none; key blocks that cross s_kv or (causal) a diagonal are
 * masked, decided per warpgroup so that the branch never splits one.
 * Causal: a CTA starts at the first query block that sees one of its keys.
 *
 * Tiles are 128-byte swizzled as the TMA's SWIZZLE_128B writes them: d/64
 * column blocks of ROWS x 128 bytes, 16-byte chunk c of row r at chunk
 * c ^ (r % 8), atoms on 1024-byte boundaries. */
#include "hand_common.cuh"

#define BLOCK_M 64  /* query rows per block */
#define BLOCK_N 128 /* key rows per CTA, 64 per consumer */
#define STAGES 2
#define THREADS 384
#define CONSUMER_WARPS 8
#define ROW_WARPS 8 /* rows per 256-thread CTA of pre and post */
#define LOG2E 1.4426950408889634f

/* Mirrored field for field by gdt_hand_attn_bwd_params in
 * engines/hand/hand_attn_bwd.c. */
struct gdt_hand_attn_bwd_params {
    const void *o, *dout;
    const float *lse;            /* natural log, packed [b, h_q, s_q] */
    void *dq, *dk, *dv;
    float *lse2, *dd, *dq_acc;   /* workspace: [b h_q][s_pad], twice, then [b h_q][s_pad][d] */
    long long q_s[3], k_s[3], v_s[3], o_s[3]; /* batch, head, row strides, elements */
    int b, h_q, h_kv, group, s_q, s_kv, s_pad, causal; /* causal: 0 none, 1 top-left, 2 bottom-right */
    float scale, scale_log2;
};

/* ------------------------------------------------------------- pre / post */

/* Warp's row r of [b, h_q, rows_per_head]: its (batch, head) and row. */
__device__ __forceinline__ bool warp_row(long long total, int rows_per_head, int h_q, long long *r, int *bi,
                                         int *hq, int *i)
{
    *r = (long long)blockIdx.x * ROW_WARPS + (threadIdx.x >> 5);
    if (*r >= total)
        return false;
    const long long bh = *r / rows_per_head;
    *i = (int)(*r % rows_per_head), *hq = (int)(bh % h_q), *bi = (int)(bh / h_q);
    return true;
}

template <int FP16> __device__ __forceinline__ float unpack(u32 v, int hi)
{
    if constexpr (FP16) {
        float f;
        if (hi)
            asm("{ .reg .b16 h; mov.b32 {_, h}, %1; cvt.f32.f16 %0, h; }" : "=f"(f) : "r"(v));
        else
            asm("{ .reg .b16 h; mov.b32 {h, _}, %1; cvt.f32.f16 %0, h; }" : "=f"(f) : "r"(v));
        return f;
    } else {
        return bits_f32(hi ? v & 0xffff0000u : v << 16);
    }
}

template <int FP16, int D> __device__ __forceinline__ void pre(const gdt_hand_attn_bwd_params &p)
{
    const int lane = threadIdx.x & 31;
    long long r;
    int bi, hq, i;
    if (!warp_row((long long)p.b * p.h_q * p.s_pad, p.s_pad, p.h_q, &r, &bi, &hq, &i))
        return;
    float sum = 0.f;
    const float lse = i < p.s_q ? p.lse[((long long)bi * p.h_q + hq) * p.s_q + i] : 0.f;
    if (i < p.s_q) {
        const long long off = bi * p.o_s[0] + hq * p.o_s[1] + i * p.o_s[2];
        const u16 *o = (const u16 *)p.o + off, *g = (const u16 *)p.dout + off;
        for (int c = 2 * lane; c < D; c += 64) {
            const u32 a = *(const u32 *)(o + c), b = *(const u32 *)(g + c);
            sum += unpack<FP16>(a, 0) * unpack<FP16>(b, 0) + unpack<FP16>(a, 1) * unpack<FP16>(b, 1);
        }
    }
    for (int c = 4 * lane; c < D; c += 128)
        *(float4 *)(p.dq_acc + r * D + c) = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        sum += shfl_xor(sum, m);
    if (lane == 0) {
        /* -inf - (-inf) would be NaN: a row with no visible key adds nothing. */
        const bool live = i < p.s_q && lse > neg_inf() && lse < -neg_inf();
        p.dd[r] = live ? sum : 0.f;
        p.lse2[r] = live ? lse * LOG2E : -neg_inf();
    }
}

template <int FP16, int D> __device__ __forceinline__ void post(const gdt_hand_attn_bwd_params &p)
{
    const int lane = threadIdx.x & 31;
    long long r;
    int bi, hq, i;
    if (!warp_row((long long)p.b * p.h_q * p.s_q, p.s_q, p.h_q, &r, &bi, &hq, &i))
        return;
    const float *a = p.dq_acc + (((long long)bi * p.h_q + hq) * p.s_pad + i) * D;
    u16 *q = (u16 *)p.dq + bi * p.q_s[0] + hq * p.q_s[1] + i * p.q_s[2];
    for (int c = 2 * lane; c < D; c += 64)
        *(u32 *)(q + c) = pack2<FP16>(a[c] * p.scale, a[c + 1] * p.scale);
}

/* ------------------------------------------------------------------ wgmma */

/* acc (64 x 64) = A . B from shared memory (plus acc when accumulate != 0);
 * TA, TB: the operand is MN-major rather than K-major. */
template <int FP16, int TA, int TB>
__device__ __forceinline__ void wgmma_ss_n64(float (&d)[32], u64 da, u64 db, int accumulate)
{
#define SS_ASM(T)                                                                                     \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                         \
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32." T "." T " {" R32 "}, %32, %33, p, 1, 1, %35, %36;\n}\n" \
                 : D8(0), D8(8), D8(16), D8(24)                                                       \
                 : "l"(da), "l"(db), "r"(accumulate), "n"(TA), "n"(TB))
    if constexpr (FP16)
        SS_ASM("f16");
    else
        SS_ASM("bf16");
#undef SS_ASM
}
#undef R64
#undef R32
#undef D8

/* ------------------------------------------------------------------ state */

/* Shared memory from the 1024-aligned base: K, V, STAGES x (Q, dO), two
 * dS^T tiles, STAGES x (LSE, D rows of 64 floats), then the barriers 8 bytes
 * apart: K/V full, full x STAGES, empty x STAGES.  Offsets, not addresses,
 * so that a consumer keeps one base register across its loop. */
template <int D> struct bwd_layout {
    static constexpr u32 KV = BLOCK_N * D * 2; /* the K or the V tile */
    static constexpr u32 Q = BLOCK_M * D * 2;  /* a Q or a dO tile */
    static constexpr u32 DS = BLOCK_N * BLOCK_M * 2;
    static constexpr u32 V_AT = KV, Q_AT = 2 * KV, DS_AT = Q_AT + STAGES * 2 * Q;
    static constexpr u32 ROW_AT = DS_AT + 2 * DS, BAR_AT = ROW_AT + STAGES * 512;
    static constexpr u32 BYTES = BAR_AT + 8 * (1 + 2 * STAGES);
};

struct bwd_ctx {
    u32 base;     /* K's tile */
    int w, lane;  /* consumer warpgroup (0, 1), lane */
    int krow;     /* this thread's first key row in the CTA's 128; the second is krow + 8 */
    int bi, hk, n0, off, m_first, mblocks; /* query blocks m_first .. mblocks - 1 of each head */
};

template <int D> __device__ __forceinline__ u32 kv_full(const bwd_ctx &c) { return c.base + bwd_layout<D>::BAR_AT; }
template <int D> __device__ __forceinline__ u32 full(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::BAR_AT + 8 + 8 * (it % STAGES);
}
template <int D> __device__ __forceinline__ u32 empty(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::BAR_AT + 8 + 8 * STAGES + 8 * (it % STAGES);
}
__device__ __forceinline__ u32 phase(int it) { return (u32)(it / STAGES) & 1; }
template <int D> __device__ __forceinline__ u32 q_tile(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::Q_AT + (it % STAGES) * 2 * bwd_layout<D>::Q;
}
template <int D> __device__ __forceinline__ u32 row_vecs(const bwd_ctx &c, int it)
{
    return c.base + bwd_layout<D>::ROW_AT + (it % STAGES) * 512;
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
    load_tile<D>(c.base, tk, kv_full<D>(c), BLOCK_N, c.n0, c.hk, c.bi);
    load_tile<D>(c.base + bwd_layout<D>::V_AT, tv, kv_full<D>(c), BLOCK_N, c.n0, c.hk, c.bi);
    int it = 0;
    for (int hq = c.hk * p.group; hq < (c.hk + 1) * p.group; ++hq)
        for (int mb = c.m_first; mb < c.mblocks; ++mb, ++it) {
            const long long row = ((long long)c.bi * p.h_q + hq) * p.s_pad + mb * BLOCK_M;
            const u32 q = q_tile<D>(c, it), v = row_vecs<D>(c, it);
            bar_wait(empty<D>(c, it), phase(it) ^ 1);
            bar_expect_tx(full<D>(c, it), 2 * bwd_layout<D>::Q + 512);
            load_tile<D>(q, tq, full<D>(c, it), BLOCK_M, mb * BLOCK_M, hq, c.bi);
            load_tile<D>(q + bwd_layout<D>::Q, tdo, full<D>(c, it), BLOCK_M, mb * BLOCK_M, hq, c.bi);
            bulk_load(v, p.lse2 + row, 256, full<D>(c, it));
            bulk_load(v + 256, p.dd + row, 256, full<D>(c, it));
        }
}

/* ------------------------------------------------------------- consumer */

/* Accumulator element v of a thread: key row krow + 8 ((v >> 1) & 1),
 * column 8 (v >> 2) + 2 (lane % 4) + (v & 1). */
template <int FP16, int D>
__device__ __forceinline__ void scores(float (&s)[32], float (&dp)[32], const bwd_ctx &c, u32 q)
{
    const u64 kd = wg_desc(c.base + c.w * 64 * 128, 16), vd = wg_desc(c.base + bwd_layout<D>::V_AT + c.w * 64 * 128, 16);
    const u64 qd = wg_desc(q, 16), dod = wg_desc(q + bwd_layout<D>::Q, 16);
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        const u32 kv = (kk >> 2) * BLOCK_N * 128 + (kk & 3) * 32, qs = (kk >> 2) * BLOCK_M * 128 + (kk & 3) * 32;
        wgmma_ss_n64<FP16, 0, 0>(s, desc_at(kd, kv), desc_at(qd, qs), kk > 0);
    }
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        const u32 kv = (kk >> 2) * BLOCK_N * 128 + (kk & 3) * 32, qs = (kk >> 2) * BLOCK_M * 128 + (kk & 3) * 32;
        wgmma_ss_n64<FP16, 0, 0>(dp, desc_at(vd, kv), desc_at(dod, qs), kk > 0);
    }
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
    cut.klim = k > BLOCK_N ? BLOCK_N : (int)k;
    cut.cdiff = !p.causal ? -(1 << 20) : d > BLOCK_M ? BLOCK_M : d < -BLOCK_N ? -BLOCK_N : (int)d;
    return cut;
}

/* P^T and dS^T / scale from S^T and dP^T, with the block's LSE log2 e and D
 * rows; the scale is applied once, to dK (store_kv) and dQ (post). */
template <bool MASK>
__device__ __forceinline__ void probs(float (&s)[32], float (&dp)[32], u32 rows, float sl2, bwd_cut cut,
                                      const bwd_ctx &c)
{
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) {
        const int q0 = jj * 8 + (c.lane & 3) * 2;
        float l[2], d[2];
        asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(l[0]), "=f"(l[1]) : "r"(rows + q0 * 4));
        asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(d[0]), "=f"(d[1]) : "r"(rows + 256 + q0 * 4));
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int v = 4 * jj + e, j = c.krow + (e >> 1) * 8;
            float pv = fast_exp2(fmaf(s[v], sl2, -l[e & 1]));
            if (MASK && (j >= cut.klim || j + cut.cdiff > q0 + (e & 1)))
                pv = 0.f;
            s[v] = pv;
            dp[v] = pv * (dp[v] - d[e & 1]);
        }
    }
}

/* The k16 steps over the query block as A fragments: the accumulator layout
 * of columns 16 kk .. 16 kk + 15 is the m64k16 A fragment layout. */
template <int FP16> __device__ __forceinline__ void pack_a(u32 (&a)[BLOCK_M / 16][4], const float (&x)[32])
{
#pragma unroll
    for (int kk = 0; kk < BLOCK_M / 16; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            a[kk][i] = pack2<FP16>(x[8 * kk + 2 * i], x[8 * kk + 2 * i + 1]);
}

/* dS^T into the swizzled 128 x 64 tile: word e of step kk is key row
 * krow + 8 (e & 1), query columns 16 kk + 8 (e >> 1) + 2 (lane % 4), +1. */
__device__ __forceinline__ void store_ds(u32 sds, const u32 (&a)[BLOCK_M / 16][4], const bwd_ctx &c)
{
#pragma unroll
    for (int kk = 0; kk < BLOCK_M / 16; ++kk)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int r = c.krow + (e & 1) * 8, ch = 2 * kk + (e >> 1);
            const u32 addr = sds + r * 128 + ((ch ^ (r & 7)) << 4) + (c.lane & 3) * 4;
            asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(a[kk][e]) : "memory");
        }
}

/* dV += P^T dO, dK += dS^T Q: dO and Q MN-major, their 64-column blocks
 * BLOCK_M * 128 bytes apart (LBO), a k16 step 16 query rows (2048 bytes). */
template <int FP16, int D>
__device__ __forceinline__ void grads_kv(float (&dk)[D / 2], float (&dv)[D / 2], const u32 (&pa)[BLOCK_M / 16][4],
                                         const u32 (&da)[BLOCK_M / 16][4], u32 q)
{
    const u64 qm = wg_desc(q, BLOCK_M * 128), dom = wg_desc(q + bwd_layout<D>::Q, BLOCK_M * 128);
#pragma unroll
    for (int kk = 0; kk < BLOCK_M / 16; ++kk) {
        wgmma_rs<FP16, D>(dv, pa[kk], desc_at(dom, kk * 2048));
        wgmma_rs<FP16, D>(dk, da[kk], desc_at(qm, kk * 2048));
    }
}

/* dQ chunk j (64 query rows x 64 columns of d) = dS K over the CTA's 128
 * keys, added into the accumulator rows from m0; element v is query row
 * 16 w + g + 8 ((v >> 1) & 1), column 64 j + 8 (v >> 2) + 2 t + (v & 1).
 * Lanes t and t ^ 1 swap halves, for one 16-byte reduction per 8 columns. */
template <int FP16>
__device__ __forceinline__ void grad_q(float *gdq, u32 sds, const bwd_ctx &c, int j, int d)
{
    float acc[32];
    const u64 a = wg_desc(sds, BLOCK_N * 128), b = wg_desc(c.base, BLOCK_N * 128);
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < BLOCK_N / 16; ++kk)
        wgmma_ss_n64<FP16, 1, 1>(acc, desc_at(a, kk * 2048), desc_at(b, j * BLOCK_N * 128 + kk * 2048), kk > 0);
    wg_commit();
    wg_wait<0>();
    wg_fence_acc(acc);
    const bool odd = c.lane & 1;
    const int w = (c.krow - c.w * 64) / 16, i = w * 16 + (c.lane >> 2) + (odd ? 8 : 0);
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) {
        const float *x = &acc[4 * jj];
        const float r0 = shfl_xor(odd ? x[0] : x[2], 1), r1 = shfl_xor(odd ? x[1] : x[3], 1);
        red_add4(gdq + (long long)i * d + j * 64 + jj * 8 + (c.lane & 2) * 2, odd ? r0 : x[0], odd ? r1 : x[1],
                 odd ? x[2] : r0, odd ? x[3] : r1);
    }
}

/* Released by each consumer warp once its warpgroup's wgmma has read the stage. */
__device__ __forceinline__ void release(const bwd_ctx &c, u32 bar)
{
    if (c.lane == 0)
        bar_arrive(bar);
}

template <int FP16, int D>
__device__ __forceinline__ void iteration(float (&dk)[D / 2], float (&dv)[D / 2], const bwd_ctx &c,
                                          const gdt_hand_attn_bwd_params &p, int it, int hq, int m0)
{
    const u32 q = q_tile<D>(c, it), sds = ds_tile<D>(c, it);
    float s[32], dp[32];
    u32 pa[BLOCK_M / 16][4], da[BLOCK_M / 16][4];
    bar_wait(full<D>(c, it), phase(it));
    wg_fence();
    scores<FP16, D>(s, dp, c, q);
    wg_commit();
    wg_wait<0>();
    wg_fence_acc(s);
    wg_fence_acc(dp);
    const bool cut = c.n0 + BLOCK_N > p.s_kv || (p.causal && c.n0 + c.w * 64 + 63 > m0 + c.off);
    if (warp_any(cut))
        probs<true>(s, dp, row_vecs<D>(c, it), p.scale_log2, clip(c, p, m0), c);
    else
        probs<false>(s, dp, row_vecs<D>(c, it), p.scale_log2, bwd_cut{}, c);
    pack_a<FP16>(pa, s);
    pack_a<FP16>(da, dp);
    wg_fence();
    grads_kv<FP16, D>(dk, dv, pa, da, q);
    wg_commit();
    store_ds(sds, da, c);
    fence_proxy_async();
    wg_wait<0>();
    wg_fence_acc(dk);
    wg_fence_acc(dv);
    release(c, empty<D>(c, it));
    /* Both consumers' dS^T written.  The other buffer is rewritten next
     * iteration only after this barrier, so no reader of it is left. */
    named_sync(1, 256);
    float *gdq = p.dq_acc + (((long long)c.bi * p.h_q + hq) * p.s_pad + m0) * D;
#pragma unroll
    for (int j = 0; j < D / 64; ++j)
        if (j % 2 == c.w)
            grad_q<FP16>(gdq, sds, c, j, D);
}

/* dK (times the scale) and dV rows below s_kv, strided like K and V. */
template <int FP16, int D>
__device__ __forceinline__ void store_kv(const float (&dk)[D / 2], const float (&dv)[D / 2], const bwd_ctx &c,
                                         const gdt_hand_attn_bwd_params &p)
{
    u16 *gk = (u16 *)p.dk + c.bi * p.k_s[0] + c.hk * p.k_s[1];
    u16 *gv = (u16 *)p.dv + c.bi * p.v_s[0] + c.hk * p.v_s[1];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const long long j = (long long)c.n0 + c.krow + h * 8;
        if (j >= p.s_kv)
            continue;
#pragma unroll
        for (int g = 0; g < D / 8; ++g) {
            const int col = g * 8 + (c.lane & 3) * 2, v = 4 * g + 2 * h;
            *(u32 *)(gk + j * p.k_s[2] + col) = pack2<FP16>(dk[v] * p.scale, dk[v + 1] * p.scale);
            *(u32 *)(gv + j * p.v_s[2] + col) = pack2<FP16>(dv[v], dv[v + 1]);
        }
    }
}

template <int FP16, int D> __device__ __forceinline__ void consume(const bwd_ctx &c, const gdt_hand_attn_bwd_params &p)
{
    float dk[D / 2], dv[D / 2];
#pragma unroll
    for (int v = 0; v < D / 2; ++v)
        dk[v] = dv[v] = 0.f;
    bar_wait(kv_full<D>(c), 0);
    int it = 0;
    for (int g = 0; g < p.group; ++g)
        for (int mb = c.m_first; mb < c.mblocks; ++mb, ++it)
            iteration<FP16, D>(dk, dv, c, p, it, c.hk * p.group + g, mb * BLOCK_M);
    store_kv<FP16, D>(dk, dv, c, p);
}

/* ---------------------------------------------------------------- entry */

/* This CTA's keys and its query blocks: under a causal mask query i sees key
 * j when j <= i + off, so the first block is the one holding i = n0 - off. */
__device__ __forceinline__ void schedule(bwd_ctx &c, const gdt_hand_attn_bwd_params &p)
{
    c.bi = (int)blockIdx.x / p.h_kv, c.hk = (int)blockIdx.x % p.h_kv;
    c.n0 = (int)blockIdx.y * BLOCK_N; /* the first key blocks see the most queries: they go first */
    c.off = p.causal == 2 ? p.s_kv - p.s_q : 0;
    c.mblocks = (p.s_q + BLOCK_M - 1) / BLOCK_M;
    const int first = p.causal && c.n0 > c.off ? (c.n0 - c.off) / BLOCK_M : 0;
    c.m_first = first < c.mblocks ? first : c.mblocks;
}

template <int FP16, int D>
__device__ __forceinline__ void attn_bwd(const CUtensorMap *tq, const CUtensorMap *tk, const CUtensorMap *tv,
                                         const CUtensorMap *tdo, const gdt_hand_attn_bwd_params &p)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    bwd_ctx c;
    /* Swizzle atoms start on 1024-byte boundaries; the launch reserves 1024
     * bytes of slack for this. */
    c.base = (smem_addr(smem_raw) + 1023u) & ~1023u;
    schedule(c, p);
    if (threadIdx.x == 0) {
        bar_init(kv_full<D>(c), 1);
        for (int s = 0; s < STAGES; ++s)
            bar_init(full<D>(c, s), 1), bar_init(empty<D>(c, s), CONSUMER_WARPS);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x < 128) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n");
        if (threadIdx.x == 0)
            produce<D>(c, p, tq, tk, tv, tdo);
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n");
        const int t = (int)threadIdx.x - 128;
        c.w = t / 128, c.lane = t % 32;
        c.krow = t / 32 * 16 + c.lane / 4; /* warp t/32 of the two consumers owns 16 key rows */
        consume<FP16, D>(c, p);
    }
}

/* Entries per dtype and head dim; engines/hand/hand_attn_bwd.c names them. */
#define GDT_HAND_ATTN_BWD_ENTRIES(tag, fp16, d)                                                     \
    extern "C" __global__ void __launch_bounds__(256)                                               \
        gdt_hand_attn_bwd_pre_##tag(const gdt_hand_attn_bwd_params p)                               \
    {                                                                                               \
        pre<fp16, d>(p);                                                                            \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(THREADS, 1)                                        \
        gdt_hand_attn_bwd_##tag(const __grid_constant__ CUtensorMap tq,                             \
                                const __grid_constant__ CUtensorMap tk,                             \
                                const __grid_constant__ CUtensorMap tv,                             \
                                const __grid_constant__ CUtensorMap tdo,                            \
                                const gdt_hand_attn_bwd_params p)                                   \
    {                                                                                               \
        attn_bwd<fp16, d>(&tq, &tk, &tv, &tdo, p);                                                  \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(256)                                               \
        gdt_hand_attn_bwd_post_##tag(const gdt_hand_attn_bwd_params p)                              \
    {                                                                                               \
        post<fp16, d>(p);                                                                           \
    }

GDT_HAND_ATTN_BWD_ENTRIES(bf16_d64, 0, 64)
GDT_HAND_ATTN_BWD_ENTRIES(bf16_d128, 0, 128)
GDT_HAND_ATTN_BWD_ENTRIES(fp16_d64, 1, 64)
GDT_HAND_ATTN_BWD_ENTRIES(fp16_d128, 1, 128)
