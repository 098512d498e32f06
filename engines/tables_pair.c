/* One pair, one step (gdt_tables_pair.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_json.h"
#include "gdt_tables_pair.h"
#include "gdt_util.h"

static const char *const kinds[2] = {"tuning", "placement"};

static void member_path(char *out, size_t cap, const char *dir, gdt_family f, int k)
{
    snprintf(out, cap, "%s/%s.%s.json", dir, gdt_family_name(f), kinds[k]);
}

static void manifest_path(char *out, size_t cap, const char *dir, gdt_family f)
{
    snprintf(out, cap, "%s/%s.pair.json", dir, gdt_family_name(f));
}

static const char *base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The manifest: each file's digest and, while the pair is in flight, the
 * temporaries holding it (staged NULL: none). */
static char *manifest_text(gdt_family f, char sha[2][65], char *const *staged)
{
    char *text = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&text, &n);
    if (!m) return NULL;
    fprintf(m, "{\n  \"schema\": \"%s\",\n  \"family\": \"%s\",\n", GDT_PAIR_SCHEMA, gdt_family_name(f));
    for (int k = 0; k < 2; k++) {
        fprintf(m, "  \"%s\": {\"sha256\": \"%s\"", kinds[k], sha[k]);
        if (staged) fprintf(m, ", \"staged\": \"%s\"", base_of(staged[k]));
        fprintf(m, "}%s\n", k ? "" : ",");
    }
    fprintf(m, "}\n");
    return fclose(m) == 0 ? text : (free(text), NULL);
}

static gdt_status write_manifest(const char *path, gdt_family f, char sha[2][65], char *const *staged,
                                 gdt_error *e)
{
    char *text = manifest_text(f, sha, staged);
    gdt_status s = text ? gdt_file_write_atomic(path, text, strlen(text), e)
                        : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", path);
    free(text);
    return s;
}

/* The folder's one publisher at a time: its temporaries are then either
 * this one's or stale, never another's in flight. */
static gdt_status lock_folder(const char *dir, int *fd, gdt_error *e)
{
    *fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd >= 0 && flock(*fd, LOCK_EX) == 0) return GDT_STATUS_OK;
    gdt_status s = gdt_error_set(e, GDT_STATUS_IO, "%s: cannot lock the folder to publish: %s", dir,
                                 strerror(errno));
    if (*fd >= 0) close(*fd);
    *fd = -1;
    return s;
}

gdt_status gdt__pair_publish(const char *dir, gdt_family f, const char *tuning, size_t ntuning,
                             const char *placement, size_t nplacement, gdt_error *e)
{
    char path[2][4096], mpath[4096], sha[2][65];
    const char *text[2] = {tuning, placement};
    size_t len[2] = {ntuning, nplacement};
    gdt_publish pub = {0};
    int lock = -1;
    manifest_path(mpath, sizeof mpath, dir, f);
    gdt_status s = gdt_mkdirs(dir, e);
    if (!s) s = lock_folder(dir, &lock, e);
    for (int k = 0; k < 2 && !s; k++) {
        member_path(path[k], sizeof path[k], dir, f, k);
        gdt_digest_hex(text[k], len[k], sha[k]);
        s = gdt_publish_stage(&pub, path[k], text[k], len[k], e);
    }
    if (!s) s = write_manifest(mpath, f, sha, pub.tmp, e); /* the commit point */
    if (!s) s = gdt_publish_commit(&pub, e);
    if (!s) s = write_manifest(mpath, f, sha, NULL, e);
    gdt_publish_abort(&pub);
    if (lock >= 0) close(lock);
    return s;
}

/* ------------------------------------------------------------ loading */

typedef struct manifest {
    bool present;
    char sha[2][65];
    char staged[2][256]; /* "" when none */
} manifest;

