/* The sdpa families, forward and backward: logical BHSD tensors whose memory
 * layout is their strides.  The two share everything but their name, their
 * flops and their operands. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "gdt_family.h"
#include "gdt_family_sdpa.h"

const char *const gdt__causal_names[3] = {"none", "top_left", "bottom_right"};
const char *const gdt__layout_names[2] = {"bhsd", "bshd"};
_Static_assert(GDT_CAUSAL_BOTTOM_RIGHT == 2 && GDT_LAYOUT_BSHD == 1, "causal or layout names and enum disagree");
_Static_assert(sizeof(gdt_causal) == sizeof(int) && sizeof(gdt_layout) == sizeof(int),
               "choice keys and NAME fields store an int");

/* --shape causal=0 and causal=1 from before the names. */
static const gdt__key_alias causal_aliases[] = {{"0", GDT_CAUSAL_NONE}, {"1", GDT_CAUSAL_TOP_LEFT}};

static double default_scale(const gdt_sdpa_desc *s) { return 1.0 / sqrt((double)s->d); }

static void sdpa_defaults(gdt_problem *p)
{
    gdt_sdpa_desc *s = &p->u.sdpa;
    s->b = 4;
    s->h_q = s->h_kv = 32;
    s->s_q = s->s_kv = 4096;
    s->d = 128;
    s->dtype = GDT_DTYPE_BF16;
    s->causal = GDT_CAUSAL_TOP_LEFT;
    s->layout = GDT_LAYOUT_BSHD;
    s->scale = default_scale(s);
}

#define S(f) offsetof(gdt_problem, u.sdpa.f)
/* A key that sets the one member of its name. */
#define KEY(kind, m) GDT__KEY_ROW(#m, kind, S(m), S(m))
static const gdt__shape_key sdpa_keys[] = {
    KEY(DIM, b),
    GDT__KEY_ROW("h", DIM, S(h_q), S(h_kv)),
    KEY(DIM, h_q),
    KEY(DIM, h_kv),
    GDT__KEY_ROW("s", DIM, S(s_q), S(s_kv)),
    KEY(DIM, s_q),
    KEY(DIM, s_kv),
    KEY(DIM, d),
    KEY(DTYPE, dtype),
    {.name = "causal", .kind = GDT__KEY_CHOICE, .off = {S(causal), S(causal)}, .names = gdt__causal_names,
     .nnames = 3, .aliases = causal_aliases, .naliases = 2},
    {.name = "layout", .kind = GDT__KEY_CHOICE, .off = {S(layout), S(layout)}, .names = gdt__layout_names,
     .nnames = 2},
    KEY(NUMBER, scale),
};
#undef KEY
#define NKEYS (int)(sizeof sdpa_keys / sizeof sdpa_keys[0])

/* The scale follows d unless the shape names it. */
static void sdpa_complete(gdt_problem *p, unsigned given)
{
    for (int i = 0; i < NKEYS; i++)
        if (sdpa_keys[i].off[0] == S(scale) && (given & (1u << i))) return;
    p->u.sdpa.scale = default_scale(&p->u.sdpa);
}

static void bhsd_strides(int64_t st[4], gdt_layout l, int64_t h, int64_t s, int64_t d)
{
    if (l == GDT_LAYOUT_BHSD) {
        st[0] = gdt__mul_wrap(gdt__mul_wrap(h, s), d), st[1] = gdt__mul_wrap(s, d), st[2] = d, st[3] = 1;
    } else {
        st[0] = gdt__mul_wrap(gdt__mul_wrap(s, h), d), st[1] = d, st[2] = gdt__mul_wrap(h, d), st[3] = 1;
    }
}

static void sdpa_set_strides(gdt_problem *p)
{
    gdt_sdpa_desc *s = &p->u.sdpa;
    bhsd_strides(s->q_stride, s->layout, s->h_q, s->s_q, s->d);
    bhsd_strides(s->o_stride, s->layout, s->h_q, s->s_q, s->d);
    bhsd_strides(s->k_stride, s->layout, s->h_kv, s->s_kv, s->d);
    bhsd_strides(s->v_stride, s->layout, s->h_kv, s->s_kv, s->d);
}

