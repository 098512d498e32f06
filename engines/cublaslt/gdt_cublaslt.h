/* The cuBLASLt engine's private parts: the library's entry points (loaded
 * with dlopen, so that a machine without libcublasLt runs everything else),
 * the pure mapping between an algo configuration and a plan identity, the
 * lowering of a gemm problem to cuBLASLt's column-major view, and the
 * device-side helpers the GPU test reaches.
 *
 * Files: cublaslt_knobs.c (configurations <-> knobs, the enumeration space;
 * no library call, tested on the CPU), cublaslt_api.c (loading, the checking
 * path, the process's handle), cublaslt_engine.c (descriptors, heuristic,
 * enumeration, build, execute, the engine table). */
#ifndef GDT_CUBLASLT_H
#define GDT_CUBLASLT_H

#include <cublasLt.h>

#include "gdt_cuda.h"
#include "gdt_engines.h"

/* The heuristic's entries a plan list takes (each tagged with its rank). */
#define GDT__CUBLASLT_TOP 8
/* The most workspace a plan may ask for; the heuristic is told so and an
 * enumerated or replayed config needing more is declined. */
#define GDT__CUBLASLT_MAX_WORKSPACE ((size_t)32 << 20)
/* Operand pointers are promised this alignment (what the other engines
 * need too); execute refuses less, algos needing more are declined. */
#define GDT__CUBLASLT_ALIGN 16
/* Enumeration bounds: algo ids asked for, tile and stages ids read per
 * algo, and configurations checked per algo before giving up on reaching
 * the cap (cublasLtMatmulAlgoCheck costs microseconds each). */
#define GDT__CUBLASLT_MAX_IDS 256
/* Enumerated configs per problem, over every algo (the sweep's knob cap
 * still bounds each algo): the slot is on by default, and this keeps what
 * it adds to a GEMM cell at GDT__CUBLASLT_TOP + GDT__CUBLASLT_ENUM_MAX
 * plans at most, fewer where the enumeration finds heuristic entries. */
#define GDT__CUBLASLT_ENUM_MAX 8
#define GDT__CUBLASLT_MAX_CAP_IDS 128
#define GDT__CUBLASLT_CHECKS_PER_ALGO 2048

/* ------------------------------------------------- cublaslt_knobs.c */

/* One algo configuration: CUBLASLT_ALGO_CONFIG_* values, by field. */
typedef struct gdt__cublaslt_config {
    int32_t algo;           /* ID */
    uint32_t tile;          /* TILE_ID (cublasLtMatmulTile_t) */
    uint32_t stages;        /* STAGES_ID (cublasLtMatmulStages_t) */
    int32_t split_k;        /* SPLITK_NUM, 1: no split */
    uint32_t reduction;     /* REDUCTION_SCHEME (cublasLtReductionScheme_t) */
    uint32_t swizzle;       /* CTA_SWIZZLING, 0 or 1 */
    uint32_t custom;        /* CUSTOM_OPTION */
    uint16_t inner_shape;   /* INNER_SHAPE_ID (cublasLtMatmulInnerShape_t) */
    uint16_t cluster_shape; /* CLUSTER_SHAPE_ID (cublasLtClusterShape_t) */
} gdt__cublaslt_config;

/* The identity of a config on the slot's engine id: ALGO always, every
 * other knob only when it differs from cuBLASLt's default (SPLIT_K 1, the
 * rest 0), so the printed name stays short and one config has one name. */
void gdt__cublaslt_config_to_id(const gdt__cublaslt_config *c, int64_t engine_id, gdt_plan_id *id);
/* The config an identity names; BAD_INPUT naming the knob for a knob the
 * engine has no use for, a missing ALGO, or a value outside its field. */
gdt_status gdt__cublaslt_config_from_id(const gdt_plan_id *id, gdt__cublaslt_config *c, gdt_error *e);
bool gdt__cublaslt_config_equal(const gdt__cublaslt_config *a, const gdt__cublaslt_config *b);

/* "cuBLASLt heuristic rank N" (static text) for rank 1..GDT__CUBLASLT_TOP. */
const char *gdt__cublaslt_rank_why(int rank);

/* What one algo's capability attributes allow, as the enumeration walks
 * it.  Split-K and reduction scheme form one axis of pairs: (1, NONE), then
 * every split of {2, 4, 8, 16} with every scheme of the mask that reduces in
 * fp32 (INPLACE, COMPUTE_TYPE; OUTPUT_TYPE would reduce in bf16/fp16). */
typedef struct gdt__cublaslt_space {
    int32_t algo;
    int ntiles, nstages;
    uint32_t tiles[GDT__CUBLASLT_MAX_CAP_IDS], stages[GDT__CUBLASLT_MAX_CAP_IDS];
    bool split_k;             /* CAP_SPLITK_SUPPORT */
    uint32_t reduction_mask;  /* CAP_REDUCTION_SCHEME_MASK */
    bool swizzle;             /* CAP_CTA_SWIZZLING_SUPPORT */
    int32_t custom_max;       /* CAP_CUSTOM_OPTION_MAX */
} gdt__cublaslt_space;