static gdt_status read_member(const char *file, const cJSON *root, gdt_family f, int k, manifest *m,
                              gdt_error *e)
{
    static const char *const keys[] = {"sha256", "staged"};
    char jp[32], jsha[48], jstaged[48], member[256];
    const cJSON *o = NULL, *n;
    const char *sha = NULL, *staged = NULL;
    snprintf(jp, sizeof jp, "/%s", kinds[k]);
    snprintf(jsha, sizeof jsha, "/%s/sha256", kinds[k]);
    snprintf(jstaged, sizeof jstaged, "/%s/staged", kinds[k]);
    snprintf(member, sizeof member, "%s.%s.json", gdt_family_name(f), kinds[k]);
    gdt_status s = gdt_json_require(root, kinds[k], file, "", &o, e);
    if (!s) s = gdt_json_check_keys(o, keys, 2, file, jp, e);
    if (!s) s = gdt_json_require(o, "sha256", file, jp, &n, e);
    if (!s) s = gdt_json_string(n, file, jsha, &sha, e);
    if (!s && strlen(sha) != 64)
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected 64 hex digits, got \"%.80s\"", file,
                          jsha, sha);
    if (!s && (n = gdt_json_get(o, "staged")))
        s = gdt_json_string(n, file, jstaged, &staged, e);
    if (!s && staged && !gdt_temp_name_of(member, staged))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected a temporary of %s (%s.tmp.<12 "
                          "letters or digits>), got \"%.80s\"", file, jstaged, member, member, staged);
    if (!s) {
        snprintf(m->sha[k], sizeof m->sha[k], "%s", sha);
        snprintf(m->staged[k], sizeof m->staged[k], "%s", staged ? staged : "");
    }
    return s;
}

static gdt_status read_manifest(const char *dir, gdt_family f, manifest *m, gdt_error *e)
{
    static const char *const keys[] = {"schema", "family", "tuning", "placement"};
    char path[4096], *text = NULL;
    size_t len = 0;
    cJSON *root = NULL;
    struct stat st;
    memset(m, 0, sizeof *m);
    manifest_path(path, sizeof path, dir, f);
    if (lstat(path, &st) != 0 && errno == ENOENT) return GDT_STATUS_OK;
    gdt_status s = gdt_file_read(path, &text, &len, e);
    if (!s) s = gdt_json_parse(text, len, path, &root, e);
    if (!s) s = gdt_json_check_keys(root, keys, 4, path, "", e);
    if (!s) s = gdt_json_require_text(root, "schema", GDT_PAIR_SCHEMA, path, e);
    if (!s) s = gdt_json_require_text(root, "family", gdt_family_name(f), path, e);
    for (int k = 0; k < 2 && !s; k++)
        s = read_member(path, root, f, k, m, e);
    m->present = !s;
    cJSON_Delete(root);
    free(text);
    return s;
}

/* The sha256 of a regular file (not through a link), "" when it cannot
 * be read. */
static void file_digest(const char *path, char out[65])
{
    struct stat st;
    char *text = NULL;
    size_t len = 0;
    out[0] = '\0';
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        gdt_file_read(path, &text, &len, NULL) == GDT_STATUS_OK)
        gdt_digest_hex(text, len, out);
    free(text);
}

gdt_status gdt__pair_resolve(const char *dir, gdt_family f, char *tp, char *pp, size_t cap, gdt_error *e)
{
    manifest m;
    char *out[2] = {tp, pp}, have[65], staged[4096];
    gdt_status s = read_manifest(dir, f, &m, e);
    for (int k = 0; k < 2 && !s; k++) {
        member_path(out[k], cap, dir, f, k);
        if (!m.present || !m.staged[k][0]) continue;
        file_digest(out[k], have);
        if (!strcmp(have, m.sha[k])) continue;
        snprintf(staged, sizeof staged, "%s/%s", dir, m.staged[k]);
        file_digest(staged, have);
        if (!strcmp(have, m.sha[k])) snprintf(out[k], cap, "%s", staged);
    }
    return s;
}
