/* The compiled-kernel cache (DESIGN: Caches) and the NVRTC compile steps
 * the engine composes.  Private to libgdtune.
 *
 * Layout: <root>/<env>/<key>.cubin (and <key>.lock), where env (16 hex
 * digits) digests what invalidates a whole environment at once (gdtune
 * version, NVRTC version, driver version) and key (64 hex digits) digests
 * everything that can change the binary (template source, bound defines,
 * NVRTC options and version, target arch, driver and gdtune versions).
 * cuDNN's serialized execution plans are entries of the same cache,
 * <env>/<key>.plan, under an environment of their own (gdtune, cuDNN and
 * driver versions; engines/cudnn/cudnn_plan_cache.c names the key).  Each
 * entry embeds its key and a SHA-256 of its payload, both re-checked on load;
 * anything doubtful is a miss, never an error.  Nothing below the root is
 * followed through a link, and an entry that is not a regular file (a link,
 * a FIFO) is a miss.
 *
 * The root may hold folders that are not gdtune's.  When gdtune creates an
 * environment folder it writes a marker file into it, <env>/gdtune-env
 * ("GDTUNE-CACHE-ENV 1"); the pruner removes only folders that are named like
 * an environment, are not links and carry that marker, and in them only the
 * marker, <key>.cubin, <key>.plan, <key>.lock and <key>.cubin.tmp.*,
 * <key>.plan.tmp.* (the temporaries of an atomic write).  Folders without a marker, the environments of gdtune
 * versions before the marker included, are never pruned: delete those by
 * hand.
 *
 * The root and each environment folder must be owned by the current user
 * and writable by nobody else (an entry's key and checksum are no secret,
 * so whoever can write there can forge a hit); a root that is a link is
 * followed and its target checked, and a link owned by another user is
 * refused.  A folder that fails is ignored with a warning on stderr (once
 * per process, naming it, its owner's uid and its mode) and the compile goes
 * without the cache.  gdtune creates its folders 0700 and its files 0600. */
#ifndef GDT_NVRTC_CACHE_H
#define GDT_NVRTC_CACHE_H

#include <stddef.h>

#include "gdt_nvrtc.h"
#include "gdt_util.h"

/* The cache root: $GDTUNE_CACHE_DIR, else $XDG_CACHE_HOME/gdtune, else
 * ~/.cache/gdtune.  NULL when GDTUNE_DISABLE_CACHE=1 or no root can be
 * named.  Callers put it in gdt_build_opts.cache_dir. */
const char *gdt_nvrtc_cache_root(char *buf, size_t n);

/* Size cap before stale environments are pruned: $GDTUNE_CACHE_MAX_MB,
 * default 2048.  Only gdtune's files in marked environments count. */
#define GDT_NVRTC_CACHE_DEFAULT_MB 2048

/* Identity of one compile. */
typedef struct gdt_nvrtc_key {
    char key[65]; /* hex SHA-256 of the key material */
    char env[17]; /* environment folder name */
    char arch[16]; /* "sm_90a" */
} gdt_nvrtc_key;

#define GDT_NVRTC_MAX_OPTIONS (GDT_NVRTC_MAX_DEFINES + 8)
typedef struct gdt_nvrtc_options {
    int n;
    char opt[GDT_NVRTC_MAX_OPTIONS][160];
} gdt_nvrtc_options;

/* nvrtc_compile.c: the options of one compile (typed defines first), and
 * its cache identity.  BAD_INPUT when a template define name is not an
 * identifier or the embedded source is missing. */
gdt_status gdt__nvrtc_options(const gdt_nvrtc_template *t, const gdt_facts *f, const gdt_plan_id *p,
                              int arch, gdt_nvrtc_options *o, gdt_error *e);
gdt_status gdt__nvrtc_key(const gdt_nvrtc_template *t, const gdt_nvrtc_options *o, int arch,
                          gdt_nvrtc_key *k, gdt_error *e);
/* The kernel headers every compile gets: each embedded kernels/gdt_*.cuh,
 * in embedded order, into out[0 .. *n); more than
 * GDT__NVRTC_MAX_KERNEL_HEADERS is INTERNAL, never a header left out. */
#define GDT__NVRTC_MAX_KERNEL_HEADERS 16
gdt_status gdt__nvrtc_kernel_headers(const gdt_embedded **out, int *n, gdt_error *e);
/* The key from its parts: the template's embedded source (name and text),
 * the kernel headers every compile gets, the options (every -D value among
 * them), the arch, and the NVRTC, driver and gdtune versions.  Everything
 * that reaches the compiler changes the key (tests/cpu/test_cache_key.c
 * changes each part in turn); INTERNAL if the material overflows. */
gdt_status gdt__nvrtc_key_of(const gdt_embedded *src, const gdt_embedded *const *hdr, int nh,
                             const gdt_nvrtc_options *o, int arch, gdt_nvrtc_key *k, gdt_error *e);

/* k's key (the digest of text, which names everything the entry depends
 * on) and environment folder (the first 16 hex digits of env's digest);
 * cudnn_plan_cache.c keys its plans with it too. */
void gdt__cache_key_set(gdt_nvrtc_key *k, const char *env, const char *text);

/* What an entry holds. */
typedef enum gdt_cache_kind {
    GDT_CACHE_CUBIN,      /* <key>.cubin: an NVRTC compile's cubin */
    GDT_CACHE_CUDNN_PLAN, /* <key>.plan: a cuDNN execution plan's JSON */
    GDT_CACHE_KIND_COUNT
} gdt_cache_kind;

/* nvrtc_cache.c: a verified hit fills *data (malloc'd) and returns true;
 * never blocks on what sits at the entry's name. */
bool gdt__cache_get(const char *root, const gdt_nvrtc_key *k, gdt_cache_kind kind, void **data,
                    size_t *len);
/* Writes an entry (atomically; a failed write is a later miss), creating
 * the root and the environment (with its marker) when missing. */
void gdt__cache_put(const char *root, const gdt_nvrtc_key *k, gdt_cache_kind kind, const void *data,
                    size_t len);

/* How long a compile waits for another process's lock on its key before it
 * compiles without the cache (and says so on stderr). */
#define GDT_NVRTC_CACHE_LOCK_WAIT_S 5

/* gdt_nvrtc_compile through the cache rooted at root (NULL: no cache).
 * Concurrent compiles of one key serialize on a lock file, so the second
 * finds the first one's entry; the wait is bounded by
 * GDT_NVRTC_CACHE_LOCK_WAIT_S. */
gdt_status gdt__nvrtc_compile_cached(const gdt_nvrtc_template *t, const gdt_facts *f,
                                     const gdt_plan_id *p, int arch, const char *root,
                                     void **cubin, size_t *len, gdt_build_info *info,
                                     gdt_error *e);

#endif
