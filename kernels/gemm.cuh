/* kernels/gemm.cuh: C[b, m, n] = A[b, m, k] . B[b, k, n], bf16 or fp16 in and
 * out, fp32 accumulate.  Instantiated by NVRTC (engines/nvrtc/tmpl_gemm.c)
 * once per contraction row; every size below is a compile-time constant of
 * that row or of the problem's layout, passed as -D:
 *
 *   BM BN BK WARPS_M WARPS_N STAGES GROUP_M MMA   the contraction row
 *   PIPE SPLIT_K CLUSTER_SHAPE REDUCTION_MODE     its optional columns
 *   SWAP_AB PINGPONG RASTER EPILOGUE
 *   GDT_FP16          0: bf16, 1: fp16
 *   A_KMAJOR B_KMAJOR 1 when the operand's K axis has unit stride
 *   A_VEC B_VEC       1 when 16-byte chunks along the unit-stride axis are
 *                     aligned and never straddle the operand's edge
 *   C_VEC2            1 when C's rows are unit-stride with even extents
 *
 * M, N, K, batch and strides stay run-time values, so one cubin serves
 * every shape of a layout, with predicated tails on all three axes.
 * No toolkit header is included (only gdt_ptx.cuh, embedded like the
 * template, which holds every PTX wrapper used here): the kernel uses raw
 * 16-bit patterns and inline PTX, so NVRTC needs no toolkit headers at run
 * time.
 *
 * MMA=0: cp.async multi-stage pipeline, ldmatrix, mma.sync m16n8k16 (sm80+).
 * MMA=1: cp.async into 128-byte-swizzled shared memory read by wgmma
 *        m64nBNk16 (sm_90a); one or two warpgroups stacked along M.
 * PIPE=1: the Hopper structure of kernels/gdt_gemm_sm90.cuh (the hand
 *        engine's GEMM, one source): a TMA producer warp feeding an
 *        mbarrier ring of STAGES, two consumer warpgroups (setmaxnreg
 *        40/232) of 128 x BN x 64 wgmma, a persistent grouped raster of
 *        GROUP_M bands, a TMA-store epilogue; SPLIT_K ranges of K through
 *        the workspace, or (REDUCTION_MODE=1) two splits of a tile as a
 *        cluster summed in distributed shared memory, or (REDUCTION_MODE=2,
 *        SPLIT_K=1) stream-K (gdt_streamk.cuh); CLUSTER_SHAPE=5
 *        pairs of CTAs along N sharing A by multicast; SWAP_AB=1 the
 *        swap-AB form for decode-sized M (C^T = B^T . A^T: BM rows of M
 *        on the wgmma's N side, BN / 64 consumer warpgroups along N);
 *        PINGPONG=1 the ping-pong consumers (each warpgroup owns whole
 *        128 x BN tiles, BN 64 or 128, the two taking turns at the tensor
 *        cores so that one's epilogue runs under the other's wgmmas);
 *        EPILOGUE=1 C straight from the accumulator registers instead
 *        of through shared memory and a TMA store.
 *        Its parameters are tensor maps (engines/gemm_tma.c), not
 *        gdt_gemm_params. */

#if PIPE == 1

#define G90_GROUP_M GROUP_M
#define G90_RASTER RASTER
#define G90_EPILOGUE EPILOGUE
#include "gdt_gemm_sm90.cuh"

#ifndef PINGPONG
#define PINGPONG 0
#endif

/* SWAP_AB=1: BM rows of M are the wgmma's N side, BN / 64 consumer
 * warpgroups of 64 rows of N its M side; otherwise WARPS_M / 4 consumer
 * warpgroups of 64 rows of M (engines/rows_contraction.c). */
GDT_GEMM_SM90_KERNEL(gdt_gemm, GDT_FP16, A_KMAJOR, B_KMAJOR, (SWAP_AB ? BM : BN),
                     (REDUCTION_MODE == 1   ? SPLIT_PAIR
                      : REDUCTION_MODE == 2 ? SPLIT_SK
                      : SPLIT_K > 1         ? SPLIT_WS
                                            : SPLIT_NONE),
                     STAGES, (CLUSTER_SHAPE == 5), (SWAP_AB ? BN / 64 : WARPS_M / 4), (SWAP_AB == 1),
                     (PINGPONG == 1))

