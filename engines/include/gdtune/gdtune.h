/* libgdtune — the dispatch library's public contracts.
 *
 * Everything gdtune does passes through the types declared here: status and
 * error records, families, problem descriptors and their operands, facts,
 * knobs and plan identity, the manifest of engine slots (handles), and the
 * ranked plan list.  No CUDA, cuDNN, cJSON or HDF5 type appears in this
 * header, and no engine interface: that is libgdtune's own
 * (engines/gdt_engine_impl.h). */
#ifndef GDTUNE_H
#define GDTUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GDT_VERSION_STRING "0.2.0"

/* ---------------------------------------------------------------- status */

/* X(name, exit code class, message).  Exit class: 0 ok, 1 failure while
 * running, 2 bad usage or bad input. */
#define GDT_STATUS_MAP(X)                                                     \
    X(OK, 0, "success")                                                       \
    X(BAD_USAGE, 2, "bad usage")                                              \
    X(BAD_INPUT, 2, "bad input")                                              \
    X(IO, 1, "I/O error")                                                     \
    X(NOT_SUPPORTED, 1, "not supported")                                      \
    X(NO_DEVICE, 1, "no CUDA device")                                         \
    X(CUDA, 1, "CUDA error")                                                  \
    X(NVRTC, 1, "NVRTC error")                                                \
    X(CUDNN, 1, "cuDNN error")                                                \
    X(CUPTI, 1, "CUPTI error")                                                \
    X(HDF5, 1, "HDF5 error")                                                  \
    X(NO_MEMORY, 1, "out of memory")                                          \
    X(INCORRECT, 1, "result incorrect")                                       \
    X(TIMEOUT, 1, "deadline exceeded")                                        \
    X(FAULT, 1, "worker faulted")                                             \
    X(INTERNAL, 1, "internal error")

#define GDT__STATUS_ENUM(name, cls, msg) GDT_STATUS_##name,
typedef enum gdt_status { GDT_STATUS_MAP(GDT__STATUS_ENUM) GDT_STATUS_COUNT } gdt_status;
#undef GDT__STATUS_ENUM

const char *gdt_status_name(gdt_status s);    /* "BAD_INPUT" */
const char *gdt_status_message(gdt_status s); /* "bad input" */
int gdt_status_exit_code(gdt_status s);       /* 0, 1 or 2 */

/* Caller-owned error record.  The message names the place (file, JSON path,
 * engine id, operand) and the value. */
#define GDT_ERROR_MAX 2048
typedef struct gdt_error {
    gdt_status status;
    char msg[GDT_ERROR_MAX];
} gdt_error;

