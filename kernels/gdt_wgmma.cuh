// kernels/gdt_wgmma.cuh: the wgmma operand addressing and tile loads the
// sm_90a paths of the attention templates share (kernels/attn_fwd.cuh,
// kernels/attn_bwd.cuh); the wgmma instructions are in gdt_ptx.cuh.
// NVRTC gets it as a header (engines/nvrtc/nvrtc_compile.c registers every
// kernels/gdt_*.cuh and puts their digests in the cache key).  The includer
// binds GDT_FP16, HEAD_DIM and THREADS and includes gdt_attn.cuh first
// (and through it gdt_ptx.cuh: the types, cp_async16).
//
// Operand tiles are 128-byte-swizzled: 16-byte chunk c of a 128-byte row r
// sits at chunk c ^ (r % 8), atoms on 1024-byte boundaries.

#ifndef GDT_WGMMA_CUH
#define GDT_WGMMA_CUH

// wg_at (an operand at a byte offset from a tile's descriptor) is gdt_ptx.cuh's.

// K-major operand: rows row0.. of a ROWS-row tile, k16 step kk along the
// 64-column blocks of d.
__device__ __forceinline__ u64 wg_kmajor(u64 tile_desc, int rows, int row0, int kk)
{
    return wg_at(tile_desc, (kk >> 2) * (rows * 128) + row0 * 128 + (kk & 3) * 32);
}
// MN-major operand of a ROWS-row tile read along its rows: k16 step kk over
// the rows, 64-column block j (the tile descriptor carries LBO = ROWS*128).
__device__ __forceinline__ u64 wg_mnmajor(u64 tile_desc, int rows, int kk, int j)
{
    return wg_at(tile_desc, j * (rows * 128) + kk * 2048);
}

// A ROWS x HEAD_DIM tile into swizzled shared memory; rows at or past
// `limit` are zero-filled.  When a thread's chunks share one column and a
// pass covers a multiple of 8 rows, its global and shared addresses step by
// constants (the swizzle term stays put): no 64-bit multiply per chunk.
template <int ROWS>
__device__ __forceinline__ void wg_load_tile(u32 dst, const u16 *src, i64 rs, i64 row0, i64 limit)
{
    constexpr int CPR = HEAD_DIM / 8;
    const i64 left64 = limit - row0;
    const int left = (int)(left64 < 0 ? 0 : left64 > ROWS ? ROWS : left64);
    if constexpr (THREADS % CPR == 0 && (THREADS / CPR) % 8 == 0 && ROWS % (THREADS / CPR) == 0) {
        constexpr int STEP = THREADS / CPR;
        const int r0 = (int)threadIdx.x / CPR, c = (int)threadIdx.x % CPR;
        const u16 *g = src + (row0 + r0) * rs + c * 8;
        const i64 gstep = STEP * rs;
        const u32 d = dst + (c >> 3) * (ROWS * 128) + r0 * 128 + (((c & 7) ^ (r0 & 7)) << 4);
#pragma unroll
        for (int i = 0; i < ROWS / STEP; i++, g += gstep) {
            const bool ok = r0 + i * STEP < left;
            cp_async16(d + i * (STEP * 128), ok ? g : src, ok);
        }
    } else {
#pragma unroll
        for (int i = 0; i < ROWS * CPR / THREADS; i++) {
            int q = (int)threadIdx.x + i * THREADS;
            int r = q / CPR, c = q % CPR;
            bool ok = r < left;
            const u16 *g = ok ? src + (row0 + r) * rs + c * 8 : src;
            cp_async16(dst + (c >> 3) * (ROWS * 128) + r * 128 + (((c & 7) ^ (r & 7)) << 4), g, ok);
        }
    }
}

#endif