#else

#include "gdt_ptx.cuh"

/* Mirrored field for field by gdt_gemm_params in engines/nvrtc/tmpl_gemm.c. */
struct gdt_gemm_params {
    const u16 *a;
    const u16 *b;
    u16 *c;
    long long sa0, sa1, sa2, sb0, sb1, sb2, sc0, sc1, sc2;
    int m, n, k, batch;
    int tiles_m, tiles_n;
};

#define THREADS (WARPS_M * WARPS_N * 32)

/* Tile order: GROUP_M tile rows share one band so that neighbouring CTAs
 * reuse the same B columns from L2. */
__device__ __forceinline__ void gdt_tile_coords(const gdt_gemm_params &p, int &tm, int &tn)
{
    int pid = blockIdx.x;
    int in_group = GROUP_M * p.tiles_n;
    int first_m = (pid / in_group) * GROUP_M;
    int size_m = p.tiles_m - first_m < GROUP_M ? p.tiles_m - first_m : GROUP_M;
    tm = first_m + (pid % in_group) % size_m;
    tn = (pid % in_group) / size_m;
}

/* Stores the pair (row, col), (row, col + 1) of C, predicated on M and N. */
__device__ __forceinline__ void gdt_store2(const gdt_gemm_params &p, u16 *c, int row, int col,
                                           float x0, float x1)
{
    if (row >= p.m || col >= p.n)
        return;
    u32 v = pack2(x0, x1);
    u16 *dst = c + (long long)row * p.sc1 + (long long)col * p.sc2;
#if C_VEC2
    *(u32 *)dst = v;
#else
    dst[0] = (u16)(v & 0xffffu);
    if (col + 1 < p.n)
        dst[p.sc2] = (u16)(v >> 16);
#endif
}

#if MMA == 0
/* ------------------------------------------------ ldmatrix + mma.sync path */

#define WTM (BM / WARPS_M) /* warp tile */
#define WTN (BN / WARPS_N)
#define MI (WTM / 16)
#define NI (WTN / 8)
/* Padded rows (+8 elements, 16 bytes) keep ldmatrix free of bank conflicts. */
#define A_PITCH (A_KMAJOR ? BK + 8 : BM + 8)
#define B_PITCH (B_KMAJOR ? BK + 8 : BN + 8)
#define A_STAGE (A_KMAJOR ? BM * (BK + 8) : BK * (BM + 8))
#define B_STAGE (B_KMAJOR ? BN * (BK + 8) : BK * (BN + 8))

/* One operand tile, MN x BK, into the padded layout: [MN][BK+8] when K-major,
 * [BK][MN+8] otherwise.  VEC moves 16-byte chunks with cp.async (zero-filled
 * past the edges); otherwise element by element through registers, which
 * serves any stride and any extent. */
template <int MN, int KMAJOR, int VEC, int PITCH>
__device__ __forceinline__ void gdt_load_tile(u16 *s, const u16 *g, long long smn, long long sk,
                                              int mn0, int mn_lim, int k0, int k_lim)
{
    const int per_row = KMAJOR ? BK / 8 : MN / 8;
    const int total = MN * BK / 8;
#pragma unroll
    for (int i = 0; i < (total + THREADS - 1) / THREADS; ++i) {
        int q = (int)threadIdx.x + i * THREADS;
        if (total % THREADS != 0 && q >= total)
            break;
        int r = q / per_row, c = q % per_row;
        int mn = KMAJOR ? mn0 + r : mn0 + c * 8;
        int kk = KMAJOR ? k0 + c * 8 : k0 + r;
        u16 *dst = s + r * PITCH + c * 8;
        if (VEC) {
            bool ok = mn < mn_lim && kk < k_lim;
            const u16 *src = ok ? g + (long long)mn * smn + (long long)kk * sk : g;
            cp_async16_bytes(smem_addr(dst), src, ok ? 16u : 0u);
        } else {
#pragma unroll
            for (int e = 0; e < 8; ++e) {
                int em = KMAJOR ? mn : mn + e, ek = KMAJOR ? kk + e : kk;
                dst[e] = em < mn_lim && ek < k_lim ? g[(long long)em * smn + (long long)ek * sk]
                                                   : (u16)0;
            }
        }
    }
}

