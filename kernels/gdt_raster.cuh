/* kernels/gdt_raster.cuh: the order in which the Hopper GEMM's persistent
 * grid walks one batch's output tiles (kernels/gdt_gemm_sm90.cuh,
 * tile_at), one copy for the kernel (nvcc and NVRTC) and the CPU tests
 * (tests/cpu/test_raster.c, C11), which walk it.
 *
 * Position r (0 .. rows * cols - 1) of a grid of rows x cols tiles goes to
 * one tile, in bands of `group` lines (the last band may be narrower):
 *   along M (along_n 0): bands of `group` tile rows, each walked column by
 *     column, a column's rows of the band first, so the CTAs at work at
 *     once cover a few rows of A and the columns of B they walk;
 *   along N (along_n 1): bands of `group` tile columns, each walked row by
 *     row, a row's columns of the band first: the same with A and B's
 *     roles exchanged (CUTLASS's raster order along N with a swizzle).
 * Each is a bijection of the positions onto the tiles.  The row's RASTER
 * column chooses one (engines/rows_contraction.c); the hand engine's
 * configurations walk along M. */
#ifndef GDT_RASTER_CUH
#define GDT_RASTER_CUH

#if defined(__CUDACC__)
#define GDT_RASTER_FN static __host__ __device__ __forceinline__
#else
#define GDT_RASTER_FN static inline
#endif

typedef struct gdt_raster_tile {
    int row, col;
} gdt_raster_tile;

GDT_RASTER_FN gdt_raster_tile gdt_raster_at(int r, int rows, int cols, int group, int along_n)
{
    const int lines = along_n ? cols : rows, across = along_n ? rows : cols;
    const int in_band = group * across;
    const int first = (r / in_band) * group;
    const int size = lines - first < group ? lines - first : group;
    const int line = first + (r % in_band) % size, step = (r % in_band) / size;
    gdt_raster_tile t;
    t.row = along_n ? step : line;
    t.col = along_n ? line : step;
    return t;
}

#endif
