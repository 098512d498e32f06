/* The tensor-map encoder (engines/gdt_tma.h). */
#include "gdt_tma.h"

gdt_status gdt__tma_encode(const gdt_cu_api *cu, CUtensorMap *map, const void **bound, gdt_dtype dtype,
                           cuuint32_t rank, void *ptr, const cuuint64_t *dims,
                           const cuuint64_t *strides, const cuuint32_t *box, gdt_error *e)
{
    static const cuuint32_t unit[4] = {1, 1, 1, 1};
    CUtensorMapDataType t = dtype == GDT_DTYPE_FP16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                    : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    GDT_CHECK_CU(e, cu->cuTensorMapEncodeTiled(
                        map, t, rank, ptr, dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    *bound = ptr;
    return GDT_STATUS_OK;
}

gdt_status gdt__tma_cluster_launch(const gdt_cu_api *cu, CUfunction fn, CUlaunchConfig *cfg, int size,
                                   const char *who, gdt_error *e)
{
    CUlaunchAttribute *a = &cfg->attrs[cfg->numAttrs++];
    a->id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a->value.clusterDim.x = (unsigned)size;
    a->value.clusterDim.y = a->value.clusterDim.z = 1;
    int resident = 0;
    GDT_CHECK_CU(e, cu->cuOccupancyMaxActiveClusters(&resident, fn, cfg));
    if (resident < 1)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: no cluster of %d CTAs of %u bytes of "
                             "shared memory fits on this device", who, size, cfg->sharedMemBytes);
    if (cfg->gridDimX > (unsigned)(resident * size))
        cfg->gridDimX = (unsigned)(resident * size);
    return GDT_STATUS_OK;
}

int64_t gdt__tma_round16(int64_t bytes) { return (bytes + 15) / 16 * 16; }