/* Lane l of an x4 ldmatrix supplies one row address of matrix l/8.  A's four
 * 8x8 matrices are ordered (m0,k0) (m8,k0) (m0,k8) (m8,k8); B's (n0,k0)
 * (n0,k8) (n8,k0) (n8,k8), matching the mma.sync fragment registers. */
template <int KMAJOR, int PITCH>
__device__ __forceinline__ const u16 *gdt_frag_addr(const u16 *s, int mn, int k, int mn_off,
                                                    int k_off, int r)
{
    return KMAJOR ? s + (mn + mn_off + r) * PITCH + k + k_off
                  : s + (k + k_off + r) * PITCH + mn + mn_off;
}

__device__ __forceinline__ void gdt_compute_stage(float (&acc)[MI][NI][4], const u16 *as,
                                                  const u16 *bs, int wm, int wn, int lane)
{
    int j = lane >> 3, r = lane & 7;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
        u32 af[MI][4], bf[NI][2];
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
            ldsm_x4_trans_if<!A_KMAJOR>(af[mi], smem_addr(gdt_frag_addr<A_KMAJOR, A_PITCH>(
                                                    as, wm * WTM + mi * 16, kk, (j & 1) * 8, (j >> 1) * 8, r)));
#pragma unroll
        for (int nj = 0; nj < NI / 2; ++nj) {
            u32 t[4];
            ldsm_x4_trans_if<!B_KMAJOR>(t, smem_addr(gdt_frag_addr<B_KMAJOR, B_PITCH>(
                                               bs, wn * WTN + nj * 16, kk, (j >> 1) * 8, (j & 1) * 8, r)));
            bf[2 * nj][0] = t[0];
            bf[2 * nj][1] = t[1];
            bf[2 * nj + 1][0] = t[2];
            bf[2 * nj + 1][1] = t[3];
        }
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < NI; ++ni)
                mma16816(acc[mi][ni], af[mi], bf[ni][0], bf[ni][1]);
    }
}

__device__ __forceinline__ void gdt_load_stage(const gdt_gemm_params &p, u16 *sa, u16 *sb,
                                               const u16 *ga, const u16 *gb, int m0, int n0, int kt)
{
    int k0 = kt * BK;
    gdt_load_tile<BM, A_KMAJOR, A_VEC, A_PITCH>(sa, ga, p.sa1, p.sa2, m0, p.m, k0, p.k);
    gdt_load_tile<BN, B_KMAJOR, B_VEC, B_PITCH>(sb, gb, p.sb2, p.sb1, n0, p.n, k0, p.k);
}

extern "C" __global__ void __launch_bounds__(THREADS) gdt_gemm(const gdt_gemm_params p)
{
    extern __shared__ __align__(128) unsigned char gdt_smem[];
    u16 *sa = (u16 *)gdt_smem;
    u16 *sb = sa + STAGES * A_STAGE;
    int tm, tn;
    gdt_tile_coords(p, tm, tn);
    const u16 *ga = p.a + (long long)blockIdx.y * p.sa0;
    const u16 *gb = p.b + (long long)blockIdx.y * p.sb0;
    int m0 = tm * BM, n0 = tn * BN;
    int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31;
    int wm = warp % WARPS_M, wn = warp / WARPS_M;
    int ktiles = (p.k + BK - 1) / BK;

    float acc[MI][NI][4];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int v = 0; v < 4; ++v)
                acc[mi][ni][v] = 0.f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles)
            gdt_load_stage(p, sa + s * A_STAGE, sb + s * B_STAGE, ga, gb, m0, n0, s);
        cp_commit();
    }
    for (int kt = 0; kt < ktiles; ++kt) {
        cp_wait<STAGES - 2>();
        __syncthreads();
        /* The stage refilled here was read in iteration kt-1, which every
         * thread has left (the barrier above). */
        int next = kt + STAGES - 1;
        if (next < ktiles)
            gdt_load_stage(p, sa + (next % STAGES) * A_STAGE, sb + (next % STAGES) * B_STAGE, ga,
                           gb, m0, n0, next);
        cp_commit();
        int s = kt % STAGES;
        gdt_compute_stage(acc, sa + s * A_STAGE, sb + s * B_STAGE, wm, wn, lane);
    }

    u16 *c = p.c + (long long)blockIdx.y * p.sc0;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
            int row = m0 + wm * WTM + mi * 16 + (lane >> 2);
            int col = n0 + wn * WTN + ni * 8 + (lane & 3) * 2;
            gdt_store2(p, c, row, col, acc[mi][ni][0], acc[mi][ni][1]);
            gdt_store2(p, c, row + 8, col, acc[mi][ni][2], acc[mi][ni][3]);
        }
}
#endif

