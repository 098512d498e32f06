/* Building blocks of backend operation graphs: descriptors owned by a
 * pool or a graph, tensors, the four op kinds the lowerings use,
 * variant-pack bindings, destroying a graph, the process handle, and the
 * support rules.  cudnn_graph.c lowers and finalizes a graph: the family
 * lowerings call these blocks, so this file calls none of them.  Every
 * cuDNN call goes through GDT_CHECK_CUDNN. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn/gdt_cudnn.h"

#define SET(d, attr, type, n, p) GDT_CHECK_CUDNN(e, cudnnBackendSetAttribute((d), (attr), (type), (n), (p)))

/* Deprecated in the 9.19 headers, still required (see gdt_cudnn.h). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
const cudnnBackendAttributeName_t gdt__cudnn_attr_graph_handle = CUDNN_ATTR_OPERATIONGRAPH_HANDLE;
const cudnnBackendAttributeName_t gdt__cudnn_attr_plan_handle = CUDNN_ATTR_EXECUTION_PLAN_HANDLE;
#pragma GCC diagnostic pop

/* ---------------------------------------------------------------- pool */

gdt_status gdt__cudnn_pool_desc(gdt__cudnn_pool *p, cudnnBackendDescriptorType_t type,
                                cudnnBackendDescriptor_t *out, gdt_error *e)
{
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        cudnnBackendDescriptor_t *d = realloc(p->d, (size_t)cap * sizeof *d);
        if (!d)
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "cudnn: out of memory for descriptors");
        p->d = d, p->cap = cap;
    }
    *out = NULL;
    GDT_CHECK_CUDNN(e, cudnnBackendCreateDescriptor(type, out));
    p->d[p->n++] = *out;
    return GDT_STATUS_OK;
}

void gdt__cudnn_pool_free(gdt__cudnn_pool *p)
{
    for (int i = p->n - 1; i >= 0; i--)
        cudnnBackendDestroyDescriptor(p->d[i]);
    free(p->d);
    memset(p, 0, sizeof *p);
}

cudnnDataType_t gdt__cudnn_dtype(gdt_dtype t)
{
    switch (t) {
    case GDT_DTYPE_BF16: return CUDNN_DATA_BFLOAT16;
    case GDT_DTYPE_FP16: return CUDNN_DATA_HALF;
    default: return CUDNN_DATA_FLOAT;
    }
}

gdt_status gdt__cudnn_desc(gdt__cudnn_graph *g, cudnnBackendDescriptorType_t type,
                           cudnnBackendDescriptor_t *out, gdt_error *e)
{
    if (g->ndescs == GDT__CUDNN_MAX_DESCS)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "cudnn: graph needs more than %d descriptors",
                             GDT__CUDNN_MAX_DESCS);
    *out = NULL;
    GDT_CHECK_CUDNN(e, cudnnBackendCreateDescriptor(type, out));
    g->descs[g->ndescs++] = *out;
    return GDT_STATUS_OK;
}