/* How many configurations the space holds (mixed radix, no checks). */
int64_t gdt__cublaslt_space_size(const gdt__cublaslt_space *s);
/* The i-th configuration, tile turning fastest, then stages, the split and
 * reduction pair, swizzle, custom option; false past the end. */
bool gdt__cublaslt_space_at(const gdt__cublaslt_space *s, int64_t i, gdt__cublaslt_config *c);

/* A gemm problem in cuBLASLt's column-major view.  C[m, n] row-major is
 * C^T[n, m] column-major, so cuBLASLt computes C^T = B^T A^T: its first
 * operand is the problem's B, its second the problem's A (the same
 * arrangement torch.matmul uses).  Index 0: the first operand, 1: the
 * second, 2: C (= D, written in place, beta 0). */
typedef struct gdt__cublaslt_lowering {
    cublasOperation_t trans[2];
    uint64_t rows[3], cols[3];
    int64_t ld[3], batch_stride[3];
    int32_t batch;
    cudaDataType_t dtype;
} gdt__cublaslt_lowering;

/* Pure: NOT_SUPPORTED naming the operand when it has no unit-stride axis
 * (A and B) or is not row-major (C), or for a dtype other than bf16/fp16. */
gdt_status gdt__cublaslt_lower(const gdt_problem *p, gdt__cublaslt_lowering *out, gdt_error *e);

/* --------------------------------------------------- cublaslt_api.c */

#define GDT__CUBLASLT_API(X)                                                                 \
    X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetVersion) X(cublasLtGetStatusName)        \
    X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) X(cublasLtMatmulDescSetAttribute) \
    X(cublasLtMatrixLayoutCreate) X(cublasLtMatrixLayoutDestroy)                              \
    X(cublasLtMatrixLayoutSetAttribute) X(cublasLtMatmulPreferenceCreate)                     \
    X(cublasLtMatmulPreferenceDestroy) X(cublasLtMatmulPreferenceSetAttribute)                \
    X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmulAlgoGetIds) X(cublasLtMatmulAlgoInit)   \
    X(cublasLtMatmulAlgoCheck) X(cublasLtMatmulAlgoCapGetAttribute)                           \
    X(cublasLtMatmulAlgoConfigSetAttribute) X(cublasLtMatmulAlgoConfigGetAttribute)           \
    X(cublasLtMatmul)

/* Every entry point, typed from the header; members are named as the
 * functions are. */
typedef struct gdt__cublaslt_api {
#define GDT__CUBLASLT_FN(name) __typeof__(name) *name;
    GDT__CUBLASLT_API(GDT__CUBLASLT_FN)
#undef GDT__CUBLASLT_FN
} gdt__cublaslt_api;

/* The loaded library (resolved once), or NULL with *e naming the file and
 * dlerror's text: NOT_SUPPORTED, since the engine then serves nothing. */
const gdt__cublaslt_api *gdt__cublaslt(gdt_error *e);

gdt_status gdt__fail_cublaslt(gdt_error *e, cublasStatus_t r, const char *call, const char *file,
                              int line);
/* The one checking path for cuBLASLt calls (call text, the library's
 * status name, the place). */
#define GDT_CHECK_CUBLASLT(e, call) GDT__CHECK(cublaslt, CUBLAS_STATUS_SUCCESS, cublasStatus_t, e, call)
/* cuBLASLt's name for a status ("CUBLAS_STATUS_NOT_SUPPORTED"). */
const char *gdt__cublaslt_status_name(cublasStatus_t r);

/* The process's one handle, created on first use.  NO_DEVICE without a
 * GPU, NOT_SUPPORTED without the library. */
gdt_status gdt__cublaslt_handle(cublasLtHandle_t *h, gdt_error *e);

/* ------------------------------------------------ cublaslt_engine.c */

/* A problem's descriptors: the matmul (fp32 compute and scale, transposes)
 * and the three layouts. */
typedef struct gdt__cublaslt_descs {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t layout[3];
} gdt__cublaslt_descs;

gdt_status gdt__cublaslt_descs_create(const gdt_problem *p, gdt__cublaslt_descs *d, gdt_error *e);
void gdt__cublaslt_descs_destroy(gdt__cublaslt_descs *d);
/* The algo a config names (AlgoInit, then every config attribute). */
gdt_status gdt__cublaslt_algo_init(cublasLtHandle_t h, const gdt_problem *p,
                                   const gdt__cublaslt_config *c, cublasLtMatmulAlgo_t *algo,
                                   gdt_error *e);
/* The config an algo holds (every config attribute read back). */
gdt_status gdt__cublaslt_algo_config(const cublasLtMatmulAlgo_t *algo, gdt__cublaslt_config *c,
                                     gdt_error *e);
/* The heuristic's own algos for a problem, best first (at most max). */
gdt_status gdt__cublaslt_heuristic(cublasLtHandle_t h, const gdt_problem *p,
                                   const gdt__cublaslt_descs *d, int max,
                                   cublasLtMatmulHeuristicResult_t *out, int *n, gdt_error *e);

#endif
