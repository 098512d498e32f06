/* cuBLASLt loaded at run time: libgdtune links nothing of it, so a machine
 * without libcublasLt plans, sweeps and tests everything else and the slot
 * declines with the loader's reason.  The checking path and the process's
 * one handle live here too. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "cublaslt/gdt_cublaslt.h"

#define GDT__STR2(x) #x
#define GDT__STR(x) GDT__STR2(x)
/* The soname of the major version the headers describe: an older or newer
 * major has other structs behind the same names. */
static const char lib_name[] = "libcublasLt.so." GDT__STR(CUBLAS_VER_MAJOR);

static gdt__cublaslt_api api;
static bool api_ok;
static char api_msg[512];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void api_load(void)
{
    void *lib = dlopen(lib_name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(api_msg, sizeof api_msg, "cublaslt: %s not loadable: %s", lib_name, dlerror());
        return;
    }
#define GDT__CUBLASLT_SYM(name)                                                                \
    if (!(*(void **)(&api.name) = dlsym(lib, #name))) {                                        \
        snprintf(api_msg, sizeof api_msg, "cublaslt: %s: no symbol %s", lib_name, #name);      \
        return;                                                                                \
    }
    GDT__CUBLASLT_API(GDT__CUBLASLT_SYM)
#undef GDT__CUBLASLT_SYM
    api_ok = true;
}

const gdt__cublaslt_api *gdt__cublaslt(gdt_error *e)
{
    pthread_once(&api_once, api_load);
    if (api_ok) return &api;
    gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s", api_msg);
    return NULL;
}

const char *gdt__cublaslt_status_name(cublasStatus_t r)
{
    const gdt__cublaslt_api *L = gdt__cublaslt(NULL);
    const char *n = L ? L->cublasLtGetStatusName(r) : NULL;
    return n ? n : "CUBLAS_STATUS_UNKNOWN";
}

/* A status cuBLASLt gives for a config or a problem it will not run is a
 * decline; running out of memory is that; the rest fails the call. */
static gdt_status status_class(cublasStatus_t r)
{
    switch (r) {
    case CUBLAS_STATUS_NOT_SUPPORTED:
    case CUBLAS_STATUS_ARCH_MISMATCH:
    case CUBLAS_STATUS_INVALID_VALUE: return GDT_STATUS_NOT_SUPPORTED;
    case CUBLAS_STATUS_ALLOC_FAILED: return GDT_STATUS_NO_MEMORY;
    default: return GDT_STATUS_CUDA;
    }
}

gdt_status gdt__fail_cublaslt(gdt_error *e, cublasStatus_t r, const char *call, const char *file,
                              int line)
{
    return gdt_error_set(e, status_class(r), "%s:%d: %s failed: %s (%d)", file, line, call,
                         gdt__cublaslt_status_name(r), (int)r);
}

static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
static cublasLtHandle_t handle;

gdt_status gdt__cublaslt_handle(cublasLtHandle_t *h, gdt_error *e)
{
    const gdt__cublaslt_api *L = gdt__cublaslt(e);
    gdt_status s = GDT_STATUS_OK;
    if (!L) return GDT_STATUS_NOT_SUPPORTED;
    if (!gdt__device_present())
        return gdt_error_set(e, GDT_STATUS_NO_DEVICE, "cublaslt: no CUDA device (cuBLASLt plans "
                                                      "are listed and built on the device)");
    pthread_mutex_lock(&handle_lock);
    if (!handle) {
        cublasStatus_t r = L->cublasLtCreate(&handle);
        if (r != CUBLAS_STATUS_SUCCESS) {
            handle = NULL;
            s = gdt__fail_cublaslt(e, r, "cublasLtCreate(&handle)", __FILE__, __LINE__);
        }
    }
    *h = handle;
    pthread_mutex_unlock(&handle_lock);
    return s;
}