static gdt_status sdpa_validate(const gdt_problem *p, gdt_error *e)
{
    static const char *const names[] = {"b", "h_q", "h_kv", "s_q", "s_kv", "d"};
    const gdt_sdpa_desc *s = &p->u.sdpa;
    const char *fam = gdt_family_name(p->family);
    int64_t v[6] = {s->b, s->h_q, s->h_kv, s->s_q, s->s_kv, s->d};
    gdt_status st = gdt__check_dims(fam, names, v, 6, e);
    if (st) return st;
    if (s->h_q % s->h_kv)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: h_q = %" PRId64 " is not a multiple of h_kv = %" PRId64
                             " (GQA needs h_q %% h_kv == 0)", fam, s->h_q, s->h_kv);
    if (s->causal == GDT_CAUSAL_BOTTOM_RIGHT && s->s_q > s->s_kv)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: causal = bottom_right needs s_q <= s_kv, got s_q = %" PRId64
                             ", s_kv = %" PRId64, fam, s->s_q, s->s_kv);
    if ((unsigned)s->dtype >= GDT_DTYPE_COUNT || s->dtype == GDT_DTYPE_FP32)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: dtype = %s: expected bf16 or fp16", fam,
                             gdt_dtype_name(s->dtype));
    if (!isfinite(s->scale) || s->scale <= 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: scale = %g: expected a finite number > 0",
                             fam, s->scale);
    int64_t q[4] = {s->b, s->h_q, s->s_q, s->d}, k[4] = {s->b, s->h_kv, s->s_kv, s->d};
    int64_t sz = (int64_t)gdt_dtype_size(s->dtype);
    if ((st = gdt__check_operand(fam, "Q", q, 4, sz, e))) return st; /* O, dO, dQ: same extent */
    return gdt__check_operand(fam, "K", k, 4, sz, e);               /* V, dK, dV: same extent */
}

/* A key is printed for problems validate has not seen (the tables writer
 * refuses them after): an out-of-enum causal or layout prints as the last
 * name instead of reading past the names. */
static int sdpa_key(const gdt_problem *p, char *buf, size_t n)
{
    const gdt_sdpa_desc *s = &p->u.sdpa;
    unsigned c = (unsigned)s->causal < 2 ? (unsigned)s->causal : 2;
    return snprintf(buf, n,
                    "%s:b%" PRId64 ",hq%" PRId64 ",hkv%" PRId64 ",sq%" PRId64 ",skv%" PRId64
                    ",d%" PRId64 ",%s,causal=%s,%s,scale=%.9g",
                    gdt_family_name(p->family), s->b, s->h_q, s->h_kv, s->s_q, s->s_kv, s->d,
                    gdt_dtype_name(s->dtype), gdt__causal_names[c],
                    gdt__layout_names[s->layout != GDT_LAYOUT_BHSD], s->scale);
}

/* The share of the s_q x s_kv scores a mask leaves, query row i seeing
 * the keys below i + offset (0 top-left, s_kv - s_q bottom-right), at most
 * s_kv.  tile_m <= 0: over the rows (the mean of min(s_kv, x), x in
 * [offset, offset + s_q); top-left with s_q = s_kv gives exactly 1/2, the
 * flops); tile_m > 0: as a kernel of TILE_M-row query tiles walks it, tile
 * t seeing the keys below (t + 1) TILE_M + offset (the diagonal tile in
 * full: 1/2 + TILE_M / (2 s_kv) at s_q = s_kv; bottom-right at s_q = s_kv
 * / 4, about 7/8). */
double gdt__sdpa_mask_fraction(const gdt_sdpa_desc *s, int64_t tile_m)
{
    if (s->causal == GDT_CAUSAL_NONE || s->s_q <= 0 || s->s_kv <= 0) return 1.0;
    int64_t off = s->causal == GDT_CAUSAL_BOTTOM_RIGHT ? s->s_kv - s->s_q : 0;
    double sq = (double)s->s_q, skv = (double)s->s_kv, a = (double)off;
    if (tile_m > 0) {
        int64_t n = (s->s_q + tile_m - 1) / tile_m;
        double seen = 0;
        for (int64_t t = 0; t < n; t++) {
            int64_t end = (t + 1) * tile_m + off;
            seen += (double)(end < s->s_kv ? end : s->s_kv);
        }
        return seen / ((double)n * skv);
    }
    if (a + sq <= skv) return a / skv + 0.5 * sq / skv;
    double below = skv - a; /* rows that see fewer than s_kv keys */
    return (below * 0.5 * (a + skv) + (sq - below) * skv) / (sq * skv);
}

static double fwd_flops(const gdt_problem *p)
{
    const gdt_sdpa_desc *s = &p->u.sdpa;
    double fwd = 4.0 * (double)s->b * (double)s->h_q * (double)s->s_q * (double)s->s_kv * (double)s->d;
    return s->causal != GDT_CAUSAL_NONE ? gdt__sdpa_mask_fraction(s, 0) * fwd : fwd;
}

/* The backward's five products against the forward's two. */
static double bwd_flops(const gdt_problem *p) { return 2.5 * fwd_flops(p); }