#if MMA == 1
/* ------------------------------------------------------ wgmma path (sm_90a) */

#define NWG (THREADS / 128)  /* warpgroups, stacked along M */
#define WG_M (BM / NWG)      /* rows per warpgroup */
#define MW (WG_M / 64)       /* m64 slices per warpgroup */
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BN * BK * 2)

/* 128-byte swizzle: 16-byte chunk c of a 128-byte row r lives at chunk
 * c ^ (r % 8) of that row; atoms of 8 rows start on 1024-byte boundaries.
 * BK is 64 here, so a K-major row (MN index) is one 128-byte row and an
 * MN-major operand is stored as BN/64 column blocks of 64 K-rows each. */
template <int MN>
__device__ __forceinline__ void gdt_wg_load_kmajor(u32 s, const u16 *g, long long smn, int mn0,
                                                   int mn_lim, int k0, int k_lim)
{
#pragma unroll
    for (int i = 0; i < MN * 8 / THREADS; ++i) {
        int q = (int)threadIdx.x + i * THREADS;
        int r = q >> 3, c = q & 7;
        int mn = mn0 + r, kk = k0 + c * 8;
        bool ok = mn < mn_lim && kk < k_lim;
        const u16 *src = ok ? g + (long long)mn * smn + kk : g;
        cp_async16_bytes(s + r * 128 + ((c ^ (r & 7)) << 4), src, ok ? 16u : 0u);
    }
}

template <int MN>
__device__ __forceinline__ void gdt_wg_load_mnmajor(u32 s, const u16 *g, long long sk, int mn0,
                                                    int mn_lim, int k0, int k_lim)
{
#pragma unroll
    for (int i = 0; i < MN * 8 / THREADS; ++i) {
        int q = (int)threadIdx.x + i * THREADS;
        int r = q / (MN / 8), c = q % (MN / 8);
        int kk = k0 + r, mn = mn0 + c * 8;
        bool ok = kk < k_lim && mn < mn_lim;
        const u16 *src = ok ? g + (long long)kk * sk + mn : g;
        cp_async16_bytes(s + (c >> 3) * (64 * 128) + r * 128 + (((c & 7) ^ (r & 7)) << 4), src,
                         ok ? 16u : 0u);
    }
}

__device__ __forceinline__ void gdt_wg_load_stage(const gdt_gemm_params &p, u32 sa, u32 sb,
                                                  const u16 *ga, const u16 *gb, int m0, int n0,
                                                  int kt)
{
    int k0 = kt * BK;
#if A_KMAJOR
    gdt_wg_load_kmajor<BM>(sa, ga, p.sa1, m0, p.m, k0, p.k);
#else
    gdt_wg_load_mnmajor<BM>(sa, ga, p.sa2, m0, p.m, k0, p.k);
#endif
#if B_KMAJOR
    gdt_wg_load_kmajor<BN>(sb, gb, p.sb2, n0, p.n, k0, p.k);
#else
    gdt_wg_load_mnmajor<BN>(sb, gb, p.sb1, n0, p.n, k0, p.k);
#endif
}

/* Start of the k16 step kk (0..3) of an operand block: +32 bytes along a
 * K-major row, +16 rows of 128 bytes in an MN-major block.  K-major: rows
 * 128 bytes apart, LBO unused; MN-major: 64-element MN blocks LBO = 64*128
 * apart (wg_desc, gdt_ptx.cuh). */