gdt_status gdt__cudnn_tensor(gdt__cudnn_graph *g, int64_t uid, cudnnDataType_t dt, int nd,
                             const int64_t *dim, const int64_t *stride, unsigned flags,
                             cudnnBackendDescriptor_t *out, gdt_error *e)
{
    gdt_status s = gdt__cudnn_desc(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR, out, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (uid == 0)
        uid = g->next_uid++;
    int64_t align = 16;
    bool yes = true;
    SET(*out, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    SET(*out, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dim);
    SET(*out, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, stride);
    SET(*out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    SET(*out, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    if (flags & GDT__T_VIRTUAL)
        SET(*out, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &yes);
    if (flags & GDT__T_BY_VALUE)
        SET(*out, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &yes);
    GDT_CHECK_CUDNN(e, cudnnBackendFinalize(*out));
    return GDT_STATUS_OK;
}

gdt_status gdt__cudnn_add_op(gdt__cudnn_graph *g, cudnnBackendDescriptor_t op, gdt_error *e)
{
    if (g->nops == GDT__CUDNN_MAX_OPS)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "cudnn: graph needs more than %d operations",
                             GDT__CUDNN_MAX_OPS);
    g->ops[g->nops++] = op;
    return GDT_STATUS_OK;
}

/* An operation's descriptor and the one it carries (its mode), that one's
 * compute or math precision (attribute prec_attr) set to prec. */
static gdt_status desc_pair(gdt__cudnn_graph *g, cudnnBackendDescriptorType_t inner_type,
                            cudnnBackendAttributeName_t prec_attr, cudnnDataType_t prec,
                            cudnnBackendDescriptor_t *inner, cudnnBackendDescriptorType_t op_type,
                            cudnnBackendDescriptor_t *op, gdt_error *e)
{
    gdt_status s = gdt__cudnn_desc(g, inner_type, inner, e);
    if (s == GDT_STATUS_OK)
        s = gdt__cudnn_desc(g, op_type, op, e);
    if (s != GDT_STATUS_OK)
        return s;
    SET(*inner, prec_attr, CUDNN_TYPE_DATA_TYPE, 1, &prec);
    return GDT_STATUS_OK;
}

/* An operation kind: its descriptor and, where it carries a mode
 * descriptor (has_mode), that one's type, its precision attribute and the
 * operation's attribute that takes it. */
typedef struct op_kind {
    cudnnBackendDescriptorType_t op_type;
    bool has_mode;
    cudnnBackendDescriptorType_t mode_type;
    cudnnBackendAttributeName_t prec_attr, mode_attr;
} op_kind;

static const op_kind pointwise_kind = {CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, true,
                                       CUDNN_BACKEND_POINTWISE_DESCRIPTOR, CUDNN_ATTR_POINTWISE_MATH_PREC,
                                       CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR};
static const op_kind matmul_kind = {CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, true,
                                    CUDNN_BACKEND_MATMUL_DESCRIPTOR, CUDNN_ATTR_MATMUL_COMP_TYPE,
                                    CUDNN_ATTR_OPERATION_MATMUL_DESC};
static const op_kind reduction_kind = {CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, true,
                                       CUDNN_BACKEND_REDUCTION_DESCRIPTOR, CUDNN_ATTR_REDUCTION_COMP_TYPE,
                                       CUDNN_ATTR_OPERATION_REDUCTION_DESC};
static const op_kind reshape_kind = {.op_type = CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR};

/* n values of one attribute of a descriptor. */
typedef struct attr_value {
    cudnnBackendAttributeName_t attr;
    cudnnBackendAttributeType_t type;
    int64_t n;
    const void *p;
} attr_value;

/* A list of attribute values (NULL, 0: none). */
typedef struct attr_list {
    const attr_value *v;
    size_t n;
} attr_list;

#define ATTRS(...) ((attr_list){(const attr_value[]){__VA_ARGS__}, sizeof((attr_value[]){__VA_ARGS__}) / sizeof(attr_value)})

/* One descriptor-valued attribute of an operation; a NULL one is not set.
 * The kind's mode attribute (desc NULL) takes the mode descriptor: where
 * it stands in the list is the order it is set in. */
typedef struct op_input {
    cudnnBackendAttributeName_t attr;
    cudnnBackendDescriptor_t desc;
} op_input;

static gdt_status set_attrs(cudnnBackendDescriptor_t d, attr_list a, gdt_error *e)
{
    for (size_t i = 0; i < a.n; i++)
        SET(d, a.v[i].attr, a.v[i].type, a.v[i].n, a.v[i].p);
    return GDT_STATUS_OK;
}

/* Appends an operation of kind k to the graph: its mode descriptor (the
 * precision prec, then the mode's attributes, finalized), then the
 * operation's own attributes and its n inputs, finalized. */
static gdt_status add_op(gdt__cudnn_graph *g, const op_kind *k, cudnnDataType_t prec, attr_list mode_attrs,
                         attr_list op_attrs, const op_input *in, size_t n, gdt_error *e)
{
    cudnnBackendDescriptor_t mode = NULL, op;
    gdt_status s = k->has_mode ? desc_pair(g, k->mode_type, k->prec_attr, prec, &mode, k->op_type, &op, e)
                               : gdt__cudnn_desc(g, k->op_type, &op, e);
    if (s == GDT_STATUS_OK && k->has_mode && (s = set_attrs(mode, mode_attrs, e)) == GDT_STATUS_OK)
        GDT_CHECK_CUDNN(e, cudnnBackendFinalize(mode));
    if (s == GDT_STATUS_OK)
        s = set_attrs(op, op_attrs, e);
    if (s != GDT_STATUS_OK)
        return s;
    for (size_t i = 0; i < n; i++) {
        cudnnBackendDescriptor_t d = k->has_mode && in[i].attr == k->mode_attr ? mode : in[i].desc;
        if (d)
            SET(op, in[i].attr, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d);
    }
    GDT_CHECK_CUDNN(e, cudnnBackendFinalize(op));
    return gdt__cudnn_add_op(g, op, e);
}

gdt_status gdt__cudnn_pointwise(gdt__cudnn_graph *g, cudnnPointwiseMode_t mode,
                                cudnnDataType_t prec, int64_t axis, cudnnBackendDescriptor_t x,
                                cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t,
                                cudnnBackendDescriptor_t y, gdt_error *e)
{
    float one = 1.0f;
    attr_list mode_attrs = ATTRS({CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode},
                                 {CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis});
    if (axis < 0)
        mode_attrs.n = 1;
    const op_input in[] = {
        {CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, NULL}, {CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x},
        {CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b},             {CUDNN_ATTR_OPERATION_POINTWISE_TDESC, t},
        {CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y},
    };
    return add_op(g, &pointwise_kind, prec, mode_attrs,
                  ATTRS({CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, &one},
                        {CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, &one}),
                  in, sizeof in / sizeof in[0], e);
}

gdt_status gdt__cudnn_matmul(gdt__cudnn_graph *g, cudnnBackendDescriptor_t a,
                             cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c, gdt_error *e)
{
    const op_input in[] = {
        {CUDNN_ATTR_OPERATION_MATMUL_ADESC, a}, {CUDNN_ATTR_OPERATION_MATMUL_BDESC, b},
        {CUDNN_ATTR_OPERATION_MATMUL_CDESC, c}, {CUDNN_ATTR_OPERATION_MATMUL_DESC, NULL},
    };
    return add_op(g, &matmul_kind, CUDNN_DATA_FLOAT, (attr_list){0}, (attr_list){0}, in, sizeof in / sizeof in[0], e);
}

gdt_status gdt__cudnn_reduction(gdt__cudnn_graph *g, cudnnReduceTensorOp_t rop,
                                cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y, gdt_error *e)
{
    bool det = false;
    const op_input in[] = {
        {CUDNN_ATTR_OPERATION_REDUCTION_DESC, NULL},
        {CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x},
        {CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y},
    };
    return add_op(g, &reduction_kind, CUDNN_DATA_FLOAT,
                  ATTRS({CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &rop},
                        {CUDNN_ATTR_REDUCTION_IS_DETERMINISTIC, CUDNN_TYPE_BOOLEAN, 1, &det}),
                  (attr_list){0}, in, sizeof in / sizeof in[0], e);
}

gdt_status gdt__cudnn_reshape(gdt__cudnn_graph *g, cudnnBackendDescriptor_t x,
                              cudnnBackendDescriptor_t y, gdt_error *e)
{
    const op_input in[] = {
        {CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x},
        {CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y},
    };
    return add_op(g, &reshape_kind, CUDNN_DATA_FLOAT, (attr_list){0}, (attr_list){0}, in,
                  sizeof in / sizeof in[0], e);
}

/* ------------------------------------------------------------ bindings */

/* Appends b, a bind of the kind its fields say. */
static gdt_status bind_add(gdt__cudnn_graph *g, gdt__cudnn_bind b, gdt_error *e)
{
    if (g->nbinds == GDT__CUDNN_MAX_BINDS)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "cudnn: more than %d bound tensors",
                             GDT__CUDNN_MAX_BINDS);
    g->binds[g->nbinds++] = b;
    return GDT_STATUS_OK;
}

gdt_status gdt__cudnn_bind_operand(gdt__cudnn_graph *g, int64_t uid, gdt_operand_role r, gdt_error *e)
{
    return bind_add(g, (gdt__cudnn_bind){.uid = uid, .kind = GDT__BIND_OPERAND, .role = (int)r}, e);
}

gdt_status gdt__cudnn_bind_f32(gdt__cudnn_graph *g, int64_t uid, float v, gdt_error *e)
{
    return bind_add(g, (gdt__cudnn_bind){.uid = uid, .kind = GDT__BIND_HOST_F32, .f32 = v}, e);
}

gdt_status gdt__cudnn_bind_i32(gdt__cudnn_graph *g, int64_t uid, int32_t v, gdt_error *e)
{
    return bind_add(g, (gdt__cudnn_bind){.uid = uid, .kind = GDT__BIND_HOST_I32, .i32 = v}, e);
}

/* Scratch slices start 256-byte aligned, like cudaMalloc'd buffers. */
gdt_status gdt__cudnn_bind_scratch(gdt__cudnn_graph *g, int64_t uid, size_t bytes, gdt_error *e)
{
    gdt__cudnn_bind b = {.uid = uid, .kind = GDT__BIND_SCRATCH, .offset = g->scratch_bytes};
    gdt_status s = bind_add(g, b, e);
    if (s == GDT_STATUS_OK)
        g->scratch_bytes += (bytes + 255) & ~(size_t)255;
    return s;
}

/* --------------------------------------------------------------- graph */

void gdt__cudnn_graph_destroy(gdt__cudnn_graph *g)
{
    if (!g)
        return;
    /* Reverse creation order: ops before the tensors they reference. */
    for (int i = g->ndescs - 1; i >= 0; i--)
        cudnnBackendDestroyDescriptor(g->descs[i]);
    free(g);
}

gdt_status gdt__cudnn_engine_count(const gdt__cudnn_graph *g, int64_t *n, gdt_error *e)
{
    int64_t got = 0;
    *n = 0;
    GDT_CHECK_CUDNN(e, cudnnBackendGetAttribute(g->graph, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
                                                CUDNN_TYPE_INT64, 1, &got, n));
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------- handles */

/* cuDNN is thread-safe only with a handle per thread, so each thread gets
 * one of its own: a slot of this pool, held while the thread lives (a
 * thread-specific key returns it when the thread ends) and then reused by
 * the next thread on the same device, so that builder threads started per
 * cell do not create handles per cell.  Handles live as long as the
 * process, as the one handle did before; plans keep using the handle they
 * were finalized with after their builder has ended. */
#define GDT__CUDNN_HANDLES_MAX 72 /* the caller's thread, 64 builders, room */

static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
static gdt__cudnn_hslot handles[GDT__CUDNN_HANDLES_MAX];
static pthread_key_t handle_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static bool key_made;

static void slot_release(void *p)
{
    pthread_mutex_lock(&handle_lock);
    ((gdt__cudnn_hslot *)p)->busy = false;
    pthread_mutex_unlock(&handle_lock);
}

static void key_make(void) { key_made = pthread_key_create(&handle_key, slot_release) == 0; }

/* A free slot with a handle for device, else an empty one; NULL: all busy. */
static gdt__cudnn_hslot *slot_reserve(int device)
{
    gdt__cudnn_hslot *empty = NULL, *got = NULL;
    pthread_mutex_lock(&handle_lock);
    for (int i = 0; i < GDT__CUDNN_HANDLES_MAX && !got; i++) {
        gdt__cudnn_hslot *x = &handles[i];
        if (!x->busy && x->h && x->device == device)
            got = x;
        else if (!x->busy && !x->h && !empty)
            empty = x;
    }
    if (!got)
        got = empty;
    if (got)
        got->busy = true;
    pthread_mutex_unlock(&handle_lock);
    return got;
}

/* The handle is created outside the lock: the first cudnnCreate loads the
 * library's kernels and takes long enough that the builders of a cell
 * would wait on one another. */
static gdt_status slot_fill(gdt__cudnn_hslot *x, int device, gdt_error *e)
{
    if (x->h)
        return GDT_STATUS_OK;
    cudnnHandle_t h = NULL;
    cudnnStatus_t r = cudnnCreate(&h);
    if (r != CUDNN_STATUS_SUCCESS) {
        slot_release(x);
        return gdt__fail_cudnn(e, r, "cudnnCreate(&h)", __FILE__, __LINE__);
    }
    x->h = h, x->device = device, x->stream = NULL, x->stream_known = false;
    return GDT_STATUS_OK;
}

static gdt_status slot_take(gdt__cudnn_hslot **out, gdt_error *e)
{
    int device = 0;
    GDT_CHECK_CUDA(e, cudaGetDevice(&device));
    gdt__cudnn_hslot *x = slot_reserve(device);
    if (!x)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "cudnn: handles: expected at most %d threads "
                             "holding one at a time, all %d are held", GDT__CUDNN_HANDLES_MAX,
                             GDT__CUDNN_HANDLES_MAX);
    gdt_status s = slot_fill(x, device, e);
    if (s == GDT_STATUS_OK && pthread_setspecific(handle_key, x) != 0) {
        slot_release(x);
        s = gdt_error_set(e, GDT_STATUS_INTERNAL, "cudnn: handles: pthread_setspecific failed");
    }
    if (s == GDT_STATUS_OK)
        *out = x;
    return s;
}

gdt_status gdt__cudnn_thread_handle(gdt__cudnn_hslot **out, gdt_error *e)
{
    *out = NULL;
    pthread_once(&key_once, key_make);
    if (!key_made)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "cudnn: handles: pthread_key_create failed");
    if ((*out = pthread_getspecific(handle_key)))
        return GDT_STATUS_OK;
    if (!gdt__device_present())
        return gdt_error_set(e, GDT_STATUS_NO_DEVICE,
                             "cudnn: no CUDA device: cuDNN needs a GPU to create its handle");
    return slot_take(out, e);
}

gdt_status gdt__cudnn_handle(cudnnHandle_t *h, gdt_error *e)
{
    gdt__cudnn_hslot *x = NULL;
    gdt_status s = gdt__cudnn_thread_handle(&x, e);
    *h = x ? x->h : NULL;
    return s;
}

/* ------------------------------------------------------------- support */

int gdt__cudnn_forms(const gdt_problem *p, int version, int forms[2])
{
    int n = 0;
    /* The unified SDPA_FWD op exists from 9.13 and, before 9.21, takes no
     * mask: non-causal forward only. */
    if (p->family == GDT_FAMILY_SDPA_FWD && p->u.sdpa.causal == GDT_CAUSAL_NONE &&
        version >= 91300 && CUDNN_VERSION >= 91300)
        forms[n++] = GDT__CUDNN_FORM_UNIFIED;
    forms[n++] = GDT__CUDNN_FORM_COMPOSITE;
    return n;
}

static gdt_status decline(gdt_error *e, const char *fmt, const char *what, long long got)
{
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, fmt, what, got);
}

