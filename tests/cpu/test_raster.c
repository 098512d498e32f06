/* The Hopper GEMM's tile walk (kernels/gdt_raster.cuh) without a device:
 * for grids of tile rows x columns (one tile, one line, tails of a band,
 * bands wider than the grid) and every group the rows allow, both
 * directions map the positions onto the tiles one to one; along M it is
 * the walk gemm.hand's configurations took before the raster had a
 * direction (the formula kept here as the reference); along N it is that
 * walk of the transposed grid, transposed; and the tiles in flight at once
 * stay inside a band: the first `group` positions are one column of the
 * band's rows (along M) or one row of its columns (along N). */
#include <stdlib.h>

#include "../../kernels/gdt_raster.cuh"
#include "gdt_test.h"

/* The walk before RASTER (kernels/gdt_gemm_sm90.cuh's tile_at until
 * 2026-12-07): bands of `group` tile rows, walked column by column. */
static gdt_raster_tile along_m_before(int r, int rows, int cols, int group)
{
    int in_group = group * cols;
    int first_m = (r / in_group) * group;
    int size_m = rows - first_m < group ? rows - first_m : group;
    gdt_raster_tile t = {first_m + (r % in_group) % size_m, (r % in_group) / size_m};
    return t;
}

static void check_grid(int rows, int cols, int group)
{
    char *seen[2];
    int n = rows * cols;
    for (int d = 0; d < 2; d++) {
        seen[d] = calloc((size_t)n, 1);
        CHECK(seen[d] != NULL);
        if (!seen[d])
            return;
    }
    int bad = 0;
    for (int r = 0; r < n; r++) {
        gdt_raster_tile m = gdt_raster_at(r, rows, cols, group, 0);
        gdt_raster_tile a = gdt_raster_at(r, rows, cols, group, 1);
        gdt_raster_tile ref = along_m_before(r, rows, cols, group);
        gdt_raster_tile tr = gdt_raster_at(r, cols, rows, group, 0);
        bad += m.row != ref.row || m.col != ref.col;
        bad += a.row != tr.col || a.col != tr.row;
        if (m.row < 0 || m.row >= rows || m.col < 0 || m.col >= cols || a.row < 0 || a.row >= rows ||
            a.col < 0 || a.col >= cols) {
            bad++;
            continue;
        }
        bad += seen[0][m.row * cols + m.col]++ != 0;
        bad += seen[1][a.row * cols + a.col]++ != 0;
    }
    /* The first band's first line: `group` tiles (or the grid's rows or
     * columns if fewer) down column 0 / along row 0. */
    int gm = group < rows ? group : rows, gn = group < cols ? group : cols;
    for (int r = 0; r < gm; r++) {
        gdt_raster_tile m = gdt_raster_at(r, rows, cols, group, 0);
        bad += m.row != r || m.col != 0;
    }
    for (int r = 0; r < gn; r++) {
        gdt_raster_tile a = gdt_raster_at(r, rows, cols, group, 1);
        bad += a.row != 0 || a.col != r;
    }
    if (bad)
        fprintf(stderr, "grid %d x %d, group %d: %d mismatches\n", rows, cols, group, bad);
    CHECK_INT(bad, ==, 0);
    free(seen[0]);
    free(seen[1]);
}

int main(void)
{
    static const int grids[][2] = {{1, 1}, {1, 57}, {57, 1}, {2, 64}, {32, 32}, {128, 16},
                                   {16, 128}, {13, 29}, {129, 56}, {7, 3}};
    static const int groups[] = {1, 2, 4, 8, 16, 32};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
        for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++)
            check_grid(grids[g][0], grids[g][1], groups[k]);
    return gdt_test_result("test_raster");
}