__device__ __forceinline__ u64 gdt_wg_operand(u32 block, int kmajor, int kk)
{
    return kmajor ? wg_desc(block + kk * 32, 16) : wg_desc(block + kk * 2048, 64 * 128);
}

template <int TA, int TB>
__device__ __forceinline__ void gdt_wg_mma(float (&d)[BN / 2], u64 da, u64 db)
{
    wgmma_ss<GDT_FP16, TA, TB, BN>(d, da, db, 1);
}

extern "C" __global__ void __launch_bounds__(THREADS, 1) gdt_gemm(const gdt_gemm_params p)
{
    extern __shared__ __align__(1024) unsigned char gdt_smem[];
    /* Swizzle atoms must start on 1024-byte boundaries; the launch reserves
     * 1024 bytes of slack for this. */
    u32 base = (smem_addr(gdt_smem) + 1023u) & ~1023u;
    u32 sa = base, sb = base + STAGES * A_STAGE_BYTES;
    int tm, tn;
    gdt_tile_coords(p, tm, tn);
    const u16 *ga = p.a + (long long)blockIdx.y * p.sa0;
    const u16 *gb = p.b + (long long)blockIdx.y * p.sb0;
    int m0 = tm * BM, n0 = tn * BN;
    int wg = (int)threadIdx.x / 128;
    int ktiles = (p.k + BK - 1) / BK;

    float acc[MW][BN / 2];
#pragma unroll
    for (int mw = 0; mw < MW; ++mw) {
#pragma unroll
        for (int v = 0; v < BN / 2; ++v)
            acc[mw][v] = 0.f;
        wg_fence_acc(acc[mw]);
    }

    /* Loads run STAGES-2 tiles ahead: one more stage may still be read by
     * the wgmma group left in flight by the previous iteration. */
#pragma unroll
    for (int s = 0; s < STAGES - 2; ++s) {
        if (s < ktiles)
            gdt_wg_load_stage(p, sa + s * A_STAGE_BYTES, sb + s * B_STAGE_BYTES, ga, gb, m0, n0, s);
        cp_commit();
    }
    for (int kt = 0; kt < ktiles; ++kt) {
        cp_wait<STAGES - 3>();
        /* cp.async writes are generic-proxy writes; wgmma reads through the
         * async proxy. */
        fence_proxy_async();
        __syncthreads();
        int next = kt + STAGES - 2;
        if (next < ktiles)
            gdt_wg_load_stage(p, sa + (next % STAGES) * A_STAGE_BYTES,
                              sb + (next % STAGES) * B_STAGE_BYTES, ga, gb, m0, n0, next);
        cp_commit();
        u32 as = sa + (kt % STAGES) * A_STAGE_BYTES, bs = sb + (kt % STAGES) * B_STAGE_BYTES;
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            u64 db = gdt_wg_operand(bs, B_KMAJOR, kk);
#pragma unroll
            for (int mw = 0; mw < MW; ++mw)
                gdt_wg_mma<A_KMAJOR ? 0 : 1, B_KMAJOR ? 0 : 1>(
                    acc[mw], gdt_wg_operand(as + (wg * MW + mw) * (64 * 128), A_KMAJOR, kk), db);
        }
        wg_commit();
#pragma unroll
        for (int mw = 0; mw < MW; ++mw)
            wg_fence_acc(acc[mw]);
        wg_wait<1>();
    }
    wg_wait<0>();
#pragma unroll
    for (int mw = 0; mw < MW; ++mw)
        wg_fence_acc(acc[mw]);

    u16 *c = p.c + (long long)blockIdx.y * p.sc0;
    int warp = ((int)threadIdx.x >> 5) & 3, lane = (int)threadIdx.x & 31;
#pragma unroll
    for (int mw = 0; mw < MW; ++mw) {
        int row = m0 + wg * WG_M + mw * 64 + warp * 16 + (lane >> 2);
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
            int col = n0 + j * 8 + (lane & 3) * 2;
            gdt_store2(p, c, row, col, acc[mw][4 * j], acc[mw][4 * j + 1]);
            gdt_store2(p, c, row + 8, col, acc[mw][4 * j + 2], acc[mw][4 * j + 3]);
        }
    }
}
#endif
#endif /* PIPE */