/* Fills *e (when non-NULL) and returns s.  printf-style. */
gdt_status gdt_error_set(gdt_error *e, gdt_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gdt_error_clear(gdt_error *e);

/* -------------------------------------------------------------- families */

#define GDT_FAMILY_MAP(X)                                                     \
    X(GEMM, "gemm")                                                           \
    X(SDPA_FWD, "sdpa_fwd")                                                   \
    X(SDPA_BWD, "sdpa_bwd")

#define GDT__FAMILY_ENUM(name, str) GDT_FAMILY_##name,
typedef enum gdt_family { GDT_FAMILY_MAP(GDT__FAMILY_ENUM) GDT_FAMILY_COUNT } gdt_family;
#undef GDT__FAMILY_ENUM

const char *gdt_family_name(gdt_family f);
/* Parses one family name ("gemm", "sdpa_fwd", "sdpa_bwd").  "sdpa" names
 * both SDPA families: gdt_family_parse_set fills a bitmask (1u << family). */
gdt_status gdt_family_parse(const char *s, gdt_family *out, gdt_error *e);
gdt_status gdt_family_parse_set(const char *s, unsigned *mask, gdt_error *e);

typedef enum gdt_dtype { GDT_DTYPE_BF16, GDT_DTYPE_FP16, GDT_DTYPE_FP32, GDT_DTYPE_COUNT } gdt_dtype;
const char *gdt_dtype_name(gdt_dtype t);
size_t gdt_dtype_size(gdt_dtype t);
/* Relative L2 error bound for results computed from inputs of this dtype
 * with fp32 accumulation. */
double gdt_dtype_tolerance(gdt_dtype t);

/* GEMM: C[batch, m, n] = A[batch, m, k] · B[batch, k, n], fp32 accumulate.
 * Layouts are strides in elements, in logical order (batch, row, col). */
typedef struct gdt_gemm_desc {
    int64_t batch, m, n, k;
    gdt_dtype dtype; /* of A, B and C */
    int64_t a_stride[3], b_stride[3], c_stride[3];
} gdt_gemm_desc;

typedef enum gdt_causal {
    GDT_CAUSAL_NONE = 0,
    GDT_CAUSAL_TOP_LEFT = 1,
    GDT_CAUSAL_BOTTOM_RIGHT = 2
} gdt_causal;

typedef enum gdt_layout { GDT_LAYOUT_BHSD, GDT_LAYOUT_BSHD } gdt_layout;

/* SDPA: logical BHSD tensors, memory layout through strides (elements).
 * Q, O, dO, dQ: [b, h_q, s_q, d]; K, V, dK, dV: [b, h_kv, s_kv, d];
 * Stats (log-sum-exp, natural log, fp32): [b, h_q, s_q, 1] packed. */
typedef struct gdt_sdpa_desc {
    int64_t b, h_q, h_kv, s_q, s_kv, d;
    gdt_dtype dtype;
    gdt_causal causal;
    gdt_layout layout;
    double scale; /* attention scale; 1/sqrt(d) by default */
    int64_t q_stride[4], k_stride[4], v_stride[4], o_stride[4];
} gdt_sdpa_desc;

typedef struct gdt_problem {
    gdt_family family;
    union {
        gdt_gemm_desc gemm;
        gdt_sdpa_desc sdpa; /* sdpa_fwd and sdpa_bwd */
    } u;
} gdt_problem;

/* Fills the family's default problem (docs/commands.md). */
void gdt_problem_default(gdt_family f, gdt_problem *p);
/* Parses "k=v,k=v" over the family's defaults.  Unknown keys, zero,
 * negative or overflowing sizes, and dims whose products overflow are named
 * errors (GDT_STATUS_BAD_INPUT). */
gdt_status gdt_problem_parse(gdt_family f, const char *spec, gdt_problem *p, gdt_error *e);
/* Recomputes strides from the layout fields (called by parse). */
void gdt_problem_set_strides(gdt_problem *p);
/* Checks sizes, GQA divisibility, dtype; BAD_INPUT with the field named. */
gdt_status gdt_problem_validate(const gdt_problem *p, gdt_error *e);
/* Canonical key, e.g. "gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row". */
int gdt_problem_key(const gdt_problem *p, char *buf, size_t n);
/* Useful floating-point operations (a causal mask keeps the share of SDPA's
 * scores it leaves, a half at s_q = s_kv; bwd is 2.5x fwd). */
double gdt_problem_flops(const gdt_problem *p);
/* The dtype of the problem's data operands (Stats, where bound, is fp32);
 * GDT_DTYPE_COUNT for a family outside the enum. */
gdt_dtype gdt_problem_dtype(const gdt_problem *p);

/* -------------------------------------------------------------- operands */

/* Operand roles, per family.  GEMM uses A, B, C; sdpa_fwd Q, K, V, O, STATS;
 * sdpa_bwd Q, K, V, O, DO, STATS (inputs) and DQ, DK, DV (outputs). */
#define GDT_OPERAND_MAP(X)                                                    \
    X(A, "A") X(B, "B") X(C, "C")                                             \
    X(Q, "Q") X(K, "K") X(V, "V") X(O, "O") X(STATS, "Stats")                 \
    X(DO, "dO") X(DQ, "dQ") X(DK, "dK") X(DV, "dV")

#define GDT__OPERAND_ENUM(name, str) GDT_OPERAND_##name,
typedef enum gdt_operand_role { GDT_OPERAND_MAP(GDT__OPERAND_ENUM) GDT_OPERAND_COUNT } gdt_operand_role;
#undef GDT__OPERAND_ENUM

const char *gdt_operand_name(gdt_operand_role r);
/* Roles a family binds, inputs first; returns the count.  *noutputs gets how
 * many of the trailing roles are outputs. */
int gdt_family_operands(gdt_family f, gdt_operand_role roles[GDT_OPERAND_COUNT], int *noutputs);
/* The roles a family writes, in family order (the trailing ones of
 * gdt_family_operands); returns their count. */
int gdt_family_outputs(gdt_family f, gdt_operand_role roles[GDT_OPERAND_COUNT]);
/* Bytes an operand spans under the problem's strides (0 when the family does
 * not bind the role). */
size_t gdt_operand_bytes(const gdt_problem *p, gdt_operand_role r);
/* Bytes the problem must move at least: every operand of its family read or
 * written once (the sum of gdt_operand_bytes). */
double gdt_problem_bytes(const gdt_problem *p);
gdt_dtype gdt_operand_dtype(const gdt_problem *p, gdt_operand_role r);

/* ----------------------------------------------------------------- facts */

/* What the device looks like to the analyzer; filled from the CUDA runtime
 * in the worker, or from the per-arch limits table for --arch smXY. */
typedef struct gdt_device_props {
    int arch;                  /* major*10 + minor, e.g. 90 */
    int sm_count;              /* 0 when unknown (no device) */
    int64_t smem_per_block;    /* opt-in maximum, bytes */
    int regs_per_block;
    int max_threads_per_block;
    int64_t l2_bytes;
    char name[128];
} gdt_device_props;

/* Per-arch limits (shared memory, threads, registers) used for legality by
 * complete row.  Returns false for an arch the table does not hold. */
bool gdt_arch_limits(int arch, gdt_device_props *out);
/* "sm90", "sm_90", "sm90a", "sm100f" -> major*10+minor (no leading zero:
 * "sm090" is refused); BAD_USAGE naming the text otherwise. */
gdt_status gdt_arch_parse(const char *s, int *arch, gdt_error *e);
/* A folder name in a tables directory: 1 (and *arch) when it is exactly
 * the name the tables loader reads, "sm" + major*10+minor ("sm90");
 * -1 when it names an arch in another spelling ("sm_90", "sm90a", "sm090",
 * "sm9"), a folder no loader reads; 0 when it names none. */
int gdt_arch_dir_kind(const char *name, int *arch);

/* One record every engine of a family reads.  Facts describe; they never
 * reject. */
typedef struct gdt_facts {
    gdt_family family;
    gdt_problem problem;
    gdt_device_props device;
    gdt_dtype dtype;
    double flops;
    /* gemm */
    bool a_row_major, b_row_major, c_row_major; /* unit stride on the last axis */
    bool aligned16;                             /* every leading dimension a multiple of 16 bytes */
    /* sdpa */
    int64_t gqa_ratio;    /* h_q / h_kv */
    int64_t q_tiles128;   /* b * h_q * ceil(s_q / 128) */
    int64_t kv_units;     /* b * h_kv */
    int64_t kv_tokens;    /* b * s_kv */
} gdt_facts;

void gdt_facts_analyze(const gdt_problem *p, const gdt_device_props *dev, gdt_facts *out);

/* ----------------------------------------------------------------- knobs */

/* Backend knob values (cudnnBackendKnobType_t, cuDNN 9.19: 0..43, frozen)
 * plus gdtune's band from 1000 for axes the backend has no word for.  One
 * list each gives the enum below and the names gdt_knob_name prints and
 * gdt_knob_parse reads (engines/knobs.c). */
#define GDT_KNOB_BACKEND_COUNT 44
#define GDT_KNOB_BAND 1000
/* X(NAME, value): cudnn_graph_v9.h's CUDNN_KNOB_TYPE_NAME.  Deprecated
 * values keep their names: recorded plans may hold them. */
#define GDT_KNOB_BACKEND_MAP(X)                                                                    \
    X(SPLIT_K, 0) X(SWIZZLE, 1) X(TILE_SIZE, 2) X(USE_TEX, 3) X(EDGE, 4) X(KBLOCK, 5)              \
    X(LDGA, 6) X(LDGB, 7) X(CHUNK_K, 8) X(SPLIT_H, 9) X(WINO_TILE, 10) X(MULTIPLY, 11)             \
    X(SPLIT_K_BUF, 12) X(TILEK, 13) X(STAGES, 14) X(REDUCTION_MODE, 15) X(CTA_SPLIT_K_MODE, 16)    \
    X(SPLIT_K_SLC, 17) X(IDX_MODE, 18) X(SLICED, 19) X(SPLIT_RS, 20) X(SINGLEBUFFER, 21)           \
    X(LDGC, 22) X(SPECFILT, 23) X(KERNEL_CFG, 24) X(WORKSPACE, 25) X(TILE_CGA, 26)                 \
    X(TILE_CGA_M, 27) X(TILE_CGA_N, 28) X(BLOCK_SIZE, 29) X(OCCUPANCY, 30)                         \
    X(ARRAY_SIZE_PER_THREAD, 31) X(NUM_C_PER_BLOCK, 32) X(SPLIT_COLS, 33) X(TILE_ROWS, 34)         \
    X(TILE_COLS, 35) X(LOAD_SIZE, 36) X(CTA_COUNT, 37) X(STREAM_K, 38) X(SPLIT_P_SLC, 39)          \
    X(TILE_M, 40) X(TILE_N, 41) X(WARP_SPEC_CFG, 42) X(SWAP_AB, 43)
/* X(NAME, offset): gdtune's band, value GDT_KNOB_BAND + offset, in the
 * order gdt_knob_parse's message lists them. */
#define GDT_KNOB_BAND_MAP(X)                                                                       \
    X(WARPS_M, 0)        /* warps along M (or query rows) */                                      \
    X(WARPS_N, 1)        /* warps along N */                                                      \
    X(GROUP_M, 2)        /* tile-order (swizzle) group */                                         \
    X(MMA, 3)            /* 0 mma.sync, 1 wgmma */                                                \
    X(WARPS, 4)          /* total warps per CTA */                                                \
    X(TILE_KV, 5)        /* key/value tile (attention bwd) */                                     \
    X(SPLIT, 6)          /* work split factor */                                                  \
    X(GRAPH, 7)          /* cuDNN graph form: 0 composite, 1 unified SDPA op */                   \
    X(TEST, 99)          /* test-only engines */                                                  \
    X(ALGO, 8)           /* cuBLASLt algo id (cublasLtMatmulAlgoGetIds) */                        \
    X(CUSTOM_OPTION, 9)  /* cuBLASLt algo custom option */                                        \
    X(INNER_SHAPE, 10)   /* cuBLASLt inner shape id */                                            \
    X(CLUSTER_SHAPE, 11) /* cuBLASLt thread-block cluster shape id */                            \
    X(PIPE, 12)          /* GEMM pipeline: 0 cp.async/wgmma CTA-wide, 1 TMA producer + mbarriers */ \
    X(PINGPONG, 13)      /* consumer warpgroups taking turns at the tensor cores (attention bwd, GEMM ping-pong) */ \
    X(DETERMINISTIC, 14) /* 1: bit-reproducible results at some speed (attention bwd's dQ) */   \
    X(RASTER, 15)        /* persistent GEMM tile walk: 0 bands of tile rows, 1 of tile columns */ \
    X(EPILOGUE, 16)      /* GEMM epilogue: 0 shared memory and a TMA store, 1 registers to global */
enum {
#define GDT_KNOB_ENUM_(name, value) GDT_KNOB_##name = (value),
#define GDT_KNOB_BAND_ENUM_(name, offset) GDT_KNOB_##name = GDT_KNOB_BAND + (offset),
    GDT_KNOB_BACKEND_MAP(GDT_KNOB_ENUM_)
    GDT_KNOB_BAND_MAP(GDT_KNOB_BAND_ENUM_)
#undef GDT_KNOB_BAND_ENUM_
#undef GDT_KNOB_ENUM_
    GDT_KNOB_GDT_END = GDT_KNOB_TEST + 1 /* past the band's last value */
};
/* Name of a knob type ("TILE_M"), or NULL for a value no band defines. */
const char *gdt_knob_name(int type);
/* Parses a knob name back to its type; BAD_INPUT naming it otherwise. */
gdt_status gdt_knob_parse(const char *name, int *type, gdt_error *e);

#define GDT_MAX_KNOBS 16
typedef struct gdt_knob {
    int32_t type;
    int64_t value;
} gdt_knob;

/* A plan's identity: (engine_id, knobs).  Knobs are kept sorted by knob name
 * (gdt_plan_id_normalize), so equal plans compare equal byte for byte in
 * their printed name. */
typedef struct gdt_plan_id {
    int64_t engine_id;
    int nknobs;
    gdt_knob knobs[GDT_MAX_KNOBS];
} gdt_plan_id;

void gdt_plan_id_normalize(gdt_plan_id *p);
bool gdt_plan_id_equal(const gdt_plan_id *a, const gdt_plan_id *b);
/* Sets or adds a knob (then normalizes); returns false when full. */
bool gdt_plan_id_set_knob(gdt_plan_id *p, int type, int64_t value);
/* Value of a knob, or def when absent. */
int64_t gdt_plan_id_knob(const gdt_plan_id *p, int type, int64_t def);
/* "gemm.nvrtc[GROUP_M=8, STAGES=3, TILE_M=128, ...]" or "cudnn.eng0[KERNEL_CFG=3]";
 * returns the length written (snprintf semantics). */
int gdt_plan_id_format(const gdt_plan_id *p, char *buf, size_t n);
/* Parses a name printed by gdt_plan_id_format back to the identity. */
gdt_status gdt_plan_id_parse(const char *s, gdt_plan_id *p, gdt_error *e);

/* -------------------------------------------------- manifest and engines */

/* cuDNN engines keep their global index in [0, 10000); [10000, 20000) is
 * reserved; gdtune engines live at 20000 + GDT_FAMILY_BLOCK * family + slot. */
#define GDT_ENGINE_ID_BACKEND_END 10000
#define GDT_ENGINE_ID_RESERVED_END 20000
#define GDT_FAMILY_BLOCK 100

typedef enum gdt_engine_kind {
    GDT_ENGINE_CUDNN, /* the backend (not a manifest slot) */
    GDT_ENGINE_NVRTC, /* a template instantiated per candidate row */
    GDT_ENGINE_HAND,  /* nvcc-built, fixed configs */
    GDT_ENGINE_TEST,  /* test-only engines (opt-in) */
    GDT_ENGINE_CUBLASLT, /* cuBLASLt: plans listed by its heuristic and enumeration on the device */
    GDT_ENGINE_KIND_COUNT
} gdt_engine_kind;

/* Which side of the comparison a plan is on, by its engine's kind: ours
 * (our own kernels: NVRTC, hand, test engines), the backend (cuDNN) or a
 * library (cuBLASLt).  Placement decides ours against the backend; a
 * library's plans are ranked beside both and reported apart. */
typedef enum gdt_plan_side {
    GDT_PLAN_SIDE_OURS,
    GDT_PLAN_SIDE_BACKEND,
    GDT_PLAN_SIDE_LIBRARY,
    GDT_PLAN_SIDE_COUNT
} gdt_plan_side;
gdt_plan_side gdt_engine_kind_side(gdt_engine_kind k);

/* The manifest (one table of every family's engine slots) and its slots are
 * handles: what a slot holds and the engine interface it points at are
 * libgdtune's own (engines/gdt_engine_impl.h). */
typedef struct gdt_engine_slot gdt_engine_slot;
typedef struct gdt_manifest gdt_manifest;

const gdt_manifest *gdt_manifest_default(void);
/* The slots in manifest order: gdt_manifest_slot(m, i) for i in
 * 0 .. gdt_manifest_count(m) - 1, NULL out of range (m NULL: the default). */
int gdt_manifest_count(const gdt_manifest *m);
const gdt_engine_slot *gdt_manifest_slot(const gdt_manifest *m, int i);
/* A slot's name ("gemm.nvrtc"), family, kind, engine id, and the
 * structural family of its candidate rows (NULL: a slot without rows).
 * A NULL slot gives NULL, GDT_FAMILY_COUNT, GDT_ENGINE_KIND_COUNT, -1. */
const char *gdt_engine_slot_name(const gdt_engine_slot *s);
gdt_family gdt_engine_slot_family(const gdt_engine_slot *s);
gdt_engine_kind gdt_engine_slot_kind(const gdt_engine_slot *s);
int64_t gdt_engine_slot_id(const gdt_engine_slot *s);
const char *gdt_engine_slot_row_family(const gdt_engine_slot *s);

int64_t gdt_engine_id(gdt_family f, int slot);
/* Decodes any id with nothing registered first.  *backend is true for
 * [0, 10000) (family and slot then unset); BAD_INPUT for the reserved band or
 * an id outside every family block. */
gdt_status gdt_engine_id_decode(int64_t id, bool *backend, gdt_family *f, int *slot, gdt_error *e);
const gdt_engine_slot *gdt_manifest_find(const gdt_manifest *m, int64_t engine_id);
const gdt_engine_slot *gdt_manifest_find_name(const gdt_manifest *m, const char *name);
/* The side of an engine id: backend ids are the backend's; a slot's side
 * is its kind's (gdt_engine_kind_side) through the manifest (NULL: the
 * default); an id no slot holds counts as ours. */
gdt_plan_side gdt_engine_side(const gdt_manifest *m, int64_t engine_id);
/* The kind of an engine id: GDT_ENGINE_CUDNN for backend ids, a slot's
 * kind through the manifest (NULL: the default), GDT_ENGINE_KIND_COUNT for
 * an id no slot holds. */
gdt_engine_kind gdt_engine_kind_of(const gdt_manifest *m, int64_t engine_id);
/* "OURS", "BACKEND", "LIBRARY": the C names (a plan's tag in the worker
 * protocol and the journal). */
const char *gdt_plan_side_name(gdt_plan_side s);
/* "ours", "backend", "library": the side as every JSON, CSV and text output
 * names it (docs/fields.md). */
const char *gdt_plan_side_label(gdt_plan_side s);
/* Is the slot offered on this arch (capability row + opt-in)?  When not,
 * *why names the reason (may be NULL). */
bool gdt_slot_offered(const gdt_manifest *m, const gdt_engine_slot *s, const gdt_facts *f,
                      char *why, size_t nwhy);

/* -------------------------------------------------------------- plan list */

typedef enum gdt_mode {
    GDT_MODE_A,
    GDT_MODE_B,
    GDT_MODE_FALLBACK,
    GDT_MODE_OPENSOURCE,
    GDT_MODE_COUNT
} gdt_mode;
const char *gdt_mode_name(gdt_mode m);
gdt_status gdt_mode_parse(const char *s, gdt_mode *m, gdt_error *e);

/* One entry of a plan list.  Backend entries carry the heuristic mode that
 * produced them; the marker stands for the backend's block when it could
 * not be expanded (no GPU, no backend). */
typedef struct gdt_plan_entry {
    gdt_plan_id id;
    bool is_backend;
    bool is_marker;     /* the unexpanded BACKEND marker */
    gdt_mode mode;      /* the mode block the entry was proposed in; GDT_MODE_COUNT for
                           a backend config found by knob enumeration */
    const char *why;    /* static text: "measured winner", "untimed default", ... */
    int untimed;        /* gdt_graph_enumerate: position in the untimed order; else -1 */
} gdt_plan_entry;

/* Where an entry came from, as the journal tags it: "OURS" (our own
 * engines), "LIBRARY" (a library engine: cuBLASLt), "A", "B" or
 * "FALLBACK" (the backend's heuristic mode) or "KNOB" (the backend's knob
 * enumeration).  The side is the default manifest's (gdt_engine_side). */
const char *gdt_plan_entry_tag(const gdt_plan_entry *x);

#ifdef __cplusplus
}
#endif
#endif