static bool is_unit_last(const int64_t *s, int nd) { return s[nd - 1] == 1; }

static gdt_status gemm_support(const gdt_gemm_desc *d, gdt_error *e)
{
    const int64_t *a = d->a_stride, *b = d->b_stride;
    if (!(a[2] == 1 || a[1] == 1))
        return decline(e, "cudnn: gemm %s needs a unit stride on its row or column axis (got %lld)",
                       "A", (long long)(a[2] < a[1] ? a[2] : a[1]));
    if (!(b[2] == 1 || b[1] == 1))
        return decline(e, "cudnn: gemm %s needs a unit stride on its row or column axis (got %lld)",
                       "B", (long long)(b[2] < b[1] ? b[2] : b[1]));
    if (d->c_stride[2] != 1)
        return decline(e, "cudnn: gemm %s must be row-major (unit column stride; got %lld)", "C",
                       (long long)d->c_stride[2]);
    return GDT_STATUS_OK;
}

static gdt_status sdpa_support(const gdt_facts *f, int version, gdt_error *e)
{
    const gdt_sdpa_desc *d = &f->problem.u.sdpa;
    if (d->d % 8 != 0 || d->d > 256)
        return decline(e, "cudnn: sdpa %s must be a multiple of 8 and at most 256 (got %lld)",
                       "head dim d", (long long)d->d);
    if (d->h_kv <= 0 || d->h_q % d->h_kv != 0)
        return decline(e, "cudnn: sdpa %s: h_q must be a multiple of h_kv (h_kv %lld)", "GQA",
                       (long long)d->h_kv);
    const int64_t *st[4] = {d->q_stride, d->k_stride, d->v_stride, d->o_stride};
    static const char *nm[4] = {"Q", "K", "V", "O"};
    for (int i = 0; i < 4; i++)
        if (!is_unit_last(st[i], 4))
            return decline(e, "cudnn: sdpa %s needs a unit stride on the head dim (got %lld)",
                           nm[i], (long long)st[i][3]);
    if (d->causal == GDT_CAUSAL_BOTTOM_RIGHT && d->s_q > d->s_kv)
        return decline(e, "cudnn: sdpa %s causal needs s_q <= s_kv (s_q %lld)", "bottom-right",
                       (long long)d->s_q);
    if (f->family == GDT_FAMILY_SDPA_BWD && d->s_q == 1 && d->s_kv == 1)
        return decline(e, "cudnn: %s rejects s_q = s_kv = %lld", "sdpa_bwd", 1LL);
    /* cuDNN <= 9.15 backward misbehaves unless s_kv is a multiple of 128
     * (cudnn-frontend pads it with a mask; we decline instead). */
    if (f->family == GDT_FAMILY_SDPA_BWD && version < 91600 && d->s_kv % 128 != 0)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "cudnn: sdpa_bwd on cuDNN %d (< 9.16) needs s_kv %% 128 == 0 (got s_kv %lld)",
                             version, (long long)d->s_kv);
    return GDT_STATUS_OK;
}

