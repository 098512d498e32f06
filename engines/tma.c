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

int64_t gdt__tma_round16(int64_t bytes) { return (bytes + 15) / 16 * 16; }