/* Gradients share their tensor's layout; the family's operand table says
 * which roles it binds. */
static int sdpa_geometry(const gdt_problem *p, gdt_operand_role r, int64_t dims[4], int64_t strides[4])
{
    const gdt_sdpa_desc *s = &p->u.sdpa;
    int64_t q[4] = {s->b, s->h_q, s->s_q, s->d}, kv[4] = {s->b, s->h_kv, s->s_kv, s->d};
    int64_t st[4] = {s->b, s->h_q, s->s_q, 1}, sts[4] = {s->h_q * s->s_q, s->s_q, 1, 1};
    switch (r) {
    case GDT_OPERAND_Q:
    case GDT_OPERAND_DQ: return gdt__geometry_set(dims, strides, q, s->q_stride, 4);
    case GDT_OPERAND_K:
    case GDT_OPERAND_DK: return gdt__geometry_set(dims, strides, kv, s->k_stride, 4);
    case GDT_OPERAND_V:
    case GDT_OPERAND_DV: return gdt__geometry_set(dims, strides, kv, s->v_stride, 4);
    case GDT_OPERAND_O:
    case GDT_OPERAND_DO: return gdt__geometry_set(dims, strides, q, s->o_stride, 4);
    case GDT_OPERAND_STATS: return gdt__geometry_set(dims, strides, st, sts, 4);
    default: return 0;
    }
}

static int64_t ceil_div(int64_t a, int64_t b) { return b ? (a + b - 1) / b : 0; }

static void sdpa_facts(const gdt_problem *p, gdt_facts *f)
{
    const gdt_sdpa_desc *s = &p->u.sdpa;
    f->gqa_ratio = s->h_kv ? s->h_q / s->h_kv : 0;
    f->q_tiles128 = s->b * s->h_q * ceil_div(s->s_q, 128);
    f->kv_units = s->b * s->h_kv;
    f->kv_tokens = s->b * s->s_kv;
}

/* Each field keyed by its member's name (engines/gdt_family.h). */
#define FIELD(kind, m) GDT__PROBLEM_ROW(sdpa, kind, m)
#define INTS(m) GDT__PROBLEM_INTS_ROW(sdpa, m)
static const gdt__field sdpa_problem_fields[] = {
    FIELD(INT, b),
    FIELD(INT, h_q),
    FIELD(INT, h_kv),
    FIELD(INT, s_q),
    FIELD(INT, s_kv),
    FIELD(INT, d),
    FIELD(DTYPE, dtype),
    GDT__PROBLEM_NAME_ROW(sdpa, causal, gdt__causal_names),
    GDT__PROBLEM_NAME_ROW(sdpa, layout, gdt__layout_names),
    FIELD(EXACT, scale),
    INTS(q_stride),
    INTS(k_stride),
    INTS(v_stride),
    INTS(o_stride),
};
#undef FIELD
#undef INTS
#undef S

static const gdt__field sdpa_facts_fields[] = {
    GDT__FACT_ROW(EXACT, flops),
    GDT__FACT_ROW(INT, gqa_ratio),
    GDT__FACT_ROW(INT, q_tiles128),
    GDT__FACT_ROW(INT, kv_units),
    GDT__FACT_ROW(INT, kv_tokens),
};

/* Cells of one dtype, mask, head size and GQA-or-not, ordered by 128-row
 * query tiles (the work a forward or backward kernel spreads over SMs). */
static const gdt__field sdpa_group_fields[] = {
    GDT__GROUP_ROW("dtype", DTYPE),
    GDT__FIELD_NAME_ROW("causal", 0, gdt__causal_names),
    GDT__GROUP_ROW("d", INT),
    GDT__GROUP_ROW("gqa", BOOL),
};

static void sdpa_group(const gdt_facts *f, int64_t v[GDT__GROUP_MAX])
{
    v[0] = f->dtype, v[1] = f->problem.u.sdpa.causal, v[2] = f->problem.u.sdpa.d, v[3] = f->gqa_ratio > 1;
}

static double sdpa_metric(const gdt_facts *f) { return (double)f->q_tiles128; }

static const char *const sdpa_feature_names[] = {"log_work", "log_steps", "log_bytes"};

/* A query tile walks the KV units in TILE_N steps (about half of them under
 * a causal mask, the diagonal tile in full); K and V are read once per KV
 * head, so GQA shows in the bytes.  The tiles count in fractional waves (at
 * least one): our kernels are persistent and draw tiles from a counter, so
 * a partial last wave costs its share (whole waves mispredicted 192-row
 * tiles against 128-row ones on the validation sweep, tables/README.md). */