static gdt_status id_support(const gdt_facts *f, const gdt_plan_id *id, int version, gdt_error *e)
{
    if (id->engine_id < 0 || id->engine_id >= GDT_ENGINE_ID_BACKEND_END)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "cudnn: engine id %lld is not a backend engine (expected [0, %d))",
                             (long long)id->engine_id, GDT_ENGINE_ID_BACKEND_END);
    for (int i = 0; i < id->nknobs; i++) {
        int32_t t = id->knobs[i].type;
        if (t != GDT_KNOB_GRAPH && (t < 0 || t >= GDT__CUDNN_MAX_KNOB_SLOTS))
            return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                                 "cudnn: knob %s (%d) is not a backend knob",
                                 gdt_knob_name(t) ? gdt_knob_name(t) : "?", (int)t);
    }
    int64_t form = gdt_plan_id_knob(id, GDT_KNOB_GRAPH, GDT__CUDNN_FORM_COMPOSITE);
    int forms[2], nf = gdt__cudnn_forms(&f->problem, version, forms);
    for (int i = 0; i < nf; i++)
        if (forms[i] == form)
            return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                         "cudnn: GRAPH=%lld (unified SDPA op) applies only to non-causal sdpa_fwd on "
                         "cuDNN >= 9.13 (family %s, causal %d, cuDNN %d)",
                         (long long)form, gdt_family_name(f->family), (int)f->problem.u.sdpa.causal,
                         version);
}

gdt_status gdt__cudnn_support(const gdt_facts *f, const gdt_plan_id *id, int version, gdt_error *e)
{
    gdt_dtype t = gdt_problem_dtype(&f->problem);
    if (t != GDT_DTYPE_BF16 && t != GDT_DTYPE_FP16)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "cudnn: dtype %s not supported (expected bf16 or fp16)", gdt_dtype_name(t));
    if (f->device.arch < 80)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "cudnn: arch sm%d not supported (these graphs need sm80 or newer)",
                             f->device.arch);
    gdt_status s = f->family == GDT_FAMILY_GEMM ? gemm_support(&f->problem.u.gemm, e)
                                                : sdpa_support(f, version, e);
    if (s == GDT_STATUS_OK && id)
        s = id_support(f, id, version, e);
    return s;
}
