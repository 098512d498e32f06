/* Tensor maps for TMA: the one encoder every engine with TMA kernels uses
 * (the hand engine's slots, the NVRTC GEMM's PIPE=1 rows).  Private to
 * libgdtune. */
#ifndef GDT_TMA_H
#define GDT_TMA_H

#include "gdt_cuda.h"
#include "gdt_util.h"

/* Encodes a tiled map of `rank` dims over ptr: unit element strides,
 * 128-byte swizzle, 256-byte L2 promotion and zero fill out of bounds;
 * then records ptr in *bound, the pointer the map describes. */
gdt_status gdt__tma_encode(const gdt_cu_api *cu, CUtensorMap *map, const void **bound, gdt_dtype dtype,
                           cuuint32_t rank, void *ptr, const cuuint64_t *dims,
                           const cuuint64_t *strides, const cuuint32_t *box, gdt_error *e);

/* Launches cfg's grid in clusters of `size` CTAs along x (the kernels
 * pair blockIdx.x 2i and 2i + 1): appends the cluster dimension at
 * cfg->attrs[cfg->numAttrs++] (the caller's array must have room) and
 * trims gridDimX to the clusters the driver says can be resident at once
 * for fn, block and shared memory (a cluster past those would wait for a
 * resident one to exit: a second wave).  cfg's grid, block and shared
 * memory must be set; NOT_SUPPORTED, naming who, when no cluster fits. */
gdt_status gdt__tma_cluster_launch(const gdt_cu_api *cu, CUfunction fn, CUlaunchConfig *cfg, int size,
                                   const char *who, gdt_error *e);

/* bytes rounded up to a multiple of 16 (TMA's stride unit). */
int64_t gdt__tma_round16(int64_t bytes);

#endif