static void sdpa_features(const gdt_facts *f, const gdt_plan_id *id, int sms, double *phi)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    int64_t tm = gdt_plan_id_knob(id, GDT_KNOB_TILE_M, 128), tn = gdt_plan_id_knob(id, GDT_KNOB_TILE_N, 128);
    tm = tm > 0 ? tm : 128, tn = tn > 0 ? tn : 128;
    double frac = gdt__sdpa_mask_fraction(s, tm);
    double tiles = (double)(s->b * s->h_q * ceil_div(s->s_q, tm)), nsm = (double)(sms > 0 ? sms : 1);
    double waves = fmax(1.0, tiles / nsm);
    double steps = waves * (double)ceil_div(s->s_kv, tn) * frac;
    double el = (double)gdt_dtype_size(s->dtype);
    double bytes = el * 2.0 * ((double)s->b * s->h_q * s->s_q * s->d + (double)s->b * s->h_kv * s->s_kv * s->d);
    phi[0] = log(steps * 4.0 * (double)tm * (double)tn * (double)s->d);
    phi[1] = log(steps);
    phi[2] = log(bytes);
}

static const char *const sdpa_ratio_feature_names[] = {"log_steps", "log_flops", "log_head_flops", "log_gqa"};
_Static_assert(sizeof sdpa_ratio_feature_names / sizeof *sdpa_ratio_feature_names <= GDT__RATIO_FEATURES_MAX,
               "more ratio features than GDT__RATIO_FEATURES_MAX");

/* Where our kernels and the backend's cross over follows the work of one
 * (batch, query head), the sequence lengths and d (sdpa_fwd's handwritten
 * kernel leads at d 128 and s_kv 8192 whatever b and h), and the serial
 * steps; the total work and bytes, which mix b and h in, carry it to shapes
 * whose b is not the default grid's 16384 / s (issue 33's validation).  The
 * GQA ratio h_q / h_kv, which neither shows: cuDNN's backward pays for GQA
 * where ours does not (sdpa_bwd.hand at 0.80-0.94 of cuDNN's time with h_kv
 * 8 on the H200, 0.97-1.12 with 32, 2026-12-07). */
static void sdpa_ratio_features(const gdt_facts *f, const double *phi, double *out)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    double units = (double)s->b * (double)s->h_q;
    out[0] = phi[1];
    out[1] = phi[3];
    out[2] = log(units > 0 && f->flops > units ? f->flops / units : 1);
    out[3] = log(f->gqa_ratio > 1 ? (double)f->gqa_ratio : 1);
}

#define COUNT(a) (int)(sizeof(a) / sizeof((a)[0]))
#define SDPA_SHARED                                                                          \
    .defaults = sdpa_defaults, .keys = sdpa_keys, .nkeys = NKEYS, .complete = sdpa_complete,    \
    .set_strides = sdpa_set_strides, .validate = sdpa_validate, .key = sdpa_key,              \
    .dtype_off = offsetof(gdt_problem, u.sdpa.dtype), .geometry = sdpa_geometry,             \
    .facts = sdpa_facts, .problem_fields = sdpa_problem_fields,                               \
    .nproblem_fields = COUNT(sdpa_problem_fields), .facts_fields = sdpa_facts_fields,         \
    .nfacts_fields = COUNT(sdpa_facts_fields), .group_fields = sdpa_group_fields,             \
    .ngroup_fields = COUNT(sdpa_group_fields), .group = sdpa_group,                           \
    .metric_name = "q_tiles128", .metric = sdpa_metric, .feature_names = sdpa_feature_names,     \
    .nfeatures = COUNT(sdpa_feature_names), .features = sdpa_features,                         \
    .ratio_feature_names = sdpa_ratio_feature_names,                                           \
    .nratio_features = COUNT(sdpa_ratio_feature_names), .ratio_features = sdpa_ratio_features

const gdt_family_desc gdt__family_sdpa_fwd = {
    .name = "sdpa_fwd",
    .flops = fwd_flops,
    .noperands = 5,
    .noutputs = 2,
    .operands = {GDT_OPERAND_Q, GDT_OPERAND_K, GDT_OPERAND_V, GDT_OPERAND_O, GDT_OPERAND_STATS},
    SDPA_SHARED,
};

const gdt_family_desc gdt__family_sdpa_bwd = {
    .name = "sdpa_bwd",
    .flops = bwd_flops,
    .noperands = 9,
    .noutputs = 3,
    .operands = {GDT_OPERAND_Q, GDT_OPERAND_K, GDT_OPERAND_V, GDT_OPERAND_O, GDT_OPERAND_DO,
                 GDT_OPERAND_STATS, GDT_OPERAND_DQ, GDT_OPERAND_DK, GDT_OPERAND_DV},
    SDPA_SHARED,
};
